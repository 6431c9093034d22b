"""``meteor-build`` commands for recipes and exports.

Registered on the ``meteor-build`` Typer app by :func:`register`:

* ``recipe`` -- build the bundle(s) of one or more recipes (:mod:`.recipes`), checking every
  source's checksum first;
* ``new-recipe`` -- write a recipe for a language from the sources given (checksums filled in);
* ``export`` -- write a bundle's resources in the file formats the official Meteor 1.5 reads
  (:mod:`.export`).

Library errors become one line on stderr (``meteor-build: error: ...``) and exit code 1; usage
errors exit with 2.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import typer

from meteor_lite.bundle import BundleError

from .inputs import SourceError

#: Where bundles go unless told otherwise (relative to the working directory).
DEFAULT_OUT_DIR = Path("resources") / "bundles"


def _fail(msg: str, code: int = 1) -> typer.Exit:
    typer.echo(f"meteor-build: error: {msg}", err=True)
    return typer.Exit(code)


def _warn(msg: str) -> None:
    print(f"meteor-build: warning: {msg}", file=sys.stderr, flush=True)


@contextmanager
def _library_errors() -> Iterator[None]:
    from .official import OfficialReleaseError

    try:
        yield
    except (SourceError, BundleError, OfficialReleaseError, OSError, sqlite3.Error, ValueError) as exc:
        msg = str(exc) or type(exc).__name__
        if isinstance(exc, sqlite3.Error):
            msg = f"SQLite: {msg}"
        raise _fail(msg) from None


def _build_one(path: str, out: Optional[str], out_dir: str, skip: bool, show_progress: bool) -> Tuple[bool, str]:
    """Build one recipe (in this process or a worker); return (ok, one line to print)."""
    from .official import OfficialReleaseError
    from .recipes import build_recipe

    try:
        res = build_recipe(path, out, out_dir=out_dir, skip_up_to_date=skip, show_progress=show_progress, warn=_warn)
    except (SourceError, BundleError, OfficialReleaseError, OSError, sqlite3.Error, ValueError) as exc:
        msg = str(exc) or type(exc).__name__
        return False, f"SQLite: {msg}" if isinstance(exc, sqlite3.Error) else msg
    return True, res.summary()


class Only(str, Enum):
    function_words = "function-words"
    synonyms = "synonyms"
    paraphrases = "paraphrases"


def register(app: typer.Typer) -> None:
    """Add this module's commands to the ``meteor-build`` app."""

    @app.command("recipe")
    def recipe_cmd(
        recipes: List[Path] = typer.Argument(..., help="Recipe files (.toml/.json), or directories of them."),
        out_dir: Path = typer.Option(DEFAULT_OUT_DIR, "--out-dir", help="Where bundles go: <out-dir>/<name>.sqlite.",
                                     show_default=True),
        out: Optional[Path] = typer.Option(None, "--out", "-o", help="Bundle file to write (one recipe only)."),
        skip_up_to_date: bool = typer.Option(
            False, "--skip-up-to-date", help="Leave a bundle alone when it was built from the same recipe and is intact."
        ),
        check: bool = typer.Option(False, "--check", help="Only read the recipes and verify their sources' checksums."),
        jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Build this many recipes at once (one process each)."),
        progress: bool = typer.Option(True, "--progress/--no-progress", help="Progress bars (only on a terminal, one job)."),
    ) -> None:
        """Build bundles from declarative recipes, verifying every source's checksum first.

        A missing source or a checksum mismatch stops that recipe with an error naming the
        source and the file.  With several recipes the others are still built; the exit code
        is 1 if any failed.
        """
        from .recipes import check_sources, load_recipe, recipe_files, recipe_output

        with _library_errors():
            files = recipe_files(recipes)
        if out is not None and len(files) != 1:
            raise typer.BadParameter("--out names one bundle: give one recipe, or use --out-dir", param_hint="--out")
        if check:
            failed = 0
            for f in files:
                try:
                    r = load_recipe(f)
                    checked = check_sources(r, warn=_warn)
                except SourceError as exc:
                    typer.echo(f"meteor-build: error: {exc}", err=True)
                    failed += 1
                    continue
                found = sum(1 for c in checked.values() if c.found)
                typer.echo(f"{f}: ok ({found} of {len(checked)} sources verified; builds {recipe_output(r, out_dir)})")
            raise typer.Exit(1 if failed else 0)

        started = time.perf_counter()
        results: List[Tuple[Path, bool, str]] = []
        try:
            if jobs == 1 or len(files) == 1:
                for f in files:
                    ok, msg = _build_one(str(f), None if out is None else str(out), str(out_dir), skip_up_to_date, progress)
                    results.append((f, ok, msg))
                    typer.echo(msg if ok else f"meteor-build: error: {msg}", err=not ok)
            else:
                from concurrent.futures import ProcessPoolExecutor, as_completed

                with ProcessPoolExecutor(max_workers=jobs) as pool:
                    futs = {pool.submit(_build_one, str(f), None, str(out_dir), skip_up_to_date, False): f for f in files}
                    for fut in as_completed(futs):
                        ok, msg = fut.result()
                        results.append((futs[fut], ok, msg))
                        typer.echo(msg if ok else f"meteor-build: error: {msg}", err=not ok)
        except KeyboardInterrupt:
            typer.echo("meteor-build: interrupted: bundles not finished were not written", err=True)
            raise typer.Exit(130) from None
        failed = [f for f, ok, _ in results if not ok]
        if len(files) > 1:
            typer.echo(
                f"{len(files) - len(failed)} of {len(files)} recipes built or up to date in "
                f"{time.perf_counter() - started:.1f} s" + (f"; failed: {', '.join(f.name for f in failed)}" if failed else "")
            )
        if failed:
            raise typer.Exit(1)

    @app.command("new-recipe")
    def new_recipe_cmd(
        lang: str = typer.Option(..., "--lang", "-l", help="Language code of the bundle (e.g. el, id, pl)."),
        out: Path = typer.Option(..., "--out", "-o", help="Recipe file to write (.toml)."),
        name: Optional[str] = typer.Option(None, "--name", help="Bundle name; the bundle file is <name>.sqlite (default: --lang)."),
        version: str = typer.Option("1.0.0", "--bundle-version", help="Semantic version of the bundle."),
        description: Optional[str] = typer.Option(None, "--description", help="One line about the bundle."),
        wordfreq: bool = typer.Option(False, "--wordfreq", help="Use wordfreq's frequency list for the language."),
        corpus: List[Path] = typer.Option([], "--corpus", "-c", help="Monolingual corpus file (repeatable)."),
        corpus_licence: str = typer.Option("see the corpus", "--corpus-licence", help="Licence of the corpus files."),
        function_words: Optional[str] = typer.Option(
            None, "--function-words", help="From 'wordfreq', 'corpus' or 'none' (default: corpus if given, else wordfreq)."
        ),
        threshold: float = typer.Option(1e-3, "--threshold", help="Relative frequency of a function word."),
        stems: bool = typer.Option(True, "--stems/--no-stems", help="A stem map over every vocabulary given."),
        stemmer: Optional[str] = typer.Option(None, "--stemmer", help="Snowball algorithm (default: the language's)."),
        wordfreq_top: Optional[int] = typer.Option(None, "--wordfreq-top", min=1, help="Stem only wordfreq's N most frequent words."),
        wordnet: Optional[Path] = typer.Option(None, "--wordnet", help="WordNet database directory (synonyms)."),
        lmf: Optional[Path] = typer.Option(None, "--lmf", help="WN-LMF XML file (synonyms)."),
        synonym_licence: Optional[str] = typer.Option(None, "--synonym-licence", help="Licence of the wordnet."),
        paraphrases: Optional[Path] = typer.Option(
            None, "--paraphrases", help="Paraphrase table in Meteor's format (e.g. from `meteor-build paraphrases --meteor-file`)."
        ),
        paraphrase_licence: str = typer.Option("see the table's sources", "--paraphrase-licence", help="Its licence."),
        prefixes: str = typer.Option(
            "auto", "--prefixes",
            help="Non-breaking prefixes: auto (Meteor 1.5's list when it has one for the language), none, or a prefixes file.",
        ),
        optional: List[str] = typer.Option(
            [], "--optional", help="Source name (wordfreq, wordnet, lmf, paraphrases, prefixes, corpus-N) that may be absent."
        ),
        force: bool = typer.Option(False, "--force", help="Overwrite an existing recipe file."),
    ) -> None:
        """Write a recipe for a language from the sources given, with their checksums and licences."""
        from .recipes import RECIPE_FORMAT, RECIPE_FORMAT_VERSION, write_recipe

        if out.exists() and not force:
            raise typer.BadParameter(f"{out} exists (use --force to overwrite)", param_hint="--out")
        if wordnet is not None and lmf is not None:
            raise typer.BadParameter("give --wordnet or --lmf, not both", param_hint="--lmf")
        fw_from = function_words or ("corpus" if corpus else ("wordfreq" if wordfreq else "none"))
        if fw_from not in ("wordfreq", "corpus", "none"):
            raise typer.BadParameter("one of wordfreq, corpus, none", param_hint="--function-words")
        if fw_from == "corpus" and not corpus:
            raise typer.BadParameter("function words from a corpus need --corpus", param_hint="--function-words")
        if fw_from == "wordfreq" and not wordfreq:
            raise typer.BadParameter("function words from wordfreq need --wordfreq", param_hint="--function-words")

        with _library_errors():
            data = _new_recipe(
                lang=lang, out=out, name=name, version=version, description=description, wordfreq=wordfreq, corpus=corpus,
                corpus_licence=corpus_licence, fw_from=fw_from, threshold=threshold, stems=stems, stemmer=stemmer,
                wordfreq_top=wordfreq_top, wordnet=wordnet, lmf=lmf, synonym_licence=synonym_licence,
                paraphrases=paraphrases, paraphrase_licence=paraphrase_licence, prefixes=prefixes, optional=optional,
            )
            data["format"], data["format_version"] = RECIPE_FORMAT, RECIPE_FORMAT_VERSION
            header = (
                f"meteor-lite bundle recipe for {lang!r}: build with  meteor-build recipe {out}\n"
                "Written by meteor-build new-recipe; sha256 values pin the exact inputs."
            )
            write_recipe(data, out, header=header)
        typer.echo(f"wrote {out} ({len(data['sources'])} sources; bundle {data['bundle']['name']}.sqlite)")

    @app.command("export")
    def export_cmd(
        bundle: Path = typer.Argument(..., help="Bundle file."),
        out: Path = typer.Option(..., "--out", "-o", help="Directory to write the files into (created if needed)."),
        only: List[Only] = typer.Option([], "--only", help="Export only these resources (repeatable; default: all)."),
        language_name: Optional[str] = typer.Option(
            None, "--language-name", help="Name of the synonym files (default: Meteor's name of the bundle's language, e.g. english)."
        ),
        progress: bool = typer.Option(True, "--progress/--no-progress", help="Progress bars (only on a terminal)."),
    ) -> None:
        """Write a bundle's resources in the formats the official Meteor 1.5 jar reads.

        function.words (-s), <language>.synsets/.exceptions/.relations (-d DIR), paraphrase.gz (-a;
        also what -new DIR reads) and export.json (provenance and the jar options).
        """
        from .export import export_bundle

        resources = [o.value.replace("-", "_") for o in only] or None
        started = time.perf_counter()
        with _library_errors():
            kwargs: Dict[str, Any] = {"language_name": language_name, "show_progress": progress}
            if resources:
                kwargs["resources"] = resources
            res = export_bundle(bundle, out, **kwargs)
        for f in res.files:
            typer.echo(f"{out / f.name}: {f.rows:,} entries")
        typer.echo(f"exported in {time.perf_counter() - started:.1f} s; use with the jar:")
        typer.echo("  java -Xmx2G -jar meteor-1.5.jar HYP REF -l <lang> -norm " + " ".join(res.jar_options()))


def _rel(path: Path, base: Path) -> str:
    """``path`` as written in a recipe at ``base``: relative to the recipe's directory when possible."""
    try:
        return os.path.relpath(path.resolve(), base.resolve())
    except ValueError:  # another drive (Windows)
        return str(path.resolve())


def _new_recipe(
    *, lang: str, out: Path, name: Optional[str], version: str, description: Optional[str], wordfreq: bool,
    corpus: List[Path], corpus_licence: str, fw_from: str, threshold: float, stems: bool, stemmer: Optional[str],
    wordfreq_top: Optional[int], wordnet: Optional[Path], lmf: Optional[Path], synonym_licence: Optional[str],
    paraphrases: Optional[Path], paraphrase_licence: str, prefixes: str, optional: List[str],
) -> Dict[str, Any]:
    """The recipe structure for :func:`~.recipes.write_recipe` (sources found and checksummed now)."""
    import hashlib

    from .bundle_writer import sha256_file
    from .recipes import RecipeError, wordnet_digest

    base = out.parent
    sources: Dict[str, Dict[str, Any]] = {}

    def need_file(p: Path, what: str) -> None:
        if not p.is_file():
            raise RecipeError(f"{what} {p}: file not found")

    if wordfreq:
        from .function_words import WORDFREQ_LICENCE, wordfreq_frequencies, wordfreq_language

        code = wordfreq_language(lang)
        _freqs, src = wordfreq_frequencies(lang)
        sources["wordfreq"] = {
            "kind": "wordfreq", "language": code, "file": src.name.removeprefix("wordfreq-"), "sha256": src.sha256,
            "licence": WORDFREQ_LICENCE, "description": src.description.split(";")[0],
        }
    corpus_names: List[str] = []
    for i, c in enumerate(corpus, 1):
        need_file(c, "corpus")
        n = f"corpus-{i}" if len(corpus) > 1 else "corpus"
        corpus_names.append(n)
        sources[n] = {"kind": "corpus", "path": _rel(c, base), "sha256": sha256_file(c), "licence": corpus_licence,
                      "description": f"monolingual corpus ({lang}): {c.name}"}
    syn_name = None
    if wordnet is not None:
        from .wordnet import WORDNET_LICENCE

        if not (wordnet / "data.noun").is_file():
            raise RecipeError(f"{wordnet}: not a WordNet database directory (no data.noun)")
        syn_name = "wordnet"
        sources["wordnet"] = {"kind": "wordnet", "path": str(wordnet.resolve()) if wordnet.is_absolute() else _rel(wordnet, base),
                              "sha256": wordnet_digest(wordnet), "licence": synonym_licence or WORDNET_LICENCE,
                              "description": "Princeton WordNet database (data.*, *.exc)"}
    elif lmf is not None:
        need_file(lmf, "LMF file")
        syn_name = "lmf"
        sources["lmf"] = {"kind": "lmf", "path": _rel(lmf, base), "sha256": sha256_file(lmf),
                          "licence": synonym_licence or "see the lexicon's license attribute", "description": f"WN-LMF wordnet {lmf.name}"}
    if paraphrases is not None:
        need_file(paraphrases, "paraphrase table")
        sources["paraphrases"] = {"kind": "paraphrase-table", "path": _rel(paraphrases, base), "sha256": sha256_file(paraphrases),
                                  "licence": paraphrase_licence, "description": f"paraphrase table {paraphrases.name} (Meteor format)"}
    if prefixes == "auto":
        from .official import LANGUAGE_NAMES, OfficialReleaseError, jar_members, read_jar_bytes
        from meteor_lite.params import canonical_language

        code = canonical_language(lang)
        member = f"nonbreaking/{LANGUAGE_NAMES[code]}.prefixes" if code in LANGUAGE_NAMES else None
        try:
            if member is not None and member in jar_members("nonbreaking/"):
                sources["prefixes"] = {"kind": "meteor-jar", "member": member,
                                       "sha256": hashlib.sha256(read_jar_bytes(member)).hexdigest(), "licence": "LGPL-2.1",
                                       "description": f"Meteor 1.5 non-breaking prefixes ({member} inside meteor-1.5.jar)"}
        except OfficialReleaseError as exc:
            _warn(f"no non-breaking prefixes: {exc}")
    elif prefixes != "none":
        p = Path(prefixes)
        need_file(p, "prefixes file")
        sources["prefixes"] = {"kind": "prefixes", "path": _rel(p, base), "sha256": sha256_file(p),
                               "licence": "see the file", "description": f"non-breaking prefixes {p.name}"}
    for n in optional:
        if n not in sources:
            raise RecipeError(f"--optional {n}: no such source (sources: {', '.join(sources)})")
        sources[n]["required"] = False
    if not sources:
        raise RecipeError("no source given: --wordfreq, --corpus, --wordnet, --lmf and/or --paraphrases")

    bundle: Dict[str, Any] = {"language": lang, "name": name or lang, "version": version}
    if description:
        bundle["description"] = description
    data: Dict[str, Any] = {"bundle": bundle, "sources": sources}
    if fw_from == "wordfreq":
        data["function_words"] = {"from": "wordfreq", "threshold": threshold}
    elif fw_from == "corpus":
        data["function_words"] = {"from": corpus_names, "threshold": threshold}
    vocab = (["wordfreq"] if wordfreq else []) + corpus_names + ([syn_name] if syn_name else [])
    if stems and vocab:
        from .stems import snowball_algorithm

        sec: Dict[str, Any] = {"from": vocab, "algorithm": stemmer or snowball_algorithm(lang)}
        if wordfreq_top is not None:
            sec["wordfreq_top"] = wordfreq_top
        data["stems"] = sec
    if syn_name:
        data["synonyms"] = {"from": syn_name}
    if paraphrases is not None:
        data["paraphrases"] = {"from": "paraphrases"}
    if "prefixes" in sources:
        data["nonbreaking"] = {"from": "prefixes"}
    return data
