"""Per-word resource lookups for the matchers, cached, backed by a bundle and the stemmer.

Every lookup is batched per segment (one indexed query for the words not yet
seen) and cached for the rest of the run, so a corpus costs a handful of
queries per new word and no whole table is loaded into memory, unless the scorer
asks for it (:meth:`Resources.hold_in_memory`, ``Meteor(..., preload=True)``).
"""

from __future__ import annotations

from operator import itemgetter
from sys import intern
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from .. import accel
from ..align.modules import modules_needing
from ..jarcompat import java_string_hashes
from ..text.normalize import java_lower
from .bundle import Bundle
from .mapped import MappedTables, open_mapped_tables
from .memory import LookupTables, TablesInMemory
from .schema import PARAPHRASE_SEPARATOR
from .stemming import stem_function

__all__ = ["Resources", "morph_candidates", "MORPH_RULES"]

#: Paraphrases of a phrase, each as a token tuple, in table order.
Paraphrases = Tuple[Tuple[str, ...], ...]
#: What the compiled pair kernel reads of a word (``_accel.make_records``, read by ``_accel.pack_words``): its Java
#: hash, the Java hash of its stem and its synset ids (when they are wanted), whether it is a function word and its
#: Java length, packed in a bytes object.
WordRecord = bytes
#: A table phrase found in a sentence: (start, length in words, its table entry).  The entry is the
#: paraphrases as the bundle stores them (joined by tabs, words by single spaces):
#: :meth:`Resources.paraphrase_tokens` splits it.
PhraseHit = Tuple[int, int, str]

EMPTY: FrozenSet[int] = frozenset()
#: Words (or phrases) a per-word cache holds before it is emptied: memory bounded on any corpus.
CACHE_MAX = 1_000_000
#: Sentences whose table phrases are kept beyond the call that looked them up (see
#: :meth:`Resources.paraphrase_table`; a call's own sentences are always kept until the next call), and whose
#: tokens :class:`~meteor_lite.Meteor` keeps: a few hundred short tuples, memory does not grow with the corpus.
RECENT_SENTENCES = 256
#: Parsed paraphrase entries the compiled kernels keep (:meth:`Resources.parsed_entries`; about 300 bytes each: on
#: system1, 8,192 took 1.2% of the instructions off a segment for 1 MB, all 32,493 2.5% for 11 MB).
PARSED_ENTRIES = 8_192
_START_LENGTH = itemgetter(0, 1)

#: WordNet's detachment rules (nouns, verbs, adjectives), tried in this order
#: to find a base form that has synsets when a word is not in the exception lists.
MORPH_RULES: Tuple[Tuple[str, str], ...] = (
    ("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"), ("ies", "y"),
    ("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""),
    ("er", ""), ("est", ""), ("er", "e"), ("est", "e"),
)


#: :data:`MORPH_RULES` by the last letter of their suffix, in order (most words end in none of them).
_RULES_BY_LAST: Dict[str, Tuple[Tuple[str, str], ...]] = {
    c: tuple(r for r in MORPH_RULES if r[0][-1] == c) for c in {suf[-1] for suf, _ in MORPH_RULES}
}


def morph_candidates(word: str) -> List[str]:
    """Base-form candidates of ``word``, in the order they are tried (may repeat)."""
    rules = _RULES_BY_LAST.get(word[-1:])
    if not rules or word.endswith("ss") or len(word.encode("utf-16-le")) <= 4:
        return []
    return [word[: len(word) - len(suf)] + end for suf, end in rules if word.endswith(suf)]


class Resources:
    """Cached lookups of stems, synonym sets and paraphrases for one language."""

    def __init__(self, bundle: Optional[Bundle], stemmer_name: Optional[str], use_stem_map: Optional[bool] = None):
        """Lookups in ``bundle`` (or none) with the stemmer named ``stemmer_name``.

        ``stemmer_name`` is a ``snowballstemmer`` algorithm or ``meteor15:<algorithm>`` (Meteor 1.5's
        own, :mod:`meteor_lite.stemmers`); ``use_stem_map`` says whether the bundle's stem map is read
        before the stemmer (default: whenever the bundle has one; see ``configure.uses_stem_map``).
        """
        self.bundle = bundle
        self._stem_fn = stem_function(stemmer_name)
        self.function_words: FrozenSet[str] = bundle.function_words() if bundle is not None else frozenset()
        self.nonbreaking: Dict[str, bool] = bundle.nonbreaking_prefixes() if bundle is not None else {}
        has_map = bundle is not None and bundle.has("stems")
        self.has_stem_map = has_map if use_stem_map is None else (use_stem_map and has_map)
        self.has_synonyms = bundle is not None and bundle.has("synsets")
        self.has_paraphrases = bundle is not None and bundle.has("paraphrases")
        self.paraphrase_max_len = bundle.paraphrase_max_length() if bundle is not None and self.has_paraphrases else 0
        self._stems: Dict[str, str] = {}
        self._syn: Dict[str, FrozenSet[int]] = {}
        #: phrase -> its table entry (paraphrases joined as stored; "" when the table lacks the phrase).
        self._para: Dict[str, str] = {}
        self._para_prefix: Dict[str, bool] = {}
        #: table entry -> its paraphrases as token tuples (split when first needed; the compiled matcher
        #: reads entries as they are and never needs this).
        self._para_split: Dict[str, Paraphrases] = {}
        #: One token tuple per paraphrase string (shared by every entry that lists it: less memory, fewer splits).
        self._para_tokens: Dict[str, Tuple[str, ...]] = {}
        #: table entry -> its paraphrases as strings framed by spaces (:meth:`framed_paraphrases`).
        self._para_framed: Dict[str, Tuple[str, ...]] = {}
        self._hits: Dict[Tuple[str, ...], List[PhraseHit]] = {}
        #: word -> whether it is a function word (its Java lower case in :attr:`function_words`).
        self._func: Dict[str, bool] = {}
        #: (stems wanted, synsets wanted) -> word -> its :data:`WordRecord` (:meth:`word_records`).
        self._records: Dict[Tuple[bool, bool], Dict[str, WordRecord]] = {}
        #: The compiled kernels' cache of parsed paraphrase entries (:meth:`parsed_entries`), made when first needed.
        self._parsed: Any = None
        #: The bundle's tables read whole (:meth:`hold_in_memory`) or mapped (:meth:`map_tables`), or None:
        #: look-ups query the bundle.
        self._tables: Optional[LookupTables] = None

    def _db(self) -> LookupTables:
        """Where look-ups go: the tables held in memory, else the bundle (only called when a resource flag
        says there is one)."""
        if self._tables is not None:
            return self._tables
        assert self.bundle is not None
        return self.bundle

    def hold_in_memory(self, modules: Sequence[str]) -> None:
        """Read the bundle's tables that ``modules`` use (the stem map, the synonym tables, the paraphrase table)
        into memory once: later look-ups of new words and phrases make no query, with the same results (see
        :mod:`meteor_lite.resources.memory`).  Nothing happens without a bundle or when they are held already."""
        if self.bundle is None or isinstance(self._tables, TablesInMemory):
            return
        self._tables = TablesInMemory(
            self.bundle,
            stems=self.has_stem_map and modules_needing(modules, "stem"),
            synonyms=self.has_synonyms and modules_needing(modules, "synonyms"),
            paraphrases=self.has_paraphrases and modules_needing(modules, "paraphrases"),
        )

    def map_tables(self) -> None:
        """Read look-ups from the bundle's mapped table file (:mod:`meteor_lite.resources.mapped`), written first
        when there is none: the same results as the bundle's queries, without SQLite and without loading anything.
        Nothing happens without a bundle, when tables are held or mapped already, or when no file can be had, nor
        without the compiled kernels: pure Python reads the file (:class:`MappedTables` has a pure-Python reader, the
        reference the tests compare the compiled one with) no faster than SQLite's batched queries on a corpus."""
        if self.bundle is None or self._tables is not None or accel.compiled is None:
            return
        self._tables = open_mapped_tables(self.bundle)

    @property
    def held_in_memory(self) -> bool:
        """Whether the bundle's tables are held in memory (:meth:`hold_in_memory`)."""
        return isinstance(self._tables, TablesInMemory)

    @property
    def queries_bundle(self) -> bool:
        """Whether look-ups query the bundle's SQLite file (neither mapped nor held in memory)."""
        return self.bundle is not None and self._tables is None

    @property
    def mapped(self) -> bool:
        """Whether look-ups read the bundle's mapped table file (:meth:`map_tables`)."""
        return isinstance(self._tables, MappedTables)

    @property
    def can_stem(self) -> bool:
        """True when words can be stemmed (a snowball stemmer or the bundle's stem map)."""
        return self._stem_fn is not None or self.has_stem_map

    def function_flags(self, words: Sequence[str]) -> List[bool]:
        """Whether each word is a function word (compared lower-cased, as Meteor does), cached per word."""
        cache = self._func
        try:
            return [cache[w] for w in words]
        except KeyError:
            pass
        if len(cache) > CACHE_MAX:  # bound memory on very large vocabularies
            cache.clear()
        new = [w for w in words if w not in cache]
        cache.update(zip(new, self._function_flags_of(new)))
        return [cache[w] for w in words]

    def _function_flags_of(self, words: Sequence[str]) -> List[bool]:
        """:meth:`function_flags` of ``words``, looked up (nothing cached)."""
        fw = self.function_words
        return [java_lower(w) in fw for w in words]

    def records_for(self, stem: bool, synonym: bool) -> Dict[str, WordRecord]:
        """The :data:`WordRecord` of each word seen so far, as :meth:`word_records` keeps them (nothing made)."""
        records = self._records.get((stem, synonym))
        return records if records is not None else self._records.setdefault((stem, synonym), {})

    def parsed_entries(self, kernels: Any) -> Any:
        """The compiled kernels' cache of parsed paraphrase entries for ``kernels.pack_words`` (a capsule of
        ``kernels.parse_cache``): an entry comes back in most sentences, and parsing it cost more than packing
        the rest of its sentence.  It keeps the first :data:`PARSED_ENTRIES` entries met (those of common words
        and phrases) and parses the others for each sentence."""
        if self._parsed is None:
            self._parsed = kernels.parse_cache(PARSED_ENTRIES)
        return self._parsed

    def word_records(self, words: Sequence[str], stem: bool, synonym: bool) -> Dict[str, WordRecord]:
        """The :data:`WordRecord` of each word seen so far (with its stem's hash when ``stem``, its synsets when
        ``synonym``), those of ``words`` made first when they are new: the compiled pair kernel packs a sentence
        from these in one call (:func:`meteor_lite.scoring.prepare_side`), instead of asking for each word's
        flags, hashes, stem and synsets apart.  The dict is emptied when it is full (memory stays bounded)."""
        records = self.records_for(stem, synonym)
        new = [w for w in words if w not in records]
        if not new:
            return records
        new = sorted(set(new))  # sorted: the bundle's indexes are read in order where they are queried
        if len(records) + len(new) > CACHE_MAX:
            records.clear()
        kernels = accel.compiled
        if kernels is None:
            raise RuntimeError("word records are read by the compiled kernels only (accel.compiled is None)")
        # Looked up directly, not through the per-word caches of stems() and synsets(): a record holds it all.
        kernels.make_records(
            records, new, java_string_hashes(new), java_string_hashes(self._stems_of(new)) if stem else None,
            self._synsets_of(new) if synonym else None, self._function_flags_of(new),
        )
        return records

    # -- stems -----------------------------------------------------------------
    def stems(self, words: Sequence[str]) -> List[str]:
        """Stem of each word: the bundle's stem map first (when it is read), the stemmer for the rest."""
        cache = self._stems
        try:
            return [cache[w] for w in words]  # the usual case once a block is prefetched
        except KeyError:
            pass
        if len(cache) > CACHE_MAX:  # bound memory on very large vocabularies
            cache.clear()
        missing = sorted({w for w in words if w not in cache})
        if missing:
            cache.update(zip(missing, self._stems_of(missing)))
        return [cache[w] for w in words]

    def _stems_of(self, words: Sequence[str]) -> List[str]:
        """:meth:`stems` of ``words``, looked up (nothing cached)."""
        found = self._db().stems(words) if self.has_stem_map and words else {}
        stem_fn = self._stem_fn
        out: List[str] = []
        for w in words:
            s = found.get(w)
            if s is None:
                s = stem_fn(w) if stem_fn is not None else w
            out.append(s)
        return out

    # -- synonyms --------------------------------------------------------------
    def synsets(self, words: Sequence[str]) -> List[FrozenSet[int]]:
        """Synset ids of each word: its own, plus those of its base form.

        The base form comes from the morphological exception lists when the word
        is listed there, and otherwise from the first detachment rule that yields
        a word with synsets.
        """
        cache = self._syn
        try:
            return [cache[w] for w in words]  # the usual case once a block is prefetched
        except KeyError:
            pass
        if len(cache) > CACHE_MAX:  # bound memory on very large vocabularies
            cache.clear()
        missing = sorted({w for w in words if w not in cache})
        if missing:
            cache.update(zip(missing, self._synsets_of(missing)))
        return [cache[w] for w in words]

    def _synsets_of(self, words: Sequence[str]) -> List[FrozenSet[int]]:
        """:meth:`synsets` of ``words``, looked up (nothing cached)."""
        tables = self._tables
        if not words or not self.has_synonyms or self.bundle is None:
            return [EMPTY] * len(words)
        if isinstance(tables, MappedTables) and accel.compiled is not None:
            return tables.synsets_with_bases(accel.compiled, list(words), MORPH_RULES)
        exceptions = self._db().synonym_exceptions(words)
        wanted = set(words)
        cands: Dict[str, List[str]] = {}
        for w in words:
            if w in exceptions:
                wanted.update(exceptions[w])
            else:
                cands[w] = morph_candidates(w)
                wanted.update(cands[w])
        table = self._db().synsets(wanted)
        out: List[FrozenSet[int]] = []
        for w in words:
            sets = set(table.get(w, EMPTY))
            if w in exceptions:
                for base in exceptions[w]:
                    sets.update(table.get(base, EMPTY))
            else:
                for c in cands[w]:
                    if c in table:
                        sets.update(table[c])
                        break
            out.append(frozenset(sets))
        return out

    # -- paraphrases -------------------------------------------------------------
    def phrase_hits(self, words: Sequence[str]) -> List[PhraseHit]:
        """The table phrases of ``words``: ``(start, length, paraphrases)`` by start, then length.

        Taken from a recent :meth:`paraphrase_table` call when it covered these words,
        else found by the same walk over these words alone.
        """
        hits = self._hits.get(tuple(words))
        return hits if hits is not None else self._walk([words])[0]

    def table_to_walk(self, kernels: Any) -> Optional[Tuple[Any, ...]]:
        """The paraphrase table as ``kernels.pack_words`` walks it for each sentence it packs, when the table is
        mapped (:meth:`MappedTables.walk_spec`); else None, and the sentence's :meth:`phrase_hits` are packed."""
        held = self._tables
        if self.has_paraphrases and isinstance(held, MappedTables) and held.has_paraphrases:
            return held.walk_spec(kernels, self.paraphrase_max_len)
        return None

    def paraphrase_tokens(self, entry: str) -> Paraphrases:
        """The paraphrases of a table entry (a :data:`PhraseHit`'s third item) as token tuples, in table order."""
        split = self._para_split.get(entry)
        if split is None:
            tokens = self._para_tokens
            split = tuple([
                tokens.get(p) or tokens.setdefault(p, tuple(map(intern, p.split(" "))))
                for p in entry.split(PARAPHRASE_SEPARATOR)
            ])
            self._para_split[entry] = split
        return split

    def framed_paraphrases(self, entry: str) -> Tuple[str, ...]:
        """The paraphrases of a table entry, in table order, each as ``" " + paraphrase + " "``: what the pure-Python
        matcher looks for in a sentence joined by spaces (:func:`meteor_lite.align.matches.scan_phrase_matches`)."""
        framed = self._para_framed.get(entry)
        if framed is None:
            framed = self._para_framed[entry] = tuple([f" {p} " for p in entry.split(PARAPHRASE_SEPARATOR)])
        return framed

    def paraphrase_table(self, sentences: Sequence[Sequence[str]]) -> Tuple[Dict[str, str], Dict[str, bool]]:
        """Look up every n-gram of ``sentences`` that can be a phrase of the paraphrase table.

        Walks the table like a trie, one length at a time: an n-gram is looked up
        only if its (n-1)-word prefix begins some phrase.  Returns the caches
        ``phrase -> table entry`` (paraphrases joined as stored; "" when none) and
        ``phrase -> begins a longer phrase``; remembers each sentence's phrases
        for :meth:`phrase_hits`: those of this call, and of earlier calls as long as they hold
        fewer than :data:`RECENT_SENTENCES` sentences in all (a sentence scored again soon, as the
        reference of an n-best list, is not walked again).
        """
        paras, prefix = self._para, self._para_prefix
        if len(paras) > CACHE_MAX:  # bound memory on very large corpora
            paras.clear()
            prefix.clear()
            self._para_split.clear()
            self._para_tokens.clear()
            self._para_framed.clear()
        hits = self._hits
        if len(hits) > RECENT_SENTENCES:
            hits.clear()
        keys = [tuple(s) for s in sentences]
        todo = [k for k in dict.fromkeys(keys) if k not in hits]
        if todo:
            for k, found in zip(todo, self._walk(todo)):
                hits[k] = found
        return paras, prefix

    def forget_walks(self) -> None:
        """Drop the table phrases remembered for :meth:`phrase_hits` when they are more than
        :data:`RECENT_SENTENCES` sentences' (the next :meth:`paraphrase_table` call would drop them anyway): a block
        of a corpus, once scored, leaves no thousands of lists behind for the garbage collector to visit."""
        if len(self._hits) > RECENT_SENTENCES:
            self._hits.clear()

    def _walk(self, sentences: Sequence[Sequence[str]]) -> List[List[PhraseHit]]:
        """Each sentence's table phrases, by start then length: the table walked like a trie, one length
        at a time for all sentences, looking up the n-grams not yet cached in one query per length."""
        if not self.has_paraphrases:
            return [[] for _ in sentences]
        kernels = accel.compiled
        held = self._tables
        if kernels is not None and isinstance(held, (TablesInMemory, MappedTables)) and held.has_paraphrases:
            return held.paraphrase_walk(kernels, sentences, self.paraphrase_max_len)  # one compiled call, no query
        paras, prefix = self._para, self._para_prefix
        hits: List[List[PhraseHit]] = [[] for _ in sentences]
        # (sentence, start, n-gram) of the n-grams still walked, one length at a time.
        active = [(k, i, w) for k, s in enumerate(sentences) for i, w in enumerate(s)]
        unknown = {g for _, _, g in active if g not in paras}
        listed = list(sentences)
        n = 1
        while active:
            if unknown:
                # Sorted: the table's index is then read in order (several times faster than at random).
                self._look_up(sorted(unknown))
            grow = n < self.paraphrase_max_len
            if kernels is not None:
                active, unknown = kernels.walk_level(active, paras, prefix, listed, n, grow, hits)
            else:
                active, unknown = self._walk_level(active, sentences, n, grow, hits)
            n += 1
        for h in hits:
            h.sort(key=_START_LENGTH)
        return hits

    def _walk_level(
        self, active: List[Tuple[int, int, str]], sentences: Sequence[Sequence[str]], n: int, grow: bool,
        hits: List[List[PhraseHit]],
    ) -> Tuple[List[Tuple[int, int, str]], Set[str]]:
        """One length of the walk: record the ``n``-grams of ``active`` that have paraphrases in ``hits``;
        with ``grow``, extend those that begin a longer phrase by one word.  Returns the extended
        n-grams and those of them not looked up yet."""
        paras, prefix = self._para, self._para_prefix
        longer: List[Tuple[int, int, str]] = []
        unknown: Set[str] = set()
        for k, i, g in active:
            found = paras[g]
            if found:
                hits[k].append((i, n, found))
            if grow and prefix[g]:
                s = sentences[k]
                if i + n < len(s):
                    ng = g + " " + s[i + n]
                    longer.append((k, i, ng))
                    if ng not in paras:
                        unknown.add(ng)
        return longer, unknown

    def _look_up(self, phrases: List[str]) -> None:
        """Fetch ``phrases`` from the bundle into the caches (an empty entry when absent)."""
        if not phrases:
            return
        found, begins = self._db().paraphrase_entries(phrases)
        self._para.update(dict.fromkeys(phrases, ""))
        self._para.update(found)
        prefix = self._para_prefix
        prefix.update(dict.fromkeys(phrases, False))
        prefix.update(dict.fromkeys(begins, True))
