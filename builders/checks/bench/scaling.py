"""Length scaling: seconds per segment of the jar and meteor-lite on the same synthetic long segments.

Both programs run as ``-stdio`` servers (``java -jar meteor-1.5.jar - - -stdio
-l en [-m 'exact stem']`` and the drop-in ``meteor-jar`` with the same
arguments).  A short warm-up request is answered first (JVM start-up, resource
loading and the first JIT compilations are in its time, reported apart); then
each segment is one ``SCORE ||| ref ||| hyp`` request and its time is the wait
for its answer: the per-segment cost net of start-up, measured for each segment
rather than derived from the difference of two runs.  Five more 100-token
requests (other words) are answered, untimed, before the timed ones, so that
the jar's first JIT compilations fall outside the figures.  The segments
(:mod:`.segments`) are plain lower-case words, so neither program's
normaliser is involved.  A request that takes longer than ``--timeout`` is
reported as ``>T`` and the longer lengths are not tried for that program.
"""

from __future__ import annotations

import contextlib
import logging
import statistics
import time
from typing import Any, Dict, List, Optional, Tuple

from ... import jar as jarmod
from .options import MODULE_SETS, BenchOptions, console_script, jvm_lock
from .segments import SegmentMaker, reference_vocabulary
from .session import RequestTimeout, ServerDied, StdioSession
from .table import Row

log = logging.getLogger(__name__)

#: The goal: seconds per segment at most 0.2x the jar's at these lengths (exact+stem).
SCALING_MAX = 0.2
GOAL_LENGTHS = (2000, 5000)
GOAL_MODULES = "exact-stem"
TOOLS = ("jar", "meteor-lite")
#: Untimed 100-token requests after the first answer, before the timed ones.
WARMUP_REQUESTS = 5


def commands(modules: str) -> Dict[str, List[str]]:
    """The two stdio servers for a module set of :data:`MODULE_SETS`."""
    margs = ["-", "-", "-stdio", "-l", "en", *MODULE_SETS[modules]]
    return {"jar": jarmod.jar_command(margs, heap="2G"), "meteor-lite": [console_script("meteor-jar"), *margs]}


def make_pairs(a: BenchOptions) -> List[Tuple[int, int, str, str]]:
    """(length, index, reference, hypothesis) for every length up to ``--max-tokens``."""
    maker = SegmentMaker(reference_vocabulary(a.data / "meteor-example" / "reference"), a.seed)
    lengths = [n for n in a.lengths if n <= a.max_tokens]
    if not lengths:
        raise ValueError(f"no segment length up to --max-tokens {a.max_tokens} (lengths: {', '.join(map(str, a.lengths))})")
    return [(n, i, *maker.pair(n, i)) for n in lengths for i in range(a.scaling_segments)]


def _time_tool(tool: str, cmd: List[str], pairs: List[Tuple[int, int, str, str]], a: BenchOptions, tag: str
               ) -> Dict[str, Any]:
    """Per-length times (None: timed out) and answers of one server; lengths after a timeout are left out."""
    times: Dict[int, List[Optional[float]]] = {}
    answers: Dict[str, str] = {}
    warm_ref, warm_hyp = pairs[0][2].split()[:20], pairs[0][3].split()[:20]
    warmup = [SegmentMaker(pairs[0][2].split(), a.seed).pair(100, i) for i in range(WARMUP_REQUESTS)]
    lock = jvm_lock(a) if tool == "jar" else contextlib.nullcontext()
    with lock, StdioSession(cmd, a.out / f"scaling-{tag}.err") as s:
        s.request(f"SCORE ||| {' '.join(warm_ref)} ||| {' '.join(warm_hyp)}", 1, a.timeout)
        first_answer = time.perf_counter() - s.started
        for ref, hyp in warmup:  # not timed: the JVM's first JIT compilations, the scorer's caches
            s.request(f"SCORE ||| {ref} ||| {hyp}", 1, a.timeout)
        for n, i, ref, hyp in pairs:
            try:
                ans, dt = s.request(f"SCORE ||| {ref} ||| {hyp}", 1, a.timeout)
            except RequestTimeout:
                times.setdefault(n, []).append(None)
                log.info("scaling %s: %d tokens: no answer within %g s", tag, n, a.timeout)
                break
            times.setdefault(n, []).append(dt)
            answers[f"{n}:{i}"] = ans[0]
            log.info("scaling %-22s %5d tokens #%d: %8.3f s", tag, n, i, dt)
        s.close()
    return {"times": times, "answers": answers, "warmup_s": first_answer}


def _summary(times: Dict[int, List[Optional[float]]], lengths: List[int]) -> Dict[int, Dict[str, Any]]:
    out: Dict[int, Dict[str, Any]] = {}
    for n in lengths:
        ts = times.get(n)
        if ts is None:
            out[n] = {"median_s": None, "status": "not run"}
        elif any(t is None for t in ts):
            out[n] = {"median_s": None, "status": "timeout"}
        else:
            out[n] = {"median_s": statistics.median([t for t in ts if t is not None]), "status": "ok"}
    return out


def run_scaling(a: BenchOptions) -> Dict[str, Any]:
    """Run the section for every module set of ``--scaling-modules``; its results for ``bench.json``."""
    try:
        pairs = make_pairs(a)
    except (OSError, ValueError) as e:
        return {"error": str(e)}
    lengths = sorted({p[0] for p in pairs})
    result: Dict[str, Any] = {"lengths": lengths, "segments_per_length": a.scaling_segments, "seed": a.seed,
                              "timeout_s": a.timeout, "modules": {}}
    for modules in a.scaling_modules:
        per_tool: Dict[str, Any] = {}
        for tool, cmd in commands(modules).items():
            try:
                r = _time_tool(tool, cmd, pairs, a, f"{tool}-{modules}")
            except (ServerDied, RequestTimeout, jarmod.JarError) as e:
                log.error("scaling %s %s: %s", tool, modules, e)
                per_tool[tool] = {"error": str(e)}
                continue
            r["per_length"] = _summary(r.pop("times"), lengths)
            per_tool[tool] = r
        result["modules"][modules] = per_tool
        result["modules"][modules]["different_answers"] = _differences(per_tool)
        result["modules"][modules]["bounded"] = bounded_segments(pairs, modules)
    print_table(result)
    return result


def bounded_segments(pairs: List[Tuple[int, int, str, str]], modules: str) -> List[str]:
    """``length:index`` of the segments meteor-lite aligns in bounded mode (not the beam search: no parity promise)."""
    import warnings

    from meteor_lite import Meteor

    args = MODULE_SETS[modules]
    mods = args[args.index("-m") + 1].split() if "-m" in args else None
    scorer = Meteor("en", modules=mods, quiet=True)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n, i, ref, hyp in pairs:
            if scorer.score_segment(hyp, [ref]).bounded:
                out.append(f"{n}:{i}")
    return out


def _differences(per_tool: Dict[str, Any]) -> List[str]:
    jar = per_tool.get("jar", {}).get("answers", {})
    lite = per_tool.get("meteor-lite", {}).get("answers", {})
    return sorted(k for k in jar.keys() & lite.keys() if jar[k] != lite[k])


def _cell(entry: Optional[Dict[str, Any]], timeout: float) -> "tuple[Optional[float], str]":
    """The figure of one program at one length and its text (``>T`` after a timeout, ``n/a`` when not run)."""
    if not entry:
        return None, "n/a"
    if entry["status"] == "timeout":
        return timeout, f">{timeout:g}"
    if entry["status"] != "ok":
        return None, "n/a"
    return entry["median_s"], ""


def _tool_cell(result: Dict[str, Any], modules: str, tool: str, n: int) -> "tuple[Optional[float], str]":
    per_length = result.get("modules", {}).get(modules, {}).get(tool, {}).get("per_length", {})
    entry = per_length.get(n) or per_length.get(str(n))  # str: read back from bench.json
    return _cell(entry, result.get("timeout_s", 0.0))


def print_table(result: Dict[str, Any]) -> None:
    """Seconds per segment by length, both programs and their ratio, per module set."""
    for modules in result["modules"]:
        print(f"\nlength scaling, -l en {' '.join(MODULE_SETS[modules]) or '(all English modules)'}: "
              f"seconds per segment, median of {result['segments_per_length']}")
        print(f"{'tokens':>7s} {'jar':>10s} {'meteor-lite':>12s} {'ratio':>8s}")
        for n in result["lengths"]:
            (jv, jt), (lv, lt) = _tool_cell(result, modules, "jar", n), _tool_cell(result, modules, "meteor-lite", n)
            ratio = f"{lv / jv:.3f}" if jv and lv is not None and not lt else ""
            print(f"{n:7d} {jt or f'{jv:.3f}':>10s} {lt or f'{lv:.3f}':>12s} {ratio:>8s}")
        bounded = result["modules"][modules].get("bounded")
        if bounded:
            print(f"note: meteor-lite aligned {len(bounded)} segment(s) in bounded mode (not the beam search): "
                  f"{', '.join(bounded[:5])}")
        diff = result["modules"][modules].get("different_answers")
        if diff:
            print(f"note: different answers from the two programs on {len(diff)} segment(s): {', '.join(diff[:5])}")


def rows(result: Dict[str, Any]) -> List[Row]:
    """Table rows: seconds per segment at 2,000 and 5,000 tokens for each module set (goal on exact+stem).

    When neither length was run, the longest one measured, without a goal.
    """
    if "error" in result:
        return [Row("length scaling", "s/segment", note=result["error"])]
    out = []
    for modules in result["modules"]:
        label = "exact+stem" if modules == "exact-stem" else "all English modules"
        # The goal's lengths; in a short run (--max-tokens below them) the longest length measured, unjudged.
        for n in [n for n in GOAL_LENGTHS if n in result["lengths"]] or result["lengths"][-1:]:
            jv, jt = _tool_cell(result, modules, "jar", n)
            lv, lt = _tool_cell(result, modules, "meteor-lite", n)
            goal = ("<=", SCALING_MAX) if modules == GOAL_MODULES and n in GOAL_LENGTHS else None
            note = "the jar timed out: the ratio is an upper bound" if jt.startswith(">") else ""
            if any(b.startswith(f"{n}:") for b in result["modules"][modules].get("bounded", ())):
                note = (note + "; " if note else "") + "meteor-lite in bounded mode (not the jar's alignment)"
            out.append(Row(f"{n:,}-token segment, {label}", "s/segment", jv, None if lt else lv, goal,
                           note=note, jar_text=jt, lite_text=lt))
    return out
