"""What the jar writes for scored segments: segment lines, ``-vOut``, ``-q``, ``-ssOut``, ``-writeAlignments``.

Formats as observed with Meteor 1.5 (numbers in Java's ``Double.toString``):

* segment line: ``Segment N score:\\t<score>``; with ``-vOut``
  ``Segment N score:\\t<P>\\t<R>\\t<frag penalty>\\t<score>``;
* ``-q``: the bare segment scores on stderr (with ``-vOut``: the verbose lines on stdout), then the bare
  final score on stdout;
* ``-ssOut``: one line of 23 sufficient statistics per segment, nothing else;
* ``<prefix>-align.out``: per segment ``Alignment\\t<id>\\t<P>\\t<R>\\t<frag>\\t<score>``, the hypothesis
  tokens, the reference tokens, ``Line2Start:Length\\tLine1Start:Length\\tModule\\t\\tScore`` and one row
  per match (reference span, hypothesis span, module, ``1.0``) in reference order, then an empty line.
"""

from __future__ import annotations

from typing import IO, List, Sequence

from ..jarcompat import java_double
from ..scores import SegmentScore

__all__ = ["segment_line", "verbose_numbers", "alignment_block"]


def verbose_numbers(seg: SegmentScore) -> str:
    """``P\\tR\\tfrag\\tscore`` as ``-vOut`` and the alignment headers print them."""
    return "\t".join(java_double(x) for x in (seg.precision, seg.recall, seg.frag_penalty, seg.score))


def segment_line(n: int, seg: SegmentScore, verbose: bool) -> str:
    """One ``Segment N score:`` line (without the line end)."""
    value = verbose_numbers(seg) if verbose else java_double(seg.score)
    return f"Segment {n} score:\t{value}"


def alignment_block(seg_id: str, seg: SegmentScore, hyp: Sequence[str], ref: Sequence[str]) -> str:
    """One segment's block of ``<prefix>-align.out`` (ends with the empty separator line)."""
    lines: List[str] = [
        f"Alignment\t{seg_id}\t{verbose_numbers(seg)}",
        " ".join(hyp),
        " ".join(ref),
        "Line2Start:Length\tLine1Start:Length\tModule\t\tScore",
    ]
    for module, rstart, rlen, hstart, hlen in sorted(seg.alignment, key=lambda t: (t[1], t[3])):
        lines.append(f"{rstart}:{rlen}\t\t\t{hstart}:{hlen}\t\t\t{module}\t\t1.0")
    return "\n".join(lines) + "\n\n"


def write_lines(stream: IO[str], lines: Sequence[str]) -> None:
    """Write ``lines`` with a line end each."""
    stream.write("".join(line + "\n" for line in lines))
