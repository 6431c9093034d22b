"""How many candidate matches a segment has, counted without creating them, to choose the beam search or bounded mode.

Counting stops early: the result is exact up to ``limit`` and, once larger,
only known to be larger.  The one-word modules are counted exactly from
position tables in time linear in the segment; synonyms and paraphrases first
by a quick upper bound, and exactly when that bound is large (over :data:`EXACT_ABOVE` or
over ``limit``) but not by far (more than :data:`FAR` times ``limit`` counts as above it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

from ..jarcompat import java_string_hash, java_string_hashes
from .matches import iter_phrase_matches, modules_used, positions_of, synonym_positions, synset_index
from .modules import module

if TYPE_CHECKING:
    from ..resources.lookups import Resources

__all__ = ["count_candidates", "FAR", "EXACT_ABOVE", "exact_count", "stem_count", "synonym_count", "paraphrase_count"]

#: An upper bound this many times over the limit is taken as over the limit without an exact count.
FAR = 20
#: Upper bounds up to this are taken as they are (when within the limit); larger ones are counted exactly
#: (synonyms shared by many words, paraphrases of common first words overcount a lot).
EXACT_ABOVE = 50_000


def count_candidates(
    hyp: Sequence[str], ref: Sequence[str], modules: Sequence[str], res: Resources, limit: int,
    folded: Optional[Tuple[Sequence[str], Sequence[str]]] = None,
) -> int:
    """The candidates :func:`~meteor_lite.align.matches.collect_matches` would return: exact up to ``limit``
    (``folded`` as there).  Each module's count is its registry record's (:mod:`meteor_lite.align.modules`)."""
    hk = java_string_hashes(hyp)
    rk = java_string_hashes(ref)
    if folded is not None:
        hyp, ref = folded
    total = 0
    for mod in modules_used(hk, rk, modules):
        total += module(mod).count_function()(hyp, ref, hk, rk, res, limit - total)
        if total > limit:
            break
    return total


# The counts of the registry's modules: ``(hyp, ref, hk, rk, res, left)`` as count_candidates passes them.


def _exact_pairs(hk: List[int], rk: List[int]) -> int:
    hpos = positions_of(hk)
    return sum(len(hpos.get(w, ())) for w in rk)


def exact_count(hyp: Sequence[str], ref: Sequence[str], hk: List[int], rk: List[int], res: Resources, left: int) -> int:
    """Exact candidates: pairs of the same word."""
    return _exact_pairs(hk, rk)


def stem_count(hyp: Sequence[str], ref: Sequence[str], hk: List[int], rk: List[int], res: Resources, left: int) -> int:
    """Stem candidates: pairs of the same stem, less the pairs of the same word (same word implies same stem)."""
    spos = positions_of(java_string_hashes(res.stems(hyp)))
    same_stem = sum(len(spos.get(java_string_hash(x), ())) for x in res.stems(ref))
    return same_stem - _exact_pairs(hk, rk)


def synonym_count(hyp: Sequence[str], ref: Sequence[str], hk: List[int], rk: List[int], res: Resources, left: int) -> int:
    """Synonym candidates (exact up to ``left``)."""
    return _synonym_count(hyp, ref, hk, rk, res, left)


def paraphrase_count(hyp: Sequence[str], ref: Sequence[str], hk: List[int], rk: List[int], res: Resources, left: int) -> int:
    """Paraphrase candidates (exact up to ``left``), both directions."""
    return _paraphrase_count(hyp, ref, res, left)


def _synonym_count(
    hyp: Sequence[str], ref: Sequence[str], hk: List[int], rk: List[int], res: Resources, left: int
) -> int:
    """Synonym candidates (exact up to ``left``)."""
    yh, yr = res.synsets(hyp), res.synsets(ref)
    by_synset = synset_index(yh)
    bound = sum(len(by_synset.get(s, ())) for sj in yr for s in sj)
    if bound <= min(left, EXACT_ABOVE) or bound > FAR * max(left, 1):
        return bound
    count = 0
    for near in synonym_positions(yh, yr, hk, rk, None, by_synset):
        count += len(near)
        if count > left:
            break
    return count


def _paraphrase_count(hyp: Sequence[str], ref: Sequence[str], res: Resources, left: int) -> int:
    """Paraphrase candidates (exact up to ``left``), both directions."""
    if res.paraphrase_max_len <= 0 or not hyp or not ref:
        return 0
    sides = ((res.phrase_hits(ref), positions_of(hyp), tuple(hyp)), (res.phrase_hits(hyp), positions_of(ref), tuple(ref)))
    split = res.paraphrase_tokens
    bound = sum(len(other.get(p[0], ())) for hits, other, _ in sides for _, _, entry in hits for p in split(entry))
    if bound <= min(left, EXACT_ABOVE) or bound > FAR * max(left, 1):
        return bound
    count = 0
    for hits, other, words in sides:
        for _ in iter_phrase_matches(hits, other, words, None, split):
            count += 1
            if count > left:
                return count
    return count
