"""The public scoring API: :class:`Meteor` (scores are :class:`SegmentScore` and :class:`CorpusScore`)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import warnings
import weakref
from itertools import chain, islice
from typing import TYPE_CHECKING, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from . import pairwise
from .accel import env_switch
from .align.modules import modules_needing
from .config import MeteorConfig
from .configure import setup_scorer
from .errors import BundleError, InputError, MeteorLiteWarning
from .gcpause import gc_paused
from .inputs import check_options, checked_text, hypothesis_list, references_per_segment, segment_references
from .languages import TASKS
from .parallel import MIN_SHARD, batches, can_fork, default_jobs, map_blocks, map_shards
from .resources.bundle import Bundle
from .resources.lookups import RECENT_SENTENCES, Resources
from .scores import CorpusScore, RunningTotal, SegmentScore
from .scoring import best_reference, config_metrics, pair_kernel
from .signature import make_signature
from .stats import Metrics, Stats
from .text.normalize import java_lower, prepare

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["Meteor", "SegmentScore", "CorpusScore", "jar_norm_meteor"]

#: Every live scorer of this process, for the fork handlers below.
_LIVE: "weakref.WeakSet[Meteor]" = weakref.WeakSet()


def _before_fork() -> None:
    """Note, per scorer, whether another thread is inside one of its calls as this process forks."""
    for m in list(_LIVE):
        free = m._lock.acquire(blocking=False)  # re-entrant: the forking thread's own call counts as free
        if free:
            m._lock.release()
        m._held_at_fork = not free


def _after_fork_in_child() -> None:
    """In a forked child: every scorer gets a new lock (the parent's may be held by a thread the child does not
    have: its first call would wait forever); one that was in use gets its own bundle connection too (the parent's
    was in the middle of a read)."""
    for m in list(_LIVE):
        m._lock = threading.RLock()
        if m._held_at_fork:
            m._held_at_fork = False
            try:
                m._reopen()
            except Exception:  # noqa: BLE001 - a fork handler must not raise; the next query says what is wrong
                pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)


#: Segments per prefetch in one process: each prefetch looks a block's new words up in one sorted pass.  The pair
#: kernel walks each sentence's phrases as it packs it, so a block's prepared sentences are what a larger block would
#: cost in memory: on system1, 1,024 takes 0.9% fewer instructions than 4,096 and 11 MB less memory (0.3% more
#: instructions when the bundle is queried without a mapped file).
BLOCK = 1024
#: The same in forked workers, which hold their blocks at the same time: a smaller block bounds the sum.
WORKER_BLOCK = 1024
#: Segments per task handed to a worker by :meth:`Meteor.iter_segments` (a stream longer than ``jobs`` tasks).
STREAM_TASK = 4096


class Meteor:
    """A configured METEOR scorer.

    >>> m = Meteor("en", norm=True)                                  # doctest: +SKIP
    >>> m.score_segment("the cat sat", ["a cat sat down"]).score     # doctest: +SKIP

    Parameters mirror Meteor 1.5's options: ``task`` (rank, adq, hter, li,
    tune, util, universal; default: the language's), ``params`` (alpha beta
    gamma delta), ``modules`` (exact stem synonym paraphrase), ``weights``
    (one per module), ``beam`` (search beam, default 40), ``norm`` (Meteor's
    tokeniser and punctuation normaliser, with lower-casing), ``lower``
    (lower-case only), ``no_punct`` (drop punctuation; with ``norm``),
    ``char_based`` (Meteor's ``-ch``: precision and recall over characters instead of words;
    ``-t util`` does not imply it, as in the jar) and ``bundle`` (a bundle path, or the name of a bundle on the search path such as
    ``de-wordfreq``; default: the language's bundle on the search
    path, see :func:`meteor_lite.resources.locate.bundle_search_path`) and ``tokenize`` (the tokeniser
    of :mod:`meteor_lite.text.tokenizers` applied after normalisation: ``meteor``, Meteor 1.5's white-space
    split, for every language but ``zh``/``ja`` (``cjk``) and ``th`` (``char``); the signature names it,
    ``tok:NAME``, whenever it is not ``meteor``).  ``case_aware`` (not a Meteor 1.5 mode) keeps the case
    (with ``norm``: Meteor's normaliser without the lower-casing; signature ``norm-case``): exact matches
    are case-sensitive, stem, synonym and paraphrase match across case (:data:`meteor_lite.config.CASE_RULE`).
    A tuned task that carries its normalisation (``--task mqm``) applies it when none of ``norm``,
    ``lower``, ``case_aware`` is given.

    A bundle of another language than ``lang`` is a :class:`ConfigError` unless
    ``allow_other_language=True`` (then a warning).

    With no ``modules``, ``weights`` or ``task``, a language scores with every module its bundle
    supports (decided by :func:`meteor_lite.defaults.language_config`): Meteor 1.5's defaults on an
    official import (the jar's numbers), plus the synonym and paraphrase modules of any other bundle; a language outside Meteor 1.5
    with the universal set of parameters and weights.  A default module whose resource the bundle lacks
    (German's paraphrase table) is left out with one warning saying how to add it; ``strict_modules=True``
    makes that a :class:`MissingResourcesError` (a :class:`ConfigError`), as is a module asked for
    explicitly that lacks its resource, and no bundle at all for the default modules (the message says how
    to get one: ``meteor-lite bundle install LANG``).  The modules used are always in the signature.  With
    modules chosen explicitly and no bundle at all, scoring goes on without function words (``res:none``).

    Conditions worth knowing (such as a dropped module) are kept in
    :attr:`warnings` and, unless ``quiet``, issued as :class:`MeteorLiteWarning`.
    An option of the wrong type (``params="0.85 0.2 0.6 0.75"``, ``modules="exact"``,
    ``beam="5"``) is a :class:`TypeError` naming it.

    ``preload=True`` reads the bundle's tables that the modules use (stem map, synonyms, paraphrase table)
    into memory at construction (English: about 1.5 s and 250 MB), so that new sentences cost no look-up
    query: for a process that scores new pairs one call at a time for a long while (MBR decoding, rewards,
    a tuning loop).  The scores are the same either way (:mod:`meteor_lite.resources.memory`).  The default,
    ``None``, reads the environment: ``METEOR_LITE_PRELOAD=1`` turns it on for every scorer of the process
    (a ``meteor-jar -stdio`` server of a tuning loop, which keeps the jar's command line).
    """

    def __init__(
        self,
        lang: str = "en",
        *,
        task: Optional[str] = None,
        params: Optional[Sequence[float]] = None,
        modules: Optional[Sequence[str]] = None,
        weights: Optional[Sequence[float]] = None,
        beam: int = 40,
        norm: bool = False,
        lower: bool = False,
        no_punct: bool = False,
        char_based: bool = False,
        bundle: Union[str, "os.PathLike[str]", Bundle, None] = None,
        quiet: bool = False,
        tokenize: Optional[str] = None,
        allow_other_language: bool = False,
        case_aware: bool = False,
        strict_modules: bool = False,
        preload: Optional[bool] = None,
    ):
        check_options(lang, task, params, modules, weights, beam)
        setup = setup_scorer(
            lang, task=task, params=params, modules=modules, weights=weights, beam=beam, norm=norm, lower=lower,
            no_punct=no_punct, char_based=char_based, case_aware=case_aware, bundle=bundle, tokenize=tokenize,
            allow_other_language=allow_other_language, strict_modules=strict_modules,
        )
        self.warnings: List[str] = setup.warnings
        #: The tokeniser's name (:mod:`meteor_lite.text.tokenizers`); ``meteor`` is Meteor 1.5's white-space split.
        self.tokenizer: str = setup.tokenizer
        # Scoring fills the resource caches and reads through one SQLite connection: threads sharing this
        # object take turns (one lock; re-entrant, so that a public method may call another).
        self._lock = threading.RLock()
        self._held_at_fork = False
        _LIVE.add(self)
        #: Whether a large call (a corpus scored in one process, ``score_pairs``, ``score_matrix``) may align in a
        #: second thread when :func:`pairwise.two_threads` says so (the compiled kernels, a second CPU,
        #: ``METEOR_LITE_ONE_THREAD`` unset).  Off in forked workers and Spark executors, which run one scorer per
        #: CPU already; a caller may turn it off too.
        self.align_thread = True
        self.bundle: Optional[Bundle] = setup.bundle
        self.resources: Resources = setup.resources
        self.config: MeteorConfig = setup.config
        #: The tokens of the sentences prepared last, by their text (at most RECENT_SENTENCES, as the paraphrase
        #: walk keeps: a sentence scored again soon, as the reference of an n-best list, is not normalised again).
        self._recent_tokens: Dict[str, Tuple[str, ...]] = {}
        if preload is None:
            preload = preload_requested()
        elif not isinstance(preload, bool):
            raise TypeError(f"preload takes True, False or None (the environment's METEOR_LITE_PRELOAD), not {preload!r}")
        if preload:
            self.resources.hold_in_memory(self.config.modules)
        else:
            self.resources.map_tables()
        if not quiet:
            for w in self.warnings:
                warnings.warn(w, MeteorLiteWarning, stacklevel=2)

    # -- text preparation ------------------------------------------------------------
    def tokens(self, line: str) -> List[str]:
        """Tokens of ``line`` as Meteor sees them after normalisation / lower-casing."""
        seen = self._recent_tokens.get(line) if isinstance(line, str) else None
        if seen is not None:  # a sentence scored again (a reference of an n-best list, a loop over candidates)
            return list(seen)
        cfg = self.config
        text = checked_text(line, "line") if isinstance(line, str) else line
        words = prepare(
            text, cfg.lang, norm=cfg.norm, lower=cfg.lower, keep_punct=not cfg.no_punct,
            nonbreaking=self.resources.nonbreaking, tokenizer=self.tokenizer, keep_case=cfg.case_aware,
        )
        if isinstance(line, str):
            if len(self._recent_tokens) >= RECENT_SENTENCES:
                self._recent_tokens.clear()
            self._recent_tokens[line] = tuple(words)
        return words

    # -- scoring ---------------------------------------------------------------------
    def score_tokens(self, hyp: List[str], refs: Sequence[List[str]]) -> SegmentScore:
        """Score pre-tokenised text (no normalisation applied).  Safe to call from several threads."""
        for name, tokens in (("hyp", hyp), *((f"refs[{k}]", r) for k, r in enumerate(refs))):
            for j, token in enumerate(tokens):
                if isinstance(token, str):
                    checked_text(token, f"{name}[{j}]")
        with self._lock:
            return best_reference(hyp, refs, self.config, self.resources)

    def score_segment(self, hyp: str, refs: Union[str, Sequence[Optional[str]]]) -> SegmentScore:
        """Score one hypothesis against one or more references (the best reference wins, as in Meteor).

        ``None`` entries of ``refs`` are missing references (skipped; ``ref_index``
        counts them), at least one reference is needed.  Safe to call from several threads
        on one object (they take turns).
        """
        if not isinstance(hyp, str):
            raise TypeError(f"hyp must be a string, not {type(hyp).__name__} (use '' for an empty output)")
        checked_text(hyp, "hyp")
        listed = segment_references(refs)
        if all(r is None for r in listed):
            references_per_segment([listed], 1, "segments")  # raises InputError: no reference
        with self._lock:
            return self._score_range([hyp], [listed], 0, 1)[0]

    def score_pairs(self, pairs: Iterable[Tuple[str, str]]) -> List[SegmentScore]:
        """Score many (hypothesis, reference) pairs in one call: ``[score_segment(h, [r]) for h, r in pairs]``.

        The same scores, faster: each distinct sentence is normalised, tokenised and looked up once, and
        the resources of a block of pairs in one batched pass (:mod:`meteor_lite.pairwise`).  With the
        compiled kernels, two usable CPUs and 256 pairs or more, a second thread aligns each step of pairs
        while the next is prepared (``METEOR_LITE_ONE_THREAD=1`` keeps one thread).  For rewards, filtering
        and tuning loops that score many new pairs.  Safe to call from several threads (they take turns).
        """
        return pairwise.score_pairs(self, pairs)

    def score_matrix(self, hyps: Sequence[str], refs: Sequence[str]) -> List[List[SegmentScore]]:
        """Every hypothesis against every reference: ``scores[i][j] == score_segment(hyps[i], [refs[j]])``.

        Minimum-Bayes-risk decoding's utility matrix (pass the same candidate list twice to score each
        candidate against the others as pseudo-references).  Each distinct sentence is prepared once for
        the whole matrix (:mod:`meteor_lite.pairwise`); as :meth:`score_pairs`, a large matrix is aligned in
        two threads.
        """
        return pairwise.score_matrix(self, hyps, refs)

    def score_corpus(
        self,
        hyps: Sequence[str],
        refs: Sequence[Sequence[Optional[str]]],
        *,
        layout: Optional[str] = None,
        jobs: int = 1,
    ) -> CorpusScore:
        """Score a corpus; the best reference of each hypothesis counts, as in Meteor.

        ``refs`` is read in ``layout``:

        * ``"streams"`` (sacreBLEU style, the command line): a list of reference
          streams, each with one entry per hypothesis (``refs[k][i]`` is stream
          ``k``'s reference for ``hyps[i]``; ``None`` where a stream has none);
        * ``"segments"`` (COCO style): one list per hypothesis, of any length
          (``refs[i]`` holds the references of ``hyps[i]``; ``None`` entries skipped).

        Without ``layout`` only the streams shape that cannot be read the other
        way is taken (every list as long as ``hyps`` and the number of lists not
        equal to the number of hypotheses); any other shape raises
        :class:`InputError` saying what to pass (see :mod:`meteor_lite.inputs`).

        The corpus score comes from the summed sufficient statistics of the
        segments (as Meteor's ``Final score``), not from averaging segment scores.
        ``jobs`` > 1 scores shards of the corpus in that many processes (``0``: one
        per idle CPU, at most 4, see :func:`~meteor_lite.parallel.default_jobs`); results are
        identical whatever the number of jobs.  Safe to call from several threads on one
        object (they take turns: one corpus at a time).
        """
        hyp_list = hypothesis_list(hyps)
        per_seg = references_per_segment(refs, len(hyp_list), layout)
        jobs = _jobs(jobs)
        n = len(hyp_list)
        with self._lock:
            if jobs > 1 and n >= 2 * MIN_SHARD and can_fork():
                segs = map_shards(
                    lambda b, e: self._score_range(hyp_list, per_seg, b, e, WORKER_BLOCK), self._reopen, n, jobs
                )
                self._check_bundle()
            else:
                segs = self._score_range(hyp_list, per_seg, 0, n)
        return self.aggregate(segs)

    def iter_segments(
        self, segments: Iterable[Tuple[str, Union[str, Sequence[Optional[str]]]]], *, jobs: int = 1
    ) -> Iterator[SegmentScore]:
        """Score ``(hypothesis, references)`` pairs as they come; yield each segment's score, in order.

        The streaming twin of :meth:`score_corpus` (references per segment, as its ``"segments"``
        layout: a string or a list, ``None`` entries skipped): ``segments`` is read in blocks
        (a few thousand segments ahead at most, a few per worker with ``jobs`` > 1), so memory
        does not grow with the corpus.  Sum the statistics with :class:`RunningTotal` and
        :meth:`total_score` for the corpus score: the same numbers, bit for bit, as
        :meth:`score_corpus` on the same corpus, whatever ``jobs``.
        """
        jobs = _jobs(jobs)
        pairs = (_checked_pair(i, h, r) for i, (h, r) in enumerate(segments))
        first = list(islice(pairs, max(jobs, 1) * STREAM_TASK))
        ended = len(first) < max(jobs, 1) * STREAM_TASK
        if jobs > 1 and can_fork() and not (ended and len(first) < 2 * MIN_SHARD):
            if ended:  # a short corpus: one shard per worker, as score_corpus
                size = max(MIN_SHARD, -(-len(first) // jobs))
                blocks: Iterable[List[Tuple[str, List[Optional[str]]]]] = [
                    first[b : b + size] for b in range(0, len(first), size)
                ]
            else:
                blocks = batches(chain(first, pairs), STREAM_TASK)
            with self._lock:
                for part in map_blocks(self._score_task, self._reopen, blocks, jobs):
                    yield from part
                self._check_bundle()
            return
        for block in batches(chain(first, pairs), BLOCK):
            yield from self._score_pairs(block, BLOCK)

    def _score_task(self, block: List[Tuple[str, List[Optional[str]]]]) -> List[SegmentScore]:
        """A worker's task of :meth:`iter_segments`."""
        return self._score_pairs(block, WORKER_BLOCK)

    def _score_pairs(self, block: List[Tuple[str, List[Optional[str]]]], prefetch: int) -> List[SegmentScore]:
        """Score a block of checked (hypothesis, references) pairs, one prefetch per ``prefetch`` segments."""
        hyps = [h for h, _ in block]
        refs = [r for _, r in block]
        with self._lock:
            return self._score_range(hyps, refs, 0, len(block), prefetch)

    def total_score(self, total: RunningTotal) -> CorpusScore:
        """The corpus score of the segments summed in ``total`` (its ``segments`` list is empty)."""
        return CorpusScore(*self._corpus(total.stats), [], self.config, self.signature)

    def _corpus(self, total: Stats) -> Tuple[float, Metrics, Stats]:
        n = len(self.config.modules)
        for lst in (total.test_content, total.ref_content, total.test_function, total.ref_function):
            while len(lst) < n:
                lst.append(0.0)
        m = config_metrics(self.config, total)
        return m.score, m, total

    def _score_range(
        self, hyps: Sequence[str], refs: Sequence[Sequence[Optional[str]]], start: int, end: int,
        block: Optional[int] = None,
    ) -> List[SegmentScore]:
        """Score segments ``start`` to ``end`` (exclusive) against their reference lists, one prefetch per
        ``block`` segments (default :data:`BLOCK`); then check that the bundle file was not written meanwhile."""
        block = block or BLOCK
        segs: List[SegmentScore] = []
        try:
            with gc_paused() if end - start >= _PAUSE_GC_FROM else contextlib.nullcontext(), self._reading(), \
                    self._aligner(end - start) as aligner:
                for b in range(start, end, block):
                    segs.extend(self._score_block(hyps, refs, b, min(b + block, end), aligner))
                self.resources.forget_walks()
        except sqlite3.DatabaseError:
            self._check_bundle()  # a bundle written while scoring: say so, rather than "malformed"
            raise
        self._check_bundle()
        return segs

    def _reading(self) -> "contextlib.AbstractContextManager[object]":
        """One read transaction of the bundle around a block of lookups (:meth:`Bundle.reading`); none when the
        look-ups make no query (the tables mapped or held in memory)."""
        if self.bundle is None or not self.resources.queries_bundle:
            return contextlib.nullcontext()
        return self.bundle.reading()

    def _check_bundle(self) -> None:
        """:class:`BundleError` if the bundle file was written since it was opened (and verified)."""
        if self.bundle is not None:
            self.bundle.check_unchanged()

    def _aligner(self, segments: int) -> "contextlib.AbstractContextManager[Optional[ThreadPoolExecutor]]":
        """The second thread that aligns a range of ``segments`` segments, when :func:`pairwise.two_threads` says so
        (the compiled kernels, a second CPU, enough segments, :attr:`align_thread` on); else None."""
        if pairwise.two_threads(self, segments):
            return pairwise.second_thread()
        return contextlib.nullcontext()

    def _score_block(
        self, hyps: Sequence[str], refs: Sequence[Sequence[Optional[str]]], b: int, e: int,
        aligner: Optional[ThreadPoolExecutor] = None,
    ) -> List[SegmentScore]:
        """Score segments ``b`` to ``e`` after one prefetch of their resources; with ``aligner``, their pairs are
        aligned in that thread while this one prepares the next step's sentences (:func:`pairwise.in_two_threads`)."""
        toks_h = [self.tokens(h) for h in hyps[b:e]]
        kept = [[(k, r) for k, r in enumerate(refs[i]) if r is not None] for i in range(b, e)]
        toks_r = [[self.tokens(r) for _, r in ks] for ks in kept]
        self._prefetch(toks_h + [r for rs in toks_r for r in rs])
        if aligner is not None:
            segs = pairwise.in_two_threads(self, pairwise.segment_steps(self, toks_h, toks_r), aligner)
        else:
            segs = [best_reference(h, rs, self.config, self.resources) for h, rs in zip(toks_h, toks_r)]
        for seg, ks in zip(segs, kept):
            seg.ref_index = ks[seg.ref_index][0]
        return segs

    def _reopen(self) -> None:
        """Give this (forked) process its own connection to the bundle: the very file the parent verified.

        The worker opens the bundle by its path; a file renamed over it or written since the parent
        opened (and verified) it has another identity and is refused (:class:`BundleError`), so no
        worker scores with a bundle nobody verified.
        """
        self._lock = threading.RLock()  # the parent's is held (by the thread that forked this worker)
        self.align_thread = False  # one worker per CPU already
        if self.bundle is not None:
            fresh = Bundle.open(self.bundle.path)
            if self.bundle.identity is not None and fresh.identity != self.bundle.identity:
                fresh.close()
                raise BundleError(
                    f"{self.bundle.path}: the bundle file was replaced or changed during the run (after it was "
                    "opened and verified); a worker process will not score with it: run again"
                )
            self.bundle = fresh
            self.resources.bundle = fresh

    def prefetch(self, sentences: Sequence[Sequence[str]]) -> None:
        """Look up the resources of many tokenised sentences at once (fewer, larger queries)."""
        with self._lock:
            self._prefetch(sentences)

    def _prefetch(self, sentences: Sequence[Sequence[str]]) -> None:
        mods = self.config.modules
        res = self.resources
        if self.config.case_aware:  # the later modules look up lower-cased words (matches.collect_matches)
            sentences = [[java_lower(w) for w in s] for s in sentences]
        kernels = pair_kernel(self.config)
        stems, synsets = modules_needing(mods, "stem"), modules_needing(mods, "synonyms")
        if kernels is not None:
            # the records the pair kernel packs sentences from (stems and synsets of new words among them)
            res.word_records([w for s in sentences for w in s], stems, synsets)
        elif stems or synsets:
            vocab = sorted({w for s in sentences for w in s})
            if stems:
                res.stems(vocab)
            if synsets:
                res.synsets(vocab)
        # with the mapped table, the pair kernel finds each sentence's phrases as it packs it (scoring.prepare_side)
        if modules_needing(mods, "paraphrases") and (kernels is None or res.table_to_walk(kernels) is None):
            res.paraphrase_table(sentences)

    def aggregate(self, segments: List[SegmentScore]) -> CorpusScore:
        """Corpus score of already scored segments (warns when some were aligned in bounded mode)."""
        total = RunningTotal()
        for s in segments:
            total.add(s)
        warn_bounded(total, stacklevel=3)
        return CorpusScore(*self._corpus(total.stats), segments, self.config, self.signature)

    # -- reproducibility ----------------------------------------------------------
    @property
    def signature(self) -> str:
        """Everything that changes the number, in one line (sacreBLEU-style)."""
        return make_signature(self.config, self.bundle, self.tokenizer)


#: The environment variable that turns ``preload`` on for scorers that do not choose (``preload=None``).
PRELOAD_ENV = "METEOR_LITE_PRELOAD"


def preload_requested() -> bool:
    """Whether the environment asks scorers to hold their tables in memory (``METEOR_LITE_PRELOAD``, read as
    :func:`meteor_lite.accel.env_switch` reads a switch)."""
    return env_switch(PRELOAD_ENV)


def jar_norm_meteor(lang: str, norm: Optional[bool] = None, **options: object) -> Meteor:
    """The scorer of an adapter whose default is the jar's ``-norm`` (``hf``, ``metrics.METEOR``).

    ``norm=None`` (the adapters' default) means ``-norm``, except for a tuned task that carries its own
    normalisation (``task="mqm"``) when no other text option (``lower``, ``case_aware``, ``no_punct``) is
    given: that set is then scored as it was tuned, as ``meteor-lite score --task mqm`` does.  ``True`` or
    ``False`` is passed on as it is.
    """
    if norm is not None:
        return Meteor(lang, norm=norm, **options)  # type: ignore[arg-type]
    task = options.get("task")
    chosen = any(options.get(k) for k in ("lower", "case_aware", "no_punct"))
    if isinstance(task, str) and task.strip().lower() not in (*TASKS, "default") and not chosen:
        # quiet: a set that carries no normalisation is scored with -norm below, and this scorer's notes
        # (e.g. "tuned on 'norm', this scoring uses 'none'") would describe a scoring that does not happen
        scorer = Meteor(lang, **{**options, "quiet": True})  # type: ignore[arg-type]
        if scorer.config.norm_label != "none":
            if not options.get("quiet"):
                for note in scorer.warnings:
                    warnings.warn(note, MeteorLiteWarning, stacklevel=3)
            return scorer
    return Meteor(lang, norm=True, **options)  # type: ignore[arg-type]


def warn_bounded(total: RunningTotal, stacklevel: int = 2) -> None:
    """The warning that some segments of a corpus were aligned in bounded mode (none when none were)."""
    if total.bounded:
        warnings.warn(
            f"{total.bounded} segment(s) (first: segment {total.first_bounded[0]}) had too many candidate matches "
            "for the beam search and were aligned in bounded mode: their scores may differ from Meteor 1.5's "
            "(flagged \"bounded\" in --format json; see meteor_lite.align.bounded)",
            MeteorLiteWarning,
            stacklevel=stacklevel,
        )


def _jobs(jobs: object) -> int:
    """``jobs`` checked (an int >= 0), 0 replaced by :func:`~meteor_lite.parallel.default_jobs`."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise TypeError(f"jobs takes an int >= 0 (0: one process per idle CPU, at most 4), not {jobs!r}")
    return jobs if jobs else default_jobs()


def _checked_pair(
    i: int, hyp: object, refs: Union[str, Sequence[Optional[str]]]
) -> Tuple[str, List[Optional[str]]]:
    """Segment ``i``'s hypothesis and references checked as :meth:`Meteor.score_corpus` checks them."""
    if not isinstance(hyp, str):
        hint = " (use '' for an empty output)" if hyp is None else ""
        raise TypeError(f"hyps[{i}] is {type(hyp).__name__ if hyp is not None else 'None'}: every hypothesis must be a string{hint}")
    out = segment_references(refs, f"refs[{i}]")
    if all(r is None for r in out):
        raise InputError(f"hypothesis {i} has no reference (refs[{i}] is empty or all None); Meteor needs at least one")
    return hyp, out


#: Scoring this many segments or more pauses the cyclic GC (one request allocates too little to wake it).
_PAUSE_GC_FROM = 16
