"""``meteor-build import-official``: the official Meteor 1.5 release's resources into bundles."""

from __future__ import annotations

import time
from enum import Enum
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import typer

from meteor_lite.errors import BundleError
from meteor_lite.printable import one_line
from meteor_lite.resources.bundle import Bundle

from ..official.importer import FUNCTION_WORD_CHOICES, OFFICIAL_LANGUAGES, build_official_bundle, default_bundle_path
from .errors import LIBRARY_ERRORS, error_message, fail, library_errors, out_file
from .options import DEFAULT_OUT_DIR, OUT_DIR_HELP, out_dir_or_default

FunctionWords = Enum("FunctionWords", {c: c for c in FUNCTION_WORD_CHOICES}, type=str)  # type: ignore[misc]


def bundle_summary(path: Path) -> str:
    """One line about a bundle: size, row counts, stemmer."""
    with Bundle.open(path) as b:
        counts = b.counts()
        stemmer = b.stemmer
    size = path.stat().st_size
    parts = [f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.0f} kB"]
    parts += [f"{n:,} {t.replace('_', ' ')}" for t, n in counts.items() if n]
    if stemmer:
        parts.append(f"stemmer {stemmer.get('package')} {stemmer.get('version')} {stemmer.get('language')}")
    return "; ".join(parts)


def _existing_bundle(path: Path) -> Optional[str]:
    """None when ``path`` is a readable bundle, else why not."""
    try:
        Bundle.open(path).close()
    except BundleError as exc:
        return str(exc)
    return None


def _languages(lang: str, out: Optional[Path]) -> List[str]:
    if lang == "all":
        if out is not None:
            raise typer.BadParameter("--out names one file: use --out-dir with --lang all", param_hint="--out")
        return list(OFFICIAL_LANGUAGES)
    if lang in OFFICIAL_LANGUAGES:
        return [lang]
    raise typer.BadParameter(
        f"unknown language {lang!r}: choose from {' '.join(OFFICIAL_LANGUAGES)} or 'all'", param_hint="--lang"
    )


def import_official(
    lang: str = typer.Option(
        ..., "--lang", "-l", help=f"Meteor language code ({' '.join(OFFICIAL_LANGUAGES)}) or 'all'."
    ),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Bundle file to write (one language only).", callback=out_file),
    out_dir: Optional[Path] = typer.Option(
        DEFAULT_OUT_DIR, "--out-dir", help=f"Directory for <lang>.sqlite when --out is not given {OUT_DIR_HELP}."
    ),
    skip_existing: bool = typer.Option(
        False, "--skip-existing", help="Leave a language alone when its bundle already exists and opens."
    ),
    max_paraphrases: Optional[int] = typer.Option(
        None, "--max-paraphrases", min=0, help="Import only the first N pairs of the paraphrase table (for quick builds)."
    ),
    function_words: FunctionWords = typer.Option(
        FUNCTION_WORD_CHOICES[0],
        "--function-words",
        help=(
            "meteor: the list Meteor 1.5 applies (its English list, whatever the language); "
            "language: the jar's own list for the language (does not reproduce Meteor 1.5's scores)."
        ),
    ),
    stems: str = typer.Option(
        "snowball",
        "--stems",
        help=(
            "Non-English stem maps. snowball: none (the scorer runs Meteor 1.5's own stemmers; the same bundle with or "
            "without Java); jar: the stem corrections, the words on which Meteor 1.5's stemmer (run from the jar, needs "
            "Java) differs from snowballstemmer, for other tools (about 20 s of CPU a language); auto: jar when java is found."
        ),
    ),
    progress: bool = typer.Option(
        True, "--progress/--no-progress", help="Progress bars on long steps (shown only when stderr is a terminal)."
    ),
    keep_probabilities: bool = typer.Option(
        False, "--keep-probabilities",
        help="Also store the paraphrase table's probabilities (not used to score; for `export`: +52 MB for English).",
    ),
    jobs: int = typer.Option(
        1, "--jobs", "-j", min=1,
        help="Import this many languages at once (one process each; no progress bars). The bundles are the same.",
    ),
) -> None:
    """Import the resources of the official Meteor 1.5 release (from pycocoevalcap) into bundles.

    English gets function words, WordNet synonyms and exceptions, the paraphrase
    table, non-breaking prefixes and a Snowball stem map; other languages get
    what the release has for them and their stemmer record.
    """
    todo: List[Tuple[str, Path]] = []
    for code in _languages(lang, out):
        path = out if out is not None else default_bundle_path(code, out_dir_or_default(out_dir))
        if skip_existing and path.exists():
            problem = _existing_bundle(path)
            if problem is None:
                typer.echo(f"{code}: {path} exists, skipped")
                continue
            typer.echo(f"meteor-build: warning: {problem}; rebuilding it", err=True)
        todo.append((code, path))
    options: Dict[str, object] = dict(
        max_paraphrases=max_paraphrases, function_words=FunctionWords(function_words).value, stems=stems,
        keep_probabilities=keep_probabilities,
    )
    if jobs > 1 and len(todo) > 1:
        _import_in_parallel(todo, options, jobs)
        return
    for code, path in todo:
        with library_errors(code):
            try:
                line = _build_one(code, path, options, progress)
            except KeyboardInterrupt:
                typer.echo(f"meteor-build: interrupted: {code}: no bundle written", err=True)
                raise typer.Exit(130) from None
        typer.echo(line)


def _build_one(code: str, path: Path, options: Dict[str, object], progress: bool) -> str:
    """Import one language; its summary line (what was written, how long it took)."""
    started = time.perf_counter()
    build_official_bundle(code, path, progress=progress, **options)
    return f"{code}: wrote {path} ({bundle_summary(path)}) in {time.perf_counter() - started:.1f} s"


def _import_one(code: str, path: Path, options: Dict[str, object]) -> Tuple[bool, str]:
    """One language's import in a worker process: (True, the summary line) or (False, the error line)."""
    try:
        return True, _build_one(code, path, options, progress=False)
    except LIBRARY_ERRORS as exc:
        return False, f"{code}: {error_message(exc)}"


def _import_in_parallel(todo: List[Tuple[str, Path]], options: Dict[str, object], jobs: int) -> None:
    """``--jobs N``: the languages ``jobs`` at once, one line each as it finishes; every language is tried, exit 1 if any failed."""
    from concurrent.futures import ProcessPoolExecutor, as_completed

    failed: List[str] = []
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, len(todo))) as pool:
            futures = {pool.submit(_import_one, code, path, options): code for code, path in todo}
            for fut in as_completed(futures):
                ok, line = fut.result()
                if not ok:
                    failed.append(futures[fut])
                typer.echo(line if ok else f"meteor-build: error: {one_line(line)}", err=not ok)
    except KeyboardInterrupt:
        typer.echo("meteor-build: interrupted: bundles not finished were not written", err=True)
        raise typer.Exit(130) from None
    if failed:
        raise fail(f"{len(failed)} of {len(todo)} languages failed: {', '.join(failed)}")
