"""Request rates of a tuning loop: the ``-stdio`` servers of the jar and meteor-lite, and the Python API.

meteor-lite's server runs with the compiled kernels (``make accel``) and again in pure
Python (``METEOR_LITE_PURE=1``).  The transcript is what pycocoevalcap and MT tuners send: one
``SCORE ||| ref ||| hyp`` request per segment (the first ``--requests``
system1 hypotheses with their references, raw text, ``-l en -norm``), each
answer awaited before the next request, then one ``EVAL ||| stats_1 ||| ...``
request with every statistics line received (answered by n+1 lines).  The rate
is SCORE requests per second from the second request to the last answer (the
median, 95th percentile and largest latency per request go to bench.json); the
time from starting the program to the first answer (JVM or Python start-up,
resource loading) is reported apart.  The EVAL request is not in the rate.
The answers of both servers are compared line by line: the drop-in must answer
what the jar answers.

The API rate: ``Meteor("en", norm=True).score_segment(hyp, [ref])`` in this
process over the same pairs (construction and the first call reported apart),
its statistics compared with the jar's answers; and the batch rate: the same pairs
but the first in one ``Meteor.score_pairs`` call by a fresh scorer (see docs/pairwise.md).
Both again with ``preload=True`` (the bundle's tables read into memory at construction,
as the jar reads its own).  With ``--transcript mbr`` (minimum-Bayes-risk groups: the
20 WMT21 de-en outputs of a source segment, each against each), also
``Meteor.score_matrix`` of each group, on the very pairs the jar answered.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import statistics
import time
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ... import jar as jarmod
from ..shared_data import SharedDataError, wmt21_rows
from .options import BenchError, BenchOptions, console_script, jvm_lock
from .session import RequestTimeout, ServerDied, StdioSession
from .table import Row

log = logging.getLogger(__name__)

#: The goal of the stdio server and of score_segment: at least 5x the jar's requests per second.
RATE_MIN = 5.0
#: The goal of the batch API (:meth:`meteor_lite.Meteor.score_pairs`): at least 10x the jar's rate.
BATCH_RATE_MIN = 10.0
STDIO_ARGS = ["-", "-", "-stdio", "-l", "en", "-norm"]


#: ``--transcript``: system1 (the goals': every request a new sentence pair) or nbest (what a
#: tuning loop's n-best list sends: many hypotheses of one source in turn against the same reference).
TRANSCRIPTS = ("system1", "nbest", "mbr")
#: Systems per source segment in the n-best transcript (WMT21 de-en has 20).
NBEST_SYSTEMS = 20


def transcript_pairs(a: BenchOptions) -> List[Tuple[str, str]]:
    """The (hypothesis, reference) pairs of ``a.transcript``, ``a.requests`` of them (``mbr``: whole groups,
    ``a.requests`` rounded up)."""
    if a.transcript == "mbr":
        return [p for group in mbr_groups(a) for p in _each_against_each(group)]
    return nbest_pairs(a) if a.transcript == "nbest" else system1_pairs(a)


def _nbest_lists(a: BenchOptions) -> List[List[Tuple[str, str]]]:
    """WMT21 de-en segments that have the outputs of all 20 systems (segment order): each one's
    (output, reference A) pairs, systems by name."""
    try:
        rows = wmt21_rows(a.data, "de-en")
    except (OSError, SharedDataError) as e:
        raise BenchError(f"{e} (pass --data ../shared/data)") from None
    by_segment: Dict[str, Dict[str, Tuple[str, str]]] = {}
    for r in rows:
        if "|||" not in r["hyp"] + r["ref_A"]:
            by_segment.setdefault(r["seg_id"], {}).setdefault(r["system"], (r["hyp"], r["ref_A"]))
    return [[p for _, p in sorted(by_segment[seg].items())] for seg in sorted(by_segment, key=int)
            if len(by_segment[seg]) == NBEST_SYSTEMS]


def mbr_groups(a: BenchOptions) -> List[List[str]]:
    """Minimum-Bayes-risk groups: the 20 outputs of a WMT21 de-en source segment (:func:`_nbest_lists`), as
    many groups as ``a.requests`` pairs need (each group gives 400: every output against every output)."""
    lists = _nbest_lists(a)
    wanted = -(-a.requests // (NBEST_SYSTEMS * NBEST_SYSTEMS))
    if len(lists) < wanted:
        raise BenchError(f"the MBR transcript has {len(lists)} groups, fewer than --requests {a.requests:,} needs")
    return [[hyp for hyp, _ in pairs] for pairs in lists[:wanted]]


def _each_against_each(group: List[str]) -> List[Tuple[str, str]]:
    """(hypothesis, pseudo-reference) in :meth:`Meteor.score_matrix`'s order: row by row."""
    return [(h, r) for h in group for r in group]


def nbest_pairs(a: BenchOptions) -> List[Tuple[str, str]]:
    """WMT21 de-en like an n-best list: the 20 systems' outputs of each source segment (those that have
    all 20, in segment order, systems by name) against its reference A, the first ``a.requests``."""
    pairs = [p for pairs in _nbest_lists(a) for p in pairs]
    if len(pairs) < a.requests:
        raise BenchError(f"the n-best transcript has {len(pairs):,} requests, fewer than --requests {a.requests:,}")
    return pairs[:a.requests]


def system1_pairs(a: BenchOptions) -> List[Tuple[str, str]]:
    """(hypothesis, reference) of the first ``a.requests`` system1 segments without ``|||`` in them."""
    d = a.data / "meteor-example"
    try:
        hyps = (d / a.hyp).read_text(encoding="utf-8").splitlines()
        refs = (d / "reference").read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise BenchError(f"{e.filename}: {e.strerror} (pass --data ../shared/data)") from None
    pairs = [(h, r) for h, r in zip(hyps, refs) if "|||" not in h + r]
    if len(pairs) < a.requests:
        pairs = (pairs * (a.requests // max(1, len(pairs)) + 1))
    return pairs[:a.requests]


def _serve_transcript(tool: str, cmd: List[str], pairs: List[Tuple[str, str]], a: BenchOptions) -> Dict[str, Any]:
    lock = jvm_lock(a) if tool == "jar" else contextlib.nullcontext()
    with lock, StdioSession(cmd, a.out / f"stdio-{tool}.err") as s:
        answers: List[str] = []
        latencies: List[float] = []
        t_second = 0.0
        for k, (hyp, ref) in enumerate(pairs):
            if k == 1:
                t_second = time.perf_counter()
            got, seconds = s.request(f"SCORE ||| {ref} ||| {hyp}", 1, a.timeout)
            if k == 0:
                first = time.perf_counter() - s.started
            else:
                latencies.append(seconds)
            answers.extend(got)
        t_end = time.perf_counter()
        evals, eval_s = s.request("EVAL ||| " + " ||| ".join(answers), len(answers) + 1, a.timeout)
        rc = s.close()
    rate = (len(pairs) - 1) / (t_end - t_second) if len(pairs) > 1 else None
    return {"first_answer_s": first, "requests_per_s": rate, "score_requests": len(pairs), "eval_s": eval_s,
            "exit_status": rc, "latency_ms": _latency_ms(latencies), "answers": answers + evals}


def _latency_ms(seconds: List[float]) -> Optional[Dict[str, float]]:
    """Median, 95th percentile and maximum of the request times, in milliseconds (None without requests)."""
    if not seconds:
        return None
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return {"median": 1000 * statistics.median(ordered), "p95": 1000 * p95, "max": 1000 * ordered[-1]}


def _compare(jar: List[str], lite: List[str]) -> Dict[str, Any]:
    """Line by line; ``ulp_lines``: of the lines that differ, those holding two numbers at most
    :data:`ULPS` units in the last place apart (a score whose ``Math.pow`` the JVM rounded the other way:
    README, "Deliberate differences")."""
    diff = [i for i, (x, y) in enumerate(zip(jar, lite)) if x != y]
    first = None if not diff else {"line": diff[0] + 1, "jar": jar[diff[0]], "meteor-lite": lite[diff[0]]}
    ulp = sum(1 for i in diff if _last_place_apart(jar[i], lite[i]))
    return {"lines": len(jar), "same_count": len(jar) == len(lite), "different_lines": len(diff), "ulp_lines": ulp,
            "first_difference": first}


#: Units in the last place a score may move when its ``Math.pow`` is one unit off (times gamma, 1 - pen, fmean).
ULPS = 4


def _last_place_apart(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` are two different numbers at most :data:`ULPS` units in the last place apart."""
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    return x != y and abs(x - y) <= ULPS * math.ulp(max(abs(x), abs(y)))


def run_stdio(a: BenchOptions) -> Dict[str, Any]:
    """Run the transcript through both servers; rates, start-up times and the comparison of the answers."""
    try:
        pairs = transcript_pairs(a)
        lite = [console_script("meteor-jar"), *STDIO_ARGS]
        cmds = {"jar": jarmod.jar_command(STDIO_ARGS, heap="2G"), "meteor-lite": lite,
                "pure": ["env", "METEOR_LITE_PURE=1", *lite], "preload": ["env", "METEOR_LITE_PRELOAD=1", *lite]}
    except (BenchError, jarmod.JarError) as e:
        return {"error": str(e)}
    out: Dict[str, Any] = {"transcript": a.transcript, "commands": {k: " ".join(v) for k, v in cmds.items()}}
    for tool, cmd in cmds.items():
        try:
            out[tool] = _serve_transcript(tool, cmd, pairs, a)
        except (ServerDied, RequestTimeout) as e:
            out[tool] = {"error": str(e)}
            continue
        log.info("stdio %-12s first answer %.2f s, %.1f SCORE requests/s", tool, out[tool]["first_answer_s"],
                 out[tool]["requests_per_s"] or 0.0)
    for tool, key in (("meteor-lite", "comparison"), ("pure", "comparison_pure"), ("preload", "comparison_preload")):
        if "answers" in out["jar"] and "answers" in out[tool]:
            out[key] = _compare(out["jar"]["answers"], out[tool]["answers"])
    return out


def run_api(a: BenchOptions, jar_answers: Optional[List[str]]) -> Dict[str, Any]:
    """``Meteor.score_segment`` calls per second in this process; statistics compared with the jar's stdio answers."""
    try:
        pairs = transcript_pairs(a)
    except BenchError as e:
        return {"error": str(e)}
    res = _call_rate(pairs, jar_answers)
    from meteor_lite.parallel import usable_cpus

    res["usable_cpus"] = usable_cpus()
    res["batch"] = _batch_rate(pairs, jar_answers)
    with _one_thread():
        res["batch_one_thread"] = _batch_rate(pairs, jar_answers)
    res["preload"] = _preload_rates(pairs, jar_answers)
    if a.transcript == "mbr":
        res["matrix"] = _matrix_rate(mbr_groups(a), jar_answers)
        with _one_thread():
            res["matrix_one_thread"] = _matrix_rate(mbr_groups(a), jar_answers)
    return res


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """The batch calls inside kept in one thread (``METEOR_LITE_ONE_THREAD=1``; by default a call of many pairs aligns
    them in a second thread when the process may use two CPUs: docs/pairwise.md)."""
    from meteor_lite.pairwise import ONE_THREAD_ENV

    before = os.environ.get(ONE_THREAD_ENV)
    os.environ[ONE_THREAD_ENV] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ[ONE_THREAD_ENV]
        else:
            os.environ[ONE_THREAD_ENV] = before


def _call_rate(pairs: List[Tuple[str, str]], jar_answers: Optional[List[str]], preload: bool = False) -> Dict[str, Any]:
    """``score_segment`` by a fresh scorer, one call per pair: construction and the first call timed apart, then
    calls per second over the other pairs; statistics compared with the jar's answers."""
    from meteor_lite import Meteor

    t0 = time.perf_counter()
    m = Meteor("en", norm=True, quiet=True, preload=preload)
    construct = time.perf_counter() - t0
    stats = [m.score_segment(pairs[0][0], [pairs[0][1]]).stats.to_ss_line()]
    first = time.perf_counter() - t0
    t1 = time.perf_counter()
    for hyp, ref in pairs[1:]:
        stats.append(m.score_segment(hyp, [ref]).stats.to_ss_line())
    elapsed = time.perf_counter() - t1
    res: Dict[str, Any] = {"construct_s": construct, "first_call_s": first, "calls": len(pairs),
                           "calls_per_s": (len(pairs) - 1) / elapsed if len(pairs) > 1 and elapsed > 0 else None}
    if jar_answers:
        res["comparison_with_jar"] = _compare(jar_answers[:len(stats)], stats)
    return res


def _preload_rates(pairs: List[Tuple[str, str]], jar_answers: Optional[List[str]]) -> Dict[str, Any]:
    """The per-call and batch rates again with ``Meteor(..., preload=True)`` (construction, which reads the tables
    into memory, reported apart; the batch by a second such scorer)."""
    out = _call_rate(pairs, jar_answers, preload=True)
    out["batch"] = _batch_rate(pairs, jar_answers, preload=True)
    return out


def _matrix_rate(groups: List[List[str]], jar_answers: Optional[List[str]]) -> Dict[str, Any]:
    """``Meteor.score_matrix(group, group)`` of each MBR group by a fresh scorer (the first pair scored
    apart, as for the other rates): pairs per second, statistics compared with the jar's answers."""
    from meteor_lite import Meteor

    m = Meteor("en", norm=True, quiet=True)
    m.score_segment(groups[0][0], [groups[0][0]])
    t0 = time.perf_counter()
    matrices = [m.score_matrix(g, g) for g in groups]
    elapsed = time.perf_counter() - t0
    n = sum(len(g) * len(g) for g in groups)
    out: Dict[str, Any] = {"pairs": n, "groups": len(groups), "pairs_per_s": n / elapsed if elapsed > 0 else None}
    if jar_answers:
        lines = [s.stats.to_ss_line() for mat in matrices for row in mat for s in row]
        out["comparison_with_jar"] = _compare(jar_answers[:len(lines)], lines)
    return out


def _batch_rate(pairs: List[Tuple[str, str]], jar_answers: Optional[List[str]], preload: bool = False) -> Dict[str, Any]:
    """``Meteor.score_pairs`` over the same pairs (but the first) in one call, by a fresh scorer (cold
    caches, as the per-call rate): pairs per second, statistics compared with the jar's answers."""
    from meteor_lite import Meteor

    m = Meteor("en", norm=True, quiet=True, preload=preload)
    # the first pair apart, as the per-call rate leaves out the first call (one-time costs)
    first = m.score_segment(pairs[0][0], [pairs[0][1]])
    t0 = time.perf_counter()
    scores = [first, *m.score_pairs(pairs[1:])]
    elapsed = time.perf_counter() - t0
    out: Dict[str, Any] = {"pairs": len(pairs) - 1, "pairs_per_s": (len(pairs) - 1) / elapsed if elapsed > 0 else None}
    if jar_answers:
        out["comparison_with_jar"] = _compare(jar_answers[:len(scores)], [s.stats.to_ss_line() for s in scores])
    return out


def _agreement(cmp: Optional[Dict[str, Any]]) -> str:
    if not cmp:
        return ""
    if cmp["different_lines"] == 0 and cmp["same_count"]:
        return f"answers identical to the jar's ({cmp['lines']:,} lines)"
    if cmp["same_count"] and cmp.get("ulp_lines") == cmp["different_lines"]:
        return (f"answers identical to the jar's ({cmp['lines']:,} lines) but {cmp['different_lines']:,} score(s) a unit or two "
                "in the last place apart (the JVM's Math.pow is not correctly rounded; README, Deliberate differences)")
    return f"{cmp['different_lines']:,} of {cmp['lines']:,} answer lines differ from the jar's (first: line {cmp['first_difference']})"


def rows(stdio: Optional[Dict[str, Any]], api: Optional[Dict[str, Any]]) -> List[Row]:
    """Table rows: stdio requests per second and time to first answer; API calls per second against the jar's stdio rate."""
    out: List[Row] = []
    jar = (stdio or {}).get("jar", {})
    if stdio is not None:
        lite = stdio.get("meteor-lite", {})
        err = stdio.get("error") or jar.get("error") or lite.get("error") or ""
        n = lite.get("score_requests") or jar.get("score_requests") or 0
        note = err or _agreement(stdio.get("comparison"))
        if jar.get("latency_ms") and lite.get("latency_ms"):
            note += (f"; median latency {jar['latency_ms']['median']:.2f} ms (jar), "
                     f"{lite['latency_ms']['median']:.2f} ms (meteor-lite)")
        kind = "" if stdio.get("transcript", "system1") == "system1" else f" {stdio['transcript']}"
        out.append(Row(f"stdio SCORE requests/s ({n:,}-request{kind} transcript)", "req/s", jar.get("requests_per_s"),
                       lite.get("requests_per_s"), (">=", RATE_MIN), note=note))
        out.append(Row("stdio time to first answer (start-up)", "s", jar.get("first_answer_s"), lite.get("first_answer_s")))
        pure = stdio.get("pure")
        if pure is not None:  # older bench.json files have no pure-Python run
            out.append(Row("stdio SCORE requests/s, pure Python", "req/s", jar.get("requests_per_s"),
                           pure.get("requests_per_s"), note=pure.get("error") or _agreement(stdio.get("comparison_pure"))))
        held = stdio.get("preload")
        if held is not None:  # older bench.json files have no such run
            note = held.get("error") or _agreement(stdio.get("comparison_preload"))
            if held.get("first_answer_s") is not None:
                note += f"; first answer after {held['first_answer_s']:.2f} s (the tables read first)"
            out.append(Row("stdio SCORE requests/s, METEOR_LITE_PRELOAD=1", "req/s", jar.get("requests_per_s"),
                           held.get("requests_per_s"), (">=", RATE_MIN), note=note))
    if api is not None:
        note = api.get("error") or _agreement(api.get("comparison_with_jar"))
        if api.get("construct_s") is not None:
            note = (note + "; " if note else "") + f"Meteor(...) built in {api['construct_s']:.2f} s, first call after {api['first_call_s']:.2f} s"
        out.append(Row("API score_segment calls/s (jar: stdio req/s)", "calls/s", jar.get("requests_per_s"),
                       api.get("calls_per_s"), (">=", RATE_MIN), note=note))
        batch = api.get("batch")
        if batch is not None:  # older bench.json files have no batch run
            out.append(Row(f"API score_pairs pairs/s, {batch['pairs']:,} pairs in one call (jar: stdio req/s)", "pairs/s",
                           jar.get("requests_per_s"), batch.get("pairs_per_s"), (">=", BATCH_RATE_MIN),
                           note=_notes(_agreement(batch.get("comparison_with_jar")), _threads_note(api))))
        alone = api.get("batch_one_thread")
        if alone is not None:  # older bench.json files have no such run
            out.append(Row("API score_pairs pairs/s, one thread (METEOR_LITE_ONE_THREAD=1)", "pairs/s",
                           jar.get("requests_per_s"), alone.get("pairs_per_s"),
                           note=_agreement(alone.get("comparison_with_jar"))))
        out.extend(_preload_rows(api.get("preload"), jar))
        matrix = api.get("matrix")
        if matrix is not None:
            out.append(Row(f"API score_matrix pairs/s, {matrix['groups']} MBR groups of {NBEST_SYSTEMS} (jar: stdio req/s)",
                           "pairs/s", jar.get("requests_per_s"), matrix.get("pairs_per_s"), (">=", BATCH_RATE_MIN),
                           note=_notes(_agreement(matrix.get("comparison_with_jar")), _threads_note(api))))
        alone = api.get("matrix_one_thread")
        if alone is not None:
            out.append(Row("API score_matrix pairs/s, one thread (METEOR_LITE_ONE_THREAD=1)", "pairs/s",
                           jar.get("requests_per_s"), alone.get("pairs_per_s"),
                           note=_agreement(alone.get("comparison_with_jar"))))
    return out


def _threads_note(api: Dict[str, Any]) -> str:
    """How many threads the batch calls aligned in (bench.json files before the second thread say nothing)."""
    cpus = api.get("usable_cpus")
    if cpus is None:
        return ""
    return "pairs aligned in a second thread (two usable CPUs or more)" if cpus > 1 else "one thread (one usable CPU)"


def _notes(*parts: str) -> str:
    """The non-empty notes of a row, joined."""
    return "; ".join(p for p in parts if p)


def _preload_rows(pre: Optional[Dict[str, Any]], jar: Dict[str, Any]) -> List[Row]:
    """The rows of :func:`_preload_rates` (none in older bench.json files)."""
    if pre is None:
        return []
    note = _agreement(pre.get("comparison_with_jar"))
    note = (note + "; " if note else "") + f"Meteor(..., preload=True) built in {pre['construct_s']:.2f} s"
    out = [Row("API score_segment calls/s, preload=True (jar: stdio req/s)", "calls/s", jar.get("requests_per_s"),
               pre.get("calls_per_s"), (">=", RATE_MIN), note=note)]
    batch = pre.get("batch")
    if batch is not None:
        out.append(Row("API score_pairs pairs/s, preload=True (jar: stdio req/s)", "pairs/s", jar.get("requests_per_s"),
                       batch.get("pairs_per_s"), (">=", BATCH_RATE_MIN), note=_agreement(batch.get("comparison_with_jar"))))
    return out
