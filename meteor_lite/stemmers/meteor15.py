"""Meteor 1.5's stemmers as the jar runs them: its Snowball algorithms, Java's UTF-16 strings, one per thread.

What the jar does, established by running it (``java -cp meteor-1.5.jar Stemmer LANG``):

- each language is stemmed by the Snowball algorithm of 2007 the jar carries
  (:mod:`meteor_lite.stemmers.snowball2007`; English: ``snowballstemmer`` 2.2.0, which agrees with it);
- a Java string is a sequence of UTF-16 code units, so a word with a character beyond U+FFFF is stemmed
  as its surrogate pairs (its length, the regions R1/R2 and every cursor count two units for such a
  character); :class:`Meteor15Stemmer` stems such a word in that form and joins the pairs again;
- the scorer stems every word; the jar's standalone ``Stemmer`` program (``meteor-jar-stemmer``) leaves
  a token alone when :func:`is_jar_number` holds for it.

The stemmer objects of the Snowball runtime keep their state between calls, so each thread gets its own
(Meteor's wrapper is ``synchronized`` for the same reason).

English runs compiled when :mod:`meteor_lite.stemmers.compiled` has its extension (the same stems; a word it
declines, such as one with a character beyond U+FFFF, is stemmed here in pure Python).
"""

from __future__ import annotations

import importlib
import re
import threading
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import compiled as _compiled

__all__ = ["METEOR15_ALGORITHMS", "Meteor15Stemmer", "meteor15_stemmer", "stemmer_class", "is_jar_number"]

#: The Snowball algorithms Meteor 1.5 stems with (its 15 stemmed languages).
METEOR15_ALGORITHMS: Tuple[str, ...] = (
    "danish", "dutch", "english", "finnish", "french", "german", "hungarian", "italian",
    "norwegian", "portuguese", "romanian", "russian", "spanish", "swedish", "turkish",
)

_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")
_NUMBER_PUNCT = frozenset(",.-")


def is_jar_number(token: str) -> bool:
    """True when the jar's ``Stemmer`` program leaves ``token`` unstemmed.

    That program skips a token whose every UTF-16 unit is a decimal digit (Java's
    ``Character.isDigit``: category Nd) or one of ``, . -``.  A character beyond U+FFFF is two
    surrogate units, never digits, in Java.
    """
    return all((c.isdecimal() and c <= "\uffff") or c in _NUMBER_PUNCT for c in token)


def _as_utf16_units(word: str) -> str:
    """``word`` with each character beyond U+FFFF written as its two surrogate code points."""
    return _ASTRAL.sub(lambda m: _surrogates(ord(m.group())), word)


def _surrogates(cp: int) -> str:
    cp -= 0x10000
    return chr(0xD800 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF))


def _joined_pairs(units: str) -> str:
    """The inverse of :func:`_as_utf16_units`: surrogate pairs joined; a lone surrogate stays as it is."""
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def stemmer_class(algorithm: str) -> type:
    """The Snowball stemmer class Meteor 1.5 uses for ``algorithm`` (one of :data:`METEOR15_ALGORITHMS`)."""
    if algorithm not in METEOR15_ALGORITHMS:
        raise ValueError(f"Meteor 1.5 has no {algorithm!r} stemmer (it has {', '.join(METEOR15_ALGORITHMS)})")
    if algorithm == "english":
        from snowballstemmer.english_stemmer import EnglishStemmer

        return EnglishStemmer
    module = importlib.import_module(f"{__package__}.snowball2007.{algorithm}")
    cls: type = getattr(module, algorithm.capitalize() + "Stemmer")
    return cls


class Meteor15Stemmer:
    """``stem(word)`` as Meteor 1.5 stems it, for one language; safe to share between threads."""

    def __init__(self, algorithm: str):
        if algorithm not in METEOR15_ALGORITHMS:
            stemmer_class(algorithm)  # raises ValueError naming the algorithms there are
        self.algorithm = algorithm
        #: The Snowball class, imported when a word first needs it: with the compiled English stemmer that may be
        #: never, and importing ``snowballstemmer`` (every algorithm it has) took 19 ms of each English start.
        self._cls: Optional[type] = None
        self._local = threading.local()
        self._english = algorithm == "english"

    def _stemmer(self) -> Any:
        st = getattr(self._local, "stemmer", None)
        if st is None:
            if self._cls is None:
                self._cls = stemmer_class(self.algorithm)
            st = self._local.stemmer = self._cls()
        return st

    def _compiled(self) -> Optional[_compiled.CompiledEnglish]:
        """The compiled English stemmer when it stems for this language and is in use (read at each call)."""
        return _compiled.english if self._english else None

    def __call__(self, word: str) -> str:
        """The stem of ``word``."""
        fast = self._compiled()
        if fast is not None:
            found = fast.stem(word)
            if found is not None:
                return found
        return self._pure(word)

    def stem_words(self, words: Sequence[str]) -> List[str]:
        """The stem of each of ``words`` (as :meth:`__call__`; compiled English in one call)."""
        fast = self._compiled()
        if fast is None:
            return [self._pure(w) for w in words]
        stems = fast.stem_words(words)
        return [s if s is not None else self._pure(w) for w, s in zip(words, stems)]

    def _pure(self, word: str) -> str:
        """The stem of ``word`` by the pure-Python Snowball stemmer (the reference)."""
        stemmer = self._stemmer()
        if _ASTRAL.search(word) is None:
            stem: str = stemmer.stemWord(word)
            return stem
        return _joined_pairs(stemmer.stemWord(_as_utf16_units(word)))


_SHARED: Dict[str, Meteor15Stemmer] = {}
_SHARED_LOCK = threading.Lock()


def meteor15_stemmer(algorithm: str) -> Meteor15Stemmer:
    """The (shared, thread-safe) Meteor 1.5 stemmer of ``algorithm``; :class:`ValueError` for another name."""
    with _SHARED_LOCK:
        found = _SHARED.get(algorithm)
        if found is None:
            found = _SHARED[algorithm] = Meteor15Stemmer(algorithm)
        return found
