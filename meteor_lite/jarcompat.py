"""Emulation of the official jar's arithmetic, number formatting, hashing and string ordering.

Meteor 1.5 runs on the JVM; to give the same numbers and the same output
bytes, meteor-lite reproduces the few Java behaviours that differ from
Python's: ``Double.toString``, Meteor's ``DecimalFormat``, IEEE division by
zero, ``Math.pow`` on NaN, ``String.hashCode``, ``String.length`` and
``String.compareTo`` (UTF-16 code units).  Standard library only.
"""

from __future__ import annotations

import codecs
import math
import re
from typing import Dict, List, Sequence, Tuple

from . import accel

__all__ = [
    "java_double",
    "java_min_format",
    "java_string_hash",
    "java_string_hashes",
    "java_length",
    "utf16_sort_key",
    "java_split",
    "java_trim",
    "java_utf8_decode",
    "java_utf8_encode",
    "java_parse_int",
    "java_parse_double",
    "jdiv",
    "jpow",
]


# -- number formatting ----------------------------------------------------------------


def java_double(x: float) -> str:
    """Format ``x`` as Java's ``Double.toString`` does (``1.0``, ``0.3204832379614146``, ``1.0E-4``, ``NaN``).

    Uses the shortest repr digits, which is what Java prints for all values
    METEOR produces in practice.
    """
    if 1e-3 <= x < 1e7 or -1e7 < x <= -1e-3:
        return repr(x)  # in Java's plain range Python's repr is the same shortest digits, never in E notation
    return _java_double_spelled(x)


def _java_double_spelled(x: float) -> str:
    """:func:`java_double` spelled out from the shortest digits, for every value (the reference of its shortcut)."""
    if x == 0.0:  # first: most of a statistics line's counts
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    sign = "-" if x < 0 else ""
    ax = abs(x)
    digits, exp = _shortest_digits(ax)  # ax = 0.d1d2d3... * 10**exp
    if 1e-3 <= ax < 1e7:
        if exp <= 0:
            s = "0." + "0" * (-exp) + digits
        elif exp >= len(digits):
            s = digits + "0" * (exp - len(digits)) + ".0"
        else:
            s = digits[:exp] + "." + digits[exp:]
        return sign + s
    mant = digits[0] + "." + (digits[1:] or "0")
    return f"{sign}{mant}E{exp - 1}"


def _shortest_digits(ax: float) -> Tuple[str, int]:
    """Shortest round-trip digits of ``ax`` > 0 and exponent e with ax = 0.DIGITS * 10**e."""
    mant, _, e = repr(ax).partition("e")
    intpart, _, frac = mant.partition(".")
    digits = intpart + frac
    lead = len(digits) - len(digits.lstrip("0"))
    exp = len(intpart) + (int(e) if e else 0) - lead
    return digits.strip("0") or "0", exp


def java_min_format(x: float) -> str:
    """Meteor's ``#.##########`` DecimalFormat (counts in the statistics table)."""
    r = round(x, 10)
    if r == int(r):
        return str(int(r))
    return f"{r:.10f}".rstrip("0").rstrip(".")


# -- arithmetic -----------------------------------------------------------------------


def jdiv(a: float, b: float) -> float:
    """Java double division: x/0 is +-Infinity, 0/0 and NaN/0 are NaN."""
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def jpow(a: float, b: float) -> float:
    """Java Math.pow for the non-negative bases METEOR uses."""
    if math.isnan(a):
        return 1.0 if b == 0.0 else math.nan
    try:
        return math.pow(a, b)
    except (OverflowError, ValueError):
        return math.inf


# -- strings --------------------------------------------------------------------------

_HASHES: Dict[str, int] = {}


def java_string_hash(word: str) -> int:
    """Java's ``String.hashCode()`` (over UTF-16 code units, as a signed 32-bit int).

    Meteor 1.5 compares words (and stems) by these hash codes, so two different
    words with the same hash match exactly; reproducing that keeps scores equal.
    Results are cached (the cache is emptied when it grows past two million words).
    """
    h = _HASHES.get(word)
    if h is None:
        data = word.encode("utf-16-be")
        acc = 0
        for k in range(0, len(data), 2):
            acc = (acc * 31 + (data[k] << 8 | data[k + 1])) & 0xFFFFFFFF
        h = acc - (1 << 32) if acc & 0x80000000 else acc
        if len(_HASHES) > 2_000_000:
            _HASHES.clear()
        _HASHES[word] = h
    return h


def java_string_hashes(words: Sequence[str]) -> List[int]:
    """:func:`java_string_hash` of each of ``words`` (cached ones looked up in bulk; computed by the
    compiled kernels when they are in use, see :mod:`meteor_lite.accel`)."""
    kernels = accel.compiled
    if kernels is not None:
        got = kernels.java_hashes(words)
        if got is not None:
            return got
    hashes = list(map(_HASHES.get, words))
    if None in hashes:
        for i, h in enumerate(hashes):
            if h is None:
                hashes[i] = java_string_hash(words[i])
    return hashes  # type: ignore[return-value]  # no None left


def java_length(word: str) -> int:
    """Java's ``String.length()``: the number of UTF-16 code units."""
    return len(word.encode("utf-16-le")) // 2


def utf16_sort_key(s: str) -> str:
    """A key whose code-point order is Java's ``String.compareTo`` (UTF-16 code-unit) order.

    Characters above U+FFFF are replaced by their surrogate pair (two code points
    in U+D800..U+DFFF), so they sort before U+E000..U+FFFF as in Java.
    """
    if s.isascii() or max(s) < "\U00010000":
        return s
    out: List[str] = []
    for ch in s:
        c = ord(ch)
        if c >= 0x10000:
            c -= 0x10000
            out.append(chr(0xD800 + (c >> 10)))
            out.append(chr(0xDC00 + (c & 0x3FF)))
        else:
            out.append(ch)
    return "".join(out)


# -- number parsing ------------------------------------------------------------------

_INT32 = (-(2**31), 2**31 - 1)
_FLOAT_SUFFIX = "fFdD"
_JAVA_DEC_FLOAT = re.compile(r"[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)", re.ASCII)
_JAVA_HEX_FLOAT = re.compile(r"([+-]?)0[xX]([0-9a-fA-F]*\.?[0-9a-fA-F]*)[pP]([+-]?\d+)[fFdD]?", re.ASCII)


def java_parse_int(text: str) -> int:
    """``Integer.parseInt``: an optional sign and decimal digits of any script (``Character.digit``),
    nothing else (no spaces, no ``_``), within 32 bits; ``ValueError`` otherwise."""
    body = text[1:] if text[:1] in "+-" else text
    if not body or not all(c.isdecimal() and ord(c) <= 0xFFFF for c in body):
        raise ValueError(f"not an integer: {text!r}")
    value = int(("-" if text[:1] == "-" else "") + "".join(str(int(c)) for c in body))
    if not _INT32[0] <= value <= _INT32[1]:
        raise ValueError(f"out of the range of a 32-bit integer: {text!r}")
    return value


def java_parse_double(text: str) -> float:
    """``Double.parseDouble``: ``String.trim`` first; ASCII decimal digits (``1``, ``1.``, ``.5``, ``1e3``),
    hexadecimal with a binary exponent (``0x1.8p1``), ``NaN``, ``Infinity``, each with an optional sign and
    a ``f``/``d`` suffix; ``ValueError`` otherwise."""
    t = java_trim(text)
    if _JAVA_DEC_FLOAT.fullmatch(t):
        core = t.rstrip(_FLOAT_SUFFIX) if t[-1:] in _FLOAT_SUFFIX and "Infinity" not in t else t
        return float(core.replace("Infinity", "inf").replace("NaN", "nan"))
    m = _JAVA_HEX_FLOAT.fullmatch(t)
    if m is not None and m.group(2).strip("."):
        return float.fromhex(f"{m.group(1)}0x{m.group(2)}p{m.group(3)}")
    raise ValueError(f"not a number: {text!r}")


# -- strings -------------------------------------------------------------------------


def java_split(text: str, sep: str) -> List[str]:
    """Java's ``String.split`` on a literal separator: trailing empty strings are removed,
    but a text without the separator comes back whole (``""`` gives ``[""]``)."""
    parts = text.split(sep)
    if len(parts) == 1:
        return parts
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def java_trim(text: str) -> str:
    """Java's ``String.trim``: strip the characters up to U+0020 at both ends."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


# -- text decoding and encoding ------------------------------------------------------------

_JAVA_UTF8_ERRORS = "meteor-lite-java-utf8"


def _java_utf8_replace(exc: UnicodeError) -> Tuple[str, int]:
    """One U+FFFD per malformed sequence, as Java's UTF-8 decoder counts them.

    Python and Java agree (the Unicode "maximal subpart" practice) except for an encoded surrogate
    (``ED A0..BF ..``): Java takes ``ED`` with a continuation as the start of a three-byte sequence
    and replaces the whole sequence (or its two-byte beginning) by one U+FFFD, where Python replaces
    each byte (checked with the jar: ``ED A0 80`` gives one U+FFFD, ``ED A0 78`` one and ``x``).
    """
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    data, i = exc.object, exc.start
    if data[i] == 0xED and i + 1 < len(data) and 0xA0 <= data[i + 1] <= 0xBF:
        return "\ufffd", i + 3 if i + 2 < len(data) and 0x80 <= data[i + 2] <= 0xBF else i + 2
    return "\ufffd", exc.end


codecs.register_error(_JAVA_UTF8_ERRORS, _java_utf8_replace)


def java_utf8_decode(data: bytes) -> str:
    """``data`` decoded as Java's ``InputStreamReader`` (UTF-8) does: malformed bytes become U+FFFD."""
    return data.decode("utf-8", _JAVA_UTF8_ERRORS)


def java_utf8_encode(text: str) -> bytes:
    """``text`` encoded as Java's UTF-8 ``PrintStream`` does: a lone surrogate becomes ``?``."""
    return text.encode("utf-8", "replace")
