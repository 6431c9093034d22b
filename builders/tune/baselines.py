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

from meteor_lite.errors import MeteorLiteError
from meteor_lite.metaeval.data import read_judgments

from ..errors import BuildError

__all__ = ["write_baselines", "main", "MISSING_SACREBLEU"]

#: The error when sacreBLEU is not installed (it is in the ``test`` extra).
MISSING_SACREBLEU = "the chrF and BLEU baselines need sacrebleu, which is in the test extra: pip install 'meteor-lite[test]'"


def write_baselines(judgments_path: str, out_dir: str) -> Dict[str, str]:
    """Write chrF.tsv and BLEU.tsv for ``judgments_path``; return {metric: path}.

    Raises :class:`BuildError` (naming the ``test`` extra) when sacreBLEU is not installed,
    before anything is read or written.
    """
    try:
        from sacrebleu.metrics import BLEU, CHRF
    except ImportError:
        raise BuildError(MISSING_SACREBLEU) from None

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
    try:
        paths = write_baselines(argv[0], argv[1])
    except (MeteorLiteError, OSError) as exc:
        print(f"baselines: error: {exc}", file=sys.stderr)
        return 1
    for name, path in paths.items():
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
