"""Paraphrase pairs from a thesaurus: the members of one meaning line paraphrase each other.

The synonym stage compares single words, so a thesaurus' multi-word members ("im Jahr", "positiv
bewerten") only reach the score through the paraphrase stage.  From each meaning line of a
:class:`~..synonyms.mythes.Thesaurus` (lines with the same members taken once), every ordered pair
of distinct members of which at least one has several words becomes a pair ``(phrase, paraphrase)``
(pairs of two single words are the synonym stage's), with Meteor's filters (those its Parex applies,
:mod:`.pivot`): no phrase holding an ASCII punctuation character, no phrase made only of the
bundle's function words, no pair where one phrase is a contiguous run of words of the other.
Meaning lines of more than ``max_set_size`` members are left out, as for synonym sets.

A thesaurus gives no probabilities: every pair gets 1.0 (the scorer does not read them).  Rows
come in UTF-16 order of ``(phrase, paraphrase)``, the order of Meteor's own tables.
"""

from __future__ import annotations

import string
from typing import AbstractSet, Dict, List, Set, Tuple

from meteor_lite.jarcompat import utf16_sort_key as java_key

from ..synonyms.mythes import DEFAULT_MAX_SET_SIZE, Thesaurus

__all__ = ["thesaurus_pairs"]

_SYMBOLS = frozenset(string.punctuation)


def _contained(a: str, b: str) -> bool:
    pa, pb = f" {a} ", f" {b} "
    return pb in pa if len(pa) >= len(pb) else pa in pb


def thesaurus_pairs(
    thesaurus: Thesaurus, *, function_words: AbstractSet[str] = frozenset(), max_set_size: int = DEFAULT_MAX_SET_SIZE
) -> Tuple[List[Tuple[str, str, float]], Dict[str, int]]:
    """The filtered ``(phrase, paraphrase, 1.0)`` rows of a thesaurus (see the module docstring) and counts."""
    counts = {"meaning_lines": 0, "lines_too_large": 0, "symbols": 0, "function_words_only": 0, "contained": 0}
    seen: Set[Tuple[str, ...]] = set()
    pairs: Set[Tuple[str, str]] = set()
    for m in thesaurus.meanings:
        members = tuple(sorted({" ".join(t) for t in m.members}))
        if members in seen:
            continue
        seen.add(members)
        if not any(" " in x for x in members):
            continue
        counts["meaning_lines"] += 1
        if len(members) > max_set_size:
            counts["lines_too_large"] += 1
            continue
        ok: List[str] = []
        for x in members:
            if not _SYMBOLS.isdisjoint(x):
                counts["symbols"] += 1
            elif function_words and all(w in function_words for w in x.split(" ")):
                counts["function_words_only"] += 1
            else:
                ok.append(x)
        for a in ok:
            for b in ok:
                if a == b or (" " not in a and " " not in b):
                    continue
                if _contained(a, b):
                    counts["contained"] += 1
                    continue
                pairs.add((a, b))
    rows = [(a, b, 1.0) for a, b in sorted(pairs, key=lambda p: (java_key(p[0]), java_key(p[1])))]
    counts["pairs"] = len(rows)
    counts["phrases"] = len({a for a, _, _ in rows})
    return rows, counts

