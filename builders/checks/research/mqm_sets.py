"""The shared MQM judgment files (``../shared/data/mqm``) as the MQM checks read them, and sentence-metric baselines.

Used by ``meteor-build check validity`` and ``meteor-build check mqm-transfer``: which files there are and
the target language of each (the second half of the language pair in the file's name), the default
configuration both compare against, and scoring a judgments file's rows with a metric (sacreBLEU's chrF
and BLEU: the ``test`` extra).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence, Tuple

from meteor_lite import Meteor
from meteor_lite.errors import MissingResourcesError
from meteor_lite.metaeval import Judgments
from meteor_lite.metaeval.data import MetricScores

from ...errors import BuildError
from ...tune.baselines import MISSING_SACREBLEU

__all__ = ["Scorer", "default_meteor", "mqm_files", "JUDGMENT_GLOBS", "scored", "sacrebleu_scorer", "sacrebleu_metrics"]

_PAIR = re.compile(r"\.([a-z]{2,3})-([a-z]{2,3})\.")

#: ``score(hyps, refs)`` -> (segment scores, system score) for one system's rows.
Scorer = Callable[[List[str], List[str]], Tuple[List[float], float]]


#: The judgments files the MQM checks read: MQM (any scale: Google's penalties, Unbabel's 100-to-minus-400) and ESA.
JUDGMENT_GLOBS = ("*.mqm.tsv.gz", "*.esa.tsv.gz")


def mqm_files(mqm_dir: "Path | Sequence[Path]", files: Optional[Sequence[Path]] = None) -> List[Tuple[Path, str]]:
    """(file, target language) of every ``*.mqm.tsv.gz`` / ``*.esa.tsv.gz`` of ``mqm_dir`` (one directory or
    several), or of ``files``, sorted by file name."""
    dirs = [mqm_dir] if isinstance(mqm_dir, Path) else list(mqm_dir)
    paths = sorted(files) if files is not None else sorted(
        (p for d in dirs for pattern in JUDGMENT_GLOBS for p in d.glob(pattern)), key=lambda p: p.name)
    if not paths:
        raise BuildError(f"{', '.join(str(d) for d in dirs)}: no *.mqm.tsv.gz or *.esa.tsv.gz files")
    out = []
    for path in paths:
        found = _PAIR.search(path.name)
        if found is None:
            raise BuildError(f"{path}: no language pair (like .en-de.) in the file name")
        out.append((path, found.group(2)))
    return out


def default_meteor(lang: str) -> Tuple[Meteor, str]:
    """Meteor 1.5's configuration of ``lang`` as the MQM checks take it, and its options: ``--norm`` and the
    language's modules, else ``exact stem`` (the release distributes no paraphrase table beyond English's)."""
    try:
        return Meteor(lang, norm=True, quiet=True), "--norm"
    except MissingResourcesError:
        return Meteor(lang, norm=True, modules=["exact", "stem"], quiet=True), "--norm -m 'exact stem'"


def scored(j: Judgments, name: str, score: Scorer) -> MetricScores:
    """A metric's scores on the judgments' rows, one system at a time."""
    out = MetricScores(name, {})
    for system, pairs in j.texts.items():
        seg, total = score([h for h, _ in pairs], [r for _, r in pairs])
        for i, value in zip(j.order[system], seg):
            out.segments[(system, j.items[i])] = value
        out.system_scores[system] = total
    return out


def sacrebleu_scorer(metric: Any) -> Scorer:
    """Sentence scores of a sacreBLEU metric object; the system score is their mean."""
    def score(hyps: List[str], refs: List[str]) -> Tuple[List[float], float]:
        seg = [metric.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
        return seg, math.fsum(seg) / len(seg) if seg else math.nan
    return score


def sacrebleu_metrics() -> Tuple[Any, Any]:
    """sacreBLEU's ``BLEU`` and ``CHRF`` classes (a :class:`BuildError` naming the extra when it is missing)."""
    try:
        from sacrebleu.metrics import BLEU, CHRF
    except ImportError:
        raise BuildError(MISSING_SACREBLEU) from None
    return BLEU, CHRF
