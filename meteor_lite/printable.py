"""Metadata is data, never markup: any value read from a bundle (or another untrusted file), made safe to print.

A bundle's ``name``, ``version``, ``description``, a source's licence... are strings the bundle's
author chose.  Printed raw, a newline in one of them forges lines of a report (a second
``Final score:`` line that ``grep -m1`` would read) and an ESC sequence drives the terminal.
:func:`one_line` is the one place that turns such a value into text that stays on its line:
every control character (C0, DEL, C1), the line and paragraph separators and the
bidirectional overrides are written as Python-style escapes (``\\n``, ``\\x1b``, ``\\u202e``).
Ordinary text (any printable character of any script) is returned unchanged, so the names of
the official bundles print exactly as before.

:func:`report_line` is the printer of every line of a text report that holds such a value (a bundle's name
in the signature, a system name or a column name of a WMT file): :func:`one_line`, and the words
``Final score:`` written ``Final score\\x3a``, so that the report's own ``Final score:`` line is the only
one a parser finds, anchored to the line's start or not.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["one_line", "is_one_line", "report_line"]

#: Characters escaped although not of category Cc/Zl/Zp: the bidirectional embeddings, overrides and isolates.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")

_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _unsafe(ch: str) -> bool:
    return ch in _BIDI or unicodedata.category(ch) in ("Cc", "Zl", "Zp", "Cs")


def _escape(ch: str) -> str:
    if ch in _SHORT:
        return _SHORT[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


#: Every character :func:`_unsafe` is true of (categories Cc, Zl, Zp, Cs and :data:`_BIDI`), as one class: a name of
#: a megabyte is searched at the regular expression engine's speed (``tests/test_printable.py`` checks the two agree).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff" + "".join(sorted(_BIDI)) + "]")


def one_line(value: object) -> str:
    """``str(value)`` with every character that could end the line or control the terminal escaped."""
    text = value if isinstance(value, str) else str(value)
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(lambda m: _escape(m.group(0)), text)


def is_one_line(value: str) -> bool:
    """True when ``value`` prints unchanged by :func:`one_line` (no control characters, no line breaks)."""
    return one_line(value) == value


_FINAL = re.compile(r"final\s+score\s*:", re.IGNORECASE)


def report_line(value: object) -> str:
    """``one_line(value)`` with every ``Final score:`` (any case and spacing) written ``Final score\\x3a``: a line of a
    report holding text from a file, which can then never be taken for the report's final score."""
    return _FINAL.sub(lambda m: m.group(0)[:-1] + "\\x3a", one_line(value))
