"""The ``meteor-lite`` command line: ``score``, ``bundle info|verify|list|install|remove`` and ``align``.

A thin layer over the library, on the standard library's :mod:`argparse` (a
command imports only what it uses, so ``meteor-lite score`` starts fast): each
command calls one library function and turns library exceptions into a one-line
error and a non-zero exit code (documented in :mod:`meteor_lite.cli.errors`:
1 input/bundle/config error, 2 usage error).  The console script is
``meteor_lite.cli:main``.

Commands are registered in :data:`COMMANDS` (name -> module, one-line summary); the
module is imported only when its command runs and provides ``run(argv) -> int``.
"""

from __future__ import annotations

import gc
import sys
from importlib import import_module
from typing import Dict, List, Optional, Tuple

from ..version import __version__

__all__ = ["COMMANDS", "main", "run"]

#: Command name -> (module providing ``run(argv) -> int``, summary for ``--help``).
COMMANDS: Dict[str, Tuple[str, str]] = {
    "score": ("meteor_lite.cli.score", "Score a hypothesis file against one or more reference files."),
    "bundle": ("meteor_lite.cli.bundles", "Inspect, install and remove resource bundles (info, verify, list, install, remove)."),
    "align": ("meteor_lite.cli.align", "Show which words matched by which module (Meteor 1.5's aligner output, or JSON)."),
    "correlate": ("meteor_lite.cli.correlate", "Correlate metric scores with human judgments (MQM, DA): WMT's statistics with intervals."),
    "compare": ("meteor_lite.cli.compare", "Is each system better than the baseline? Paired bootstrap and approximate randomization."),
    "report": ("meteor_lite.cli.report", "One HTML page comparing systems: scores, significance, plots, modules, examples."),
    "as-java": ("meteor_lite.cli.asjava", "Run a command with 'java' answering for the Meteor 1.5 jar (other Java calls go to the real Java)."),
    "java-shim": ("meteor_lite.cli.javashim", "Write DIR/java, a 'java' that answers for the Meteor 1.5 jar, to put first on PATH."),
}

_HELP = """usage: meteor-lite [--version] [-h] [--debug] COMMAND [ARGS]...

METEOR scoring that reproduces Meteor 1.5, in pure Python.

options:
  --version   Print the version and exit.
  -h, --help  Show this message and exit.
  --debug     Show the Python traceback of an unexpected error (also METEOR_LITE_DEBUG=1).

commands:
{commands}

'meteor-lite COMMAND --help' describes a command.
"""


def _help() -> str:
    width = max(len(c) for c in COMMANDS)
    return _HELP.format(commands="\n".join(f"  {c:{width}}  {s}" for c, (_, s) in COMMANDS.items()))


def run(argv: Optional[List[str]] = None) -> int:
    """Run ``meteor-lite`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    if not args:
        sys.stdout.write(_help())
        return 2
    first = args[0]
    if first in ("-h", "--help"):
        sys.stdout.write(_help())
        return 0
    if first == "--version":
        from ..accel import description
        from ..stemmers.compiled import description as stemmer

        print(f"meteor-lite {__version__} ({description()}; {stemmer()})")
        return 0
    if first not in COMMANDS:
        from .errors import EXIT_USAGE, fail

        what = "option" if first.startswith("-") else "command"
        fail(f"unknown {what} {first!r} (commands: {', '.join(COMMANDS)}; see 'meteor-lite --help')")
        return EXIT_USAGE
    module = import_module(COMMANDS[first][0])
    try:
        return int(module.run(args[1:]))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)


def main() -> None:
    """Console-script entry point: no traceback reaches the user (see :func:`meteor_lite.cli.errors.run_guarded`).

    A closed output pipe (``meteor-lite bundle list | head``) ends quietly with exit code 141;
    ``meteor-lite --debug COMMAND ...`` or ``METEOR_LITE_DEBUG=1`` shows tracebacks of unexpected errors.
    """
    from .errors import run_guarded

    # One command, then exit: the cyclic garbage collector would only rescan the resource caches
    # (acyclic, freed by reference counting) again and again.
    gc.disable()
    sys.exit(run_guarded(run, sys.argv[1:]))


if __name__ == "__main__":  # pragma: no cover
    main()
