"""``meteor-lite score``: score a hypothesis file against reference files (``-`` is standard input)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, List, Optional

from ..errors import MeteorLiteError
from ..languages import MODULES, TASKS
from . import wmtfile
from .argtypes import non_negative_int
from .errors import EXIT_USAGE, Parser, fail, reported_errors, warnings_as_lines

if TYPE_CHECKING:  # pragma: no cover
    import argparse

    from ..meteor import Meteor
    from ..scores import CorpusScore, RunningTotal, SegmentScore
    from ..text.io import SegmentReader

__all__ = ["score", "run", "build_parser", "DEFAULT_BEAM", "FORMATS"]

DEFAULT_BEAM = 40
FORMATS = ("text", "json")
_TASK_HELP = (
    f"Parameter preset: {', '.join(TASKS)}, or a tuned set the bundle carries (meteor-build tune --into; "
    "bundle info lists them; Meteor's names win) (default: the language's)."
)
_MODULES_HELP = (
    f"Matchers, in order, from: {' '.join(MODULES)}. Takes ONE argument: quote a list (-m 'exact stem') "
    "or repeat the option (-m exact -m stem). Default: the language's."
)
_DESCRIPTION = """Score a hypothesis file against one or more reference files.

HYPOTHESIS or one REFERENCE may be '-' (standard input). With --modules, a
file argument named like a module (e.g. 'stem') is refused as an unquoted module
list: quote the list, or write the file as ./stem."""


def build_parser() -> "argparse.ArgumentParser":
    """The ``meteor-lite score`` argument parser."""
    p = Parser(prog="meteor-lite score", description=_DESCRIPTION)
    p.add_argument("hypothesis", metavar="HYPOTHESIS", nargs="?", help="Hypothesis file, one segment per line (UTF-8); '-': stdin.")
    p.add_argument("references", metavar="REFERENCE", nargs="*", help="Reference file(s): one per reference set.")
    p.add_argument("--lang", "-l", help="Language code (en cz de es fr ru da fi hu it nl no pt ro se tr ...). "
                   "Default: en (with --tsv: the target of the file's lp column).")
    p.add_argument("--task", "-t", help=_TASK_HELP)
    p.add_argument("--params", "-p", help="Custom 'alpha beta gamma delta'.")
    p.add_argument("--modules", "-m", action="append", metavar="MODULES", help=_MODULES_HELP)
    p.add_argument("--weights", "-w", help="One weight per module.")
    p.add_argument("--beam", "-x", type=int, default=DEFAULT_BEAM, help="Alignment search beam size. Default: 40.")
    p.add_argument("--norm", action="store_true", help="Meteor's tokeniser and punctuation normaliser, then lower-case.")
    p.add_argument("--lower", action="store_true", help="Lower-case only.")
    p.add_argument("--no-punct", action="store_true", help="Drop punctuation (with --norm).")
    p.add_argument("--case-aware", action="store_true",
                   help="Keep the case (not a Meteor 1.5 mode; with --norm: its normaliser without lower-casing, "
                        "signature norm-case): exact matches are case-sensitive, stem, synonym and paraphrase "
                        "match across case, so a casing error costs a weaker match instead of no match.")
    p.add_argument("--ch", dest="char_based", action="store_true",
                   help="Character-based precision and recall (Meteor's -ch; -t util does not imply it, as in the jar).")
    p.add_argument("--tokenize", metavar="NAME",
                   help="Tokeniser after normalisation: meteor (white space), cjk, char, jieba, mecab, pythainlp, kiwi. "
                        "Default: the language's (cjk for zh ja, char for th, meteor otherwise).")
    p.add_argument("--refs-per-hyp", "-r", type=int, default=1, metavar="N",
                   help="References interleaved in one file, N lines per hypothesis. Default: 1.")
    p.add_argument("--bundle", metavar="PATH|NAME",
                   help="Resource bundle (default: the language's bundle on the search path; see 'meteor-lite bundle list').")
    p.add_argument("--allow-other-language", action="store_true",
                   help="Score with a --bundle made for another language than --lang (an error without this).")
    p.add_argument("--strict-modules", action="store_true",
                   help="Meteor 1.5's configuration exactly, as the jar: refuse to score when the bundle lacks a resource of the "
                        "language's default modules (e.g. German's paraphrase table) instead of scoring without that module "
                        "with a warning; add no module the bundle has beyond Meteor's defaults; a language outside Meteor 1.5 "
                        "takes Meteor's language-independent preset, not the universal set.")
    p.add_argument("--format", dest="fmt", choices=FORMATS, default="text",
                   help="text: Meteor 1.5's report; json: every segment's statistics. Default: text.")
    p.add_argument("--quiet", "-q", action="store_true", help="Segment scores to stderr, final score to stdout, nothing else.")
    p.add_argument("--jobs", "-j", type=non_negative_int, default=0,
                   help="Processes to score with (0: one per idle CPU, i.e. CPUs less the load average, at most 4; results do not change). Default: 0.")
    wmtfile.add_arguments(p)
    return p


def _floats(opt: str, value: Optional[str]) -> Optional[List[float]]:
    if value is None:
        return None
    try:
        return [float(x) for x in value.replace(",", " ").split()]
    except ValueError:
        raise fail(f"{opt} takes numbers separated by spaces, got {value!r}", EXIT_USAGE) from None


def _modules(modules: Optional[List[str]]) -> Optional[List[str]]:
    """The --modules groups as one list (``-m 'exact stem'``, ``-m exact -m stem``, commas allowed)."""
    return [m for group in modules for m in group.replace(",", " ").split()] if modules else None


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
                 "-ssOut": "--format", "-writeAlignments": "meteor-lite align", "-sgml": "meteor-jar", "-stdio": "meteor-jar"}


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
    if a.tsv is not None:
        return wmtfile.run_tsv(a, _modules(a.modules), _floats("--weights", a.weights), _floats("--params", a.params))
    if a.hypothesis is None or not a.references:
        missing = "REFERENCE" if a.hypothesis is not None else "HYPOTHESIS, REFERENCE"
        p.error(f"the following arguments are required: {missing} (or --tsv FILE)")
    _check_files(a.modules, a.hypothesis, a.references)
    score(
        a.hypothesis, a.references, lang=a.lang or "en", task=a.task, params=a.params, modules=a.modules, weights=a.weights,
        beam=a.beam, norm=a.norm, lower=a.lower, no_punct=a.no_punct, char_based=a.char_based, refs_per_hyp=a.refs_per_hyp,
        case_aware=a.case_aware,
        bundle=a.bundle, tokenize=a.tokenize, allow_other_language=a.allow_other_language,
        strict_modules=a.strict_modules, fmt=a.fmt, quiet=a.quiet, jobs=a.jobs,
    )
    return 0


def score(
    hypothesis: str,
    references: List[str],
    *,
    lang: str = "en",
    task: Optional[str] = None,
    params: Optional[str] = None,
    modules: Optional[List[str]] = None,
    weights: Optional[str] = None,
    beam: int = DEFAULT_BEAM,
    norm: bool = False,
    lower: bool = False,
    no_punct: bool = False,
    char_based: bool = False,
    case_aware: bool = False,
    refs_per_hyp: int = 1,
    bundle: Optional[str] = None,
    tokenize: Optional[str] = None,
    allow_other_language: bool = False,
    strict_modules: bool = False,
    fmt: str = "text",
    quiet: bool = False,
    jobs: int = 0,
) -> None:
    """Score a hypothesis file against one or more reference files and print the result.

    The files are streamed: read, scored and written a block of segments at a time, only
    the summed statistics kept for the final score, so memory does not grow with their
    length (see :class:`~meteor_lite.text.io.SegmentReader` for when input errors are found).
    """
    with reported_errors(), warnings_as_lines():
        from ..meteor import Meteor
        from ..text.io import SegmentReader

        segments = SegmentReader(hypothesis, references, refs_per_hyp)
        try:
            scorer = Meteor(
                lang,
                task=task,
                params=_floats("--params", params),
                modules=_modules(modules),
                weights=_floats("--weights", weights),
                beam=beam,
                norm=norm,
                lower=lower,
                no_punct=no_punct,
                char_based=char_based,
                case_aware=case_aware,
                bundle=Path(bundle) if bundle is not None else None,
                tokenize=tokenize,
                allow_other_language=allow_other_language,
                strict_modules=strict_modules,
            )
        except BaseException:
            segments.close()
            raise
        _stream(scorer, segments, fmt, quiet, jobs)


def _stream(scorer: "Meteor", segments: "SegmentReader", fmt: str, quiet: bool, jobs: int) -> None:
    """Score ``segments`` block by block, writing each segment's line as it is scored, then the corpus result.

    An error met after some segment lines were written (an input that cannot be read twice
    turning out short or malformed, a bundle changed while scoring) is raised with a note that
    the output is incomplete; the final score is then never written.
    """
    from ..meteor import warn_bounded
    from ..scores import RunningTotal

    out = _Output(scorer, fmt, quiet)
    total = RunningTotal()
    try:
        for seg in scorer.iter_segments(segments, jobs=jobs):
            total.add(seg)
            out.segment(total.count, seg)
    except MeteorLiteError as exc:
        if out.written:
            raise type(exc)(f"{exc} (after {total.count} segment score(s) were written: the output is "
                            "incomplete and has no final score)") from None
        raise
    finally:
        segments.close()
    warn_bounded(total)
    out.finish(scorer.total_score(total), total)


class _Output:
    """Where results go: segment lines as they come (text: stdout, ``-q``: stderr; JSON: spooled), then the end."""

    def __init__(self, scorer: "Meteor", fmt: str, quiet: bool):
        """Nothing is written yet: the text report's header comes with the first segment (an input error found
        before it leaves stdout empty); the JSON document needs the totals first, so its segments are spooled to
        an unnamed temporary file (gone with the process, however it ends)."""
        from ..jarcompat import java_double
        from ..report import segment_line
        from ..scores import segment_json

        self.java_double, self.segment_line, self.segment_json = java_double, segment_line, segment_json
        self.scorer = scorer
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

            sys.stdout.write("\n".join(report_header(self.scorer.config, self.scorer.signature)) + "\n")
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
