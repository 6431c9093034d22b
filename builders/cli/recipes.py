"""``meteor-build recipe`` and ``new-recipe``: bundles from declarative recipes, and new recipes.

A missing source or a checksum mismatch stops that recipe with an error naming
the source and the file; with several recipes the others are still built.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import List, Optional, Tuple

import typer

from .errors import LIBRARY_ERRORS, error_message, library_errors, out_file
from .options import DEFAULT_OUT_DIR, OUT_DIR_HELP, check_one_wordnet, out_dir_or_default


def _build_one(path: str, out: Optional[str], out_dir: str, skip: bool, show_progress: bool) -> Tuple[bool, str]:
    """Build one recipe (in this process or a worker); return (ok, one line to print)."""
    from ..recipes.build import build_recipe

    try:
        res = build_recipe(path, out, out_dir=out_dir, skip_up_to_date=skip, show_progress=show_progress)
    except LIBRARY_ERRORS as exc:
        return False, error_message(exc)
    return True, res.summary()


def _check_recipes(files: List[Path], out_dir: Path) -> None:
    """``--check``: read every recipe and verify its sources; exit 1 if any failed."""
    from meteor_lite.errors import MeteorLiteError

    from ..recipes import check_sources, load_recipe, recipe_output

    failed = 0
    for f in files:
        try:
            r = load_recipe(f)
            checked = check_sources(r)
        except MeteorLiteError as exc:
            typer.echo(f"meteor-build: error: {exc}", err=True)
            failed += 1
            continue
        found = sum(1 for c in checked.values() if c.found)
        typer.echo(f"{f}: ok ({found} of {len(checked)} sources verified; builds {recipe_output(r, out_dir)})")
    raise typer.Exit(1 if failed else 0)


def _print_table(recipes: List[Path], out_dir: Path) -> None:
    """``--table``: the Markdown language table of the recipes (one directory), then a count line; exit 0."""
    from ..recipes.catalogue import has_matcher, language_rows, language_table
    from ..recipes.model import load_recipe, recipe_files

    if len(recipes) != 1 or not recipes[0].is_dir():
        raise typer.BadParameter("--table reads one directory of recipes", param_hint="RECIPES")
    with library_errors():
        rows = language_rows(recipes[0], out_dir)
        shipped = [load_recipe(f) for f in recipe_files(recipes)]
        n = sum(1 for r in shipped if has_matcher(r) and "function_words" in r.sections)
        m = sum(1 for r in shipped if has_matcher(r))
        syn = sum(1 for r in shipped if "synonyms" in r.sections)
    typer.echo(language_table(rows), nl=False)
    typer.echo(f"\n{len(rows)} languages; {n} with function words and a stem, lemma or character matcher; "
               f"{m} with a stem, lemma or character matcher; {syn} with synonym sets")
    raise typer.Exit(0)


def _build_all(files: List[Path], out: Optional[Path], out_dir: Path, skip: bool, jobs: int, progress: bool) -> List[Tuple[Path, bool, str]]:
    """Build the recipes (``jobs`` at once), printing one line per recipe as it finishes."""
    results: List[Tuple[Path, bool, str]] = []
    if jobs == 1 or len(files) == 1:
        for f in files:
            ok, msg = _build_one(str(f), None if out is None else str(out), str(out_dir), skip, progress)
            results.append((f, ok, msg))
            typer.echo(msg if ok else f"meteor-build: error: {msg}", err=not ok)
        return results
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futs = {pool.submit(_build_one, str(f), None, str(out_dir), skip, False): f for f in files}
        for fut in as_completed(futs):
            ok, msg = fut.result()
            results.append((futs[fut], ok, msg))
            typer.echo(msg if ok else f"meteor-build: error: {msg}", err=not ok)
    return results


def recipe_cmd(
    recipes: List[Path] = typer.Argument(..., help="Recipe files (.toml/.json), or directories of them."),
    out_dir: Optional[Path] = typer.Option(
        DEFAULT_OUT_DIR, "--out-dir", help=f"Where bundles go: <out-dir>/<name>.sqlite {OUT_DIR_HELP}."
    ),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Bundle file to write (one recipe only).", callback=out_file),
    skip_up_to_date: bool = typer.Option(
        False, "--skip-up-to-date", help="Leave a bundle alone when it was built from the same recipe and is intact."
    ),
    check: bool = typer.Option(False, "--check", help="Only read the recipes and verify their sources' checksums."),
    table: bool = typer.Option(
        False, "--table", help="Only print the language table of docs/languages.md (sizes from the bundles in --out-dir)."
    ),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Build this many recipes at once (one process each)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Progress bars (only on a terminal, one job)."),
) -> None:
    """Build bundles from declarative recipes, verifying every source's checksum first.

    A missing source or a checksum mismatch stops that recipe with an error naming the
    source and the file.  With several recipes the others are still built; the exit code
    is 1 if any failed.
    """
    from ..recipes import recipe_files

    with library_errors():
        files = recipe_files(recipes)
    if out is not None and len(files) != 1:
        raise typer.BadParameter("--out names one bundle: give one recipe, or use --out-dir", param_hint="--out")
    out_dir = out_dir_or_default(out_dir)
    if table:
        _print_table(recipes, out_dir)
    if check:
        _check_recipes(files, out_dir)
    started = time.perf_counter()
    try:
        results = _build_all(files, out, out_dir, skip_up_to_date, jobs, progress)
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
    lemmas: Optional[str] = typer.Option(
        None, "--lemmas",
        help="A lemma map (forms -> lemma) as the stem map: 'simplemma' (its dictionary for --lang), "
        "'simplemma:CODE', or a form<TAB>lemma file (needs the lemmas extra for simplemma).",
    ),
    lemma_licence: str = typer.Option("see the file", "--lemma-licence", help="Licence of the --lemmas file."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing recipe file."),
) -> None:
    """Write a recipe for a language from the sources given, with their checksums and licences.

    With --lemmas the stem map is a lemma map; with --stemmer czech/polish/persian/estonian/... (Snowball
    algorithms that the scorer's snowballstemmer 2.2.0 lacks) it is made by the installed PyStemmer,
    pinned in the recipe.  Both are map-only: the scorer leaves words outside them unstemmed.
    """
    from ..recipes.new_recipe import NewRecipe, write_new_recipe

    if out.exists() and not force:
        raise typer.BadParameter(f"{out} exists (use --force to overwrite)", param_hint="--out")
    check_one_wordnet(wordnet, lmf)
    fw_from = function_words or ("corpus" if corpus else ("wordfreq" if wordfreq else "none"))
    if fw_from not in ("wordfreq", "corpus", "none"):
        raise typer.BadParameter("one of wordfreq, corpus, none", param_hint="--function-words")
    if fw_from == "corpus" and not corpus:
        raise typer.BadParameter("function words from a corpus need --corpus", param_hint="--function-words")
    if fw_from == "wordfreq" and not wordfreq:
        raise typer.BadParameter("function words from wordfreq need --wordfreq", param_hint="--function-words")
    options = NewRecipe(
        lang=lang, out=out, name=name, version=version, description=description, wordfreq=wordfreq, corpus=corpus,
        corpus_licence=corpus_licence, fw_from=fw_from, threshold=threshold, stems=stems, stemmer=stemmer,
        wordfreq_top=wordfreq_top, wordnet=wordnet, lmf=lmf, synonym_licence=synonym_licence,
        paraphrases=paraphrases, paraphrase_licence=paraphrase_licence, prefixes=prefixes, optional=optional,
        lemmas=lemmas, lemma_licence=lemma_licence,
    )
    with library_errors():
        data = write_new_recipe(options)
    typer.echo(f"wrote {out} ({len(data['sources'])} sources; bundle {data['bundle']['name']}.sqlite)")
