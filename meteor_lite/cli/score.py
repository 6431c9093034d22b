"""``meteor-lite score``: score a hypothesis file against reference files (``-`` is standard input)."""

from __future__ import annotations

import sys
from typing import IO, TYPE_CHECKING, Callable, List, Optional

from ..errors import MeteorLiteError
from ..languages import MODULES
from . import wmtfile
from .errors import EXIT_USAGE, Parser, fail, reported_errors, warnings_as_lines
from .readers import InputReader, SgmlReader, TsvReader, chosen_reader
from .scorer_options import DEFAULT_BEAM, ScorerOptions, add_scorer_arguments

if TYPE_CHECKING:  # pragma: no cover
    import argparse

    from ..meteor import Meteor
    from ..scores import CorpusScore, RunningTotal, SegmentScore

__all__ = ["score", "run", "build_parser", "DEFAULT_BEAM", "FORMATS"]

FORMATS = ("text", "json")
_DESCRIPTION = """Score a hypothesis file against one or more reference files.

HYPOTHESIS or one REFERENCE may be '-' (standard input). With --modules, a
file argument named like a module (e.g. 'stem') is refused as an unquoted module
list: quote the list, or write the file as ./stem."""


def build_parser() -> "argparse.ArgumentParser":
    """The ``meteor-lite score`` argument parser."""
    p = Parser(prog="meteor-lite score", description=_DESCRIPTION)
    p.add_argument("hypothesis", metavar="HYPOTHESIS", nargs="?", help="Hypothesis file, one segment per line (UTF-8); '-': stdin.")
    p.add_argument("references", metavar="REFERENCE", nargs="*", help="Reference file(s): one per reference set.")
    add_scorer_arguments(p)
    p.add_argument("--refs-per-hyp", "-r", type=int, default=1, metavar="N",
                   help="References interleaved in one file, N lines per hypothesis. Default: 1.")
    p.add_argument("--format", dest="fmt", choices=FORMATS, default="text",
                   help="text: Meteor 1.5's report; json: every segment's statistics. Default: text.")
    p.add_argument("--quiet", "-q", action="store_true", help="Segment scores to stderr, final score to stdout, nothing else.")
    p.add_argument("--sgml", nargs=2, metavar=("TEST", "REFERENCE"),
                   help="Score NIST/WMT SGML sets instead of plain files: each <seg> of TEST against the <seg>s of "
                        "REFERENCE with its document and segment ids.")
    wmtfile.add_arguments(p)
    return p


def _check_files(modules: Optional[List[str]], hypothesis: str, references: List[str]) -> None:
    """Usage errors: stdin twice; an unquoted module list whose extra words landed among the files."""
    files = [hypothesis, *references]
    if sum(f == "-" for f in files) > 1:
        raise fail("standard input (-) can be read only once: give it as the hypothesis or as one reference", EXIT_USAGE)
    if modules:
        stray = [f for f in files if f.lower() in MODULES]
        if stray:
            given = " ".join(modules)
            raise fail(
                f"--modules/-m takes one argument, so {' '.join(stray)!r} was taken for a file: quote the list "
                f"(-m '{given} {' '.join(stray)}') or repeat the option (-m exact -m stem); "
                "a file with a module's name is written ./NAME",
                EXIT_USAGE,
            )


#: The jar's single-dash options -> this command's spelling.
JAR_SPELLINGS = {"-norm": "--norm", "-lower": "--lower", "-noPunct": "--no-punct", "-ch": "--ch", "-vOut": "--format",
                 "-ssOut": "--format", "-writeAlignments": "meteor-lite align", "-sgml": "--sgml TEST REFERENCE", "-stdio": "meteor-jar"}


def _jar_spellings(p: "argparse.ArgumentParser", argv: List[str]) -> None:
    """A usage error naming this command's spelling (or meteor-jar) for an option spelled as the jar spells it."""
    for arg in argv:
        if arg == "--":
            return
        if arg in JAR_SPELLINGS:
            p.error(f"{arg} is the jar's spelling: here it is {JAR_SPELLINGS[arg]}; "
                    f"meteor-jar takes the jar's command line as it is (meteor-jar HYP REF -l en {arg})")


def run(argv: List[str]) -> int:
    """``meteor-lite score ARGV...``; return the exit code."""
    p = build_parser()
    _jar_spellings(p, argv)
    a = p.parse_intermixed_args(argv)
    kind = chosen_reader(a)
    if a.tsv is not None and a.sgml is not None:
        p.error("--tsv and --sgml are two inputs: give one")
    if kind is TsvReader:  # one corpus score per system
        return wmtfile.run_tsv(a, ScorerOptions.from_args(a))
    if kind is SgmlReader:
        if a.hypothesis is not None:
            p.error("--sgml TEST REFERENCE names the input: no HYPOTHESIS or REFERENCE files beside it")
        score(lambda: kind.from_args(a), ScorerOptions.from_args(a), fmt=a.fmt, quiet=a.quiet)
        return 0
    if a.hypothesis is None or not a.references:
        missing = "REFERENCE" if a.hypothesis is not None else "HYPOTHESIS, REFERENCE"
        p.error(f"the following arguments are required: {missing} (or --tsv FILE)")
    _check_files(a.modules, a.hypothesis, a.references)
    score(lambda: kind.from_args(a), ScorerOptions.from_args(a), fmt=a.fmt, quiet=a.quiet)
    return 0


def score(open_input: Callable[[], InputReader], options: ScorerOptions, *, fmt: str = "text",
          quiet: bool = False) -> None:
    """Score the segments of the input ``open_input`` opens with the scorer ``options`` choose; print the result.

    The input is opened first (its errors come before the scorer's), then streamed: read, scored
    and written a block of segments at a time, only the summed statistics kept for the final score,
    so memory does not grow with its length (see :class:`~meteor_lite.text.io.SegmentReader` for
    when errors of plain files are found).
    """
    with reported_errors(), warnings_as_lines():
        reader = open_input()
        try:
            scorer = options.scorer(reader.target_language)
        except BaseException:
            reader.close()
            raise
        _stream(scorer, reader, fmt, quiet, options.jobs)


def _stream(scorer: "Meteor", reader: InputReader, fmt: str, quiet: bool, jobs: int) -> None:
    """Score the segments of ``reader`` block by block, writing each segment's line as it is scored, then the corpus result.

    An error met after some segment lines were written (an input that cannot be read twice
    turning out short or malformed, a bundle changed while scoring) is raised with a note that
    the output is incomplete; the final score is then never written.
    """
    from ..meteor import warn_bounded
    from ..scores import RunningTotal

    out = _Output(scorer, fmt, quiet, reader.format_name)
    total = RunningTotal()
    try:
        for seg in scorer.iter_segments(reader.segments(), jobs=jobs):
            total.add(seg)
            out.segment(total.count, seg)
    except MeteorLiteError as exc:
        if out.written:
            raise type(exc)(f"{exc} (after {total.count} segment score(s) were written: the output is "
                            "incomplete and has no final score)") from None
        raise
    finally:
        reader.close()
    warn_bounded(total)
    out.finish(scorer.total_score(total), total)


class _Output:
    """Where results go: segment lines as they come (text: stdout, ``-q``: stderr; JSON: spooled), then the end."""

    def __init__(self, scorer: "Meteor", fmt: str, quiet: bool, input_format: str = "plaintext"):
        """Nothing is written yet: the text report's header comes with the first segment (an input error found
        before it leaves stdout empty); the JSON document needs the totals first, so its segments are spooled to
        an unnamed temporary file (gone with the process, however it ends)."""
        from ..jarcompat import java_double
        from ..report import segment_line
        from ..scores import segment_json

        self.java_double, self.segment_line, self.segment_json = java_double, segment_line, segment_json
        self.scorer = scorer
        self.input_format = input_format
        self.fmt = "quiet" if quiet else fmt
        self.written = False
        self.spool: Optional[IO[str]] = None
        if self.fmt == "json":
            import tempfile

            self.spool = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 - closed by finish()

    def segment(self, number: int, seg: "SegmentScore") -> None:
        """One segment's result."""
        if self.fmt == "quiet":
            print(self.java_double(seg.score), file=sys.stderr)
            self.written = True
        elif self.fmt == "text":
            self._header()
            sys.stdout.write(self.segment_line(number, seg) + "\n")
        else:
            assert self.spool is not None
            self.spool.write((",\n" if number > 1 else "") + self.segment_json(seg, depth=2))

    def _header(self) -> None:
        """The text report's header, once."""
        if not self.written:
            from ..report import report_header

            sys.stdout.write("\n".join(report_header(self.scorer.config, self.scorer.signature, self.input_format)) + "\n")
            self.written = True

    def finish(self, result: "CorpusScore", total: "RunningTotal") -> None:
        """The corpus result: the final score (``-q``), the report's summary, or the whole JSON document."""
        if self.fmt == "quiet":
            print(self.java_double(result.score))
        elif self.fmt == "text":
            from ..report import report_summary

            self._header()
            lines = report_summary(result.config, result.stats, result.metrics, total.bounded, total.first_bounded)
            sys.stdout.write("\n".join(lines) + "\n")
        else:
            assert self.spool is not None
            import shutil

            from ..scores import json_document

            head, tail = json_document(result, total.count > 0)
            sys.stdout.write(head)
            self.spool.seek(0)
            shutil.copyfileobj(self.spool, sys.stdout)
            sys.stdout.write(tail)
            self.spool.close()
