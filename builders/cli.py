"""The ``meteor-build`` command line: commands that build resource bundles.

A thin layer over the builders' library: each command calls one library
function; library exceptions become a one-line error on stderr and exit code 1
(usage errors exit with 2).  Progress bars go to stderr and only appear on a
terminal.

Other builder commands live in their own modules: a module listed in
:data:`COMMAND_MODULES` defines ``register(app: typer.Typer) -> None``, which adds
its commands to :data:`app` (with ``@app.command(...)``).
"""

from __future__ import annotations

import importlib
import sqlite3
import time
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Iterator, List, Optional, Tuple, Type

import typer

from meteor_lite import __version__
from meteor_lite.bundle import Bundle, BundleError

from .import_official import (
    FUNCTION_WORD_CHOICES,
    OFFICIAL_LANGUAGES,
    ImportOfficialError,
    build_official_bundle,
    default_bundle_path,
)
from .official import OfficialReleaseError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Build meteor-lite resource bundles (versioned SQLite files) from official releases and corpora.",
)

FunctionWords = Enum("FunctionWords", {c: c for c in FUNCTION_WORD_CHOICES}, type=str)  # type: ignore[misc]

#: Where bundles go unless told otherwise (relative to the working directory).
DEFAULT_OUT_DIR = Path("resources") / "bundles"

#: Exceptions of the library that the CLI reports as a one-line error (exit code 1).
LIBRARY_ERRORS: Tuple[Type[BaseException], ...] = (
    ImportOfficialError,
    OfficialReleaseError,
    BundleError,
    OSError,
    sqlite3.Error,
)


def _fail(msg: str, code: int = 1) -> typer.Exit:
    typer.echo(f"meteor-build: error: {msg}", err=True)
    return typer.Exit(code)


@contextmanager
def library_errors(context: str = "") -> Iterator[None]:
    """Turn :data:`LIBRARY_ERRORS` raised inside the block into a one-line error and exit code 1."""
    try:
        yield
    except LIBRARY_ERRORS as exc:
        msg = str(exc) or type(exc).__name__
        if isinstance(exc, sqlite3.Error):
            msg = f"SQLite: {msg}"
        raise _fail(f"{context}: {msg}" if context else msg) from None


def _summary(path: Path) -> str:
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


@app.command("import-official")
def import_official(
    lang: str = typer.Option(
        ..., "--lang", "-l", help=f"Meteor language code ({' '.join(OFFICIAL_LANGUAGES)}) or 'all'."
    ),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Bundle file to write (one language only)."),
    out_dir: Path = typer.Option(
        DEFAULT_OUT_DIR, "--out-dir", help="Directory for <lang>.sqlite when --out is not given.", show_default=True
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
        "auto",
        "--stems",
        help=(
            "Non-English stem maps. jar: store the words on which Meteor 1.5's own stemmer (run from the jar, "
            "needs Java) differs from snowballstemmer; snowball: none; auto: jar when java is found."
        ),
    ),
    progress: bool = typer.Option(
        True, "--progress/--no-progress", help="Progress bars on long steps (shown only when stderr is a terminal)."
    ),
) -> None:
    """Import the resources of the official Meteor 1.5 release (from pycocoevalcap) into bundles.

    English gets function words, WordNet synonyms and exceptions, the paraphrase
    table, non-breaking prefixes and a Snowball stem map; other languages get
    what the release has for them and their stemmer record.
    """
    if lang == "all":
        langs: List[str] = list(OFFICIAL_LANGUAGES)
        if out is not None:
            raise typer.BadParameter("--out names one file: use --out-dir with --lang all", param_hint="--out")
    elif lang in OFFICIAL_LANGUAGES:
        langs = [lang]
    else:
        raise typer.BadParameter(
            f"unknown language {lang!r}: choose from {' '.join(OFFICIAL_LANGUAGES)} or 'all'", param_hint="--lang"
        )
    for code in langs:
        path = out if out is not None else default_bundle_path(code, out_dir)
        if skip_existing and path.exists():
            problem = _existing_bundle(path)
            if problem is None:
                typer.echo(f"{code}: {path} exists, skipped")
                continue
            typer.echo(f"meteor-build: warning: {problem}; rebuilding it", err=True)
        started = time.perf_counter()
        with library_errors(code):
            try:
                build_official_bundle(
                    code,
                    path,
                    progress=progress,
                    max_paraphrases=max_paraphrases,
                    function_words=FunctionWords(function_words).value,
                    stems=stems,
                )
            except KeyboardInterrupt:
                typer.echo(f"meteor-build: interrupted: {code}: no bundle written", err=True)
                raise typer.Exit(130) from None
            summary = _summary(path)
        typer.echo(f"{code}: wrote {path} ({summary}) in {time.perf_counter() - started:.1f} s")


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"meteor-build (meteor-lite {__version__})")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Build meteor-lite resource bundles."""


#: Modules of this package that add commands to :data:`app` through their ``register(app)``;
#: a module not present in this installation is skipped.
COMMAND_MODULES: Tuple[str, ...] = ("resource_cli", "paraphrase_cli", "recipe_cli")


def _register_command_modules() -> None:
    for name in COMMAND_MODULES:
        qualified = f"{__package__}.{name}"
        try:
            module = importlib.import_module(qualified)
        except ModuleNotFoundError as exc:
            if exc.name == qualified:
                continue
            raise
        module.register(app)


_register_command_modules()


def main() -> None:
    """Console-script entry point (``meteor-build``)."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
