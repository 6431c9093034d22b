"""Pairwise scoring in one call: a list of (hypothesis, reference) pairs, or every hypothesis against
every reference (the matrix of minimum-Bayes-risk decoding).

What one call shares: each distinct sentence is normalised and tokenised once, the resources of all
of them (stems, synonym sets, paraphrase-table phrases) are looked up in one batched pass per block
of sentences, and each sentence's per-word flags once, however many pairs it takes part in.  The
alignment of each pair is then exactly :meth:`Meteor.score_segment`'s (the same code), so every
score is the one ``score_segment(hyp, [ref])`` gives.

With the compiled kernels, a call of many pairs on a machine with two CPUs or more aligns in a second
thread (``_accel.align_many`` releases the GIL): :func:`_pipelined` and :func:`_grid_in_halves`.

:meth:`meteor_lite.Meteor.score_pairs` and :meth:`meteor_lite.Meteor.score_matrix` are the public
entry points; this module holds their work.
"""

from __future__ import annotations

import contextlib
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Dict, Iterable, List, Optional, Protocol, Sequence, Tuple

from .accel import env_switch
from .config import MeteorConfig
from .gcpause import gc_paused
from .inputs import checked_text
from .parallel import usable_cpus
from .resources.lookups import Resources
from .scores import SegmentScore
from .scoring import (
    KernelCounts,
    Side,
    best_of,
    counted_stats,
    kernel_pair,
    module_codes,
    pair_kernel,
    prepare_side,
    single_score,
)

__all__ = ["score_pairs", "score_matrix", "ONE_THREAD_ENV", "PAIR_BLOCK", "PIPE_STEP", "Scorer"]


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
#: Pairs per step of a pipelined :func:`score_pairs` (see :func:`_pipelined`): small enough that the last step's
#: alignments, which nothing overlaps, are short; large enough that the second thread takes the GIL back rarely.
PIPE_STEP = 128
#: The environment variable that keeps every call in one thread (a process that already runs one scorer per CPU).
ONE_THREAD_ENV = "METEOR_LITE_ONE_THREAD"
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

    def pair(self, hyp: str, ref: str) -> Tuple[Side, Side]:
        """The prepared sides of a pair."""
        return self.sides[hyp], self.sides[ref]

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
        if _two_threads(meteor, len(listed)):
            out = _pipelined(meteor, listed)
        else:
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


def _two_threads(meteor: Scorer, pairs: int) -> bool:
    """Whether a call aligns its pairs in two threads (:func:`_pipelined`, :func:`_grid_in_halves`): the compiled pair
    kernel scores this configuration, there are at least two steps of pairs, a second CPU to run on, and the
    environment does not set :data:`ONE_THREAD_ENV`."""
    return (pairs >= 2 * PIPE_STEP and pair_kernel(meteor.config) is not None and usable_cpus() > 1
            and not env_switch(ONE_THREAD_ENV))


def _pipelined(meteor: Scorer, listed: List[Tuple[str, str]]) -> List[SegmentScore]:
    """:func:`score_pairs`'s scores in steps of :data:`PIPE_STEP` pairs, in two threads.  This thread prepares the
    sentences of each step (tokens, look-ups, packing: Python and code that needs the GIL), and hands the step's
    pairs to a second thread, which aligns them in one ``align_many`` call without the GIL while this one
    prepares the next step.  The scores are then made here, in order.  Every score is the one
    :func:`_score_block` gives: the same kernel aligns each pair, and a pair it does not take (a large one) is
    scored here by :meth:`_Sides.score`."""
    kernels = pair_kernel(meteor.config)
    assert kernels is not None
    codes, beam = module_codes(meteor.config.modules), meteor.config.beam
    out: List[SegmentScore] = []
    with ThreadPoolExecutor(1, thread_name_prefix="meteor-lite-align") as aligner:
        waiting: Optional[Tuple[Sequence[Tuple[str, str]], _Sides, "Future[List[Optional[KernelCounts]]]"]] = None
        for b in range(0, len(listed), PIPE_STEP):
            step = listed[b : b + PIPE_STEP]
            sides = _Sides(meteor)
            sides.prepare([s for p in step for s in p])
            counted = aligner.submit(kernels.align_many, _packed_pairs(sides, step), codes, beam)
            if waiting is not None:
                out.extend(_made_scores(meteor, waiting[0], waiting[1], waiting[2].result()))
            waiting = (step, sides, counted)
        if waiting is not None:
            out.extend(_made_scores(meteor, waiting[0], waiting[1], waiting[2].result()))
    return out


def _made_scores(meteor: Scorer, pairs: Sequence[Tuple[str, str]], sides: _Sides,
                 counts_of: List[Optional[KernelCounts]]) -> List[SegmentScore]:
    """The scores of ``pairs`` from the kernel's counts of those it takes (``align_many`` of
    :func:`_packed_pairs`); the others, and any it found out of range, scored as :func:`_score_block` scores them."""
    got = iter(counts_of)
    out: List[SegmentScore] = []
    for h, r in pairs:
        hs, rs = sides.pair(h, r)
        counts = next(got) if kernel_pair(hs, rs) else None
        if counts is None:
            out.append(sides.score(h, r))
        else:
            out.append(single_score(counted_stats(hs, rs, counts), counts[7], meteor.config))
    return out


def _score_grid(meteor: Scorer, hl: List[str], rl: List[str]) -> List[List[SegmentScore]]:
    """Each hypothesis against each reference, every distinct sentence prepared once (dropped on return, as in
    :func:`_score_block`)."""
    sides = _Sides(meteor)
    distinct = list(dict.fromkeys(hl + rl))
    for b in range(0, len(distinct), PAIR_BLOCK):
        sides.prepare(distinct[b : b + PAIR_BLOCK])
    if _two_threads(meteor, len(hl) * len(rl)):
        return _grid_in_halves(meteor, sides, hl, rl)
    return [[sides.score(h, r) for r in rl] for h in hl]


def _grid_in_halves(meteor: Scorer, sides: _Sides, hl: List[str], rl: List[str]) -> List[List[SegmentScore]]:
    """:func:`_score_grid`'s scores, the pairs aligned by ``align_many`` in two threads at once (the first half of the
    pairs, row by row, in a second thread, the rest in this one: neither holds the GIL while it aligns), then made
    here in order."""
    kernels = pair_kernel(meteor.config)
    assert kernels is not None
    codes, beam = module_codes(meteor.config.modules), meteor.config.beam
    pairs = [(h, r) for h in hl for r in rl]
    halves = pairs[: len(pairs) // 2], pairs[len(pairs) // 2 :]
    with ThreadPoolExecutor(1, thread_name_prefix="meteor-lite-align") as aligner:
        first = aligner.submit(kernels.align_many, _packed_pairs(sides, halves[0]), codes, beam)
        rest = kernels.align_many(_packed_pairs(sides, halves[1]), codes, beam)
        scores = _made_scores(meteor, halves[0], sides, first.result()) + _made_scores(meteor, halves[1], sides, rest)
    return [scores[i * len(rl) : (i + 1) * len(rl)] for i in range(len(hl))]


def _packed_pairs(sides: _Sides, pairs: Sequence[Tuple[str, str]]) -> List[Tuple[object, object]]:
    """The packed sentences of the pairs the compiled kernel takes (:func:`kernel_pair`), in order."""
    return [(hs[5], rs[5]) for hs, rs in (sides.pair(h, r) for h, r in pairs) if kernel_pair(hs, rs)]


def _paused(pairs: int) -> "contextlib.AbstractContextManager[object]":
    """The GC pause of a call scoring ``pairs`` pairs (none for a few)."""
    return gc_paused() if pairs >= _PAUSE_GC_FROM else contextlib.nullcontext()
