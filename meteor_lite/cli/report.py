"""``meteor-lite report --html OUT.html``: systems compared on one page (:mod:`meteor_lite.compare.htmlreport`).

The inputs, the choice of systems, the scorer's options and the tests are those of ``meteor-lite compare``
(:func:`meteor_lite.cli.compare.load`); the page adds the plots, the matches by module, the buckets by reference
length and, per system, the ``--examples`` segments where it and the baseline differ most, aligned as
``meteor-lite align --format html`` draws them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional

from .argtypes import non_negative_int
from .compare import Loaded, add_input_arguments, add_test_arguments, compare, load
from .errors import Parser, reported_errors, warnings_as_lines

if TYPE_CHECKING:  # pragma: no cover
    from ..compare.htmlreport import Bucket, Example, ReportData
    from ..compare.significance import BootstrapResult, SystemComparison

__all__ = ["run", "build_parser", "report_data"]

DEFAULT_EXAMPLES = 3


def build_parser() -> argparse.ArgumentParser:
    """The ``meteor-lite report`` argument parser."""
    p = Parser(prog="meteor-lite report",
               description="One self-contained HTML page comparing systems with a baseline: scores and 95%% intervals, "
               "the paired tests of 'meteor-lite compare', segment-level differences, matches by module and "
               "fragmentation, scores by reference length, and the segments where the systems differ most, aligned.")
    add_input_arguments(p)
    add_test_arguments(p)
    p.add_argument("--html", required=True, metavar="OUT", help="The page to write (UTF-8).")
    p.add_argument("--examples", type=non_negative_int, default=DEFAULT_EXAMPLES, metavar="N",
                   help=f"Segments shown per system: where it and the baseline differ most. Default: {DEFAULT_EXAMPLES}.")
    p.add_argument("--title", default="Meteor system comparison", help="Title of the page.")
    return p


def _buckets(loaded: Loaded) -> List["Bucket"]:
    """Segments by the length of their first reference, and each system's corpus METEOR on each bucket."""
    from ..compare.htmlreport import LENGTH_EDGES, Bucket
    from ..compare.significance import corpus_score

    scorer, base_rows = loaded.scorer, loaded.paired.rows[loaded.baseline]
    lengths = [len(scorer.tokens(next(r for r in row.refs if r is not None))) for row in base_rows]
    out = []
    for k, low in enumerate(LENGTH_EDGES):
        high = LENGTH_EDGES[k + 1] if k + 1 < len(LENGTH_EDGES) else None
        members = [i for i, n in enumerate(lengths) if n >= low and (high is None or n < high)]
        scores: Dict[str, float] = {}
        if members:
            for name in [loaded.baseline, *loaded.systems]:
                sums = loaded.stats.totals_of(name, members)
                scores[name] = corpus_score(sums, loaded.stats.formula)
        out.append(Bucket(low, high, len(members), scores))
    return out


def _record(loaded: Loaded, system: str, i: int) -> Dict[str, object]:
    """The alignment record (``align --format json``) of segment ``i`` (baseline order) of ``system``."""
    from .align import alignment_record

    row = loaded.paired.rows[system][i]
    seg = loaded.paired.segments[system][i]
    refs = loaded.data.references(row)
    ref = refs[seg.ref_index]
    assert ref is not None
    scorer = loaded.scorer
    return alignment_record(row.seg_id, seg, scorer.tokens(row.hyp), scorer.tokens(ref), scorer.config.modules)  # type: ignore[arg-type]


def _examples(loaded: Loaded, n: int) -> Dict[str, List["Example"]]:
    """Per system, the ``n`` segments with the largest difference from the baseline (either way), largest first."""
    from ..compare.htmlreport import Example

    base = loaded.paired.segments[loaded.baseline]
    out: Dict[str, List[Example]] = {}
    for name in loaded.systems:
        segs = loaded.paired.segments[name]
        deltas = [s.score - b.score for s, b in zip(segs, base)]
        top = sorted(range(len(deltas)), key=lambda i: (-abs(deltas[i]), i))[:n]
        out[name] = [Example(loaded.paired.seg_ids[i], deltas[i], _record(loaded, loaded.baseline, i),
                             _record(loaded, name, i)) for i in top if deltas[i] != 0]
    return out


def report_data(loaded: Loaded, base: "Optional[BootstrapResult]", rows: "List[SystemComparison]",
                a: argparse.Namespace) -> "ReportData":
    """What the page shows, from the scored systems and the tests."""
    from ..compare.htmlreport import ReportData, SystemSummary

    def summary(name: str, comparison: "Optional[SystemComparison]") -> SystemSummary:
        r = loaded.results[name].result
        m = r.metrics
        return SystemSummary(name, r.score, m.precision, m.recall, m.frag_penalty, r.stats,
                             [s.score for s in loaded.paired.segments[name]], comparison)

    return ReportData(
        title=a.title, source=loaded.data.path, signature=loaded.scorer.signature,
        modules=list(loaded.scorer.config.modules), baseline=summary(loaded.baseline, None),
        systems=[summary(c.system, c) for c in rows], baseline_bootstrap=base, resamples=a.resamples,
        trials=a.trials, seed=a.seed, buckets=_buckets(loaded), examples=_examples(loaded, a.examples),
    )


def run(argv: Optional[List[str]] = None) -> int:
    """``meteor-lite report ARGV...``; return the exit code."""
    from ..atomicfile import check_output, output_file
    from ..compare.htmlreport import render_report
    from ..errors import InputError

    a = build_parser().parse_intermixed_args(argv)
    inputs = [*a.files, *(a.refs or []), *([a.tsv] if a.tsv else [])]
    with reported_errors(), warnings_as_lines():
        check_output(a.html, inputs)  # refused before the scoring, not after it
        loaded = load(a)
        base, rows = compare(loaded, a)
        page = render_report(report_data(loaded, base, rows, a))
        try:
            Path(a.html).parent.mkdir(parents=True, exist_ok=True)  # a page in a new folder: the folder is made
            with output_file(a.html, inputs) as out:
                out.write(page)
        except OSError as exc:
            raise InputError(f"{a.html}: cannot write ({exc.strerror or exc})") from exc
    print(f"{a.html}: {len(rows) + 1} systems, {len(loaded.paired.seg_ids)} segments", file=sys.stderr)
    return 0
