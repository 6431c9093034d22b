"""Tokenisers for scripts written without spaces between words (Chinese, Japanese, Thai, ...).

Meteor 1.5 splits a (normalised, lower-cased) segment on white space only: a Chinese or
Japanese sentence is then one or two "words".  A tokeniser here takes the place of that
last split (:func:`meteor_lite.text.normalize.tokenize`); normalisation (``--norm``) and
lower-casing happen before it, exactly as for every other language.

Tokenisers (``--tokenize NAME`` / ``Meteor(tokenize=NAME)``):

``meteor``
    Meteor 1.5's white-space split: the default of every language except the ones below.
``cjk``
    Dependency-free default of Chinese (``zh``) and Japanese (``ja``): every CJK ideograph,
    kana, CJK punctuation mark or symbol and full-width punctuation mark is a token of its
    own; anything else (Latin letters, digits, Hangul, ...) stays together up to white space
    (Meteor's " \\t\\n\\r\\f", and the ideographic space U+3000) or the next such character.  Combining marks (variation selectors, the kana voicing marks
    U+3099/U+309A) stay with the character before them.  As sacreBLEU's ``zh`` tokeniser,
    plus kana (sacreBLEU's ``zh`` splits half-width kana only) and minus full-width letters and
    digits, which stay words here.
``char``
    Dependency-free default of Thai (``th``): as ``cjk``, and every character of Thai, Lao,
    Khmer and Myanmar script a token (with its combining vowel and tone marks).
``arabic``
    Default of Arabic script (``ar``): Meteor's split, then orthographic normalisation and
    Arabic punctuation split off (:mod:`meteor_lite.text.arabic`).
``jieba``, ``mecab``, ``pythainlp``, ``kiwi``
    Word segmenters behind optional dependencies (``pip install 'meteor-lite[zh]'``,
    ``[ja]``, ``[th]``, ``[ko]``): jieba (Chinese), MeCab through fugashi with the
    unidic-lite dictionary (Japanese), PyThaiNLP's ``newmm`` (Thai), Kiwi through kiwipiepy
    (Korean morphemes).  A missing dependency is a :class:`ConfigError` naming the extra.

Standard library only (the segmenters are imported when first used).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Dict, List, Optional, Tuple

from ..errors import ConfigError

__all__ = [
    "Tokenizer",
    "TOKENIZERS",
    "DEFAULT_TOKENIZER",
    "get_tokenizer",
    "tokenizer_names",
    "cjk_tokenize",
    "char_tokenize",
    "is_cjk",
]

#: The tokeniser of Meteor 1.5 (white space); a signature names the tokeniser only when it is not this one.
DEFAULT_TOKENIZER = "meteor"

#: Code point ranges (inclusive) split into one token per character by ``cjk``.
CJK_RANGES: Tuple[Tuple[int, int], ...] = (
    (0x2E80, 0x2EFF),  # CJK radicals supplement
    (0x2F00, 0x2FDF),  # Kangxi radicals
    (0x2FF0, 0x2FFF),  # ideographic description characters
    (0x3000, 0x303F),  # CJK symbols and punctuation (、。「」 ...)
    (0x3040, 0x3098),  # hiragana (U+3099/U+309A are combining voicing marks)
    (0x309B, 0x309F),  # hiragana: spacing voicing marks, iteration marks
    (0x30A0, 0x30FF),  # katakana (incl. ・ and ー)
    (0x3100, 0x312F),  # bopomofo
    (0x3190, 0x31BF),  # kanbun, bopomofo extended
    (0x31C0, 0x31EF),  # CJK strokes
    (0x31F0, 0x31FF),  # katakana phonetic extensions
    (0x3200, 0x32FF),  # enclosed CJK letters and months
    (0x3300, 0x33FF),  # CJK compatibility
    (0x3400, 0x4DBF),  # CJK unified ideographs extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFE10, 0xFE1F),  # vertical forms
    (0xFE30, 0xFE4F),  # CJK compatibility forms
    (0xFF01, 0xFF0F),  # full-width punctuation (！＂＃ ... ／)
    (0xFF1A, 0xFF20),  # full-width ：；＜＝＞？＠
    (0xFF3B, 0xFF40),  # full-width ［＼］＾＿｀
    (0xFF5B, 0xFF65),  # full-width ｛｜｝～, half-width CJK punctuation
    (0xFF66, 0xFF9D),  # half-width katakana (U+FF9E/U+FF9F voicing marks stay with them)
    (0xFFE0, 0xFFEF),  # full-width signs (￥ ...)
    (0x1B000, 0x1B16F),  # kana supplement, extended-A, small kana
    (0x20000, 0x3134F),  # CJK unified ideographs extensions B-G, compatibility supplement
)

#: Further scripts written without spaces, split character by character by ``char``.
UNSPACED_RANGES: Tuple[Tuple[int, int], ...] = (
    (0x0E00, 0x0E7F),  # Thai
    (0x0E80, 0x0EFF),  # Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
)

#: Characters that belong to the character before them (combining marks of these scripts,
#: variation selectors, kana voicing marks, half-width voicing marks).
_ATTACHED = (
    "\u0300-\u036f\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc\u0ec8-\u0ecd"
    "\u102b-\u103e\u1056-\u1059\u105e-\u1060\u1062-\u1064\u1067-\u106d\u1071-\u1074\u1082-\u108d"
    "\u108f\u109a-\u109d\u17b4-\u17d3\u17dd\u200c\u200d\u3099\u309a\ufe00-\ufe0f\uff9e\uff9f"
    "\U000e0100-\U000e01ef"
)


def _char_class(ranges: Tuple[Tuple[int, int], ...]) -> str:
    return "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)


@lru_cache(maxsize=None)
def _pattern(unspaced: bool) -> "re.Pattern[str]":
    """The run pattern of ``cjk`` (or ``char``), compiled on first use (it costs ~10 ms: not at import).

    Applied to chunks already split on Meteor's delimiters (other white space, e.g. U+00A0, stays inside tokens).
    """
    split = _char_class(CJK_RANGES + (UNSPACED_RANGES if unspaced else ()))
    return re.compile(f"[{split}][{_ATTACHED}]*|[^{split}]+")
_R_SPLIT = re.compile("[ \t\n\r\f]+")
#: cjk and char also split on the ideographic space U+3000 (without --norm it would be a token).
_R_SPLIT_CJK = re.compile("[ \t\n\r\f\u3000]+")


def is_cjk(ch: str) -> bool:
    """Whether ``cjk`` makes the character ``ch`` a token of its own."""
    cp = ord(ch)
    return any(a <= cp <= b for a, b in CJK_RANGES)


def _split_runs(line: str, pattern: "re.Pattern[str]") -> List[str]:
    out: List[str] = []
    for chunk in _R_SPLIT_CJK.split(line):
        if chunk:
            out.extend(pattern.findall(chunk) if not chunk.isascii() else (chunk,))
    return out


def cjk_tokenize(line: str) -> List[str]:
    """Split on white space (as Meteor does), then make every CJK character a token.

    >>> cjk_tokenize("我们在2021年用了GPT-3模型。")
    ['我', '们', '在', '2021', '年', '用', '了', 'GPT-3', '模', '型', '。']
    """
    return _split_runs(line, _pattern(False))


def char_tokenize(line: str) -> List[str]:
    """As :func:`cjk_tokenize`, and every Thai, Lao, Khmer or Myanmar character (with its marks) a token."""
    return _split_runs(line, _pattern(True))


def meteor_tokenize(line: str) -> List[str]:
    """Meteor 1.5's split: ``java.util.StringTokenizer``'s delimiters " \\t\\n\\r\\f" only."""
    return [t for t in _R_SPLIT.split(line) if t]


# ---------------------------------------------------------------------------
# Segmenters behind extras (imported when first used)
# ---------------------------------------------------------------------------


def _need(module: str, extra: str, what: str) -> ConfigError:
    name = {"zh": "jieba", "ja": "mecab", "th": "pythainlp", "ko": "kiwi"}[extra]
    return ConfigError(
        f"tokeniser {name!r} needs {what} (Python module {module!r}), which is not installed: "
        f"pip install 'meteor-lite[{extra}]'"
    )


def _words(tokens: List[str]) -> List[str]:
    """Segmenter output without white-space tokens, each token split on white space it holds."""
    return [t for tok in tokens for t in _R_SPLIT.split(tok) if t]


def _arabic() -> Callable[[str], List[str]]:
    from .arabic import arabic_tokenize

    return arabic_tokenize


def _jieba() -> Callable[[str], List[str]]:
    try:
        import jieba  # type: ignore[import-not-found]
    except ImportError:
        raise _need("jieba", "zh", "jieba") from None
    jieba.setLogLevel(60)
    return lambda line: _words(jieba.lcut(line, HMM=True))


def _mecab() -> Callable[[str], List[str]]:
    try:
        import fugashi  # type: ignore[import-not-found]
    except ImportError:
        raise _need("fugashi", "ja", "fugashi and unidic-lite") from None
    try:
        tagger = fugashi.Tagger()
    except RuntimeError as exc:  # no dictionary
        raise ConfigError(f"tokeniser 'mecab': {exc} (pip install 'meteor-lite[ja]' installs unidic-lite)") from None
    return lambda line: _words([w.surface for w in tagger(line)])


def _pythainlp() -> Callable[[str], List[str]]:
    try:
        from pythainlp.tokenize import word_tokenize  # type: ignore[import-not-found]
    except ImportError:
        raise _need("pythainlp", "th", "PyThaiNLP") from None
    return lambda line: _words(word_tokenize(line, engine="newmm", keep_whitespace=False))


def _kiwi() -> Callable[[str], List[str]]:
    try:
        from kiwipiepy import Kiwi  # type: ignore[import-not-found]
    except ImportError:
        raise _need("kiwipiepy", "ko", "kiwipiepy") from None
    kiwi = Kiwi()
    return lambda line: _words([t.form for t in kiwi.tokenize(line)])


@dataclass(frozen=True)
class Tokenizer:
    """A named tokeniser: ``load()`` returns the function ``line -> tokens``."""

    name: str
    description: str
    load: Callable[[], Callable[[str], List[str]]]
    extra: Optional[str] = None


#: Every tokeniser, by name.
TOKENIZERS: Dict[str, Tokenizer] = {
    t.name: t
    for t in (
        Tokenizer("meteor", "Meteor 1.5: white space only", lambda: meteor_tokenize),
        Tokenizer("cjk", "every CJK ideograph, kana and CJK punctuation mark a token", lambda: cjk_tokenize),
        Tokenizer("char", "as cjk, and every Thai/Lao/Khmer/Myanmar character a token", lambda: char_tokenize),
        Tokenizer("arabic", "Arabic script: diacritics, tatweel and letter variants normalised, Arabic punctuation split",
                  lambda: _arabic()),
        Tokenizer("jieba", "jieba word segmentation (Chinese)", _jieba, "zh"),
        Tokenizer("mecab", "MeCab (fugashi, unidic-lite) word segmentation (Japanese)", _mecab, "ja"),
        Tokenizer("pythainlp", "PyThaiNLP newmm word segmentation (Thai)", _pythainlp, "th"),
        Tokenizer("kiwi", "Kiwi (kiwipiepy) morphemes (Korean)", _kiwi, "ko"),
    )
}

_LOADED: Dict[str, Callable[[str], List[str]]] = {}


def tokenizer_names() -> Tuple[str, ...]:
    """Names of every tokeniser."""
    return tuple(TOKENIZERS)


def get_tokenizer(name: str) -> Callable[[str], List[str]]:
    """The function ``line -> tokens`` of a tokeniser; :class:`ConfigError` for an unknown name or a missing extra."""
    if not isinstance(name, str):
        raise TypeError(f"tokenize takes a tokeniser's name (a str), not {type(name).__name__}")
    key = name.strip().lower()
    fn = _LOADED.get(key)
    if fn is None:
        tok = TOKENIZERS.get(key)
        if tok is None:
            raise ConfigError(f"unknown tokeniser {name!r} (choose from {', '.join(TOKENIZERS)})")
        fn = _LOADED[key] = tok.load()
    return fn
