"""Tune Meteor's α, β, γ, δ and module weights on human judgments (``meteor-build tune``).

α, β, γ, δ and the weights do not change the alignment, so the trainer aligns once per module
set and re-scores from sufficient statistics for every candidate.  It keeps *every reference's*
statistics of each judged segment (:mod:`.alignment` scores each hypothesis against each
reference on its own with :class:`meteor_lite.Meteor`): with several references, the one that
counts is the best-scoring under the candidate's parameters (the first of equal scores, as
Meteor 1.5 chooses; checked against the jar), and a system's score sums the statistics of those
best references.  Statistics read from ``meteor-lite score --format json`` hold the best
reference's only (chosen under the JSON's parameters): exact with one reference.

Search: coordinate ascent over a grid with refinement (each round tries 11 values per parameter
around the current best, then the step shrinks threefold), maximising one statistic of
:mod:`meteor_lite.metaeval.correlate`.  Module sets (:func:`tune_modules`): each set is tuned on
its own alignment; the set with the best figure on the data it was tuned on is kept.

Honest figures: with cross-validation (k folds over segments or over whole documents, or leave one
system out) every segment is scored with parameters tuned without it (with module sets: by the set
that won that fold's training data); the statistic of those held-out scores is reported beside the untuned
default's, each with a bootstrap interval, and the paired bootstrap interval of the difference
decides whether a gain is claimed (its lower bound must be > 0).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from meteor_lite.metaeval.correlate import Aligned, Key, align, statistic
from meteor_lite.metaeval.data import Judgments, Matrix, MetricScores
from meteor_lite.metaeval.stats import mean_ignoring_nan
from meteor_lite.stats import Stats, compute

from ..errors import InvalidParameterError

__all__ = ["Params", "GridScorer", "coordinate_search", "TuneReport", "ModuleSearchReport", "tune", "tune_modules", "json_cells", "RANGES", "BETA_RANGE", "GAMMA_RANGE", "PartFigures",
           "part_figures", "FoldGrids", "item_folds", "document_folds", "column_folds", "COLUMN_CVS"]

#: The fragmentation penalty's exponent: searched in Meteor 1.5's own tuned range (its rank, adequacy and HTER
#: presets put β between 0.2 and 1.5).  β = 0 would make the penalty the constant γ (no word order at all).
BETA_RANGE = (0.2, 1.5)
#: The fragmentation penalty's weight: at least 0.4 (Meteor 1.5's tuned presets: 0.35 to 0.7).  A hypothesis that is
#: its reference with the n words reversed has n chunks of n matches (fragmentation 1 when the words are distinct), so
#: it scores (1 - γ·frag^β): below 0.75 takes γ·frag^β > 0.25.  Repeated words let some chunks grow (references
#: reversed in the shared files: mean frag^β 0.75 at β = 1.5 in the worst language, Russian), so at the top of
#: :data:`BETA_RANGE` γ must exceed 0.25 / 0.75 = 0.33; 0.4 keeps a margin (reversed references then score at most
#: about 0.70 on average in every language; ``tests/test_perturbations.py`` checks every shipped set).
GAMMA_RANGE = (0.4, 1.0)
#: Search range of each parameter (Meteor 1.5's formula: α, δ in [0, 1]; β and γ where the fragmentation penalty is
#: on, :data:`BETA_RANGE` and :data:`GAMMA_RANGE`; weights [0, 1]).
RANGES = {"alpha": (0.0, 1.0), "beta": BETA_RANGE, "gamma": GAMMA_RANGE, "delta": (0.0, 1.0), "weight": (0.0, 1.0)}
Params = List[float]  # [alpha, beta, gamma, delta, w1, ..., wn]; w1 (exact) stays 1.0


@dataclass
class TuneReport:
    """What :func:`tune` found and how well it holds on held-out segments."""

    statistic: str
    default: Params
    chosen: Params
    train_value: float
    #: the default's figure: on all data, then (with cross-validation) on the held-out protocol's terms
    default_value: float
    heldout_value: Optional[float] = None
    heldout_interval: Tuple[float, float] = (math.nan, math.nan)
    default_interval: Tuple[float, float] = (math.nan, math.nan)
    gain_interval: Tuple[float, float] = (math.nan, math.nan)
    folds: List[Params] = field(default_factory=list)
    #: the held-out grid (every cell scored by parameters tuned without it) and the default's, for
    #: figures on parts of the data (:func:`part_figures`)
    heldout_grid: Optional[Aligned] = field(default=None, repr=False)
    default_grid: Optional[Aligned] = field(default=None, repr=False)
    #: with ``heldout="per-fold"``: each fold's grid and held-out items (figures averaged over folds)
    fold_grids: Optional["FoldGrids"] = field(default=None, repr=False)
    #: :func:`tune_modules`: the index of the set (of its ``sets``) each fold chose
    fold_choice: List[int] = field(default_factory=list)
    #: the default's figure on all data, beside :attr:`train_value` (``default_value`` may be a per-fold figure)
    default_train_value: float = math.nan

    def __post_init__(self) -> None:
        if math.isnan(self.default_train_value):
            self.default_train_value = self.default_value

    @property
    def gain_supported(self) -> bool:
        """True only when the paired interval of (held-out tuned - default) lies above 0."""
        return self.gain_interval[0] > 0.0


def _best(refs: Sequence[Stats], a: float, b: float, g: float, d: float, w: Sequence[float]) -> Tuple[float, Stats]:
    """Score and statistics of the best reference under these parameters (the first of equal scores, as Meteor)."""
    best_score, best = compute(refs[0], a, b, g, d, w).score, refs[0]
    for st in refs[1:]:
        score = compute(st, a, b, g, d, w).score
        if score > best_score:
            best_score, best = score, st
    return best_score, best


class GridScorer:
    """Per-cell statistics (every reference's) of one judgments grid; re-scores the grid for a parameter vector."""

    def __init__(self, judgments: Judgments, cells: Dict[Tuple[str, str], List[Stats]], include_human: bool):
        """Put the cells on the judgments' grid (every judged cell needs statistics)."""
        placeholder = MetricScores("stats", {k: 0.0 for k in cells})
        self.base = align(judgments, placeholder, include_human)
        self.docs = judgments.docs
        self.cells: List[List[Optional[List[Stats]]]] = [
            [cells[(name, item)] if g is not None else None for item, g in zip(self.base.items, row)]
            for name, row in zip(self.base.systems, self.base.gold)
        ]

    def data(self, params: Params, only: Optional[Sequence[int]] = None, into: Optional[Aligned] = None) -> Aligned:
        """The grid scored with ``params`` (systems ``only``, others copied from ``into``)."""
        a, b, g, d, w = params[0], params[1], params[2], params[3], params[4:]
        empty: Matrix = [[None] * len(self.base.items) for _ in self.cells]
        matrix: Matrix = [list(r) for r in into.metric] if into is not None else empty
        cells = self.cells

        for s in (range(len(cells)) if only is None else only):
            matrix[s] = [
                None if refs is None else compute(refs[0], a, b, g, d, w).score if len(refs) == 1 else _best(refs, a, b, g, d, w)[0]
                for refs in cells[s]
            ]

        def system_score(cols: Sequence[int]) -> List[float]:
            """Corpus score per system from the summed statistics (best reference of each segment) of ``cols``."""
            out = []
            for row in cells:
                total = Stats()
                for c in cols:
                    refs = row[c]
                    if refs is not None:
                        total.add(refs[0] if len(refs) == 1 else _best(refs, a, b, g, d, w)[1])
                out.append(compute(total, a, b, g, d, w).score)
            return out

        return Aligned(self.base.systems, self.base.items, self.base.gold, matrix, system_score)


def json_cells(metric: MetricScores) -> Dict[Tuple[str, str], List[Stats]]:
    """Cells from meteor-lite JSON: the best reference's statistics only (chosen under the JSON's parameters)."""
    return {key: [Stats(**d)] for key, d in metric.stats.items()}


def _bounds(i: int) -> Tuple[float, float]:
    """Search range of parameter ``i`` (α, β, γ, δ, then weights)."""
    return RANGES[("alpha", "beta", "gamma", "delta")[i]] if i < 4 else RANGES["weight"]


def coordinate_search(objective: Callable[[Params], float], start: Params, rounds: int, tick: Callable[[], None]) -> Tuple[Params, float]:
    """Coordinate ascent on an 11-point grid per parameter, the step shrinking threefold per round, within
    :data:`RANGES` (a start outside them is brought inside first)."""
    best = [round(min(_bounds(i)[1], max(_bounds(i)[0], v)), 6) if i != 4 else v for i, v in enumerate(start)]
    best_value = objective(best)
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


#: Cross-validations over item columns (every fold one parameter set for its held-out segments).
COLUMN_CVS = ("items", "documents")


def _folds(scorer: GridScorer, cv: str, k: int, seed: int) -> List[Tuple[List[int], List[int]]]:
    """(training, held-out) index lists: item columns (``items``, ``documents``) or system rows (``systems``)."""
    if cv == "systems":
        n = len(scorer.base.systems)
        return [([s for s in range(n) if s != h], [h]) for h in range(n)]
    items = list(range(len(scorer.base.items)))
    parts = column_folds(cv, scorer.base.items, scorer.docs, k, seed)
    return [(sorted(set(items) - set(p)), p) for p in parts]


def column_folds(cv: str, items: Sequence[str], docs: Dict[str, str], k: int, seed: int) -> List[List[int]]:
    """The held-out item columns of each fold of ``--cv items`` (:func:`item_folds`) or ``documents``
    (:func:`document_folds`)."""
    if cv == "documents":
        return document_folds(items, docs, k, seed)
    return item_folds(len(items), k, seed)


def item_folds(n: int, k: int, seed: int) -> List[List[int]]:
    """The held-out item columns of each of ``k`` folds over ``n`` items (``--cv items``; seeded shuffle)."""
    items = list(range(n))
    random.Random(seed).shuffle(items)
    return [sorted(items[f::k]) for f in range(k)]


def document_folds(items: Sequence[str], docs: Dict[str, str], k: int, seed: int) -> List[List[int]]:
    """The held-out item columns of ``k`` folds over whole documents (``--cv documents``).

    Segments of one document share a topic, terms and often errors, so a fold over segments lets the
    search see the rest of each held-out segment's document; over documents, every held-out segment
    comes from a document the search never saw, as with test documents.  The documents are shuffled
    (seeded), then each goes to the fold with the fewest segments so far (the first of equal ones).
    A segment with no document (a file without a ``doc`` column or with empty cells, alone or merged
    with files that have one) is a document of its own: such a file folds by segment.
    """
    by_doc: Dict[str, List[int]] = {}
    for c, it in enumerate(items):
        by_doc.setdefault(docs[it] if it in docs else f"\0segment\0{it}", []).append(c)
    if len(by_doc) < k:
        raise InvalidParameterError(f"--cv documents: {len(by_doc)} documents, fewer than the {k} folds")
    names = sorted(by_doc)
    random.Random(seed).shuffle(names)
    folds: List[List[int]] = [[] for _ in range(k)]
    for name in names:
        min(folds, key=len).extend(by_doc[name])
    return [sorted(f) for f in folds]


def _paired_bootstrap(key: Key, tuned: Aligned, default: Aligned, samples: int, seed: int,
                      among: Optional[Sequence[int]] = None) -> Dict[str, Tuple[float, float]]:
    """95% percentile intervals of the tuned and default statistics and of their difference
    (items resampled from ``among``, default all)."""
    rng = random.Random(seed)
    pool = list(among) if among is not None else list(range(len(tuned.items)))
    n = len(pool)
    draws: Dict[str, List[float]] = {"tuned": [], "default": [], "gain": []}
    for _ in range(samples):
        cols = [pool[rng.randrange(n)] for _ in range(n)]
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


@dataclass
class _Fold:
    """One cross-validation fold: held-out columns (or system rows), parameters tuned without them, their training figure."""

    test: List[int]
    params: Params
    train_value: float


def _objective(scorer: GridScorer, key: Key, cols: Sequence[int], rows: Optional[Sequence[int]] = None) -> Callable[[Params], float]:
    """The statistic over item columns ``cols`` (and system ``rows``) as a function of the parameters."""
    if rows is None:
        return lambda p: statistic(scorer.data(p), key, cols)
    return lambda p: statistic(_subset(scorer.data(p, rows), rows), key, cols)


def _cross_validate(scorer: GridScorer, default: Params, key: Key, cv: str, k: int, rounds: int, seed: int,
                    tick: Callable[[], None]) -> List[_Fold]:
    """Tune on each fold's training part."""
    everything = list(range(len(scorer.base.items)))
    out = []
    for train, test in _folds(scorer, cv, k, seed):
        objective = _objective(scorer, key, everything, train) if cv == "systems" else _objective(scorer, key, train)
        params, value = coordinate_search(objective, default, rounds, tick)
        out.append(_Fold(test, params, value))
    return out


def _heldout(pieces: Sequence[Tuple[GridScorer, _Fold]], cv: str, start: Aligned) -> Aligned:
    """The grid whose every held-out cell is scored by its fold's parameters (and its fold's module set)."""
    heldout = Aligned(start.systems, start.items, start.gold, [list(r) for r in start.metric], start.system_score)
    for scorer, fold in pieces:
        if cv == "systems":
            heldout = scorer.data(fold.params, only=fold.test, into=heldout)
            continue
        part = scorer.data(fold.params)
        for row, new in zip(heldout.metric, part.metric):
            for c in fold.test:
                row[c] = new[c]
    return heldout


def _conclude(report: TuneReport, key: Key, heldout: Aligned, default_data: Aligned, samples: int, seed: int) -> None:
    """Held-out and default figures with their intervals, and the paired interval of the gain."""
    if key[0] == "sys":  # held-out system scores: the mean of held-out segment scores, for both sides
        heldout, default_data = _mean_system(heldout), _mean_system(default_data)
    report.heldout_grid, report.default_grid = heldout, default_data
    report.heldout_value = statistic(heldout, key)
    report.default_value = statistic(default_data, key)
    ci = _paired_bootstrap(key, heldout, default_data, samples, seed)
    report.heldout_interval, report.default_interval, report.gain_interval = ci["tuned"], ci["default"], ci["gain"]


@dataclass
class FoldGrids:
    """Per-fold held-out evaluation: each fold's items scored by the parameters (and module set) tuned without
    them, the statistic computed within each fold (one parameter set) and averaged over the folds, for the
    tuned side and, on the same items, for the default.

    The pooled grid (``heldout="pooled"``) puts every fold's scores in one grid, so a correlation within a
    system mixes the scales of five parameter sets: where the folds' parameters differ a lot (a flat
    objective, merged data) that alone lowers the held-out figure.
    """

    grids: List[Aligned]
    tests: List[Set[int]]
    default: Aligned

    def figures(self, key: Key, cols: Optional[Sequence[int]] = None,
                rows: Optional[Sequence[int]] = None) -> Tuple[float, float]:
        """(tuned, default): the statistic over items ``cols`` (repeats allowed) and systems ``rows``, fold by fold, averaged."""
        every = range(len(self.default.items)) if cols is None else cols
        default = self.default if rows is None else _subset(self.default, rows)
        tuned_values, default_values = [], []
        for grid, test in zip(self.grids, self.tests):
            part = [c for c in every if c in test]
            if not part:
                continue
            tuned_values.append(statistic(grid if rows is None else _subset(grid, rows), key, part))
            default_values.append(statistic(default, key, part))
        return mean_ignoring_nan(tuned_values), mean_ignoring_nan(default_values)

    def intervals(self, key: Key, samples: int, seed: int, among: Optional[Sequence[int]] = None,
                  rows: Optional[Sequence[int]] = None) -> Dict[str, Tuple[float, float]]:
        """95% percentile intervals (tuned, default, gain) over item resamples from ``among`` (default all)."""
        rng = random.Random(seed)
        pool = list(among) if among is not None else list(range(len(self.default.items)))
        draws: Dict[str, List[float]] = {"tuned": [], "default": [], "gain": []}
        for _ in range(samples):
            cols = [pool[rng.randrange(len(pool))] for _ in pool]
            t, d = self.figures(key, cols, rows)
            if not (math.isnan(t) or math.isnan(d)):
                draws["tuned"].append(t)
                draws["default"].append(d)
                draws["gain"].append(t - d)
        return {name: _percentiles(values) for name, values in draws.items()}


def _percentiles(values: List[float]) -> Tuple[float, float]:
    values = sorted(values)
    if not values:
        return (math.nan, math.nan)
    return values[int(0.025 * (len(values) - 1))], values[int(math.ceil(0.975 * (len(values) - 1)))]


def _conclude_per_fold(report: TuneReport, key: Key, pieces: Sequence[Tuple[GridScorer, _Fold]], default_data: Aligned,
                       samples: int, seed: int) -> None:
    """Held-out figures fold by fold (:class:`FoldGrids`), with their intervals and the paired interval of the gain."""
    fg = FoldGrids([scorer.data(fold.params) for scorer, fold in pieces], [set(fold.test) for _, fold in pieces], default_data)
    report.fold_grids = fg
    report.heldout_value, report.default_value = fg.figures(key)
    ci = fg.intervals(key, samples, seed)
    report.heldout_interval, report.default_interval, report.gain_interval = ci["tuned"], ci["default"], ci["gain"]


def _tune(scorer: GridScorer, default: Params, key: Key, cv: str, folds: int, rounds: int, samples: int, seed: int,
          tick: Callable[[], None], heldout: str = "pooled") -> Tuple[TuneReport, List[_Fold]]:
    """Tune on all cells of ``scorer``; with ``cv``, the held-out figure against ``default``."""
    default_data = scorer.data(default)
    chosen, train_value = coordinate_search(_objective(scorer, key, list(range(len(scorer.base.items)))), default, rounds, tick)
    report = TuneReport(":".join(k for k in key if k != "-"), default, chosen, train_value, statistic(default_data, key))
    if cv == "none":
        return report, []
    runs = _cross_validate(scorer, default, key, cv, folds, rounds, seed, tick)
    report.folds = [f.params for f in runs]
    if heldout == "per-fold" and cv in COLUMN_CVS:
        _conclude_per_fold(report, key, [(scorer, f) for f in runs], default_data, samples, seed)
    else:
        _conclude(report, key, _heldout([(scorer, f) for f in runs], cv, default_data), default_data, samples, seed)
    return report, runs


def tune(
    judgments: Judgments,
    cells: Dict[Tuple[str, str], List[Stats]],
    default: Params,
    key: Key,
    cv: str = "items",
    folds: int = 5,
    rounds: int = 3,
    samples: int = 1000,
    seed: int = 0,
    include_human: bool = True,
    tick: Callable[[], None] = lambda: None,
    heldout: str = "pooled",
) -> TuneReport:
    """Tune on all judgments, and (``cv`` = items / systems) report the cross-validated figure.

    ``cells``: every judged (system, item)'s statistics against each of its references
    (:func:`meteor_lite_builders.tune.alignment.align_module_set`, or :func:`json_cells`).
    ``heldout``: ``pooled`` (every held-out cell in one grid) or ``per-fold`` (:class:`FoldGrids`; items and
    documents cv only).
    """
    return _tune(GridScorer(judgments, cells, include_human), default, key, cv, folds, rounds, samples, seed, tick, heldout)[0]


@dataclass
class ModuleSearchReport:
    """:func:`tune_modules`: one :class:`TuneReport` per module set, the set chosen, the held-out figure of the whole search."""

    sets: List[Tuple[Tuple[str, ...], TuneReport]]
    chosen: int
    baseline: Tuple[str, ...]
    #: the procedure (tune each set, keep the best training figure) cross-validated against the baseline's default
    overall: TuneReport

    @property
    def modules(self) -> Tuple[str, ...]:
        """The module set chosen on all data."""
        return self.sets[self.chosen][0]


def tune_modules(
    judgments: Judgments,
    sets: Sequence[Tuple[Tuple[str, ...], Params, Dict[Tuple[str, str], List[Stats]]]],
    baseline: Tuple[Params, Dict[Tuple[str, str], List[Stats]], Tuple[str, ...]],
    key: Key,
    cv: str = "items",
    folds: int = 5,
    rounds: int = 3,
    samples: int = 1000,
    seed: int = 0,
    include_human: bool = True,
    tick: Callable[[], None] = lambda: None,
    heldout: str = "pooled",
) -> ModuleSearchReport:
    """Tune every module set (``(modules, default parameters, cells)``; one alignment each), keep the best.

    The set chosen is the one with the best figure on the data it was tuned on; with ``cv`` the whole
    procedure is cross-validated (in each fold, the set with the best *training* figure of that fold
    scores the held-out part), against the untuned ``baseline`` (default parameters, cells, modules:
    Meteor's configuration of the language).
    """
    results = []
    for modules, default, cells in sets:
        scorer = GridScorer(judgments, cells, include_human)
        report, runs = _tune(scorer, default, key, cv, folds, rounds, samples, seed, tick, heldout)
        results.append((modules, report, scorer, runs))
    chosen = max(range(len(results)), key=lambda i: results[i][1].train_value)
    base_default, base_cells, base_modules = baseline
    base_data = GridScorer(judgments, base_cells, include_human).data(base_default)
    best = results[chosen][1]
    overall = TuneReport(best.statistic, base_default, best.chosen, best.train_value, statistic(base_data, key))
    if cv != "none":
        pieces = []
        for f in range(len(results[0][3])):
            i = max(range(len(results)), key=lambda j: results[j][3][f].train_value)
            pieces.append((results[i][2], results[i][3][f]))
            overall.folds.append(results[i][3][f].params)
            overall.fold_choice.append(i)
        if heldout == "per-fold" and cv in COLUMN_CVS:
            _conclude_per_fold(overall, key, pieces, base_data, samples, seed)
        else:
            _conclude(overall, key, _heldout(pieces, cv, base_data), base_data, samples, seed)
    return ModuleSearchReport([(m, r) for m, r, _, _ in results], chosen, base_modules, overall)


@dataclass
class PartFigures:
    """The held-out and default figures of one part of the data (one judgments file of several)."""

    label: str
    systems: int
    items: int
    heldout: float
    default: float
    heldout_interval: Tuple[float, float]
    default_interval: Tuple[float, float]
    gain_interval: Tuple[float, float]


def part_figures(report: TuneReport, key: Key, prefix: str, samples: int = 1000, seed: int = 0) -> PartFigures:
    """Figures of the systems and items named ``PREFIX/...`` (a merged file, :func:`merge_judgments`),
    from a cross-validated report: held-out tuned and default values, their intervals, the paired gain's."""
    base = report.fold_grids.default if report.fold_grids is not None else report.heldout_grid
    if base is None or (report.fold_grids is None and report.default_grid is None):
        raise ValueError("part figures need a cross-validated report")
    rows = [s for s, name in enumerate(base.systems) if name.startswith(prefix + "/")]
    cols = [c for c, name in enumerate(base.items) if name.startswith(prefix + "/")]
    if report.fold_grids is not None:
        fg = report.fold_grids
        t, d = fg.figures(key, cols, rows)
        ci = fg.intervals(key, samples, seed, among=cols, rows=rows)
        return PartFigures(prefix, len(rows), len(cols), t, d, ci["tuned"], ci["default"], ci["gain"])
    grid = report.heldout_grid
    assert grid is not None and report.default_grid is not None
    tuned, default = _subset(grid, rows), _subset(report.default_grid, rows)
    ci = _paired_bootstrap(key, tuned, default, samples, seed, among=cols)
    return PartFigures(prefix, len(rows), len(cols), statistic(tuned, key, cols), statistic(default, key, cols),
                       ci["tuned"], ci["default"], ci["gain"])


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
