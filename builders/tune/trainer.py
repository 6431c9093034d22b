"""Tune Meteor's α, β, γ, δ and module weights on human judgments (``meteor-build tune``).

α, β, γ, δ and the weights do not change the alignment, so the trainer reads each segment's
sufficient statistics once (``meteor-lite score --format json`` per system, one module set) and
re-scores from statistics for every candidate.  Search: coordinate ascent over a grid with
refinement (each round tries 11 values per parameter around the current best, then the step
shrinks threefold), maximising one statistic of :mod:`meteor_lite.metaeval.correlate`.

Honest figures: with cross-validation (k folds over segments, or leave one system out) every
segment is scored with parameters tuned without it; the statistic of those held-out scores is
reported beside the untuned default's, each with a bootstrap interval, and the paired bootstrap
interval of the difference decides whether a gain is claimed (its lower bound must be > 0).
Limitation: the JSON holds the best reference's statistics only, so with several references the
choice of the best one is the default parameters' (exact with one reference, as in the MQM sets).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from meteor_lite.metaeval.correlate import Aligned, Key, align, statistic
from meteor_lite.metaeval.data import Judgments, Matrix, MetricScores
from meteor_lite.stats import Stats, compute

__all__ = ["Params", "TuneReport", "tune", "RANGES"]

#: Search range of each parameter (Meteor 1.5's formula: α, γ, δ in [0, 1], β >= 0; weights [0, 1]).
RANGES = {"alpha": (0.0, 1.0), "beta": (0.0, 3.0), "gamma": (0.0, 1.0), "delta": (0.0, 1.0), "weight": (0.0, 1.0)}
Params = List[float]  # [alpha, beta, gamma, delta, w1, ..., wn]; w1 (exact) stays 1.0


@dataclass
class TuneReport:
    """What :func:`tune` found and how well it holds on held-out segments."""

    statistic: str
    default: Params
    chosen: Params
    train_value: float
    default_value: float
    heldout_value: Optional[float] = None
    heldout_interval: Tuple[float, float] = (math.nan, math.nan)
    default_interval: Tuple[float, float] = (math.nan, math.nan)
    gain_interval: Tuple[float, float] = (math.nan, math.nan)
    folds: List[Params] = field(default_factory=list)

    @property
    def gain_supported(self) -> bool:
        """True only when the paired interval of (held-out tuned - default) lies above 0."""
        return self.gain_interval[0] > 0.0


class _Scorer:
    """Per-cell statistics of one judgments grid; re-scores the grid for a parameter vector."""

    def __init__(self, judgments: Judgments, metric: MetricScores, include_human: bool):
        """Read every judged cell's statistics once."""
        self.base = align(judgments, metric, include_human)
        self.cells: List[List[Optional[Stats]]] = [
            [Stats(**metric.stats[(name, item)]) if g is not None else None for item, g in zip(self.base.items, row)]
            for name, row in zip(self.base.systems, self.base.gold)
        ]

    def data(self, params: Params, only: Optional[Sequence[int]] = None, into: Optional[Aligned] = None) -> Aligned:
        """The grid scored with ``params`` (systems ``only``, others copied from ``into``)."""
        a, b, g, d, w = params[0], params[1], params[2], params[3], params[4:]
        empty: Matrix = [[None] * len(self.base.items) for _ in self.cells]
        matrix: Matrix = [list(r) for r in into.metric] if into is not None else empty
        cells = self.cells

        for s in (range(len(cells)) if only is None else only):
            matrix[s] = [None if st is None else compute(st, a, b, g, d, w).score for st in cells[s]]

        def system_score(cols: Sequence[int]) -> List[float]:
            """Corpus score per system from the summed statistics of ``cols``."""
            out = []
            for row in cells:
                total = Stats()
                for c in cols:
                    if row[c] is not None:
                        total.add(row[c])  # type: ignore[arg-type]
                out.append(compute(total, a, b, g, d, w).score)
            return out

        return Aligned(self.base.systems, self.base.items, self.base.gold, matrix, system_score)


def _bounds(i: int) -> Tuple[float, float]:
    """Search range of parameter ``i`` (α, β, γ, δ, then weights)."""
    return RANGES[("alpha", "beta", "gamma", "delta")[i]] if i < 4 else RANGES["weight"]


def _search(objective: Callable[[Params], float], start: Params, rounds: int, tick: Callable[[], None]) -> Tuple[Params, float]:
    """Coordinate ascent on an 11-point grid per parameter, the step shrinking threefold per round."""
    best, best_value = list(start), objective(start)
    steps = [(_bounds(i)[1] - _bounds(i)[0]) / 10 for i in range(len(start))]
    for _ in range(rounds):
        for i in range(len(start)):
            if i == 4:  # the first module's weight (exact) is the scale: fixed at 1.0
                continue
            lo, hi = _bounds(i)
            for k in range(-5, 6):
                cand = list(best)
                cand[i] = round(min(hi, max(lo, best[i] + k * steps[i])), 6)
                if cand[i] == best[i]:
                    continue
                value = objective(cand)
                tick()
                if value > best_value + 1e-12:
                    best, best_value = cand, value
        steps = [s / 3 for s in steps]
    return best, best_value


def _folds(scorer: _Scorer, cv: str, k: int, seed: int) -> List[Tuple[List[int], List[int]]]:
    """(training, held-out) index lists: item columns (``items``) or system rows (``systems``)."""
    if cv == "systems":
        n = len(scorer.base.systems)
        return [([s for s in range(n) if s != h], [h]) for h in range(n)]
    items = list(range(len(scorer.base.items)))
    random.Random(seed).shuffle(items)
    parts = [sorted(items[f::k]) for f in range(k)]
    return [(sorted(set(items) - set(p)), p) for p in parts]


def _paired_bootstrap(key: Key, tuned: Aligned, default: Aligned, samples: int, seed: int) -> Dict[str, Tuple[float, float]]:
    """95% percentile intervals of the tuned and default statistics and of their difference."""
    rng = random.Random(seed)
    n = len(tuned.items)
    draws: Dict[str, List[float]] = {"tuned": [], "default": [], "gain": []}
    for _ in range(samples):
        cols = [rng.randrange(n) for _ in range(n)]
        t, d = statistic(tuned, key, cols), statistic(default, key, cols)
        if not (math.isnan(t) or math.isnan(d)):
            draws["tuned"].append(t)
            draws["default"].append(d)
            draws["gain"].append(t - d)
    out = {}
    for name, values in draws.items():
        values.sort()
        out[name] = (values[int(0.025 * (len(values) - 1))], values[int(math.ceil(0.975 * (len(values) - 1)))]) if values else (math.nan, math.nan)
    return out


def tune(
    judgments: Judgments,
    metric: MetricScores,
    default: Params,
    key: Key,
    cv: str = "items",
    folds: int = 5,
    rounds: int = 3,
    samples: int = 1000,
    seed: int = 0,
    include_human: bool = True,
    tick: Callable[[], None] = lambda: None,
) -> TuneReport:
    """Tune on all judgments, and (``cv`` = items / systems) report the cross-validated figure."""
    scorer = _Scorer(judgments, metric, include_human)
    everything = list(range(len(scorer.base.items)))

    def on(cols: Sequence[int], rows: Optional[Sequence[int]] = None) -> Callable[[Params], float]:
        """The objective over item columns ``cols`` (and system ``rows``)."""
        if rows is None:
            return lambda p: statistic(scorer.data(p), key, cols)
        sub = lambda p: _subset(scorer.data(p, rows), rows)  # noqa: E731
        return lambda p: statistic(sub(p), key, cols)

    default_data = scorer.data(default)
    chosen, train_value = _search(on(everything), default, rounds, tick)
    report = TuneReport(":".join(k for k in key if k != "-"), default, chosen, train_value, statistic(default_data, key))
    if cv == "none":
        return report
    heldout: Optional[Aligned] = None
    for train, test in _folds(scorer, cv, folds, seed):
        if cv == "systems":
            params, _ = _search(on(everything, train), default, rounds, tick)
            heldout = scorer.data(params, only=test, into=heldout)
        else:
            params, _ = _search(on(train), default, rounds, tick)
            part = scorer.data(params)
            heldout = heldout or scorer.data(default)
            for row, new in zip(heldout.metric, part.metric):
                for c in test:
                    row[c] = new[c]
        report.folds.append(params)
    assert heldout is not None
    if key[0] == "sys":  # held-out system scores: the mean of held-out segment scores, for both sides
        heldout, default_data = _mean_system(heldout), _mean_system(default_data)
    report.heldout_value = statistic(heldout, key)
    report.default_value = statistic(default_data, key)
    ci = _paired_bootstrap(key, heldout, default_data, samples, seed)
    report.heldout_interval, report.default_interval, report.gain_interval = ci["tuned"], ci["default"], ci["gain"]
    return report


def _subset(data: Aligned, rows: Sequence[int]) -> Aligned:
    """The grid restricted to the system ``rows``."""
    return Aligned(
        [data.systems[s] for s in rows], data.items, [data.gold[s] for s in rows], [data.metric[s] for s in rows],
        lambda cols: [v for s, v in enumerate(data.system_score(cols)) if s in rows],
    )


def _mean_system(data: Aligned) -> Aligned:
    """The grid with system scores = mean segment score (held-out grids mix parameter sets)."""
    def score(cols: Sequence[int]) -> List[float]:
        """Mean segment score per system over ``cols``."""
        out = []
        for row in data.metric:
            vals = [row[c] for c in cols if row[c] is not None]
            out.append(math.fsum(vals) / len(vals) if vals else math.nan)  # type: ignore[arg-type]
        return out

    return Aligned(data.systems, data.items, data.gold, data.metric, score)
