"""Full-data agreement between meteor-lite and the official Meteor 1.5 jar (``make parity``).

Sets (all from ``../shared/data``):

* ``system1``, ``system2``: ``meteor-example/system*.hyp`` vs ``reference``, ``-l en -norm``;
* ``deen-1ref``: WMT21 de-en, every row except system ``ref-B``, against ``ref_A``;
* ``deen-2ref``: the same rows against ``ref_A`` and ``ref_B`` (two references);
* ``system1-adq``, ``system1-hter``, ``system1-li``, ``system1-tune``: task presets, ``-norm``;
* ``system1-lower``: ``-lower`` without ``-norm``;
* ``system1-util``, ``system1-util-ch``, ``system1-ch``: ``-t util``, ``-t util -ch``, ``-ch`` (``-norm``);
* with ``--extra`` (``make parity`` runs them): WMT21 en-de, de-fr, fr-de (``-m 'exact stem'``), en-cs
  (``-m exact``), en-ru (``-m 'exact stem'``), every system against ``ref_A``, ``-norm``; the biomedical
  MQM development sets en-de, en-es, en-fr, en-ru (every system against the dataset's reference,
  ``-m 'exact stem'``, ``-norm``): new text in every target language with a Meteor stemmer.

For each set: the number of segments, the share whose score is within the
tolerance (1e-6) of the jar's, the share with identical sufficient statistics,
the largest absolute difference, and both final scores.  Differing segments
(id, hyp, refs, both scores, both ``-ssOut`` lines) go to
``bench-out/parity-<name>.jsonl``; a summary to ``bench-out/parity-summary.json``.
Exits 1 if any set agrees on fewer than 99% of its segments.

Jar results are cached (``bench-out/oracle-cache``), so only the first run
pays for Java.

    meteor-build check parity [--data ../shared/data] [--sets system1,deen-2ref]
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ...jar import JarError
from ..paths import BENCH_OUT, ROOT
from ..shared_data import meteor_example, mqm_rows, wmt21_rows
from .jar_output import parse_ss_line
from .oracle import OracleConfig, run_oracle

log = logging.getLogger(__name__)

OUT_DIR = BENCH_OUT
TOL = 1e-6
THRESHOLD = 0.99

#: A data set: segment ids, hypotheses and reference streams.
Data = Tuple[List[str], List[str], List[List[str]]]


@dataclass
class ParitySet:
    """One comparison: a name, a jar configuration and a loader of its data."""

    name: str
    config: OracleConfig
    load: Callable[[Path], Data]


def _example(name: str) -> Callable[[Path], Data]:
    def load(data: Path) -> Data:
        hyps = meteor_example(data, name)
        refs = meteor_example(data, "reference")
        stem = name.split(".")[0]
        return [f"{stem}:{i}" for i in range(len(hyps))], hyps, [refs]

    return load


def _deen(n_refs: int) -> Callable[[Path], Data]:
    def load(data: Path) -> Data:
        rows = [r for r in wmt21_rows(data, "de-en") if r["system"] != "ref-B"]
        if n_refs == 2:
            missing = sum(1 for r in rows if not r["ref_B"])
            if missing:
                log.warning("deen-2ref: %d rows have no ref_B (scored against an empty second reference)", missing)
        ids = [f"de-en:{r['system']}:{r['seg_id']}" for r in rows]
        streams = [[r["ref_A"] for r in rows]]
        if n_refs == 2:
            streams.append([r["ref_B"] for r in rows])
        return ids, [r["hyp"] for r in rows], streams

    return load


SETS: List[ParitySet] = [
    ParitySet("system1", OracleConfig(lang="en", norm=True), _example("system1.hyp")),
    ParitySet("system2", OracleConfig(lang="en", norm=True), _example("system2.hyp")),
    ParitySet("deen-1ref", OracleConfig(lang="en", norm=True), _deen(1)),
    ParitySet("deen-2ref", OracleConfig(lang="en", norm=True), _deen(2)),
    *[ParitySet(f"system1-{t}", OracleConfig(lang="en", task=t, norm=True), _example("system1.hyp"))
      for t in ("adq", "hter", "li", "tune")],
    ParitySet("system1-lower", OracleConfig(lang="en", lower=True), _example("system1.hyp")),
    ParitySet("system1-util", OracleConfig(lang="en", task="util", norm=True), _example("system1.hyp")),
    ParitySet("system1-util-ch", OracleConfig(lang="en", task="util", norm=True, char_based=True),
              _example("system1.hyp")),
    ParitySet("system1-ch", OracleConfig(lang="en", norm=True, char_based=True), _example("system1.hyp")),
]


def _wmt_target(lp: str) -> Callable[[Path], Data]:
    def load(data: Path) -> Data:
        rows = wmt21_rows(data, lp)
        return ([f"{lp}:{r['system']}:{r['seg_id']}" for r in rows], [r["hyp"] for r in rows],
                [[r["ref_A"] for r in rows]])

    return load


def _mqm(name: str) -> Callable[[Path], Data]:
    def load(data: Path) -> Data:
        rows = mqm_rows(data, name)
        return ([f"{name}:{r['system']}:{r['doc']}:{r['seg_id']}" for r in rows], [r["hyp"] for r in rows],
                [[r["ref"] for r in rows]])

    return load


#: Not run by default (``--extra`` or ``--sets``): other target languages, every system of WMT21,
#: with the modules the jar has resources for.
EXTRA_SETS: List[ParitySet] = [
    ParitySet("en-de", OracleConfig(lang="de", norm=True, modules=["exact", "stem"]), _wmt_target("en-de")),
    ParitySet("de-fr", OracleConfig(lang="fr", norm=True, modules=["exact", "stem"]), _wmt_target("de-fr")),
    ParitySet("en-cs", OracleConfig(lang="cz", norm=True, modules=["exact"]), _wmt_target("en-cs")),
    ParitySet("en-ru", OracleConfig(lang="ru", norm=True, modules=["exact", "stem"]), _wmt_target("en-ru")),
    ParitySet("fr-de", OracleConfig(lang="de", norm=True, modules=["exact", "stem"]), _wmt_target("fr-de")),
    *[ParitySet(f"biomed-{lp}", OracleConfig(lang=lp[3:], norm=True, modules=["exact", "stem"]), _mqm(f"biomed2021.{lp}.dev.mqm"))
      for lp in ("en-de", "en-es", "en-fr", "en-ru")],
]


class UnknownSetError(ValueError):
    """``--sets`` names a set that does not exist."""


def choose_sets(names: Optional[str], extra: bool) -> List[ParitySet]:
    """The sets to run: the default ones (plus :data:`EXTRA_SETS` with ``extra``), or the comma-separated ``names``."""
    sets = SETS + (EXTRA_SETS if extra else [])
    if names:
        want = names.split(",")
        every = SETS + EXTRA_SETS
        unknown = set(want) - {s.name for s in every}
        if unknown:
            raise UnknownSetError(f"unknown set(s): {', '.join(sorted(unknown))}")
        sets = [s for s in every if s.name in want]
    return sets


def _differing(ids: Sequence[str], hyps: Sequence[str], streams: Sequence[Sequence[str]], i: int,
               jar_score: float, jar_ss: str, our_score: float, our_ss: str, d: float) -> Dict[str, object]:
    return {
        "id": ids[i],
        "hyp": hyps[i],
        "refs": [s[i] for s in streams],
        "jar_score": jar_score,
        "our_score": our_score,
        "abs_diff": d,
        "jar_ss": jar_ss,
        "our_ss": our_ss,
    }


def compare_set(ps: ParitySet, data_dir: Path, out_dir: Path, tol: float = TOL,
                limit: Optional[int] = None) -> Dict[str, Any]:
    """Run both sides on one set, write its differing segments, return its summary row."""
    from meteor_lite import Meteor

    ids, hyps, streams = ps.load(data_dir)
    if limit:
        ids, hyps, streams = ids[:limit], hyps[:limit], [s[:limit] for s in streams]
    t0 = time.perf_counter()
    jar = run_oracle(hyps, streams, ps.config, with_ss=True)
    t_jar = time.perf_counter() - t0
    assert jar.ss_lines is not None

    t0 = time.perf_counter()
    m = Meteor(quiet=True, **ps.config.meteor_kwargs())
    corpus = m.score_corpus(hyps, streams, layout="streams")
    t_ours = time.perf_counter() - t0

    n = len(hyps)
    within = ss_same = 0
    max_diff = 0.0
    diffs: List[Dict[str, object]] = []
    for i in range(n):
        seg = corpus.segments[i]
        ours_ss = seg.stats.to_ss_line()
        d = abs(seg.score - jar.segment_scores[i])
        if math.isnan(d):
            d = math.inf
        max_diff = max(max_diff, d)
        ok_score = d <= tol
        ok_ss = parse_ss_line(ours_ss) == parse_ss_line(jar.ss_lines[i])
        within += ok_score
        ss_same += ok_ss
        if not (ok_score and ok_ss):
            diffs.append(_differing(ids, hyps, streams, i, jar.segment_scores[i], jar.ss_lines[i], seg.score, ours_ss, d))
    out_dir.mkdir(parents=True, exist_ok=True)
    diff_file = out_dir / f"parity-{ps.name}.jsonl"
    with open(diff_file, "w", encoding="utf-8") as f:
        for d_ in diffs:
            f.write(json.dumps(d_, ensure_ascii=False) + "\n")
    return {
        "set": ps.name,
        "jar_args": jar.args + (["-r", str(len(streams))] if len(streams) > 1 else []),
        "segments": n,
        "within_tol": within,
        "share_within_tol": within / n if n else 1.0,
        "ss_identical": ss_same,
        "share_ss_identical": ss_same / n if n else 1.0,
        "max_abs_diff": max_diff,
        "jar_final": jar.final_score,
        "our_final": corpus.score,
        "final_abs_diff": abs(corpus.score - jar.final_score),
        "differing_file": str(diff_file.relative_to(ROOT)) if diff_file.is_relative_to(ROOT) else str(diff_file),
        "seconds_jar": round(t_jar, 2),
        "jar_cached": jar.cached,
        "seconds_ours": round(t_ours, 2),
    }


def format_table(rows: Sequence[Dict[str, Any]], tol: float) -> str:
    """The summary table (printed on stdout by the command)."""
    head = (f"{'set':16s} {'segs':>6s} {'score<=' + format(tol, 'g'):>11s} {'ss same':>8s} "
            f"{'max |diff|':>10s} {'jar final':>20s} {'ours final':>20s} {'ours s':>7s}")
    out = [head, "-" * len(head)]
    for r in rows:
        out.append(f"{r['set']:16s} {r['segments']:6d} {100 * r['share_within_tol']:10.2f}% "
                   f"{100 * r['share_ss_identical']:7.2f}% {r['max_abs_diff']:10.3g} "
                   f"{r['jar_final']!r:>20} {r['our_final']!r:>20} {r['seconds_ours']:7.1f}")
    return "\n".join(out)


def run_parity(sets: Sequence[ParitySet], data: Path, out: Path = OUT_DIR, tol: float = TOL,
               threshold: float = THRESHOLD, limit: Optional[int] = None) -> int:
    """Compare every set, print the table, write the summary; the exit status (0, 1 below ``threshold``, 2 on errors)."""
    rows = []
    for ps in sets:
        log.info("%s: %s ...", ps.name, " ".join(ps.config.jar_args()))
        try:
            rows.append(compare_set(ps, data, out, tol, limit))
        except (JarError, FileNotFoundError) as e:
            log.error("error: %s: %s", ps.name, e)
            return 2
    print(format_table(rows, tol))
    out.mkdir(parents=True, exist_ok=True)
    (out / "parity-summary.json").write_text(
        json.dumps({"tolerance": tol, "threshold": threshold, "sets": rows}, indent=1) + "\n",
        encoding="utf-8")
    bad = [r["set"] for r in rows if r["share_within_tol"] < threshold]
    if bad:
        log.error("FAIL: below %g%% agreement: %s (differing segments in %s/parity-<set>.jsonl)",
                  100 * threshold, ", ".join(bad), out)
        return 1
    log.info("OK: every set at or above %g%% agreement", 100 * threshold)
    return 0
