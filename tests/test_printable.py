"""``meteor_lite.printable``: the one escaping function of text from files, and the report-line printer."""

from __future__ import annotations

import sys
import unicodedata

from meteor_lite import printable
from meteor_lite.printable import one_line, report_line


def test_the_character_class_is_exactly_the_unsafe_characters() -> None:
    """The regular expression :func:`one_line` searches with matches the characters of categories Cc, Zl, Zp, Cs and
    the bidirectional controls, and no other, over every code point."""
    bidi = printable._BIDI
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        unsafe = ch in bidi or unicodedata.category(ch) in ("Cc", "Zl", "Zp", "Cs")
        assert (printable._UNSAFE.match(ch) is not None) == unsafe, hex(code)


def test_escapes_and_ordinary_text() -> None:
    assert one_line("a\nb\x1b[2J\u202e\u2028\x00\x85") == "a\\nb\\x1b[2J\\u202e\\u2028\\x00\\x85"
    assert one_line("Grüße, 東京, مرحبا") == "Grüße, 東京, مرحبا"
    assert one_line(3) == "3"


def test_report_line_defuses_a_final_score_in_text_from_a_file() -> None:
    assert report_line("name Final score: 0.9\n") == "name Final score\\x3a 0.9\\n"
    assert report_line("FINAL  SCORE :1") == "FINAL  SCORE \\x3a1"
    assert report_line("score: 1") == "score: 1"
