"""A client of Meteor's ``-stdio`` protocol that times each request, as a tuning loop uses it.

The client writes one request line, then waits for its answer lines before the
next request (what pycocoevalcap and MT tuners do), so the time of a request is
the server's latency: scoring plus a pipe round trip.  A reader thread collects
the answers so that a request can time out (the server is then killed).
"""

from __future__ import annotations

import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, List, Optional, Sequence


class RequestTimeout(RuntimeError):
    """The server did not answer within the time allowed (it has been killed)."""


class ServerDied(RuntimeError):
    """The server closed its output before answering (its standard error is in the message)."""


def _pump(stream: IO[bytes], q: "queue.Queue[Optional[str]]") -> None:
    for raw in iter(stream.readline, b""):
        q.put(raw.decode("utf-8", errors="replace").rstrip("\n"))
    q.put(None)


class StdioSession:
    """One running ``-stdio`` server; ``started`` is the time it was started (``time.perf_counter``)."""

    def __init__(self, cmd: Sequence[str], err_path: Path) -> None:
        self.cmd = list(cmd)
        self._err_path = err_path
        self._err = open(err_path, "wb")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err)
        self._answers: "queue.Queue[Optional[str]]" = queue.Queue()
        assert self.proc.stdout is not None
        self._reader = threading.Thread(target=_pump, args=(self.proc.stdout, self._answers), daemon=True)
        self._reader.start()

    def request(self, line: str, n_answers: int = 1, timeout: float = 300.0) -> "tuple[List[str], float]":
        """Send ``line``; its ``n_answers`` answer lines and the seconds they took.

        Raises :class:`RequestTimeout` (after killing the server) or :class:`ServerDied`.
        """
        assert self.proc.stdin is not None
        t0 = time.perf_counter()
        try:
            self.proc.stdin.write(line.encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise ServerDied(self._died()) from None
        deadline = t0 + timeout
        answers: List[str] = []
        while len(answers) < n_answers:
            try:
                got = self._answers.get(timeout=max(0.0, deadline - time.perf_counter()))
            except queue.Empty:
                self.kill()
                raise RequestTimeout(f"no answer within {timeout:g} s") from None
            if got is None:
                raise ServerDied(self._died())
            answers.append(got)
        return answers, time.perf_counter() - t0

    def _died(self) -> str:
        self.proc.wait()
        self._err.flush()
        tail = self._err_path.read_text(encoding="utf-8", errors="replace")[-1500:]
        return f"{' '.join(self.cmd[:3])}... exited with {self.proc.returncode}: {tail}"

    def kill(self) -> None:
        """End the server now."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._err.close()

    def close(self, timeout: float = 60.0) -> int:
        """Close its input (the protocol's end) and wait for it to exit; its exit status."""
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            rc = self.proc.wait(timeout=timeout)
        except (subprocess.TimeoutExpired, BrokenPipeError):
            self.kill()
            rc = -9
        self._err.close()
        return rc

    def __enter__(self) -> "StdioSession":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.kill()
        elif not self._err.closed:
            self._err.close()
