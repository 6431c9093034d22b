"""The lines of an untrusted file, read within caps (standard library only).

Every reader of a file a user gives that must not be made to hold more than it needs reads it through this
module, so the caps are the same mechanism everywhere:

* :func:`capped_lines` yields the lines of an open file, text or binary, each read with ``readline(cap + 2)``:
  a line longer than the cap (its line end left out) is refused as soon as that much of it is read, never held
  whole (a gzip bomb of one endless line costs one line's buffer).  Reading is linear in the input: every call
  reads at most the cap and two characters more, and the text is never joined again.
* :func:`gunzip_capped` decompresses a gzip file and refuses it once more bytes come out than a ratio of the
  file's own size (with a floor for small files): a small file of repeated text cannot be made to stand for
  gigabytes of input.  The error names the line the cap falls on.

Errors are made by a factory taking ``(source, line, problem)``: by default :class:`LineTooLongError` and
:class:`InflatedTooMuchError` (both :class:`~meteor_lite.errors.InputError`, ``source:line: problem``); a
reader with its own error class of that signature (``JarFormatError``: ``source, line N: problem``) passes it.
"""

from __future__ import annotations

import gzip
import io
import os
from typing import AnyStr, BinaryIO, Callable, Iterator, Optional, Protocol, TypeVar

from .errors import InputError

__all__ = [
    "LineTooLongError",
    "InflatedTooMuchError",
    "capped_lines",
    "gunzip_capped",
    "MAX_TSV_INFLATION",
    "TSV_INFLATION_FLOOR",
    "line_content",
    "LineSource",
]

#: A gzipped TSV of segments or judgments (a systems file, a judgments file) is read up to this many times its own
#: size, and at least :data:`TSV_INFLATION_FLOOR` bytes: the judged files of WMT21-23 inflate 3 to 14 times, so a
#: small gzip of repeated rows standing for gigabytes is refused before its rows are held.
MAX_TSV_INFLATION = 32
TSV_INFLATION_FLOOR = 32 * 1024 * 1024

#: What makes the error of a capped reader: ``(source, 1-based line, problem) -> exception``.
ErrorFactory = Callable[[str, int, str], Exception]

_Line = TypeVar("_Line", str, bytes, covariant=True)


class LineSource(Protocol[_Line]):
    """What :func:`capped_lines` reads: anything with ``readline(size)`` (a text or binary file, a gzip reader)."""

    def readline(self, size: int = -1, /) -> _Line:
        """At most ``size`` characters (bytes) of the next line, its line end included when it fits."""
        ...


class LineTooLongError(InputError):
    """A line longer than a reader's cap: :attr:`source`, :attr:`line` (1-based) and :attr:`problem`."""

    def __init__(self, source: str, line: int, problem: str):
        self.source, self.line, self.problem = source, line, problem
        super().__init__(f"{source}:{line}: {problem}")


class InflatedTooMuchError(InputError):
    """A gzip file that decompresses to more than its cap (:func:`gunzip_capped`); attributes as
    :class:`LineTooLongError`."""

    def __init__(self, source: str, line: int, problem: str):
        self.source, self.line, self.problem = source, line, problem
        super().__init__(f"{source}:{line}: {problem}")


def line_content(line: AnyStr) -> AnyStr:
    """``line`` without its line end (``\\n``, ``\\r\\n`` or ``\\r``), as :func:`capped_lines` measures it."""
    end = len(line)
    nl, cr = ("\n", "\r") if isinstance(line, str) else (b"\n", b"\r")
    if line.endswith(nl):
        end -= 1
    if line.endswith(cr, 0, end):
        end -= 1
    return line[:end]


def capped_lines(
    stream: LineSource[AnyStr], source: str, limit: int, *, what: str = "", error: ErrorFactory = LineTooLongError,
) -> Iterator[AnyStr]:
    """The lines of the open file ``stream`` (with their line ends, as ``readline`` gives them), each at most
    ``limit`` characters (bytes for a binary file) without its line end.

    A longer line raises ``error(source, its line number, problem)`` once ``limit + 2`` of it are read; the
    problem says ``a line longer than LIMIT characters`` (or ``bytes``), then ``: what`` when given.
    """
    number = 0
    size = limit + 2
    readline = stream.readline
    while True:
        line = readline(size)
        if not line:
            return
        number += 1
        if len(line) > limit and len(line_content(line)) > limit:
            unit = "bytes" if isinstance(line, bytes) else "characters"
            raise error(source, number, f"a line longer than {limit:,} {unit}" + (f": {what}" if what else ""))
        yield line


class _Inflated(io.RawIOBase):
    """The decompressed bytes of a gzip stream, counted: more than ``cap`` raise the reader's error."""

    def __init__(self, gz: gzip.GzipFile, source: str, cap: int, problem: str, error: ErrorFactory,
                 owned: Optional[BinaryIO] = None):
        super().__init__()
        self._gz, self._source, self._cap, self._problem, self._error = gz, source, cap, problem, error
        self._owned = owned  # the compressed file, closed with this reader when it was handed over
        self._total = 0  # bytes decompressed so far
        self._lines = 0  # line ends among them

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: "bytearray | memoryview") -> int:  # type: ignore[override]
        n = self._gz.readinto(buffer)
        if n:
            over = self._total + n - self._cap
            if over > 0:
                within = bytes(memoryview(buffer)[: n - over])
                raise self._error(self._source, self._lines + within.count(b"\n") + 1, self._problem)
            self._lines += bytes(memoryview(buffer)[:n]).count(b"\n")
            self._total += n
        return n

    def close(self) -> None:
        try:
            self._gz.close()
            if self._owned is not None:
                self._owned.close()
        finally:
            super().close()


def gunzip_capped(
    raw: BinaryIO, source: str, *, ratio: int, floor: int, what: str = "", error: ErrorFactory = InflatedTooMuchError,
    size: Optional[int] = None, close_raw: bool = False,
) -> io.BufferedReader:
    """The decompressed bytes of the gzip file open as ``raw`` (read from its current position; closed with the
    reader only when ``close_raw``), at most ``max(floor, ratio * size)`` of them, ``size`` being the file's (default: found with
    ``fstat``, or by seeking to its end).

    Past the cap a read raises ``error(source, line, problem)``, ``line`` the one the cap falls on.  The problem
    gives the cap, the file's size and the ratio, then ``: what`` when given.  Damaged gzip data raises as
    :mod:`gzip` does (``gzip.BadGzipFile``, ``EOFError``, ``zlib.error``).
    """
    if size is None:
        try:
            size = os.fstat(raw.fileno()).st_size
        except (AttributeError, OSError, io.UnsupportedOperation):
            here = raw.tell()
            size = raw.seek(0, io.SEEK_END)
            raw.seek(here)
    cap = max(floor, ratio * size)
    problem = (f"the gzip file decompresses to more than {cap:,} bytes, the most read from a file of {size:,} bytes "
               f"({ratio} times its size, at least {floor:,})" + (f": {what}" if what else ""))
    gz = gzip.GzipFile(fileobj=raw, mode="rb")
    return io.BufferedReader(_Inflated(gz, source, cap, problem, error, raw if close_raw else None), buffer_size=1 << 16)
