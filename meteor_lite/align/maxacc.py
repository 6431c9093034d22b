"""The aligner's *maximum accuracy* alignment (``-t maxacc`` of Meteor 1.5's ``Matcher`` program).

Meteor 1.5's aligner offers two alignment types.  ``maxcov`` (maximum coverage) is the one the
scorer uses (:mod:`meteor_lite.align.search`): its search ranks partial alignments by covered words,
counting each word of an exact match as 1 and each side of any other match as half its words
rounded down, so a one-word stem or synonym match adds nothing and multi-word paraphrases
are worth their length.  ``maxacc`` (maximum accuracy) runs the same search (the same candidates,
fixed unambiguous matches, beam, chunk and distance tie-breaks) with other weights, found by
running the jar's ``Matcher`` as a black box:

* every word of an exact, stem or synonym match counts fully (both sides);
* paraphrase matches count only after them: the search first maximises the words covered by
  one-word matches, then the words covered by paraphrases (:func:`maxacc_gains`), so a paraphrase
  is taken where it covers words no one-word match can, never in place of one-word matches.

With the exact module alone both types give the same alignment.  Measured against the jar's
``-t maxacc`` on 2,200 segments of the Meteor distribution's example files (English, all four
modules): every alignment is the jar's.  Counting a paraphrase word as any share of a one-word
match's word from 1/1000 to 0.175 gives the same 2,200 alignments (1/4 gives 21 that differ); the
ordering used here is that range's limit.  The weights were measured by running the jar, not read
from its sources.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from ..resources.lookups import Resources
from .bounded import BOUNDED_CAP, SMALL_SEGMENT, bounded_alignment, work_limit
from .budget import count_candidates
from .matches import Match, collect_matches
from .modules import module
from .search import search_alignment_pure

__all__ = ["ALIGN_TYPES", "maxacc_alignment", "maxacc_gains"]

#: The aligner's alignment types: ``maxcov`` (what Meteor scores with) and ``maxacc``.
ALIGN_TYPES = ("maxcov", "maxacc")


def maxacc_gains(cands: List[List[Match]], modules: Sequence[str], n1: int, n2: int) -> List[List[Match]]:
    """``cands`` (of an ``n1``-word hypothesis and an ``n2``-word reference) with the search weights of
    ``maxacc``; the :class:`Match` objects are updated in place.

    A word of a one-word module's match (exact, stem, synonym: :attr:`Module.one_word
    <meteor_lite.align.modules.Module.one_word>`) weighs more than all the paraphrase words of the segment
    together (``n1 + n2 + 1``), a paraphrase word 1: the search maximises the words covered by one-word
    matches, then those covered by paraphrases, then (as ``maxcov``) fewer chunks and smaller distances.
    """
    word = n1 + n2 + 1
    one_word = [module(name).one_word for name in modules]
    for lst in cands:
        for m in lst:
            m.gain = (m.hlen + m.rlen) * (word if one_word[m.module] else 1)
    return cands


def maxacc_alignment(
    hyp: Sequence[str], ref: Sequence[str], modules: Sequence[str], res: Resources, beam: int,
    folded: Optional[Tuple[Sequence[str], Sequence[str]]] = None,
) -> Tuple[List[Match], bool]:
    """The ``maxacc`` alignment of ``hyp`` and ``ref``: the chosen matches ordered by reference position, and
    whether the segment was aligned in bounded mode (too many candidates for the beam search, as the scorer's
    :func:`~meteor_lite.scoring.align_segment` decides; see :mod:`meteor_lite.align.bounded`).

    ``modules``, ``res``, ``folded`` are :func:`~meteor_lite.align.matches.collect_matches`'s; ``beam`` the
    search's.  Each match keeps its module index; its :attr:`Match.gain` holds the ``maxacc`` weight.
    """
    limit = work_limit(beam)
    if len(hyp) * len(ref) > SMALL_SEGMENT and count_candidates(hyp, ref, modules, res, limit, folded) > limit:
        capped = collect_matches(hyp, ref, modules, res, cap=BOUNDED_CAP, folded=folded)
        return bounded_alignment(len(hyp), len(ref), maxacc_gains(capped, modules, len(hyp), len(ref))), True
    cands = maxacc_gains(collect_matches(hyp, ref, modules, res, folded=folded), modules, len(hyp), len(ref))
    return search_alignment_pure(len(hyp), len(ref), cands, beam), False
