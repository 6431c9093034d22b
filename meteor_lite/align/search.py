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
  (and to later siblings), not to the path that takes it.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Dict, List, Sequence, Tuple

from .matches import Match

__all__ = ["search_alignment", "count_chunks"]

#: A partial alignment: (rank key, idx, last_end, used_h, used_r, chosen-chain, gain, chunks, distance).
#: The rank key orders by more weighted coverage, then fewer chunks, then less distance.
Path = Tuple[Any, ...]

_FIRST = itemgetter(0)
_SHIFT = 1 << 24


def _key(gain: int, chunks: int, dist: int) -> int:
    """One integer that sorts like (-gain, chunks, dist) for the sizes a segment can reach.

    (Inlined in the search loop for speed.)
    """
    return (-gain * _SHIFT + chunks) * _SHIFT + dist


def search_alignment(n1: int, n2: int, cands: List[List[Match]], beam: int) -> List[Match]:
    """Choose the alignment: fix unambiguous matches, then beam-search the rest.

    ``n1``/``n2`` are the hypothesis/reference lengths and ``cands`` the
    candidates grouped by reference start (:func:`~meteor_lite.align.matches.collect_matches`).
    Returns the chosen matches ordered by reference position.
    """
    fixed, used_h, used_r = _fix_unambiguous(n1, n2, cands)
    if all(not lst or j in fixed for j, lst in enumerate(cands)):
        # Nothing left to choose: every candidate is fixed.
        return [fixed[j] for j in sorted(fixed)]
    paths: List[Path] = [(0, 0, -1, used_h, used_r, None, 0, 0, 0)]
    for cur in range(n2):
        paths = _advance(paths, cur, cands[cur], fixed, beam)
    best = _best_path(paths, beam)
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
            used_h |= m.hmask
            used_r |= m.rmask
    return fixed, used_h, used_r


def _advance(paths: List[Path], cur: int, here: Sequence[Match], fixed: Dict[int, Match], beam: int) -> List[Path]:
    """Extend the best ``beam`` paths over reference position ``cur`` (candidates ``here``)."""
    S = _SHIFT
    if len(paths) > 1:
        paths.sort(key=_FIRST)
    nxt: List[Path] = []
    for path in paths[:beam]:
        _, idx, last, uh, ur, chosen, gain, ch, dist = path
        if (ur >> cur) & 1:
            if cur < idx:
                nxt.append(path)
                continue
            m = fixed.get(idx)
            if m is not None:
                if last != -1 and m.hstart != last:
                    ch += 1
                gain += m.gain
                dist += m.dist
                nxt.append(((-gain * S + ch) * S + dist, m.rstart + m.rlen, m.hstart + m.hlen, uh, ur, chosen, gain, ch, dist))
            continue
        for m in here:
            if uh & m.hmask or ur & m.rmask:
                continue
            nch = ch + 1 if (last != -1 and m.hstart != last) else ch
            ngain = gain + m.gain
            nxt.append(
                ((-ngain * S + nch) * S + dist, m.rstart + m.rlen, m.hstart + m.hlen, uh | m.hmask, ur | m.rmask,
                 (m, chosen), ngain, nch, dist)
            )
            dist += m.dist  # charged to the paths that do not take m (see module docstring)
        if last != -1:
            ch += 1
        nxt.append(((-gain * S + ch) * S + dist, idx + 1, -1, uh, ur, chosen, gain, ch, dist))
    if not nxt:
        nxt.append(paths[0])
    return nxt


def _best_path(paths: List[Path], beam: int) -> Path:
    """Close the open chunk of the best ``beam`` paths and return the best of them."""
    if len(paths) > 1:
        paths.sort(key=_FIRST)
    final: List[Path] = []
    for path in paths[:beam]:
        if path[2] != -1:  # close the open chunk
            gain, ch, dist = path[6], path[7] + 1, path[8]
            path = (_key(gain, ch, dist),) + path[1:7] + (ch, dist)
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
