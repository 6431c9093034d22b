"""What one dimension of the ``mqm`` search adds, per judged set, with paired intervals: ``near``, case-awareness or
characters.

``meteor-build check dimension-gain --dimension near`` (or ``case``, or ``char``; after
``make tune-mqm``, whose cache it reads).  The configurations :mod:`.tune_mqm` searches (:data:`~.tune_mqm.NORMS` ×
:data:`~.tune_mqm.MODULE_SETS` × :data:`~.tune_mqm.UNITS`) are split in two halves: with ``near`` in the modules and
without (``near``), ``norm-case`` and ``norm`` (``case``), or precision and recall over characters (``-ch``) and
over words (``char``).  Each half is searched by itself exactly as ``make tune-mqm`` searches them all:

* a training set's figure is the **held-out** one of the tables (3 folds over documents, the whole choice made on the
  other folds, the statistic within each fold averaged over folds: ``seg:sys:pearson``); the figure of a set that
  is measured only (it repeats another set's segments) is that of the set searched without its group, scored whole;
* the difference is the best configuration *with* minus the best *without*, its paired 95% interval from
  1,000 bootstrap resamples of each set's segments (the same resamples for both halves);
* ``near``'s share: of the words the best configuration with near (chosen on every training set) aligns
  (hypothesis side, summed over the set), the share near aligns (its candidates join the other modules' in one
  beam search, so it can also change which of theirs are chosen), and the segments with at least one near match;
* ``case`` and ``char``: also Meteor 1.5's configuration of the language (the validity report's ``default``) scored
  case-aware, or over characters, against as it is, under the same protocol;
* the perturbation suite (:mod:`.perturbations`, ``--good system``, 200 good hypotheses) of the set searched on
  every training set with and of the one without: accuracy and reversed references.

Chinese is not searched with near (characters: no word reaches near's four characters), so its set is listed with
no figure.  The output is the Markdown of docs/meta-evaluation.md ("What `near` adds", "What case-awareness adds").
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from meteor_lite.errors import MeteorLiteError

from ...errors import BuildError
from ...tune.universal import bootstrap_gain, numpy
from .tune_mqm import Choice, Config, LangSet, _cv_bootstrap, _mean_nan0, choose, cv_figure, fold_maps, load_sets, tuned_meteor

__all__ = ["DIMENSIONS", "SetGain", "DimensionRun", "near_share", "dimension_language", "format_markdown", "main"]

#: The dimensions measured: which configurations are "with" it.
DIMENSIONS: Dict[str, Callable[[Config], bool]] = {
    "near": lambda cfg: "near" in cfg[1],
    "case": lambda cfg: cfg[0] == "norm-case",
    "char": lambda cfg: cfg[2] == "char",
}
#: How the tables name each half.
HALVES = {"near": ("with near", "without"), "case": ("norm-case", "norm"), "char": ("characters", "words")}
#: The dimensions also measured on Meteor 1.5's configuration of the language (its parameters, with the dimension):
#: how the tables say it, and the configuration (of the default's modules) it is scored under.
TWINNED: Dict[str, Tuple[str, Callable[[Tuple[str, ...]], Config]]] = {
    "case": ("case-aware", lambda mods: ("norm-case", mods, "")),
    "char": ("over characters (-ch)", lambda mods: ("norm", mods, "char")),
}


@dataclass
class SetGain:
    """One set's figures: held out with the dimension and without, the paired interval of the difference, near's share."""

    name: str
    lang: str
    held_out: str  # "folds" or "left out"
    with_value: float
    without_value: float
    interval: Tuple[float, float]
    near_words: int = 0
    matched_words: int = 0
    near_segments: int = 0
    segments: int = 0
    #: ``case``, ``char``: Meteor 1.5's configuration with the dimension, as it is, and the paired interval of the difference
    default_with: float = math.nan
    default: float = math.nan
    default_interval: Tuple[float, float] = (math.nan, math.nan)

    @property
    def difference(self) -> float:
        """With near minus without."""
        return self.with_value - self.without_value

    @property
    def verdict(self) -> str:
        """``better`` / ``worse`` where the paired interval excludes 0, else ``tie``."""
        lo, hi = self.interval
        return "better" if lo > 0 else "worse" if hi < 0 else "tie"


@dataclass
class DimensionRun:
    """A language's two searches: their choices on every training set, the per-set figures, the suites."""

    lang: str
    dimension: str
    with_cfgs: List[Config]
    without_cfgs: List[Config]
    final_with: Optional[Choice] = None
    final_without: Optional[Choice] = None
    sets: List[SetGain] = field(default_factory=list)
    pooled: Optional[SetGain] = None
    #: the perturbation suite: ``with`` / ``without`` -> SuiteFigures
    suite: Dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


def near_share(s: LangSet, cfg: Config) -> Tuple[int, int, int]:
    """(words near aligns, words every module aligns, segments with a near match): hypothesis side, over the set's
    cells, under configuration ``cfg`` (which has ``near``)."""
    st = s.stats[cfg]
    n = list(cfg[1]).index("near")
    per = st.tc + st.tf
    return int(round(per[:, n].sum())), int(round(per.sum())), int((per[:, n] > 0).sum())


def dimension_language(lang: str, files: Sequence[Path], cache: Optional[Path], dimension: str = "near", k: int = 3,
                       seed: int = 0, rounds: int = 2, samples: int = 1000,
                       progress: Callable[[str], None] = lambda s: None, suite_data: Optional[Path] = None,
                       suite_items: int = 200) -> DimensionRun:
    """Both halves of ``dimension`` (a key of :data:`DIMENSIONS`) searched as ``make tune-mqm`` searches (folds over
    documents; measured-only sets scored by the search without their group), per-set differences with paired
    intervals, near's share, the suites."""
    from .tune_mqm import TRAIN_EXCLUDED

    if dimension not in DIMENSIONS:
        raise BuildError(f"unknown dimension {dimension!r} (known: {', '.join(DIMENSIONS)})")
    has = DIMENSIONS[dimension]
    t0 = time.perf_counter()
    sets, configs, starts, _, dparams, dmods = load_sets(lang, files, cache, progress)
    with_cfgs = [c for c in configs if has(c)]
    without = [c for c in configs if not has(c)]
    run = DimensionRun(lang, dimension, with_cfgs, without)
    if not with_cfgs or not without:
        run.sets = [SetGain(s.name, lang, "-", math.nan, math.nan, (math.nan, math.nan)) for s in sets]
        run.seconds = time.perf_counter() - t0
        return run
    np = numpy()
    train = [s for s in sets if s.train]
    maps = fold_maps([(s.name, s.judgments) for s in train], "documents", k, seed)
    for s in train:
        s.fold_of = np.asarray([maps[s.name][s.items[i]] for i in s.item_of.tolist()], dtype=int)
    progress(f"{lang}: {len(with_cfgs)} configurations with {dimension}, {len(without)} without, {len(train)} sets")
    run.final_with = choose(train, [None] * len(train), with_cfgs, starts, rounds)
    run.final_without = choose(train, [None] * len(train), without, starts, rounds)
    held_w = [np.zeros(s.cells) for s in train]
    held_o = [np.zeros(s.cells) for s in train]
    for f in range(k):
        progress(f"{lang}: fold {f + 1} of {k}")
        masks = [(s.fold_of != f).astype(float) for s in train]
        cw = choose(train, masks, with_cfgs, starts, rounds)
        co = choose(train, masks, without, starts, rounds)
        for n, s in enumerate(train):
            sel = s.fold_of == f
            held_w[n][sel] = s.scores(cw.cfg, cw.params)[sel]
            held_o[n][sel] = s.scores(co.cfg, co.params)[sel]
    per, pooled = _cv_bootstrap(train, held_w, held_o, k, samples, seed)
    fw = run.final_with
    twin_ok = dimension in TWINNED and all(TWINNED[dimension][1](dmods) in s.stats for s in sets)
    if twin_ok:  # Meteor 1.5's configuration with the dimension (its parameters; the alignment of the twin, its modules)
        twin_cfg = TWINNED[dimension][1](dmods)
        dtwin = [s.stats[twin_cfg].scores(dparams[0], dparams[1], dparams[2], dparams[3], dparams[4:]) for s in train]
        dflt = [s.default_scores() for s in train]
        dper, dpooled = _cv_bootstrap(train, dtwin, dflt, k, samples, seed)
    for n, s in enumerate(train):
        nw, mw, ns = near_share(s, fw.cfg) if dimension == "near" else (0, 0, 0)
        g = SetGain(s.name, lang, "folds", cv_figure(s, held_w[n], k), cv_figure(s, held_o[n], k), per[n]["gain"],
                    nw, mw, ns, s.cells)
        if twin_ok:
            g.default_with, g.default, g.default_interval = (cv_figure(s, dtwin[n], k), cv_figure(s, dflt[n], k),
                                                             dper[n]["gain"])
        run.sets.append(g)
    vals_w = [0.0 if math.isnan(x.with_value) else x.with_value for x in run.sets]
    vals_o = [0.0 if math.isnan(x.without_value) else x.without_value for x in run.sets]
    run.pooled = SetGain(f"{lang} (mean over {len(train)} sets)", lang, "folds", math.fsum(vals_w) / len(vals_w),
                         math.fsum(vals_o) / len(vals_o), pooled["gain"],
                         sum(x.near_words for x in run.sets), sum(x.matched_words for x in run.sets),
                         sum(x.near_segments for x in run.sets), sum(x.segments for x in run.sets))
    if twin_ok:  # the mean over the training sets of Meteor 1.5's configuration with the dimension, and without
        run.pooled.default_with = _mean_nan0([x.default_with for x in run.sets])
        run.pooled.default = _mean_nan0([x.default for x in run.sets])
        run.pooled.default_interval = dpooled["gain"]
    for s in sets:
        if s.name not in TRAIN_EXCLUDED:
            continue
        rest = [t for t in train if t.group != s.group]
        if not rest:
            continue
        progress(f"{lang}: {s.name} scored by the search without {s.group}")
        cw = choose(rest, [None] * len(rest), with_cfgs, starts, rounds)
        co = choose(rest, [None] * len(rest), without, starts, rounds)
        tw, to = s.scores(cw.cfg, cw.params), s.scores(co.cfg, co.params)
        ci = bootstrap_gain(s, tw, to, samples, seed)
        nw, mw, ns = near_share(s, cw.cfg) if dimension == "near" else (0, 0, 0)
        g = SetGain(s.name, lang, "left out", s.figure(tw), s.figure(to), ci["gain"], nw, mw, ns, s.cells)
        if twin_ok:
            dc, d = s.stats[twin_cfg].scores(dparams[0], dparams[1], dparams[2], dparams[3], dparams[4:]), s.default_scores()
            g.default_with, g.default, g.default_interval = s.figure(dc), s.figure(d), bootstrap_gain(s, dc, d, samples, seed)["gain"]
        run.sets.append(g)
    if suite_items > 0 and run.final_without is not None:
        from . import perturbations

        progress(f"{lang}: perturbation suite")
        prepared = perturbations.prepare(suite_data if suite_data is not None else Path(files[0]).resolve().parent.parent,
                                         lang, suite_items, seed)
        run.suite = {name: perturbations.suite_figures(perturbations.meteor_scorer(tuned_meteor(lang, ch.cfg, ch.params)),
                                                       prepared)
                     for name, ch in (("with", fw), ("without", run.final_without))}
    run.seconds = time.perf_counter() - t0
    return run


def _opts(ch: Optional[Choice]) -> str:
    if ch is None:
        return "-"
    from .tune_mqm import _opts as opts

    return f"`{opts(ch.cfg, ch.params)}`"


def _num(v: float) -> str:
    return "-" if math.isnan(v) else f"{v:.3f}"


def _share(x: SetGain) -> str:
    if not x.matched_words:
        return "-"
    return (f"{x.near_words:,} of {x.matched_words:,} ({100 * x.near_words / x.matched_words:.1f} %); "
            f"{x.near_segments:,} of {x.segments:,} segments")


def format_markdown(runs: Sequence[DimensionRun]) -> str:
    """The per-set table (every language's sets, then each language's mean), the choices and the suites."""
    dim = runs[0].dimension if runs else "near"
    w, o = HALVES[dim]
    extra = ("near's matches (hypothesis words; segments with one)" if dim == "near"
             else f"Meteor 1.5's configuration: {w}, {o}, difference paired 95%")
    lines = [f"| set | target | held out | best {w} | best {o} | {w} − {o}, paired 95% | verdict | {extra} |",
             "|---|---|---|---|---|---|---|---|"]
    rows = sorted((x for r in runs for x in r.sets), key=lambda x: x.name)

    def last(x: SetGain) -> str:
        if dim == "near":
            return _share(x)
        if math.isnan(x.default_with):
            return "-"
        return (f"{x.default_with:.3f}, {x.default:.3f}, [{x.default_interval[0]:+.3f}, "
                f"{x.default_interval[1]:+.3f}]")

    for x in rows:
        if math.isnan(x.with_value):
            lines.append(f"| {x.name} | {x.lang} | - | - | - | {dim} not searched | - | - |")
            continue
        lines.append(f"| {x.name} | {x.lang} | {x.held_out} | {_num(x.with_value)} | {_num(x.without_value)} | "
                     f"{x.difference:+.3f} [{x.interval[0]:+.3f}, {x.interval[1]:+.3f}] | {x.verdict} | {last(x)} |")
    for r in runs:
        if r.pooled is None:
            continue
        x = r.pooled
        lines.append(f"| **{x.name}** | {x.lang} | folds | {_num(x.with_value)} | {_num(x.without_value)} | "
                     f"{x.difference:+.3f} [{x.interval[0]:+.3f}, {x.interval[1]:+.3f}] | {x.verdict} | "
                     f"{_share(x) if dim == 'near' else last(x)} |")
    done = [x for x in rows if not math.isnan(x.with_value)]
    counts = {v: sum(1 for x in done if x.verdict == v) for v in ("better", "tie", "worse")}
    ahead = sum(1 for x in done if x.difference > 0)
    lines += ["", f"Best {w} higher by point estimate on {ahead} of {len(done)} sets; clearly higher (interval above 0) "
                  f"on {counts['better']}, clearly lower on {counts['worse']}."]
    if dim in TWINNED:
        dc = [x for x in done if not math.isnan(x.default_with)]
        lines.append(f"Meteor 1.5's configuration {TWINNED[dim][0]}: higher by point estimate on "
                     f"{sum(1 for x in dc if x.default_with > x.default)} of {len(dc)} sets; clearly higher on "
                     f"{sum(1 for x in dc if x.default_interval[0] > 0)}, clearly lower on "
                     f"{sum(1 for x in dc if x.default_interval[1] < 0)}.")
    lines += ["", f"| target | chosen {w} (every training set) | chosen {o} | perturbations: {w}, {o} | "
                  f"reversed references: {w}, {o} |", "|---|---|---|---|---|"]
    for r in runs:
        if r.final_with is None:
            lines.append(f"| {r.lang} | {dim} not searched | - | - | - |")
            continue
        sw, so = r.suite.get("with"), r.suite.get("without")
        suite = f"{100 * sw.accuracy:.1f} %, {100 * so.accuracy:.1f} %" if sw and so else "-"
        rev = (f"{sw.reversed_mean:.3f} (highest {sw.reversed_max:.3f}), {so.reversed_mean:.3f} "
               f"(highest {so.reversed_max:.3f})" if sw and so else "-")
        lines.append(f"| {r.lang} | {_opts(r.final_with)} | {_opts(r.final_without)} | {suite} | {rev} |")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command line: ``--dimension``, ``--data DIR`` (repeat), ``--lang``, ``--cache``, ``--bootstrap``; prints
    the Markdown."""
    from .mqm_sets import mqm_files

    ap = argparse.ArgumentParser(prog="meteor-build check dimension-gain",
                                 description="What a dimension of the mqm search (near, case) adds, per judged set.")
    ap.add_argument("--dimension", choices=sorted(DIMENSIONS), default="near")
    ap.add_argument("--data", action="append", type=Path, help="judgments directories (default ../shared/data/mqm "
                                                                 "and ../shared/data/wmt-mqm)")
    ap.add_argument("--lang", default="en,de,ru,es,fr,zh")
    ap.add_argument("--cache", type=Path, default=Path("build/tune-mqm/cache"), help="make tune-mqm's cache")
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--suite-items", type=int, default=200, help="good hypotheses of the perturbation suite (0: none)")
    args = ap.parse_args(argv)
    data = args.data or [Path("../shared/data/mqm"), Path("../shared/data/wmt-mqm")]
    t0 = time.perf_counter()
    try:
        files = mqm_files(list(data))
        runs = []
        for lang in [x.strip() for x in args.lang.split(",") if x.strip()]:
            mine = [p for p, tgt in files if tgt == lang]
            if not mine:
                continue
            r = dimension_language(lang, mine, args.cache, args.dimension, rounds=args.rounds, samples=args.bootstrap,
                                   progress=lambda m: print(m, file=sys.stderr, flush=True),
                                   suite_items=args.suite_items)
            print(f"{lang}: {r.seconds:.0f} s", file=sys.stderr, flush=True)
            runs.append(r)
    except (BuildError, MeteorLiteError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not runs:
        print(f"error: no judged set of {args.lang!r} in {', '.join(str(d) for d in data)}", file=sys.stderr)
        return 1
    print(format_markdown(runs))
    print(f"all languages: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
