"""Check the trainer's multi-reference statistics on real data, and count best-reference changes.

Usage::

    python -m meteor_lite_builders.tune.refcheck JUDGMENTS LANG [--column da_z] [--systems A,B,...]
                                                 [--params 'α β γ δ w1 ... wn'] [--no-norm] [--bundle B]

Aligns every judged row of the systems against each of its references (the language's default
modules, as the trainer does), then (1) prints, per system, the trainer's corpus score at Meteor's
default parameters beside ``meteor_lite.Meteor``'s own several-reference corpus score (they must be
equal), and (2) with ``--params``, counts the segments whose best reference differs between the
default parameters and those: the reason the trainer keeps every reference's statistics.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import List, Optional

from meteor_lite import Meteor
from meteor_lite.metaeval.data import read_judgments

from . import trainer
from .alignment import align_module_set

__all__ = ["main"]


def main(argv: Optional[List[str]] = None) -> int:
    """Run the check; exit code 1 when the trainer and the scorer disagree."""
    p = argparse.ArgumentParser(prog="python -m meteor_lite_builders.tune.refcheck", description=__doc__.split("\n")[0])
    p.add_argument("judgments")
    p.add_argument("lang")
    p.add_argument("--column", default=None, help="human score column")
    p.add_argument("--systems", default=None, help="comma-separated systems (default: all)")
    p.add_argument("--params", default=None, help="another parameter vector: 'α β γ δ w1 ... wn'")
    p.add_argument("--no-norm", dest="norm", action="store_false")
    p.add_argument("--bundle", default=None, help="bundle (default: the language's)")
    a = p.parse_args(argv)
    j = read_judgments(a.judgments, a.column)
    if a.systems:
        keep = [i for i, s in enumerate(j.systems) if s in set(a.systems.split(","))]
        j.systems, j.gold = [j.systems[i] for i in keep], [j.gold[i] for i in keep]
        j.refs = {s: j.refs[s] for s in j.systems}
    started = time.perf_counter()
    ms = align_module_set(j, a.lang, None, norm=a.norm, bundle=a.bundle)
    print(f"{sum(len(v) for v in ms.cells.values())} alignments ({len(ms.cells)} segments) in {time.perf_counter() - started:.1f} s")
    scorer = trainer.GridScorer(j, ms.cells, True)
    data = scorer.data(ms.default)
    grid = dict(zip(data.systems, data.system_score(list(range(len(j.items))))))
    m = Meteor(a.lang, norm=a.norm, bundle=a.bundle, quiet=True)
    worst = 0.0
    for s in data.systems:
        rows, hyps = j.refs[s], [h for h, _ in j.texts[s]]
        width = max(len(r) for r in rows)
        streams = [[r[k] if k < len(r) else None for r in rows] for k in range(width)]
        score = m.score_corpus(hyps, streams, layout="streams").score
        worst = max(worst, abs(score - grid[s]))
        print(f"{s:24} trainer {grid[s]:.15f}  meteor-lite ({width} references) {score:.15f}")
    print(f"max |difference| {worst:.2e}")
    if a.params:
        _count_changes(scorer, ms.default, [float(x) for x in a.params.split()])
    return 0 if worst < 1e-12 else 1


def _count_changes(scorer: "trainer.GridScorer", default: List[float], other: List[float]) -> None:
    """Segments whose best reference differs between two parameter vectors."""
    changed = total = 0
    for row in scorer.cells:
        for refs in row:
            if refs is None or len(refs) < 2:
                continue
            total += 1
            a = trainer._best(refs, default[0], default[1], default[2], default[3], default[4:])[1]
            b = trainer._best(refs, other[0], other[1], other[2], other[3], other[4:])[1]
            changed += a is not b
    share = 100 * changed / total if total else 0.0
    print(f"best reference differs under {' '.join(f'{x:g}' for x in other)} for {changed} of {total} "
          f"several-reference segments ({share:.1f}%)")


if __name__ == "__main__":
    sys.exit(main())
