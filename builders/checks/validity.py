"""``meteor-build check validity``: meteor-lite against chrF and sentence BLEU on every shared MQM set.

For each ``*.mqm.tsv.gz`` of the MQM directory (the target language is the second half of the
file's language pair), one row: the average over systems of the segment-level Pearson r with MQM
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
* **chrF** and **BLEU**: sacreBLEU's ``CHRF()`` and ``BLEU(effective_order=True)`` sentence scores
  (``tokenize="zh"`` for Chinese, as sacreBLEU advises; the ``test`` extra).

The paired bootstrap interval of (default - chrF) says where Meteor 1.5's configuration is clearly
worse (interval below 0) or better.  System level: Pearson r of the systems' scores with their
mean MQM (corpus scores for meteor-lite, mean sentence scores for chrF and BLEU), no interval
(2-15 systems).  ``--plot`` draws the segment-level figures with their intervals (matplotlib:
the ``bench`` extra).
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from meteor_lite import Meteor
from meteor_lite.errors import MissingResourcesError
from meteor_lite.metaeval import Judgments, read_judgments
from meteor_lite.metaeval.correlate import Aligned, Key, align, statistic
from meteor_lite.metaeval.data import MetricScores

from ..errors import BuildError

__all__ = ["SetResult", "validity", "format_table", "plot", "METRICS"]

SEG: Key = ("seg", "sys", "pearson")
SYS: Key = ("sys", "-", "pearson")
#: Columns of the report, in order.
METRICS = ("default", "mqm (cv)", "mqm (in-sample)", "chrF", "BLEU")
_PAIR = re.compile(r"\.([a-z]{2,3})-([a-z]{2,3})\.")


@dataclass
class SetResult:
    """One MQM file's figures."""

    name: str
    lang: str
    systems: int
    segments: int
    default_config: str
    seg: Dict[str, Optional[float]] = field(default_factory=dict)
    seg_interval: Dict[str, Tuple[Optional[float], Optional[float]]] = field(default_factory=dict)
    sys: Dict[str, Optional[float]] = field(default_factory=dict)
    default_minus_chrf: Tuple[float, float] = (math.nan, math.nan)
    mqm_note: str = ""


def _label(path: Path) -> str:
    """The file's name as the tuner labels it (``biomed2021.en-de.dev``)."""
    base = path.name
    for ext in (".gz", ".tsv", ".mqm"):
        base = base[: -len(ext)] if base.endswith(ext) else base
    return base


def _scored(j: Judgments, name: str, score: Callable[[List[str], List[str]], Tuple[List[float], float]]) -> MetricScores:
    """A metric's scores on the judgments' rows: ``score(hyps, refs)`` -> (segment scores, system score)."""
    out = MetricScores(name, {})
    for system, pairs in j.texts.items():
        seg, total = score([h for h, _ in pairs], [r for _, r in pairs])
        for i, value in zip(j.order[system], seg):
            out.segments[(system, j.items[i])] = value
        out.system_scores[system] = total
    return out


def _meteor(lang: str, **kw: Any) -> Tuple[Meteor, str]:
    """The scorer (default configuration: ``--norm`` and the language's modules, else ``exact stem``)."""
    try:
        m = Meteor(lang, norm=True, quiet=True, **kw)
        return m, "" if "task" in kw else "--norm"
    except MissingResourcesError:
        if "task" in kw:
            raise
        m = Meteor(lang, norm=True, modules=["exact", "stem"], quiet=True)
        return m, "--norm -m 'exact stem'"


def _meteor_scores(m: Meteor) -> Callable[[List[str], List[str]], Tuple[List[float], float]]:
    def score(hyps: List[str], refs: List[str]) -> Tuple[List[float], float]:
        c = m.score_corpus(hyps, [refs])
        return [s.score for s in c.segments], c.score
    return score


def _sacrebleu(metric: Any) -> Callable[[List[str], List[str]], Tuple[List[float], float]]:
    def score(hyps: List[str], refs: List[str]) -> Tuple[List[float], float]:
        seg = [metric.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
        return seg, math.fsum(seg) / len(seg) if seg else math.nan
    return score


def _bootstrap(grids: Dict[str, Aligned], samples: int, seed: int) -> Dict[str, List[float]]:
    """Per metric, the statistic on each resample of the items (the same resamples for every metric)."""
    rng = random.Random(seed)
    n = len(next(iter(grids.values())).items)
    draws: Dict[str, List[float]] = {k: [] for k in grids}
    for _ in range(samples):
        cols = [rng.randrange(n) for _ in range(n)]
        for k, g in grids.items():
            draws[k].append(statistic(g, SEG, cols))
    return draws


def _interval(values: Sequence[float]) -> Tuple[float, float]:
    vals = sorted(v for v in values if not math.isnan(v))
    if not vals:
        return (math.nan, math.nan)
    return vals[int(0.025 * (len(vals) - 1))], vals[int(math.ceil(0.975 * (len(vals) - 1)))]


def _shipped_cv(lang: str, label: str) -> Tuple[Optional[float], Tuple[Optional[float], Optional[float]], str]:
    """The shipped ``mqm`` set's cross-validated figure on file ``label`` (value, interval, note)."""
    from meteor_lite.tuned import shipped_tasks

    task = shipped_tasks(lang).get("mqm")
    if task is None:
        return None, (None, None), f"no mqm set shipped for {lang}"
    prov = task.provenance
    part = (prov.get("heldout_by_file") or {}).get(label)
    if part is None:
        held = prov.get("heldout") or {}
        if len(prov.get("judgments", [])) == 1 and held:
            part = {"value": held.get("value"), "interval": held.get("interval"),
                    "default_value": held.get("default_value"), "default_interval": held.get("default_interval")}
        else:
            return None, (None, None), f"the mqm set of {lang} was not tuned on this file"
    if prov.get("fallback"):
        iv = part.get("default_interval") or [None, None]
        return part.get("default_value"), (iv[0], iv[1]), "fallback: the default configuration"
    iv = part.get("interval") or [None, None]
    return part.get("value"), (iv[0], iv[1]), ""


def validity(mqm_dir: Path, samples: int = 1000, seed: int = 0,
             progress: Callable[[str], None] = lambda s: None) -> List[SetResult]:
    """The figures of every ``*.mqm.tsv.gz`` in ``mqm_dir`` (sorted by name)."""
    try:
        from sacrebleu.metrics import BLEU, CHRF
    except ImportError:
        raise BuildError("the chrF and BLEU baselines need sacrebleu: pip install 'meteor-lite[test]'") from None

    files = sorted(mqm_dir.glob("*.mqm.tsv.gz"))
    if not files:
        raise BuildError(f"{mqm_dir}: no *.mqm.tsv.gz files")
    scorers: Dict[str, Tuple[Meteor, str, Optional[Meteor]]] = {}
    out = []
    for path in files:
        found = _PAIR.search(path.name)
        if found is None:
            raise BuildError(f"{path}: no language pair (like .en-de.) in the file name")
        lang = found.group(2)
        progress(f"{path.name} ({lang})")
        if lang not in scorers:
            default, how = _meteor(lang)
            try:
                tuned: Optional[Meteor] = Meteor(lang, task="mqm", quiet=True)
            except Exception:  # no set shipped for the language (ConfigError) or resources missing
                tuned = None
            scorers[lang] = (default, how, tuned)
        default, how, tuned = scorers[lang]
        j = read_judgments(str(path))
        metrics = {
            "default": _scored(j, "default", _meteor_scores(default)),
            "chrF": _scored(j, "chrF", _sacrebleu(CHRF())),
            "BLEU": _scored(j, "BLEU", _sacrebleu(BLEU(effective_order=True, **({"tokenize": "zh"} if lang == "zh" else {})))),
        }
        if tuned is not None:
            metrics["mqm (in-sample)"] = _scored(j, "mqm", _meteor_scores(tuned))
        grids = {k: align(j, v) for k, v in metrics.items()}
        draws = _bootstrap(grids, samples, seed)
        label = _label(path)
        res = SetResult(label, lang, len(j.systems), len(j.items), how)
        for k, g in grids.items():
            res.seg[k] = statistic(g, SEG)
            res.seg_interval[k] = _interval(draws[k])
            res.sys[k] = statistic(g, SYS)
        res.default_minus_chrf = _interval([a - b for a, b in zip(draws["default"], draws["chrF"])])
        value, iv, note = _shipped_cv(lang, label)
        res.seg["mqm (cv)"], res.seg_interval["mqm (cv)"], res.mqm_note = value, iv, note
        out.append(res)
    return out


def _cell(value: Optional[float], iv: Tuple[Optional[float], Optional[float]] = (None, None)) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if iv[0] is None or iv[1] is None or math.isnan(iv[0]) or math.isnan(iv[1]):
        return f"{value:.3f}"
    return f"{value:.3f} [{iv[0]:.3f}, {iv[1]:.3f}]"


def format_table(results: Sequence[SetResult]) -> str:
    """Markdown: the segment-level table with intervals, then the system-level one, then the tallies."""
    lines = [
        "| set | target | systems | segments | default | mqm (cv) | chrF | BLEU | default - chrF (paired 95%) |",
        "|---|---|---:|---:|---|---|---|---|---|",
    ]
    for r in results:
        d = r.default_minus_chrf
        lines.append(
            f"| {r.name} | {r.lang} | {r.systems} | {r.segments} | {_cell(r.seg.get('default'), r.seg_interval.get('default', (None, None)))} "
            f"| {_cell(r.seg.get('mqm (cv)'), r.seg_interval.get('mqm (cv)', (None, None)))} "
            f"| {_cell(r.seg.get('chrF'), r.seg_interval.get('chrF', (None, None)))} "
            f"| {_cell(r.seg.get('BLEU'), r.seg_interval.get('BLEU', (None, None)))} | [{d[0]:+.3f}, {d[1]:+.3f}] |"
        )
    lines += ["", "| set | system-level Pearson: default | mqm (in-sample) | chrF | BLEU |", "|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r.name} | {_cell(r.sys.get('default'))} | {_cell(r.sys.get('mqm (in-sample)'))} "
                     f"| {_cell(r.sys.get('chrF'))} | {_cell(r.sys.get('BLEU'))} |")
    lines.append("")
    lines.append(tallies(results))
    return "\n".join(lines)


def tallies(results: Sequence[SetResult]) -> str:
    """Where each meteor-lite configuration is at least chrF (point estimates), and where default is clearly worse."""
    n = len(results)

    def at_least(name: str) -> List[str]:
        return [r.name for r in results if r.seg.get(name) is not None and r.seg.get("chrF") is not None
                and r.seg[name] >= r.seg["chrF"]]  # type: ignore[operator]

    worse = [r.name for r in results if r.default_minus_chrf[1] < 0]
    mqm_below_default = [r.name for r in results if r.seg.get("mqm (cv)") is not None and r.seg.get("default") is not None
                         and r.seg["mqm (cv)"] < r.seg["default"]]  # type: ignore[operator]
    return (f"seg:sys:pearson at least chrF's: default {len(at_least('default'))} of {n}, mqm (cv) {len(at_least('mqm (cv)'))} of {n}; "
            f"default clearly below chrF (paired interval below 0): {', '.join(worse) or 'none'}; "
            f"mqm (cv) below the default: {', '.join(mqm_below_default) or 'none'}")


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
    fig, ax = plt.subplots(figsize=(8, 0.55 * len(results) * len(shown) / 2 + 1.5))
    height = 0.8 / len(shown)
    for k, name in enumerate(shown):
        ys, xs, lo, hi = [], [], [], []
        for i, r in enumerate(results):
            v = r.seg.get(name)
            if v is None or math.isnan(v):
                continue
            a, b = r.seg_interval.get(name, (None, None))
            ys.append(i + (k - (len(shown) - 1) / 2) * height)
            xs.append(v)
            lo.append(v - a if a is not None else 0.0)
            hi.append(b - v if b is not None else 0.0)
        ax.barh(ys, xs, height=height, xerr=[lo, hi], color=colours[name], label=name, error_kw={"linewidth": 0.7})
    ax.set_yticks(range(len(results)))
    ax.set_yticklabels([r.name.replace(".dev", "") for r in results], fontsize=8)
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=0.5)
    ax.set_xlabel("segment-level Pearson r with MQM, averaged over systems (95% bootstrap interval)")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    with atomic_path(out, suffix=".tmp.png") as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)


def as_json(results: Sequence[SetResult]) -> List[Dict[str, Any]]:
    """The results as JSON-ready dicts."""
    return [asdict(r) for r in results]
