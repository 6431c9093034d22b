"""Plain-text scoring as the jar does it: ``<test> <reference>`` files, one segment a line.

With ``-r N`` the reference file holds N consecutive lines per segment.  Output
(observed with Meteor 1.5): the header, one ``Segment N score:`` line each, the
system-level statistics and ``Final score:``; ``-q``, ``-vOut``, ``-ssOut`` and
``-writeAlignments`` as described in :mod:`.writers`.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, List

from ..jarcompat import java_double
from ..meteor import Meteor
from ..report import text_report
from ..scores import CorpusScore
from ..text.io import read_lines
from .options import JarOptions
from .setup import JarCliError, ref_count
from .writers import alignment_block, segment_line, write_lines

__all__ = ["run_plain", "write_alignments"]


def _read(path: str) -> List[str]:
    """Lines of a test or reference file (``-`` is a file name, as for the jar)."""
    if not Path(path).is_file():
        raise JarCliError(f"Could not score text files: {path} (No such file or directory)")
    return read_lines(path, jar_lines=True)


def run_plain(opts: JarOptions, scorer: Meteor, out: IO[str], err: IO[str]) -> int:
    """Score the two files and print what the jar prints after its header; the exit code."""
    n_refs = ref_count(opts)
    hyps = _read(opts.test)
    ref_lines = _read(opts.reference)
    if n_refs == 0:
        streams = [_paired_lines(opts, hyps, ref_lines, err)]
    elif len(ref_lines) != len(hyps) * n_refs:
        err.write("Error: test and reference not same length\n")
        return 0
    else:
        streams = [ref_lines[k::n_refs] for k in range(n_refs)]
    result = scorer.score_corpus(hyps, streams)
    _print_result(opts, result, out, err)
    if opts.write_alignments:
        write_alignments(opts, scorer, hyps, streams, result)
    return 0


def _paired_lines(opts: JarOptions, hyps: List[str], ref_lines: List[str], err: IO[str]) -> List[str]:
    """``-r 0`` (or less), as the jar takes it: reference line i for segment i, without its length check.

    Fewer reference lines than segments: an error (the jar dies once it runs out); more: the rest is
    ignored, as by the jar, with a warning.
    """
    if len(ref_lines) < len(hyps):
        raise JarCliError(f"-r {opts.ref_count}: {opts.reference} has {len(ref_lines)} lines for "
                          f"{len(hyps)} segments (one reference line per segment)")
    if len(ref_lines) > len(hyps):
        err.write(f"meteor-jar: warning: -r {opts.ref_count}: {opts.reference} has {len(ref_lines)} lines for "
                  f"{len(hyps)} segments; the last {len(ref_lines) - len(hyps)} are ignored, as the jar does\n")
    return ref_lines[: len(hyps)]


def _print_result(opts: JarOptions, result: CorpusScore, out: IO[str], err: IO[str]) -> None:
    """Standard output (and stderr with ``-q``) for a scored corpus."""
    segs = result.segments
    if opts.ss_out:
        write_lines(out, [s.stats.to_ss_line() for s in segs])
    elif opts.quiet:
        if opts.verbose_out:
            write_lines(out, [segment_line(i, s, True) for i, s in enumerate(segs, 1)])
        else:
            write_lines(err, [java_double(s.score) for s in segs])
        out.write(java_double(result.score) + "\n")
    else:
        write_lines(out, [segment_line(i, s, opts.verbose_out) for i, s in enumerate(segs, 1)])
        out.write(text_report(result, header=False, segments=False))


def write_alignments(
    opts: JarOptions, scorer: Meteor, hyps: List[str], streams: List[List[str]], result: CorpusScore
) -> None:
    """``<prefix>-align.out`` in the current directory (segments numbered from 1)."""
    path = Path(f"{opts.prefix}-align.out")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for i, seg in enumerate(result.segments):
            hyp = scorer.tokens(hyps[i])
            ref = scorer.tokens(streams[seg.ref_index][i])
            f.write(alignment_block(str(i + 1), seg, hyp, ref))
