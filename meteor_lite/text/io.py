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
import sys
import warnings
from pathlib import Path
from typing import List, Sequence

from ..errors import InputError, MeteorLiteWarning

__all__ = ["InputError", "STDIN", "read_lines", "read_references"]

#: The file name that stands for standard input.
STDIN = "-"


def read_lines(path: "os.PathLike[str] | str", *, jar_lines: bool = False) -> List[str]:
    """Lines of a UTF-8 text file, split like Java's ``readLine`` (``\\n``, ``\\r\\n`` or ``\\r``).

    Invalid UTF-8 raises :class:`InputError` naming the file, line and byte.
    A final line terminator does not start an extra (empty) segment.
    ``-`` reads standard input (named ``<stdin>`` in messages).  A leading BOM is
    dropped and a CR inside a line is an error (see the module's docstring) unless
    ``jar_lines`` asks for the jar's own reading.
    """
    if str(path) == STDIN:
        return _decode(sys.stdin.buffer.read(), "<stdin>", jar_lines)
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror})") from None
    return _decode(data, str(p), jar_lines)


def _decode(data: bytes, p: str, jar_lines: bool = False) -> List[str]:
    """Split UTF-8 bytes into lines as Java's ``readLine`` does; ``p`` names the source in errors."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(f"{p}:{line}: invalid UTF-8 (byte 0x{data[exc.start]:02x} at column {col})") from None
    if not jar_lines:
        text = text[1:] if text.startswith("\ufeff") else text
        text = text.replace("\r\n", "\n")
        if "\r" in text and "\n" in text:
            at = text.index("\r")
            raise InputError(
                f"{p}:{text.count(chr(10), 0, at) + 1}: carriage return (CR) inside a line, at column "
                f"{at - (text.rfind(chr(10), 0, at) + 1) + 1}: Meteor 1.5 would end the line there and misalign "
                "every later segment; remove it (e.g. tr -d '\\r') or replace it with a space"
            )
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not jar_lines:
        _warn_odd_characters(text, lines, p)
    return lines


#: Characters scored as they are but worth a word: name shown in the warning.
_ODD_CHARACTERS = {"\x00": "NUL (U+0000)", "\u2028": "line separator (U+2028)", "\u2029": "paragraph separator (U+2029)"}


def _warn_odd_characters(text: str, lines: List[str], p: str) -> None:
    """Warn (once per character kind and file) about NUL and Unicode line/paragraph separators."""
    for char, name in _ODD_CHARACTERS.items():
        if char not in text:
            continue
        numbers = [i + 1 for i, line in enumerate(lines) if char in line]
        warnings.warn(
            f"{p}:{numbers[0]}: {name} inside a line ({len(numbers)} line(s)); it is scored as part of the text, "
            "as Meteor 1.5 does",
            MeteorLiteWarning,
            stacklevel=4,
        )


def read_references(paths: Sequence["os.PathLike[str] | str"], n_hyps: int, refs_per_hyp: int = 1) -> List[List[str]]:
    """Reference streams: one per file, or ``refs_per_hyp`` interleaved streams from one file.

    Raises :class:`InputError` when a file's line count does not fit ``n_hyps``, or when
    more than one file is standard input (``-``).
    """
    if sum(str(p) == STDIN for p in paths) > 1:
        raise InputError("standard input (-) can be read only once")
    if refs_per_hyp < 1:
        raise InputError(f"--refs-per-hyp must be at least 1, got {refs_per_hyp}")
    if refs_per_hyp > 1 and len(paths) != 1:
        raise InputError("--refs-per-hyp takes a single reference file (references interleaved, N lines per hypothesis)")
    streams: List[List[str]] = []
    for path in paths:
        lines = read_lines(path)
        if refs_per_hyp > 1:
            if len(lines) != n_hyps * refs_per_hyp:
                raise InputError(
                    f"{path}: {len(lines)} lines, but {n_hyps} hypotheses x {refs_per_hyp} references "
                    f"need {n_hyps * refs_per_hyp}"
                )
            streams.extend(lines[k::refs_per_hyp] for k in range(refs_per_hyp))
        else:
            if len(lines) != n_hyps:
                raise InputError(f"{path}: {len(lines)} lines, but the hypothesis file has {n_hyps}")
            streams.append(lines)
    return streams
