"""A bundle's look-up tables read whole into memory, for long-running scorers (``Meteor(..., preload=True)``).

By default the scorer looks words and phrases up in the bundle's SQLite indexes as it meets them
(:mod:`meteor_lite.resources.lookups`): nothing is loaded up front and memory stays small, but each new
sentence costs a few indexed queries.  A process that scores new sentence pairs one call at a time for a
long while (minimum-Bayes-risk decoding, rewards in reinforcement learning, a tuning loop, a server) can
read the stem map, the synonym tables and the paraphrase table once instead: :class:`TablesInMemory`
answers the same four look-ups as :class:`~meteor_lite.resources.bundle.Bundle`, with the same results,
from dictionaries (English: about 1.5 s and 250 MB, where the Meteor 1.5 jar loads its tables into a
1.2 GB heap at every start).
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, Iterable, List, Protocol, Sequence, Set, Tuple

from .bundle import Bundle

__all__ = ["LookupTables", "TablesInMemory"]


class LookupTables(Protocol):
    """The look-ups :class:`~meteor_lite.resources.lookups.Resources` makes of a bundle."""

    def stems(self, words: Iterable[str]) -> Dict[str, str]:
        """Stems recorded for ``words`` (words the map lacks are absent from the result)."""

    def synsets(self, words: Iterable[str]) -> Dict[str, FrozenSet[int]]:
        """Synset ids of each of ``words`` that has some."""

    def synonym_exceptions(self, forms: Iterable[str]) -> Dict[str, List[str]]:
        """Base forms of each inflected form listed in WordNet's exception lists."""

    def paraphrase_entries(self, phrases: Sequence[str]) -> Tuple[Dict[str, str], Set[str]]:
        """Each phrase's table entry (when it has paraphrases), and the phrases that begin a longer one."""


class TablesInMemory:
    """The stem map, synonym tables and paraphrase table of ``bundle`` as dictionaries (only those asked for)."""

    def __init__(self, bundle: Bundle, *, stems: bool = True, synonyms: bool = True, paraphrases: bool = True):
        self._stems: Dict[str, str] = dict(bundle.table_rows("stems")) if stems else {}
        self._synsets: Dict[str, FrozenSet[int]] = {}
        self._exceptions: Dict[str, List[str]] = {}
        if synonyms:
            grouped: Dict[str, List[int]] = {}
            for word, synset in bundle.table_rows("synsets"):
                grouped.setdefault(word, []).append(synset)
            self._synsets = {w: frozenset(s) for w, s in grouped.items()}
            for form, base in bundle.table_rows("synonym_exceptions"):
                self._exceptions.setdefault(form, []).append(base)
        self._entries: Dict[str, str] = {}
        self._prefixes: Set[str] = set()
        #: Whether the paraphrase table is held (:meth:`paraphrase_walk` reads it).
        self.has_paraphrases = paraphrases
        if paraphrases:
            entries, prefixes = self._entries, self._prefixes
            for phrase, prefix, joined in bundle.table_rows("paraphrases"):
                if joined is not None:
                    entries[phrase] = joined
                if prefix:
                    prefixes.add(phrase)

    def stems(self, words: Iterable[str]) -> Dict[str, str]:
        """As :meth:`Bundle.stems`."""
        table = self._stems
        return {w: table[w] for w in words if w in table}

    def synsets(self, words: Iterable[str]) -> Dict[str, FrozenSet[int]]:
        """As :meth:`Bundle.synsets`."""
        table = self._synsets
        return {w: table[w] for w in words if w in table}

    def synonym_exceptions(self, forms: Iterable[str]) -> Dict[str, List[str]]:
        """As :meth:`Bundle.synonym_exceptions`."""
        table = self._exceptions
        return {f: list(table[f]) for f in forms if f in table}

    def paraphrase_walk(self, kernels: Any, sentences: Sequence[Sequence[str]], max_len: int) -> List[List[Tuple[int, int, str]]]:
        """Each sentence's table phrases, by start then length, found by the compiled walk over the held table
        (``kernels.walk_held``): what :meth:`Resources._walk <meteor_lite.resources.lookups.Resources._walk>` finds."""
        found: List[List[Tuple[int, int, str]]] = kernels.walk_held(list(sentences), self._entries, self._prefixes, max_len)
        return found

    def paraphrase_entries(self, phrases: Sequence[str]) -> Tuple[Dict[str, str], Set[str]]:
        """As :meth:`Bundle.paraphrase_entries`."""
        entries, prefixes = self._entries, self._prefixes
        return {p: entries[p] for p in phrases if p in entries}, {p for p in phrases if p in prefixes}
