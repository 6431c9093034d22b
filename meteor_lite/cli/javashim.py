"""``meteor-lite java-shim DIR``: write a ``java`` into DIR that answers for the Meteor 1.5 jar.

Put DIR first on ``PATH`` (``export PATH="DIR:$PATH"``) and every tool that runs ``java ... -jar
.../meteor*.jar`` gets meteor-lite's answers; other Java calls go to the real Java after DIR on ``PATH``
(see :mod:`meteor_lite.jarcli.javashim`).  Only ``DIR/java`` is written; a ``java`` there that is not a shim is
never replaced.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

from .errors import Parser, fail

__all__ = ["build_parser", "run"]


def build_parser() -> Parser:
    """The ``java-shim`` argument parser."""
    p = Parser(
        prog="meteor-lite java-shim",
        description="Write DIR/java, a 'java' that answers for the Meteor 1.5 jar (java ... -jar .../meteor*.jar ... "
        "runs meteor-jar) and hands every other call to the real Java after it on PATH. Then: export PATH=\"DIR:$PATH\".",
    )
    p.add_argument("directory", metavar="DIR", help="The directory to write 'java' into (created if missing).")
    return p


def run(argv: List[str]) -> int:
    """``meteor-lite java-shim DIR``: 0 once DIR/java is written."""
    a = build_parser().parse_args(argv)
    from ..jarcli.javashim import find_real_java, write_shim

    directory = Path(a.directory).expanduser()
    try:
        path = write_shim(directory)
    except FileExistsError as exc:
        fail(str(exc))
        return 1
    except OSError as exc:
        fail(f"cannot write {directory / 'java'}: {exc.strerror or exc}")
        return 1
    real = find_real_java()
    print(f"wrote {path}; put it first on PATH: export PATH=\"{path.parent.resolve()}:$PATH\"")
    print(f"other Java calls go to: {real}" if real else
          "no real Java found on PATH now: only Meteor jar calls (and java -version) will be answered")
    return 0
