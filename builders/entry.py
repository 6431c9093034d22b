"""The ``meteor-build`` console script: says which extra to install when the builders' dependencies are missing.

A plain ``pip install meteor-lite`` installs the builders' code but not their dependencies
(``typer`` and the others of the ``build`` extra): then ``meteor-build`` prints one line saying
``pip install 'meteor-lite[build]'`` and exits with 1, instead of an import traceback.
"""

from __future__ import annotations

import sys

#: Top-level modules of the ``build`` extra that the command line imports on start.
_BUILD_EXTRA_MODULES = frozenset({"typer", "click", "rich", "tqdm"})


def main() -> None:
    """Run ``meteor-build`` (:func:`meteor_lite_builders.cli.main`), or say which extra it needs."""
    try:
        from .cli import main as run
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        if top not in _BUILD_EXTRA_MODULES:
            raise
        print(
            f"meteor-build: error: the builders need the 'build' extra (module {top!r} is missing): "
            "pip install 'meteor-lite[build]'",
            file=sys.stderr,
        )
        sys.exit(1)
    run()


if __name__ == "__main__":  # pragma: no cover
    main()
