"""One parameter set for every language (Meteor Universal's idea), tuned pooled over MQM sets of many languages.

Each judgments file (a *set*) is aligned twice with its language's bundle: with every module of
:data:`UNIVERSAL_MODULES` the bundle supports (a recipe bundle: Snowball or Hunspell stems, thesaurus
synonyms, thesaurus paraphrases), and with plain ``exact stem`` (the baseline, scored with Meteor's
language-independent ``li`` parameters).  α, β, γ, δ and the weights do not change an alignment, so the
search re-scores from the statistics: here with numpy, every cell of a set at once (:class:`StatArrays`),
because leave-one-set-out tunes once per set on ~60,000 cells.

* **The set**: α, β, γ, δ and one weight per module of :data:`UNIVERSAL_MODULES` (exact's stays 1),
  maximising the mean over the training sets of ``seg:sys:pearson`` (segment-level Pearson within each
  system, averaged over systems), by the trainer's coordinate search.  A set whose bundle lacks a module
  scores with the weights of the modules it has (as the scorer does).
* **Held out by set**: for each set, the search on every *other* set (sets sharing segments, as
  ``generalMT2023.en-de`` inside ``wmt23.en-de``, are left out together), scored on the set left out,
  beside the baseline, with 95% paired bootstrap intervals over the left-out set's segments.

numpy comes with the ``test`` extra (scipy) and the ``bench`` extra (matplotlib).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Protocol, Sequence, Tuple

from meteor_lite.metaeval.data import Judgments
from meteor_lite.stats import Stats

from ..errors import BuildError
from .trainer import coordinate_search

__all__ = ["UNIVERSAL_MODULES", "BASELINE_MODULES", "StatArrays", "PooledSet", "LeftOutFigure", "numpy",
           "pooled_objective", "seg_sys_pearson", "sys_pearson_of_means", "tune_pooled", "leave_one_set_out", "bootstrap_gain", "canonical"]

#: The modules of the universal set, in Meteor's order; a set scores with those its bundle supports.
UNIVERSAL_MODULES = ("exact", "stem", "synonym", "paraphrase")
#: The baseline: plain exact + stem with Meteor's language-independent (``li``) parameters.
BASELINE_MODULES = ("exact", "stem")


def numpy() -> Any:
    """The numpy module (a :class:`BuildError` naming the extras that bring it when it is missing)."""
    try:
        import numpy as np
    except ImportError:
        raise BuildError("the pooled search needs numpy: pip install 'meteor-lite[test]' (or the bench extra)") from None
    return np


class StatArrays:
    """Every judged cell's statistics of one set as numpy arrays (one reference per cell), scored at once."""

    def __init__(self, stats: Sequence[Stats], modules: Sequence[str]):
        np = numpy()
        m = len(modules)
        self.modules = tuple(modules)
        self.tl = np.array([s.test_length for s in stats], dtype=float)
        self.rl = np.array([s.ref_length for s in stats], dtype=float)
        self.tfw = np.array([s.test_function_words for s in stats], dtype=float)
        self.rfw = np.array([s.ref_function_words for s in stats], dtype=float)

        def per_module(name: str) -> Any:
            return np.array([(list(getattr(s, name)) + [0.0] * m)[:m] for s in stats], dtype=float).reshape(len(stats), m)

        self.tc, self.rc = per_module("test_content"), per_module("ref_content")
        self.tf, self.rf = per_module("test_function"), per_module("ref_function")
        self.chunks = np.array([s.chunks for s in stats], dtype=float)
        self.twm = np.array([s.test_word_matches for s in stats], dtype=float)
        self.rwm = np.array([s.ref_word_matches for s in stats], dtype=float)
        total_t = self.tc.sum(axis=1) + self.tf.sum(axis=1)
        total_r = self.rc.sum(axis=1) + self.rf.sum(axis=1)
        self.perfect = (total_t == self.tl) & (total_r == self.rl) & (self.chunks == 1.0)

    def scores(self, alpha: float, beta: float, gamma: float, delta: float, weights: Sequence[float]) -> Any:
        """Meteor's segment scores of every cell (the formula of :func:`meteor_lite.stats.compute`, vectorised:
        IEEE division, NaN and negative scores 0)."""
        np = numpy()
        w = np.asarray(list(weights), dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            test_wlen = delta * (self.tl - self.tfw) + (1.0 - delta) * self.tfw
            ref_wlen = delta * (self.rl - self.rfw) + (1.0 - delta) * self.rfw
            test_wm = (self.tc @ w) * delta + (self.tf @ w) * (1.0 - delta)
            ref_wm = (self.rc @ w) * delta + (self.rf @ w) * (1.0 - delta)
            p = test_wm / test_wlen
            r = ref_wm / ref_wlen
            fmean = 1.0 / ((1.0 - alpha) / p + alpha / r)
            frag = np.where(self.perfect, 0.0, self.chunks / ((self.twm + self.rwm) / 2))
            score = fmean * (1.0 - gamma * np.power(frag, beta))
        return np.where(score > 0.0, score, 0.0)


class JudgedCells:
    """What every grid of judged cells answers (:class:`PooledSet` here, ``checks.research.tune_mqm.LangSet``): its judged items,
    its size and the ``seg:sys:pearson`` of a score per cell.  The subclass holds the arrays."""

    systems: List[str]
    sys_of: Any  # numpy int array: the system index of each cell
    item_of: Any  # numpy int array: the item index of each cell
    gold: Any  # numpy float array: the human score of each cell

    def judged_items(self) -> List[int]:
        """The items (segments) with at least one judged cell, in order: what a bootstrap resamples."""
        return sorted(set(self.item_of.tolist()))

    @property
    def cells(self) -> int:
        """Judged (system, segment) cells."""
        return int(self.gold.shape[0])

    def figure(self, scores: Any, counts: Optional[Any] = None) -> float:
        """``seg:sys:pearson`` of ``scores`` (one per cell; ``counts``: cell weights, 0 leaves a cell out)."""
        return seg_sys_pearson(self.sys_of, self.gold, scores, len(self.systems), counts)


@dataclass
class PooledSet(JudgedCells):
    """One judgments file: its cells (system, item, human score) and both alignments' statistics."""

    name: str
    lang: str
    #: sets of one group share segments: left out together, and only one of them is tuned on
    group: str
    train: bool
    systems: List[str]
    items: List[str]
    sys_of: Any  # numpy int array: the system index of each cell
    item_of: Any  # numpy int array: the item index of each cell
    gold: Any  # numpy float array
    full: StatArrays
    base: StatArrays
    #: the bundle the set was aligned with (name and checksum)
    bundle: str = ""
    notes: List[str] = field(default_factory=list)
    #: the language's Meteor 1.5 configuration (official bundle), when asked for: its statistics and parameters
    default: Optional[StatArrays] = None
    default_params: List[float] = field(default_factory=list)
    default_how: str = ""
    #: sacreBLEU's sentence chrF of each cell, when measured (the keep rule's comparison)
    chrf: Optional[Any] = None

    def universal_scores(self, params: Sequence[float]) -> Any:
        """The cells scored with the universal set ``params`` (α β γ δ, then one weight per :data:`UNIVERSAL_MODULES`)."""
        weights = dict(zip(UNIVERSAL_MODULES, params[4:]))
        return self.full.scores(params[0], params[1], params[2], params[3], [weights[m] for m in self.full.modules])

    def baseline_scores(self, params: Sequence[float]) -> Any:
        """The cells scored by the baseline (``params`` = α β γ δ, then one weight per :data:`BASELINE_MODULES`;
        a bundle without stems: exact alone)."""
        weights = dict(zip(BASELINE_MODULES, params[4:]))
        return self.base.scores(params[0], params[1], params[2], params[3], [weights[m] for m in self.base.modules])


def seg_sys_pearson(sys_of: Any, gold: Any, scores: Any, systems: int, counts: Optional[Any] = None) -> float:
    """``seg:sys:pearson`` (as ``meteor-lite correlate``): Pearson of ``scores`` with ``gold`` within each system
    (``sys_of``: the system of each cell), averaged over systems; a constant vector or a system with fewer than two
    cells left out.  ``counts``: each cell's weight (a bootstrap's item multiplicities; 0 leaves a cell out)."""
    np = numpy()
    n = systems
    wt = np.ones_like(gold) if counts is None else counts
    x, y, s = scores, gold, sys_of
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        sw = np.bincount(s, weights=wt, minlength=n)
        sx = np.bincount(s, weights=wt * x, minlength=n)
        sy = np.bincount(s, weights=wt * y, minlength=n)
        sxx = np.bincount(s, weights=wt * x * x, minlength=n)
        syy = np.bincount(s, weights=wt * y * y, minlength=n)
        sxy = np.bincount(s, weights=wt * x * y, minlength=n)
        distinct = np.bincount(s, weights=(wt > 0).astype(float), minlength=n)
        mx, my = sx / sw, sy / sw
        cov = sxy / sw - mx * my
        vx = sxx / sw - mx * mx
        vy = syy / sw - my * my
        r = cov / np.sqrt(vx * vy)
    tol = 1e-12
    ok = (distinct >= 2) & (vx > tol * np.maximum(1.0, mx * mx)) & (vy > tol * np.maximum(1.0, my * my))
    vals = r[ok]
    return float(vals.mean()) if vals.size else math.nan


def sys_pearson_of_means(sys_of: Any, gold: Any, scores: Any, systems: int, counts: Optional[Any] = None) -> float:
    """System-level Pearson of the systems' mean segment scores with their mean human scores (``counts``: cell weights)."""
    np = numpy()
    wt = np.ones_like(gold) if counts is None else counts
    with np.errstate(divide="ignore", invalid="ignore"):
        sw = np.bincount(sys_of, weights=wt, minlength=systems)
        hx = np.bincount(sys_of, weights=wt * scores, minlength=systems) / sw
        hy = np.bincount(sys_of, weights=wt * gold, minlength=systems) / sw
    keep = sw > 0
    hx, hy = hx[keep], hy[keep]
    if hx.size < 2 or np.ptp(hx) == 0 or np.ptp(hy) == 0:
        return math.nan
    return float(np.corrcoef(hx, hy)[0, 1])


#: The largest δ the universal set may take.  With δ = 1 function words count for nothing, so a segment made of
#: function words only (common in Vietnamese, whose wordfreq list makes many syllables function words) scores 0
#: even against an identical reference; any δ < 1 keeps an identical translation at 1 in every language.
MAX_DELTA = 0.9


def pooled_objective(sets: Sequence[PooledSet]) -> Callable[[List[float]], float]:
    """The mean ``seg:sys:pearson`` over ``sets`` of a universal parameter vector (a NaN figure counts as 0);
    a vector whose δ is over :data:`MAX_DELTA` is never chosen (-inf)."""
    def objective(params: List[float]) -> float:
        if params[3] > MAX_DELTA:
            return -math.inf
        values = [s.figure(s.universal_scores(params)) for s in sets]
        return math.fsum(0.0 if math.isnan(v) else v for v in values) / len(values)
    return objective


def tune_pooled(sets: Sequence[PooledSet], start: List[float], rounds: int,
                tick: Callable[[], None] = lambda: None) -> Tuple[List[float], float]:
    """The universal parameters maximising :func:`pooled_objective` over ``sets`` (coordinate search from ``start``)."""
    if not sets:
        raise BuildError("the pooled search needs at least one set to tune on")
    params, value = coordinate_search(pooled_objective(sets), list(start), rounds, tick)
    return canonical(params), value


def canonical(params: List[float]) -> List[float]:
    """With β = 0 the fragmentation penalty is γ·frag⁰ = γ for every segment, a perfect one included: a constant
    factor (1 - γ) on every score, which no correlation (within a system, or of corpus scores) can see.  The set
    is written with γ = 0 then, so that a perfect translation still scores 1."""
    out = list(params)
    if out[1] == 0.0:
        out[2] = 0.0
    return out


def gain_verdict(interval: Tuple[float, float]) -> str:
    """``better`` / ``worse`` when the paired interval of a gain excludes 0, else ``no difference shown``."""
    if interval[0] > 0:
        return "better"
    if interval[1] < 0:
        return "worse"
    return "no difference shown"


@dataclass
class LeftOutFigure:
    """One set scored with the universal parameters tuned on every set outside its group."""

    name: str
    lang: str
    modules: Tuple[str, ...]
    systems: int
    segments: int
    cells: int
    params: List[float]
    train: float
    heldout: float
    baseline: float
    heldout_interval: Tuple[float, float]
    baseline_interval: Tuple[float, float]
    gain_interval: Tuple[float, float]
    #: against the language's Meteor 1.5 configuration, when measured: its figure and the paired gain's interval
    default: Optional[float] = None
    default_gain_interval: Tuple[float, float] = (math.nan, math.nan)

    @property
    def verdict(self) -> str:
        """:func:`gain_verdict` of the paired gain's interval."""
        return gain_verdict(self.gain_interval)


def _percentile_interval(values: List[float]) -> Tuple[float, float]:
    vals = sorted(v for v in values if not math.isnan(v))
    if not vals:
        return (math.nan, math.nan)
    return vals[int(0.025 * (len(vals) - 1))], vals[int(math.ceil(0.975 * (len(vals) - 1)))]


class CellSet(Protocol):
    """What a paired bootstrap needs of a set: its items, each cell's item, and its figure of a score vector."""

    items: List[str]
    item_of: Any

    def judged_items(self) -> List[int]: ...

    def figure(self, scores: Any, counts: Optional[Any] = None) -> float: ...


def bootstrap_gain(s: CellSet, tuned: Any, base: Any, samples: int, seed: int) -> Dict[str, Tuple[float, float]]:
    """95% percentile intervals of the tuned and baseline figures and of their difference, the same segment
    resamples for both (paired)."""
    np = numpy()
    rng = random.Random(seed)
    pool = s.judged_items()
    n = len(s.items)
    draws: Dict[str, List[float]] = {"tuned": [], "baseline": [], "gain": []}
    for _ in range(samples):
        picks = [pool[rng.randrange(len(pool))] for _ in pool]
        counts = np.bincount(np.asarray(picks, dtype=int), minlength=n).astype(float)[s.item_of]
        t, b = s.figure(tuned, counts), s.figure(base, counts)
        if not (math.isnan(t) or math.isnan(b)):
            draws["tuned"].append(t)
            draws["baseline"].append(b)
            draws["gain"].append(t - b)
    return {k: _percentile_interval(v) for k, v in draws.items()}


def leave_one_set_out(sets: Sequence[PooledSet], start: List[float], baseline: List[float], rounds: int,
                      samples: int, seed: int, progress: Callable[[str], None] = lambda s: None) -> List[LeftOutFigure]:
    """For each set: tune on the training sets outside its group, score it, beside the baseline, with intervals."""
    out = []
    cache: Dict[Tuple[str, ...], Tuple[List[float], float]] = {}
    for s in sets:
        train = [t for t in sets if t.train and t.group != s.group]
        key = tuple(t.name for t in train)
        if key not in cache:
            progress(f"tuning without {s.group} ({len(train)} sets)")
            cache[key] = tune_pooled(train, start, rounds)
        params, value = cache[key]
        tuned, base = s.universal_scores(params), s.baseline_scores(baseline)
        ci = bootstrap_gain(s, tuned, base, samples, seed)
        f = LeftOutFigure(s.name, s.lang, s.full.modules, len(set(s.sys_of.tolist())), len(s.judged_items()), s.cells,
                          params, value, s.figure(tuned), s.figure(base), ci["tuned"], ci["baseline"], ci["gain"])
        if s.default is not None:
            p = s.default_params
            dflt = s.default.scores(p[0], p[1], p[2], p[3], p[4:])
            f.default = s.figure(dflt)
            f.default_gain_interval = bootstrap_gain(s, tuned, dflt, samples, seed)["gain"]
        out.append(f)
    return out


def cells_of(j: Judgments, stats: Dict[Tuple[str, str], List[Stats]]) -> Tuple[List[str], List[str], List[int], List[int], List[float], List[Stats]]:
    """The judged cells of ``j`` (human score present) in a fixed order: systems, items, and per cell its
    system index, item index, human score and first reference's statistics."""
    sys_of, item_of, gold, cell_stats = [], [], [], []
    for s, name in enumerate(j.systems):
        for i, g in enumerate(j.gold[s]):
            if g is None or (name, j.items[i]) not in stats:
                continue
            sys_of.append(s)
            item_of.append(i)
            gold.append(float(g))
            cell_stats.append(stats[(name, j.items[i])][0])
    return list(j.systems), list(j.items), sys_of, item_of, gold, cell_stats
