"""The scorer's stemmers by name: ``snowballstemmer``'s algorithms and Meteor 1.5's own (``meteor15:<algorithm>``)."""

from __future__ import annotations

from typing import Callable, Dict, Optional

from ..languages import LANGUAGES, snowball_name

__all__ = [
    "METEOR15_PREFIX",
    "snowball_classes",
    "snowball_algorithm_for",
    "snowball_stem_function",
    "meteor15_stemmer_name",
    "stem_function",
]

#: A stemmer name that starts with this names one of Meteor 1.5's stemmers (:mod:`meteor_lite.stemmers`).
METEOR15_PREFIX = "meteor15:"


def snowball_classes() -> Dict[str, type]:
    """The pure-Python stemmer classes of ``snowballstemmer``, by algorithm name.

    ``snowballstemmer.stemmer()`` silently switches to PyStemmer (another
    Snowball release) when that is installed; scores must not depend on it.
    """
    import snowballstemmer

    langs = getattr(snowballstemmer, "_languages", None)
    if isinstance(langs, dict):
        return dict(langs)
    return {
        n: getattr(snowballstemmer, n.capitalize() + "Stemmer")
        for n in snowballstemmer.algorithms()
        if hasattr(snowballstemmer, n.capitalize() + "Stemmer")
    }


def snowball_algorithm_for(lang: str) -> Optional[str]:
    """The snowball algorithm the scorer uses for a language code, if snowballstemmer has it."""
    name = snowball_name(lang)
    return name if name is not None and name in snowball_classes() else None


def snowball_stem_function(name: Optional[str]) -> Optional[Callable[[str], str]]:
    """``stemWord`` of the pure-Python snowball algorithm ``name``, or None if there is none."""
    if not name:
        return None
    cls = snowball_classes().get(name)
    return cls().stemWord if cls is not None else None


def meteor15_stemmer_name(lang: str) -> Optional[str]:
    """``meteor15:<algorithm>`` when ``lang`` is one of the languages Meteor 1.5 stems, else None."""
    from ..stemmers import METEOR15_ALGORITHMS

    name = LANGUAGES[lang][1] if lang in LANGUAGES else None
    return METEOR15_PREFIX + name if name in METEOR15_ALGORITHMS else None


def stem_function(name: Optional[str]) -> Optional[Callable[[str], str]]:
    """The stem function a stemmer name gives: Meteor 1.5's (``meteor15:<algorithm>``), else snowballstemmer's."""
    if name and name.startswith(METEOR15_PREFIX):
        from ..stemmers import meteor15_stemmer

        return meteor15_stemmer(name[len(METEOR15_PREFIX):])
    return snowball_stem_function(name)
