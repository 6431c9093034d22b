"""Console scripts of the jar's programs run under the command lines' guard (:func:`meteor_lite.cli.errors.run_guarded`).

A closed pipe (``meteor-jar-stemmer en < f | head -2``) ends quietly with exit code 141, as for
Unix tools killed by SIGPIPE, and an unexpected error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import sys


def stemmer_console() -> None:
    """The ``meteor-jar-stemmer`` console script: :func:`meteor_lite.jarcli.stemmer.main`, guarded."""
    from ..cli.errors import run_guarded
    from .stemmer import PROG, main

    sys.exit(run_guarded(main, sys.argv[1:], PROG))
