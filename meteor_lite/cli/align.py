"""``meteor-lite align``: which words matched, by which module, line by line (Meteor 1.5's aligner).

Text output is the format of the jar's aligner (``java -cp meteor-1.5.jar Matcher``): per segment
``Alignment N``, the hypothesis and reference tokens, a column header and one row per match
(``refStart:len``, ``hypStart:len``, module index in the module list, score ``1.0``), in reference
order, then an empty line.  ``--format json`` writes one JSON object per segment (JSON Lines) with the
tokens, each match with its module name and words, the chunks, the statistics and the score.
``--format html`` writes one self-contained HTML page of all segments (:mod:`meteor_lite.alignview`:
words coloured by module, chunks, P, R, fragmentation penalty, score, the alignment matrix).
``--out FILE`` writes to FILE instead of stdout.
``--type maxacc`` gives the aligner's maximum-accuracy alignment (:mod:`meteor_lite.align.maxacc`) instead
of ``maxcov``, the one Meteor scores with.
"""

from __future__ import annotations

import json
import sys
from typing import IO, TYPE_CHECKING, Any, Dict, List, Optional, Sequence

from ..align.maxacc import ALIGN_TYPES
from ..errors import InputError
from .errors import Parser, reported_errors
from .scorer_options import ScorerOptions, add_scorer_arguments

if TYPE_CHECKING:  # pragma: no cover
    import argparse

    from ..meteor import Meteor
    from ..scores import SegmentScore

__all__ = ["run", "build_parser", "alignment_record", "matcher_block"]

FORMATS = ("text", "json", "html")
#: The scorer's options that ``align`` offers (the others do not change an alignment, or it has no use for them).
ALIGN_SCORER_OPTIONS = ("lang", "task", "modules", "beam", "norm", "lower", "no_punct", "case_aware", "bundle")


def build_parser() -> "argparse.ArgumentParser":
    """The ``meteor-lite align`` argument parser."""
    p = Parser(
        prog="meteor-lite align",
        description="Which words matched, by which module, line by line (Meteor 1.5's aligner). Text output is the "
        "format of the jar's aligner (java -cp meteor-1.5.jar Matcher); --format json writes one JSON object per "
        "segment, --format html one self-contained page of all segments.",
    )
    p.add_argument("hypothesis", metavar="HYPOTHESIS", help="Hypothesis file, one segment per line (UTF-8); '-': stdin.")
    p.add_argument("reference", metavar="REFERENCE", help="Reference file, parallel to HYPOTHESIS.")
    add_scorer_arguments(p, only=ALIGN_SCORER_OPTIONS, changes={
        "lang": {"default": "en", "help": "Language code. Default: en."},
        "modules": {"action": "store", "help": "Matchers, in order (quoted list). Default: the language's."},
        "task": {"names": ("--task",), "metavar": "NAME",
                 "help": "Task whose modules align (as meteor-lite score --task; a tuned set such as mqm brings its "
                         "normalisation when none is chosen). Default: the language's."},
        "case_aware": {"help": "Keep the case (as meteor-lite score --case-aware): exact matches are case-sensitive, "
                               "stem, synonym and paraphrase match across case."},
        "bundle": {"help": "Resource bundle (default: the language's)."},
    })
    p.add_argument("--type", "-t", dest="align_type", default="maxcov", choices=ALIGN_TYPES,
                   help="Alignment type, as the jar's Matcher: maxcov (maximum coverage: the alignment Meteor scores "
                        "with) or maxacc (maximum accuracy: one-word matches before paraphrases; the statistics "
                        "shown are those of that alignment). Default: maxcov.")
    p.add_argument("--format", dest="fmt", choices=FORMATS, default="text",
                   help="text: the jar aligner's format; json: one JSON object per segment; "
                        "html: one self-contained page. Default: text.")
    p.add_argument("--out", "-o", metavar="FILE", help="Write to FILE (UTF-8) instead of stdout.")
    p.add_argument("--title", default="Meteor alignments", help="Title of the HTML page.")
    p.add_argument("--matrix", choices=("auto", "always", "never"), default="auto",
                   help="HTML: alignment matrices per segment (auto: for at most 200 segments). Default: auto.")
    return p


def matcher_block(n: int, seg: "SegmentScore", hyp: Sequence[str], ref: Sequence[str]) -> str:
    """One segment in the format of the jar's ``Matcher`` (ends with the empty separator line)."""
    lines = [f"Alignment {n}", " ".join(hyp), " ".join(ref), "Line2Start:Length\tLine1Start:Length\tModule\t\tScore"]
    for module, rstart, rlen, hstart, hlen in sorted(seg.alignment, key=lambda t: (t[1], t[3])):
        lines.append(f"{rstart}:{rlen}\t\t\t{hstart}:{hlen}\t\t\t{module}\t\t1.0")
    return "\n".join(lines) + "\n\n"


def alignment_record(n: int, seg: "SegmentScore", hyp: Sequence[str], ref: Sequence[str],
                     modules: Sequence[str]) -> Dict[str, Any]:
    """One segment as a JSON-ready dict: tokens, matches (module, spans, words), chunks, statistics, score."""
    matches = []
    for module, rstart, rlen, hstart, hlen in sorted(seg.alignment, key=lambda t: (t[1], t[3])):
        matches.append({
            "module": modules[module],
            "hyp": [hstart, hlen],
            "ref": [rstart, rlen],
            "hyp_words": " ".join(hyp[hstart : hstart + hlen]),
            "ref_words": " ".join(ref[rstart : rstart + rlen]),
        })
    d = seg.to_dict()
    return {"segment": n, "hyp_tokens": list(hyp), "ref_tokens": list(ref), "matches": matches,
            "chunks": seg.stats.chunks, "score": d["score"], "precision": d["precision"], "recall": d["recall"],
            "frag_penalty": d["frag_penalty"], "stats": d["stats"]}


def maxacc_segment(scorer: "Meteor", hyp: List[str], ref: List[str]) -> "SegmentScore":
    """The jar aligner's ``maxacc`` alignment of two token lists (:mod:`meteor_lite.align.maxacc`), with the
    statistics and score of that alignment under the scorer's parameters (Meteor scores with ``maxcov``)."""
    from ..align.maxacc import maxacc_alignment
    from ..scores import SegmentScore
    from ..scoring import alignment_stats, config_metrics
    from ..text.normalize import java_lower

    cfg, res = scorer.config, scorer.resources
    folded = ([java_lower(w) for w in hyp], [java_lower(w) for w in ref]) if cfg.case_aware else None
    matches, bounded = maxacc_alignment(hyp, ref, cfg.modules, res, cfg.beam, folded)
    st = alignment_stats(hyp, ref, matches, cfg, res)
    m = config_metrics(cfg, st)
    return SegmentScore(m.score, m.precision, m.recall, m.f1, m.fmean, m.frag_penalty, st, 0,
                        [x.as_tuple() for x in matches], bounded)


def _write(out: IO[str], scorer: "Meteor", hyps: List[str], refs: List[str], args: "argparse.Namespace") -> None:
    """Align every segment and write it in ``args.fmt`` (HTML: one page once all segments are aligned)."""
    modules = scorer.config.modules
    records: List[Dict[str, Any]] = []
    segs: List["SegmentScore"] = []
    for i, (h, r) in enumerate(zip(hyps, refs), 1):
        hyp, ref = scorer.tokens(h), scorer.tokens(r)
        scorer.prefetch([hyp, ref])
        seg = scorer.score_tokens(hyp, [ref]) if args.align_type == "maxcov" else maxacc_segment(scorer, hyp, ref)
        if args.fmt == "json":
            out.write(json.dumps(alignment_record(i, seg, hyp, ref, modules), ensure_ascii=False) + "\n")
        elif args.fmt == "html":
            records.append(alignment_record(i, seg, hyp, ref, modules))
            segs.append(seg)
        else:
            out.write(matcher_block(i, seg, hyp, ref))
    if args.fmt == "html":
        from ..alignview import render_html

        corpus = scorer.aggregate(segs).score if segs else None
        out.write(render_html(records, modules, title=args.title, signature=scorer.signature,
                              corpus_score=corpus, sources=(args.hypothesis, args.reference),
                              matrix={"auto": None, "always": True, "never": False}[args.matrix]))


def run(argv: Optional[List[str]] = None) -> int:
    """Run ``meteor-lite align`` with ``argv``; the exit code."""
    args = build_parser().parse_args(argv)
    with reported_errors():
        from ..text.io import read_lines

        hyps = read_lines("/dev/stdin" if args.hypothesis == "-" else args.hypothesis)
        refs = read_lines(args.reference)
        if len(hyps) != len(refs):
            raise InputError(f"{args.reference}: {len(refs)} lines, but the hypothesis file has {len(hyps)}")
        scorer = ScorerOptions.from_args(args).scorer(quiet=True)  # the aligner's output is the alignment
        if args.out is None:
            _write(sys.stdout, scorer, hyps, refs, args)
            return 0
        from ..atomicfile import output_file

        try:
            with output_file(args.out, inputs=[args.hypothesis, args.reference]) as out:
                _write(out, scorer, hyps, refs, args)
        except OSError as exc:
            raise InputError(f"{args.out}: cannot write ({exc.strerror or exc})") from exc
    return 0

