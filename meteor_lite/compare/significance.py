"""Paired significance of corpus METEOR: bootstrap resampling and approximate randomization.

Each system is compared with a baseline on the same segments (Koehn 2004; Riezler & Maxwell 2005),
with sacreBLEU's conventions (``--paired-bs``, ``--paired-ar``):

* **Corpus scores, not means.**  A resampled or shuffled corpus is scored as a corpus is: its
  segments' sufficient statistics are summed and the METEOR formula applied to the sum.  The
  statistics summed are the linear ones the formula needs (:func:`linear_stats`): weighted matches
  and weighted lengths of each side, chunks, matched words; :func:`corpus_score` is the formula on
  them (:func:`meteor_lite.stats.compute`, reordered only in the sums).
* **Paired bootstrap** (``R`` resamples, default 1,000): each resample draws ``n`` segment numbers
  with replacement (:func:`bootstrap_indices`); the baseline and every system are scored on the same
  draw.  A system's mean is the mean of its ``R`` resampled scores, its 95 % interval runs from the
  resampled score ranked ``R // 40`` to the one ranked ``R - R // 40 - 1`` (0-based, ascending).
  The p-value: with ``d_r = |system_r - baseline_r|`` and ``m`` their mean, ``c`` counts the resamples
  with ``d_r - m >= |system - baseline|`` (the observed difference), and ``p = (c + 1) / (R + 1)``.
* **Approximate randomization** (``T`` trials, default 10,000): each trial swaps the two systems'
  outputs of each segment with probability 1/2 (:func:`ar_masks`); ``c`` counts the trials whose
  ``|score_a - score_b|`` is at least the observed difference, and ``p = (c + 1) / (T + 1)``.
* A difference is **significant** when ``p <= 0.05`` (sacreBLEU's ``*``).

"At least", as Riezler & Maxwell count (sacreBLEU counts only larger differences, so that a system compared
with itself gets p = 1 / (N + 1), "significant"; here it gets p = 1).  Differences within :data:`TIE` of the
observed one count as equal to it: sums taken in another order differ in the last bits.  The random draws come from :class:`random.Random` seeded with
``seed`` (default 12345, sacreBLEU's), not numpy's generator: the p-values are not sacreBLEU's digit for
digit, but follow the same definitions.  Each system's draws are the same whichever other systems are
compared, and whatever the number of processes.
"""

from __future__ import annotations

import math
import random
from array import array
from dataclasses import dataclass
from operator import add, itemgetter
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from ..jarcompat import jdiv, jpow
from ..stats import Stats

if TYPE_CHECKING:  # pragma: no cover
    from ..config import MeteorConfig

__all__ = [
    "DEFAULT_SEED", "DEFAULT_BOOTSTRAP", "DEFAULT_TRIALS", "ALPHA", "TIE", "Formula", "linear_stats",
    "corpus_score", "bootstrap_indices", "ar_masks", "interval", "p_value", "BootstrapResult", "ARResult",
    "PairedSystems", "bootstrap_scores", "paired_bootstrap", "approximate_randomization",
]

#: sacreBLEU's default seed (``SACREBLEU_SEED``).
DEFAULT_SEED = 12345
#: Resamples of the paired bootstrap (sacreBLEU's ``--paired-bs-n``).
DEFAULT_BOOTSTRAP = 1000
#: Trials of approximate randomization (sacreBLEU's ``--paired-ar-n``).
DEFAULT_TRIALS = 10000
#: The significance level: significant when ``p <= ALPHA``.
ALPHA = 0.05
#: A resampled difference counts as reaching the observed one when it is at most this much smaller.
TIE = 1e-12

T = TypeVar("T")
R = TypeVar("R")

#: Linear statistics of a segment: weighted matches and lengths (hypothesis, reference), chunks, matched words.
Linear = Tuple[float, float, float, float, float, float]
#: The number of :data:`Linear` columns.
COLUMNS = 6


@dataclass(frozen=True)
class Formula:
    """The parameters of the METEOR formula: ``alpha beta gamma delta`` and the module weights."""

    alpha: float
    beta: float
    gamma: float
    delta: float
    weights: Tuple[float, ...]

    @classmethod
    def of(cls, config: "MeteorConfig") -> "Formula":
        """The formula of a scorer's configuration."""
        return cls(config.alpha, config.beta, config.gamma, config.delta, tuple(config.weights))


def linear_stats(st: Stats, f: Formula) -> Linear:
    """What a segment adds to the sums the formula needs (see the module docstring).

    Weighted matches ``sum_i w_i (delta content_i + (1 - delta) function_i)`` and weighted lengths of
    each side, the chunks (none for a perfectly matched segment, as :meth:`Stats.add` sums them), and
    the matched words of both sides.
    """
    nd = 1.0 - f.delta
    n = len(f.weights)
    tc, rc, tf, rf = (list(x) + [0.0] * (n - len(x)) for x in (st.test_content, st.ref_content,
                                                            st.test_function, st.ref_function))
    test_wm = sum(tc[i] * f.weights[i] * f.delta for i in range(n)) + sum(tf[i] * f.weights[i] * nd for i in range(n))
    ref_wm = sum(rc[i] * f.weights[i] * f.delta for i in range(n)) + sum(rf[i] * f.weights[i] * nd for i in range(n))
    test_wlen = f.delta * (st.test_length - st.test_function_words) + nd * st.test_function_words
    ref_wlen = f.delta * (st.ref_length - st.ref_function_words) + nd * st.ref_function_words
    chunks = 0.0 if st.is_perfect() else st.chunks
    return (test_wm, ref_wm, test_wlen, ref_wlen, chunks, st.test_word_matches + st.ref_word_matches)


def corpus_score(sums: Sequence[float], f: Formula) -> float:
    """The METEOR score of summed :func:`linear_stats` (Meteor's formula, Java's division by zero)."""
    test_wm, ref_wm, test_wlen, ref_wlen, chunks, matched = sums[:COLUMNS]
    if test_wm > 0.0 and ref_wm > 0.0 and test_wlen > 0.0 and ref_wlen > 0.0 and matched > 0.0:
        # no division by zero (the usual case): the same operations, without jdiv's checks
        fmean = 1.0 / ((1.0 - f.alpha) / (test_wm / test_wlen) + f.alpha / (ref_wm / ref_wlen))
        frag = chunks / (matched / 2)
        pen = f.gamma * (frag ** f.beta if frag > 0.0 else jpow(frag, f.beta))
    else:
        p = jdiv(test_wm, test_wlen)
        r = jdiv(ref_wm, ref_wlen)
        fmean = jdiv(1.0, jdiv(1.0 - f.alpha, p) + jdiv(f.alpha, r))
        pen = f.gamma * jpow(jdiv(chunks, matched / 2), f.beta)
    score = fmean * (1.0 - pen)
    return score if score > 0.0 else 0.0


def bootstrap_indices(n: int, resamples: int, seed: int = DEFAULT_SEED) -> Iterator["array[int]"]:
    """The segment numbers (0 to ``n - 1``) of each resample: ``n`` draws with replacement, seeded."""
    rng = random.Random(seed)
    draw = rng.random
    for _ in range(resamples):
        yield array("l", [int(draw() * n) for _ in range(n)])


def ar_masks(n: int, trials: int, seed: int = DEFAULT_SEED) -> Iterator[int]:
    """The swaps of each trial as an ``n``-bit integer: bit ``i`` set swaps segment ``i``'s outputs, seeded."""
    rng = random.Random(seed)
    for _ in range(trials):
        yield rng.getrandbits(n) if n else 0


def interval(scores: Sequence[float]) -> Tuple[float, float, float]:
    """Mean, lower and upper bound of the 95 % interval of bootstrap scores (sacreBLEU's ranks)."""
    ranked = sorted(scores)
    k = len(ranked) // 40
    return math.fsum(ranked) / len(ranked), ranked[k], ranked[len(ranked) - k - 1]


def p_value(statistics: Sequence[float], observed: float) -> float:
    """``(c + 1) / (N + 1)``, ``c`` the statistics at least ``observed`` (less :data:`TIE`)."""
    c = sum(1 for s in statistics if s >= observed - TIE)
    return (c + 1) / (len(statistics) + 1)


@dataclass(frozen=True)
class BootstrapResult:
    """A system against the baseline by paired bootstrap resampling."""

    #: the system's mean resampled score and the 95 % interval
    mean: float
    lower: float
    upper: float
    #: the mean resampled difference (system - baseline) and its 95 % interval
    delta_mean: float
    delta_lower: float
    delta_upper: float
    p_value: float
    resamples: int

    @property
    def significant(self) -> bool:
        """``p <= 0.05``."""
        return self.p_value <= ALPHA


@dataclass(frozen=True)
class ARResult:
    """A system against the baseline by approximate randomization."""

    p_value: float
    trials: int

    @property
    def significant(self) -> bool:
        """``p <= 0.05``."""
        return self.p_value <= ALPHA


class PairedSystems:
    """Per-segment linear statistics of systems on the same segments, as columns.

    The six statistics are paired into three columns of complex numbers (hypothesis and reference
    weighted matches, weighted lengths, chunks and matched words): a complex sum is the two float sums,
    in the same order, in one pass.
    """

    def __init__(self, formula: Formula, systems: Mapping[str, Sequence[Stats]]):
        """``systems``: name -> the statistics of its segments, in the same segment order for all."""
        lengths = {len(v) for v in systems.values()}
        if len(lengths) > 1:
            raise ValueError(f"systems with different numbers of segments: {sorted(lengths)}")
        self.formula = formula
        self.n = lengths.pop() if lengths else 0
        self.columns: Dict[str, List[List[complex]]] = {}
        for name, stats in systems.items():
            rows = [linear_stats(s, formula) for s in stats]
            self.columns[name] = [[complex(r[j], r[j + 1]) for r in rows] for j in range(0, COLUMNS, 2)]

    def totals(self, name: str) -> List[float]:
        """The sums of a system's six statistics over all its segments (in segment order)."""
        return _unpaired([sum(col, 0j) for col in self.columns[name]])

    def totals_of(self, name: str, segments: Sequence[int]) -> List[float]:
        """The sums of a system's six statistics over ``segments`` (numbers in segment order)."""
        pick = _picker(segments)
        return _unpaired([sum(pick(col), 0j) for col in self.columns[name]])

    def score(self, name: str) -> float:
        """A system's corpus score from :meth:`totals`."""
        return corpus_score(self.totals(name), self.formula)


def bootstrap_scores(paired: PairedSystems, names: Sequence[str], resamples: int = DEFAULT_BOOTSTRAP,
                     seed: int = DEFAULT_SEED) -> Dict[str, List[float]]:
    """The corpus score of each of ``names`` on each resample of :func:`bootstrap_indices` (the same draws for every
    system, and for every call with the same ``seed``)."""
    f = paired.formula
    columns = {name: paired.columns[name] for name in names}
    out: Dict[str, List[float]] = {name: [] for name in names}
    for draw in bootstrap_indices(paired.n, resamples, seed):
        idx = sorted(draw)  # the same sums, read in memory order
        pick = _picker(idx)
        for name, cols in columns.items():
            out[name].append(corpus_score(_unpaired([sum(pick(c), 0j) for c in cols]), f))
    return out


def paired_bootstrap(baseline_scores: Sequence[float], system_scores: Sequence[float],
                     observed: float) -> BootstrapResult:
    """The bootstrap result from the resampled scores of the baseline and of the system, paired by resample.

    ``observed``: the system's corpus score minus the baseline's.
    """
    if len(baseline_scores) != len(system_scores) or not system_scores:
        raise ValueError("the baseline and the system need the same, non-zero number of resampled scores")
    deltas = [s - b for s, b in zip(system_scores, baseline_scores)]
    absolute = [abs(d) for d in deltas]
    centre = math.fsum(absolute) / len(absolute)
    p = p_value([a - centre for a in absolute], abs(observed))
    mean, lower, upper = interval(system_scores)
    dmean, dlower, dupper = interval(deltas)
    return BootstrapResult(mean, lower, upper, dmean, dlower, dupper, p, len(system_scores))


def _picker(idx: Sequence[int]) -> Callable[[Sequence[Any]], Tuple[Any, ...]]:
    """A function returning the items ``idx`` of a sequence, as a tuple (one C call: :func:`operator.itemgetter`)."""
    if len(idx) == 1:
        only = idx[0]
        return lambda seq: (seq[only],)
    return itemgetter(*idx)


def _unpaired(sums: Sequence[complex]) -> List[float]:
    """The six statistics of three paired sums."""
    return [x for z in sums for x in (z.real, z.imag)]


def _subset_tables(diff: Sequence[complex]) -> List[complex]:
    """For every block of 8 segments, the sum of ``diff`` over each of the 256 subsets of the block (by bit mask),
    block ``b``'s subset ``v`` at ``256 * b + v``: a trial's swapped sum is then one look-up per block."""
    out: List[complex] = []
    for b in range(0, len(diff), 8):
        part = list(diff[b : b + 8]) + [0j] * max(0, b + 8 - len(diff))
        table = [0j] * 256
        for v in range(1, 256):
            low = v & -v
            table[v] = table[v ^ low] + part[low.bit_length() - 1]
        out.extend(table)
    return out


def approximate_randomization(paired: PairedSystems, baseline: str, name: str, trials: int = DEFAULT_TRIALS,
                              seed: int = DEFAULT_SEED) -> ARResult:
    """Approximate randomization of ``name`` against ``baseline`` (see the module docstring), on the swaps of
    :func:`ar_masks`.  A trial's pseudo-systems are the two totals moved by the sum, over the swapped segments,
    of the differences of their statistics (found by blocks of 8 segments in tables of subset sums)."""
    f = paired.formula
    base, other = paired.totals(baseline), paired.totals(name)
    observed = abs(corpus_score(other, f) - corpus_score(base, f))
    tables = [_subset_tables([y - x for x, y in zip(bc, sc)])
              for bc, sc in zip(paired.columns[baseline], paired.columns[name])]
    nbytes = (paired.n + 7) // 8
    offsets = range(0, 256 * nbytes, 256)
    stats: List[float] = []
    for mask in ar_masks(paired.n, trials, seed):
        idx = list(map(add, offsets, mask.to_bytes(nbytes, "little")))
        pick = _picker(idx)
        moved = _unpaired([sum(pick(t), 0j) for t in tables])
        a = [x + m for x, m in zip(base, moved)]  # the baseline with the system's swapped segments
        b = [y - m for y, m in zip(other, moved)]
        stats.append(abs(corpus_score(a, f) - corpus_score(b, f)))
    return ARResult(p_value(stats, observed), trials)


@dataclass(frozen=True)
class SystemComparison:
    """One system against the baseline: its corpus score and what each test found."""

    system: str
    score: float
    delta: float
    bootstrap: Optional[BootstrapResult]
    ar: Optional[ARResult]


def compare_all(paired: PairedSystems, baseline: str, systems: Sequence[str], *, resamples: int = DEFAULT_BOOTSTRAP,
                trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED, jobs: int = 1,
                scores: Optional[Dict[str, float]] = None) -> Tuple[Optional[BootstrapResult], List[SystemComparison]]:
    """Every system of ``systems`` against ``baseline``: the baseline's own bootstrap (mean and interval; its p-value
    is 1) and one :class:`SystemComparison` per system, in order.  ``resamples`` or ``trials`` 0 leaves that test
    out.  ``scores``: the corpus scores to report (default: from the summed statistics).  ``jobs`` > 1 runs the
    systems in that many forked processes (the same results)."""
    names = [baseline, *systems]
    groups = [names[k::max(jobs, 1)] for k in range(min(max(jobs, 1), len(names)))] if resamples else []
    tasks: List[Tuple[str, Sequence[str]]] = [("bs", g) for g in groups]
    tasks += [("ar", [name]) for name in systems] if trials else []

    def one(task: Tuple[str, Sequence[str]]) -> Union[Dict[str, List[float]], ARResult]:
        kind, group = task
        if kind == "bs":
            return bootstrap_scores(paired, group, resamples, seed)
        return approximate_randomization(paired, baseline, group[0], trials, seed)

    done = _map(one, tasks, jobs)
    boots: Dict[str, List[float]] = {}
    ars: Dict[str, ARResult] = {}
    for (_, group), res in zip(tasks, done):
        if isinstance(res, ARResult):
            ars[group[0]] = res
        else:
            boots.update(res)
    f = paired.formula
    base_boot = boots.get(baseline)
    base_result = paired_bootstrap(base_boot, base_boot, 0.0) if base_boot is not None else None
    out = []
    for name in systems:
        boot, ar = boots.get(name), ars.get(name)
        observed = paired.score(name) - paired.score(baseline)
        bs = paired_bootstrap(base_boot, boot, observed) if boot is not None and base_boot is not None else None
        score = scores[name] if scores else corpus_score(paired.totals(name), f)
        out.append(SystemComparison(name, score, observed, bs, ar))
    return base_result, out


def _map(fn: Callable[[T], R], items: Sequence[T], jobs: int) -> List[R]:
    """``fn`` over ``items``, in ``jobs`` forked processes when there are more than one (results in order)."""
    from ..parallel import can_fork, map_blocks

    if jobs <= 1 or len(items) < 2 or not can_fork():
        return [fn(n) for n in items]
    parts = map_blocks(lambda item: [fn(item)], lambda: None, items, min(jobs, len(items)))
    return [r for part in parts for r in part]
