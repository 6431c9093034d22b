"""``meteor-build check validity``: meteor-lite against chrF and sentence BLEU on every shared MQM set.

For each ``*.mqm.tsv.gz`` / ``*.esa.tsv.gz`` of the data directories (``../shared/data/mqm`` and
``../shared/data/wmt-mqm`` by default; the target language is the second half of the file's language
pair), one row: the average over systems of the segment-level Pearson r with MQM
(``seg:sys:pearson``, as ``meteor-lite correlate`` computes it), with a 95% bootstrap interval over
segments (seeded), for

* **default**: meteor-lite as Meteor 1.5 scores the language (``--norm``, the language's default
  task and modules; ``exact stem`` where the default modules need a paraphrase table the release
  does not have);
* **mqm (cv)**: the shipped ``mqm`` set's *cross-validated* figure on that file, read from the set's
  provenance (``heldout_by_file``: written by ``meteor-build tune --into-scorer``; every segment
  scored by parameters tuned without it); when the set fell back to the default configuration
  (``fallback`` in its provenance) it is the default's figure;
* **mqm (in-sample)**: ``meteor-lite score --task mqm`` on the file itself, which the set was
  tuned on (optimistic: shown for the system level and for comparison only);
* **default --case-aware** (with ``case_aware``, ``--case-aware``): the default configuration with Meteor's
  normalisation but no lower-casing (``norm-case``), its paired interval against the default: casing and lost
  accents are errors the default's lower-casing cannot see;
* **chrF** and **BLEU**: sacreBLEU's ``CHRF()`` and ``BLEU(effective_order=True)`` sentence scores
  (``tokenize="zh"`` for Chinese, as sacreBLEU advises; the ``test`` extra).

The paired bootstrap interval of (default - chrF) says where Meteor 1.5's configuration is clearly
worse (interval below 0) or better.  A file the ``mqm`` set was not tuned on is figured whole (one
fold): there the set's plain scores are held-out scores.  System level: Pearson r of the systems' mean
segment scores with their mean human score, with a bootstrap interval over the same resamples (mean
segment scores for every metric, so that a resample can re-average them).  The bootstrap is numpy's
(every cell of a set at once), so the ~60,000 rows of the WMT files cost seconds, not the scoring.  ``--plot`` draws the segment-level figures with their intervals (matplotlib:
the ``bench`` extra).
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from meteor_lite import Meteor
from meteor_lite.metaeval import Judgments, read_judgments
from meteor_lite.metaeval.correlate import Aligned, Key, align, statistic
from meteor_lite.metaeval.data import MetricScores, judgments_label

from ...errors import BuildError
from .mqm_sets import Scorer, default_meteor, mqm_files, sacrebleu_metrics, sacrebleu_scorer, scored

__all__ = ["SetResult", "validity", "format_table", "plot", "METRICS", "SET_KINDS", "replication_chance", "count_distribution", "replication_tally"]

SEG: Key = ("seg", "sys", "pearson")
SYS: Key = ("sys", "-", "pearson")
#: Columns of the report, in order.
METRICS = ("default", "mqm (cv)", "mqm (in-sample)", "chrF", "BLEU")
#: The case-aware default's column (``validity(..., case_aware=True)``).
CASE_AWARE = "default --case-aware"


@dataclass
class SetResult:
    """One MQM file's figures: ``cv`` the cross-validation protocol's (per fold, averaged), ``whole`` the whole set's."""

    name: str
    lang: str
    systems: int
    segments: int
    default_config: str
    cv: Dict[str, Optional[float]] = field(default_factory=dict)
    cv_interval: Dict[str, Tuple[float, float]] = field(default_factory=dict)
    #: paired 95% intervals of differences under the cv protocol: "mqm - chrF", "mqm - default", "default - chrF"
    diff_interval: Dict[str, Tuple[float, float]] = field(default_factory=dict)
    whole: Dict[str, Optional[float]] = field(default_factory=dict)
    sys: Dict[str, Optional[float]] = field(default_factory=dict)
    #: 95% bootstrap intervals of the system-level Pearson (systems' mean segment scores over the resampled segments)
    sys_interval: Dict[str, Tuple[float, float]] = field(default_factory=dict)
    #: "folds": the mqm set's recorded folds; "whole": the whole set (one fold)
    protocol: str = "folds"
    mqm_note: str = ""
    #: the tuner's recorded held-out figure of the mqm set on this file (provenance ``heldout_by_file``)
    recorded: Optional[float] = None
    #: the chance that a new set like this one (same size, same true difference) shows mqm at least chrF
    #: (:func:`replication_chance` of the cv difference and the spread of its paired bootstrap)
    chance_at_least_chrf: Optional[float] = None


def _meteor_scores(m: Meteor) -> Scorer:
    def score(hyps: List[str], refs: List[str]) -> Tuple[List[float], float]:
        c = m.score_corpus(hyps, [refs])
        return [s.score for s in c.segments], c.score
    return score


def _same_scores(a: Meteor, b: Meteor) -> bool:
    """True when two scorers give the same numbers (modules, weights, α β γ δ, normalisation, bundle): a fallback
    ``mqm`` set is the default configuration, scored once."""
    def key(m: Meteor) -> Tuple[Any, ...]:
        c = m.config
        return (tuple(c.modules), tuple(c.weights), c.alpha, c.beta, c.gamma, c.delta, c.norm_label,
                m.signature.split("|res:")[-1])
    return key(a) == key(b)


def _interval(values: Sequence[float]) -> Tuple[float, float]:
    vals = sorted(v for v in values if not math.isnan(v))
    if not vals:
        return (math.nan, math.nan)
    return vals[int(0.025 * (len(vals) - 1))], vals[int(math.ceil(0.975 * (len(vals) - 1)))]


@dataclass
class _Folds:
    """The shipped mqm set's cross-validation, as recorded: which fold holds each item of each file, and the
    configuration (normalisation, modules, parameters) each fold was scored with."""

    by_file: Dict[str, Dict[str, int]]
    configs: List[Dict[str, Any]]
    k: int
    fallback: bool
    recorded: Dict[str, float]
    #: files the set was not tuned on but whose segments it saw (another judgment of a tuned file's outputs): the
    #: configuration the search chose without their group (provenance ``leave_one_set_out``), and its figure
    loso: Dict[str, Dict[str, Any]] = field(default_factory=dict)


def _find(dirs: Sequence[Path], name: str) -> Optional[Path]:
    """The first ``DIR/name`` of ``dirs`` that exists."""
    for d in dirs:
        if (d / name).is_file():
            return d / name
    return None


def _recorded_folds(lang: str, dirs: "Path | Sequence[Path]") -> Tuple[Optional[_Folds], str]:
    """The mqm set of ``lang``'s recorded folds (None and why, when there is no set or no record)."""
    from meteor_lite.tuned import shipped_tasks

    from ...tune.trainer import COLUMN_CVS
    from .tune_mqm import fold_maps

    dirs = [dirs] if isinstance(dirs, Path) else list(dirs)
    task = shipped_tasks(lang).get("mqm")
    if task is None:
        return None, f"no mqm set shipped for {lang}"
    prov = task.provenance
    held = prov.get("heldout") or {}
    if not held.get("folds") or not held.get("k"):
        return None, f"the mqm set of {lang} records no folds (tuned without --cv items or documents)"
    files = [f["file"] for f in prov.get("judgments", [])]
    missing = [f for f in files if _find(dirs, f) is None]
    if missing:
        return None, (f"the mqm set of {lang} was tuned on {', '.join(missing)}, not in {', '.join(map(str, dirs))}: "
                      "its folds cannot be rebuilt")
    labels = [judgments_label(f) for f in files]
    parts = [(lab, read_judgments(str(_find(dirs, f)))) for lab, f in zip(labels, files)]
    kind = str(held.get("cv", "items")).split(",")[0].strip()
    if kind not in COLUMN_CVS:
        return None, f"the mqm set of {lang} records {kind!r} cross-validation, not folds over items or documents"
    by_file = fold_maps(parts, kind, int(held["k"]), int(held.get("seed", 0)))
    recorded = {lab: v["value"] for lab, v in (prov.get("heldout_by_file") or {}).items()}
    if len(labels) == 1 and held.get("value") is not None:
        recorded[labels[0]] = held["value"]
    if prov.get("fallback"):
        recorded = {lab: v.get("default_value") for lab, v in (prov.get("heldout_by_file") or {}).items()} or (
            {labels[0]: held.get("default_value")} if len(labels) == 1 else {})
    loso = {lab: v for lab, v in (prov.get("leave_one_set_out") or {}).items() if lab not in by_file}
    return _Folds(by_file, list(held["folds"]), int(held["k"]), bool(prov.get("fallback")), recorded, loso), ""


def _heldout_scores(j: Judgments, lang: str, folds: _Folds, fold_of: Dict[str, int]) -> MetricScores:
    """Every row scored by the configuration of the fold holding its segment (as the tuner scored it)."""
    from meteor_lite.stats import compute

    from .tune_mqm import tuned_meteor

    def key_of(cfg: Dict[str, Any]) -> Tuple[str, Tuple[str, ...], str]:
        """A fold's configuration: normalisation, modules, unit ("char": ``-ch``)."""
        return (cfg["norm"] or "norm", tuple(cfg["modules"]), cfg.get("unit", ""))

    stats: Dict[Tuple[str, Tuple[str, ...], str], Dict[Tuple[str, str], Any]] = {}
    for cfg in folds.configs:
        key = key_of(cfg)
        if key in stats:
            continue
        m = tuned_meteor(lang, key)
        cells: Dict[Tuple[str, str], Any] = {}
        for system, pairs in j.texts.items():
            c = m.score_corpus([h for h, _ in pairs], [[r for _, r in pairs]])
            for i, seg in zip(j.order[system], c.segments):
                cells[(system, j.items[i])] = seg.stats
        stats[key] = cells
    out = MetricScores("mqm (cv)", {})
    for (system, item) in next(iter(stats.values())):
        cfg = folds.configs[fold_of[item]]
        p = cfg["params"]
        st = stats[key_of(cfg)][(system, item)]
        out.segments[(system, item)] = compute(st, p[0], p[1], p[2], p[3], p[4:]).score
    return out


def _intervals(res: SetResult, grids: Dict[str, Aligned], fold_cols: List[List[int]], samples: int, seed: int) -> None:
    """The cv protocol's figures (the statistic within each fold, averaged) and the paired bootstrap intervals of
    the segment-level figures, their differences, and the system-level Pearson (numpy: every cell at once)."""
    from ...tune.universal import numpy, seg_sys_pearson, sys_pearson_of_means

    np = numpy()
    names: List[str] = [k for k in ("default", "mqm (cv)", "chrF", "BLEU", CASE_AWARE) if k in grids]
    first = grids[names[0]]
    cells = [(s, c) for s, row in enumerate(first.gold) for c, g in enumerate(row) if g is not None]
    sys_of = np.asarray([s for s, _ in cells], dtype=int)
    item_of = np.asarray([c for _, c in cells], dtype=int)
    gold = np.asarray([float(first.gold[s][c]) for s, c in cells])  # type: ignore[arg-type]
    scores: Dict[str, Any] = {k: np.asarray([float(grids[k].metric[s][c]) for s, c in cells]) for k in names}  # type: ignore[arg-type]
    n_sys, n_items = len(first.systems), len(first.items)
    masks = []
    for fc in fold_cols:
        inside = np.zeros(n_items)
        inside[fc] = 1.0
        masks.append(inside[item_of])

    def cv(k: str, counts: Any) -> float:
        vals = [seg_sys_pearson(sys_of, gold, scores[k], n_sys, counts * m) for m in masks]
        vals = [v for v in vals if not math.isnan(v)]
        return math.fsum(vals) / len(vals) if vals else math.nan

    ones = np.ones_like(gold)
    for k in names:
        res.cv[k] = cv(k, ones)
    pool = sorted(set(item_of.tolist()))
    rng = random.Random(seed)
    draws: Dict[str, List[float]] = {k: [] for k in names}
    sys_draws: Dict[str, List[float]] = {k: [] for k in names}
    for _ in range(samples):
        picks = np.asarray([pool[rng.randrange(len(pool))] for _ in pool], dtype=int)
        counts = np.bincount(picks, minlength=n_items).astype(float)[item_of]
        for k in names:
            draws[k].append(cv(k, counts))
            sys_draws[k].append(sys_pearson_of_means(sys_of, gold, scores[k], n_sys, counts))
    for k in names:
        res.sys[k] = sys_pearson_of_means(sys_of, gold, scores[k], n_sys)
        res.cv_interval[k] = _interval(draws[k])
        res.sys_interval[k] = _interval(sys_draws[k])
    diffs: Dict[str, List[float]] = {}
    for a, b in (("mqm (cv)", "chrF"), ("mqm (cv)", "default"), ("default", "chrF")):
        if a in draws and b in draws:
            key = f"{a.split()[0]} - {b}"
            diffs[key] = [x - y for x, y in zip(draws[a], draws[b])]
            res.diff_interval[key] = _interval(diffs[key])
    if "mqm - chrF" in diffs:
        spread = [d for d in diffs["mqm - chrF"] if not math.isnan(d)]
        mine, chrf = res.cv["mqm (cv)"], res.cv["chrF"]
        diff = mine - chrf if mine is not None and chrf is not None else math.nan
        if len(spread) > 1 and not math.isnan(diff):
            res.chance_at_least_chrf = replication_chance(diff, statistics.stdev(spread))
    for a, b in ((CASE_AWARE, "default"), (CASE_AWARE, "chrF")):
        if a in draws:
            res.diff_interval[f"case-aware - {b}"] = _interval([x - y for x, y in zip(draws[a], draws[b])])


def replication_chance(diff: float, spread: float) -> float:
    """The chance that a new set of the same size shows a difference of at least 0, if its true difference is the
    observed ``diff`` and an estimate on it spreads as the bootstrap's (standard deviation ``spread``): both the
    observed and the new estimate carry that error, so the new one is normal around ``diff`` with standard
    deviation ``spread * sqrt(2)`` (normal approximation)."""
    if spread <= 0.0:
        return 1.0 if diff >= 0.0 else 0.0
    return statistics.NormalDist().cdf(diff / (spread * math.sqrt(2.0)))


def count_distribution(chances: Sequence[float]) -> List[float]:
    """The distribution of the number of independent events that happen, each with its own chance
    (Poisson binomial): entry ``k`` is the chance that exactly ``k`` happen."""
    dist = [1.0]
    for p in chances:
        nxt = [0.0] * (len(dist) + 1)
        for k, q in enumerate(dist):
            nxt[k] += q * (1.0 - p)
            nxt[k + 1] += q * p
        dist = nxt
    return dist


def _cv_figure(grid: Aligned, fold_cols: List[List[int]], cols: Optional[Sequence[int]] = None) -> float:
    """The statistic within each fold's items (of ``cols``, repeats allowed), averaged over the folds."""
    from meteor_lite.metaeval.stats import mean_ignoring_nan

    values = []
    for fc in fold_cols:
        part = [c for c in (cols if cols is not None else range(len(grid.items))) if c in fc]
        if part:
            values.append(statistic(grid, SEG, part))
    return mean_ignoring_nan(values)


def validity(mqm_dir: "Path | Sequence[Path]", samples: int = 1000, seed: int = 0,
             progress: Callable[[str], None] = lambda s: None, only: Optional[Sequence[str]] = None,
             case_aware: bool = False) -> List[SetResult]:
    """The figures of every ``*.mqm.tsv.gz`` in ``mqm_dir`` (sorted by name); with ``case_aware`` the default
    configuration with ``--case-aware`` too (column :data:`CASE_AWARE`).

    Every metric is figured under the mqm set's cross-validation protocol on the file (the statistic within
    each recorded fold, averaged), so that the mqm set's held-out scores compare with the others on equal
    terms; the whole-set figures of default, chrF and BLEU are given too.
    """
    BLEU, CHRF = sacrebleu_metrics()
    dirs = [mqm_dir] if isinstance(mqm_dir, Path) else list(mqm_dir)
    scorers: Dict[str, Tuple[Meteor, str, Optional[Meteor], Optional[_Folds], str]] = {}
    out = []
    for path, lang in mqm_files(dirs):
        if only is not None and judgments_label(str(path)) not in only:
            continue
        progress(f"{path.name} ({lang})")
        if lang not in scorers:
            default, how = default_meteor(lang)
            try:
                tuned: Optional[Meteor] = Meteor(lang, task="mqm", quiet=True)
            except Exception:  # no set shipped for the language (ConfigError) or resources missing
                tuned = None
            folds, why = _recorded_folds(lang, dirs)
            scorers[lang] = (default, how, tuned, folds, why)
        default, how, tuned, folds, why = scorers[lang]
        j = read_judgments(str(path))
        label = judgments_label(str(path))
        metrics = {
            "default": scored(j, "default", _meteor_scores(default)),
            "chrF": scored(j, "chrF", sacrebleu_scorer(CHRF())),
            "BLEU": scored(j, "BLEU", sacrebleu_scorer(BLEU(effective_order=True, tokenize="zh" if lang == "zh" else None))),
        }
        if case_aware:
            c = default.config
            cased = Meteor(lang, norm=True, case_aware=True, modules=list(c.modules), weights=list(c.weights),
                           params=[c.alpha, c.beta, c.gamma, c.delta], quiet=True)
            metrics[CASE_AWARE] = scored(j, CASE_AWARE, _meteor_scores(cased))
        res = SetResult(label, lang, len(j.systems), len(j.items), how, mqm_note=why)
        if tuned is not None:
            metrics["mqm (in-sample)"] = metrics["default"] if _same_scores(tuned, default) else scored(j, "mqm", _meteor_scores(tuned))
        fold_of = folds.by_file.get(label) if folds is not None else None
        if folds is not None and fold_of:
            metrics["mqm (cv)"] = metrics["default"] if folds.fallback else _heldout_scores(j, lang, folds, fold_of)
            res.recorded = folds.recorded.get(label)
            res.mqm_note = "fallback: the default configuration" if folds.fallback else ""
        elif folds is not None and label in folds.loso:
            rec = folds.loso[label]
            if folds.fallback:
                metrics["mqm (cv)"] = metrics["default"]
                res.mqm_note = "fallback: the default configuration"
            else:  # the set saw this file's segments in another file: scored by the set tuned without them
                one = _Folds({label: {}}, [rec], 1, False, {})
                metrics["mqm (cv)"] = _heldout_scores(j, lang, one, {item: 0 for item in j.items})
                res.recorded = rec.get("value")
                res.mqm_note = "held out with its group: the set tuned on the language's other sets (leave one set out)"
        elif folds is not None and "mqm (in-sample)" in metrics:
            # a file the set never saw: its plain scores are held-out scores
            metrics["mqm (cv)"] = metrics["mqm (in-sample)"]
            res.mqm_note = f"the mqm set of {lang} was not tuned on this file: whole set, unseen"
        grids = {k: align(j, v) for k, v in metrics.items()}
        for k, g in grids.items():
            res.whole[k] = statistic(g, SEG)
            res.sys[k] = statistic(g, SYS)
        if fold_of:
            assert folds is not None
            fold_cols = [[c for c, item in enumerate(j.items) if fold_of.get(item) == f] for f in range(folds.k)]
        else:
            fold_cols = [list(range(len(j.items)))]
            res.protocol = "whole"
        _intervals(res, grids, fold_cols, samples, seed)
        out.append(res)
    return out


def _cell(value: Optional[float], iv: Tuple[Optional[float], Optional[float]] = (None, None)) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if iv[0] is None or iv[1] is None or math.isnan(iv[0]) or math.isnan(iv[1]):
        return f"{value:.3f}"
    return f"{value:.3f} [{iv[0]:.3f}, {iv[1]:.3f}]"


def format_table(results: Sequence[SetResult]) -> str:
    """Markdown: the cross-validation protocol's table with intervals, the whole-set and system-level figures, the tallies."""
    lines = [
        "| set | target | systems | segments | default | mqm (cv) | chrF | BLEU | mqm - chrF | mqm - default |",
        "|---|---|---:|---:|---|---|---|---|---|---|",
    ]
    for r in results:
        cells = [_cell(r.cv.get(k), r.cv_interval.get(k, (None, None))) for k in ("default", "mqm (cv)", "chrF", "BLEU")]
        diffs = [_diff(r.diff_interval.get(k)) for k in ("mqm - chrF", "mqm - default")]
        lines.append(f"| {r.name} | {r.lang} | {r.systems} | {r.segments} | {' | '.join(cells)} | {' | '.join(diffs)} |")
    lines += ["", "| set | whole set, seg:sys:pearson: default | chrF | BLEU | system-level Pearson: default | mqm | chrF | BLEU |",
              "|---|---|---|---|---|---|---|---|"]
    for r in results:
        sys_cells = [_cell(r.sys.get(k), r.sys_interval.get(k, (None, None))) for k in ("default", "mqm (cv)", "chrF", "BLEU")]
        lines.append(f"| {r.name} | {_cell(r.whole.get('default'))} | {_cell(r.whole.get('chrF'))} | {_cell(r.whole.get('BLEU'))} "
                     f"| {' | '.join(sys_cells)} |")
    if any(CASE_AWARE in r.cv for r in results):
        lines += ["", "| set | target | default | default --case-aware | case-aware - default | case-aware - chrF |",
                  "|---|---|---|---|---|---|"]
        for r in results:
            lines.append(f"| {r.name} | {r.lang} | {_cell(r.cv.get('default'), r.cv_interval.get('default', (None, None)))} "
                         f"| {_cell(r.cv.get(CASE_AWARE), r.cv_interval.get(CASE_AWARE, (None, None)))} "
                         f"| {_diff(r.diff_interval.get('case-aware - default'))} | {_diff(r.diff_interval.get('case-aware - chrF'))} |")
        better = [r.name for r in results if r.diff_interval.get("case-aware - default", (0.0, 0.0))[0] > 0]
        worse = [r.name for r in results if r.diff_interval.get("case-aware - default", (0.0, 0.0))[1] < 0]
        lines += ["", f"--case-aware clearly above the default (paired interval above 0) on {', '.join(better) or 'none'}; "
                      f"clearly below on {', '.join(worse) or 'none'}."]
    notes = [f"{r.name}: {r.mqm_note}" for r in results if r.mqm_note]
    lines.append("")
    if notes:
        lines.append("Notes: " + "; ".join(notes) + ".")
        lines.append("")
    lines.append(tallies(results))
    return "\n".join(lines)


def _diff(iv: Optional[Tuple[float, float]]) -> str:
    if iv is None or math.isnan(iv[0]):
        return "-"
    return f"[{iv[0]:+.3f}, {iv[1]:+.3f}]"


def tallies(results: Sequence[SetResult]) -> str:
    """Where each meteor-lite configuration is at least chrF (point estimates, cv protocol), and where clearly worse."""
    n = len(results)

    def at_least(name: str) -> int:
        count = 0
        for r in results:
            a, b = r.cv.get(name), r.cv.get("chrF")
            count += a is not None and b is not None and a >= b
        return count

    def below(diff: str) -> List[str]:
        return [r.name for r in results if diff in r.diff_interval and r.diff_interval[diff][1] < 0]

    text = (f"At least chrF's figure (cv protocol): default on {at_least('default')} of {n} sets, mqm on "
            f"{at_least('mqm (cv)')} of {n}. Clearly below chrF (paired interval below 0): default on "
            f"{', '.join(below('default - chrF')) or 'none'}; mqm on {', '.join(below('mqm - chrF')) or 'none'}. "
            f"mqm clearly below the default on {', '.join(below('mqm - default')) or 'none'}.")
    return "\n\n".join([text] + [line for line in (replication_tally(results, kind) for kind in SET_KINDS) if line])


#: The kinds of sets the replication tally counts apart: a label's prefix, and the kind's name.
SET_KINDS = (("biomed", "biomedical pairs"), ("", "general-domain sets"))


def replication_tally(results: Sequence[SetResult], kind: Tuple[str, str]) -> str:
    """For the sets of one kind (:data:`SET_KINDS`; the empty prefix: every set of no other kind), how many new sets
    like them would show mqm at least chrF: the expected number and the chance of at least each number, from each
    set's :attr:`SetResult.chance_at_least_chrf` (the sets independent); empty when no set has a chance."""
    prefix, name = kind
    others = [p for p, _ in SET_KINDS if p]
    chosen = [(r.name, r.chance_at_least_chrf) for r in results if r.chance_at_least_chrf is not None
              and (r.name.startswith(prefix) if prefix else not any(r.name.startswith(p) for p in others))]
    chances = [c for _, c in chosen]
    if not chances:
        return ""
    tail = list(reversed(list(itertools.accumulate(reversed(count_distribution(chances))))))
    shown = ", ".join(f"{k} {100 * min(1.0, t):.0f} %" if t >= 0.005 else f"{k} <1 %" for k, t in enumerate(tail) if k)
    chance = ", ".join(f"{label} {100 * c:.0f} %" for label, c in chosen)
    return (f"New {name} like these {len(chances)} (the same sizes and true differences), mqm at least chrF on: "
            f"{sum(chances):.1f} of them expected; the chance of at least k of them, by k: {shown}. Each set's chance: "
            f"{chance}.")


def plot(results: Sequence[SetResult], out: Path) -> None:
    """Grouped horizontal bars of the segment-level figures with their intervals (PNG; needs matplotlib)."""
    try:
        import matplotlib
    except ImportError:
        raise BuildError("the plot needs matplotlib: pip install 'meteor-lite[bench]'") from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from meteor_lite.atomicfile import atomic_path

    shown = ("default", "mqm (cv)", "chrF", "BLEU")
    colours = {"default": "#7f7f7f", "mqm (cv)": "#1f77b4", "chrF": "#ff7f0e", "BLEU": "#2ca02c"}
    fig, ax = plt.subplots(figsize=(8, 0.62 * len(results) + 1.2))
    height = 0.8 / len(shown)
    for k, name in enumerate(shown):
        ys, xs, lo, hi = [], [], [], []
        for i, r in enumerate(results):
            v = r.cv.get(name)
            if v is None or math.isnan(v):
                continue
            a, b = r.cv_interval.get(name, (math.nan, math.nan))
            ys.append(i + (k - (len(shown) - 1) / 2) * height)
            xs.append(v)
            lo.append(v - a if not math.isnan(a) else 0.0)
            hi.append(b - v if not math.isnan(b) else 0.0)
        ax.barh(ys, xs, height=height, xerr=[lo, hi], color=colours[name], label=name, error_kw={"linewidth": 0.7})
    ax.set_yticks(range(len(results)))
    ax.set_yticklabels([r.name.replace(".dev", "") for r in results], fontsize=8)
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=0.5)
    ax.set_xlabel("segment-level Pearson r with MQM, by system, within cross-validation folds (95% bootstrap)")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    with atomic_path(out, suffix=".tmp.png") as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)


def as_json(results: Sequence[SetResult]) -> List[Dict[str, Any]]:
    """The results as JSON-ready dicts."""
    return [asdict(r) for r in results]


def from_json(data: Sequence[Dict[str, Any]]) -> List[SetResult]:
    """Results written by :func:`as_json` (``check validity --json``), read back (intervals as tuples)."""
    out = []
    for d in data:
        r = SetResult(**d)
        for name in ("cv_interval", "diff_interval", "sys_interval"):
            setattr(r, name, {k: tuple(v) for k, v in getattr(r, name).items()})
        out.append(r)
    return out
