"""``meteor-lite score --tsv FILE``: every system of a WMT-style systems file scored in one run.

The file (see :mod:`meteor_lite.text.wmt`) is read and checked whole first; then every row is
scored, in file order, by one scorer, and each segment's statistics are added to its system's
:class:`~meteor_lite.scores.RunningTotal`.  A system's corpus score is therefore computed from the
same statistics, summed in the same order, as when its rows are scored alone (its hypotheses in
one file, its references in others, in file order): the numbers are equal, bit for bit.
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from ..errors import MeteorLiteWarning
from ..printable import report_line
from .errors import EXIT_USAGE, fail, reported_errors, warnings_as_lines

if TYPE_CHECKING:  # pragma: no cover
    import argparse

    from ..meteor import Meteor
    from ..scores import CorpusScore, RunningTotal, SegmentScore
    from ..text.wmt import SystemsFile
    from .scorer_options import ScorerOptions

__all__ = ["add_arguments", "run_tsv", "SystemResult", "score_systems", "warn_self_references"]

#: The widest the text report's System column is padded to: longer names overflow it (a 1 MB name pads no row).
MAX_NAME_WIDTH = 40


def add_arguments(p: "argparse.ArgumentParser") -> None:
    """The options of ``score --tsv`` (added to the ``meteor-lite score`` parser)."""
    from ..text.wmt import DEFAULT_HYP_COLUMN, DEFAULT_SEGMENT_COLUMN, DEFAULT_SYSTEM_COLUMN

    g = p.add_argument_group(
        "WMT systems files",
        "Score every system of one TSV (.gz or plain, a header line naming the columns: the layout of\n"
        "WMT's newstest2021.*.systems.tsv.gz and *.da.tsv.gz) in one run, one corpus score per system,\n"
        "instead of HYPOTHESIS REFERENCE... (docs/wmt-files.md).",
    )
    g.add_argument("--tsv", metavar="FILE", help="The systems file ('-': standard input).")
    g.add_argument("--system-column", default=DEFAULT_SYSTEM_COLUMN, metavar="COL",
                   help=f"Column naming the system. Default: {DEFAULT_SYSTEM_COLUMN}.")
    g.add_argument("--segment-column", default=DEFAULT_SEGMENT_COLUMN, metavar="COL",
                   help=f"Column naming the segment (unique per system). Default: {DEFAULT_SEGMENT_COLUMN}.")
    g.add_argument("--hyp-column", default=DEFAULT_HYP_COLUMN, metavar="COL",
                   help=f"Column of the hypotheses. Default: {DEFAULT_HYP_COLUMN}.")
    g.add_argument("--ref-column", action="append", metavar="COL",
                   help="A reference column (repeat for several; empty cells are missing references). "
                        "Default: every column named ref, ref_A, ref_B, ...")
    g.add_argument("--segments", dest="segment_file", metavar="OUT",
                   help="Also write every row's segment score to OUT, a TSV with columns system, seg_id, score "
                        "(what 'meteor-lite correlate' reads as METRIC).")


def tsv_usage_errors(a: "argparse.Namespace") -> None:
    """Usage errors of ``--tsv``: positional files with it, options that only apply to files."""
    if a.hypothesis is not None or a.references:
        raise fail("--tsv FILE takes the hypotheses and references from FILE: give no HYPOTHESIS or REFERENCE",
                   EXIT_USAGE)
    if a.refs_per_hyp != 1:
        raise fail("--refs-per-hyp does not apply to --tsv (references are columns: --ref-column)", EXIT_USAGE)


@dataclass
class SystemResult:
    """One system's corpus result, with how many rows it had and the reference columns it was scored against."""

    system: str
    segments: int
    references: List[str]
    result: "CorpusScore"
    bounded: int


def score_systems(
    scorer: "Meteor", data: "SystemsFile", *, jobs: int = 1, keep: Optional[List["SegmentScore"]] = None
) -> Tuple[List[SystemResult], List[float]]:
    """Score every row of ``data``; return each system's result (in the file's order) and every row's score.

    One pass over the rows in file order (``jobs`` processes): the statistics of each segment are
    added to its system's total, so each system's numbers are those of scoring its rows alone.
    ``keep``: a list that each row's :class:`~meteor_lite.scores.SegmentScore` is appended to, in file order.
    """
    from ..scores import RunningTotal

    totals: Dict[str, RunningTotal] = {s: RunningTotal() for s in data.systems}
    scores: List[float] = []
    pairs = ((row.hyp, data.references(row)) for row in data.rows)
    for row, seg in zip(data.rows, scorer.iter_segments(pairs, jobs=jobs)):
        totals[row.system].add(seg)
        scores.append(seg.score)
        if keep is not None:
            keep.append(seg)
    out = []
    for system in data.systems:
        total = totals[system]
        skip = data.self_references.get(system, [])
        refs = [c for c in data.ref_columns if c not in skip]
        out.append(SystemResult(system, total.count, refs, scorer.total_score(total), total.bounded))
    return out, scores


def warn_self_references(data: "SystemsFile") -> None:
    """Warnings for the systems that are a reference column of the file (see :class:`SystemsFile`), at most
    :data:`MAX_SYSTEM_WARNINGS` of each kind and one line counting the rest."""
    _warn_each(data.path, data.self_references, "(equal on every row): scored against the other reference "
               "column(s) only")
    _warn_each(data.path, data.identical, "(equal on every row), the only reference of some of its rows: scored "
               "against itself there (1.0)")


def run_tsv(a: "argparse.Namespace", options: "ScorerOptions") -> int:
    """``meteor-lite score --tsv FILE ...`` (``a``: the parsed options, ``options``: the scorer's); return the exit code."""
    tsv_usage_errors(a)
    with reported_errors(), warnings_as_lines():
        from .readers import TsvReader

        if a.segment_file:
            from ..atomicfile import check_output

            check_output(a.segment_file, inputs=[a.tsv])  # refused before the scoring, not after it
        reader = TsvReader.from_args(a)
        data = reader.data
        warn_self_references(data)
        scorer = options.scorer(reader.target_language)
        results, scores = score_systems(scorer, data, jobs=options.jobs)
        bounded = sum(r.bounded for r in results)
        if bounded:
            warnings.warn(f"{bounded} segment(s) had too many candidate matches for the beam search and were aligned "
                          "in bounded mode: their scores may differ from Meteor 1.5's (see 'bounded' in --format json)",
                          MeteorLiteWarning, stacklevel=2)
        if a.segment_file:
            write_segment_scores(a.segment_file, data, scores)
    if a.quiet:
        lines = [f"{report_line(r.system)}\t{_java(r.result.score)}" for r in _ranked(results)]
    elif a.fmt == "json":
        lines = [json_report(scorer, data, results)]
    else:
        lines = text_report(scorer, data, results, reader.format_name)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


#: Systems named one warning each (self references); the others are counted in one more.
MAX_SYSTEM_WARNINGS = 10


def _warn_each(path: str, found: Dict[str, List[str]], what: str) -> None:
    """One warning per system of ``found`` (system -> its reference columns), the first :data:`MAX_SYSTEM_WARNINGS`
    of them; then one line counting the others."""
    for system, cols in list(found.items())[:MAX_SYSTEM_WARNINGS]:
        warnings.warn(f"{path}: system {system!r} is reference column {', '.join(cols)} {what}", MeteorLiteWarning,
                      stacklevel=3)
    if len(found) > MAX_SYSTEM_WARNINGS:
        warnings.warn(f"{path}: {len(found) - MAX_SYSTEM_WARNINGS:,} more systems like these ('--format json' "
                      "lists every system's reference columns)", MeteorLiteWarning, stacklevel=3)


def _java(x: float) -> str:
    from ..jarcompat import java_double

    return java_double(x)


def _ranked(results: List[SystemResult]) -> List[SystemResult]:
    """Best score first (ties: by name)."""
    return sorted(results, key=lambda r: (-r.result.score, r.system))


def write_segment_scores(path: str, data: "SystemsFile", scores: List[float]) -> None:
    """``system seg_id score`` for every row, in file order, written whole or not at all."""
    from ..atomicfile import output_file

    try:
        with output_file(path, inputs=[data.path]) as out:
            out.write("system\tseg_id\tscore\n")
            for row, score in zip(data.rows, scores):
                out.write(f"{row.system}\t{row.seg_id}\t{_java(score)}\n")
    except OSError as exc:
        from ..errors import InputError

        raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from exc


def text_report(scorer: "Meteor", data: "SystemsFile", results: List[SystemResult], input_format: str) -> List[str]:
    """The header of Meteor's report (``input_format``: its ``Format:`` line), the file, then one line per system,
    best score first."""
    from ..report import report_header

    head = report_header(scorer.config, scorer.signature, input_format)
    refs = " ".join(data.ref_columns) + (" (best of the non-empty ones per row)" if len(data.ref_columns) > 1 else "")
    head += [f"File:           {data.path}",
             f"Rows:           {len(data.rows)} ({len(results)} systems)",
             f"References:     {refs}"]
    head += [f"                {s}: {' '.join(r.references)} only (its hypotheses are {' '.join(data.self_references[s])})"
             for s, r in ((r.system, r) for r in results) if s in data.self_references]
    names = {r.system: report_line(r.system) for r in results}  # escaped as printed: control characters, ...
    width = min(MAX_NAME_WIDTH, max(6, *(len(n) for n in names.values())))  # a longer name overflows its column
    table = ["", f"{'System':{width}}  Segments  {'Score':20}  Precision  Recall  Frag.pen.  Chunks"]
    for r in _ranked(results):
        m, st = r.result.metrics, r.result.stats
        table.append(f"{names[r.system]:{width}}  {r.segments:8d}  {_java(r.result.score):20}  {_f4(m.precision):>9}  "
                     f"{_f4(m.recall):>6}  {_f4(m.frag_penalty):>9}  {_count(st.chunks):>6}")
    return [report_line(line) for line in head] + table


def _f4(x: float) -> str:
    return f"{x:.4f}" if x == x else "NaN"


def _count(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else _java(x)


def json_report(scorer: "Meteor", data: "SystemsFile", results: List[SystemResult]) -> str:
    """One JSON document: the file, the signature, and each system's corpus result (file order)."""
    import json

    systems = []
    for r in results:
        d = json.loads(r.result.to_json())  # NaN as null, as in the corpus JSON
        d.pop("segments")
        d.pop("signature")
        systems.append({"system": r.system, "segments": r.segments, "references": r.references,
                        "bounded": r.bounded, **d})
    doc = {"file": data.path, "rows": len(data.rows), "references": data.ref_columns, "signature": scorer.signature,
           "systems": systems}
    return json.dumps(doc, indent=1, allow_nan=False)
