"""The driver's side of :mod:`meteor_lite.spark`: :func:`score_dataframe` and :func:`corpus_score`."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Tuple

from ..errors import ConfigError
from ..meteor import Meteor, warn_bounded
from ..scores import CorpusScore, RunningTotal
from .executor import BLOCK, ScoringPlan, partition_total, probe, score_rows, segment_scores

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType

__all__ = ["STATS_FIELDS", "corpus_score", "output_columns", "score_dataframe"]

#: The fields of the statistics column (a struct), in :class:`~meteor_lite.Stats`'s order; the four
#: ``*_content``/``*_function`` fields are arrays with one count per module (the configuration's order).
STATS_FIELDS = (
    "test_length", "ref_length", "test_function_words", "ref_function_words",
    "test_content", "ref_content", "test_function", "ref_function",
    "chunks", "test_word_matches", "ref_word_matches",
)
_ARRAY_FIELDS = {"test_content", "ref_content", "test_function", "ref_function"}
#: The per-segment columns :func:`score_dataframe` appends (after the prefix), in order.
_SEGMENT_COLUMNS = ("score", "precision", "recall", "f1", "fmean", "frag_penalty", "ref_index", "bounded", "stats")


def _require_pyspark() -> Any:
    try:
        import pyspark
    except ImportError:
        raise ImportError("meteor_lite.spark needs pyspark: pip install 'meteor-lite[spark]'") from None
    return pyspark


def output_columns(prefix: str = "meteor_") -> List[str]:
    """The names of the columns :func:`score_dataframe` appends."""
    return [prefix + c for c in _SEGMENT_COLUMNS]


def _stats_type() -> "StructType":
    from pyspark.sql.types import ArrayType, DoubleType, StructField, StructType

    return StructType([
        StructField(f, ArrayType(DoubleType(), False) if f in _ARRAY_FIELDS else DoubleType(), False)
        for f in STATS_FIELDS
    ])


def _output_schema(base: "StructType", prefix: str) -> "StructType":
    from pyspark.sql.types import BooleanType, DoubleType, IntegerType, StructField, StructType

    types = {"ref_index": IntegerType(), "bounded": BooleanType(), "stats": _stats_type()}
    fields = list(base.fields)
    taken = {f.name for f in fields}
    for c in _SEGMENT_COLUMNS:
        name = prefix + c
        if name in taken:
            raise ConfigError(f"the DataFrame already has a column {name!r}: choose another prefix= for the score columns")
        fields.append(StructField(name, types.get(c, DoubleType()), False))
    return StructType(fields)


def _column_index(columns: Sequence[str], name: str, what: str) -> int:
    if not isinstance(name, str):
        raise TypeError(f"{what} takes a column name, not {type(name).__name__}")
    if name not in columns:
        raise ConfigError(f"{what}: the DataFrame has no column {name!r} (its columns: {', '.join(columns)})")
    return list(columns).index(name)


def _plan(df: "DataFrame", lang: str, hyp_col: str, ref_cols: Sequence[str], ship_bundle: bool,
          options: Dict[str, Any]) -> Tuple[Meteor, ScoringPlan]:
    """The driver's scorer (options checked, bundle opened and verified) and the plan the executors follow."""
    _require_pyspark()
    if isinstance(ref_cols, str) or not ref_cols:
        raise ConfigError("ref_cols takes a non-empty list of reference column names (e.g. ref_cols=['ref'])")
    bundle = options.pop("bundle", None)
    quiet = bool(options.pop("quiet", False))
    if "jobs" in options:
        raise ConfigError("jobs is not an option here: Spark's executors and partitions set the parallelism")
    meteor = Meteor(lang, bundle=bundle, quiet=quiet, **options)
    path = str(Path(meteor.bundle.path).resolve()) if meteor.bundle is not None else None
    shipped = None
    if ship_bundle and path is not None:
        df.sparkSession.sparkContext.addFile(path)
        shipped = os.path.basename(path)
    cols = df.columns
    plan = ScoringPlan(
        lang=lang,
        options=tuple(sorted(options.items())),
        bundle_path=path,
        shipped_name=shipped,
        bundle_name=_bundle_name(path),
        signature=meteor.signature,
        hyp_index=_column_index(cols, hyp_col, "hyp_col"),
        ref_indexes=tuple(_column_index(cols, c, "ref_cols") for c in ref_cols),
        block=BLOCK,
    )
    return meteor, plan


def _bundle_name(path: Optional[str]) -> Optional[str]:
    """The name a bundle file is found by on the search path (``en`` for ``.../en.sqlite``)."""
    if path is None:
        return None
    name = os.path.basename(path)
    return name[: -len(".sqlite")] if name.endswith(".sqlite") else None


def score_dataframe(
    df: "DataFrame",
    lang: str = "en",
    *,
    hyp_col: str = "hyp",
    ref_cols: Sequence[str] = ("ref",),
    prefix: str = "meteor_",
    ship_bundle: bool = False,
    **options: Any,
) -> "DataFrame":
    """``df`` with each row's METEOR score and statistics appended as columns (lazily: nothing runs until an action).

    ``hyp_col`` holds the hypothesis, ``ref_cols`` the references (one column per reference set; a
    ``None`` reference is missing, and a row needs at least one).  ``options`` are
    :class:`~meteor_lite.Meteor`'s (``task``, ``params``, ``modules``, ``weights``, ``beam``, ``norm``,
    ``lower``, ``no_punct``, ``char_based``, ``case_aware``, ``tokenize``, ``bundle``,
    ``allow_other_language``, ``quiet``).  ``lang`` and the options are checked on the driver: a wrong one raises here.  The appended columns (:func:`output_columns`) are
    ``{prefix}score``, ``precision``, ``recall``, ``f1``, ``fmean``, ``frag_penalty`` (doubles),
    ``ref_index`` (the best reference's position in ``ref_cols``), ``bounded`` and ``stats``, a struct of
    the sufficient statistics (:data:`STATS_FIELDS`).  The bundle is opened and verified here, on the
    driver; each executor opens and verifies the same file when it sees the path (shared storage), else the
    bundle of the same name on its own search path (a pack installed on every node), or, with
    ``ship_bundle``, the copy Spark distributes with the job (:meth:`SparkContext.addFile`); an executor whose
    scorer's signature (which holds the bundle's checksum) differs from the driver's refuses to score.

    Before returning, one small job (a task per default partition, no rows) builds the scorer on the
    executors, so that one that cannot score (its Python lacks meteor-lite, it sees no bundle, its scorer
    differs) raises here the one-line :class:`~meteor_lite.ConfigError` / :class:`~meteor_lite.BundleError`
    :func:`corpus_score` raises, rather than a Spark error at the DataFrame's first action.  Executors the
    cluster adds later are not probed.
    """
    meteor, plan = _plan(df, lang, hyp_col, ref_cols, ship_bundle, dict(options))
    sc = df.sparkSession.sparkContext
    slots = max(1, int(sc.defaultParallelism))
    with _executor_errors():
        sc.parallelize(range(slots), slots).mapPartitions(lambda rows: probe(plan, rows)).collect()
    n_modules = len(meteor.config.modules)
    rdd = df.rdd.mapPartitions(lambda rows: score_rows(plan, n_modules, rows))
    return df.sparkSession.createDataFrame(rdd, _output_schema(df.schema, prefix))


def corpus_score(
    df: "DataFrame",
    lang: str = "en",
    *,
    hyp_col: str = "hyp",
    ref_cols: Sequence[str] = ("ref",),
    segments: bool = True,
    ship_bundle: bool = False,
    **options: Any,
) -> CorpusScore:
    """The :class:`~meteor_lite.CorpusScore` of ``df``'s rows, as ``meteor-lite score`` gives it.

    With ``segments`` (the default) every segment's :class:`~meteor_lite.SegmentScore` comes back to the
    driver, in the DataFrame's order, and :meth:`Meteor.aggregate` sums them: the result equals
    :meth:`Meteor.score_corpus` on the same segments bit for bit (score, statistics, segments, signature).
    With ``segments=False`` each partition sums its statistics on its executor (:meth:`Stats.add`, as
    :meth:`Meteor.aggregate` does) and only the partition totals reach the driver (``segments`` is then
    empty); the corpus score is the same, bit for bit: every statistic is a whole number of words or
    characters, so the sums are exact in any grouping (up to 2**53).  Options as :func:`score_dataframe`.
    """
    _require_pyspark()
    refs = [ref_cols] if isinstance(ref_cols, str) else list(ref_cols)
    for c in [hyp_col, *refs]:
        _column_index(df.columns, c, "hyp_col" if c is hyp_col else "ref_cols")
    narrow = df.select(*dict.fromkeys([hyp_col, *refs]))  # only the text columns travel
    meteor, plan = _plan(narrow, lang, hyp_col, ref_cols, ship_bundle, dict(options))
    if segments:
        with _executor_errors():
            segs = narrow.rdd.mapPartitions(lambda rows: segment_scores(plan, rows)).collect()
        return meteor.aggregate(segs)
    with _executor_errors():
        totals = narrow.rdd.mapPartitions(lambda rows: partition_total(plan, rows)).collect()
    return _corpus_from_totals(meteor, totals)


#: meteor-lite's errors, as a Python worker's traceback names them inside Spark's error
_WORKER_ERROR = re.compile(r"^meteor_lite\.errors\.(\w+): (.*)$", re.MULTILINE)

#: A module the executors' Python cannot import (their Python is not the one meteor-lite is installed in)
_WORKER_MISSING_MODULE = re.compile(r"^ModuleNotFoundError: No module named '([^']+)'$", re.MULTILINE)


@contextlib.contextmanager
def _executor_errors() -> Iterator[None]:
    """A meteor-lite error raised on an executor (bad input, a bundle refused) raised again here as itself, in one line."""
    from .. import errors

    try:
        yield
    except Exception as exc:
        missing = _WORKER_MISSING_MODULE.search(str(exc))
        if missing is not None:
            raise errors.ConfigError(
                f"on an executor: its Python cannot import {missing.group(1)!r}: the executors must run a Python "
                "with meteor-lite and its dependencies installed (set PYSPARK_PYTHON or spark.pyspark.python "
                "before the session starts; docs/spark.md)") from None
        found = _WORKER_ERROR.search(str(exc))
        cls = getattr(errors, found.group(1), None) if found else None
        if found is None or not (isinstance(cls, type) and issubclass(cls, errors.MeteorLiteError)):
            raise
        raise cls(f"on an executor: {found.group(2)}") from None


def _corpus_from_totals(meteor: Meteor, totals: List[RunningTotal]) -> CorpusScore:
    """The corpus score of the partitions' totals, in partition order (no segments), warning about bounded
    segments as :meth:`Meteor.aggregate` does."""
    total = RunningTotal()
    for part in totals:
        total.merge(part)
    warn_bounded(total, stacklevel=4)
    return meteor.total_score(total)
