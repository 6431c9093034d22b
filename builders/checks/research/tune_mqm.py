"""Each target language's ``mqm`` set tuned on every judged set of that language, from cached statistics.

``meteor-build check tune-mqm`` (``make tune-mqm``); :func:`shipped_task` gives the set that ``--write`` adds to ``meteor_lite/tuned_tasks.json`` (:func:`meteor_lite_builders.tune.tasks.add_shipped`).  For a target language, every judgments file of the data
directories whose pair ends in it (a *set*) is aligned once per configuration, a normalisation of
:data:`NORMS` × a module set of :data:`MODULE_SETS` (with the installed official bundle, the one ``--task mqm``
scores with; first reference), and once with the language's Meteor 1.5 configuration (the *default*,
:func:`~meteor_lite_builders.checks.research.mqm_sets.default_meteor`).  The statistics are cached on disk
(:mod:`meteor_lite_builders.tune.statcache`), so the search re-scores them with numpy (:class:`~meteor_lite_builders.tune.universal.StatArrays`), every cell at
once, as the universal set's search does.

* **Objective**: the mean over the language's training sets of ``seg:sys:pearson`` (segment-level Pearson within
  each system, averaged over systems; a NaN figure counts 0), so that a small set weighs as much as a large one.
  Sets repeating another set's segments (:data:`~meteor_lite_builders.checks.research.universal.TRAIN_EXCLUDED`) are
  measured only.  The search: for each configuration, the trainer's coordinate ascent from the configuration's
  Meteor 1.5 parameters (δ at most :data:`~meteor_lite_builders.tune.universal.MAX_DELTA`); the configuration with the best objective wins.
* **Held out (folds)**: ``k`` folds over whole documents of the merged training sets (``--cv documents`` of
  ``meteor-build tune``: the same folds, so that ``check validity`` rebuilds them from the provenance; a file
  without documents folds by segment); in each fold the whole choice (normalisation, modules, parameters) is made
  on the other folds; each set's figure is the statistic within each fold, averaged over folds (per-fold), the
  default's on the same folds, and the paired bootstrap (segments of each set resampled) gives the intervals of
  each set's gain and of the language's (the mean over sets).
* **Leave one set out**: for each group of sets (sets sharing segments go together), the search on the
  language's other training sets, scored on the left-out sets whole, against the default, paired intervals.
* **Against chrF**: each set's held-out scores (left out with its group where the language has another group,
  else the folds') against sacreBLEU's sentence chrF on the same cells, paired intervals.
* **Perturbations** (:mod:`~meteor_lite_builders.checks.research.perturbations`, from the shared references): the share of
  perturbed copies of good translations scored below them, the set's and the default's, and the reversed
  references' mean and highest score.
* **The search space** keeps the fragmentation penalty on (:data:`~meteor_lite_builders.tune.trainer.BETA_RANGE`,
  :data:`~meteor_lite_builders.tune.trainer.GAMMA_RANGE`): a set that ignores word order is never searched.
* **The keep rule**: the set tuned on every training set is shipped only when the folds' pooled gain holds
  (paired interval above 0), no set is clearly below the default left out (interval below 0), no set is clearly
  below chrF where the default is not (the default, what the rule falls back to, being clearly below chrF there
  too, that set cannot tell them apart), its perturbation accuracy is at least the default's and reversed references score below 0.75 on
  average and never 1.0; a language with fewer than two groups of sets cannot be checked on an unseen domain and
  keeps the default.  Otherwise the shipped set is the default configuration, its provenance saying why
  (``fallback``) and keeping the rejected values (``tuned_set_withdrawn``).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from meteor_lite import Meteor, __version__
from meteor_lite.config import NORM_LABELS, TASK_UNITS
from meteor_lite.errors import MeteorLiteError
from meteor_lite.metaeval import Judgments, read_judgments
from meteor_lite.metaeval.data import judgments_label, merge_judgments

from ...errors import BuildError
from ...tune.statcache import align_cached
from ...tune.trainer import BETA_RANGE, GAMMA_RANGE, column_folds, coordinate_search
from ...tune.universal import MAX_DELTA, JudgedCells, StatArrays, bootstrap_gain, canonical, cells_of, gain_verdict, numpy

__all__ = ["NORMS", "UNITS", "ALPHA_RANGE", "MODULE_SETS", "NEAR_MAX_WEIGHT", "near_weight_ok", "Config", "LangSet", "Choice", "LangRun", "module_sets", "load_sets", "fold_maps",
           "choose", "tune_language", "format_report", "shipped_task"]

#: A configuration: (normalisation label of :data:`meteor_lite.config.NORM_LABELS`, modules, unit of
#: :data:`UNITS`).
Config = Tuple[str, Tuple[str, ...], str]
#: The normalisations searched: Meteor's ``--norm`` and its case-aware variant.
NORMS = ("norm", "norm-case")
#: What precision and recall count, searched: every unit a tuned set can carry, words ("", Meteor's default) and
#: characters ("char", Meteor 1.5's ``-ch``: each matched word weighs its length, the evidence chrF counts; the
#: chunks and the fragmentation penalty stay those of the word alignment).
UNITS = TASK_UNITS
#: The module sets searched, by target language (``*``: any other); a set the installed bundle cannot score is
#: skipped.  English's official bundle has WordNet synonyms and paraphrases; the other official bundles have
#: stems (Snowball) at most, and Chinese scores characters with exact matching only (so no ``near``: its words of
#: one character are below the module's four).  Every set without ``near`` has its twin with it (``near`` needs no
#: resources), so that :mod:`.near_gain` can compare the best of each half.
MODULE_SETS: Dict[str, Tuple[Tuple[str, ...], ...]] = {
    "en": (("exact", "stem"), ("exact", "stem", "synonym", "paraphrase"),
           ("exact", "near"), ("exact", "stem", "near"), ("exact", "stem", "synonym", "paraphrase", "near")),
    "zh": (("exact",),),
    "*": (("exact",), ("exact", "stem"), ("exact", "near"), ("exact", "stem", "near")),
}
#: The highest weight the search gives ``near`` (and never more than ``stem``'s where the set has it): a near match
#: is the weakest evidence of the modules, two spellings close by edit distance, which catches variants and typos
#: but also different words (``than`` ~ ``then``, ``form`` ~ ``from``); a stem match at least claims one lemma.
#: 0.6 is Meteor 1.5's English stem weight, the highest stem weight of its presets but German's and Spanish's 0.8.
NEAR_MAX_WEIGHT = 0.6
#: The range of α the search gives a set: Meteor 1.5's own tuned presets put it between 0.4 (HTER) and 0.95 (German and
#: Czech ranking).  α = 1 makes Fmean the recall alone: a hypothesis with words added, repeated or left untranslated
#: loses nothing by them, which the perturbation suite sees (the German and Russian sets searched up to α = 1 chose
#: it, and ranked perturbed copies above good translations far more often than the default).
ALPHA_RANGE = (0.4, 0.95)
#: Sets that repeat another set's segments: measured, never tuned on (as the universal set's search).
TRAIN_EXCLUDED = ("generalMT2023.en-de", "wmt23.en-de.esa")


def set_group(label: str) -> str:
    """Sets sharing segments share a group (left out together): the WMT23 en-de sets."""
    return "wmt23.en-de" if label in ("generalMT2023.en-de", "wmt23.en-de.esa", "wmt23.en-de") else label


def _params(m: Meteor) -> List[float]:
    c = m.config
    return [c.alpha, c.beta, c.gamma, c.delta, *c.weights]


def module_sets(lang: str) -> List[Tuple[str, ...]]:
    """The module sets of :data:`MODULE_SETS` for ``lang`` that the installed bundle can score."""
    out = []
    for mods in MODULE_SETS.get(lang, MODULE_SETS["*"]):
        try:
            Meteor(lang, modules=list(mods), norm=True, quiet=True, strict_modules=True)
        except MeteorLiteError:
            continue
        out.append(mods)
    if not out:
        raise BuildError(f"{lang}: no bundle installed that scores {lang} (make bundles)")
    return out


@dataclass
class LangSet(JudgedCells):
    """One judgments file of the language: its judged cells and their statistics under every configuration."""

    name: str
    lang: str
    group: str
    train: bool
    path: Path
    judgments: Judgments
    systems: List[str]
    items: List[str]
    sys_of: Any
    item_of: Any
    gold: Any
    stats: Dict[Config, StatArrays]
    default: StatArrays
    default_params: List[float]
    #: the fold of each cell (-1 before :func:`fold_maps` is applied, or a set not folded)
    fold_of: Any = None

    def scores(self, cfg: Config, params: Sequence[float]) -> Any:
        """The cells scored under configuration ``cfg`` with α β γ δ and weights ``params``."""
        return self.stats[cfg].scores(params[0], params[1], params[2], params[3], list(params[4:]))

    def default_scores(self) -> Any:
        """The cells scored by the language's Meteor 1.5 configuration."""
        p = self.default_params
        return self.default.scores(p[0], p[1], p[2], p[3], p[4:])


def load_sets(lang: str, files: Sequence[Path], cache: Optional[Path], progress: Callable[[str], None] = lambda s: None
              ) -> Tuple[List[LangSet], List[Config], Dict[Config, List[float]], str, List[float], Tuple[str, ...]]:
    """Every file aligned under every configuration (and the default's), as :class:`LangSet`; with the
    configurations, their starting parameters, and the default's options, parameters and modules."""
    from .mqm_sets import default_meteor

    np = numpy()
    configs = [(n, mods, u) for n in NORMS for mods in module_sets(lang) for u in UNITS]
    scorers = {c: tuned_meteor(lang, c) for c in configs}
    starts = {c: _params(m) for c, m in scorers.items()}
    dm, how = default_meteor(lang)
    dmods = tuple(dm.config.modules)
    out = []
    for path in files:
        label = judgments_label(str(path))
        j = read_judgments(str(path))
        by_cfg = {c: align_cached(j, path, lang, None, c[1], cache, progress, meteor=m) for c, m in scorers.items()}
        same = ("norm", dmods, "")  # the default aligns as this configuration (parameters do not change an alignment)
        dstats = by_cfg[same] if same in by_cfg else align_cached(j, path, lang, None, dmods, cache, progress, meteor=dm)
        systems, items, sys_of, item_of, gold, _ = cells_of(j, by_cfg[configs[0]])
        keys = [(systems[s], items[i]) for s, i in zip(sys_of, item_of)]
        arrays = {c: StatArrays([st[k][0] for k in keys], c[1]) for c, st in by_cfg.items()}
        out.append(LangSet(label, lang, set_group(label), label not in TRAIN_EXCLUDED, path, j, systems, items,
                           np.asarray(sys_of, dtype=int), np.asarray(item_of, dtype=int), np.asarray(gold, dtype=float),
                           arrays, StatArrays([dstats[k][0] for k in keys], dmods), _params(dm),
                           np.full(len(keys), -1, dtype=int)))
    return out, configs, starts, how, _params(dm), dmods


def fold_maps(parts: Sequence[Tuple[str, Judgments]], kind: str, k: int, seed: int) -> Dict[str, Dict[str, int]]:
    """The fold of every item of every part (label -> item -> fold), as ``meteor-build tune --add`` folds the merged
    files (``kind``: ``documents`` or ``items``) and as ``check validity`` rebuilds them from a set's provenance."""
    merged = merge_judgments(list(parts)) if len(parts) > 1 else merge_judgments(list(parts) + [("-", Judgments([], [], [], set()))])
    fold_of: Dict[str, int] = {}
    for f, cols in enumerate(column_folds(kind, merged.items, merged.docs, k, seed)):
        for c in cols:
            fold_of[merged.items[c]] = f
    labels = [lab for lab, _ in parts]
    return {lab: {item.split("/", 1)[1]: f for item, f in fold_of.items() if item.startswith(lab + "/")} for lab in labels}


@dataclass
class Choice:
    """What one search chose: the configuration, its parameters, its objective, and every configuration's."""

    cfg: Config
    params: List[float]
    value: float
    values: Dict[Config, float] = field(default_factory=dict)

    def as_dict(self) -> Dict[str, Any]:
        """As the provenance records a fold's choice (``check validity`` reads ``norm``, ``modules``, ``params``
        and ``unit``, present for characters only)."""
        out: Dict[str, Any] = {"norm": self.cfg[0], "modules": list(self.cfg[1]), "params": [round(v, 6) for v in self.params]}
        if self.cfg[2]:
            out["unit"] = self.cfg[2]
        return out


def near_weight_ok(modules: Sequence[str], params: Sequence[float]) -> bool:
    """Whether ``near``'s weight (where ``modules`` has it) is within the search space: at most
    :data:`NEAR_MAX_WEIGHT` and at most ``stem``'s weight where the set has stem."""
    mods = list(modules)
    if "near" not in mods:
        return True
    w = params[4 + mods.index("near")]
    return w <= NEAR_MAX_WEIGHT + 1e-9 and ("stem" not in mods or w <= params[4 + mods.index("stem")] + 1e-9)


def _objective(sets: Sequence[LangSet], masks: Sequence[Optional[Any]], cfg: Config) -> Callable[[List[float]], float]:
    def objective(params: List[float]) -> float:
        if params[3] > MAX_DELTA or not ALPHA_RANGE[0] <= params[0] <= ALPHA_RANGE[1] or not near_weight_ok(cfg[1], params):
            return -math.inf
        values = [s.figure(s.scores(cfg, params), m) for s, m in zip(sets, masks)]
        return math.fsum(0.0 if math.isnan(v) else v for v in values) / len(values)
    return objective


def choose(sets: Sequence[LangSet], masks: Sequence[Optional[Any]], configs: Sequence[Config],
           starts: Dict[Config, List[float]], rounds: int) -> Choice:
    """Each configuration searched on ``sets`` (cells weighted by ``masks``; None: all); the best one (the first of
    equal objectives, in the order of ``configs``)."""
    if not sets:
        raise BuildError("no set to tune on")
    best: Optional[Choice] = None
    values: Dict[Config, float] = {}
    for cfg in configs:
        start = list(starts[cfg])
        start[3] = min(start[3], MAX_DELTA)
        start[0] = min(max(start[0], ALPHA_RANGE[0]), ALPHA_RANGE[1])
        if "near" in cfg[1]:  # a start inside the space: near's weight at most the cap and stem's
            n = 4 + cfg[1].index("near")
            start[n] = min(start[n], NEAR_MAX_WEIGHT, start[4 + cfg[1].index("stem")] if "stem" in cfg[1] else 1.0)
        params, value = coordinate_search(_objective(sets, masks, cfg), start, rounds, lambda: None)
        values[cfg] = value
        if best is None or value > best.value + 1e-12:
            best = Choice(cfg, canonical(params), value)
    assert best is not None
    best.values = values
    return best


def _interval(values: List[float]) -> Tuple[float, float]:
    vals = sorted(v for v in values if not math.isnan(v))
    if not vals:
        return (math.nan, math.nan)
    return vals[int(0.025 * (len(vals) - 1))], vals[int(math.ceil(0.975 * (len(vals) - 1)))]


def _mean(values: Sequence[float]) -> float:
    vals = [v for v in values if not math.isnan(v)]
    return math.fsum(vals) / len(vals) if vals else math.nan


def cv_figure(s: LangSet, scores: Any, k: int, counts: Optional[Any] = None) -> float:
    """The statistic within each fold's cells, averaged over folds (NaN folds left out): ``check validity``'s
    cv protocol."""
    base = 1.0 if counts is None else counts
    return _mean([s.figure(scores, base * (s.fold_of == f)) for f in range(k)])


@dataclass
class SetFigures:
    """One set's figures: tuned (held out) and default, with paired 95% intervals."""

    name: str
    systems: int
    segments: int
    value: float
    default: float
    interval: Tuple[float, float]
    default_interval: Tuple[float, float]
    gain_interval: Tuple[float, float]
    #: leave one set out: what the search on the other sets chose
    choice: Optional[Choice] = None
    trained_on: List[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        """:func:`~.universal.gain_verdict` of the paired gain's interval."""
        return gain_verdict(self.gain_interval)

    def as_dict(self) -> Dict[str, Any]:
        """The provenance's record."""
        out: Dict[str, Any] = {
            "systems": self.systems, "segments": self.segments, "value": round(self.value, 6),
            "interval": [round(x, 6) for x in self.interval], "default_value": round(self.default, 6),
            "default_interval": [round(x, 6) for x in self.default_interval],
            "gain_interval": [round(x, 6) for x in self.gain_interval]}
        if self.choice is not None:
            out.update(self.choice.as_dict(), verdict=self.verdict, trained_on=self.trained_on)
        return out


def _cv_bootstrap(sets: Sequence[LangSet], tuned: Sequence[Any], default: Sequence[Any], k: int, samples: int,
                  seed: int) -> Tuple[List[Dict[str, Tuple[float, float]]], Dict[str, Tuple[float, float]]]:
    """Paired bootstrap of the cv figures: each set's segments resampled (the same resamples for tuned and default);
    the intervals of each set's figures and gain, and of their means over sets."""
    np = numpy()
    rng = random.Random(seed)
    per: List[Dict[str, List[float]]] = [{"tuned": [], "default": [], "gain": []} for _ in sets]
    pooled: Dict[str, List[float]] = {"tuned": [], "default": [], "gain": []}
    pools = [s.judged_items() for s in sets]
    for _ in range(samples):
        ts, ds = [], []
        for n, s in enumerate(sets):
            pool = pools[n]
            picks = [pool[rng.randrange(len(pool))] for _ in pool]
            counts = np.bincount(np.asarray(picks, dtype=int), minlength=len(s.items)).astype(float)[s.item_of]
            t, d = cv_figure(s, tuned[n], k, counts), cv_figure(s, default[n], k, counts)
            if not (math.isnan(t) or math.isnan(d)):
                per[n]["tuned"].append(t)
                per[n]["default"].append(d)
                per[n]["gain"].append(t - d)
            ts.append(0.0 if math.isnan(t) else t)
            ds.append(0.0 if math.isnan(d) else d)
        pooled["tuned"].append(math.fsum(ts) / len(ts))
        pooled["default"].append(math.fsum(ds) / len(ds))
        pooled["gain"].append(pooled["tuned"][-1] - pooled["default"][-1])
    return [{k_: _interval(v) for k_, v in p.items()} for p in per], {k_: _interval(v) for k_, v in pooled.items()}


@dataclass
class LangRun:
    """A language's search: the set tuned on every training set, the folds' and the left-out figures, the verdict."""

    lang: str
    sets: List[LangSet]
    configs: List[Config]
    default_how: str
    default_params: List[float]
    default_modules: Tuple[str, ...]
    final: Choice
    folds: List[Choice]
    k: int
    seed: int
    rounds: int
    samples: int
    cv_by_set: List[SetFigures]
    cv_pooled: SetFigures
    loso: List[SetFigures]
    seconds: float = 0.0
    align_seconds: float = 0.0
    #: each set's held-out scores against chrF (value: the set's, default: chrF's)
    versus_chrf: List[SetFigures] = field(default_factory=list)
    #: the sets where the default itself is clearly below chrF (paired interval below 0)
    default_below_chrf: List[str] = field(default_factory=list)
    #: the perturbation suite: ``tuned`` and ``default`` figures (empty when the suite was not run)
    suite: Dict[str, Any] = field(default_factory=dict)
    suite_good: str = ""

    @property
    def groups(self) -> List[str]:
        """The groups of sets (a set left out with the sets sharing its segments)."""
        return sorted({s.group for s in self.sets})

    @property
    def clearly_below(self) -> List[SetFigures]:
        """Left-out sets where the tuned set is clearly below the default."""
        return [f for f in self.loso if f.verdict == "worse"]

    @property
    def below_chrf(self) -> List[SetFigures]:
        """Sets where the set's held-out scores are clearly below chrF's and the default's are not (a set where the
        default, what the rule falls back to, is clearly below chrF too cannot tell them apart)."""
        return [f for f in self.versus_chrf if f.verdict == "worse" and f.name not in self.default_below_chrf]

    def suite_failures(self) -> List[str]:
        """What the perturbation suite holds against the set ('' items: none)."""
        t, d = self.suite.get("tuned"), self.suite.get("default")
        if t is None or d is None:
            return []
        out = []
        if t.accuracy < d.accuracy:
            out.append(f"its perturbation accuracy is below the default's: {100 * t.accuracy:.1f} % against "
                       f"{100 * d.accuracy:.1f} %")
        if not t.word_order_ok:
            out.append(f"reversed references score {t.reversed_mean:.3f} on average (highest {t.reversed_max:.3f}): "
                       f"not below 0.75 and never 1.0")
        return out

    @property
    def kept(self) -> bool:
        """The keep rule: the folds' gain holds, no left-out set clearly below the default, none clearly below chrF,
        the perturbation suite at least the default's with word order seen, two groups at least."""
        return (self.cv_pooled.gain_interval[0] > 0 and not self.clearly_below and len(self.groups) >= 2
                and not self.below_chrf and not self.suite_failures())

    def why_not(self) -> str:
        """Why the tuned set is not kept ('' when it is)."""
        reasons = []
        if len(self.groups) < 2:
            reasons.append(f"{self.lang} has judged sets of one domain only ({', '.join(self.groups)}): no left-out domain to check the set on")
        g = self.cv_pooled.gain_interval
        if not g[0] > 0:
            reasons.append(f"its held-out gain over the default (folds over documents) does not hold: paired 95% interval "
                           f"[{g[0]:+.3f}, {g[1]:+.3f}] of the mean over sets")
        for f in self.clearly_below:
            reasons.append(f"left out, it is clearly below the default on {f.name}: {f.value:.3f} against {f.default:.3f}, "
                           f"paired 95% interval [{f.gain_interval[0]:+.3f}, {f.gain_interval[1]:+.3f}]")
        for f in self.below_chrf:
            reasons.append(f"it is clearly below chrF on {f.name}: {f.value:.3f} against {f.default:.3f}, "
                           f"paired 95% interval [{f.gain_interval[0]:+.3f}, {f.gain_interval[1]:+.3f}]")
        reasons.extend(self.suite_failures())
        return "; ".join(reasons)


def tune_language(lang: str, files: Sequence[Path], cache: Optional[Path], k: int = 3, seed: int = 0, rounds: int = 2,
                  samples: int = 1000, progress: Callable[[str], None] = lambda s: None,
                  suite_data: Optional[Path] = None, suite_items: int = 200) -> LangRun:
    """Align (or read the cache), search on every training set, cross-validate over documents, leave each group out,
    compare with chrF, and run the perturbation suite on the references under ``suite_data`` (the shared data
    directory; None: the parent of the first file's directory; ``suite_items`` 0: no suite)."""
    t0 = time.perf_counter()
    sets, configs, starts, how, dparams, dmods = load_sets(lang, files, cache, progress)
    t_align = time.perf_counter() - t0
    train = [s for s in sets if s.train]
    if not train:
        raise BuildError(f"{lang}: no judgments file to tune on")
    maps = fold_maps([(s.name, s.judgments) for s in train], "documents", k, seed)
    np = numpy()
    for s in train:
        s.fold_of = np.asarray([maps[s.name][s.items[i]] for i in s.item_of.tolist()], dtype=int)
    progress(f"{lang}: tuning on {len(train)} sets ({sum(s.cells for s in train)} rows), {len(configs)} configurations")
    final = choose(train, [None] * len(train), configs, starts, rounds)
    folds = []
    held = [np.zeros(s.cells) for s in train]
    for f in range(k):
        progress(f"{lang}: fold {f + 1} of {k}")
        ch = choose(train, [(s.fold_of != f).astype(float) for s in train], configs, starts, rounds)
        folds.append(ch)
        for n, s in enumerate(train):
            sel = s.fold_of == f
            held[n][sel] = s.scores(ch.cfg, ch.params)[sel]
    dflt = [s.default_scores() for s in train]
    per, pooled = _cv_bootstrap(train, held, dflt, k, samples, seed)
    cv_by_set = [SetFigures(s.name, len(set(s.sys_of.tolist())), len(s.judged_items()), cv_figure(s, held[n], k),
                            cv_figure(s, dflt[n], k), per[n]["tuned"], per[n]["default"], per[n]["gain"])
                 for n, s in enumerate(train)]
    cv_pooled = SetFigures(f"{lang} (mean over {len(train)} sets)", sum(f.systems for f in cv_by_set),
                           sum(f.segments for f in cv_by_set), _mean_nan0([f.value for f in cv_by_set]),
                           _mean_nan0([f.default for f in cv_by_set]), pooled["tuned"], pooled["default"], pooled["gain"])
    loso = []
    for g in sorted({s.group for s in sets}):
        rest = [s for s in train if s.group != g]
        if not rest:
            continue
        progress(f"{lang}: leaving out {g}")
        ch = choose(rest, [None] * len(rest), configs, starts, rounds)
        for s in sets:
            if s.group != g:
                continue
            tuned, base = s.scores(ch.cfg, ch.params), s.default_scores()
            ci = bootstrap_gain(s, tuned, base, samples, seed)
            loso.append(SetFigures(s.name, len(set(s.sys_of.tolist())), len(s.judged_items()), s.figure(tuned),
                                   s.figure(base), ci["tuned"], ci["baseline"], ci["gain"], ch, [t.name for t in rest]))
    left_out = {f.name: s.scores(f.choice.cfg, f.choice.params) for f in loso if f.choice is not None
                for s in sets if s.name == f.name}
    held_by = {s.name: held[n] for n, s in enumerate(train)}
    versus, default_below = [], []
    for s in sets:
        tuned = left_out.get(s.name, held_by.get(s.name))
        if tuned is None:
            continue
        chrf = chrf_scores(s)
        ci = bootstrap_gain(s, tuned, chrf, samples, seed)
        versus.append(SetFigures(s.name, len(set(s.sys_of.tolist())), len(s.judged_items()), s.figure(tuned),
                                 s.figure(chrf), ci["tuned"], ci["baseline"], ci["gain"]))
        if bootstrap_gain(s, s.default_scores(), chrf, samples, seed)["gain"][1] < 0:
            default_below.append(s.name)
    run = LangRun(lang, sets, configs, how, dparams, dmods, final, folds, k, seed, rounds, samples, cv_by_set, cv_pooled,
                  loso, time.perf_counter() - t0, t_align, versus, default_below)
    if suite_items > 0:
        progress(f"{lang}: perturbation suite")
        run_suite(run, suite_data if suite_data is not None else Path(files[0]).resolve().parent.parent, suite_items, seed)
    run.seconds = time.perf_counter() - t0
    return run


def chrf_scores(s: LangSet) -> Any:
    """sacreBLEU's sentence chrF of each cell of ``s`` (hypothesis against its first reference)."""
    from .mqm_sets import sacrebleu_metrics, sacrebleu_scorer, scored

    _, CHRF = sacrebleu_metrics()
    m = scored(s.judgments, "chrF", sacrebleu_scorer(CHRF()))
    return numpy().asarray([m.segments[(s.systems[a], s.items[b])] for a, b in zip(s.sys_of.tolist(), s.item_of.tolist())],
                           dtype=float)


def tuned_meteor(lang: str, cfg: Config, params: Optional[Sequence[float]] = None) -> Meteor:
    """The scorer of a configuration: its normalisation, modules and unit, with α β γ δ and weights ``params``
    (None: the language's Meteor 1.5 ones, where a search starts)."""
    flags = NORM_LABELS[cfg[0]]
    values: Dict[str, Any] = {} if params is None else {"params": list(params[:4]), "weights": list(params[4:])}
    return Meteor(lang, norm=flags[0], lower=flags[1], no_punct=flags[2], case_aware=flags[3], modules=list(cfg[1]),
                  char_based=cfg[2] == "char", quiet=True, **values)


def run_suite(run: LangRun, data: Path, n: int, seed: int) -> None:
    """The perturbation suite of the set tuned on every training set and of the default (into ``run.suite``)."""
    from . import perturbations
    from .mqm_sets import default_meteor

    prepared = perturbations.prepare(data, run.lang, n, seed)
    dm, _ = default_meteor(run.lang)
    run.suite = {"tuned": perturbations.suite_figures(perturbations.meteor_scorer(
                     tuned_meteor(run.lang, run.final.cfg, run.final.params)), prepared),
                 "default": perturbations.suite_figures(perturbations.meteor_scorer(dm), prepared)}
    run.suite_good = prepared.good


def _mean_nan0(values: Sequence[float]) -> float:
    return math.fsum(0.0 if math.isnan(v) else v for v in values) / len(values) if values else math.nan


def _opts(cfg: Config, params: Sequence[float]) -> str:
    return (f"--{cfg[0]}{' --ch' if cfg[2] == 'char' else ''} -m '{' '.join(cfg[1])}' "
            f"-p '{' '.join(f'{v:g}' for v in params[:4])}' -w '{' '.join(f'{v:g}' for v in params[4:])}'")


def _num(v: float) -> str:
    return "-" if math.isnan(v) else f"{v:.3f}"


def _iv(iv: Tuple[float, float], sign: str = "") -> str:
    return "-" if math.isnan(iv[0]) else f"[{iv[0]:{sign}.3f}, {iv[1]:{sign}.3f}]"


def format_report(r: LangRun) -> str:
    """Markdown: the set, the folds' figures per set, the left-out figures, the verdict."""
    dflt = _opts(("norm", r.default_modules, ""), r.default_params)
    lines = [f"## {r.lang}: {len(r.sets)} sets, {sum(s.cells for s in r.sets)} judged rows "
             f"({sum(s.cells for s in r.sets if s.train)} tuned on); alignment {r.align_seconds:.0f} s, all {r.seconds:.0f} s", "",
             f"tuned on every training set (mean seg:sys:pearson {r.final.value:.4f}): {_opts(r.final.cfg, r.final.params)}",
             f"default: {dflt}", "",
             "configurations (objective on every training set): " + "; ".join(
                 f"{c[0]}{' ch' if c[2] else ''} {'+'.join(c[1])} {v:.4f}" for c, v in r.final.values.items()),
             "folds' choices: " + "; ".join(_opts(c.cfg, c.params) for c in r.folds), "",
             f"| set (folds over documents, k={r.k}) | systems | segments | tuned, held out | default | gain, paired 95% |",
             "|---|---:|---:|---|---|---|"]
    for f in [*r.cv_by_set, r.cv_pooled]:
        lines.append(f"| {f.name} | {f.systems} | {f.segments} | {_num(f.value)} {_iv(f.interval)} | {_num(f.default)} "
                     f"{_iv(f.default_interval)} | {_iv(f.gain_interval, '+')} |")
    if r.loso:
        lines += ["", "| set (left out with its group) | tuned on the others | default | gain, paired 95% | verdict | chosen |",
                  "|---|---|---|---|---|---|"]
        for f in r.loso:
            assert f.choice is not None
            lines.append(f"| {f.name} | {_num(f.value)} {_iv(f.interval)} | {_num(f.default)} {_iv(f.default_interval)} "
                         f"| {_iv(f.gain_interval, '+')} | {f.verdict} | {_opts(f.choice.cfg, f.choice.params)} |")
    if r.versus_chrf:
        lines += ["", "| set (held out) | tuned | chrF | gain over chrF, paired 95% | verdict |", "|---|---|---|---|---|"]
        for f in r.versus_chrf:
            lines.append(f"| {f.name} | {_num(f.value)} | {_num(f.default)} | {_iv(f.gain_interval, '+')} | {f.verdict} |")
        if r.default_below_chrf:
            lines += ["", f"the default is clearly below chrF too on {', '.join(r.default_below_chrf)} (not held against the set)"]
    if r.suite:
        t, d = r.suite["tuned"], r.suite["default"]
        lines += ["", f"perturbations ({r.suite_good}): tuned {100 * t.accuracy:.1f} %, default {100 * d.accuracy:.1f} %; "
                      f"reversed references: tuned {t.reversed_mean:.3f} (highest {t.reversed_max:.3f}), default "
                      f"{d.reversed_mean:.3f} (highest {d.reversed_max:.3f})"]
    lines += ["", f"verdict: {'kept' if r.kept else 'the default is shipped: ' + r.why_not()}"]
    return "\n".join(lines)


def provenance(r: LangRun) -> Dict[str, Any]:
    """The shipped set's provenance (``check validity`` rebuilds the folds from ``judgments`` and ``heldout``)."""
    from ...sources import sha256_file

    dflt = _opts(("norm", r.default_modules, ""), r.default_params)
    return {
        "judgments": [{"file": s.path.name, "sha256": sha256_file(str(s.path))} for s in r.sets if s.train],
        "measured_only": [{"file": s.path.name, "sha256": sha256_file(str(s.path))} for s in r.sets if not s.train],
        "statistic": "seg:sys:pearson",
        "objective": "mean over the training sets of seg:sys:pearson",
        "include_human": True,
        "aligned_with": "first reference, the installed official bundle (meteor-build check tune-mqm)",
        "norms_searched": list(NORMS),
        "modules_searched": sorted({" ".join(c[1]) for c in r.configs}),
        "units_searched": ["char" if u else "word" for u in UNITS],
        "search": {"rounds": r.rounds, "start": "each configuration's Meteor 1.5 parameters", "max_delta": MAX_DELTA,
                   "near_max_weight": NEAR_MAX_WEIGHT},
        "train_value": round(r.final.value, 6),
        "heldout": {
            "cv": f"documents, {r.k} folds, per-fold figures", "k": r.k, "seed": r.seed, "bootstrap": r.samples,
            "folds": [c.as_dict() for c in r.folds],
            "value": round(r.cv_pooled.value, 6), "interval": [round(x, 6) for x in r.cv_pooled.interval],
            "default": dflt, "default_value": round(r.cv_pooled.default, 6),
            "default_interval": [round(x, 6) for x in r.cv_pooled.default_interval],
            "gain_interval": [round(x, 6) for x in r.cv_pooled.gain_interval],
            "gain_supported": r.cv_pooled.gain_interval[0] > 0,
        },
        "heldout_by_file": {f.name: f.as_dict() for f in r.cv_by_set},
        "leave_one_set_out": {f.name: f.as_dict() for f in r.loso},
        "versus_chrf": {f.name: {"value": round(f.value, 6), "chrf": round(f.default, 6),
                                 "gain_interval": [round(x, 6) for x in f.gain_interval], "verdict": f.verdict}
                        for f in r.versus_chrf},
        "default_below_chrf": list(r.default_below_chrf),
        "perturbations": ({"good": r.suite_good, **{k: v.as_dict() for k, v in r.suite.items()}} if r.suite else {}),
        "search_space": {"alpha": list(ALPHA_RANGE), "beta": list(BETA_RANGE), "gamma": list(GAMMA_RANGE),
                         "max_delta": MAX_DELTA},
        "tuned": {**r.final.as_dict(), "options": _opts(r.final.cfg, r.final.params)},
        "tuning_seconds": round(r.seconds, 1),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "meteor_lite_version": __version__,
    }


def shipped_task(r: LangRun, name: str = "mqm") -> Any:
    """The set to ship: the tuned one where the rule keeps it, else the default configuration (``fallback`` says why,
    ``tuned_set_withdrawn`` keeps the rejected values)."""
    from meteor_lite.config import TunedTask

    prov = provenance(r)
    if r.kept:
        p, cfg = r.final.params, r.final.cfg
        return TunedTask(name, p[0], p[1], p[2], p[3], cfg[1], tuple(p[4:]), prov, cfg[0], cfg[2])
    p, cfg = r.final.params, r.final.cfg
    prov["fallback"] = f"the keep rule: {r.why_not()}; so this set is the untuned default configuration"
    prov["tuned_set_withdrawn"] = {"alpha": p[0], "beta": p[1], "gamma": p[2], "delta": p[3], "modules": list(cfg[1]),
                                   "weights": list(p[4:]), "norm": cfg[0], **({"unit": cfg[2]} if cfg[2] else {})}
    d = r.default_params
    return TunedTask(name, d[0], d[1], d[2], d[3], r.default_modules, tuple(d[4:]), prov, "norm")
