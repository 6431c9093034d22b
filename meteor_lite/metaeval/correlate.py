"""Segment- and system-level correlation of a metric with human judgments, with bootstrap CIs.

Levels and groupings (mt-metrics-eval's ``average_by``):

* segment level, ``none``: one correlation over every judged (system, segment) pair;
* segment level, ``sys``: one correlation per system over its segments, averaged (NaN dropped);
* segment level, ``item``: one correlation per segment over the systems' outputs, averaged;
* system level: one correlation over the systems' scores (human: mean judgment; metric: the
  corpus score from summed statistics when meteor-lite JSON was given, else the mean segment score).

Confidence intervals resample the *items* (segments, each with every system's output) with
replacement, ``bootstrap`` times from a seeded generator, and report the percentile interval.
The paired permutation test (PERM-BOTH, Deutsch et al. 2021, as mt-metrics-eval) z-scores both
metrics, swaps each segment's two scores with probability 1/2, and gives the share of swaps whose
difference is at least the observed one: the p-value that metric 2 correlates better than metric 1.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..errors import ConfigError, InputError
from ..stats import Stats, compute
from .data import Judgments, Matrix, MetricScores
from .stats import (
    agreement,
    kendall,
    kendall_all,
    mean_ignoring_nan,
    optional_mean,
    pearson,
    quantile,
    spearman,
    tie_calibrated,
)

__all__ = [
    "SEGMENT_STATS",
    "SYSTEM_STATS",
    "GROUPINGS",
    "Aligned",
    "Result",
    "align",
    "evaluate",
    "bootstrap",
    "permutation_test",
    "correlate",
    "statistic",
    "parse_key",
    "CALIBRATED",
    "Key",
]

Vec = Sequence[float]
#: segment-level statistics: name -> None (Pearson / Spearman) or the Kendall variant
SEGMENT_STATS: Dict[str, Optional[str]] = {
    "pearson": None,
    "spearman": None,
    "kendall-b": "b",
    "kendall-c": "c",
    "tau23": "23",
    "acc23": "acc23",
}
#: segment-level statistics with a tie threshold search (one ε over all rows)
CALIBRATED = {"acc-eq": "acc23", "tau23-eq": "23"}
SYSTEM_STATS: Dict[str, Callable[[Vec, Vec], float]] = {
    "pearson": pearson,
    "spearman": spearman,
    "kendall-b": lambda h, m: kendall(h, m, "b"),
    "kendall-c": lambda h, m: kendall(h, m, "c"),
    "pairwise-acc": agreement,
}
GROUPINGS = ("none", "sys", "item")
Key = Tuple[str, str, str]  # (level, grouping, statistic)


@dataclass
class Aligned:
    """Human and metric scores on the same systems x items grid (metric None where gold is None)."""

    systems: List[str]
    items: List[str]
    gold: Matrix
    metric: Matrix
    #: system score of a resample (item indices) -> one score per system
    system_score: Callable[[Sequence[int]], List[float]]


@dataclass
class Result:
    """Statistic values, intervals, tie thresholds and (with two metrics) permutation p-values."""

    values: Dict[Key, float]
    intervals: Dict[Key, Tuple[float, float]] = field(default_factory=dict)
    thresholds: Dict[Key, float] = field(default_factory=dict)
    p_values: Dict[Key, float] = field(default_factory=dict)


def _stat_params(signature: str) -> Optional[Tuple[float, float, float, float, List[float]]]:
    """(α, β, γ, δ, weights) from a meteor-lite signature, or None."""
    parts = dict(p.split(":", 1) for p in signature.split("|") if ":" in p)
    try:
        return (float(parts["a"]), float(parts["b"]), float(parts["g"]), float(parts["d"]),
                [float(w) for w in parts["w"].split(",")])
    except (KeyError, ValueError):
        return None


def _system_scorer(metric: MetricScores, systems: List[str], items: List[str], matrix: Matrix):
    """System scores for a resample: re-summed statistics (meteor-lite JSON) or mean segment score."""
    params = _stat_params(metric.signature) if metric.stats else None
    every = list(range(len(items)))

    def score(cols: Sequence[int]) -> List[float]:
        """One score per system over the item columns ``cols``."""
        out = []
        for s, name in enumerate(systems):
            if list(cols) == every and name in metric.system_scores:
                out.append(metric.system_scores[name])
                continue
            keys = [(name, items[c]) for c in cols]
            if params is not None and all(k in metric.stats for k in keys):
                total = Stats()
                for k in keys:
                    total.add(Stats(**metric.stats[k]))
                a, b, g, d, w = params
                out.append(compute(total, a, b, g, d, w).score)
            else:
                mean = optional_mean([matrix[s][c] for c in cols])
                out.append(math.nan if mean is None else mean)
        return out

    return score


def align(judgments: Judgments, metric: MetricScores, include_human: bool = True) -> Aligned:
    """Put ``metric`` on the judgments' grid; every judged segment needs a metric score."""
    keep = [s for s, name in enumerate(judgments.systems) if include_human or name not in judgments.human_systems]
    systems = [judgments.systems[s] for s in keep]
    gold = [judgments.gold[s] for s in keep]
    matrix: Matrix = []
    for name, row in zip(systems, gold):
        out: List[Optional[float]] = []
        for item, g in zip(judgments.items, row):
            value = metric.segments.get((name, item))
            if g is not None and value is None:
                raise InputError(f"{metric.name}: no score for system {name!r} segment {item!r}")
            out.append(value if g is not None else None)
        matrix.append(out)
    if len(systems) < 2:
        raise InputError("fewer than 2 systems to correlate")
    return Aligned(systems, list(judgments.items), gold, matrix, _system_scorer(metric, systems, judgments.items, matrix))


def _rows(data: Aligned, cols: Sequence[int], grouping: str) -> List[Tuple[List[float], List[float]]]:
    """(human, metric) vectors of one grouping over the item columns ``cols``."""
    def row(cells: Sequence[Tuple[int, int]]) -> Tuple[List[float], List[float]]:
        """The judged cells among ``cells`` as (human, metric) vectors."""
        kept = [(data.gold[s][c], data.metric[s][c]) for s, c in cells if data.gold[s][c] is not None]
        return [float(h) for h, _ in kept], [float(m) for _, m in kept]  # type: ignore[arg-type]

    nsys = range(len(data.systems))
    if grouping == "none":
        return [row([(s, c) for s in nsys for c in cols])]
    if grouping == "sys":
        return [row([(s, c) for c in cols]) for s in nsys]
    return [row([(s, c) for s in nsys]) for c in cols]


def evaluate(
    data: Aligned,
    cols: Optional[Sequence[int]] = None,
    groupings: Sequence[str] = GROUPINGS,
    max_pairs: int = 200_000,
    seed: int = 0,
) -> Tuple[Dict[Key, float], Dict[Key, float]]:
    """(every statistic at every level, tie thresholds of the calibrated ones) over items ``cols``."""
    cols = list(range(len(data.items))) if cols is None else cols
    values: Dict[Key, float] = {}
    thresholds: Dict[Key, float] = {}
    for grouping in groupings:
        rows = [r for r in _rows(data, cols, grouping) if len(r[0]) >= 2]
        per_row = [dict(kendall_all(h, m), pearson=pearson(h, m), spearman=spearman(h, m)) for h, m in rows]
        for name, variant in SEGMENT_STATS.items():
            values[("seg", grouping, name)] = mean_ignoring_nan([r[variant or name] for r in per_row])
        calibrated = tie_calibrated(rows, max_pairs=max_pairs, seed=seed)
        for name, variant in CALIBRATED.items():
            values[("seg", grouping, name)], thresholds[("seg", grouping, name)] = calibrated[variant]
    human = [optional_mean([data.gold[s][c] for c in cols]) for s in range(len(data.systems))]
    metric = data.system_score(cols)
    pairs = [(h, m) for h, m in zip(human, metric) if h is not None and not math.isnan(m)]
    for name, fn in SYSTEM_STATS.items():
        values[("sys", "-", name)] = fn([h for h, _ in pairs], [m for _, m in pairs])
    return values, thresholds


def bootstrap(
    data: Aligned,
    samples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    progress: Optional[Callable[[int], None]] = None,
    **kw: object,
) -> Dict[Key, Tuple[float, float]]:
    """Percentile intervals of every statistic over ``samples`` item resamples (seeded)."""
    rng = random.Random(seed)
    n = len(data.items)
    draws: Dict[Key, List[float]] = {}
    for b in range(samples):
        cols = [rng.randrange(n) for _ in range(n)]
        values, _ = evaluate(data, cols, seed=seed + b + 1, **kw)  # type: ignore[arg-type]
        for key, value in values.items():
            if not math.isnan(value):
                draws.setdefault(key, []).append(value)
        if progress:
            progress(b + 1)
    tail = (1.0 - confidence) / 2.0
    return {k: (quantile(sorted(v), tail), quantile(sorted(v), 1.0 - tail)) for k, v in draws.items()}


def _zscored(data: Aligned) -> Matrix:
    """The metric matrix z-scored over its judged cells (population standard deviation)."""
    cells = [v for row in data.metric for v in row if v is not None]
    mean = math.fsum(cells) / len(cells)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in cells) / len(cells)) or 1.0
    return [[None if v is None else (v - mean) / sd for v in row] for row in data.metric]


def permutation_test(
    first: Aligned,
    second: Aligned,
    samples: int = 1000,
    seed: int = 0,
    progress: Optional[Callable[[int], None]] = None,
    **kw: object,
) -> Dict[Key, float]:
    """Segment-level p-values that ``second`` correlates better than ``first`` (PERM-BOTH).

    System-level statistics are not tested (they would need both metrics' statistics swapped).
    """
    z1, z2 = _zscored(first), _zscored(second)
    noop = first.system_score

    def on(matrix: Matrix) -> Dict[Key, float]:
        """Segment-level statistics with ``matrix`` as the metric's scores."""
        data = Aligned(first.systems, first.items, first.gold, matrix, noop)
        return {k: v for k, v in evaluate(data, seed=seed, **kw)[0].items() if k[0] == "seg"}  # type: ignore[arg-type]

    base1, base2 = on(z1), on(z2)
    observed = {k: base2[k] - base1[k] for k in base1}
    rng = random.Random(seed)
    hits = dict.fromkeys(observed, 0)
    for b in range(samples):
        m1: Matrix = []
        m2: Matrix = []
        for r1, r2 in zip(z1, z2):
            swap = [rng.random() < 0.5 for _ in r1]
            m1.append([b_ if w else a for a, b_, w in zip(r1, r2, swap)])
            m2.append([a if w else b_ for a, b_, w in zip(r1, r2, swap)])
        v1, v2 = on(m1), on(m2)
        for k in hits:
            if v2[k] - v1[k] >= observed[k] - 1e-12:
                hits[k] += 1
        if progress:
            progress(b + 1)
    return {k: hits[k] / samples for k in hits} if samples else {}


def correlate(
    judgments: Judgments,
    metric: MetricScores,
    other: Optional[MetricScores] = None,
    include_human: bool = True,
    samples: int = 1000,
    permutations: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    groupings: Sequence[str] = GROUPINGS,
    max_pairs: int = 200_000,
    resample_max_pairs: int = 50_000,
    progress: Optional[Callable[[str, int, int], None]] = None,
) -> Tuple[Result, Optional[Result]]:
    """Every statistic for ``metric`` (and ``other``) with intervals, and the permutation p-values.

    Tie calibration samples about ``max_pairs`` pairs for the reported value and
    ``resample_max_pairs`` in each bootstrap resample and permutation (for speed: the extra
    sampling noise can only widen the intervals of ``acc-eq`` / ``tau23-eq``).  ``progress(what,
    done, total)`` is called after each resample / permutation.
    """
    for what, n in (("samples", samples), ("permutations", permutations)):
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ConfigError(f"{what} must be a whole number >= 0 (0: none), got {n!r}")
    results: List[Result] = []
    data = [align(judgments, m, include_human) for m in ([metric] + ([other] if other else []))]
    for d in data:
        values, thresholds = evaluate(d, groupings=groupings, max_pairs=max_pairs, seed=seed)
        res = Result(values, thresholds=thresholds)
        if samples:
            what = f"bootstrap {len(results) + 1}"
            tick = (lambda i: progress(what, i, samples)) if progress else None  # noqa: B023 (used at once)
            res.intervals = bootstrap(
                d, samples, seed, confidence, progress=tick, groupings=groupings, max_pairs=resample_max_pairs
            )
        results.append(res)
    if other is not None and permutations:
        results[1].p_values = permutation_test(
            data[0], data[1], permutations, seed, groupings=groupings, max_pairs=resample_max_pairs,
            progress=(lambda i: progress("permutations", i, permutations)) if progress else None,
        )
    return results[0], (results[1] if other is not None else None)


def statistic(data: Aligned, key: Key, cols: Optional[Sequence[int]] = None, max_pairs: int = 50_000) -> float:
    """One statistic, ``key`` = (level, grouping, name) as in :func:`evaluate`, over item columns ``cols``."""
    level, grouping, name = key
    cols = list(range(len(data.items))) if cols is None else cols
    if level == "sys":
        human = [optional_mean([data.gold[s][c] for c in cols]) for s in range(len(data.systems))]
        pairs = [(h, m) for h, m in zip(human, data.system_score(cols)) if h is not None and not math.isnan(m)]
        return SYSTEM_STATS[name]([h for h, _ in pairs], [m for _, m in pairs])
    rows = [r for r in _rows(data, cols, grouping) if len(r[0]) >= 2]
    if name in CALIBRATED:
        return tie_calibrated(rows, max_pairs=max_pairs)[CALIBRATED[name]][0]
    if name == "pearson":
        return mean_ignoring_nan([pearson(h, m) for h, m in rows])
    if name == "spearman":
        return mean_ignoring_nan([spearman(h, m) for h, m in rows])
    variant = SEGMENT_STATS[name]
    return mean_ignoring_nan([kendall(h, m, variant or "b") for h, m in rows])


def parse_key(text: str) -> Key:
    """``seg:sys:pearson`` / ``sys:pearson`` -> a statistic key (ValueError when unknown)."""
    parts = text.split(":")
    key: Key = ("sys", "-", parts[1]) if parts[0] == "sys" and len(parts) == 2 else (parts[0], parts[1], parts[2]) if len(parts) == 3 else ("", "", "")
    ok = (key[0] == "sys" and key[2] in SYSTEM_STATS) or (
        key[0] == "seg" and key[1] in GROUPINGS and (key[2] in SEGMENT_STATS or key[2] in CALIBRATED))
    if not ok:
        raise ValueError(f"unknown statistic {text!r} (e.g. seg:sys:pearson, seg:item:acc-eq, sys:pairwise-acc)")
    return key
