"""Bounded mode: the alignment of a segment too costly for the beam search, in time and memory linear in its length.

A segment whose candidate matches exceed :data:`MAX_CANDIDATES` (a few thousand
repetitions of one word, a line of tens of thousands of tokens) would make the
beam search (and the jar's) run for minutes and hold gigabytes.  Such a segment is
aligned here instead, and its score is flagged as ``bounded``:

* each module keeps at most :data:`BOUNDED_CAP` candidates per reference word, the
  ones nearest to its position (:func:`~meteor_lite.align.matches.collect_matches`);
* one partial alignment is kept (a beam of 1), extended left to right with the
  candidate the beam search would rank first: more covered words, then a
  continued chunk, then the smaller distance.

Work is O(reference length x modules x :data:`BOUNDED_CAP`), memory
O(hypothesis + reference length x modules x :data:`BOUNDED_CAP`).  The result is a
valid alignment, usually the beam search's, but not guaranteed to be: hence the flag.
Every segment of the parity sets stays far below the threshold (the largest holds
a few hundred candidates).
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from .matches import Match

__all__ = ["MAX_CANDIDATES", "BOUNDED_CAP", "SMALL_SEGMENT", "bounded_alignment", "work_limit"]

#: Above this many candidate matches (times the beam width, over 40) a segment is aligned in bounded mode.
MAX_CANDIDATES = 1_500_000
#: Segments with at most this many (hypothesis word, reference word) pairs always get the beam search
#: (their candidates are not even counted: a sentence is far below the limit).
SMALL_SEGMENT = 200 * 200
#: Candidates kept per module and reference word in bounded mode.
BOUNDED_CAP = 4


def work_limit(beam: int) -> int:
    """The candidate count above which a segment is aligned in bounded mode, for a beam of ``beam``."""
    return max(1, MAX_CANDIDATES * 40 // max(beam, 1))


def bounded_alignment(n1: int, n2: int, cands: List[List[Match]]) -> List[Match]:
    """A greedy (beam 1) alignment over reference positions, ranked as the beam search ranks."""
    used = bytearray(n1)
    chosen: List[Match] = []
    last = -1
    j = 0
    while j < n2:
        best: Optional[Match] = None
        best_rank: Tuple[int, int, int] = (0, 0, 0)
        for m in cands[j]:
            if any(used[m.hstart : m.hstart + m.hlen]):
                continue
            rank = (-m.gain, 0 if m.hstart == last else 1, m.dist)
            if best is None or rank < best_rank:
                best, best_rank = m, rank
        if best is None:
            last = -1
            j += 1
            continue
        used[best.hstart : best.hstart + best.hlen] = b"\x01" * best.hlen
        chosen.append(best)
        last = best.hstart + best.hlen
        j = best.rstart + best.rlen
    return chosen
