"""Do thesaurus synonyms and paraphrases help?  Segment-level Pearson on MQM judgments, with and without.

``meteor-build check thesaurus-effect JUDGMENTS --lang de --base BASE.sqlite --bundle NEW.sqlite`` scores
every system of an MQM judgments file (``../shared/data/mqm/*.tsv.gz``) three ways, all with Meteor's
``-norm``, the language's Ranking parameters and stem weight:

* ``base``: exact + stem with ``BASE`` (the bundle without the thesaurus);
* ``+syn``: exact + stem + synonym with ``NEW`` (synonym weight 0.8, Meteor 1.5's English Ranking value);
* ``+syn+para``: also the paraphrase stage (weight 0.6, Meteor 1.5's English Ranking value).

For each: segment-level Pearson per system, averaged over systems (``seg:sys:pearson``, as
``meteor-lite correlate`` computes it), and for each variant the paired bootstrap interval of its
difference with ``base`` (the same resampled segments for both; 95%, percentile).

``--sample N`` also writes N random synonym-stage matches of ``+syn`` (seeded) as TSV lines
``hyp word, ref word, hyp segment, ref segment`` for a precision check by hand.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from meteor_lite.languages import preset
from meteor_lite.metaeval.correlate import Aligned, align, statistic
from meteor_lite.metaeval.data import Judgments, MetricScores, read_judgments
from meteor_lite.meteor import Meteor

__all__ = ["Variant", "variants", "score_variant", "paired_interval", "run_effect", "sample_synonym_matches", "read_pairs",
           "write_sample", "read_judgments_with_docs"]

KEY = ("seg", "sys", "pearson")
SYNONYM_WEIGHT = 0.8
PARAPHRASE_WEIGHT = 0.6


@dataclass(frozen=True)
class Variant:
    """One way of scoring: a name, the bundle, modules and weights."""

    name: str
    bundle: str
    modules: Tuple[str, ...]
    weights: Tuple[float, ...]


def variants(lang: str, base: str, new: str) -> List[Variant]:
    """``base``, ``+syn`` and ``+syn+para`` (see the module docstring)."""
    _params, weights = preset(lang, "rank") if lang in ("de", "es", "fr", "ru", "en") else preset(lang, "li")
    stem_w = weights[1]
    return [
        Variant("base", base, ("exact", "stem"), (1.0, stem_w)),
        Variant("+syn", new, ("exact", "stem", "synonym"), (1.0, stem_w, SYNONYM_WEIGHT)),
        Variant("+syn+para", new, ("exact", "stem", "synonym", "paraphrase"), (1.0, stem_w, SYNONYM_WEIGHT, PARAPHRASE_WEIGHT)),
    ]


def _meteor(lang: str, v: Variant) -> Meteor:
    params, _w = preset(lang, "rank") if lang in ("de", "es", "fr", "ru", "en") else preset(lang, "li")
    return Meteor(lang, norm=True, bundle=v.bundle, modules=list(v.modules), weights=list(v.weights), params=list(params),
                  quiet=True)


def score_variant(j: Judgments, lang: str, v: Variant) -> MetricScores:
    """Segment scores and statistics of every judged system (as ``meteor-lite score --format json`` gives them)."""
    m = _meteor(lang, v)
    out = MetricScores(v.name, {})
    for name in j.systems:
        rows = j.texts[name]
        cs = m.score_corpus([h for h, _ in rows], [[r] for _, r in rows], layout="segments")
        for i, seg in zip(j.order[name], cs.segments):
            key = (name, j.items[i])
            out.segments[key] = float(seg.score or 0.0)
            out.stats[key] = seg.stats.to_dict()
        out.system_scores[name] = float(cs.score or 0.0)
        out.signature = cs.signature
    return out


def paired_interval(base: Aligned, other: Aligned, samples: int, seed: int = 0, confidence: float = 0.95) -> Tuple[float, float]:
    """Percentile interval of ``statistic(other) - statistic(base)`` over paired item resamples."""
    rng = random.Random(seed)
    n = len(base.items)
    deltas: List[float] = []
    for _ in range(samples):
        cols = [rng.randrange(n) for _ in range(n)]
        d = statistic(other, KEY, cols) - statistic(base, KEY, cols)
        if not math.isnan(d):
            deltas.append(d)
    deltas.sort()
    tail = (1.0 - confidence) / 2.0

    def pct(q: float) -> float:
        pos = q * (len(deltas) - 1)
        lo = int(math.floor(pos))
        hi = min(lo + 1, len(deltas) - 1)
        return deltas[lo] + (deltas[hi] - deltas[lo]) * (pos - lo)

    return (pct(tail), pct(1.0 - tail)) if deltas else (math.nan, math.nan)


def sample_synonym_matches(pairs: Sequence[Tuple[str, str]], lang: str, v: Variant, n: int, seed: int = 0
                           ) -> Tuple[List[Tuple[str, str, str, str]], int]:
    """``n`` random synonym-stage matches of variant ``v`` over ``(hyp, ref)`` pairs (hyp word, ref word, hyp, ref),
    seeded, and the number of synonym matches there were to draw from."""
    m = _meteor(lang, v)
    module = list(v.modules).index("synonym")
    found: List[Tuple[str, str, str, str]] = []
    for hyp, ref in pairs:
        ht, rt = m.tokens(hyp), m.tokens(ref)
        seg = m.score_tokens(ht, [rt])
        for mod, rs, rl, hs, hl in seg.alignment:
            if mod == module:
                found.append((" ".join(ht[hs:hs + hl]), " ".join(rt[rs:rs + rl]), hyp, ref))
    rng = random.Random(seed)
    return (rng.sample(found, min(n, len(found))) if found else []), len(found)


def read_pairs(path: str) -> List[Tuple[str, str]]:
    """``(hyp, ref)`` of every row of a TSV with ``hyp`` and ``ref`` (or ``ref_A``) columns (plain or .gz)."""
    import gzip

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    header = lines[0].split("\t")
    h = header.index("hyp")
    r = header.index("ref") if "ref" in header else header.index("ref_A")
    out = []
    for line in lines[1:]:
        cells = line.split("\t")
        if len(cells) > max(h, r) and cells[h].strip() and cells[r].strip():
            out.append((cells[h], cells[r]))
    return out


def write_sample(path: Path, rows: Sequence[Tuple[str, str, str, str]]) -> None:
    """The sampled matches as TSV: hyp word, ref word, hyp, ref."""
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write("\t".join(x.replace("\t", " ") for x in row) + "\n")


def _doc_items(judgments: str, tmp: Path) -> str:
    """``judgments`` with ``seg_id`` made ``doc/seg_id`` when the file has a ``doc`` column (the biomedical MQM
    sets number segments within each document); the path of that copy (in ``tmp``), or ``judgments`` unchanged."""
    import gzip

    opener = gzip.open if judgments.endswith(".gz") else open
    with opener(judgments, "rt", encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    header = lines[0].split("\t")
    if "doc" not in header or "seg_id" not in header:
        return judgments
    d, s = header.index("doc"), header.index("seg_id")
    out = [lines[0]]
    for line in lines[1:]:
        if line:
            cells = line.split("\t")
            cells[s] = f"{cells[d]}/{cells[s]}"
            out.append("\t".join(cells))
    path = tmp / "judgments.tsv"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return str(path)


def read_judgments_with_docs(judgments: str) -> Judgments:
    """The judgments of ``judgments``, items ``doc/seg_id`` when the file has a ``doc`` column; ValueError without texts."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        j = read_judgments(_doc_items(judgments, Path(tmp)))
    if not j.texts:
        raise ValueError(f"{judgments}: no hyp/ref columns")
    return j


def run_effect(
    judgments: str, lang: str, base: str, new: str, *, bootstrap: int = 1000, seed: int = 0,
    sample: int = 0, sample_out: Optional[Path] = None,
) -> Dict[str, Any]:
    """The effect report (JSON-ready): Pearson per variant, paired intervals of the differences, synonym matches counted."""
    j = read_judgments_with_docs(judgments)
    vs = variants(lang, base, new)
    data = {v.name: align(j, score_variant(j, lang, v)) for v in vs}
    per_variant: Dict[str, Dict[str, Any]] = {}
    report: Dict[str, Any] = {"judgments": judgments, "lang": lang, "systems": len(j.systems), "segments": len(j.items),
                              "statistic": "seg:sys:pearson", "bootstrap": bootstrap, "seed": seed, "variants": per_variant}
    base_value = statistic(data["base"], KEY)
    for v in vs:
        value = statistic(data[v.name], KEY)
        entry: Dict[str, Any] = {"bundle": v.bundle, "modules": list(v.modules), "weights": list(v.weights), "value": value}
        if v.name != "base":
            entry["delta"] = value - base_value
            entry["interval"] = list(paired_interval(data["base"], data[v.name], bootstrap, seed)) if bootstrap else None
        per_variant[v.name] = entry
    if sample and sample_out is not None:
        rows, total = sample_synonym_matches([p for name in j.systems for p in j.texts[name]], lang, vs[1], sample, seed)
        write_sample(sample_out, rows)
        report["sampled_synonym_matches"] = len(rows)
        report["synonym_matches"] = total
    return report


def format_effect(report: Dict[str, Any]) -> str:
    """One line per variant: value, difference with base and its interval."""
    lines = [f"{report['judgments']} ({report['lang']}, {report['systems']} systems, {report['segments']} segments): "
             f"{report['statistic']}, paired bootstrap {report['bootstrap']} resamples"]
    return "\n".join(lines + variant_lines(report["variants"], 10))


def variant_lines(variants: Dict[str, Dict[str, Any]], width: int) -> List[str]:
    """One line per variant of an effect report: its value, and its difference with the base and that
    difference's interval where the report has them."""
    lines = []
    for name, e in variants.items():
        iv = e.get("interval")
        extra = f"  delta {e['delta']:+.4f} [{iv[0]:+.4f}, {iv[1]:+.4f}]" if iv else (f"  delta {e['delta']:+.4f}" if "delta" in e else "")
        lines.append(f"  {name:{width}s} {e['value']:.4f}{extra}")
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command-line entry (``meteor-build check thesaurus-effect``)."""
    import argparse

    ap = argparse.ArgumentParser(prog="meteor-build check thesaurus-effect", description=__doc__.split("\n\n")[0])
    ap.add_argument("judgments")
    ap.add_argument("--lang", required=True)
    ap.add_argument("--base", required=True, help="bundle without the thesaurus")
    ap.add_argument("--bundle", required=True, help="bundle with thesaurus synonyms and paraphrases")
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sample", type=int, default=0, help="write this many random synonym matches")
    ap.add_argument("--sample-out", type=Path)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rep = run_effect(a.judgments, a.lang, a.base, a.bundle, bootstrap=a.bootstrap, seed=a.seed, sample=a.sample,
                     sample_out=a.sample_out)
    print(json.dumps(rep, indent=1, ensure_ascii=False) if a.json else format_effect(rep))
    return 0
