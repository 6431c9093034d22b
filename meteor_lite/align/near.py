"""The ``near`` matcher module: near misses, words whose characters largely agree.

Two words are a near match when they are different words (different Java hashes, as the stem module's "other
words only"), both have at least :data:`MIN_CHARS` characters, and their edit distance (insertions, deletions,
substitutions and swaps of two adjacent characters: the optimal string alignment distance) is at most the longer
word's length divided by :data:`LENGTH_PER_EDIT` (one edit per four characters).  It catches the spelling variants,
typos, transliterations and numbers written differently (``1,000`` ~ ``1000``) that no stemmer, synonym set or
paraphrase table aligns, and needs no resources.  It is never on in Meteor 1.5's configurations.  Its C matcher,
``near_matches`` in meteor_lite/accel_c/near.c, serves the pair kernel (``near_candidates``): the same rule on the
same characters.  The functions here are the Python path (pure Python, the compiled kernels or not): pairs the pair
kernel does not take (larger than ``bounded.SMALL_SEGMENT``) and the bounded mode's count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from .matches import _nearest
from .modules import module

if TYPE_CHECKING:
    from ..resources.lookups import Resources

__all__ = ["MIN_CHARS", "LENGTH_PER_EDIT", "near_words", "edit_distance", "near_positions", "near_positions_pure", "near_count"]

_PARAMS = dict(module("near").params)  # the registry's, which the C twin reads from the generated header
#: The shortest word a near match takes (characters, as Python counts them: code points).
MIN_CHARS: int = _PARAMS["MIN_CHARS"]
#: One edit allowed per this many characters of the longer word (rounded down).
LENGTH_PER_EDIT: int = _PARAMS["LENGTH_PER_EDIT"]


def edit_distance(a: str, b: str, limit: int) -> int:
    """The optimal string alignment distance of ``a`` and ``b`` when it is at most ``limit``, else ``limit + 1``."""
    la, lb = len(a), len(b)
    if abs(la - lb) > limit:
        return limit + 1
    prev2: List[int] = []
    prev = list(range(lb + 1))
    for i in range(1, la + 1):
        cur = [i] + [0] * lb
        ai = a[i - 1]
        best = i
        for j in range(1, lb + 1):
            cost = 0 if ai == b[j - 1] else 1
            d = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ai == b[j - 2] and a[i - 2] == b[j - 1] and prev2[j - 2] + 1 < d:
                d = prev2[j - 2] + 1
            cur[j] = d
            if d < best:
                best = d
        if best > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[lb] if prev[lb] <= limit else limit + 1


def near_words(a: str, b: str) -> bool:
    """Whether two different words are a near match (the rule of the module's docstring; equality is not tested)."""
    longer = max(len(a), len(b))
    if min(len(a), len(b)) < MIN_CHARS:
        return False
    limit = longer // LENGTH_PER_EDIT
    return edit_distance(a, b, limit) <= limit


def near_positions(
    hyp: Sequence[str], ref: Sequence[str], hk: List[int], rk: List[int], res: Resources, cap: Optional[int]
) -> List[Sequence[int]]:
    """For each reference word, the hypothesis positions of its near matches (ascending; other words only)."""
    return near_positions_pure(hyp, ref, hk, rk, cap)


def near_positions_pure(
    hyp: Sequence[str], ref: Sequence[str], hk: List[int], rk: List[int], cap: Optional[int]
) -> List[Sequence[int]]:
    """:func:`near_positions` in pure Python (the reference the pair kernel's ``near_matches`` is compared with)."""
    seen: Dict[Tuple[str, str], bool] = {}
    long_h = [(i, w) for i, w in enumerate(hyp) if len(w) >= MIN_CHARS]
    out: List[Sequence[int]] = []
    for j, r in enumerate(ref):
        if len(r) < MIN_CHARS or not long_h:
            out.append(())
            continue
        rw = rk[j]
        kept = []
        for i, h in long_h:
            if hk[i] == rw:
                continue
            key = (h, r)
            hit = seen.get(key)
            if hit is None:
                hit = seen[key] = near_words(h, r)
            if hit:
                kept.append(i)
        out.append(kept if cap is None else _nearest(kept, j, cap))
    return out


def near_count(hyp: Sequence[str], ref: Sequence[str], hk: List[int], rk: List[int], res: Resources, left: int) -> int:
    """The near candidates (all counted: the rule is cheap next to the search it is counted for)."""
    return sum(len(p) for p in near_positions(hyp, ref, hk, rk, res, None))
