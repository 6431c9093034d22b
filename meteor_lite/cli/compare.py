"""``meteor-lite compare``: is each system better than the baseline? Paired bootstrap and approximate randomization.

Input: ``BASELINE SYSTEM... --refs REF...`` (hypothesis files, the first one the baseline, as sacreBLEU's
``-i``), or ``--tsv FILE`` (a WMT systems file, as ``score --tsv``) with ``--baseline NAME`` (default: the
file's first system).  Every system is scored as ``score --tsv`` scores it (the same corpus scores, bit
for bit); then each is compared with the baseline by the tests of :mod:`meteor_lite.compare.significance`.
The scorer's options are those of ``meteor-lite score``.  :func:`load` is shared with ``meteor-lite report``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from .argtypes import non_negative_int
from .errors import EXIT_USAGE, Parser, fail, reported_errors, warnings_as_lines
from .scorer_options import ScorerOptions, add_scorer_arguments

if TYPE_CHECKING:  # pragma: no cover
    from ..compare.pairing import PairedSegments
    from ..compare.significance import BootstrapResult, PairedSystems, SystemComparison
    from ..meteor import Meteor
    from ..text.wmt import SystemsFile
    from .wmtfile import SystemResult

__all__ = ["run", "build_parser", "add_input_arguments", "load", "Loaded", "text_table", "json_document"]

def add_input_arguments(p: argparse.ArgumentParser) -> None:
    """The inputs (files or ``--tsv``), the choice of systems and the scorer's options (``compare`` and ``report``)."""
    p.add_argument("files", metavar="BASELINE SYSTEM", nargs="*",
                   help="Hypothesis files, one segment per line: the baseline first, then the systems compared with it.")
    p.add_argument("--refs", "-r", nargs="+", metavar="REF", help="Reference file(s), parallel to the hypothesis files.")
    p.add_argument("--names", nargs="+", metavar="NAME", help="Names of BASELINE SYSTEM... (default: the file names).")
    p.add_argument("--tsv", metavar="FILE", help="A WMT systems file (as 'score --tsv') instead of the files.")
    p.add_argument("--baseline", metavar="NAME", help="With --tsv: the baseline system (default: the file's first).")
    p.add_argument("--systems", nargs="+", metavar="NAME", help="With --tsv: the systems to compare (default: all).")
    add_scorer_arguments(p.add_argument_group("scorer", "As for 'meteor-lite score' (its --help says more)."))


def add_test_arguments(p: argparse.ArgumentParser) -> None:
    """The number of bootstrap resamples and AR trials, and the seed."""
    from ..compare.significance import DEFAULT_BOOTSTRAP, DEFAULT_SEED, DEFAULT_TRIALS

    g = p.add_argument_group("tests", "Paired tests against the baseline (docs/compare.md gives the definitions).")
    g.add_argument("--paired-bs-n", "--bootstrap", dest="resamples", type=non_negative_int, default=DEFAULT_BOOTSTRAP,
                   metavar="N", help=f"Bootstrap resamples (0: no bootstrap). Default: {DEFAULT_BOOTSTRAP}.")
    g.add_argument("--paired-ar-n", "--trials", dest="trials", type=non_negative_int, default=DEFAULT_TRIALS,
                   metavar="N", help=f"Approximate randomization trials (0: no AR test). Default: {DEFAULT_TRIALS}.")
    g.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"Seed of the random draws. Default: {DEFAULT_SEED}.")


def build_parser() -> argparse.ArgumentParser:
    """The ``meteor-lite compare`` argument parser."""
    p = Parser(prog="meteor-lite compare",
               description="Is each system better than the baseline? Corpus METEOR of every system, each against the "
               "baseline by paired bootstrap resampling (mean, 95%% interval, p-value) and approximate randomization "
               "(p-value), as sacreBLEU's --paired-bs and --paired-ar; '*' marks p <= 0.05.")
    add_input_arguments(p)
    add_test_arguments(p)
    p.add_argument("--format", dest="fmt", choices=("text", "json"), default="text", help="Output format. Default: text.")
    return p


@dataclass
class Loaded:
    """What ``compare`` and ``report`` work from: the scored systems, paired by segment."""

    scorer: "Meteor"
    data: "SystemsFile"
    baseline: str
    systems: List[str]
    results: Dict[str, "SystemResult"]
    paired: "PairedSegments"
    stats: "PairedSystems"


def _systems_file(a: argparse.Namespace) -> "SystemsFile":
    """The input as a systems file (``--tsv``, or the hypothesis and reference files)."""
    from ..compare.pairing import systems_from_files
    from ..text.io import read_lines
    from .readers import TsvReader, chosen_reader

    if chosen_reader(a) is TsvReader:
        if a.files or a.refs or a.names:
            raise fail("--tsv FILE takes the systems and references from FILE: give no files, --refs or --names",
                       EXIT_USAGE)
        return TsvReader.from_args(a).data
    if a.baseline is not None or a.systems is not None:
        raise fail("--baseline and --systems choose systems of --tsv FILE (with files, the first is the baseline)",
                   EXIT_USAGE)
    if len(a.files) < 2 or not a.refs:
        raise fail("give a BASELINE and at least one SYSTEM, and --refs REF... (or --tsv FILE)", EXIT_USAGE)
    if a.names is not None and len(a.names) != len(a.files):
        raise fail(f"--names gives {len(a.names)} name(s) for {len(a.files)} file(s)", EXIT_USAGE)
    if "-" in [*a.files, *a.refs]:
        raise fail("compare reads files, not standard input (-)", EXIT_USAGE)
    names = a.names or a.files
    return systems_from_files(names, [read_lines(f) for f in a.files], [read_lines(r) for r in a.refs], a.refs)


def load(a: argparse.Namespace) -> Loaded:
    """Read the input, score every system (``score --tsv``'s pass) and pair the segments with the baseline's.

    Call within :func:`reported_errors` and :func:`warnings_as_lines`.
    """
    from ..compare.pairing import pair_segments
    from ..compare.significance import Formula, PairedSystems
    from ..errors import InputError
    from ..scores import SegmentScore
    from .wmtfile import score_systems, warn_self_references

    data = _systems_file(a)
    baseline = a.baseline or data.systems[0]
    for name in [baseline, *(a.systems or [])]:
        if name not in data.systems:
            raise InputError(f"{data.path}: no system {name!r} (systems: {', '.join(data.systems)})")
    systems = [s for s in (a.systems or data.systems) if s != baseline]
    if not systems:
        raise InputError(f"{data.path}: no system to compare with the baseline {baseline!r}")
    if len(systems) + 1 < len(data.systems):  # score only the systems compared
        from dataclasses import replace

        chosen = {baseline, *systems}
        data = replace(data, rows=[r for r in data.rows if r.system in chosen],
                       systems=[s for s in data.systems if s in chosen],
                       self_references={k: v for k, v in data.self_references.items() if k in chosen},
                       identical={k: v for k, v in data.identical.items() if k in chosen})
    warn_self_references(data)
    options = ScorerOptions.from_args(a)
    scorer = options.scorer(data.target_language)
    kept: List[SegmentScore] = []
    results, _ = score_systems(scorer, data, jobs=options.jobs, keep=kept)
    paired = pair_segments(data, kept, baseline, systems)
    stats = PairedSystems(Formula.of(scorer.config), {s: [g.stats for g in paired.segments[s]] for s in [baseline, *systems]})
    return Loaded(scorer, data, baseline, systems, {r.system: r for r in results}, paired, stats)


def compare(loaded: Loaded, a: argparse.Namespace) -> "tuple[Optional[BootstrapResult], List[SystemComparison]]":
    """The tests of every system against the baseline (``a``: the parsed options)."""
    from ..compare.significance import compare_all
    from ..parallel import default_jobs

    jobs = a.jobs or default_jobs()
    scores = {name: r.result.score for name, r in loaded.results.items()}
    return compare_all(loaded.stats, loaded.baseline, loaded.systems, resamples=a.resamples, trials=a.trials,
                       seed=a.seed, jobs=jobs, scores=scores)


def _f(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}f}"


def _p(p: Optional[float], significant: bool) -> str:
    return "-" if p is None else f"{p:.4f}{'*' if significant else ' '}"


def text_table(loaded: Loaded, base: "Optional[BootstrapResult]", rows: "List[SystemComparison]",
               a: argparse.Namespace) -> List[str]:
    """The text table: the baseline, then each system in the order given, with a legend."""
    width = max(8, len(loaded.baseline) + 11, *(len(r.system) for r in rows))
    head = [f"{'System':{width}}  {'METEOR':>8}  {'Delta':>8}"]
    if a.resamples:
        head[0] += f"  {'BS mean':>8}  {'95% interval':>17}  {'BS p':>8}"
    if a.trials:
        head[0] += f"  {'AR p':>8}"
    lines = [f"Baseline:   {loaded.baseline}", f"Segments:   {len(loaded.paired.seg_ids)}",
             f"Signature:  {loaded.scorer.signature}",
             "Tests:      " + ", ".join(t for t in (
                 f"paired bootstrap ({a.resamples} resamples)" if a.resamples else "",
                 f"approximate randomization ({a.trials} trials)" if a.trials else "") if t) + f", seed {a.seed}",
             "", *head]
    bscore = loaded.results[loaded.baseline].result.score
    line = f"{loaded.baseline + ' (baseline)':{width}}  {_f(bscore):>8}  {'':>8}"
    if a.resamples and base is not None:
        line += f"  {_f(base.mean):>8}  [{_f(base.lower)}, {_f(base.upper)}]  {'':>8}"
    if a.trials:
        line += f"  {'':>8}"
    lines.append(line.rstrip())
    for r in rows:
        line = f"{r.system:{width}}  {_f(r.score):>8}  {r.delta:+8.4f}"
        if r.bootstrap is not None:
            b = r.bootstrap
            line += f"  {_f(b.mean):>8}  [{_f(b.lower)}, {_f(b.upper)}]  {_p(b.p_value, b.significant):>8}"
        if r.ar is not None:
            line += f"  {_p(r.ar.p_value, r.ar.significant):>8}"
        lines.append(line.rstrip())
    lines += ["", "Delta: system - baseline (corpus METEOR). BS: paired bootstrap, the mean and 95% interval of the",
              "resampled corpus scores; AR: approximate randomization. * p <= 0.05: a difference unlikely to be chance."]
    return lines


def json_document(loaded: Loaded, base: "Optional[BootstrapResult]", rows: "List[SystemComparison]",
                  a: argparse.Namespace) -> Dict[str, Any]:
    """The JSON document: the tests' settings, the baseline, and each system's result."""
    from dataclasses import asdict

    def boot(b: "Optional[BootstrapResult]") -> Optional[Dict[str, Any]]:
        return None if b is None else {**asdict(b), "significant": b.significant}

    bres = loaded.results[loaded.baseline]
    return {
        "file": loaded.data.path, "segments": len(loaded.paired.seg_ids), "signature": loaded.scorer.signature,
        "seed": a.seed, "resamples": a.resamples, "trials": a.trials, "alpha": 0.05,
        "baseline": {"system": loaded.baseline, "score": bres.result.score, "references": bres.references,
                     "bootstrap": boot(base)},
        "systems": [{"system": r.system, "score": r.score, "delta": r.delta,
                     "references": loaded.results[r.system].references, "bootstrap": boot(r.bootstrap),
                     "ar": None if r.ar is None else {"p_value": r.ar.p_value, "trials": r.ar.trials,
                                                      "significant": r.ar.significant}}
                    for r in rows],
    }


def run(argv: Optional[List[str]] = None) -> int:
    """``meteor-lite compare ARGV...``; return the exit code."""
    a = build_parser().parse_intermixed_args(argv)
    with reported_errors(), warnings_as_lines():
        loaded = load(a)
        base, rows = compare(loaded, a)
    if a.fmt == "json":
        import json

        sys.stdout.write(json.dumps(json_document(loaded, base, rows, a), indent=1, allow_nan=False) + "\n")
    else:
        sys.stdout.write("\n".join(text_table(loaded, base, rows, a)) + "\n")
    return 0
