"""``meteor-build check mqm-transfer``: do settings that beat Meteor's default on some MQM sets carry over to others?

Two low-variance alternatives to tuning each target language on its own ~100 segments, each measured on
every shared ``*.mqm.tsv.gz`` (segment-level Pearson with MQM within each system, averaged over
systems, ``seg:sys:pearson``, on the whole set, beside sacreBLEU's sentence chrF):

* **Meteor 1.5's own task presets** (``rank`` the default, ``adq``, ``hter``, ``util``, ``li``, ``tune``:
  parameters and weights as ``meteor-lite score --task T`` resolves them for the file's language and
  modules; a task Meteor 1.5 does not define for a language is left out), each with Meteor's
  normaliser (``norm``) and its case-aware form (``norm-case``).  Nothing is fitted to the data, so the
  figures are not optimistic; choosing among them afterwards is.
* **Pooled leave-one-set-out**: α, β, γ, δ (and the normalisation) tuned once on the *mean* figure of
  every other set, of every language (the module weights stay each language's default), by the
  trainer's coordinate search, and scored on the set left out.  A gain that holds there is a gain on
  data the search never saw, in the spirit of the held-out documents the ``mqm`` sets are judged on.

Every set is aligned once per normalisation with the default configuration's modules
(:func:`.mqm_sets.default_meteor`, as ``meteor-build check validity``); re-scoring is from statistics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from meteor_lite.config import resolve_config
from meteor_lite.errors import ConfigError
from meteor_lite.languages import default_task
from meteor_lite.metaeval import Judgments, read_judgments
from meteor_lite.metaeval.correlate import Key, align, statistic
from meteor_lite.metaeval.data import judgments_label

from ...errors import BuildError
from ...tune.alignment import align_module_set
from ...tune.trainer import GridScorer, Params, coordinate_search
from .mqm_sets import default_meteor, mqm_files, sacrebleu_metrics, sacrebleu_scorer, scored

__all__ = ["PRESETS", "NORMS", "SetGrids", "LeftOut", "load_sets", "preset_figures", "leave_one_set_out",
           "format_report"]

SEG: Key = ("seg", "sys", "pearson")
#: Meteor 1.5's tasks compared (``universal`` is left out: it brings its own modules, exact + paraphrase).
PRESETS = ("rank", "adq", "hter", "util", "li", "tune")
#: Normalisations compared: Meteor's ``-norm`` and the case-aware ``norm-case`` (``--norm --case-aware``).
NORMS = ("norm", "norm-case")
#: Where the pooled search starts: Meteor 1.5's language-independent parameters (α, β, γ, δ).
START = (0.75, 1.40, 0.70, 0.50)


@dataclass
class SetGrids:
    """One MQM file: its language, modules, each normalisation's statistics grid, and chrF's figure."""

    name: str
    lang: str
    modules: Tuple[str, ...]
    default: Params
    #: the default's figure (``norm``, :attr:`default`)
    default_figure: float
    scorers: Dict[str, GridScorer]
    chrf: float
    #: task -> (α, β, γ, δ, weights...) of the Meteor presets defined for the language and these modules
    presets: Dict[str, Params] = field(default_factory=dict)

    def figure(self, norm: str, params: Sequence[float]) -> float:
        """``seg:sys:pearson`` of the whole set scored with ``params`` (α, β, γ, δ, one weight per module)."""
        return statistic(self.scorers[norm].data(list(params)), SEG)

    def shared(self, norm: str, abgd: Sequence[float]) -> float:
        """The figure with α, β, γ, δ = ``abgd`` and the language's default weights."""
        return self.figure(norm, list(abgd) + self.default[4:])


def _chrf(j: Judgments) -> float:
    _, chrf = sacrebleu_metrics()
    return statistic(align(j, scored(j, "chrF", sacrebleu_scorer(chrf()))), SEG)


def _presets(lang: str, modules: Tuple[str, ...]) -> Dict[str, Params]:
    out: Dict[str, Params] = {}
    first = default_task(lang)  # so that a language outside Meteor's names its one preset li
    for task in (first, *(t for t in PRESETS if t != first)):
        try:
            cfg = resolve_config(lang, task=task, modules=list(modules))
        except ConfigError:  # Meteor 1.5 has no such task for this language
            continue
        params = [cfg.alpha, cfg.beta, cfg.gamma, cfg.delta, *cfg.weights]
        if params not in out.values():  # languages outside Meteor's share one preset (li) for every task
            out[task] = params
    return out


def load_sets(mqm_dir: Path, progress: Callable[[str], None] = lambda s: None,
              files: Optional[Sequence[Path]] = None) -> List[SetGrids]:
    """Every ``*.mqm.tsv.gz`` of ``mqm_dir`` (or ``files``), aligned under each of :data:`NORMS`."""
    sacrebleu_metrics()  # its chrF column needs sacreBLEU: say so before scoring anything
    out = []
    for path, lang in mqm_files(mqm_dir, files):
        progress(f"{path.name} ({lang})")
        j = read_judgments(str(path))
        modules = default_meteor(lang)[0].config.modules
        sets = {norm: align_module_set(j, lang, modules, norm=True, case_aware=norm == "norm-case") for norm in NORMS}
        default = list(sets["norm"].default)
        scorers = {norm: GridScorer(j, ms.cells, True) for norm, ms in sets.items()}
        default_figure = statistic(scorers["norm"].data(default), SEG)
        out.append(SetGrids(judgments_label(str(path)), lang, modules, default, default_figure, scorers, _chrf(j),
                            _presets(lang, modules)))
    return out


def preset_figures(sets: Sequence[SetGrids]) -> Dict[str, Dict[Tuple[str, str], float]]:
    """set name -> (task, normalisation) -> whole-set figure, for the presets each set's language has."""
    return {s.name: {(task, norm): s.figure(norm, p) for task, p in s.presets.items() for norm in NORMS} for s in sets}


@dataclass
class LeftOut:
    """One set left out of the pooled search: what the other sets chose and how it does on this one."""

    name: str
    norm: str
    abgd: Params
    train: float
    heldout: float
    default: float
    chrf: float


def _pooled(sets: Sequence[SetGrids], rounds: int) -> Tuple[str, Params, float]:
    """The normalisation and α β γ δ of the best mean figure over ``sets`` (coordinate search from :data:`START`)."""
    best: Tuple[str, Params, float] = ("", [], -math.inf)
    for norm in NORMS:
        def objective(p: Params, norm: str = norm) -> float:
            return math.fsum(s.shared(norm, p) for s in sets) / len(sets)
        params, value = coordinate_search(objective, list(START), rounds, lambda: None)
        if value > best[2] + 1e-12:
            best = (norm, params, value)
    return best


def leave_one_set_out(sets: Sequence[SetGrids], rounds: int = 2,
                      progress: Callable[[str], None] = lambda s: None) -> List[LeftOut]:
    """For each set: the pooled search on all the others, scored on it (beside its default and chrF)."""
    if len(sets) < 2:
        raise BuildError("leave-one-set-out needs at least two MQM sets")
    out = []
    for i, s in enumerate(sets):
        progress(f"leaving out {s.name}")
        norm, abgd, train = _pooled([t for k, t in enumerate(sets) if k != i], rounds)
        out.append(LeftOut(s.name, norm, abgd, train, s.shared(norm, abgd), s.default_figure, s.chrf))
    return out


def _num(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3f}"


def format_report(sets: Sequence[SetGrids], presets: Dict[str, Dict[Tuple[str, str], float]],
                  loso: Sequence[LeftOut]) -> str:
    """Markdown: the presets table, the leave-one-set-out table, and the tallies under each."""
    cols = [(task, norm) for task in PRESETS for norm in NORMS]
    head = " | ".join(f"{t} {'cased' if n == 'norm-case' else ''}".strip() for t, n in cols)
    lines = ["| set | target | chrF | " + head + " |", "|---|---|---:|" + "---:|" * len(cols)]
    for s in sets:
        row = presets[s.name]
        lines.append(f"| {s.name} | {s.lang} | {_num(s.chrf)} | "
                     + " | ".join(_num(row[c]) if c in row else "-" for c in cols) + " |")
    lines += ["", "Sets where the preset is at least chrF / at least the default (the language's task, norm), of those "
              "that have it:", ""]
    for c in cols:
        have = [s for s in sets if c in presets[s.name]]
        if not have:
            continue
        vs_chrf = sum(presets[s.name][c] >= s.chrf for s in have)
        vs_default = sum(presets[s.name][c] >= s.default_figure for s in have)
        lines.append(f"- {c[0]} {c[1]}: {vs_chrf} / {len(have)} against chrF, {vs_default} / {len(have)} against the default")
    lines += ["", "| left out | norm | α β γ δ (from the other sets) | other sets (train) | held out | default | chrF | gain |",
              "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in loso:
        lines.append(f"| {r.name} | {r.norm} | {' '.join(f'{v:g}' for v in r.abgd)} | {_num(r.train)} | {_num(r.heldout)} "
                     f"| {_num(r.default)} | {_num(r.chrf)} | {r.heldout - r.default:+.3f} |")
    up = sum(r.heldout >= r.default for r in loso)
    lines += ["", f"Left-out sets at least the default: {up} / {len(loso)}; at least chrF: "
              f"{sum(r.heldout >= r.chrf for r in loso)} / {len(loso)} (the default: {sum(r.default >= r.chrf for r in loso)} / {len(loso)})."]
    return "\n".join(lines)
