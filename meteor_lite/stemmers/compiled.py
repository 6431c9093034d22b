"""Which English stemmer runs: ``snowballstemmer`` 2.2.0's pure-Python one (the reference) or the same compiled.

``meteor_lite.stemmers._english`` (``meteor_lite/stemmers/_english.c``) binds the Snowball
compiler's C output for the same ``english.sbl`` (Snowball 2.2.0, vendored unchanged in
``meteor_lite/stemmers/snowball_c/``, whose README.md says how it was generated): the same
stems, some 70 times faster a word.  Building a wheel or installing from source compiles it when a C
compiler and the Python headers are there (setup.py; ``make accel`` in a checkout), as it does
the kernels of :mod:`meteor_lite.accel`.  When it is installed it is used, unless the
environment sets ``METEOR_LITE_PURE=1``, or unless it was built from other sources than those
beside it (a checkout updated since ``make accel``): then a warning says so and pure Python runs.

The compiled stemmer declines (returns None for) a word with a character beyond U+FFFF, a word
with a lone surrogate and a word of more than 16 MiB; :class:`~meteor_lite.stemmers.Meteor15Stemmer`
stems those in pure Python.  ``tests/test_stem_compiled.py`` compares both on real word lists.

:data:`english` is read at each call, so setting it to None (as the tests do) turns the compiled
stemmer off for the whole process.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Protocol, Sequence

from ..accel import load_checked
from .english_sources import SOURCES, sources_digest

__all__ = ["CompiledEnglish", "SOURCES", "english", "description", "sources_digest"]


class CompiledEnglish(Protocol):
    """What ``meteor_lite.stemmers._english`` provides (see ``_english.pyi``)."""

    SOURCE_SHA256: str
    MAX_BYTES: int

    def stem(self, word: str, /) -> Optional[str]:
        """The stem of ``word``, or None when the compiled stemmer declines it."""

    def stem_words(self, words: Sequence[str], /) -> List[Optional[str]]:
        """The stem of each word, None for each word it declines."""


#: Why the pure-Python stemmer runs when the compiled one is not loaded (for :func:`description`).
_why_pure = ""


def _load() -> Optional[CompiledEnglish]:
    """The compiled stemmer if it is installed, built from the sources beside it, and not turned off."""
    global _why_pure
    loaded, _why_pure = load_checked(f"{__package__}._english", sources_digest(Path(__file__).parent),
                                     "compiled English stemmer", "other sources")
    return loaded


#: The compiled English stemmer in use, or None for pure Python.
english: Optional[CompiledEnglish] = _load()


def description() -> str:
    """One line saying which English stemmer runs."""
    if english is not None:
        return "English stemmer compiled: meteor_lite.stemmers._english"
    return f"English stemmer in pure Python: {_why_pure}" if _why_pure else "English stemmer in pure Python"
