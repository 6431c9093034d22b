"""Evaluate a built paraphrase table: precision against Meteor's official English table, and
whether scoring with it correlates better with expert MQM judgments than scoring without it.

Two sub-commands:

``precision BUNDLE_OR_FILE [--official paraphrase-en.gz]``
    Share of the table's pairs (phrase, paraphrase) that the official Meteor 1.5
    English table also pairs (directed, and in either direction), for the top
    1,000 pairs by probability and overall; also restricted to pairs whose phrase
    the official table has at all (so unknown vocabulary does not count as error).

``mqm --lang en|de --config NAME=BUNDLE[:MODULES] ... [--data ../shared/data/mqm]``
    Scores every system of the MQM set with each configuration and reports
    segment-level Pearson per system averaged over systems, Kendall tau-b within
    segments (across systems, averaged over segments), system-level Pearson (of
    the corpus Meteor score with the mean MQM), and a paired bootstrap (1,000
    resamples of segments) of the difference of the averaged segment-level
    Pearson between each configuration and the first.

Examples (``make paraphrases-multi30k`` first)::

    meteor-build check paraphrases precision build/paraphrases-multi30k/paraphrase-en.gz
    (or a bundle built with --keep-probabilities: the default bundles store no probabilities)
    meteor-build check paraphrases mqm --lang en \\
        --config none=resources/bundles/en.sqlite:exact,stem,synonym \\
        --config multi30k=resources/bundles/en-multi30k.sqlite \\
        --config official=resources/bundles/en.sqlite
"""

from __future__ import annotations

import gzip
import math
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from meteor_lite.resources.bundle import Bundle

from ... import jar as jarmod
from ...errors import SourceError
from ..paths import DEFAULT_DATA_DIR

#: One MQM row (columns of the TSV: system, doc, seg_id, hyp, ref, mqm, ...).
Row = Dict[str, str]
#: A (phrase, paraphrase, probability) triple.
Pair = Tuple[str, str, float]
#: Default directory of the MQM files.
DEFAULT_MQM_DIR = DEFAULT_DATA_DIR / "mqm"
MQM_FILES = {"en": "ted2021.zh-en.dev.mqm.tsv.gz", "de": "generalMT2023.en-de.mqm.tsv.gz"}


# --------------------------------------------------------------------------- precision
def read_table(path: str) -> List[Pair]:
    """Pairs of a bundle (paraphrases table) or of a Meteor paraphrase file (3-line groups)."""
    if path.endswith(".sqlite"):
        with Bundle.open(path) as b:
            if not b.has_paraphrase_probabilities:
                raise SourceError(
                    f"{path}: the bundle stores no paraphrase probabilities (the default); rebuild it with "
                    "--keep-probabilities, or give the table in Meteor's format (meteor-build paraphrases --meteor-file)"
                )
            return [
                (phrase, para, prob)
                for phrase, paras, probs in b.iter_paraphrases(with_probs=True)
                for para, prob in zip(paras, probs or ())
            ]
    from ...paraphrases.pivot import read_meteor_paraphrases

    return list(read_meteor_paraphrases(path))


def official_lookup(official: str, pairs: Sequence[Pair]) -> Tuple[Set[Tuple[str, str]], Set[str]]:
    """Stream the official table; return which of ``pairs`` it holds (directed) and which phrases it has."""
    wanted = {(a, b) for a, b, _ in pairs} | {(b, a) for a, b, _ in pairs}
    phrases = {a for a, _, _ in pairs}
    found: Set[Tuple[str, str]] = set()
    have_phrase: Set[str] = set()
    with gzip.open(official, "rt", encoding="utf-8") as f:
        while True:
            p = f.readline()
            if not p:
                break
            a = f.readline().rstrip("\n")
            b = f.readline().rstrip("\n")
            if a in phrases:
                have_phrase.add(a)
            if (a, b) in wanted:
                found.add((a, b))
    return found, have_phrase


def precision(table: str, official: Optional[str] = None) -> Dict[str, object]:
    """The ``precision`` report of ``table`` (a bundle or a Meteor paraphrase file) against ``official``."""
    if official is None:
        official = str(jarmod.paraphrase_file("en"))
    pairs = read_table(table)
    found, have_phrase = official_lookup(official, pairs)
    top = sorted(pairs, key=lambda t: (-t[2], t[0], t[1]))

    def share(sel: Sequence[Pair]) -> Dict[str, Any]:
        n = len(sel)
        directed = sum(1 for a, b, _ in sel if (a, b) in found)
        either = sum(1 for a, b, _ in sel if (a, b) in found or (b, a) in found)
        known = [t for t in sel if t[0] in have_phrase]
        known_dir = sum(1 for a, b, _ in known if (a, b) in found)
        return {"pairs": n, "in_official": directed, "precision": directed / n if n else None,
                "precision_either_direction": either / n if n else None,
                "pairs_whose_phrase_is_in_official": len(known),
                "precision_on_known_phrases": known_dir / len(known) if known else None}

    return {"table": table, "official": official, "top1000": share(top[:1000]), "overall": share(pairs),
            "examples_top_not_in_official": [(a, b, p) for a, b, p in top[:200] if (a, b) not in found][:15]}


# --------------------------------------------------------------------------- correlations
def pearson(x: Sequence[float], y: Sequence[float]) -> Optional[float]:
    """Pearson's r; None when undefined."""
    n = len(x)
    if n < 2:
        return None
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> Optional[float]:
    """Kendall's tau-b (ties in either variable handled); None when undefined."""
    n = len(x)
    conc = disc = tx = ty = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                conc += 1
            else:
                disc += 1
    denom = math.sqrt((conc + disc + tx) * (conc + disc + ty))
    return (conc - disc) / denom if denom else None


def mean(xs: Sequence[Optional[float]]) -> Optional[float]:
    """Mean of the defined values (None if none)."""
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def load_mqm(path: Path) -> List[Row]:
    """Rows of an MQM file that have a score."""
    rows = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(header, line.rstrip("\n").split("\t")))
            if r.get("mqm", "") in ("", "None", "nan"):
                continue
            rows.append(r)
    return rows


def segment_key(r: Row) -> Tuple[str, str]:
    """(document, segment id) of a row."""
    return (r["doc"], r["seg_id"])


def correlations(rows: Sequence[Row], metric: List[float], sys_scores: Dict[str, float],
                 seg_subset: Optional[Set[Tuple[str, str]]] = None) -> Dict[str, Optional[float]]:
    """Segment-level Pearson (averaged over systems), Kendall tau-b within segments, system-level Pearson."""
    by_sys: Dict[str, List[Tuple[float, float]]] = defaultdict(list)
    by_seg: Dict[Tuple[str, str], List[Tuple[float, float]]] = defaultdict(list)
    for i, r in enumerate(rows):
        if seg_subset is not None and segment_key(r) not in seg_subset:
            continue
        by_sys[r["system"]].append((metric[i], float(r["mqm"])))
        by_seg[segment_key(r)].append((metric[i], float(r["mqm"])))
    seg_pearson = mean([pearson([a for a, _ in v], [b for _, b in v]) for v in by_sys.values()])
    tau = mean([kendall_tau_b([a for a, _ in v], [b for _, b in v]) for v in by_seg.values() if len(v) > 1])
    systems = sorted(by_sys)
    sys_mqm = [sum(b for _, b in by_sys[s]) / len(by_sys[s]) for s in systems]
    sys_p = pearson([sys_scores[s] for s in systems], sys_mqm) if sys_scores else None
    return {"segment_pearson_avg_over_systems": seg_pearson, "kendall_tau_b_within_segments": tau,
            "system_pearson": sys_p}


def score_config(lang: str, bundle: str, modules: Optional[List[str]], rows: Sequence[Row]
                 ) -> Tuple[List[float], Dict[str, float], float, Any]:
    """Segment scores, system scores, seconds and the modules used for one configuration."""
    from meteor_lite import Meteor

    m = Meteor(lang, norm=True, bundle=bundle, modules=modules, quiet=True)
    t0 = time.time()
    by_sys: Dict[str, List[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_sys[r["system"]].append(i)
    seg = [0.0] * len(rows)
    sys_scores = {}
    for s, idx in sorted(by_sys.items()):
        res = m.score_corpus([rows[i]["hyp"] for i in idx], [[rows[i]["ref"] for i in idx]], layout="streams")
        sys_scores[s] = res.score
        for i, sc in zip(idx, res.segments):
            seg[i] = sc.score
    return seg, sys_scores, time.time() - t0, m.config.modules if hasattr(m.config, "modules") else modules


def parse_config(spec: str) -> Tuple[str, str, Optional[List[str]]]:
    """``NAME=BUNDLE[:MOD,MOD...]`` as (name, bundle, modules or None)."""
    name, _, rest = spec.partition("=")
    bundle, _, mods = rest.partition(":")
    return name, bundle, mods.split(",") if mods else None


def _bootstrap_delta(rows: Sequence[Row], a_scores: List[float], b_scores: List[float], resamples: int,
                     rng: random.Random) -> Optional[Dict[str, Any]]:
    """Paired bootstrap over segments of the difference of the averaged segment-level Pearson (a - b)."""
    segs = sorted({segment_key(r) for r in rows})
    diffs = []
    for _ in range(resamples):
        sample = [segs[rng.randrange(len(segs))] for _ in segs]
        # resampling with replacement: keep multiplicity by duplicating rows
        counts: Dict[Tuple[str, str], int] = defaultdict(int)
        for s in sample:
            counts[s] += 1
        idx = [i for i, r in enumerate(rows) for _ in range(counts.get(segment_key(r), 0))]
        sub_rows = [rows[i] for i in idx]
        a = correlations(sub_rows, [a_scores[i] for i in idx], {})["segment_pearson_avg_over_systems"]
        b = correlations(sub_rows, [b_scores[i] for i in idx], {})["segment_pearson_avg_over_systems"]
        if a is not None and b is not None:
            diffs.append(a - b)
    diffs.sort()
    if not diffs:
        return None
    return {
        "mean": sum(diffs) / len(diffs),
        "ci95": [diffs[int(0.025 * len(diffs))], diffs[int(0.975 * len(diffs)) - 1]],
        "share_above_zero": sum(1 for d in diffs if d > 0) / len(diffs),
    }


def mqm(lang: str, config: Sequence[str], data: Path = DEFAULT_MQM_DIR, bootstrap: int = 1000,
        seed: int = 1) -> Dict[str, object]:
    """The ``mqm`` report: each ``NAME=BUNDLE[:MODULES]`` configuration's correlations; the first is the baseline."""
    path = Path(data) / MQM_FILES[lang]
    rows = load_mqm(path)
    configs = [parse_config(spec) for spec in config]
    results: Dict[str, Dict[str, Any]] = {}
    metrics: Dict[str, List[float]] = {}
    for name, bundle, mods in configs:
        seg, sys_scores, secs, used = score_config(lang, bundle, mods, rows)
        metrics[name] = seg
        results[name] = {"bundle": bundle, "modules": list(used) if used else None, "seconds": round(secs, 1),
                         **correlations(rows, seg, sys_scores),
                         "mean_segment_score": sum(seg) / len(seg)}
    # paired bootstrap over segments of the difference with the first configuration
    rng = random.Random(seed)
    first = configs[0][0]
    for name, _b, _m in configs[1:]:
        delta = _bootstrap_delta(rows, metrics[name], metrics[first], bootstrap, rng)
        if delta is not None:
            results[name][f"delta_segment_pearson_vs_{first}"] = delta
    changed = {name: sum(1 for a, b in zip(metrics[name], metrics[first]) if a != b) for name, _b, _m in configs[1:]}
    return {"data": str(path), "rows": len(rows), "systems": len({r['system'] for r in rows}),
            "segments": len({segment_key(r) for r in rows}), "configs": results,
            f"segments_scored_differently_from_{first}": changed}
