"""Pairwise scoring in one call: a list of (hypothesis, reference) pairs, or every hypothesis against
every reference (the matrix of minimum-Bayes-risk decoding).

What one call shares: each distinct sentence is normalised and tokenised once, the resources of all
of them (stems, synonym sets, paraphrase-table phrases) are looked up in one batched pass per block
of sentences, and each sentence's per-word flags once, however many pairs it takes part in.  The
alignment of each pair is then exactly :meth:`Meteor.score_segment`'s (the same code), so every
score is the one ``score_segment(hyp, [ref])`` gives.

:meth:`meteor_lite.Meteor.score_pairs` and :meth:`meteor_lite.Meteor.score_matrix` are the public
entry points; this module holds their work.
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterable, List, Protocol, Sequence, Tuple

from .config import MeteorConfig
from .gcpause import gc_paused
from .inputs import checked_text
from .resources.lookups import Resources
from .scores import SegmentScore
from .scoring import Side, best_of, prepare_side

__all__ = ["score_pairs", "score_matrix", "PAIR_BLOCK", "Scorer"]


class Scorer(Protocol):
    """What these functions use of a :class:`meteor_lite.Meteor` (this module sits below it)."""

    config: MeteorConfig
    resources: Resources
    _lock: Any  # a threading.RLock

    def tokens(self, line: str) -> List[str]:
        """The tokens of ``line``."""

    def _prefetch(self, sentences: Sequence[Sequence[str]]) -> None:
        """Look up the resources of ``sentences`` in one pass."""

    def _check_bundle(self) -> None:
        """Refuse a bundle written while scoring."""

    def _reading(self) -> "contextlib.AbstractContextManager[object]":
        """One read transaction of the bundle around a block of lookups."""

#: Distinct sentences looked up in one batched pass (bounds what a call holds at once).
PAIR_BLOCK = 4096
#: From this many pairs on, Python's cyclic garbage collector is paused while scoring (as score_corpus does).
_PAUSE_GC_FROM = 16


def _checked(texts: Iterable[object], name: str) -> List[str]:
    """``texts`` as a list of strings, each checked as :meth:`Meteor.score_segment` checks its inputs."""
    out: List[str] = []
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"{name}[{i}] is {type(t).__name__}: every sentence must be a string (use '' for an empty one)")
        out.append(checked_text(t, f"{name}[{i}]"))
    return out


class _Sides:
    """Each distinct sentence prepared once: tokens, resource lookups (one batched prefetch), flags."""

    def __init__(self, meteor: Scorer):
        self.meteor = meteor
        self.sides: Dict[str, Side] = {}

    def prepare(self, texts: Sequence[str]) -> None:
        """Tokenise the sentences not seen yet and look up their resources in one pass."""
        new = [t for t in dict.fromkeys(texts) if t not in self.sides]
        if not new:
            return
        m = self.meteor
        toks = [m.tokens(t) for t in new]
        m._prefetch(toks)
        for t, words in zip(new, toks):
            self.sides[t] = prepare_side(words, m.config, m.resources)

    def score(self, hyp: str, ref: str) -> SegmentScore:
        """``score_segment(hyp, [ref])`` from the prepared sides."""
        m = self.meteor
        return best_of(self.sides[hyp], [self.sides[ref]], m.config, m.resources)


def score_pairs(meteor: Scorer, pairs: Iterable[Tuple[str, str]]) -> List[SegmentScore]:
    """The score of each (hypothesis, reference) pair, in order (see :meth:`Meteor.score_pairs`)."""
    listed: List[Tuple[str, str]] = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"pairs[{i}] must be a (hypothesis, reference) pair of strings, not {pair!r:.60}")
        h, r = _checked(pair, f"pairs[{i}]")
        listed.append((h, r))
    out: List[SegmentScore] = []
    with meteor._lock, _paused(len(listed)), meteor._reading():
        for b in range(0, len(listed), PAIR_BLOCK // 2):
            out.extend(_score_block(meteor, listed[b : b + PAIR_BLOCK // 2]))
        meteor.resources.forget_walks()
        meteor._check_bundle()
    return out


def score_matrix(meteor: Scorer, hyps: Sequence[str], refs: Sequence[str]) -> List[List[SegmentScore]]:
    """``scores[i][j]`` is hypothesis ``i`` scored against reference ``j`` (see :meth:`Meteor.score_matrix`)."""
    hl = _checked(hyps, "hyps")
    rl = _checked(refs, "refs")
    with meteor._lock, _paused(len(hl) * len(rl)), meteor._reading():
        out = _score_grid(meteor, hl, rl)
        meteor.resources.forget_walks()
        meteor._check_bundle()
    return out


def _score_block(meteor: Scorer, block: Sequence[Tuple[str, str]]) -> List[SegmentScore]:
    """The scores of a block of pairs, their sentences prepared together.  The prepared sentences are dropped on
    return, before the collector runs again: its first pass then visits the scores, not every sentence's words."""
    sides = _Sides(meteor)
    sides.prepare([s for p in block for s in p])
    return [sides.score(h, r) for h, r in block]


def _score_grid(meteor: Scorer, hl: List[str], rl: List[str]) -> List[List[SegmentScore]]:
    """Each hypothesis against each reference, every distinct sentence prepared once (dropped on return, as in
    :func:`_score_block`)."""
    sides = _Sides(meteor)
    distinct = list(dict.fromkeys(hl + rl))
    for b in range(0, len(distinct), PAIR_BLOCK):
        sides.prepare(distinct[b : b + PAIR_BLOCK])
    return [[sides.score(h, r) for r in rl] for h in hl]


def _paused(pairs: int) -> "contextlib.AbstractContextManager[object]":
    """The GC pause of a call scoring ``pairs`` pairs (none for a few)."""
    return gc_paused() if pairs >= _PAUSE_GC_FROM else contextlib.nullcontext()
