"""``meteor-lite as-java [--] CMD [ARGS]...``: run a command with ``java`` answering for the Meteor 1.5 jar.

The command runs with a shim ``java`` (:mod:`meteor_lite.jarcli.javashim`) first on its ``PATH``: its calls of
``java ... -jar .../meteor*.jar ...`` are answered by ``meteor-jar``, every other Java call goes to the real
Java found after it on ``PATH``.  The shim lives in a temporary directory made for this run and removed after
it; nothing else is changed (the ``PATH`` of this process and of the shell are left as they are).  SIGTERM and
SIGHUP are passed on to the command (Ctrl-C reaches it directly).  The exit code is the command's (128 + N when a
signal N ended it).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import List

from .errors import EXIT_USAGE, Parser, fail

__all__ = ["build_parser", "run"]


def build_parser() -> Parser:
    """The ``as-java`` argument parser."""
    p = Parser(
        prog="meteor-lite as-java",
        description="Run CMD with a 'java' first on its PATH that answers for the Meteor 1.5 jar (java ... -jar "
        ".../meteor*.jar ... runs meteor-jar); every other Java call goes to the real Java after it on PATH. "
        "Example: meteor-lite as-java -- python eval.py",
    )
    p.add_argument("command", nargs="+", metavar="CMD", help="The command and its arguments (put -- before it).")
    return p


def run(argv: List[str]) -> int:
    """``meteor-lite as-java``: the command's exit code."""
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        build_parser().print_usage()
        fail("as-java needs a command to run (meteor-lite as-java -- python eval.py)")
        return EXIT_USAGE
    if argv[0] in ("-h", "--help"):
        build_parser().print_help()
        return 0
    from ..jarcli.javashim import write_shim

    with tempfile.TemporaryDirectory(prefix="meteor-lite-java-") as tmp:
        shim_dir = Path(tmp)
        write_shim(shim_dir)
        env = dict(os.environ)
        env["PATH"] = str(shim_dir) + os.pathsep + env.get("PATH", "")
        program = shutil.which(argv[0], path=env["PATH"])
        if program is None:
            fail(f"as-java: command not found: {argv[0]}")
            return 127
        try:
            proc = subprocess.Popen([argv[0], *argv[1:]], executable=program, env=env)
        except OSError as exc:
            fail(f"as-java: cannot run {argv[0]}: {exc.strerror or exc}")
            return 126
        previous = {sig: signal.signal(sig, lambda signum, frame: proc.send_signal(signum))
                    for sig in (signal.SIGTERM, signal.SIGHUP)}  # passed on; the shim's folder is removed after
        try:
            while True:
                try:
                    code = proc.wait()
                    break
                except KeyboardInterrupt:  # the child has the same signal (same process group): wait for it to end
                    continue
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    return 128 - code if code < 0 else code
