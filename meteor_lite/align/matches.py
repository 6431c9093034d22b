"""Candidate matches of the matcher modules (:mod:`meteor_lite.align.modules`), in Meteor's order.

All matches of all modules are collected first, each a phrase pair: a start
and length in the reference and in the hypothesis.  Meteor 1.5 specifics kept
here (each checked against the official jar):

* a reference identical to the hypothesis is matched by the first module only;
* words and stems are compared by their Java hash codes (``String.hashCode``),
  so the rare different words with equal hashes match as if identical;
* candidate order (module, then reference position, then hypothesis position;
  paraphrases in table order, reference-side phrases before hypothesis-side
  ones) decides ties in the search, exactly as the official matcher orders them.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, Hashable, Iterator, List, Optional, Sequence, Set, Tuple

from .. import accel
from ..jarcompat import java_string_hashes
from .modules import module

if TYPE_CHECKING:
    from ..resources.lookups import Paraphrases, PhraseHit, Resources

__all__ = [
    "Match", "collect_matches", "modules_used", "positions_of", "synset_index", "synonym_positions", "phrase_matches",
    "iter_phrase_matches", "scan_phrase_matches", "exact_positions", "stem_positions", "synonym_word_positions",
    "paraphrase_matches",
]


class Match:
    """A candidate match: ``rlen`` reference words at ``rstart`` ~ ``hlen`` hypothesis words at ``hstart``."""

    __slots__ = ("module", "rstart", "rlen", "hstart", "hlen", "gain", "dist")

    def __init__(self, module: int, rstart: int, rlen: int, hstart: int, hlen: int, exact_kind: bool):
        self.module = module
        self.rstart = rstart
        self.rlen = rlen
        self.hstart = hstart
        self.hlen = hlen
        # Search weight: 1 per word for exact matches, 1/2 (rounded down per side) otherwise.
        self.gain = (hlen + rlen) if exact_kind else (hlen // 2 + rlen // 2)
        self.dist = abs(rstart - hstart)

    def as_tuple(self) -> Tuple[int, int, int, int, int]:
        """(module, rstart, rlen, hstart, hlen)."""
        return (self.module, self.rstart, self.rlen, self.hstart, self.hlen)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Match(m{self.module} ref {self.rstart}+{self.rlen} ~ hyp {self.hstart}+{self.hlen})"


def positions_of(words: Sequence[Hashable]) -> Dict[Hashable, List[int]]:
    """Positions of each distinct item of ``words``."""
    kernels = accel.compiled
    if kernels is not None:
        return kernels.positions_of(words)
    pos: Dict[Hashable, List[int]] = {}
    for i, w in enumerate(words):
        pos.setdefault(w, []).append(i)
    return pos


def collect_matches(
    hyp: Sequence[str], ref: Sequence[str], modules: Sequence[str], res: Resources, cap: Optional[int] = None,
    folded: Optional[Tuple[Sequence[str], Sequence[str]]] = None,
) -> List[List[Match]]:
    """All candidate matches, grouped by reference start position, in Meteor's order.

    Words and stems are compared by their Java hash codes, as Meteor 1.5 does.
    With ``cap``, each module keeps at most ``cap`` candidates per reference
    position, among those nearest to it (bounded mode, see :mod:`meteor_lite.align.bounded`).
    ``folded`` (the case-aware modes, :data:`meteor_lite.config.CASE_RULE`): the lower-cased
    hypothesis and reference, which the stem, synonym and paraphrase modules look up instead of
    ``hyp`` and ``ref``; exact matching and the "other words only" rule of the later modules keep
    comparing ``hyp`` and ``ref`` as they are, so a word differing only in case is a stem match.
    """
    n2 = len(ref)
    cands: List[List[Match]] = [[] for _ in range(n2)]
    hk = java_string_hashes(hyp)
    rk = java_string_hashes(ref)
    lh, lr = folded if folded is not None else (hyp, ref)
    for mi, mod in enumerate(modules_used(hk, rk, modules)):
        spec = module(mod)
        if not spec.one_word:
            spec.candidate_function()(mi, lh, lr, res, cands, cap)
            continue
        exact = spec.exact_gain
        positions = spec.candidate_function()(lh, lr, hk, rk, res, cap)
        kernels = accel.compiled
        if kernels is not None:
            kernels.word_matches(cands, positions, mi, exact, Match)  # the loop below, in C
            continue
        for j, positions_j in enumerate(positions):
            if positions_j:  # most words have no candidate of a module
                here = cands[j]
                for i in positions_j:
                    here.append(Match(mi, j, 1, i, 1, exact))
    return cands


def modules_used(hk: List[int], rk: List[int], modules: Sequence[str]) -> Sequence[str]:
    """The modules that run: only the first when the reference is identical to the hypothesis."""
    return modules[:1] if hk == rk else modules


# The one-word matchers of the registry (meteor_lite.align.modules): for each reference word, the hypothesis
# positions the module matches it with (ascending).  ``hyp`` and ``ref`` are the words looked up (lower-cased in
# the case-aware modes), ``hk`` and ``rk`` the Java hashes of the words as given.


def exact_positions(
    hyp: Sequence[str], ref: Sequence[str], hk: List[int], rk: List[int], res: Resources, cap: Optional[int]
) -> List[Sequence[int]]:
    """The exact module: the same word (equal Java hashes of the words as given)."""
    hpos = positions_of(hk)
    if cap is None:
        return [hpos.get(w, ()) for w in rk]
    return [_nearest(hpos[w], j, cap) if w in hpos else () for j, w in enumerate(rk)]


def stem_positions(
    hyp: Sequence[str], ref: Sequence[str], hk: List[int], rk: List[int], res: Resources, cap: Optional[int]
) -> List[Sequence[int]]:
    """The stem module: another word with the same stem."""
    spos = positions_of(java_string_hashes(res.stems(hyp)))
    sr = java_string_hashes(res.stems(ref))
    wide = None if cap is None else 2 * cap
    out: List[Sequence[int]] = []
    for j, st in enumerate(sr):
        near: Sequence[int] = spos.get(st, ())
        if not near:
            out.append(near)
            continue
        if wide is not None:
            near = _nearest(near, j, wide)
        rw = rk[j]
        kept = [i for i in near if hk[i] != rw]
        out.append(kept if cap is None else _nearest(kept, j, cap))
    return out


def synonym_word_positions(
    hyp: Sequence[str], ref: Sequence[str], hk: List[int], rk: List[int], res: Resources, cap: Optional[int]
) -> List[Sequence[int]]:
    """The synonym module: another word sharing a synset."""
    return list(synonym_positions(res.synsets(hyp), res.synsets(ref), hk, rk, cap))


def synonym_positions(
    yh: Sequence[FrozenSet[int]], yr: Sequence[FrozenSet[int]], hk: List[int], rk: List[int], cap: Optional[int],
    by_synset: Optional[Dict[int, List[int]]] = None,
) -> Iterator[Sequence[int]]:
    """For each reference word, the hypothesis positions sharing a synset with it (other words only), ascending.

    ``by_synset``: the :func:`synset_index` of ``yh`` when the caller has it already.
    """
    if cap is None and by_synset is None and len(yh) * len(yr) <= _PAIRWISE_MAX:
        # a sentence: comparing every pair is quicker than an index
        kernels = accel.compiled
        if kernels is not None:
            yield from kernels.synonym_pairs(list(yh), list(yr), hk, rk)
            return
        # Only the hypothesis words with synsets are compared, and only with reference words that share one with
        # some hypothesis word (most share none).
        with_synsets = [(i, si, hk[i]) for i, si in enumerate(yh) if si]
        every = frozenset().union(*[si for _, si, _ in with_synsets])
        for j, sj in enumerate(yr):
            if not sj or every.isdisjoint(sj):
                yield []
                continue
            rw = rk[j]
            yield [i for i, si, h in with_synsets if h != rw and not si.isdisjoint(sj)]
        return
    if by_synset is None:
        by_synset = synset_index(yh)
    for j, sj in enumerate(yr):
        found: Set[int] = set()
        for syn in sj:
            near = by_synset.get(syn, ())
            found.update(near if cap is None or not near else _nearest(near, j, 2 * cap))
        rw = rk[j]
        kept = sorted(i for i in found if hk[i] != rw) if found else []
        yield kept if cap is None else _nearest(kept, j, cap)


def synset_index(yh: Sequence[FrozenSet[int]]) -> Dict[int, List[int]]:
    """Hypothesis positions of each synset id, ascending."""
    by_synset: Dict[int, List[int]] = {}
    for i, si in enumerate(yh):
        for syn in si:
            by_synset.setdefault(syn, []).append(i)
    return by_synset


#: Up to this many word pairs, synonyms are found by comparing every pair.
_PAIRWISE_MAX = 10_000


def _nearest(positions: Sequence[int], j: int, k: int) -> Sequence[int]:
    """The ``k`` items of the ascending ``positions`` nearest to ``j`` (the lower on ties), ascending."""
    if len(positions) <= k:
        return positions
    lo = hi = bisect_left(positions, j)
    while hi - lo < k:
        if lo > 0 and (hi >= len(positions) or j - positions[lo - 1] <= positions[hi] - j):
            lo -= 1
        else:
            hi += 1
    return positions[lo:hi]


def paraphrase_matches(
    mi: int, hyp: Sequence[str], ref: Sequence[str], res: Resources, cands: List[List[Match]], cap: Optional[int] = None
) -> None:
    """Add the paraphrase matches of module ``mi`` (both directions) to ``cands`` (``cap``: per phrase and side)."""
    if res.paraphrase_max_len <= 0 or not hyp or not ref:
        return
    # Reference phrases whose paraphrase occurs in the hypothesis, then the other way round.
    for j, k, i, pl in phrase_matches(res.phrase_hits(ref), tuple(hyp), res, cap):
        cands[j].append(Match(mi, j, k, i, pl, False))
    for i, k, j, pl in phrase_matches(res.phrase_hits(hyp), tuple(ref), res, cap):
        cands[j].append(Match(mi, j, pl, i, k, False))


def phrase_matches(
    hits: Sequence[PhraseHit], words: Tuple[str, ...], res: Resources, cap: Optional[int]
) -> Iterator[Tuple[int, int, int, int]]:
    """Where the paraphrases of one side's table phrases (``hits``) occur in the other side's ``words``.

    Yields ``(start, length, other start, other length)`` in Meteor's order (phrase by phrase,
    paraphrases in table order, positions ascending); with ``cap``, only the ``cap`` occurrences
    of a paraphrase's first word nearest to the phrase are tried.  Runs the compiled twin when it
    is in use and there is no cap (it reads the table entries as stored and returns the matches
    all at once: a caller that stops early iterates :func:`iter_phrase_matches`).
    """
    if cap is None:
        kernels = accel.compiled
        if kernels is not None:
            return iter(kernels.phrase_matches(list(hits), words))
        if _scannable(words):
            return scan_phrase_matches(hits, words, res.framed_paraphrases)
    return iter_phrase_matches(hits, positions_of(words), words, cap, res.paraphrase_tokens)


def _scannable(words: Sequence[str]) -> bool:
    """Whether ``words`` joined by single spaces mark every word boundary and only those: no word is empty or holds
    a space (what :func:`scan_phrase_matches` needs; the tokenisers never make such words, but a caller might)."""
    return "" not in words and " " not in "".join(words)


def iter_phrase_matches(
    hits: Sequence[PhraseHit], positions: Dict[Hashable, List[int]], words: Tuple[str, ...], cap: Optional[int],
    split: Callable[[str], Paraphrases],
) -> Iterator[Tuple[int, int, int, int]]:
    """:func:`phrase_matches` in pure Python, one match at a time; ``positions`` is :func:`positions_of`
    ``words`` and ``split`` turns a table entry into token tuples (:meth:`Resources.paraphrase_tokens`)."""
    for start, k, entry in hits:
        for para in split(entry):
            pl = len(para)
            starts = positions.get(para[0], ())
            for o in _nearest(starts, start, cap) if cap is not None and starts else starts:
                if words[o : o + pl] == para:
                    yield start, k, o, pl


def scan_phrase_matches(
    hits: Sequence[PhraseHit], words: Sequence[str], framed: Callable[[str], Tuple[str, ...]]
) -> Iterator[Tuple[int, int, int, int]]:
    """:func:`iter_phrase_matches` without a cap, found by substring search: ``words`` joined and framed by single
    spaces, each paraphrase framed by spaces (``framed``: :meth:`Resources.framed_paraphrases` of an entry) occurs
    in it exactly where its words occur in ``words``.  The few paraphrases that occur are the only ones looked at
    word by word; none is split into tokens.  ``words`` must pass :func:`_scannable`."""
    if not words:
        return
    text = " " + " ".join(words) + " "
    index_at: Dict[int, int] = {}
    offset = 1
    for i, w in enumerate(words):
        index_at[offset] = i
        offset += len(w) + 1
    find = text.find
    for start, k, entry in hits:
        for para in framed(entry):
            if para not in text:
                continue
            pl = para.count(" ") - 1
            at = find(para)
            while at >= 0:
                yield start, k, index_at[at + 1], pl
                at = find(para, at + 1)
