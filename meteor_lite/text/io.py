"""Reading hypothesis and reference files strictly (UTF-8, one segment per line); ``-`` is standard input.

Input is read as the user meant it, or with a word about it:

* a UTF-8 byte-order mark at the start of a file is dropped (Meteor 1.5 keeps it as part of the first word);
* a carriage return inside a line (a lone CR in a file whose lines end with LF or CRLF) is an
  :class:`InputError` naming the file and line: Meteor 1.5 would end the line there and pair every later
  line with the wrong segment.  A file whose every line ends with a lone CR (old Mac line ends) is read as
  lines, as Java does;
* NUL characters and the Unicode line and paragraph separators (U+2028, U+2029) are scored as they are
  (as Meteor 1.5 does), with a :class:`~meteor_lite.errors.MeteorLiteWarning` naming the file and the
  first line that has one.

``jar_lines=True`` reads exactly as the jar's ``readLine`` does (BOM kept, every CR ends a line, no warnings).
"""

from __future__ import annotations

import os
import stat
import sys
import warnings
from pathlib import Path
from typing import BinaryIO, Dict, Iterator, List, NoReturn, Optional, Sequence, Tuple

from ..errors import InputError, MeteorLiteWarning

__all__ = ["InputError", "LineReader", "STDIN", "SegmentReader", "read_lines", "read_references"]

#: The file name that stands for standard input.
STDIN = "-"


def read_lines(path: "os.PathLike[str] | str", *, jar_lines: bool = False) -> List[str]:
    """Lines of a UTF-8 text file, split like Java's ``readLine`` (``\\n``, ``\\r\\n`` or ``\\r``).

    Invalid UTF-8 raises :class:`InputError` naming the file, line and byte.
    A final line terminator does not start an extra (empty) segment.
    ``-`` reads standard input (named ``<stdin>`` in messages).  A leading BOM is
    dropped and a CR inside a line is an error (see the module's docstring) unless
    ``jar_lines`` asks for the jar's own reading.  :class:`LineReader` reads the
    same lines one at a time (memory bounded by the longest line).
    """
    if not jar_lines:
        return list(LineReader(path))
    if str(path) == STDIN:
        return _decode(_stdin().read(), "<stdin>")
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror})") from None
    return _decode(data, str(p))


def _stdin() -> BinaryIO:
    """Standard input as bytes; closed (``<&-``: Python then has no ``sys.stdin``) is an :class:`InputError`."""
    if sys.stdin is None:
        raise InputError("standard input is closed: nothing to read for '-' (give a file, or redirect stdin)")
    return sys.stdin.buffer


def invalid_utf8(name: str, line: int, column: int, raw: bytes, at: int) -> str:
    """The message of invalid UTF-8 at byte ``at`` of ``raw`` (the line ``line``, or the whole file), with the
    likely cause when the bytes show one: gzip's magic number, a UTF-16 byte order mark, or UTF-16's pattern of a
    NUL every other byte."""
    text = f"{name}:{line}: invalid UTF-8 (byte 0x{raw[at]:02x} at column {column})"
    head = raw[:4] if line == 1 else b""
    sample = raw[max(0, at - 64): at + 64]
    if head.startswith(b"\x1f\x8b"):
        return text + ": the file is gzip-compressed (it starts with gzip's magic bytes 1f 8b); decompress it first (gunzip)"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return (text + ": the file is UTF-16 (it starts with a UTF-16 byte order mark); convert it to UTF-8 first "
                "(iconv -f UTF-16 -t UTF-8)")
    if len(sample) >= 8 and sample.count(0) * 3 >= len(sample):
        return (text + ": the line looks like UTF-16 (a NUL byte every other byte); convert the file to UTF-8 first "
                "(iconv -f UTF-16 -t UTF-8)")
    return text


def _decode(data: bytes, p: str) -> List[str]:
    """Split UTF-8 bytes into lines exactly as Java's ``readLine`` does (BOM kept, every CR ends a line)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        raise InputError(invalid_utf8(p, line, col, data[start: exc.start + 64], exc.start - start)) from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


#: Characters scored as they are but worth a word: name shown in the warning.
_ODD_CHARACTERS = {"\x00": "NUL (U+0000)", "\u2028": "line separator (U+2028)", "\u2029": "paragraph separator (U+2029)"}


class LineReader:
    """The lines of a UTF-8 file (``-``: standard input), read one at a time as :func:`read_lines` splits them.

    The file is opened when the reader is made (a missing or unreadable file is an
    :class:`InputError` at once); iterating reads it line by line, so memory stays
    bounded by the longest line.  Problems are raised where they are met: invalid UTF-8
    and a CR inside a line as :class:`InputError` naming the file and line.  NUL and
    the Unicode line/paragraph separators are warned about (once per kind, with the
    first line and the count) when the file has been read to its end, unless ``warn``
    is False.  :attr:`count` is the number of lines read so far.  A file whose only line
    ends are lone CRs (old Mac files) is read whole, then split.
    """

    def __init__(self, path: "os.PathLike[str] | str", *, warn: bool = True):
        """Open ``path`` (``-``: standard input) for reading."""
        self.name = "<stdin>" if str(path) == STDIN else str(Path(path))
        self.warn = warn
        self.count = 0
        self._odd: Dict[str, List[int]] = {}  # character -> [first line, lines]
        if str(path) == STDIN:
            self._file: BinaryIO = _stdin()
            self._owned = False
        else:
            try:
                self._file = open(path, "rb")  # noqa: SIM115 - closed when read to its end or by close()
            except FileNotFoundError:
                raise InputError(f"{self.name}: no such file") from None
            except OSError as exc:
                raise InputError(f"{self.name}: cannot read ({exc.strerror})") from None
            self._owned = True

    def close(self) -> None:
        """Close the file (not standard input)."""
        if self._owned:
            self._file.close()

    def __enter__(self) -> "LineReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[str]:
        try:
            yield from self._lines()
        except OSError as exc:  # e.g. a directory: reading fails, not opening
            raise InputError(f"{self.name}: cannot read ({exc.strerror})") from None
        finally:
            self.close()
        if self.warn:
            self._warn_odd_characters()

    def _lines(self) -> Iterator[str]:
        pieces = 0
        for raw in self._file:
            pieces += 1
            text = self._text(raw, pieces)
            if pieces == 1 and text.startswith("\ufeff"):
                text = text[1:]
            ended = text.endswith("\n")
            if ended:
                text = text[:-2] if text.endswith("\r\n") else text[:-1]
            if "\r" in text:
                if ended or pieces > 1:  # the file has LF line ends: a lone CR inside a line
                    at = text.index("\r")
                    raise InputError(
                        f"{self.name}:{pieces}: carriage return (CR) inside a line, at column {at + 1}: Meteor 1.5 "
                        "would end the line there and misalign every later segment; remove it (e.g. tr -d '\\r') "
                        "or replace it with a space"
                    )
                lines = text.split("\r")  # only lone CRs end lines (old Mac files)
                if lines[-1] == "":
                    lines.pop()
                for line in lines:
                    yield self._counted(line)
                continue
            yield self._counted(text)

    def _text(self, raw: bytes, number: int) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(invalid_utf8(self.name, number, exc.start + 1, raw, exc.start)) from None

    def _counted(self, line: str) -> str:
        self.count += 1
        if "\x00" in line or "\u2028" in line or "\u2029" in line:
            for char in _ODD_CHARACTERS:
                if char in line:
                    seen = self._odd.setdefault(char, [self.count, 0])
                    seen[1] += 1
        return line

    def _warn_odd_characters(self) -> None:
        """Warn (once per character kind) about NUL and Unicode line/paragraph separators."""
        for char, name in _ODD_CHARACTERS.items():
            if char in self._odd:
                first, lines = self._odd[char]
                warnings.warn(
                    f"{self.name}:{first}: {name} inside a line ({lines} line(s)); it is scored as part of the text, "
                    "as Meteor 1.5 does",
                    MeteorLiteWarning,
                    stacklevel=4,
                )


def read_references(paths: Sequence["os.PathLike[str] | str"], n_hyps: int, refs_per_hyp: int = 1) -> List[List[str]]:
    """Reference streams: one per file, or ``refs_per_hyp`` interleaved streams from one file.

    Raises :class:`InputError` when a file's line count does not fit ``n_hyps``, or when
    more than one file is standard input (``-``).
    """
    _check_reference_args(paths, refs_per_hyp)
    streams: List[List[str]] = []
    for path in paths:
        lines = read_lines(path)
        if len(lines) != n_hyps * refs_per_hyp:
            raise InputError(_line_mismatch(path, len(lines), n_hyps, refs_per_hyp))
        streams.extend(lines[k::refs_per_hyp] for k in range(refs_per_hyp))
    return streams


def _check_reference_args(
    paths: Sequence["os.PathLike[str] | str"], refs_per_hyp: int, hypothesis: "os.PathLike[str] | str | None" = None
) -> None:
    """The usage errors of reference files (and the ``hypothesis`` file read with them): ``-`` more than once, a
    bad ``refs_per_hyp``, or one with several files."""
    if sum(str(p) == STDIN for p in [*paths, *([hypothesis] if hypothesis is not None else [])]) > 1:
        raise InputError("standard input (-) can be read only once")
    if refs_per_hyp < 1:
        raise InputError(f"--refs-per-hyp must be at least 1, got {refs_per_hyp}")
    if refs_per_hyp > 1 and len(paths) != 1:
        raise InputError("--refs-per-hyp takes a single reference file (references interleaved, N lines per hypothesis)")


def _line_mismatch(path: "os.PathLike[str] | str", m: int, n: int, refs_per_hyp: int) -> str:
    """The message for a reference file of ``m`` lines against ``n`` hypotheses."""
    if refs_per_hyp > 1:
        return f"{path}: {m} lines, but {n} hypotheses x {refs_per_hyp} references need {n * refs_per_hyp}"
    return f"{path}: {m} lines, but the hypothesis file has {n}"


class SegmentReader:
    """Hypotheses and their references, read in step from files, one segment at a time (bounded memory).

    Iterating yields ``(hypothesis, [reference, ...])`` per segment: one reference per
    file, or ``refs_per_hyp`` consecutive lines of a single file.  The usage checks and
    the messages are :func:`read_references`'s.  With ``precheck`` (the default), every
    input that is a regular file is read once beforehand (its encoding, line ends and
    line count checked, its warnings issued), so that such errors come before any segment
    is scored, as when whole files were read.  An input that cannot be read twice (``-``,
    a pipe) is checked as it is read: a file with another number of lines is then an
    :class:`InputError` when one input runs out, after the segments before it were yielded.
    """

    def __init__(
        self, hypothesis: "os.PathLike[str] | str", references: Sequence["os.PathLike[str] | str"],
        refs_per_hyp: int = 1, *, precheck: bool = True,
    ):
        """Check the arguments, check the regular files (``precheck``), and open every input."""
        _check_reference_args(references, refs_per_hyp, hypothesis=hypothesis)
        self.per = refs_per_hyp
        self.paths = [str(p) for p in references]
        n = _line_count(hypothesis) if precheck else None
        counts: List[Optional[int]] = []
        for path in references:
            m = _line_count(path) if precheck else None
            if n is not None and m is not None and m != n * refs_per_hyp:
                raise InputError(_line_mismatch(path, m, n, refs_per_hyp))
            counts.append(m)
        self.hyp_lines, self.ref_lines = n, counts
        # a file checked beforehand was warned about then: not again
        self.hyp = LineReader(hypothesis, warn=n is None)
        self.refs: List[LineReader] = []
        try:
            for path, m in zip(references, counts):
                self.refs.append(LineReader(path, warn=m is None))
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Close every input file."""
        for reader in [self.hyp, *self.refs]:
            reader.close()

    def __iter__(self) -> Iterator[Tuple[str, List[str]]]:
        hyps = iter(self.hyp)
        streams = [iter(r) for r in self.refs]
        try:
            for h in hyps:
                refs: List[str] = []
                for k, stream in enumerate(streams):
                    for _ in range(self.per):
                        r = next(stream, None)
                        if r is None:
                            self._fail(k, hyps, stream)
                        refs.append(r)
                yield h, refs
            for k, stream in enumerate(streams):
                if next(stream, None) is not None:
                    self._fail(k, hyps, stream)
        finally:
            self.close()

    def _fail(self, k: int, hyps: Iterator[str], stream: Iterator[str]) -> NoReturn:
        """The line-count error when reference input ``k`` and the hypotheses do not end together.

        A side counted beforehand (a regular file) is not read again; a stream that may never end
        (``-``, a pipe) is read only one line past what the other side fits: an endless standard
        input against a 3-line reference file stops at its line 4.
        """
        ref = self.refs[k]
        n, m = self.hyp_lines, self.ref_lines[k]
        if n is None:  # the hypotheses are a stream
            fits = (m if m is not None else ref.count) // self.per
            _drain(hyps, fits + 1 - self.hyp.count)
        if m is None:  # the references are a stream
            _drain(stream, (n if n is not None else self.hyp.count) * self.per + 1 - ref.count)
        hyp_count = n if n is not None else self.hyp.count
        ref_count = m if m is not None else ref.count
        if n is None and hyp_count * self.per > ref_count:
            raise InputError(f"{self.paths[k]}: {ref_count} lines, but the hypotheses ({self.hyp.name}) have more "
                             f"(reading stopped at their line {hyp_count})")
        if m is None and ref_count > hyp_count * self.per:
            raise InputError(f"{self.paths[k]}: more lines than the {hyp_count} hypotheses need (reading stopped at "
                             f"line {ref_count})")
        raise InputError(_line_mismatch(self.paths[k], ref_count, hyp_count, self.per))


def _drain(lines: Iterator[str], limit: int) -> bool:
    """Read at most ``limit`` more lines of ``lines``; True when all ``limit`` were there (the input goes on)."""
    for _ in range(max(limit, 0)):
        if next(lines, None) is None:
            return False
    return limit > 0


def _line_count(path: "os.PathLike[str] | str") -> Optional[int]:
    """The lines of a regular file, read and checked once (warnings issued); None for ``-`` and non-files."""
    if str(path) == STDIN:
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
    except OSError:
        return None  # LineReader says what is wrong
    with LineReader(path) as reader:
        for _ in reader:
            pass
        return reader.count
