"""The alignment search of Meteor 1.3+ (Denkowski & Lavie 2011, section 3), and chunk counting.

Matches that are the only candidate for every word they cover are fixed; the
rest are resolved by a left-to-right beam search over reference positions that
prefers, in order, more covered words, fewer chunks, and a smaller distance
between match positions.

Meteor 1.5 specifics reproduced here so that scores agree with the official
release (each was checked against the jar):

* the search ranks partial alignments by covered words weighted 1 for exact
  matches and 1/2 for the other modules, each side rounded down to an integer
  when a match is added (:attr:`Match.gain`);
* a candidate's position distance is charged to the path that *skips* it
  (and to later siblings), not to the path that takes it;
* ties between partial alignments keep their order of creation (a stable sort).

What bounds the work (and why the alignment stays the jar's): a partial alignment
extended at one reference position gets one child per usable candidate, and the
children of one parent that share a gain and a chunk count come out in
non-decreasing rank order (each later sibling carries the distances of the earlier
ones).  A child with at least ``beam`` earlier siblings ranked no worse can never be
among the ``beam`` partial alignments kept at the next step, so it is not created
(:func:`_expand_capped`).  This keeps exactly the beam the jar keeps, and bounds the
children per parent by ``beam`` per class instead of the number of candidates.
Segments whose candidates would still make the search too long are aligned in
*bounded* mode (:mod:`meteor_lite.align.bounded`), and flagged as such.

An optional compiled twin of this search (:mod:`meteor_lite.accel`) runs the same search in
C when it is installed; this module stays the reference and the default.  Both give the same
alignments (``tests/test_accel.py`` compares them on real data).
"""

from __future__ import annotations

import heapq
import math
from operator import itemgetter
from typing import Any, Dict, List, Sequence, Tuple

from .. import accel
from .matches import Match

__all__ = ["search_alignment", "search_alignment_pure", "count_chunks", "Plan"]

#: A partial alignment: (rank key, end of its last reference match, end of the last hypothesis match or -1,
#: used hypothesis bits, used reference bits, chosen-chain).  The search only asks whether the reference end lies
#: beyond the current position (which is then inside that match), so a skip need not move it.  The key is
#: ``-gain * gain_unit + chunks * chunk_unit + distance``: smaller ranks first.
Path = Tuple[Any, ...]
#: A candidate as the search reads it: (hyp bits, ref bits, hyp start, hyp end, ref end, gain in key units,
#: distance, the match, gain).
Step = Tuple[int, int, int, int, int, int, int, Match, int]
#: A fixed match as the search reads it: (hyp start, key change of its gain, distance, ref end, hyp end).
Fixed = Tuple[int, int, int, int, int]

_FIRST = itemgetter(0)


class Plan:
    """A segment's candidates prepared for the search: key units, per-position steps, fixed matches."""

    def __init__(self, n1: int, n2: int, cands: List[List[Match]], fixed: Dict[int, Match]):
        """Size the key so that distances never spill into chunks, nor chunks into gains."""
        total = sum(m.dist for lst in cands for m in lst) + 1
        self.chunk_unit = 1 << total.bit_length()
        self.gain_unit = self.chunk_unit << (n1 + n2 + 2).bit_length()
        gu = self.gain_unit
        if sum(len(lst) for lst in cands) > _SHARE_FROM:
            # one int per distinct mask or key change: 1.5 million steps of one repeated word have 1,224 masks of
            # up to 1,224 bits each
            shared: Dict[Tuple[int, int], int] = {}
            self.steps: List[List[Step]] = [
                [] if j in fixed else [_shared_step(m, gu, shared) for m in lst] for j, lst in enumerate(cands)
            ]
        else:
            self.steps = [[] if j in fixed else [_step(m, gu) for m in lst] for j, lst in enumerate(cands)]
        self.fixed: Dict[int, Fixed] = {
            j: (m.hstart, m.gain * gu, m.dist, m.rstart + m.rlen, m.hstart + m.hlen) for j, m in fixed.items()
        }


def _step(m: Match, gain_unit: int) -> Step:
    hmask = ((1 << m.hlen) - 1) << m.hstart
    # A one-word reference match needs no reference bit: the search never reads bits behind its position.
    rmask = ((1 << m.rlen) - 1) << m.rstart if m.rlen > 1 else 0
    return (hmask, rmask, m.hstart, m.hstart + m.hlen, m.rstart + m.rlen, m.gain * gain_unit, m.dist, m, m.gain)


#: Above this many candidates, a segment's steps share their masks (:func:`_shared_step`); below, the
#: masks are small and few, and sharing would only cost time.
_SHARE_FROM = 100_000


def _shared_step(m: Match, gain_unit: int, shared: Dict[Tuple[int, int], int]) -> Step:
    """:func:`_step` with its masks and key change taken from ``shared`` (one int object per value)."""
    hmask = _shared(shared, m.hstart, m.hlen)
    # A one-word reference match needs no reference bit: the search never reads bits behind its position.
    rmask = _shared(shared, m.rstart, m.rlen) if m.rlen > 1 else 0
    gk = _shared(shared, -1, m.gain * gain_unit)
    return (hmask, rmask, m.hstart, m.hstart + m.hlen, m.rstart + m.rlen, gk, m.dist, m, m.gain)


def _shared(shared: Dict[Tuple[int, int], int], start: int, length: int) -> int:
    """The mask of ``length`` bits from ``start`` (``start`` -1: the number ``length``), one int object per value."""
    key = (start, length)
    value = shared.get(key)
    if value is None:
        value = shared[key] = length if start < 0 else ((1 << length) - 1) << start
    return value


def search_alignment(n1: int, n2: int, cands: List[List[Match]], beam: int) -> List[Match]:
    """Choose the alignment: fix unambiguous matches, then beam-search the rest.

    ``n1``/``n2`` are the hypothesis/reference lengths and ``cands`` the
    candidates grouped by reference start (:func:`~meteor_lite.align.matches.collect_matches`).
    Returns the chosen matches ordered by reference position.  Runs the compiled twin when it
    is in use and the segment is in its range, else :func:`search_alignment_pure`.
    """
    kernels = accel.compiled
    if kernels is not None:
        got = kernels.search(n1, n2, cands, beam)
        if got is not None:
            return got
    return search_alignment_pure(n1, n2, cands, beam)


def search_alignment_pure(n1: int, n2: int, cands: List[List[Match]], beam: int) -> List[Match]:
    """:func:`search_alignment` in pure Python (the reference)."""
    fixed, used_h, used_r = _fix_unambiguous(n1, n2, cands)
    if all(not lst or j in fixed for j, lst in enumerate(cands)):
        # Nothing left to choose: every candidate is fixed.
        return [fixed[j] for j in sorted(fixed)]
    plan = Plan(n1, n2, cands, fixed)
    paths: List[Path] = [(0, 0, -1, used_h, used_r, None)]
    for cur in range(n2):
        here = plan.steps[cur]
        if not here:
            paths = _pass(paths, cur, plan, beam)
        elif len(here) > beam:
            paths = _expand_capped(paths, cur, here, plan, beam)
        else:
            paths = _advance(paths, cur, here, plan, beam)
    best = _best_path(paths, beam, plan.chunk_unit)
    chosen_list: List[Match] = list(fixed.values())
    node = best[5]
    while node is not None:
        chosen_list.append(node[0])
        node = node[1]
    chosen_list.sort(key=lambda m: m.rstart)
    return chosen_list


def _fix_unambiguous(n1: int, n2: int, cands: List[List[Match]]) -> Tuple[Dict[int, Match], int, int]:
    """The matches that are the only candidate for every word they cover, by reference start.

    Also returns the bit masks of the hypothesis and reference words they cover.
    """
    cov_h = [0] * n1
    cov_r = [0] * n2
    for lst in cands:
        for m in lst:
            for k in range(m.hstart, m.hstart + m.hlen):
                cov_h[k] += 1
            for k in range(m.rstart, m.rstart + m.rlen):
                cov_r[k] += 1
    fixed: Dict[int, Match] = {}
    used_h = 0
    used_r = 0
    for j, lst in enumerate(cands):
        if len(lst) != 1:
            continue
        m = lst[0]
        if all(cov_r[k] == 1 for k in range(m.rstart, m.rstart + m.rlen)) and all(
            cov_h[k] == 1 for k in range(m.hstart, m.hstart + m.hlen)
        ):
            fixed[j] = m
            used_h |= ((1 << m.hlen) - 1) << m.hstart
            used_r |= ((1 << m.rlen) - 1) << m.rstart
    return fixed, used_h, used_r


def _carried(path: Path, cur: int, plan: Plan) -> "Path | None":
    """A path whose reference word ``cur`` is covered already: unchanged inside a longer match, through
    the fixed match starting at ``cur`` (None when there is none: the path ends)."""
    if cur < path[1]:
        return path
    f = plan.fixed.get(cur)
    return None if f is None else _through_fixed(path, f, plan.chunk_unit)


def _through_fixed(path: Path, f: Fixed, chunk_unit: int) -> Path:
    """``path`` extended by the fixed match ``f`` (a new chunk unless it continues the path's last match)."""
    key, _, last, uh, ur, chosen = path
    if last != -1 and f[0] != last:
        key += chunk_unit
    return (key - f[1] + f[2], f[3], f[4], uh, ur, chosen)


def _pass(paths: List[Path], cur: int, plan: Plan, beam: int) -> List[Path]:
    """:func:`_advance` over a reference position without candidates: each of the best ``beam`` paths has one child.

    Where a fixed match starts, every path goes through it: none is inside a longer match (the fixed match is the
    only candidate covering this reference word) and every path has its reference bits (set from the start).
    Elsewhere a path is unchanged, unless the skip closes its open chunk; no path has a reference bit set here
    (bits ahead of a path's reference end are fixed matches', and no fixed match covers this word).
    """
    if len(paths) > 1:
        paths.sort(key=_FIRST)
    kept = paths[:beam] if len(paths) > beam else paths
    cu = plan.chunk_unit
    f = plan.fixed.get(cur)
    if f is not None:
        hs, change, rend, hend = f[0], f[2] - f[1], f[3], f[4]
        return [
            ((key + cu if last != -1 and last != hs else key) + change, rend, hend, uh, ur, chosen)
            for key, _, last, uh, ur, chosen in kept
        ]
    return [
        path if path[2] == -1 or path[1] > cur else (path[0] + cu, path[1], -1, path[3], path[4], path[5])
        for path in kept
    ]


def _advance(paths: List[Path], cur: int, here: Sequence[Step], plan: Plan, beam: int) -> List[Path]:
    """Extend the best ``beam`` paths over reference position ``cur`` (candidates ``here``)."""
    if len(paths) > 1:
        paths.sort(key=_FIRST)
    cu = plan.chunk_unit
    bit = 1 << cur
    nxt: List[Path] = []
    app = nxt.append
    for path in paths[:beam]:
        key, idx, last, uh, ur, chosen = path
        if ur & bit:
            if cur < idx:  # inside a longer match
                app(path)
                continue
            carried = _carried(path, cur, plan)
            if carried is not None:
                app(carried)
            continue
        # key: the child continues the chunk; keyc: it closes the chunk (a jump, or the skip).
        keyc = key + cu if last != -1 else key
        for hm, rm, hs, hend, rend, gk, d, m, _g in here:
            if uh & hm or ur & rm:
                continue
            app(((key if hs == last else keyc) - gk, rend, hend, uh | hm, ur | rm, (m, chosen)))
            key += d
            keyc += d
        app((keyc, idx + 1, -1, uh, ur, chosen))
    if not nxt:
        nxt.append(paths[0])
    return nxt


def _expand_capped(paths: List[Path], cur: int, here: Sequence[Step], plan: Plan, beam: int) -> List[Path]:
    """:func:`_advance` for a position with more than ``beam`` candidates, creating only children that can survive.

    A child is not created when ``beam`` paths already created (earlier, so first among equals)
    rank no worse: the next step's cut would remove it.  Two ways to know: ``beam`` earlier
    siblings with a gain at least as high and no more chunks, or the ``beam`` best keys created
    so far at this position (:class:`Cut`) being no worse than the best key the child could have.
    """
    if len(paths) > 1:
        paths.sort(key=_FIRST)
    cu = plan.chunk_unit
    bit = 1 << cur
    crowd = Crowd(here, plan.gain_unit)
    cut = Cut(beam)
    nxt: List[Path] = []
    for path in paths[:beam]:
        key, idx, last, uh, ur, chosen = path
        if ur & bit:
            carried = _carried(path, cur, plan)
            if carried is not None and cut.admits(carried[0]):
                nxt.append(carried)
            continue
        keyc = key + cu if last != -1 and last not in crowd.at else key
        if keyc - crowd.tail_gk[0] < cut.threshold:  # else no child of this path can be kept
            _capped_children(path, here, crowd, cu, beam, cut, nxt)
    if not nxt:
        nxt.append(paths[0])
    return nxt


class Cut:
    """The ``beam`` smallest keys of the paths created so far at one position (a max-heap of negated keys)."""

    def __init__(self, beam: int):
        """An empty cut: every key is admitted until ``beam`` are."""
        self.beam = beam
        self.heap: List[int] = []
        self.threshold: float = math.inf

    def admits(self, key: int) -> bool:
        """True (and the key is recorded) unless ``beam`` keys created earlier are <= ``key``."""
        if key >= self.threshold:
            return False
        heap = self.heap
        if len(heap) < self.beam:
            heapq.heappush(heap, -key)
            if len(heap) == self.beam:
                self.threshold = -heap[0]
        else:
            heapq.heappushpop(heap, -key)
            self.threshold = -heap[0]
        return True


class Crowd:
    """What :func:`_capped_children` needs at a crowded position to skip dominated candidates quickly."""

    def __init__(self, here: Sequence[Step], gain_unit: int):
        """Per candidate index: the highest gain from there on (also in key units); per hypothesis start: its indices."""
        self.hmasks = [st[0] for st in here]
        self.rmasks = [st[1] for st in here]
        self.dists = [st[6] for st in here]
        self.tail_gain = [-1] * (len(here) + 1)
        for k in range(len(here) - 1, -1, -1):
            self.tail_gain[k] = max(here[k][8], self.tail_gain[k + 1])
        #: The most a remaining candidate (or the skip, gain 0) can lower a key: a bound on any later child's key.
        self.tail_gk = [max(g, 0) * gain_unit for g in self.tail_gain]
        self.at: Dict[int, List[int]] = {}
        for k, st in enumerate(here):
            self.at.setdefault(st[2], []).append(k)

    def usable_distance(self, uh: int, ur: int, start: int, end: int) -> int:
        """The summed distance of the candidates ``start`` to ``end`` (exclusive) that fit a path's used words."""
        return sum(
            d for hm, rm, d in zip(self.hmasks[start:end], self.rmasks[start:end], self.dists[start:end])
            if not (uh & hm or ur & rm)
        )


def _capped_children(
    path: Path, here: Sequence[Step], crowd: Crowd, cu: int, beam: int, cut: Cut, out: List[Path]
) -> None:
    """The children of ``path`` that neither ``beam`` earlier siblings nor the ``cut`` dominate (then the skip child)."""
    key, idx, last, uh, ur, chosen = path
    keyc = key + cu if last != -1 else key
    made: Dict[int, int] = {}  # children created per gain
    joined: Dict[int, int] = {}  # of which continue the chunk
    total = 0
    floor = -1  # once ``beam`` children exist: jumps with a gain <= floor are dominated
    k = 0
    n = len(here)
    tail_gk = crowd.tail_gk
    joins = crowd.at.get(last, ()) if last != -1 else ()
    last_join = joins[-1] if joins else -1  # after it, every child closes the chunk
    while k < n:
        if (key if k <= last_join else keyc) - tail_gk[k] >= cut.threshold:
            return  # no later child (nor the skip child) can be kept
        hm, rm, hs, hend, rend, gk, d, m, g = here[k]
        k += 1
        if uh & hm or ur & rm:
            continue
        if hs == last:
            if not _at_least(joined, g, beam) and cut.admits(key - gk):
                out.append((key - gk, rend, hend, uh | hm, ur | rm, (m, chosen)))
                joined[g] = joined.get(g, 0) + 1
                made[g] = made.get(g, 0) + 1
                total += 1
        elif g > floor and cut.admits(keyc - gk):
            out.append((keyc - gk, rend, hend, uh | hm, ur | rm, (m, chosen)))
            made[g] = made.get(g, 0) + 1
            total += 1
        key += d
        keyc += d
        if total >= beam:
            floor = _floor(made, beam)
            if crowd.tail_gain[k] <= floor:
                # Only siblings that continue the chunk can still be created: jump to them.
                j = _next_join(crowd, last, k)
                if j < 0:
                    return  # every later sibling is dominated, and so is the skip child
                add = crowd.usable_distance(uh, ur, k, j)
                key += add
                keyc += add
                k = j
    if total < beam and cut.admits(keyc):  # the skip child (gain 0, a chunk closed like any jump)
        out.append((keyc, idx + 1, -1, uh, ur, chosen))


def _next_join(crowd: Crowd, last: int, k: int) -> int:
    """The first candidate index >= ``k`` starting at hypothesis position ``last`` (-1 if none)."""
    if last == -1:
        return -1
    for j in crowd.at.get(last, ()):
        if j >= k:
            return j
    return -1


def _at_least(counts: Dict[int, int], gain: int, beam: int) -> bool:
    """At least ``beam`` counted children with a gain >= ``gain``."""
    return sum(n for g, n in counts.items() if g >= gain) >= beam


def _floor(made: Dict[int, int], beam: int) -> int:
    """The highest gain g such that ``beam`` children have a gain >= g (-1 if none)."""
    seen = 0
    for g in sorted(made, reverse=True):
        seen += made[g]
        if seen >= beam:
            return g
    return -1


def _best_path(paths: List[Path], beam: int, chunk_unit: int) -> Path:
    """Close the open chunk of the best ``beam`` paths and return the best of them."""
    if len(paths) > 1:
        paths.sort(key=_FIRST)
    final: List[Path] = []
    for path in paths[:beam]:
        if path[2] != -1:  # close the open chunk
            path = (path[0] + chunk_unit,) + path[1:]
        final.append(path)
    final.sort(key=_FIRST)
    return final[0]


def count_chunks(matches: Sequence[Match]) -> int:
    """Chunks of an alignment (matches ordered by reference position)."""
    chunks = 0
    pos = 0
    last = -1
    for m in matches:
        if m.rstart > pos and last != -1:
            chunks += 1  # a gap in the reference closes the chunk
            last = -1
        if last != -1 and m.hstart != last:
            chunks += 1
        pos = m.rstart + m.rlen
        last = m.hstart + m.hlen
    if last != -1:
        chunks += 1
    return chunks

