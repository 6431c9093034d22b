"""``meteor-jar ... | head`` and ``meteor-jar-stemmer ... | head``: a reader that goes away ends the program quietly
with exit code 141 (as for Unix tools killed by SIGPIPE); ``meteor-jar --version`` says what it is."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import List

import pytest

from meteor_lite.resources.locate import find_bundle

needs_en = pytest.mark.skipif(find_bundle("en") is None, reason="no English bundle: run `make bundles`")


def _head(code: str, args: List[str], stdin: bytes, lines: int = 2) -> "tuple[int, List[bytes], bytes]":
    """Run ``python -c code args``, read ``lines`` lines of its output, close the pipe; (exit code, lines, stderr)."""
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None

    def feed() -> None:
        try:
            proc.stdin.write(stdin)  # type: ignore[union-attr]
            proc.stdin.close()  # type: ignore[union-attr]
        except BrokenPipeError:  # the program ended before reading everything
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    got = [proc.stdout.readline() for _ in range(lines)]
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=300), got, err


@needs_en
def test_stemmer_into_a_closed_pipe_exits_141_quietly() -> None:
    words = b"running dogs jumped quickly over houses\n" * 200_000  # far more than a pipe holds
    code, got, err = _head("from meteor_lite.jarcli.guard import stemmer_console; stemmer_console()", ["en"], words)
    assert got == [b"run dog jump quick over hous\n"] * 2
    assert code == 141 and err == b"", err.decode()


@needs_en
def test_jar_into_a_closed_pipe_exits_141_quietly(shared_data: Path) -> None:
    ex = shared_data / "meteor-example"
    code, got, err = _head("from meteor_lite.jarcli import console; console()",
                           [str(ex / "system1.hyp"), str(ex / "reference"), "-l", "en", "-norm"], b"")
    assert got[0].startswith(b"Meteor version: 1.5")
    assert code == 141 and err == b"", err.decode()


def test_jar_version() -> None:
    r = subprocess.run([sys.executable, "-c", "from meteor_lite.jarcli import console; console()", "--version"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.startswith("meteor-jar (meteor-lite ") and "Meteor 1.5's command line" in r.stdout
