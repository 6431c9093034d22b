"""``meteor-lite score``: score a hypothesis file against reference files (``-`` is standard input)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

from ..languages import MODULES, TASKS
from .argtypes import non_negative_int
from .errors import EXIT_USAGE, Parser, fail, reported_errors, warnings_as_lines

if TYPE_CHECKING:  # pragma: no cover
    import argparse

    from ..scores import CorpusScore

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
    p.add_argument("hypothesis", metavar="HYPOTHESIS", help="Hypothesis file, one segment per line (UTF-8); '-': stdin.")
    p.add_argument("references", metavar="REFERENCE", nargs="+", help="Reference file(s): one per reference set.")
    p.add_argument("--lang", "-l", default="en", help="Language code (en cz de es fr ru da fi hu it nl no pt ro se tr ...). Default: en.")
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
    p.add_argument("--format", dest="fmt", choices=FORMATS, default="text",
                   help="text: Meteor 1.5's report; json: every segment's statistics. Default: text.")
    p.add_argument("--quiet", "-q", action="store_true", help="Segment scores to stderr, final score to stdout, nothing else.")
    p.add_argument("--jobs", "-j", type=non_negative_int, default=0,
                   help="Processes to score with (0: one per idle CPU, i.e. CPUs less the load average, at most 4; results do not change). Default: 0.")
    return p


def _floats(opt: str, value: Optional[str]) -> Optional[List[float]]:
    if value is None:
        return None
    try:
        return [float(x) for x in value.replace(",", " ").split()]
    except ValueError:
        raise fail(f"{opt} takes numbers separated by spaces, got {value!r}", EXIT_USAGE) from None


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


def run(argv: List[str]) -> int:
    """``meteor-lite score ARGV...``; return the exit code."""
    a = build_parser().parse_intermixed_args(argv)
    _check_files(a.modules, a.hypothesis, a.references)
    score(
        a.hypothesis, a.references, lang=a.lang, task=a.task, params=a.params, modules=a.modules, weights=a.weights,
        beam=a.beam, norm=a.norm, lower=a.lower, no_punct=a.no_punct, char_based=a.char_based, refs_per_hyp=a.refs_per_hyp,
        case_aware=a.case_aware,
        bundle=a.bundle, tokenize=a.tokenize, allow_other_language=a.allow_other_language,
        fmt=a.fmt, quiet=a.quiet, jobs=a.jobs,
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
    fmt: str = "text",
    quiet: bool = False,
    jobs: int = 0,
) -> None:
    """Score a hypothesis file against one or more reference files and print the result."""
    with reported_errors(), warnings_as_lines():
        from ..meteor import Meteor
        from ..text.io import read_lines, read_references

        hyps = read_lines(hypothesis)
        refs = read_references(references, len(hyps), refs_per_hyp)
        scorer = Meteor(
            lang,
            task=task,
            params=_floats("--params", params),
            modules=[m for group in modules for m in group.replace(",", " ").split()] if modules else None,
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
        )
        result = scorer.score_corpus(hyps, refs, jobs=jobs)
    _write(result, fmt, quiet)


def _write(result: "CorpusScore", fmt: str, quiet: bool) -> None:
    """Print the result: scores only (``quiet``), JSON, or Meteor's text report."""
    if quiet:
        from ..jarcompat import java_double

        for s in result.segments:
            print(java_double(s.score), file=sys.stderr)
        print(java_double(result.score))
        return
    sys.stdout.write(result.format("json" if fmt == "json" else "text"))
