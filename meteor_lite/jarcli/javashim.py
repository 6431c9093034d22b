"""A ``java`` that answers for the Meteor 1.5 jar: tools that run ``java -jar .../meteor-1.5.jar`` switch with no edit.

The shim is a small ``java`` script put first on ``PATH`` (:func:`write_shim`; ``meteor-lite java-shim DIR``
writes one, ``meteor-lite as-java -- CMD ...`` runs a command with one in a temporary directory).  Each call
of it runs :func:`main`, which reads the command line as the Java launcher reads it
(:func:`meteor_lite.jarcli.javaopts.split_launcher`):

* ``-jar PATH/meteor*.jar ARGS`` (any launcher options before or after ``-jar``: ``-Xmx2G``, ``-Duser.language=en``)
  runs ``meteor-jar ARGS`` in this process (the launcher's options are ignored, the jar file need not exist);
* everything else (``java -cp stanford-corenlp-3.4.1.jar ...``, ``java -version``, other jars) is handed to the
  real Java: the first ``java`` on ``PATH`` that is not a shim (``$METEOR_LITE_REAL_JAVA`` names one explicitly,
  ``$JAVA_HOME/bin/java`` is the last resort);
* with no real Java, ``-version`` is answered by the shim (on standard error, as Java does) and any other call
  fails with one line on standard error naming what was asked (exit 127, as a missing command).
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from .javaopts import split_launcher

__all__ = ["MARKER", "REAL_JAVA_ENV", "find_real_java", "is_shim", "main", "shim_text", "write_shim"]

#: A line every shim carries: how a ``java`` on ``PATH`` is recognised as a shim (and skipped when looking for Java).
MARKER = "# meteor-lite java shim"

#: A real Java to hand non-Meteor calls to, when the one on ``PATH`` is not the right one.
REAL_JAVA_ENV = "METEOR_LITE_REAL_JAVA"

PROG = "java (meteor-lite shim)"


def shim_text(python: Optional[str] = None) -> str:
    """The shim's ``java`` script: a POSIX shell script that runs :func:`main` with this Python."""
    py = shlex.quote(python or sys.executable)
    return (
        "#!/bin/sh\n"
        f"{MARKER}: calls of a Meteor jar (java ... -jar .../meteor*.jar ...) are answered by meteor-lite,\n"
        "# every other call goes to the next java on PATH.  Written by 'meteor-lite java-shim' or 'meteor-lite as-java'.\n"
        f"exec {py} -m meteor_lite.jarcli.javashim \"$@\"\n"
    )


def write_shim(directory: Path) -> Path:
    """Write the shim as ``directory/java`` (the directory is created if missing); its path.

    A ``java`` already in ``directory`` that is not a shim is never replaced (:class:`FileExistsError`).
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "java"
    if path.exists() and not is_shim(path):
        raise FileExistsError(f"{path} exists and is not a meteor-lite java shim: not replaced")
    tmp = directory / f".java.{os.getpid()}.tmp"
    tmp.write_text(shim_text(), encoding="utf-8")
    tmp.chmod(tmp.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    os.replace(tmp, path)
    return path


def is_shim(path: Path) -> bool:
    """True when ``path`` is a file that carries the shim's marker."""
    try:
        with open(path, "rb") as f:
            head = f.read(512)
    except OSError:
        return False
    return MARKER.encode() in head


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_real_java(path_env: Optional[str] = None) -> Optional[str]:
    """The Java that non-Meteor calls go to: ``$METEOR_LITE_REAL_JAVA``, else the first ``java`` on ``PATH`` that is
    not a shim, else ``$JAVA_HOME/bin/java``; None when there is none."""
    explicit = os.environ.get(REAL_JAVA_ENV)
    if explicit:
        return explicit if _executable(Path(explicit)) and not is_shim(Path(explicit)) else None
    for d in (path_env if path_env is not None else os.environ.get("PATH", "")).split(os.pathsep):
        candidate = Path(d or ".") / "java"
        if _executable(candidate) and not is_shim(candidate):
            return str(candidate)
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / "java"
        if _executable(candidate) and not is_shim(candidate):
            return str(candidate)
    return None


def _no_java(argv: Sequence[str]) -> int:
    shown = " ".join(shlex.quote(a) for a in ["java", *argv])
    sys.stderr.write(f"{PROG}: no Java found on PATH after the shim for: {shown} "
                     f"(only -jar .../meteor*.jar is answered without Java; set {REAL_JAVA_ENV} or install Java)\n")
    sys.stderr.flush()
    return 127


def _version(long_form: bool) -> int:
    from ..version import __version__

    stream = sys.stdout if long_form else sys.stderr
    stream.write(f"meteor-lite {__version__} java shim: answers for Meteor 1.5 jars (-jar .../meteor*.jar); "
                 "no other Java on PATH\n")
    stream.flush()
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """Run one ``java`` call (``argv`` without the program name); see the module docstring."""
    args = list(sys.argv[1:] if argv is None else argv)
    cmd = split_launcher(args)
    if cmd.meteor and not cmd.version:
        from . import console

        sys.argv = ["meteor-jar", *cmd.args]
        console()  # exits
        return 0  # pragma: no cover
    real = find_real_java()
    if real is not None:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(real, [real, *args])
    if cmd.version and cmd.jar is None and cmd.main_class is None:
        return _version("--version" in cmd.options or "--full-version" in cmd.options)
    return _no_java(args)


if __name__ == "__main__":
    sys.exit(main())
