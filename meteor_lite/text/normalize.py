"""Meteor 1.5's text normaliser (``-norm``, ``-lower``, ``-noPunct``), reimplemented.

This module reproduces, character for character, what the official Meteor 1.5
release does to a segment before matching:

* :func:`normalize` -- the ``-norm`` tokenisation and punctuation normalisation
  (``keep_punct=False`` is ``-noPunct``); it does not lowercase;
* :func:`java_lower` -- ``String.toLowerCase()`` as Java 17 does it in an
  English (or root) locale, including the context-dependent final sigma;
* :func:`tokenize` -- ``java.util.StringTokenizer``'s default whitespace split;
* :func:`prepare` -- the per-line pipeline (normalise, lowercase, split).

The behaviour was established by running the official ``meteor-1.5.jar`` on
Java 17 as a black box (``meteor-build check normalizer`` compares the two on
tens of thousands of real segments); nothing here is translated from Meteor's
source.  Standard library only.

Languages
---------
Meteor has a normaliser for English, Czech (``cz``, alias ``cs``), German,
Spanish, French and Russian; all use the same "western" rules and differ only
in how apostrophes are split (English and French have their own rules, the
others split every apostrophe off).  Meteor refuses ``-norm`` for its other
languages; here every language in :data:`WESTERN_LANGS` (Meteor's other
Latin-script languages and further Latin/Cyrillic-script codes) gets the
western rules with the generic apostrophe rule.  Any other language code
(``other``, ``ar``, ``zh``, ``ja``, ``ko``, ``th``, ``hi``, ``he``, ...,
including Meteor's Buckwalter-transliterated Arabic ``ar-bw-red``, whose
letters include ASCII punctuation) gets Meteor's non-western rules, which
only separate ASCII/Latin-1 punctuation and the Arabic comma and never look
at letters.  Those non-western rules are unreachable from Meteor's command
line; they were checked by calling the jar's own (private) routine.

Non-breaking prefixes (``Mr.``, ``e.g.``, ``No.`` before a number ...) are not
built in: pass the language's list as ``nonbreaking`` (prefix -> numeric_only),
e.g. from a resource bundle; ``None`` means an empty list.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .. import accel
from ..languages import LANGUAGES, default_tokenizer, language_alias

__all__ = ["WESTERN_LANGS", "NON_WESTERN_LANGS", "normalize", "java_lower", "tokenize", "prepare"]

# ---------------------------------------------------------------------------
# Languages
# ---------------------------------------------------------------------------

#: Languages normalised with the western rules (short codes, their aliases and
#: Meteor's long names).  Meteor itself normalises only en, cz, de, es, fr, ru;
#: the rest are Latin- or Cyrillic-script languages given the same rules with
#: the generic apostrophe rule.  The rules treat only ASCII, Latin-1, Latin
#: Extended-A and Cyrillic letters as letters and split any other character off
#: as punctuation (e.g. Romanian ș/ț, U+0219/U+021B); languages whose usual
#: letters fall outside (Vietnamese, Yoruba, Azerbaijani ...) are left to the
#: non-western rules.
WESTERN_LANGS: frozenset = frozenset(
    {
        # Meteor's normalised languages
        "en", "cz", "cs", "de", "es", "fr", "ru",
        # Meteor's other (non-normalised) languages
        "da", "fi", "hu", "it", "nl", "no", "pt", "ro", "se", "sv", "tr",
        # further Latin- or Cyrillic-script languages
        "af", "be", "bg", "br", "bs", "ca", "cy", "eo", "et", "eu", "fo", "fy", "ga", "gd",
        "gl", "hr", "id", "is", "kk", "ky", "la", "lb", "lt", "lv", "mk", "ms", "mn", "mt",
        "nb", "nn", "oc", "pl", "rm", "sk", "sl", "sq", "sr", "sw", "tg", "tk", "tl", "uk",
        "wa", "zu",
    }
    | {name for code, (name, _stem) in LANGUAGES.items() if code != "ar-bw-red"}
)

#: Codes that get the non-western rules explicitly (any code outside
#: :data:`WESTERN_LANGS` does too; this set only documents the usual ones).
NON_WESTERN_LANGS: frozenset = frozenset(
    {"other", "xx", "ar", "ar-bw-red", "arabic-buckwalter-reduced", "fa", "ur", "he", "yi",
     "zh", "ja", "ko", "th", "lo", "km", "my", "hi", "bn", "mr", "ne", "ta", "te", "kn",
     "ml", "gu", "pa", "si", "am", "ka", "hy", "el", "vi", "yo", "az"}
)


def _canon_lang(lang: str) -> str:
    """Short code for ``lang`` (lower-cased, long names and aliases resolved by the language table)."""
    return language_alias(lang)


# ---------------------------------------------------------------------------
# Character classes (as the jar's compiled patterns have them)
# ---------------------------------------------------------------------------

#: Letters: ASCII, Latin-1 and Latin Extended-A letters (minus x/÷), the
#: Windows-1252 extras Š Ž š ž Ÿ, Cyrillic (+ supplement, extended-B) and
#: phonetic extensions.  Java's "Digit" is ASCII 0-9 only.
_ALPHA = (
    "A-Za-z\u0160\u017d\u0161\u017e\u0178\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u017e"
    "\u0400-\u04ff\u0500-\u0527\ua640-\ua66e\ua67e-\ua697\u1d00-\u1d7f"
)
_ALNUM = "0-9" + _ALPHA
#: Java's ``\s`` (no Unicode flag): space, \t, \n, \x0b, \f, \r.
_JAVA_SPACE = " \t\n\x0b\f\r"
#: Characters ``String.trim()`` removes: everything up to U+0020.
_TRIM_CHARS = "".join(chr(i) for i in range(0x21))
#: The spaces Meteor collapses at the end (not \t, \n, ...).
_WHITE = " \u2000-\u200a\u202f\u205f\u3000\u00a0"

class _LazyPattern:
    """A regular expression compiled when first used: with the compiled normaliser (``prepare_western``) a run may
    never need it, and compiling all of this module's (large Unicode classes) took about 8 ms of every start.  After
    the first use its methods are the compiled pattern's own (no extra call)."""

    __slots__ = ("source", "sub", "search", "match", "split")

    def __init__(self, source: str):
        self.source = source

    def __getattr__(self, name: str) -> Any:  # only for a method not set yet
        if name not in _LazyPattern.__slots__[1:]:
            raise AttributeError(name)
        rx = re.compile(self.source)
        for method in _LazyPattern.__slots__[1:]:
            setattr(self, method, getattr(rx, method))
        return getattr(rx, name)


_C = _LazyPattern
# western rules
_R_SEP = _C("([^" + _ALNUM + _JAVA_SPACE + ".'`,\\-\u2018\u2019])")
_R_MULTI_DOT = _C(r"\.(\.+)")
_R_MULTI_DOT2 = _C(r"DOTMULTI\.([^.])")
_R_COMMA1 = _C(r"([^0-9]),([^0-9])")
_R_COMMA2 = _C(r"([0-9]),([^0-9])")
_R_COMMA3 = _C(r"([^0-9]),([0-9])")
_R_QUOTE1 = _C("[`\u2018\u2019]")
_R_QUOTE2 = _C("[\u201c\u201d]|''")
_R_RM_DASH = _C("([" + _ALNUM + ".])-([" + _ALNUM + "])")
_R_CONT_EN1 = _C("([^" + _ALPHA + "])'([^" + _ALPHA + "])")
_R_CONT_EN2 = _C("([^" + _ALPHA + "0-9])'([" + _ALPHA + "])")
_R_CONT_EN3 = _C("([" + _ALPHA + "])'([^" + _ALPHA + "])")
_R_CONT_EN4 = _C("([" + _ALPHA + "])'([" + _ALPHA + "])")
_R_CONT_EN5 = _C("([0-9])'(s)")
_R_CONT_FR2 = _C("([^" + _ALPHA + "])'([" + _ALPHA + "])")
_R_HAS_ALPHA = _C("[" + _ALPHA + "]")
_R_PUNCT_STRIP = _C("[^" + _ALNUM + "]")
_R_WHITE = _C("[" + _WHITE + "]+")
_R_TOKEN_SEP = _C("[ \t\n\r\f]+")
# non-western rules
_R_DOT_NW1 = _C(r"([^0-9])\.([^0-9])")
_R_DOT_NW2 = _C(r"([0-9])\.([^0-9])")
_R_DOT_NW3 = _C(r"([^0-9])\.([0-9])")
_R_PUNCT_NW = _C("([!-+\\-/:-@\\[-`{-\u00bf\u060c])")

_SEP_SUB = r" \1 "
_SPLIT_SUB = r"\1 \2"
_SPACED_SUB = r"\1 , \2"


# ---------------------------------------------------------------------------
# Java's String.toLowerCase()
# ---------------------------------------------------------------------------

#: Java 17's one-to-one lowercase mappings (Unicode 13), as runs
#: (first, last, step, delta): every ``step``-th code point from ``first`` to
#: ``last`` maps to itself + ``delta``.  Taken from the JVM by experiment, so
#: the result does not depend on the Python version's Unicode tables (Python
#: 3.11's ``str.lower`` also lowercases 40 letters added in Unicode 14).
_LOWER_RUNS: Tuple[Tuple[int, int, int, int], ...] = (
    (0x0041, 0x005A, 1, 32), (0x00C0, 0x00D6, 1, 32), (0x00D8, 0x00DE, 1, 32), (0x0100, 0x012E, 2, 1),
    (0x0132, 0x0136, 2, 1), (0x0139, 0x0147, 2, 1), (0x014A, 0x0176, 2, 1), (0x0178, 0x0178, 1, -121),
    (0x0179, 0x017D, 2, 1), (0x0181, 0x0181, 1, 210), (0x0182, 0x0184, 2, 1), (0x0186, 0x0186, 1, 206),
    (0x0187, 0x0187, 1, 1), (0x0189, 0x018A, 1, 205), (0x018B, 0x018B, 1, 1), (0x018E, 0x018E, 1, 79),
    (0x018F, 0x018F, 1, 202), (0x0190, 0x0190, 1, 203), (0x0191, 0x0191, 1, 1), (0x0193, 0x0193, 1, 205),
    (0x0194, 0x0194, 1, 207), (0x0196, 0x0196, 1, 211), (0x0197, 0x0197, 1, 209), (0x0198, 0x0198, 1, 1),
    (0x019C, 0x019C, 1, 211), (0x019D, 0x019D, 1, 213), (0x019F, 0x019F, 1, 214), (0x01A0, 0x01A4, 2, 1),
    (0x01A6, 0x01A6, 1, 218), (0x01A7, 0x01A7, 1, 1), (0x01A9, 0x01A9, 1, 218), (0x01AC, 0x01AC, 1, 1),
    (0x01AE, 0x01AE, 1, 218), (0x01AF, 0x01AF, 1, 1), (0x01B1, 0x01B2, 1, 217), (0x01B3, 0x01B5, 2, 1),
    (0x01B7, 0x01B7, 1, 219), (0x01B8, 0x01B8, 1, 1), (0x01BC, 0x01BC, 1, 1), (0x01C4, 0x01C4, 1, 2),
    (0x01C5, 0x01C5, 1, 1), (0x01C7, 0x01C7, 1, 2), (0x01C8, 0x01C8, 1, 1), (0x01CA, 0x01CA, 1, 2),
    (0x01CB, 0x01DB, 2, 1), (0x01DE, 0x01EE, 2, 1), (0x01F1, 0x01F1, 1, 2), (0x01F2, 0x01F4, 2, 1),
    (0x01F6, 0x01F6, 1, -97), (0x01F7, 0x01F7, 1, -56), (0x01F8, 0x021E, 2, 1), (0x0220, 0x0220, 1, -130),
    (0x0222, 0x0232, 2, 1), (0x023A, 0x023A, 1, 10795), (0x023B, 0x023B, 1, 1), (0x023D, 0x023D, 1, -163),
    (0x023E, 0x023E, 1, 10792), (0x0241, 0x0241, 1, 1), (0x0243, 0x0243, 1, -195), (0x0244, 0x0244, 1, 69),
    (0x0245, 0x0245, 1, 71), (0x0246, 0x024E, 2, 1), (0x0370, 0x0372, 2, 1), (0x0376, 0x0376, 1, 1),
    (0x037F, 0x037F, 1, 116), (0x0386, 0x0386, 1, 38), (0x0388, 0x038A, 1, 37), (0x038C, 0x038C, 1, 64),
    (0x038E, 0x038F, 1, 63), (0x0391, 0x03A1, 1, 32), (0x03A3, 0x03AB, 1, 32), (0x03CF, 0x03CF, 1, 8),
    (0x03D8, 0x03EE, 2, 1), (0x03F4, 0x03F4, 1, -60), (0x03F7, 0x03F7, 1, 1), (0x03F9, 0x03F9, 1, -7),
    (0x03FA, 0x03FA, 1, 1), (0x03FD, 0x03FF, 1, -130), (0x0400, 0x040F, 1, 80), (0x0410, 0x042F, 1, 32),
    (0x0460, 0x0480, 2, 1), (0x048A, 0x04BE, 2, 1), (0x04C0, 0x04C0, 1, 15), (0x04C1, 0x04CD, 2, 1),
    (0x04D0, 0x052E, 2, 1), (0x0531, 0x0556, 1, 48), (0x10A0, 0x10C5, 1, 7264), (0x10C7, 0x10C7, 1, 7264),
    (0x10CD, 0x10CD, 1, 7264), (0x13A0, 0x13EF, 1, 38864), (0x13F0, 0x13F5, 1, 8), (0x1C90, 0x1CBA, 1, -3008),
    (0x1CBD, 0x1CBF, 1, -3008), (0x1E00, 0x1E94, 2, 1), (0x1E9E, 0x1E9E, 1, -7615), (0x1EA0, 0x1EFE, 2, 1),
    (0x1F08, 0x1F0F, 1, -8), (0x1F18, 0x1F1D, 1, -8), (0x1F28, 0x1F2F, 1, -8), (0x1F38, 0x1F3F, 1, -8),
    (0x1F48, 0x1F4D, 1, -8), (0x1F59, 0x1F5F, 2, -8), (0x1F68, 0x1F6F, 1, -8), (0x1F88, 0x1F8F, 1, -8),
    (0x1F98, 0x1F9F, 1, -8), (0x1FA8, 0x1FAF, 1, -8), (0x1FB8, 0x1FB9, 1, -8), (0x1FBA, 0x1FBB, 1, -74),
    (0x1FBC, 0x1FBC, 1, -9), (0x1FC8, 0x1FCB, 1, -86), (0x1FCC, 0x1FCC, 1, -9), (0x1FD8, 0x1FD9, 1, -8),
    (0x1FDA, 0x1FDB, 1, -100), (0x1FE8, 0x1FE9, 1, -8), (0x1FEA, 0x1FEB, 1, -112), (0x1FEC, 0x1FEC, 1, -7),
    (0x1FF8, 0x1FF9, 1, -128), (0x1FFA, 0x1FFB, 1, -126), (0x1FFC, 0x1FFC, 1, -9), (0x2126, 0x2126, 1, -7517),
    (0x212A, 0x212A, 1, -8383), (0x212B, 0x212B, 1, -8262), (0x2132, 0x2132, 1, 28), (0x2160, 0x216F, 1, 16),
    (0x2183, 0x2183, 1, 1), (0x24B6, 0x24CF, 1, 26), (0x2C00, 0x2C2E, 1, 48), (0x2C60, 0x2C60, 1, 1),
    (0x2C62, 0x2C62, 1, -10743), (0x2C63, 0x2C63, 1, -3814), (0x2C64, 0x2C64, 1, -10727), (0x2C67, 0x2C6B, 2, 1),
    (0x2C6D, 0x2C6D, 1, -10780), (0x2C6E, 0x2C6E, 1, -10749), (0x2C6F, 0x2C6F, 1, -10783), (0x2C70, 0x2C70, 1, -10782),
    (0x2C72, 0x2C72, 1, 1), (0x2C75, 0x2C75, 1, 1), (0x2C7E, 0x2C7F, 1, -10815), (0x2C80, 0x2CE2, 2, 1),
    (0x2CEB, 0x2CED, 2, 1), (0x2CF2, 0x2CF2, 1, 1), (0xA640, 0xA66C, 2, 1), (0xA680, 0xA69A, 2, 1),
    (0xA722, 0xA72E, 2, 1), (0xA732, 0xA76E, 2, 1), (0xA779, 0xA77B, 2, 1), (0xA77D, 0xA77D, 1, -35332),
    (0xA77E, 0xA786, 2, 1), (0xA78B, 0xA78B, 1, 1), (0xA78D, 0xA78D, 1, -42280), (0xA790, 0xA792, 2, 1),
    (0xA796, 0xA7A8, 2, 1), (0xA7AA, 0xA7AA, 1, -42308), (0xA7AB, 0xA7AB, 1, -42319), (0xA7AC, 0xA7AC, 1, -42315),
    (0xA7AD, 0xA7AD, 1, -42305), (0xA7AE, 0xA7AE, 1, -42308), (0xA7B0, 0xA7B0, 1, -42258), (0xA7B1, 0xA7B1, 1, -42282),
    (0xA7B2, 0xA7B2, 1, -42261), (0xA7B3, 0xA7B3, 1, 928), (0xA7B4, 0xA7BE, 2, 1), (0xA7C2, 0xA7C2, 1, 1),
    (0xA7C4, 0xA7C4, 1, -48), (0xA7C5, 0xA7C5, 1, -42307), (0xA7C6, 0xA7C6, 1, -35384), (0xA7C7, 0xA7C9, 2, 1),
    (0xA7F5, 0xA7F5, 1, 1), (0xFF21, 0xFF3A, 1, 32), (0x10400, 0x10427, 1, 40), (0x104B0, 0x104D3, 1, 40),
    (0x10C80, 0x10CB2, 1, 64), (0x118A0, 0x118BF, 1, 32), (0x16E40, 0x16E5F, 1, 32), (0x1E900, 0x1E921, 1, 34),
)

_SIGMA = "\u03a3"


def _build_lower_table() -> Dict[int, str]:
    table: Dict[int, str] = {}
    for first, last, step, delta in _LOWER_RUNS:
        for cp in range(first, last + 1, step):
            table[cp] = chr(cp + delta)
    table[0x0130] = "i\u0307"  # the only one-to-many lowercase mapping
    return table


_LOWER_TABLE: Dict[int, str] = _build_lower_table()

#: Code points Java counts as "cased" besides the Lu/Ll/Lt letters.
_OTHER_CASED: Tuple[Tuple[int, int], ...] = (
    (0x02B0, 0x02B8), (0x02C0, 0x02C1), (0x02E0, 0x02E4), (0x0345, 0x0345),
    (0x037A, 0x037A), (0x1D2C, 0x1D61), (0x2160, 0x217F), (0x24B6, 0x24E9),
)


def _java_is_cased(ch: str) -> bool:
    if unicodedata.category(ch) in ("Lu", "Ll", "Lt"):
        return True
    cp = ord(ch)
    return any(a <= cp <= b for a, b in _OTHER_CASED)


# Word segmentation as Java's BreakIterator.getWordInstance() does it, which
# decides whether a capital sigma ends a word.  Each character is mapped to a
# class letter and words are found with regular expressions on those letters:
#   L letter, D digit, I combining mark, F other format character (transparent), . full stop, q ' or ",
#   w other word-internal punctuation (dashes, connectors, soft hyphen, U+2027),
#   c number-internal punctuation (, U+066B), p currency/#: may start a number,
#   s %-like: may end a number, K/T/H/J kanji/katakana/hiragana/kana marks,
#   Z white space, X anything else.
_KANJI = ((0x3005, 0x3005), (0x4E00, 0x9FA5), (0xF900, 0xFA2D))
_KATA = ((0x30A1, 0x30FA), (0x30FD, 0x30FE))
_HIRA = ((0x3041, 0x3094), (0x309D, 0x309E))
_KANA_MARKS = ((0x3099, 0x309C), (0x30FB, 0x30FC))
_FIXED_CLASS = {
    ".": ".", "'": "q", '"': "q", "\u2027": "w", ",": "c", "\u066b": "c", "#": "p",
    "%": "s", "&": "s", "\u00a2": "s", "\u066a": "s", "\u2030": "s", "\u2031": "s",
    "\u00ad": "w", "\t": "Z", "\n": "Z", "\r": "Z", "\f": "Z", "\u2028": "Z", "\u2029": "Z",
}
_L, _D = "LI*", "DI*"
_WORD = f"(?:{_L})+(?:[.qw](?:{_L})+)*"
_NUMBER = f"(?:{_D})+(?:[.qc](?:{_D})+)*"
_BREAK_RULES = tuple(
    _LazyPattern(p)
    for p in (
        f"(?:{_WORD}|{_NUMBER})*{_NUMBER}s",
        f"(?:{_WORD}|{_NUMBER})+",
        f"[p.](?:{_NUMBER}{_WORD})*(?:{_NUMBER}s?)?",
        "[TJ]+",
        "[HJ]+",
        "K+",
        "Z+",
        ".I*",
    )
)


def _break_class(ch: str) -> str:
    fixed = _FIXED_CLASS.get(ch)
    if fixed is not None:
        return fixed
    cat = unicodedata.category(ch)
    if cat == "Cf":
        return "F"
    if cat in ("Mn", "Me"):
        return "I"
    cp = ord(ch)
    for ranges, cls in ((_KANJI, "K"), (_KATA, "T"), (_HIRA, "H"), (_KANA_MARKS, "J")):
        if any(a <= cp <= b for a, b in ranges):
            return cls
    if cat[0] == "L" or cat == "Mc":
        return "L"
    if cat[0] == "N":
        return "D"
    if cat in ("Pd", "Pc"):
        return "w"
    if cat == "Sc":
        return "p"
    if cat == "Zs":
        return "Z"
    return "X"


def _word_bounds(s: str, index: int) -> Tuple[int, int]:
    """Start and end of the word (in Java's word segmentation) holding ``s[index]``.

    Format characters (class F) are transparent: they are left out of the
    segmentation and belong to the word before them.
    """
    classes: List[str] = []
    where: List[int] = []  # position in s of each classified character
    for pos, ch in enumerate(s):
        cls = _break_class(ch)
        if cls != "F":
            classes.append(cls)
            where.append(pos)
    where.append(len(s))
    text = "".join(classes)
    target = where.index(index)
    pos = 0
    while True:
        end = max(m.end() for m in (r.match(text, pos) for r in _BREAK_RULES) if m)
        if end > target:
            return (where[pos] if pos else 0), where[end]
        pos = end


def _is_final_sigma(s: str, index: int) -> bool:
    """Whether Java lowercases the capital sigma at ``s[index]`` to a final sigma."""
    start, end = _word_bounds(s, index)
    if start == index:
        return False
    if not any(_java_is_cased(ch) for ch in s[start:index]):
        return False
    return not any(_java_is_cased(ch) for ch in s[index + 1 : end])


def java_lower(s: str) -> str:
    """Lowercase like Java's ``String.toLowerCase()`` (Java 17, English/root locale).

    Differs from ``str.lower()`` in using Java 17's Unicode 13 case tables and
    Java's rule for the final sigma (a capital sigma ending a word, as Java's
    word break iterator sees words, becomes "ς").
    """
    if s.isascii():
        return s.lower()
    if _SIGMA not in s:
        return s.translate(_LOWER_TABLE)
    parts = s.split(_SIGMA)
    out = [parts[0].translate(_LOWER_TABLE)]
    index = len(parts[0])
    for part in parts[1:]:
        out.append("\u03c2" if _is_final_sigma(s, index) else "\u03c3")
        out.append(part.translate(_LOWER_TABLE))
        index += 1 + len(part)
    return "".join(out)


def _multi_dots(s: str) -> str:
    """Protect runs of two or more dots as DOTMULTI markers (restored by :func:`_restore_dots`)."""
    if ".." in s:
        s = _R_MULTI_DOT.sub(r" DOTMULTI\1", s)
    while "DOTMULTI." in s:
        s = _R_MULTI_DOT2.sub(r"DOTDOTMULTI \1", s)
        s = s.replace("DOTMULTI.", "DOTDOTMULTI")
    return s


def _restore_dots(s: str) -> str:
    """Turn DOTMULTI markers back into dots (also any literal "DOTMULTI" of the input)."""
    if "DOTMULTI" not in s:
        return s
    while "DOTDOTMULTI" in s:
        s = s.replace("DOTDOTMULTI", "DOTMULTI.")
    return s.replace("DOTMULTI", ".")


def _commas_quotes_dashes(s: str) -> str:
    """Separate commas that are not inside numbers; unify quotes and dashes."""
    if "," in s:
        s = _R_COMMA1.sub(_SPACED_SUB, s)
        s = _R_COMMA2.sub(_SPACED_SUB, s)
        s = _R_COMMA3.sub(_SPACED_SUB, s)
    if "`" in s or "\u2018" in s or "\u2019" in s:
        s = _R_QUOTE1.sub("'", s)
    if "''" in s or "\u201c" in s or "\u201d" in s:
        s = _R_QUOTE2.sub(' " ', s)
    return s.replace("\u2013", "-").replace("--", "-")


def _finish(s: str) -> str:
    """Collapse Meteor's space characters and ``String.trim()`` the result."""
    return _R_WHITE.sub(" ", s).strip(_TRIM_CHARS)


def _split_final_dots(s: str, nonbreaking: Mapping[str, bool]) -> str:
    """Split sentence-final dots off tokens, keeping abbreviations and non-breaking prefixes."""
    toks = [t for t in _R_TOKEN_SEP.split(s) if t]
    if "." not in s:
        return " ".join(toks) + " "
    n = len(toks)
    for i, t in enumerate(toks):  # toks[i] is rewritten in place; the rule reads the next token, still unchanged
        if t[-1] != "." or len(t) == 1:
            continue
        pre = t[:-1]
        if "." in pre and _R_HAS_ALPHA.search(pre):
            toks[i] = t.replace(".", "")  # U.S. -> US
            continue
        kind = nonbreaking.get(pre)  # None: not a prefix; False: any context; True: numbers only
        nxt = toks[i + 1][:1] if i + 1 < n else ""
        if (kind is not None and not kind) or "a" <= nxt <= "z":
            continue
        if kind and "0" <= nxt <= "9":
            continue
        toks[i] = pre + " ."
    return " ".join(toks) + " "


def _normalize_western(s: str, lang: str, keep_punct: bool, nonbreaking: Mapping[str, bool]) -> str:
    s = _R_SEP.sub(_SEP_SUB, " " + s + " ")
    s = _multi_dots(s)
    s = _commas_quotes_dashes(s)
    if "-" in s:
        s = _R_RM_DASH.sub(_SPLIT_SUB, s)
    if "'" in s:
        if lang == "en":
            s = _R_CONT_EN1.sub(r"\1 ' \2", s)
            s = _R_CONT_EN2.sub(r"\1 ' \2", s)
            s = _R_CONT_EN3.sub(r"\1 ' \2", s)
            s = _R_CONT_EN4.sub(r"\1 '\2", s)
            s = _R_CONT_EN5.sub(r"\1 '\2", s)
        elif lang == "fr":
            s = _R_CONT_EN1.sub(r"\1 ' \2", s)
            s = _R_CONT_FR2.sub(r"\1 ' \2", s)
            s = _R_CONT_EN3.sub(r"\1 ' \2", s)
            s = _R_CONT_EN4.sub(r"\1' \2", s)
        else:
            s = s.replace("'", " ' ")
    s = _split_final_dots(s, nonbreaking)
    s = _restore_dots(s)
    if not keep_punct:
        s = _R_PUNCT_STRIP.sub(" ", s)
    return _finish(s)


def _normalize_non_western(s: str, keep_punct: bool) -> str:
    s = _multi_dots(" " + s + " ")
    s = _commas_quotes_dashes(s)
    if "." in s:
        s = _R_DOT_NW1.sub(r"\1 . \2", s)
        s = _R_DOT_NW2.sub(r"\1 . \2", s)
        s = _R_DOT_NW3.sub(r"\1 . \2", s)
    s = _R_PUNCT_NW.sub(_SEP_SUB, s)
    if not keep_punct:
        s = _R_PUNCT_NW.sub(" ", s)
        s = s.replace(".", " ")
    s = _restore_dots(s)
    return _finish(s)


def normalize(
    line: str,
    lang: str,
    *,
    keep_punct: bool = True,
    nonbreaking: Optional[Mapping[str, bool]] = None,
) -> str:
    """Normalise one segment as Meteor 1.5's ``-norm`` does (without lowercasing).

    Punctuation is split off words, quotes and dashes are unified, runs of dots
    are kept together, abbreviations such as ``U.S.`` lose their dots, and a
    final dot is split off a word unless the word is a non-breaking prefix.
    The result is a single-space-separated string with no leading or trailing
    whitespace (characters such as ``\\x0b`` can remain inside tokens, as in Meteor).

    Args:
        line: one segment (without its line terminator).
        lang: language code (``en``, ``cz``/``cs``, ``de``, ``es``, ``fr``, ``ru``, other
            codes of :data:`WESTERN_LANGS`, or anything else for the non-western rules).
        keep_punct: ``False`` removes punctuation like Meteor's ``-noPunct``.
        nonbreaking: the language's non-breaking prefixes, prefix -> numeric_only
            (``True``: the prefix keeps its dot only before a number).  ``None``: none.

    Returns:
        The normalised segment.
    """
    code = _canon_lang(lang)
    if code in WESTERN_LANGS:
        return _normalize_western(line, code, keep_punct, nonbreaking or {})
    return _normalize_non_western(line, keep_punct)


def tokenize(line: str) -> List[str]:
    """Split on ``java.util.StringTokenizer``'s default delimiters " \\t\\n\\r\\f" only.

    ``\\x0b`` and Unicode spaces (e.g. U+00A0) are *not* delimiters and stay inside tokens.
    """
    if "\t" in line or "\n" in line or "\r" in line or "\f" in line:
        return [t for t in _R_TOKEN_SEP.split(line) if t]
    return [t for t in line.split(" ") if t]


#: The empty prefix list the compiled twin is given for ``nonbreaking=None`` (never modified).
_NO_PREFIXES: Dict[str, bool] = {}


@functools.lru_cache(maxsize=256)
def _compiled_mode(lang: str, tokenizer: Optional[str]) -> int:
    """The apostrophe rule of the compiled ``-norm`` twin for ``lang``: 0 English, 1 French, 2 generic; -1 out of its range.

    The twin (``prepare_western`` of ``meteor_lite/_accel.c``) covers the western rules followed by
    Meteor's white-space tokeniser (and declines a line to lower-case that holds a capital sigma);
    anything else runs the pure-Python code.
    """
    code = _canon_lang(lang)
    name = tokenizer if tokenizer is not None else default_tokenizer(lang)
    if code not in WESTERN_LANGS or name != "meteor":
        return -1
    return {"en": 0, "fr": 1}.get(code, 2)


def prepare(
    line: str,
    lang: str,
    *,
    norm: bool,
    lower: bool,
    keep_punct: bool = True,
    nonbreaking: Optional[Mapping[str, bool]] = None,
    tokenizer: Optional[str] = None,
    keep_case: bool = False,
) -> List[str]:
    """Meteor's per-segment preprocessing: the list of words it aligns.

    With ``norm`` the line is normalised (:func:`normalize`) and lowercased;
    otherwise it is trimmed like Java's ``String.trim()`` (characters up to
    U+0020 removed at both ends) and, with ``lower``, lowercased; then it is
    split on whitespace (:func:`tokenize`).  Lowercasing comes after
    normalisation, so e.g. "DOTMULTI" and the non-breaking prefixes see the
    original case.

    Args:
        line: one segment.
        lang: language code (see :func:`normalize`).
        norm: Meteor's ``-norm``.
        lower: Meteor's ``-lower`` (implied by ``norm``).
        keep_punct: ``False`` for Meteor's ``-noPunct`` (only used with ``norm``).
        nonbreaking: non-breaking prefixes for :func:`normalize`.
        tokenizer: the last step's tokeniser (:mod:`meteor_lite.text.tokenizers`); ``None``: the
            language's default, which is Meteor's white-space split (:func:`tokenize`) for
            every language except those of :data:`meteor_lite.languages.SCRIPT_LANGUAGES`.
        keep_case: no lower-casing at all, even with ``norm`` (the case-aware modes, not Meteor 1.5's:
            :data:`meteor_lite.config.CASE_RULE`).

    Returns:
        The tokens.
    """
    if norm:
        # The compiled twin (meteor_lite/_accel.c) does normalize + java_lower + tokenize in one call, with the
        # same tokens (tests/test_accel_normalize.py); it returns None for a line it leaves to this code.
        kernels = accel.compiled
        if kernels is not None and isinstance(line, str) and (nonbreaking is None or type(nonbreaking) is dict):
            mode = _compiled_mode(lang, tokenizer)
            if mode >= 0:
                words = kernels.prepare_western(
                    line, mode, keep_punct, not keep_case, _NO_PREFIXES if nonbreaking is None else nonbreaking,
                    _LOWER_TABLE,
                )
                if words is not None:
                    return words
        line = normalize(line, lang, keep_punct=keep_punct, nonbreaking=nonbreaking)
    else:
        line = line.strip(_TRIM_CHARS)  # Meteor String.trim()s the raw line
    if (norm or lower) and not keep_case:
        line = java_lower(line)
    name = tokenizer if tokenizer is not None else default_tokenizer(lang)
    if name == "meteor":
        return tokenize(line)
    from .tokenizers import get_tokenizer

    return get_tokenizer(name)(line)
