"""``meteor-lite correlate``: correlate metric scores with human judgments (see docs/meta-evaluation.md)."""

from __future__ import annotations

import json
import math
import sys
from typing import TYPE_CHECKING, Dict, List, Optional

from ..printable import one_line
from .argtypes import non_negative_int
from .errors import EXIT_USAGE, Parser, fail, reported_errors

if TYPE_CHECKING:  # pragma: no cover
    import argparse

    from ..metaeval.correlate import Result

__all__ = ["run", "build_parser"]

_DESCRIPTION = """Correlate metric scores with human judgments, at segment level (groupings: none = all
segments pooled, sys = per system then averaged, item = per segment across systems then
averaged) and system level; statistics as google-research/mt-metrics-eval defines them.

JUDGMENTS: TSV (.gz) with system, seg_id and a score column (mqm, da_z; higher = better).
METRIC: TSV with system, seg_id, score columns, or a directory of <system>.json written by
'meteor-lite score --format json' on the files '--split DIR' writes (same segment order).
With --split DIR, only write <system>.hyp and <system>.ref for every system, and exit."""


def build_parser() -> "argparse.ArgumentParser":
    """The ``meteor-lite correlate`` argument parser."""
    p = Parser(prog="meteor-lite correlate", description=_DESCRIPTION)
    p.add_argument("judgments", metavar="JUDGMENTS", help="Human judgments TSV (MQM or DA).")
    p.add_argument("metric", metavar="METRIC", nargs="?", help="Metric scores: TSV, or directory of <system>.json.")
    p.add_argument("--compare", metavar="METRIC2", help="A second metric: paired permutation test (is METRIC2 better?).")
    p.add_argument("--name", help="Name shown for METRIC (default: its file / directory name).")
    p.add_argument("--name2", help="Name shown for METRIC2.")
    p.add_argument("--human-column", metavar="COL", help="Score column of JUDGMENTS (default: mqm, da_z, score, da_raw).")
    p.add_argument("--human-systems", metavar="A,B",
                   help="Systems that are human translations (default: names starting with 'ref' or 'human').")
    p.add_argument("--exclude-human", action="store_true", help="Leave human translations out (default: counted as systems).")
    p.add_argument("--grouping", action="append", choices=("none", "sys", "item"),
                   help="Segment-level grouping(s) to compute (repeatable). Default: all three.")
    p.add_argument("--bootstrap", type=non_negative_int, default=1000, metavar="N",
                   help="Bootstrap resamples of the segments for the intervals (0: none). Default: 1000.")
    p.add_argument("--permutations", type=non_negative_int, default=1000, metavar="K",
                   help="Permutations of the paired test (with --compare; 0: none). Default: 1000.")
    p.add_argument("--confidence", type=float, default=0.95, help="Interval coverage. Default: 0.95.")
    p.add_argument("--seed", type=int, default=0, help="Random seed (bootstrap, permutations, pair sampling). Default: 0.")
    p.add_argument("--max-pairs", type=non_negative_int, default=200_000, metavar="N",
                   help="Tie calibration (acc-eq, tau23-eq) samples about N pairs when there are more. Default: 200000.")
    p.add_argument("--resample-max-pairs", type=non_negative_int, default=50_000, metavar="N",
                   help="The same, in each bootstrap resample and permutation (speed). Default: 50000.")
    p.add_argument("--format", dest="fmt", choices=("text", "json"), default="text", help="Output format. Default: text.")
    p.add_argument("--split", metavar="DIR", help="Write DIR/<system>.hyp and DIR/<system>.ref from JUDGMENTS, and exit.")
    return p


def _fmt(x: Optional[float]) -> str:
    """Four decimals, or nan."""
    return "nan" if x is None or math.isnan(x) else f"{x:.4f}"


def _lines(name: str, res: "Result", other: Optional["Result"], name2: str, intervals: bool = True) -> List[str]:
    """The text table: one line per (level, grouping, statistic); no interval columns without ``intervals``."""
    def interval(r: "Result", key: "tuple[str, str, str]") -> str:
        lo, hi = r.intervals.get(key, (math.nan, math.nan))
        return f"  [{_fmt(lo)}, {_fmt(hi)}]" if intervals else ""

    iv = f"  {'interval':17}" if intervals else ""
    head = f"{'level':7} {'grouping':8} {'statistic':12} {name[:24]:>24}{iv}"
    if other is not None:
        head += f" {name2[:24]:>24}{iv} {'p(2>1)':>7}"
    out = [head]
    for key, value in res.values.items():
        eps = res.thresholds.get(key)
        line = f"{key[0]:7} {key[1]:8} {key[2]:12} {_fmt(value):>24}{interval(res, key)}"
        if other is not None:
            p = other.p_values.get(key)
            line += f" {_fmt(other.values[key]):>24}{interval(other, key)} {_fmt(p) if p is not None else '-':>7}"
        if eps is not None:
            line += f"  eps={eps:.4g}" + (f"/{other.thresholds[key]:.4g}" if other is not None else "")
        out.append(line)
    return out


def _as_dict(res: "Result") -> List[Dict[str, object]]:
    """JSON rows of a :class:`Result`."""
    rows = []
    for key, value in res.values.items():
        row: Dict[str, object] = {"level": key[0], "grouping": key[1], "statistic": key[2], "value": value}
        if key in res.intervals:
            row["interval"] = list(res.intervals[key])
        if key in res.thresholds:
            row["tie_threshold"] = res.thresholds[key]
        if key in res.p_values:
            row["p_second_better"] = res.p_values[key]
        rows.append(row)
    return rows


def _progress(what: str, done: int, total: int) -> None:
    """A one-line progress counter on a terminal's stderr."""
    if done % 10 == 0 or done == total:
        sys.stderr.write(f"\r{what}: {done}/{total}")
        sys.stderr.flush()


def run(argv: List[str]) -> int:
    """``meteor-lite correlate ARGV...``; return the exit code."""
    a = build_parser().parse_intermixed_args(argv)
    with reported_errors():
        from ..metaeval import correlate, read_judgments, read_metric, split_inputs

        humans = [s for s in a.human_systems.split(",") if s] if a.human_systems else None
        judgments = read_judgments(a.judgments, a.human_column, humans)
        if a.split:
            systems = split_inputs(judgments, a.split)
            print(f"wrote {len(systems)} systems' .hyp/.ref to {one_line(a.split)}: {one_line(' '.join(systems))}")
            return 0
        if a.metric is None:
            raise fail("METRIC is required (unless --split)", EXIT_USAGE)
        metric = read_metric(a.metric, judgments, a.name)
        other = read_metric(a.compare, judgments, a.name2) if a.compare else None
        res, res2 = correlate(
            judgments, metric, other, include_human=not a.exclude_human, samples=a.bootstrap,
            permutations=a.permutations, seed=a.seed, confidence=a.confidence,
            groupings=a.grouping or ("none", "sys", "item"), max_pairs=a.max_pairs,
            resample_max_pairs=a.resample_max_pairs, progress=_progress if sys.stderr.isatty() else None,
        )
        if sys.stderr.isatty():
            sys.stderr.write("\r\033[K")
    kept = [s for s in judgments.systems if not (a.exclude_human and s in judgments.human_systems)]
    humans_in = sorted(judgments.human_systems & set(kept))
    if a.fmt == "json":
        doc: Dict[str, object] = {
            "judgments": a.judgments, "systems": kept, "human_systems": humans_in, "items": len(judgments.items),
            "bootstrap": a.bootstrap, "confidence": a.confidence, "seed": a.seed,
            "metric": metric.name, "results": _as_dict(res),
        }
        if res2 is not None and other is not None:
            doc.update(metric2=other.name, results2=_as_dict(res2), permutations=a.permutations)
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
        return 0
    print(f"judgments: {one_line(a.judgments)}: {len(kept)} systems ({len(humans_in)} human: "
          f"{one_line(' '.join(humans_in)) or '-'}), "
          f"{len(judgments.items)} segments; " + (
              f"intervals: {a.confidence:.0%} bootstrap, {a.bootstrap} resamples, seed {a.seed}" if a.bootstrap
              else "no intervals (--bootstrap 0)"))
    for line in _lines(one_line(metric.name), res, res2, one_line(other.name) if other else "", intervals=a.bootstrap > 0):
        print(line)
    return 0
