"""``meteor-build check universal``: the universal parameter set, measured leave-one-set-out on every shared MQM set.

Every judgments file of the data directories (``*.mqm.tsv.gz``, ``*.esa.tsv.gz``; the target language is the
second half of the pair in the name) is aligned with its language's *recipe* bundle (``meteor-build recipe
resources/recipes/<lang>.toml``: stems, thesaurus synonyms, thesaurus paraphrases), once with every module of
:data:`~meteor_lite_builders.tune.universal.UNIVERSAL_MODULES` the bundle supports and once with ``exact stem``
(the baseline, Meteor's ``li`` parameters).  Alignments are cached per file, bundle, modules and
meteor-lite version (``--cache``), so re-running the search costs seconds.  Then
:func:`meteor_lite_builders.tune.universal.leave_one_set_out` and the set tuned on every set
(:func:`write_default` ships it as language ``*``, set ``default``).

Subsampling (stated in the report): ``--max-segments N`` keeps a seeded sample of N segments of a larger
file (every system's rows of those segments), so that two busy cores align ~30,000 rows, not 60,000.
Only each row's first reference (``ref``) is used.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from meteor_lite import Meteor, __version__
from meteor_lite.errors import MeteorLiteError
from meteor_lite.metaeval import Judgments, read_judgments
from meteor_lite.metaeval.data import judgments_label

from ...errors import BuildError
from ...sources import sha256_file
from ...tune.statcache import align_cached as _align_cached
from ...tune.trainer import BETA_RANGE, GAMMA_RANGE
from ...tune.universal import (
    BASELINE_MODULES,
    MAX_DELTA,
    UNIVERSAL_MODULES,
    LeftOutFigure,
    PooledSet,
    StatArrays,
    cells_of,
    leave_one_set_out,
    tune_pooled,
)
from .mqm_sets import mqm_files

__all__ = ["judgment_files", "set_group", "TRAIN_EXCLUDED", "supported_modules", "load_pooled_sets", "run", "format_report",
           "write_default", "li_parameters"]

#: Sets that repeat another set's segments (a subset of it, or other judgments of the same outputs): measured
#: left out, never tuned on, so that no segment counts twice in the pooled objective.
TRAIN_EXCLUDED = ("generalMT2023.en-de", "wmt23.en-de.esa")


def judgment_files(dirs: Sequence[Path]) -> List[Tuple[Path, str]]:
    """(file, target language) of every ``*.mqm.tsv.gz`` / ``*.esa.tsv.gz`` of ``dirs``, sorted by name."""
    return mqm_files(list(dirs))


def set_group(label: str) -> str:
    """Sets sharing segments share a group (left out together): the WMT23 en-de sets."""
    if label in ("generalMT2023.en-de", "wmt23.en-de.esa", "wmt23.en-de"):
        return "wmt23.en-de"
    return label


def supported_modules(lang: str, bundle: Path, wanted: Sequence[str]) -> Tuple[str, ...]:
    """The modules of ``wanted`` the bundle supports (exact always), in order."""
    out = []
    for m in wanted:
        try:
            Meteor(lang, modules=["exact"] if m == "exact" else ["exact", m], bundle=bundle, norm=True, quiet=True)
        except MeteorLiteError:
            continue
        out.append(m)
    return tuple(out)


def li_parameters(lang: str, modules: Sequence[str]) -> List[float]:
    """Meteor 1.5's ``li`` parameters and weights for ``modules``."""
    from meteor_lite.config import resolve_config

    cfg = resolve_config(lang, task="li", modules=list(modules))
    return [cfg.alpha, cfg.beta, cfg.gamma, cfg.delta, *cfg.weights]


def _subsample(j: Judgments, max_segments: int, seed: int) -> Tuple[Judgments, str]:
    """At most ``max_segments`` segments of ``j`` (seeded; every system's rows of them kept)."""
    if max_segments <= 0 or len(j.items) <= max_segments:
        return j, ""
    keep = set(random.Random(seed).sample(range(len(j.items)), max_segments))
    gold = [[g if i in keep else None for i, g in enumerate(row)] for row in j.gold]
    return (Judgments(j.systems, j.items, gold, j.human_systems, j.order, j.texts, j.refs, j.docs, j.reference_systems),
            f"{max_segments} of {len(j.items)} segments (seeded sample)")


def bundle_for(bundles: Path, lang: str) -> Path:
    """The recipe bundle of ``lang`` in ``bundles`` (``<lang>-wordfreq.sqlite`` for Meteor's languages, else ``<lang>.sqlite``)."""
    for name in (f"{lang}-wordfreq.sqlite", f"{lang}.sqlite"):
        if (bundles / name).is_file():
            return bundles / name
    raise BuildError(f"{bundles}: no recipe bundle for {lang!r} (meteor-build recipe resources/recipes/{lang}.toml "
                     f"--out-dir {bundles})")


def load_pooled_sets(dirs: Sequence[Path], bundles: Path, cache: Optional[Path], max_segments: int, seed: int,
                     progress: Callable[[str], None] = lambda s: None, default_for: Sequence[str] = ()) -> List[PooledSet]:
    """Every judgments file of ``dirs`` aligned twice (universal modules the bundle has; exact stem), as :class:`PooledSet`."""
    import numpy as np

    out = []
    for path, lang in judgment_files(dirs):
        bundle = bundle_for(bundles, lang)
        label = judgments_label(str(path))
        j, note = _subsample(read_judgments(str(path)), max_segments, seed)
        full_mods = supported_modules(lang, bundle, UNIVERSAL_MODULES)
        base_mods = tuple(m for m in BASELINE_MODULES if m in full_mods)
        full = _align_cached(j, path, lang, bundle, full_mods, cache, progress)
        base = full if base_mods == full_mods else _align_cached(j, path, lang, bundle, base_mods, cache, progress)
        systems, items, sys_of, item_of, gold, full_stats = cells_of(j, full)
        base_stats = [base[(systems[s], items[i])][0] for s, i in zip(sys_of, item_of)]
        notes = [note] if note else []
        if j.reference_systems:
            notes.append(f"left out {', '.join(j.reference_systems)} (the reference itself)")
        from meteor_lite.resources.bundle import Bundle

        with Bundle.open(bundle) as b:
            bname = f"{b.name}@{b.checksum[:8]}"
        ps = PooledSet(label, lang, set_group(label), label not in TRAIN_EXCLUDED, systems, items,
                       np.asarray(sys_of, dtype=int), np.asarray(item_of, dtype=int), np.asarray(gold, dtype=float),
                       StatArrays(full_stats, full_mods), StatArrays(base_stats, base_mods), bname, notes)
        if lang in default_for:
            from .mqm_sets import default_meteor

            m, how = default_meteor(lang)
            mods = tuple(m.config.modules)
            dstats = _align_cached(j, path, lang, None, mods, cache, progress, meteor=m)
            ps.default = StatArrays([dstats[(systems[s], items[i])][0] for s, i in zip(sys_of, item_of)], mods)
            c = m.config
            ps.default_params = [c.alpha, c.beta, c.gamma, c.delta, *c.weights]
            ps.default_how = f"{how} ({m.signature.split('|res:')[-1].split('|')[0]})"
        ps.chrf = _chrf(j, systems, items, sys_of, item_of)
        out.append(ps)
    return out


def _chrf(j: Judgments, systems: List[str], items: List[str], sys_of: Sequence[int], item_of: Sequence[int]) -> Any:
    """sacreBLEU's sentence chrF of each judged cell (None without sacreBLEU: the chrF rule is then not checked)."""
    import numpy as np

    from .mqm_sets import sacrebleu_scorer, scored

    try:
        from sacrebleu.metrics import CHRF
    except ImportError:
        return None
    m = scored(j, "chrF", sacrebleu_scorer(CHRF()))
    return np.asarray([m.segments[(systems[a], items[b])] for a, b in zip(sys_of, item_of)], dtype=float)


@dataclass
class ChrfFigure:
    """A set's left-out universal scores against chrF's on the same cells."""

    name: str
    value: float
    chrf: float
    gain_interval: Tuple[float, float]
    #: the baseline's paired interval against chrF on the same cells
    baseline_gain_interval: Tuple[float, float] = (math.nan, math.nan)

    @property
    def verdict(self) -> str:
        """``better`` / ``worse`` / ``no difference shown`` (the paired interval of universal - chrF)."""
        from ...tune.universal import gain_verdict

        return gain_verdict(self.gain_interval)


@dataclass
class UniversalRun:
    """The set tuned on every training set, and each set's left-out figures."""

    sets: List[PooledSet]
    params: List[float]
    train_value: float
    loso: List[LeftOutFigure]
    baseline: List[float]
    start: List[float]
    rounds: int
    samples: int
    seed: int
    max_segments: int
    seconds: float = 0.0
    #: each set's left-out scores against chrF
    versus_chrf: List[ChrfFigure] = field(default_factory=list)
    #: the perturbation suite per target language: {"universal": SuiteFigures, "default": SuiteFigures}
    suite: Dict[str, Dict[str, Any]] = field(default_factory=dict)

    @property
    def below_chrf(self) -> List[ChrfFigure]:
        """Sets where the universal set, left out, is clearly below chrF and the baseline is not (a set where every
        METEOR the rule could fall back to is clearly below chrF cannot tell them apart)."""
        return [f for f in self.versus_chrf if f.verdict == "worse" and not f.baseline_gain_interval[1] < 0]

    def suite_failures(self) -> List[str]:
        """What the perturbation suite holds against the set: a language whose reversed references it scores 0.75 or
        more on average (or 1.0), and a mean accuracy over languages below that of their Meteor 1.5 configurations."""
        out = [f"{lang}: reversed references score {v['universal'].reversed_mean:.3f} on average (highest "
               f"{v['universal'].reversed_max:.3f})" for lang, v in sorted(self.suite.items()) if not v["universal"].word_order_ok]
        if self.suite:
            u = math.fsum(v["universal"].accuracy for v in self.suite.values()) / len(self.suite)
            d = math.fsum(v["default"].accuracy for v in self.suite.values()) / len(self.suite)
            if u < d:
                out.append(f"its perturbation accuracy (mean over languages) {100 * u:.1f} % is below the default's "
                           f"{100 * d:.1f} %")
        return out

    @property
    def kept(self) -> bool:
        """The keep rule: clearly below chrF on no set left out where the baseline is not, the perturbation suite at
        least the default's."""
        return not self.below_chrf and not self.suite_failures()

    def why_not(self) -> str:
        """Why the tuned set is not kept ('' when it is)."""
        reasons = [f"left out, it is clearly below chrF on {f.name}: {f.value:.3f} against {f.chrf:.3f}, paired 95% "
                   f"interval [{f.gain_interval[0]:+.3f}, {f.gain_interval[1]:+.3f}]" for f in self.below_chrf]
        return "; ".join(reasons + self.suite_failures())


def run(dirs: Sequence[Path], bundles: Path, cache: Optional[Path], max_segments: int = 0, rounds: int = 2,
        samples: int = 1000, seed: int = 0, progress: Callable[[str], None] = lambda s: None,
        default_for: Sequence[str] = (), suite_data: Optional[Path] = None, suite_items: int = 200) -> UniversalRun:
    """Align (or read the cache), tune on every training set, leave each set out in turn (``default_for``:
    languages whose sets are also compared with their Meteor 1.5 configuration), compare each left-out set with
    chrF, and run the perturbation suite on the references under ``suite_data`` (None: the parent of the first
    data directory; ``suite_items`` 0: no suite)."""
    import time

    t0 = time.perf_counter()
    sets = load_pooled_sets(dirs, bundles, cache, max_segments, seed, progress, default_for)
    start = li_parameters("xx", UNIVERSAL_MODULES)
    baseline = li_parameters("xx", BASELINE_MODULES)
    progress("tuning on every set")
    params, value = tune_pooled([s for s in sets if s.train], start, rounds)
    # baseline parameters per set: li for the modules the set has (exact alone for a bundle without stems)
    loso = leave_one_set_out(sets, start, baseline, rounds, samples, seed, progress)
    r = UniversalRun(sets, params, value, loso, baseline, start, rounds, samples, seed, max_segments)
    from ...tune.universal import bootstrap_gain

    for f, s in zip(loso, sets):
        if s.chrf is not None:
            tuned = s.universal_scores(f.params)
            base = s.baseline_scores(baseline)
            r.versus_chrf.append(ChrfFigure(s.name, s.figure(tuned), s.figure(s.chrf),
                                            bootstrap_gain(s, tuned, s.chrf, samples, seed)["gain"],
                                            bootstrap_gain(s, base, s.chrf, samples, seed)["gain"]))
    if suite_items > 0:
        run_suite(r, suite_data if suite_data is not None else Path(dirs[0]).resolve().parent, suite_items, seed, progress)
    r.seconds = time.perf_counter() - t0
    return r


def run_suite(r: UniversalRun, data: Path, n: int, seed: int, progress: Callable[[str], None] = lambda s: None) -> None:
    """The perturbation suite of the set (with each language's installed bundle) and of each language's Meteor 1.5
    configuration, for every target language of the sets (into ``r.suite``)."""
    from . import perturbations
    from .mqm_sets import default_meteor

    for lang in sorted({s.lang for s in r.sets}):
        progress(f"perturbation suite: {lang}")
        prepared = perturbations.prepare(data, lang, n, seed)
        u = perturbations.pooled_meteor(lang, r.params[:4], UNIVERSAL_MODULES, r.params[4:])
        if u is None:
            continue
        dm, _ = default_meteor(lang)
        r.suite[lang] = {"universal": perturbations.suite_figures(perturbations.meteor_scorer(u), prepared),
                         "default": perturbations.suite_figures(perturbations.meteor_scorer(dm), prepared),
                         "good": prepared.good}


def _num(v: float) -> str:
    return "-" if math.isnan(v) else f"{v:.3f}"


def _iv(iv: Tuple[float, float], sign: str = "") -> str:
    return "-" if math.isnan(iv[0]) else f"[{iv[0]:{sign}.3f}, {iv[1]:{sign}.3f}]"


def format_params(params: Sequence[float]) -> str:
    """As ``meteor-lite score`` options."""
    return (f"-m '{' '.join(UNIVERSAL_MODULES)}' -p '{' '.join(f'{v:g}' for v in params[:4])}' "
            f"-w '{' '.join(f'{v:g}' for v in params[4:])}'")


def format_report(r: UniversalRun) -> str:
    """Markdown: the set, then one row per set left out, then the tallies."""
    lines = [f"universal set (tuned on the {sum(s.train for s in r.sets)} training sets, mean seg:sys:pearson "
             f"{r.train_value:.4f}): {format_params(r.params)}",
             f"baseline: exact stem, Meteor's li parameters -p '{' '.join(f'{v:g}' for v in r.baseline[:4])}' "
             f"-w '{' '.join(f'{v:g}' for v in r.baseline[4:])}' (exact alone where the bundle has no stems)", "",
             "| set (left out) | target | modules of its bundle | systems | segments | universal, held out | exact stem (li) "
             "| gain, paired 95% | verdict |",
             "|---|---|---|---:|---:|---|---|---|---|"]
    for f in r.loso:
        lines.append(f"| {f.name} | {f.lang} | {' '.join(f.modules)} | {f.systems} | {f.segments} | {_num(f.heldout)} "
                     f"{_iv(f.heldout_interval)} | {_num(f.baseline)} {_iv(f.baseline_interval)} | {_iv(f.gain_interval, '+')} "
                     f"| {f.verdict} |")
    better = [f.name for f in r.loso if f.verdict == "better"]
    worse = [f.name for f in r.loso if f.verdict == "worse"]
    up = sum(f.heldout >= f.baseline for f in r.loso)
    lines += ["", f"Held out, the universal set is at least the baseline on {up} of {len(r.loso)} sets by point estimate; "
              f"clearly better (paired interval above 0) on {len(better)}: {', '.join(better) or 'none'}; clearly worse "
              f"(interval below 0) on {len(worse)}: {', '.join(worse) or 'none'}."]
    compared = [(f, s) for f, s in zip(r.loso, r.sets) if f.default is not None]
    if compared:
        lines += ["", "Against each language's Meteor 1.5 configuration (official bundle, `--norm`), the same left-out scores:", "",
                  "| set (left out) | target | default configuration | default | universal, held out | gain, paired 95% |",
                  "|---|---|---|---|---|---|"]
        for f, s in compared:
            assert f.default is not None
            lines.append(f"| {f.name} | {f.lang} | {s.default_how} | {_num(f.default)} | {_num(f.heldout)} "
                         f"| {_iv(f.default_gain_interval, '+')} |")
    notes = [f"{s.name}: {'; '.join(s.notes)}" for s in r.sets if s.notes]
    if notes:
        lines += ["", "Notes: " + "; ".join(notes) + "."]
    if r.versus_chrf:
        lines += ["", "| set (left out) | universal | chrF | gain over chrF, paired 95% | verdict | baseline - chrF, paired 95% |",
                  "|---|---|---|---|---|---|"]
        for c in r.versus_chrf:
            lines.append(f"| {c.name} | {_num(c.value)} | {_num(c.chrf)} | {_iv(c.gain_interval, '+')} | {c.verdict} "
                         f"| {_iv(c.baseline_gain_interval, '+')} |")
    if r.suite:
        lines += ["", "| perturbation suite | good hypotheses | universal: accuracy | default: accuracy "
                      "| universal: reversed mean (highest) | default: reversed mean (highest) |", "|---|---|---|---|---|---|"]
        for lang, v in sorted(r.suite.items()):
            u, d = v["universal"], v["default"]
            lines.append(f"| {lang} | {v['good']} | {100 * u.accuracy:.1f} % | {100 * d.accuracy:.1f} % | "
                         f"{u.reversed_mean:.3f} ({u.reversed_max:.3f}) | {d.reversed_mean:.3f} ({d.reversed_max:.3f}) |")
    lines += ["", f"verdict: {'kept' if r.kept else 'not kept: ' + r.why_not()}"]
    lines += ["", "Left-out parameters: " + "; ".join(f"{f.name}: {' '.join(f'{v:g}' for v in f.params)}" for f in r.loso)]
    return "\n".join(lines)


def provenance(r: UniversalRun, dirs: Sequence[Path]) -> Dict[str, Any]:
    """The provenance of the shipped set: the data, the search and every left-out figure."""
    return {
        "judgments": [{"file": p.name, "sha256": sha256_file(str(p))} for p, _ in judgment_files(dirs)],
        "statistic": "seg:sys:pearson",
        "pooled": "mean over the training sets (generalMT2023.en-de and wmt23.en-de.esa, which repeat "
                  "wmt23.en-de's segments, are measured only)",
        "bundles": sorted({f"{s.lang}: {s.bundle}" for s in r.sets}),
        "aligned_with": "--norm, first reference, each language's recipe bundle",
        "max_segments": r.max_segments,
        "search": {"start": r.start, "rounds": r.rounds},
        "train_value": round(r.train_value, 6),
        "baseline": f"-m 'exact stem' -p '{' '.join(f'{v:g}' for v in r.baseline[:4])}' -w '{' '.join(f'{v:g}' for v in r.baseline[4:])}'",
        "heldout": {
            "cv": "leave one set out (sets sharing segments left out together)",
            "bootstrap": r.samples, "seed": r.seed,
            "by_set": {f.name: {"lang": f.lang, "modules": list(f.modules), "segments": f.segments, "value": round(f.heldout, 6),
                                "interval": [round(x, 6) for x in f.heldout_interval], "baseline": round(f.baseline, 6),
                                "baseline_interval": [round(x, 6) for x in f.baseline_interval],
                                "gain_interval": [round(x, 6) for x in f.gain_interval], "verdict": f.verdict}
                       for f in r.loso},
        },
        "versus_chrf": {c.name: {"value": round(c.value, 6), "chrf": round(c.chrf, 6),
                                 "gain_interval": [round(x, 6) for x in c.gain_interval], "verdict": c.verdict,
                                 "baseline_gain_interval": [round(x, 6) for x in c.baseline_gain_interval]}
                        for c in r.versus_chrf},
        "perturbations": {lang: {"good": v["good"], "universal": v["universal"].as_dict(), "default": v["default"].as_dict()}
                          for lang, v in sorted(r.suite.items())},
        "search_space": {"beta": list(BETA_RANGE), "gamma": list(GAMMA_RANGE), "max_delta": MAX_DELTA},
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "meteor_lite_version": __version__,
    }


def write_default(r: UniversalRun, dirs: Sequence[Path], shipped: Optional[Path], replace: bool = True) -> str:
    """Ship the set as language ``*``, name ``default`` (meteor_lite/tuned_tasks.json); returns its short hash."""
    from meteor_lite.config import TunedTask
    from meteor_lite.tuned import SHIPPED_FILE, UNIVERSAL_LANGUAGE, UNIVERSAL_SET

    from ...tune.tasks import add_shipped

    p = r.params
    prov = provenance(r, dirs)
    if not r.kept:
        prov["fallback"] = f"the keep rule: {r.why_not()}; so this set is Meteor 1.5's language-independent preset"
        prov["tuned_set_withdrawn"] = {"alpha": p[0], "beta": p[1], "gamma": p[2], "delta": p[3], "weights": list(p[4:])}
        p = r.start
    task = TunedTask(UNIVERSAL_SET, p[0], p[1], p[2], p[3], UNIVERSAL_MODULES, tuple(p[4:]), prov, "")
    add_shipped(str(shipped or SHIPPED_FILE), UNIVERSAL_LANGUAGE, task, replace=replace)
    return task.short_hash
