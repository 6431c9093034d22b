"""chrF and sentence BLEU (sacreBLEU) for every row of a judgments TSV, as ``correlate`` TSVs.

Usage::

    python -m meteor_lite_builders.tune.baselines JUDGMENTS.tsv.gz OUT_DIR

writes ``OUT_DIR/chrF.tsv`` and ``OUT_DIR/BLEU.tsv`` (columns ``system seg_id score``) scoring
each row's ``hyp`` against its ``ref`` with sacreBLEU's defaults (``CHRF()``, ``BLEU(effective_order=True)``
sentence scores, the values ``sacrebleu -sl`` prints).  sacreBLEU is imported here only: it is in the
``test`` extra, not a run-time dependency of meteor-lite.
"""

from __future__ import annotations

import os
import sys
from typing import Dict, List

from meteor_lite.metaeval.data import read_judgments

__all__ = ["write_baselines", "main"]


def write_baselines(judgments_path: str, out_dir: str) -> Dict[str, str]:
    """Write chrF.tsv and BLEU.tsv for ``judgments_path``; return {metric: path}."""
    from sacrebleu.metrics import BLEU, CHRF

    judgments = read_judgments(judgments_path)
    metrics = {"chrF": CHRF(), "BLEU": BLEU(effective_order=True)}
    os.makedirs(out_dir, exist_ok=True)
    paths = {}
    for name, metric in metrics.items():
        lines: List[str] = ["system\tseg_id\tscore"]
        for system, pairs in judgments.texts.items():
            for i, (hyp, ref) in zip(judgments.order[system], pairs):
                score = metric.sentence_score(hyp, [ref]).score
                lines.append(f"{system}\t{judgments.items[i]}\t{score!r}")
        paths[name] = os.path.join(out_dir, f"{name}.tsv")
        with open(paths[name], "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    return paths


def main(argv: List[str]) -> int:
    """``python -m meteor_lite_builders.tune.baselines JUDGMENTS OUT_DIR``."""
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    for name, path in write_baselines(argv[0], argv[1]).items():
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
