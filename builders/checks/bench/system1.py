"""system1 side by side: the jar and meteor-lite (``--jobs 1`` and default) on 2,489 segments, ``-l en -norm``.

``--jobs 1`` is one process; with the compiled kernels and a second CPU it aligns in a second thread
(:mod:`meteor_lite.pairwise`), so it runs once more in one thread (``METEOR_LITE_ONE_THREAD=1``).

meteor-lite runs twice over: with the compiled kernels (``make accel``, which ``make bench``
builds first; see ``meteor_lite/accel.py``) and in pure Python (``METEOR_LITE_PURE=1``, what an
install built without a C compiler runs).  Each program runs as a user runs it, in a fresh process, on
``meteor-example/system1.hyp`` against ``reference``; the runs alternate
between the programs, are repeated ``--repeat`` times and the medians compared.
Peak memory is the larger of the biggest single process (GNU time / ``wait4``)
and the sampled sum over the process tree (forked workers included).
"""

from __future__ import annotations

import logging
import re
import statistics
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional

from ... import jar as jarmod
from .options import BenchError, BenchOptions, console_script, jvm_lock
from .process import measure
from .table import Row

log = logging.getLogger(__name__)

#: The goals, x the jar's: wall time with one process and with the default parallelism, peak memory, and wall
#: time with one process in pure Python (docs/performance.md, "Goals").
WALL_J1_MAX = 0.05
WALL_DEFAULT_MAX = 0.12
MEMORY_MAX = 0.15
PURE_J1_MAX = 0.2

_FINAL_RE = re.compile(r"^Final score:\s+(\S+)", re.M)
_FIELDS = ("wall_s", "peak_rss_mib", "peak_tree_rss_mib", "peak_tree_pss_mib", "user_s", "sys_s")


def final_score(stdout_path: Path) -> Optional[str]:
    """The ``Final score:`` value a run printed (both programs print this line)."""
    m = _FINAL_RE.search(stdout_path.read_text(encoding="utf-8", errors="replace"))
    return m.group(1) if m else None


def bench_commands(a: BenchOptions) -> Dict[str, List[str]]:
    """The programs compared, as a user runs them (:class:`BenchError` or a jar error when one is missing)."""
    hyp = a.data / "meteor-example" / a.hyp
    ref = a.data / "meteor-example" / "reference"
    for f in (hyp, ref):
        if not f.is_file():
            raise BenchError(f"{f} not found (pass --data ../shared/data)")
    lite = console_script("meteor-lite")
    default = [lite, "score", str(hyp), str(ref), "--lang", "en", "--norm"]
    pure = ["env", "METEOR_LITE_PURE=1", *default]
    return {
        "jar": jarmod.jar_command([hyp, ref, "-l", "en", "-norm"], heap="2G"),
        "meteor-lite -j1": default + ["--jobs", "1"],
        "one thread -j1": ["env", "METEOR_LITE_ONE_THREAD=1", *default, "--jobs", "1"],
        "meteor-lite": default,
        "pure -j1": pure + ["--jobs", "1"],
        "pure": pure,
    }


def kernels_line() -> str:
    """What ``meteor-lite --version`` says of the implementation (the compiled rows need the kernels)."""
    out = subprocess.run([console_script("meteor-lite"), "--version"], capture_output=True, text=True, check=False)
    return out.stdout.strip()


def _one_run(name: str, cmd: List[str], a: BenchOptions, use_time_bin: bool) -> Dict[str, float]:
    outp = a.out / f"bench-{name.replace(' ', '')}.out"
    try:
        if name == "jar":
            with jvm_lock(a):
                return measure(cmd, outp, use_time_bin)
        return measure(cmd, outp, use_time_bin)
    except RuntimeError as e:
        raise BenchError(str(e)) from None


def run_rounds(cmds: Dict[str, List[str]], a: BenchOptions, use_time_bin: bool
               ) -> "tuple[Dict[str, List[Dict[str, float]]], Dict[str, Optional[str]]]":
    """Run every program ``a.repeat`` times, alternating the order; the measurements and final scores."""
    a.out.mkdir(parents=True, exist_ok=True)
    runs: Dict[str, List[Dict[str, float]]] = {k: [] for k in cmds}
    finals: Dict[str, Optional[str]] = {}
    for i in range(a.repeat):
        order = list(cmds) if i % 2 == 0 else list(reversed(list(cmds)))
        for name in order:
            r = _one_run(name, cmds[name], a, use_time_bin)
            finals[name] = final_score(a.out / f"bench-{name.replace(' ', '')}.out")
            runs[name].append(r)
            log.info("system1 run %d/%d %-16s wall %7.2f s  peak RSS %8.1f MiB  tree %8.1f MiB (%d proc)",
                     i + 1, a.repeat, name, r["wall_s"], r["peak_rss_mib"], r["peak_tree_rss_mib"],
                     int(r["max_processes"]))
    return runs, finals


def medians(runs: Dict[str, List[Dict[str, float]]]) -> Dict[str, Dict[str, float]]:
    """Median of every figure per program; ``memory_mib`` is the larger of the single-process and tree peaks."""
    med = {k: {f: statistics.median(x[f] for x in v) for f in _FIELDS} for k, v in runs.items()}
    for k, v in runs.items():
        med[k]["cpu_s"] = statistics.median(x["user_s"] + x["sys_s"] for x in v)
        med[k]["memory_mib"] = statistics.median(max(x["peak_rss_mib"], x["peak_tree_rss_mib"]) for x in v)
    return med


def rows(section: Dict[str, Any]) -> List[Row]:
    """The table rows of this section (wall and memory of the meteor-lite variants against the jar)."""
    med = section.get("median")
    if not med:
        return [Row("system1 wall, --jobs 1", "s", note=section.get("error", "not run"))]
    jar = med["jar"]
    n = section["repeat"]
    j1, dflt = med["meteor-lite -j1"], med["meteor-lite"]
    compiled = "compiled kernels" in section.get("kernels", "")
    note = "" if compiled else "kernels not built (make accel): these ran in pure Python"
    out = [
        Row(f"system1 wall, --jobs 1 (median of {n})", "s", jar["wall_s"], j1["wall_s"], ("<=", WALL_J1_MAX), note=note),
    ]
    one = med.get("one thread -j1")
    if one is not None:  # older bench.json files have no one-thread run
        out.append(Row("system1 wall, --jobs 1, one thread (METEOR_LITE_ONE_THREAD=1)", "s", jar["wall_s"],
                       one["wall_s"], note=note))
    out += [
        Row(f"system1 wall, default jobs (median of {n})", "s", jar["wall_s"], dflt["wall_s"], ("<=", WALL_DEFAULT_MAX),
            note=note),
        Row("system1 peak memory, --jobs 1", "MiB", jar["memory_mib"], j1["memory_mib"], ("<=", MEMORY_MAX)),
        Row("system1 peak memory, default jobs", "MiB", jar["memory_mib"], dflt["memory_mib"], ("<=", MEMORY_MAX)),
    ]
    if one is not None:
        out.append(Row("system1 peak memory, --jobs 1, one thread", "MiB", jar["memory_mib"], one["memory_mib"]))
    if "pure -j1" in med:  # results of an older bench.json may lack them
        out += [
            Row("system1 wall, --jobs 1, pure Python", "s", jar["wall_s"], med["pure -j1"]["wall_s"], ("<=", PURE_J1_MAX)),
            Row("system1 wall, default jobs, pure Python", "s", jar["wall_s"], med["pure"]["wall_s"]),
        ]
    return out


def print_detail(med: Dict[str, Dict[str, float]], finals: Dict[str, Optional[str]]) -> None:
    """Every measured figure per program (the summary table keeps only wall and memory)."""
    print(f"\n{'system1':16s} {'wall s':>8s} {'CPU s':>7s} {'peak RSS MiB':>13s} {'tree RSS MiB':>13s} "
          f"{'tree PSS MiB':>13s}  final score")
    for k, m in med.items():
        print(f"{k:16s} {m['wall_s']:8.2f} {m['cpu_s']:7.2f} {m['peak_rss_mib']:13.1f} "
              f"{m['peak_tree_rss_mib']:13.1f} {m['peak_tree_pss_mib']:13.1f}  {finals.get(k)}")
    differing = {k: v for k, v in finals.items() if v != finals.get("jar")}
    if differing:
        print(f"note: final scores differ from the jar's {finals.get('jar')}: {differing}")


def run_system1(a: BenchOptions, use_time_bin: bool) -> Dict[str, Any]:
    """Run the section; its results for ``bench.json`` (``error`` set when it could not run)."""
    try:
        cmds = bench_commands(a)
        runs, finals = run_rounds(cmds, a, use_time_bin)
    except (BenchError, jarmod.JarError) as e:
        log.error("system1: %s", e)
        return {"error": str(e)}
    med = medians(runs)
    print_detail(med, finals)
    return {"data": f"meteor-example/{a.hyp} vs reference, -l en -norm", "repeat": a.repeat, "kernels": kernels_line(),
            "commands": {k: " ".join(v) for k, v in cmds.items()}, "runs": runs, "median": med,
            "final_scores": finals, "same_final_scores": len(set(finals.values())) == 1}
