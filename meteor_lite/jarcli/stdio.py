"""``-stdio``: Meteor 1.5's line protocol on standard input/output (what pycocoevalcap and MT tuners speak).

One request per line (``\\n``, ``\\r\\n`` or a lone ``\\r`` ends a line); fields are separated by
``|||`` (trailing empty fields dropped, as Java's ``String.split`` does); the command is chosen by the
prefix of field 0 (``SCORE``/``score``, ``EVAL``/``eval``, ``SING``/``sing``):

* ``SCORE ||| ref_1 ||| ... ||| ref_n ||| hyp`` -> the 23 sufficient statistics of the best reference;
* ``EVAL ||| stats_1 ||| ... ||| stats_n`` -> the score of each set, then of their sum (n+1 lines);
* ``SING ||| stats`` -> the score of that set.

Malformed requests get one of three ``Error: ...`` answer lines and the server goes on.  A stats
field that is not 23 numbers is fatal, as in the jar, but ends the process with a one-line message on
stderr (exit 1) instead of a Java stack trace.  Every answer is flushed; end of input exits 0.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from typing import BinaryIO, Callable, Iterator, List, Optional

from ..errors import MeteorLiteWarning
from ..jarcompat import java_double, java_parse_double, java_split
from ..meteor import Meteor
from ..scoring import config_metrics
from ..stats import SS_STAGES, Stats

__all__ = ["FatalRequest", "StdioServer", "iter_lines", "scan_doubles", "split_fields"]

ERR_COMMAND = "Error: specify SCORE or EVAL or SING"
ERR_SCORE = "Error: specify hypothesis and at least one reference"
ERR_STATS = "Error: specify Meteor stats"

#: Numbers in one stats field.
N_STATS = 4 + 4 * SS_STAGES + 3

# java.util.Scanner.nextDouble() in an English locale (observed with the jar: tests/test_jar_numbers.py).
# A token is a decimal number (digits of any script, "," grouping of three digits, ".", an exponent), a
# hexadecimal floating-point literal with a "." (its binary exponent is optional here, but Java's
# Double.parseDouble then refuses it: the jar dies), or NaN / Infinity, each with an optional sign.
_NUMERAL = r"(?:(?!0)\d\d?\d?(?:,\d\d\d)+|\d+)"
_DECIMAL = rf"[+-]?(?:{_NUMERAL}\.\d*|{_NUMERAL}|\.\d+)(?:[eE][+-]?\d+)?"
_HEX = r"[+-]?0[xX][0-9a-fA-F]*\.[0-9a-fA-F]+(?:[pP][+-]?[0-9]+)?"
_SCANNER_DOUBLE = re.compile(rf"({_DECIMAL})|{_HEX}|[+-]?(?:NaN|Infinity)")
#: Java's white space (Character.isWhitespace): Python's but for U+0085, U+00A0, U+2007 and U+202F.
_JAVA_SPACE = re.compile("[\t\n\x0b\x0c\r\x1c-\x1f \u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]+")


class FatalRequest(Exception):
    """A request the jar dies on (stats that are not 23 numbers)."""


def _ascii_digits(text: str) -> str:
    """Digits of other scripts replaced by ASCII ones, one UTF-16 unit at a time as Java maps them
    (a digit beyond U+FFFF is two units, neither a digit: left as it is, so the number is refused)."""
    return "".join(str(unicodedata.digit(c)) if c.isdecimal() and not c.isascii() and ord(c) <= 0xFFFF else c
                   for c in text)


def _scan_double(token: str) -> float:
    """One number as ``Scanner.nextDouble`` reads it; :class:`FatalRequest` where the jar dies."""
    m = _SCANNER_DOUBLE.fullmatch(token)
    try:
        if m is None:
            raise ValueError
        return java_parse_double(_ascii_digits(token.replace(",", "")) if m.group(1) else token)
    except ValueError:
        raise FatalRequest(f"not a number in Meteor stats: {token!r}") from None


def scan_doubles(field: str, count: int = N_STATS) -> List[float]:
    """The first ``count`` numbers of ``field`` as ``Scanner.nextDouble`` reads them (extra ones ignored)."""
    tokens = [t for t in _JAVA_SPACE.split(field) if t]
    values = [_scan_double(t) for t in tokens[:count]]
    if len(values) < count:
        raise FatalRequest(f"Meteor stats need {count} numbers, got {len(values)}: {field.strip()!r}")
    return values


def split_fields(line: str) -> List[str]:
    """``line.split("|||")`` with Java's semantics: trailing empty strings removed (not for an empty line)."""
    return java_split(line, "|||")


def iter_lines(stream: BinaryIO) -> Iterator[str]:
    """Lines of a byte stream as Java's ``readLine`` gives them, as soon as each is complete."""
    pending_cr = False
    while True:
        chunk = stream.readline()
        if not chunk:
            return
        text = chunk.decode("utf-8", errors="replace")
        if pending_cr and text.startswith("\n"):
            text = text[1:]
            if not text:
                pending_cr = False
                continue
        pending_cr = False
        if text.endswith("\n"):
            text = text[:-1]
            if text.endswith("\r"):
                text = text[:-1]
        elif text.endswith("\r"):
            text = text[:-1]
            pending_cr = True
        yield from text.split("\r")


class StdioServer:
    """Answers protocol requests with a configured scorer."""

    def __init__(self, scorer: Meteor):
        self.scorer = scorer

    def _score_stats(self, st: Stats) -> str:
        return java_double(config_metrics(self.scorer.config, st).score)

    def answer(self, line: str, emit: Callable[[str], None]) -> None:
        """Answer one request through ``emit`` (one call per answer line); raises :class:`FatalRequest`."""
        parts = split_fields(line)
        cmd = parts[0] if parts else ""
        if cmd.startswith(("SCORE", "score")):
            if len(parts) < 3:
                emit(ERR_SCORE)
                return
            seg = self.scorer.score_segment(parts[-1], parts[1:-1])
            if seg.bounded:
                warnings.warn(
                    "a SCORE request had too many candidate matches for the beam search and was aligned in "
                    "bounded mode: its statistics may differ from Meteor 1.5's (see meteor_lite.align.bounded)",
                    MeteorLiteWarning,
                    stacklevel=2,
                )
            emit(seg.stats.to_ss_line())
        elif cmd.startswith(("EVAL", "eval")):
            if len(parts) < 2:
                emit(ERR_STATS)
                return
            total = Stats()
            for field in parts[1:]:
                st = Stats.from_values(scan_doubles(field))
                emit(self._score_stats(st))
                total.add(st)
            emit(self._score_stats(total))
        elif cmd.startswith(("SING", "sing")):
            if len(parts) != 2:
                emit(ERR_STATS)
                return
            emit(self._score_stats(Stats.from_values(scan_doubles(parts[1]))))
        else:
            emit(ERR_COMMAND)

    def serve(self, inp: BinaryIO, out: BinaryIO) -> Optional[str]:
        """Answer every line of ``inp`` on ``out`` (flushed per answer); the fatal message, if any."""

        def emit(text: str) -> None:
            out.write(text.encode("utf-8") + b"\n")
            out.flush()

        for line in iter_lines(inp):
            try:
                self.answer(line, emit)
            except FatalRequest as exc:
                return str(exc)
        return None
