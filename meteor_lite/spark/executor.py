"""What runs in Spark's Python workers: one :class:`~meteor_lite.Meteor` per configuration and process, partitions scored in blocks.

Nothing here imports pyspark at module level (:class:`pyspark.SparkFiles` is imported only when the bundle
was shipped with the job), so the plan and the partition functions pickle by reference to this module.
"""

from __future__ import annotations

import os
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from ..errors import BundleError, BundleNotFoundError, InputError
from ..meteor import Meteor
from ..parallel import batches
from ..scores import RunningTotal, SegmentScore
from ..stats import Stats

__all__ = ["ScoringPlan", "scorer_for", "score_rows", "segment_scores", "partition_total", "probe"]

#: Segments per call of :meth:`Meteor.score_corpus` in a worker: one resource prefetch per block.
BLOCK = 1024


@dataclass(frozen=True)
class ScoringPlan:
    """What an executor needs to score as the driver does (sent to the executors, pickled)."""

    lang: str
    #: Meteor's keyword options (``bundle`` excluded: it is :attr:`bundle_path` or :attr:`shipped_name`)
    options: Tuple[Tuple[str, Any], ...]
    #: the bundle file the driver opened and verified (a path every executor sees), or None (no bundle)
    bundle_path: Optional[str]
    #: the file name under :func:`pyspark.SparkFiles.get` when the bundle was shipped with the job
    shipped_name: Optional[str]
    #: the bundle's name on the search path (``en``, ``de-wordfreq``): what an executor that does not see
    #: :attr:`bundle_path` opens instead (a pack or a bundle installed on every node); the signature check
    #: (which holds the content checksum) makes sure it is the same bundle
    bundle_name: Optional[str]
    #: the driver's signature: an executor whose scorer has another one refuses to score
    signature: str
    hyp_index: int
    ref_indexes: Tuple[int, ...]
    block: int = BLOCK

    def bundle_file(self) -> Optional[str]:
        """The bundle path in this process (the shipped copy, or the shared path)."""
        if self.shipped_name is not None:
            from pyspark import SparkFiles

            return str(SparkFiles.get(self.shipped_name))
        if self.bundle_path is None or os.path.isfile(self.bundle_path):
            return self.bundle_path
        from ..resources.locate import find_bundle

        found = find_bundle(self.bundle_name) if self.bundle_name else None
        if found is None:
            raise BundleNotFoundError(
                f"an executor sees neither the driver's bundle {self.bundle_path} nor a bundle named "
                f"{self.bundle_name!r} on its search path: put the bundle on storage every node sees, install its pack "
                "on every node, or pass ship_bundle=True"
            )
        return str(found)


_SCORERS: Dict[Tuple[Any, ...], Meteor] = {}
_SCORERS_LOCK = threading.Lock()


def scorer_for(plan: ScoringPlan) -> Meteor:
    """This process's scorer for ``plan`` (built, verified and checked against the driver's signature once)."""
    path = plan.bundle_file()
    key = (plan.lang, repr(plan.options), path)  # options may hold lists (modules, params)
    with _SCORERS_LOCK:
        scorer = _SCORERS.get(key)
        if scorer is None:
            with warnings.catch_warnings():  # the driver has already issued the configuration's warnings
                warnings.simplefilter("ignore")
                scorer = Meteor(plan.lang, bundle=path, quiet=True, **dict(plan.options))
            if scorer.signature != plan.signature:
                raise BundleError(
                    f"an executor's scorer differs from the driver's: its signature is {scorer.signature!r}, the "
                    f"driver's {plan.signature!r} (is the bundle at {path} the same file, and meteor-lite the same version?)"
                )
            scorer.align_thread = False  # Spark runs one task per core: a second thread would take another's
            _SCORERS[key] = scorer
        return scorer


def _score_block(scorer: Meteor, plan: ScoringPlan, block: List[Sequence[Any]], start: int) -> List[SegmentScore]:
    """The segments of ``block`` scored by :meth:`Meteor.score_corpus` (one prefetch), as the command line does.

    ``start``: the block's first row in its partition, for error messages (``row N of partition P``).
    """
    hyps = [row[plan.hyp_index] for row in block]
    refs = [[row[k] for k in plan.ref_indexes] for row in block]
    for i, (h, rs) in enumerate(zip(hyps, refs)):
        if not isinstance(h, str) or all(r is None for r in rs):
            what = "has no reference (every reference column is null)" if isinstance(h, str) else \
                f"has a {'null' if h is None else type(h).__name__} hypothesis (use '' for an empty output)"
            raise InputError(f"row {start + i + 1} of partition {_partition_id()} {what}")
    with warnings.catch_warnings():  # bounded segments are counted and reported by the driver
        warnings.simplefilter("ignore")
        return scorer.score_corpus(hyps, refs, layout="segments", jobs=1).segments


def _partition_id() -> int:
    try:
        from pyspark import TaskContext
    except ImportError:  # pragma: no cover
        return -1
    ctx = TaskContext.get()
    return ctx.partitionId() if ctx is not None else -1


def segment_scores(plan: ScoringPlan, rows: Iterable[Sequence[Any]]) -> Iterator[SegmentScore]:
    """Every row's :class:`SegmentScore`, in order."""
    done = 0
    for block in batches(rows, plan.block):
        yield from _score_block(scorer_for(plan), plan, block, done)
        done += len(block)


def stats_struct(st: Stats, n_modules: int) -> Tuple[Any, ...]:
    """The statistics as the values of :data:`meteor_lite.spark.scoring.STATS_FIELDS` (per-module lists padded to ``n_modules``)."""
    def pad(xs: List[float]) -> List[float]:
        return [float(x) for x in xs] + [0.0] * (n_modules - len(xs))

    return (
        float(st.test_length), float(st.ref_length), float(st.test_function_words), float(st.ref_function_words),
        pad(st.test_content), pad(st.ref_content), pad(st.test_function), pad(st.ref_function),
        float(st.chunks), float(st.test_word_matches), float(st.ref_word_matches),
    )


def score_rows(plan: ScoringPlan, n_modules: int, rows: Iterable[Sequence[Any]]) -> Iterator[Tuple[Any, ...]]:
    """Each row with the score columns appended (:func:`meteor_lite.spark.scoring.output_columns`)."""
    done = 0
    for block in batches(rows, plan.block):
        segs = _score_block(scorer_for(plan), plan, block, done)
        done += len(block)
        for row, seg in zip(block, segs):
            yield (*tuple(row), seg.score, seg.precision, seg.recall, seg.f1, seg.fmean, seg.frag_penalty,
                   seg.ref_index, seg.bounded, stats_struct(seg.stats, n_modules))


def partition_total(plan: ScoringPlan, rows: Iterable[Sequence[Any]]) -> Iterator[RunningTotal]:
    """One item per partition: its segments summed in order (:class:`RunningTotal`, as :meth:`Meteor.aggregate`)."""
    total = RunningTotal()
    for seg in segment_scores(plan, rows):
        total.add(seg)
    yield total


def probe(plan: ScoringPlan, rows: Iterable[Any]) -> Iterator[bool]:
    """One item per partition, after building this process's scorer for ``plan`` (what scoring does first): run
    by :func:`meteor_lite.spark.scoring.score_dataframe` so that an executor that cannot score (meteor-lite not
    importable, the bundle not found, another signature) is an error when the DataFrame is made, not a raw
    Spark error at its first action."""
    for _ in rows:
        pass
    scorer_for(plan)
    yield True
