"""Pairwise scoring in one call: a list of (hypothesis, reference) pairs, or every hypothesis against
every reference (the matrix of minimum-Bayes-risk decoding).

What one call shares: each distinct sentence is normalised and tokenised once, the resources of all
of them (stems, synonym sets, paraphrase-table phrases) are looked up in one batched pass per block
of sentences, and each sentence's per-word flags once, however many pairs it takes part in.  The
alignment of each pair is then exactly :meth:`Meteor.score_segment`'s (the same code), so every
score is the one ``score_segment(hyp, [ref])`` gives.

With the compiled kernels, a call of many pairs on a machine with two CPUs or more aligns in a second
thread (``_accel.align_many`` releases the GIL): :func:`in_two_threads` and :func:`_grid_in_halves`.
A corpus scored in one process (:meth:`meteor_lite.Meteor.score_corpus`, ``meteor-lite score --jobs 1``)
aligns in a second thread the same way (:func:`second_thread`, :func:`segment_steps`).

:meth:`meteor_lite.Meteor.score_pairs` and :meth:`meteor_lite.Meteor.score_matrix` are the public
entry points; this module holds their work.
"""

from __future__ import annotations

import contextlib
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Optional, Protocol, Sequence, Tuple

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
    kernel_pair,
    module_codes,
    pair_kernel,
    prepare_side,
)

if TYPE_CHECKING:  # imported when a second thread runs (5 ms of start-up otherwise)
    from concurrent.futures import Future, ThreadPoolExecutor

__all__ = [
    "score_pairs", "score_matrix", "two_threads", "second_thread", "segment_steps", "in_two_threads", "ONE_THREAD_ENV",
    "PAIR_BLOCK", "PIPE_STEP", "SEGMENT_STEP", "Scorer",
]

#: A step of a pipeline (:func:`in_two_threads`): the packed pairs for ``align_many``, and what makes the step's
#: scores from the counts it returns for them.
Step = Tuple[List[Tuple[object, object]], Callable[[List[Optional[KernelCounts]]], List[SegmentScore]]]


class Scorer(Protocol):
    """What these functions use of a :class:`meteor_lite.Meteor` (this module sits below it)."""

    config: MeteorConfig
    resources: Resources
    align_thread: bool
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
#: Pairs per step of a pipelined :func:`score_pairs` (see :func:`_pair_steps`): small enough that the last step's
#: alignments, which nothing overlaps, are short; large enough that the second thread takes the GIL back rarely.
PIPE_STEP = 128
#: Segments per step of a corpus aligned in a second thread (:func:`segment_steps`).  A step's prepared sentences
#: (about 12 kB each with their packed synsets and phrases) stay alive until its scores are made, two steps at a
#: time, where one thread holds one segment's.  ``meteor-lite score --jobs 1`` on system1 (one thread: 0.349 s,
#: 72.5 MiB): 16 took 0.326 s and 74.0 MiB, 32 0.313 s and 75.0 MiB, 64 0.302-0.31 s and 77.0 MiB.
SEGMENT_STEP = 32
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
        if two_threads(meteor, len(listed)):
            with second_thread() as aligner:
                out = in_two_threads(meteor, _pair_steps(meteor, listed), aligner)
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


def two_threads(meteor: Scorer, pairs: int) -> bool:
    """Whether ``pairs`` pairs are aligned in two threads (:func:`in_two_threads`, :func:`_grid_in_halves`): the
    compiled pair kernel scores this configuration, there are at least ``2 * PIPE_STEP`` pairs, a second CPU to run
    on, the scorer's ``align_thread`` is on and the environment does not set :data:`ONE_THREAD_ENV`."""
    return (pairs >= 2 * PIPE_STEP and meteor.align_thread and pair_kernel(meteor.config) is not None
            and usable_cpus() > 1 and not env_switch(ONE_THREAD_ENV))


def second_thread() -> "contextlib.AbstractContextManager[ThreadPoolExecutor]":
    """The one-thread pool that aligns the steps of :func:`in_two_threads` (its thread ends with the block)."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(1, thread_name_prefix="meteor-lite-align")


def in_two_threads(meteor: Scorer, steps: Iterable[Step], aligner: ThreadPoolExecutor) -> List[SegmentScore]:
    """The scores of ``steps``, in order, their pairs aligned in the ``aligner`` thread.

    This thread prepares each step (``steps`` is a generator: tokens, look-ups, packing, which need the GIL) and
    hands its packed pairs to the aligner, which aligns them in one ``align_many`` call without the GIL while this
    thread prepares the next step; then the previous step's scores are made here.  Every score is the one the
    steps would get in one thread: the same kernel aligns each pair, and a pair it does not take is aligned when
    the scores are made (:func:`~meteor_lite.scoring.best_of`).
    """
    kernels = pair_kernel(meteor.config)
    assert kernels is not None
    codes, beam = module_codes(meteor.config.modules), meteor.config.beam
    out: List[SegmentScore] = []
    waiting: Optional[Tuple[Callable[[List[Optional[KernelCounts]]], List[SegmentScore]],
                            "Future[List[Optional[KernelCounts]]]"]] = None
    for packed, make in steps:  # the generator prepares this step while the previous one is aligned
        counted = aligner.submit(kernels.align_many, packed, codes, beam)
        if waiting is not None:
            out.extend(waiting[0](waiting[1].result()))
        waiting = (make, counted)
    if waiting is not None:
        out.extend(waiting[0](waiting[1].result()))
    return out


def _pair_steps(meteor: Scorer, listed: List[Tuple[str, str]]) -> Iterator[Step]:
    """:func:`score_pairs`'s steps of :data:`PIPE_STEP` pairs, each step's distinct sentences prepared together."""
    for b in range(0, len(listed), PIPE_STEP):
        step = listed[b : b + PIPE_STEP]
        sides = _Sides(meteor)
        sides.prepare([s for p in step for s in p])
        pairs = [sides.pair(h, r) for h, r in step]
        yield _packed(pairs), partial(_counted_scores, meteor, [(hs, [rs]) for hs, rs in pairs])


def segment_steps(meteor: Scorer, hyps: Sequence[List[str]], refs: Sequence[Sequence[List[str]]]) -> Iterator[Step]:
    """The steps of :data:`SEGMENT_STEP` segments of a corpus block, each tokenised hypothesis with its references
    (their resources looked up already, :meth:`meteor_lite.Meteor._prefetch`): each segment's score is
    :func:`~meteor_lite.scoring.best_reference`'s."""
    config, res = meteor.config, meteor.resources
    for b in range(0, len(hyps), SEGMENT_STEP):
        step = [
            (prepare_side(h, config, res), [prepare_side(r, config, res) for r in rs])
            for h, rs in zip(hyps[b : b + SEGMENT_STEP], refs[b : b + SEGMENT_STEP])
        ]
        yield _packed([(hs, rs) for hs, rss in step for rs in rss]), partial(_counted_scores, meteor, step)


def _counted_scores(meteor: Scorer, step: Sequence[Tuple[Side, Sequence[Side]]],
                    counts_of: List[Optional[KernelCounts]]) -> List[SegmentScore]:
    """Each hypothesis's best score against its references from the kernel's counts of the pairs it takes (in the
    order of :func:`_packed`); the others, and any it found out of range, aligned by
    :func:`~meteor_lite.scoring.best_of`."""
    got = iter(counts_of)
    config, res = meteor.config, meteor.resources
    return [
        best_of(hs, rss, config, res, [next(got) if kernel_pair(hs, rs) else None for rs in rss]) for hs, rss in step
    ]


def _score_grid(meteor: Scorer, hl: List[str], rl: List[str]) -> List[List[SegmentScore]]:
    """Each hypothesis against each reference, every distinct sentence prepared once (dropped on return, as in
    :func:`_score_block`)."""
    sides = _Sides(meteor)
    distinct = list(dict.fromkeys(hl + rl))
    for b in range(0, len(distinct), PAIR_BLOCK):
        sides.prepare(distinct[b : b + PAIR_BLOCK])
    if two_threads(meteor, len(hl) * len(rl)):
        return _grid_in_halves(meteor, sides, hl, rl)
    return [[sides.score(h, r) for r in rl] for h in hl]


def _grid_in_halves(meteor: Scorer, sides: _Sides, hl: List[str], rl: List[str]) -> List[List[SegmentScore]]:
    """:func:`_score_grid`'s scores, the pairs aligned by ``align_many`` in two threads at once (the first half of the
    pairs, row by row, in a second thread, the rest in this one: neither holds the GIL while it aligns), then made
    here in order."""
    kernels = pair_kernel(meteor.config)
    assert kernels is not None
    codes, beam = module_codes(meteor.config.modules), meteor.config.beam
    pairs = [sides.pair(h, r) for h in hl for r in rl]
    halves = pairs[: len(pairs) // 2], pairs[len(pairs) // 2 :]
    with second_thread() as aligner:
        first = aligner.submit(kernels.align_many, _packed(halves[0]), codes, beam)
        rest = kernels.align_many(_packed(halves[1]), codes, beam)
        scores = (_counted_scores(meteor, [(hs, [rs]) for hs, rs in halves[0]], first.result())
                  + _counted_scores(meteor, [(hs, [rs]) for hs, rs in halves[1]], rest))
    return [scores[i * len(rl) : (i + 1) * len(rl)] for i in range(len(hl))]


def _packed(pairs: Sequence[Tuple[Side, Side]]) -> List[Tuple[object, object]]:
    """The packed sentences of the prepared pairs the compiled kernel takes (:func:`kernel_pair`), in order."""
    return [(hs[5], rs[5]) for hs, rs in pairs if kernel_pair(hs, rs)]


def _paused(pairs: int) -> "contextlib.AbstractContextManager[object]":
    """The GC pause of a call scoring ``pairs`` pairs (none for a few)."""
    return gc_paused() if pairs >= _PAUSE_GC_FROM else contextlib.nullcontext()
