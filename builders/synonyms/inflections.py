"""How an inflected word reaches a thesaurus entry: morphological exceptions from a stem or lemma map.

Thesauri list base forms ("Haus"), segments hold inflected ones ("Häusern").  The scorer's
synonym stage gives a word its own synonym sets plus those of its base forms, and it finds base
forms in the bundle's morphological exceptions (``synonym_exceptions``: form -> base), falling back
to WordNet's English detachment rules only for words without exceptions
(:meth:`meteor_lite.resources.lookups.Resources.synsets`).  So the builder writes, for every word
of the bundle's stem map (a Snowball stem map over wordfreq's list, or a lemma map), an exception
``(form, base)`` for each synonym-set word ``base`` with the same key, where the key of a word is
its stem (or lemma) in the map, the word itself when the map lacks it.  Two words then match in the
synonym stage when they share a synonym set after this normalisation: Meteor's contract, unchanged.

The scorer tries WordNet's English detachment rules (``-s``, ``-es``, ``-er``, ``-ed``, ``-ing``, ...) only for
words without exceptions.  For another language they reach wrong base forms (German "der" and "des"
both reach "de" by ``-er`` / ``-s``), so a map word that the rules would take to a synonym-set word
its stem or lemma does not link it to gets the exception ``(word, word)``: its base forms are its own,
and the rules are not tried (``blocked`` in the counts).  The scorer is unchanged.
"""

from __future__ import annotations

from typing import AbstractSet, Dict, Iterable, List, Set, Tuple

from meteor_lite.resources.lookups import morph_candidates

__all__ = ["inflection_exceptions"]


def inflection_exceptions(
    synonym_words: Iterable[str], stem_pairs: Iterable[Tuple[str, str]], *, max_bases: int = 8,
    unlinked: AbstractSet[str] = frozenset(),
) -> Tuple[List[Tuple[str, str]], Dict[str, int]]:
    """``(form, base)`` pairs linking the words of a stem/lemma map to synonym-set words of the same key.

    ``stem_pairs`` are the map's ``(word, stem or lemma)`` rows.  A form whose key is shared by
    more than ``max_bases`` synonym-set words gets none (a stem that conflates that many entries
    says nothing about which one a form belongs to), nor does a form of ``unlinked`` (the bundle's function
    words).  Returns the sorted pairs and counts.
    """
    words: Set[str] = set(synonym_words)
    key_of: Dict[str, str] = {}
    for w, s in stem_pairs:
        key_of[w] = s
    bases_by_key: Dict[str, List[str]] = {}
    for b in sorted(words):
        bases_by_key.setdefault(key_of.get(b, b), []).append(b)
    pairs: Set[Tuple[str, str]] = set()
    linked: Set[str] = set()
    crowded = 0
    for form, key in key_of.items():
        bases = bases_by_key.get(key)
        if not bases or form in unlinked:
            continue
        if len(bases) > max_bases:
            crowded += 1
            continue
        for b in bases:
            if b != form:
                pairs.add((form, b))
                linked.add(form)
    blocked = 0
    for form in key_of:
        if form not in linked and any(c in words and c != form for c in morph_candidates(form)):
            pairs.add((form, form))
            blocked += 1
    counts = {
        "exceptions": len(pairs),
        "forms": len({f for f, _ in pairs}),
        "forms_with_too_many_bases": crowded,
        "blocked": blocked,
        "max_bases": max_bases,
    }
    return sorted(pairs), counts
