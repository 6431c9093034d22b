"""Meteor 1.5's plaintext report (header, segment scores, statistics table, final score).

The report reads a corpus result through :class:`ReportSource` (what
:class:`~meteor_lite.scores.CorpusScore` provides), so it does not depend on
the score classes.
"""

from __future__ import annotations

from typing import List, Protocol, Sequence

from .config import MeteorConfig
from .jarcompat import java_double, java_min_format
from .languages import long_name
from .printable import report_line
from .signature import reproduces_meteor
from .stats import Metrics, Stats

__all__ = ["text_report", "ReportSource", "report_header", "segment_line", "report_summary"]


class ScoredSegment(Protocol):
    """A segment result: its score is all the report shows."""

    @property
    def score(self) -> float: ...


class ReportSource(Protocol):
    """What the report needs of a corpus result."""

    @property
    def config(self) -> MeteorConfig: ...

    @property
    def signature(self) -> str: ...

    @property
    def segments(self) -> Sequence[ScoredSegment]: ...

    @property
    def stats(self) -> Stats: ...

    @property
    def metrics(self) -> Metrics: ...


def text_report(result: ReportSource, *, header: bool = True, segments: bool = True) -> str:
    """Meteor 1.5's plaintext report: header, ``Segment N score:`` lines, statistics block."""
    out: List[str] = []
    if header:
        out += report_header(result.config, result.signature)
    if segments:
        out += [segment_line(i, seg) for i, seg in enumerate(result.segments, 1)]
    bounded = [i for i, seg in enumerate(result.segments, 1) if getattr(seg, "bounded", False)]
    out += report_summary(result.config, result.stats, result.metrics, len(bounded), bounded)
    return "\n".join(out) + "\n"


def segment_line(number: int, seg: ScoredSegment) -> str:
    """The report's ``Segment N score:`` line of segment ``number`` (from 1)."""
    return f"Segment {number} score:\t{java_double(seg.score)}"


def report_summary(cfg: MeteorConfig, st: Stats, m: Metrics, bounded: int = 0, first_bounded: Sequence[int] = ()) -> List[str]:
    """The lines after the segment scores: statistics table, summary, final score, and the bounded segments
    (``bounded`` of them, the first ones numbered in ``first_bounded``) if any."""
    out = _stage_table(cfg, st) + _summary(cfg, st, m)
    if bounded:  # (never in Meteor 1.5's report: only segments too long for the beam search are bounded)
        out.append(f"Bounded segments:       {bounded} ({_first_few(list(first_bounded), bounded)}: aligned in bounded mode)")
    return out


def _first_few(numbers: List[int], total: int, k: int = 5) -> str:
    """``Segment 3, 7, 9`` or ``Segments 3, 7, 9, 12, 15, ...`` (``numbers``: the first of ``total``)."""
    head = ", ".join(str(n) for n in numbers[:k])
    return ("Segment " if total == 1 else "Segments ") + head + (", ..." if total > k else "")


#: The first header line when the configuration cannot reproduce Meteor 1.5 (no resources).
REDUCED_VERSION_LINE = "Meteor version: none (meteor-lite without resources: not Meteor 1.5's numbers)"


def report_header(cfg: MeteorConfig, signature: str, input_format: str = "plaintext") -> List[str]:
    """The report's header lines (version, options, signature), each value on one line; ``input_format``: the
    ``Format:`` line (the input reader's :attr:`~meteor_lite.cli.readers.InputReader.format_name`)."""
    name = long_name(cfg.lang)
    lines = [
        "Meteor version: 1.5 (meteor-lite)" if reproduces_meteor(signature) else REDUCED_VERSION_LINE,
        "",
        f"Eval ID:        {cfg.eval_id()}",
        "",
        f"Language:       {name[:1].upper() + name[1:]}",
        f"Format:         {input_format}",
        f"Task:           {cfg.task_description}",
        f"Modules:        {' '.join(cfg.modules)}",
        f"Weights:        {' '.join(java_double(w) for w in cfg.weights)}",
        f"Parameters:     {' '.join(java_double(p) for p in cfg.params)}",
        f"Signature:      {signature}",
        "",
    ]
    return [report_line(line) for line in lines]  # values from a bundle (task names, ...) never add a line


def _stage_table(cfg: MeteorConfig, st: Stats) -> List[str]:
    """System level statistics: matches per stage (module), content / function / total."""
    out = [
        "",
        "System level statistics:",
        "",
        "",
        "           Test Matches                  Reference Matches",
        "Stage      Content  Function    Total    Content  Function    Total",
    ]
    tc = tf = rc = rf = 0.0
    for i in range(len(cfg.weights)):
        a, b = st.test_content[i], st.test_function[i]
        c, d = st.ref_content[i], st.ref_function[i]
        out.append(
            "%1d          %7s   %7s  %7s    %7s   %7s  %7s"
            % (i + 1, java_min_format(a), java_min_format(b), java_min_format(a + b),
               java_min_format(c), java_min_format(d), java_min_format(c + d))
        )
        tc += a
        tf += b
        rc += c
        rf += d
    out.append(
        "Total      %7s   %7s  %7s    %7s   %7s  %7s"
        % (java_min_format(tc), java_min_format(tf), java_min_format(tc + tf),
           java_min_format(rc), java_min_format(rf), java_min_format(rc + rf))
    )
    return out


def _summary(cfg: MeteorConfig, st: Stats, m: Metrics) -> List[str]:
    unit = "char" if cfg.char_based else "word"
    return [
        "",
        f"Test {unit}s:             {java_min_format(st.test_length)}",
        f"Reference {unit}s:        {java_min_format(st.ref_length)}",
        f"Chunks:                 {java_min_format(st.chunks)}",
        f"Precision:              {java_double(m.precision)}",
        f"Recall:                 {java_double(m.recall)}",
        f"f1:                     {java_double(m.f1)}",
        f"fMean:                  {java_double(m.fmean)}",
        f"Fragmentation penalty:  {java_double(m.frag_penalty)}",
        "",
        f"Final score:            {java_double(m.score)}",
    ]
