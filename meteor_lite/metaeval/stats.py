"""Correlation statistics between metric scores and human judgments, in pure Python.

Definitions follow google-research/mt-metrics-eval (``stats.py``, ``tau_optimization.py``;
Deutsch et al. 2023, "Ties Matter", arXiv:2305.14324), re-implemented here:

* :func:`pearson`, :func:`spearman` (Pearson of average ranks), NaN for a constant vector.
* :func:`kendall_counts`: the pair counts ``C`` (concordant), ``D`` (discordant), ``T_h`` (tied in
  the human scores only), ``T_m`` (tied in the metric scores only), ``T_hm`` (tied in both), in
  O(n log n) (sort + merge-sort inversion count).
* :func:`kendall`: ``b`` = (C-D) / sqrt((N-Tx)(N-Ty)); ``c`` = 2(C-D) / (n^2 (m-1)/m), m = the
  smaller number of distinct values (scipy's tau-c); ``23`` = (C + T_hm - D - T_h - T_m) / N;
  ``acc23`` = (C + T_hm) / N (pairwise accuracy where ties count), N = all pairs.
* :func:`tie_calibrated`: the ``acc23`` / ``23`` statistic with the metric tie threshold ε chosen to
  maximise it (pairs whose metric difference is <= ε become metric ties), one ε shared by every
  row, value = mean over rows (WMT23's ``acc_eq`` / ``acc*_eq``).
* :func:`agreement`: pairwise accuracy over all pairs, sign(Δhuman) == sign(Δmetric) (WMT's
  system-level pairwise accuracy).
"""

from __future__ import annotations

import math
import random
from typing import Dict, List, Optional, Sequence, Tuple

__all__ = [
    "KendallCounts",
    "quantile",
    "pearson",
    "spearman",
    "ranks",
    "kendall_counts",
    "kendall",
    "kendall_all",
    "mean_ignoring_nan",
    "optional_mean",
    "tie_calibrated",
    "agreement",
    "KENDALL_VARIANTS",
]

#: Kendall variants :func:`kendall` computes.
KENDALL_VARIANTS = ("b", "c", "23", "acc23")

#: (C, D, T_h, T_m, T_hm): concordant, discordant, tied in human only, in metric only, in both.
KendallCounts = Tuple[int, int, int, int, int]


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r of two equally long vectors (NaN when fewer than 2 values or one is constant)."""
    n = len(x)
    if n < 2:
        return math.nan
    mx = math.fsum(x) / n
    my = math.fsum(y) / n
    dx = [a - mx for a in x]
    dy = [b - my for b in y]
    sxx = math.fsum(a * a for a in dx)
    syy = math.fsum(b * b for b in dy)
    if sxx == 0.0 or syy == 0.0:
        return math.nan
    r = math.fsum(a * b for a, b in zip(dx, dy)) / math.sqrt(sxx * syy)
    return max(-1.0, min(1.0, r))


def ranks(x: Sequence[float]) -> List[float]:
    """1-based ranks, ties given their average rank (scipy's ``rankdata(method='average')``)."""
    order = sorted(range(len(x)), key=x.__getitem__)
    out = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        rank = (i + j) / 2.0 + 1.0
        for k in range(i, j + 1):
            out[order[k]] = rank
        i = j + 1
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's ρ: Pearson's r of the average ranks."""
    return pearson(ranks(x), ranks(y))


def _tied_pairs(values: Sequence[object]) -> int:
    """Pairs of equal values."""
    counts: Dict[object, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return sum(c * (c - 1) // 2 for c in counts.values())


def _strict_inversions(seq: List[float]) -> int:
    """Pairs i < j with seq[i] > seq[j] (bottom-up merge sort; sorts ``seq`` in place)."""
    n = len(seq)
    inv = 0
    width = 1
    buf = list(seq)
    src, dst = seq, buf
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if src[i] <= src[j]:
                    dst[k] = src[i]
                    i += 1
                else:
                    dst[k] = src[j]
                    inv += mid - i
                    j += 1
                k += 1
            dst[k:hi] = src[i:mid] if i < mid else src[j:hi]
        src, dst = dst, src
        width *= 2
    if src is not seq:
        seq[:] = src
    return inv


def kendall_counts(human: Sequence[float], metric: Sequence[float]) -> KendallCounts:
    """(C, D, T_h, T_m, T_hm) over all pairs of positions, in O(n log n)."""
    n = len(human)
    pairs = sorted(zip(metric, human))
    discordant = _strict_inversions([h for _, h in pairs])
    tot = n * (n - 1) // 2
    t_metric = _tied_pairs(metric)
    t_human = _tied_pairs(human)
    t_both = _tied_pairs(pairs)
    concordant = tot - t_metric - t_human + t_both - discordant
    return concordant, discordant, t_human - t_both, t_metric - t_both, t_both


def kendall_all(human: Sequence[float], metric: Sequence[float]) -> Dict[str, float]:
    """Every variant of :data:`KENDALL_VARIANTS` from one count of the pairs."""
    n = len(human)
    if n < 2:
        return dict.fromkeys(KENDALL_VARIANTS, math.nan)
    con, dis, t_h, t_m, t_hm = kendall_counts(human, metric)
    tot = con + dis + t_h + t_m + t_hm
    out = {"acc23": (con + t_hm) / tot, "23": (con + t_hm - dis - t_h - t_m) / tot}
    t_metric, t_human = t_m + t_hm, t_h + t_hm
    if t_metric == tot or t_human == tot:
        out["b"] = out["c"] = math.nan
    else:
        out["b"] = (con - dis) / math.sqrt(tot - t_metric) / math.sqrt(tot - t_human)
        m = min(len(set(metric)), len(set(human)))
        out["c"] = 2.0 * (con - dis) / (n * n * (m - 1) / m)
    return out


def kendall(human: Sequence[float], metric: Sequence[float], variant: str = "b") -> float:
    """Kendall's τ (``b``, ``c``), WMT23's tie-aware ``23`` or pairwise accuracy ``acc23`` (ε = 0)."""
    if variant not in KENDALL_VARIANTS:
        raise ValueError(f"unknown Kendall variant {variant!r} (one of {', '.join(KENDALL_VARIANTS)})")
    return kendall_all(human, metric)[variant]


def _sample_pairs(n: int, want: int, rng: random.Random) -> List[Tuple[int, int]]:
    """``want`` random pairs of distinct positions below ``n`` (with replacement)."""
    out = []
    rand = rng.random
    for _ in range(want):
        i = int(rand() * n)
        j = int(rand() * (n - 1))
        out.append((i, j + 1 if j >= i else j))
    return out


def _pair_deltas(
    rows: Sequence[Tuple[Sequence[float], Sequence[float]]],
    max_pairs: int,
    rng: random.Random,
) -> Tuple[float, float, int, List[Tuple[float, float, float]]]:
    """(Σ rows' acc23, Σ rows' tau23 at ε=0, rows with pairs, [(|Δmetric|, Δacc23, Δtau23 when tied)])."""
    total_pairs = sum(len(h) * (len(h) - 1) // 2 for h, _ in rows)
    rate = min(1.0, max_pairs / total_pairs) if total_pairs else 1.0
    base_acc = base_tau = 0.0
    used = 0
    deltas: List[Tuple[float, float, float]] = []
    for human, metric in rows:
        n = len(human)
        if n < 2:
            continue
        if rate >= 1.0:
            idx = [(i, j) for i in range(n) for j in range(i + 1, n)]
        else:
            idx = _sample_pairs(n, max(1, round(rate * n * (n - 1) / 2)), rng)
        w = 1.0 / len(idx)
        right = 0
        for i, j in idx:
            dh = human[i] - human[j]
            dm = metric[i] - metric[j]
            if dh == 0.0:  # tied in human: right once the metric ties it too
                ok = dm == 0.0
                if not ok:
                    deltas.append((abs(dm), w, 2.0 * w))
            else:  # right only if ordered the same way: a metric tie makes it wrong
                ok = dm != 0.0 and (dm > 0.0) == (dh > 0.0)
                if ok:
                    deltas.append((abs(dm), -w, -2.0 * w))
            right += ok
        base_acc += right * w
        base_tau += (2 * right - len(idx)) * w
        used += 1
    return base_acc, base_tau, used, deltas


def tie_calibrated(
    rows: Sequence[Tuple[Sequence[float], Sequence[float]]],
    max_pairs: int = 200_000,
    seed: int = 0,
) -> Dict[str, Tuple[float, float]]:
    """{``acc23``, ``23``: (best mean-over-rows value, its metric tie threshold ε)}, ε searched over |Δmetric|.

    ``rows`` are (human, metric) vector pairs; one ε is shared by all rows (mt-metrics-eval's
    ``KendallWithTiesOpt``): pairs whose |Δmetric| <= ε count as metric ties.  When the rows hold
    more than ``max_pairs`` pairs, a seeded random sample of about ``max_pairs`` pairs (drawn per
    row in proportion) is used, like mt-metrics-eval's ``sample_rate``.  The smallest ε reaching
    the maximum is returned.
    """
    base_acc, base_tau, used, deltas = _pair_deltas(rows, max_pairs, random.Random(seed))
    if not used:
        return {"acc23": (math.nan, 0.0), "23": (math.nan, 0.0)}
    deltas.sort(key=lambda p: p[0])
    best = [base_acc, base_tau]
    best_eps = [0.0, 0.0]
    total = [base_acc, base_tau]
    k = 0
    while k < len(deltas):
        eps = deltas[k][0]
        while k < len(deltas) and deltas[k][0] == eps:
            total[0] += deltas[k][1]
            total[1] += deltas[k][2]
            k += 1
        for v in (0, 1):
            if total[v] > best[v] + 1e-12:
                best[v], best_eps[v] = total[v], eps
    return {"acc23": (best[0] / used, best_eps[0]), "23": (best[1] / used, best_eps[1])}


def agreement(human: Sequence[float], metric: Sequence[float]) -> float:
    """Pairwise accuracy: share of pairs with sign(Δhuman) == sign(Δmetric) (ties agree with ties)."""
    n = len(human)
    agree = pairs = 0
    for i in range(n):
        for j in range(i + 1, n):
            dh, dm = human[i] - human[j], metric[i] - metric[j]
            agree += (dh > 0) - (dh < 0) == (dm > 0) - (dm < 0)
            pairs += 1
    return agree / pairs if pairs else math.nan


def mean_ignoring_nan(values: Sequence[float]) -> float:
    """Mean of the non-NaN values (NaN when there are none), as mt-metrics-eval averages rows."""
    kept = [v for v in values if not math.isnan(v)]
    return math.fsum(kept) / len(kept) if kept else math.nan


def optional_mean(values: Sequence[Optional[float]]) -> Optional[float]:
    """Mean of the values that are not None (None when all are)."""
    kept = [v for v in values if v is not None]
    return math.fsum(kept) / len(kept) if kept else None


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values, interpolated linearly between ranks (numpy's default); NaN for none."""
    if not sorted_values:
        return math.nan
    pos = q * (len(sorted_values) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)
