"""The pure-Python snowball stemmers (``snowballstemmer``), by algorithm name and by language code."""

from __future__ import annotations

from typing import Callable, Dict, Optional

from ..languages import snowball_name

__all__ = ["snowball_classes", "snowball_algorithm_for", "snowball_stem_function"]


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
