"""The ``meteor-build`` command line: commands that build resource bundles.

A thin layer over the builders' library: each command parses its options and
calls one library function; library errors (:class:`meteor_lite.errors.MeteorLiteError`,
``OSError``, ``sqlite3.Error``) become a one-line error on stderr and exit code 1
(usage errors exit with 2).  Warnings are one line each (``meteor-build: warning: ...``).
Progress bars go to stderr and only appear on a terminal.

Commands live in one module per resource kind and are registered here, in the
order ``--help`` lists them (:data:`COMMANDS`); groups of commands (``check``)
register themselves through their module's ``register(app)``.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
from typing import Callable, List, Tuple

import typer

from meteor_lite import __version__

from . import bundle, export, lexical, official, pack, paraphrases, recipes, synonyms, tune
from .errors import show_warnings

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Build meteor-lite resource bundles (versioned SQLite files) from official releases and corpora.",
)

#: Command name -> function, in the order ``meteor-build --help`` lists them.
COMMANDS: List[Tuple[str, Callable[..., None]]] = [
    ("import-official", official.import_official),
    ("function-words", lexical.function_words_cmd),
    ("stems", lexical.stems_cmd),
    ("synonyms", synonyms.synonyms_cmd),
    ("bundle", bundle.bundle_cmd),
    ("compare-synonyms", synonyms.compare_synonyms_cmd),
    ("compare-function-words", lexical.compare_function_words_cmd),
    ("phrase-table", paraphrases.phrase_table_cmd),
    ("pivot", paraphrases.pivot_cmd),
    ("paraphrases", paraphrases.paraphrases_cmd),
    ("recipe", recipes.recipe_cmd),
    ("new-recipe", recipes.new_recipe_cmd),
    ("export", export.export_cmd),
    ("pack", pack.pack_cmd),
    ("tune", tune.tune_cmd),
    ("remove-task", tune.remove_task_cmd),
]

for _name, _func in COMMANDS:
    app.command(_name)(_func)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"meteor-build (meteor-lite {__version__})")
        raise typer.Exit(0)


def _show_progress_messages() -> None:
    """The builders' progress messages (``logging`` INFO, e.g. "aligning ... with eflomal") as plain lines on stderr."""
    log = logging.getLogger("meteor_lite_builders.paraphrases")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Build meteor-lite resource bundles."""
    show_warnings()
    _show_progress_messages()


def _register_checks() -> None:
    """Add the ``check`` group (the maintainer's checks against the jar) when its package is installed.

    ``builders/checks/`` is importable in a checkout (``make install``, an editable install) and left out of
    the wheel (pyproject.toml's package list): ``meteor-build --help`` from a wheel lists no ``check`` group.
    """
    if importlib.util.find_spec("meteor_lite_builders.checks") is None:
        return
    from ..checks.cli import register

    register(app)


_register_checks()


def main() -> None:
    """Console-script entry point (``meteor-build``): one-line errors, never a traceback unless ``--debug``."""
    from .errors import run_app

    sys.exit(run_app(app))


if __name__ == "__main__":  # pragma: no cover
    main()
