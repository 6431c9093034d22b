"""meteor-lite vs the official Meteor 1.5 jar, side by side on this machine (``make bench``).

Both score the 2,489 segments of ``meteor-example/system1.hyp`` against
``reference`` with ``-l en -norm``, each as a user runs it, in a fresh process:

* ``meteor-lite score system1.hyp reference --lang en --norm``
* ``java -Xmx2G -Dfile.encoding=UTF-8 ... -jar meteor-1.5.jar system1.hyp reference -l en -norm``

Wall time and peak resident set size of each child process are measured with
``/usr/bin/time -v`` when it exists, else from ``os.wait4``'s resource usage;
runs alternate between the two programs, are repeated (3 times by default),
and the medians are compared.  The requirement reported against: meteor-lite's
wall time at most 0.5x the jar's and its peak RSS at most 0.25x.  Both final
scores are printed as a sanity check.  Results go to ``bench-out/bench.json``.

    meteor-build check bench [--data ../shared/data] [--repeat 3] [--strict]   (make bench)
"""

from __future__ import annotations

import json
import logging
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

from ... import jar as jarmod
from ..paths import BENCH_OUT, DEFAULT_DATA_DIR

log = logging.getLogger(__name__)

OUT_DIR = BENCH_OUT
WALL_RATIO_MAX = 0.5
RSS_RATIO_MAX = 0.25
TIME_BIN = "/usr/bin/time"

_FINAL_RE = re.compile(r"^Final score:\s+(\S+)", re.M)


def _time_v_field(text: str, label: str) -> Optional[str]:
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(label):
            return line.rsplit(": ", 1)[-1].strip()
    return None


def _parse_elapsed(s: str) -> float:
    """``h:mm:ss`` or ``m:ss.ss`` from GNU time into seconds."""
    parts = [float(p) for p in s.split(":")]
    secs = 0.0
    for p in parts:
        secs = secs * 60 + p
    return secs


def _children(pid: int) -> List[int]:
    """Direct children of ``pid`` (from ``/proc/<pid>/task/*/children``)."""
    kids: List[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    kids.extend(int(x) for x in f.read().split())
            except OSError:
                pass
    except OSError:
        pass
    return kids


def _rss_kib(pid: int) -> int:
    """Current resident set size of one process in KiB (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _pss_kib(pid: int) -> int:
    """Proportional set size of one process in KiB (shared pages split between sharers; 0 if unknown)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class TreeSampler(threading.Thread):
    """Samples the summed RSS of every descendant of a process (worker processes included).

    GNU time and ``wait4`` report the largest *single* process; a scorer that
    forks workers uses the sum of them at once, which this measures (sampled
    every ``interval`` seconds, so a short spike can be missed).  The RSS sum
    counts pages shared by forked processes several times (an upper bound);
    the PSS sum splits them between the sharers.
    """

    def __init__(self, root: int, include_root: bool, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.include_root = include_root
        self.interval = interval
        self.peak_kib = 0
        self.peak_pss_kib = 0
        self.max_procs = 0
        self._halt = threading.Event()

    def run(self) -> None:
        """Sample until :meth:`stop`."""
        while not self._halt.is_set():
            pids: List[int] = []
            frontier = [self.root]
            while frontier:
                p = frontier.pop()
                kids = _children(p)
                pids.extend(kids)
                frontier.extend(kids)
            if self.include_root:
                pids.append(self.root)
            total = sum(_rss_kib(p) for p in pids)
            self.peak_kib = max(self.peak_kib, total)
            self.peak_pss_kib = max(self.peak_pss_kib, sum(_pss_kib(p) for p in pids))
            self.max_procs = max(self.max_procs, len(pids))
            self._halt.wait(self.interval)

    def stop(self) -> None:
        """Stop sampling and wait for the thread."""
        self._halt.set()
        self.join()


def measure(cmd: List[str], stdout_path: Path, use_time_bin: bool = True) -> Dict[str, float]:
    """Run ``cmd`` once with its output to ``stdout_path``; return wall seconds and peak RSS (MiB).

    ``peak_rss_mib``: with ``/usr/bin/time -v`` GNU time's "Maximum resident
    set size", otherwise ``ru_maxrss`` of the child from ``os.wait4`` (both the
    largest single process).  ``peak_tree_rss_mib``: the sampled peak of the
    summed RSS of the whole process tree (matters when workers are forked).
    ``user_s``/``sys_s``: CPU time of the child and its reaped descendants.  The wall time is
    measured here around the child in both cases (GNU time's own figure is
    kept as ``wall_time_v`` for reference).
    """
    fd, time_file = tempfile.mkstemp(suffix=".time")
    os.close(fd)
    try:
        if use_time_bin:
            full = [TIME_BIN, "-v", "-o", time_file] + cmd
        else:
            full = cmd
        with open(stdout_path, "w", encoding="utf-8") as out, open(stdout_path.with_suffix(".err"), "w") as err:
            t0 = time.perf_counter()
            proc = subprocess.Popen(full, stdout=out, stderr=err)
            # Under GNU time the measured program is time's child: leave time itself out.
            sampler = TreeSampler(proc.pid, include_root=not use_time_bin)
            sampler.start()
            _, status, ru = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - t0
            sampler.stop()
            proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err_text = stdout_path.with_suffix(".err").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{' '.join(cmd)} exited with {proc.returncode}:\n{err_text}")
        res: Dict[str, float] = {"wall_s": wall, "user_s": ru.ru_utime, "sys_s": ru.ru_stime}
        if use_time_bin:
            tv = Path(time_file).read_text()
            rss_kb = float(_time_v_field(tv, "Maximum resident set size") or "nan")
            el = _time_v_field(tv, "Elapsed (wall clock) time")
            if el:
                res["wall_time_v"] = _parse_elapsed(el)
        else:
            rss_kb = float(ru.ru_maxrss)  # KiB on Linux
        res["peak_rss_mib"] = rss_kb / 1024.0
        res["peak_tree_rss_mib"] = sampler.peak_kib / 1024.0
        res["peak_tree_pss_mib"] = sampler.peak_pss_kib / 1024.0
        res["max_processes"] = float(sampler.max_procs)
        return res
    finally:
        os.unlink(time_file)


def final_score(stdout_path: Path) -> Optional[str]:
    """The ``Final score:`` value a run printed (both programs print this line)."""
    m = _FINAL_RE.search(stdout_path.read_text(encoding="utf-8", errors="replace"))
    return m.group(1) if m else None


def _java_version(java: str) -> str:
    p = subprocess.run([java, "-version"], capture_output=True, text=True)
    return (p.stderr or p.stdout).splitlines()[0] if (p.stderr or p.stdout) else "?"


class BenchError(RuntimeError):
    """The benchmark cannot run (missing data, program or Java) or a run failed."""


@dataclass
class BenchOptions:
    """The options of ``meteor-build check bench``."""

    data: Path = DEFAULT_DATA_DIR
    repeat: int = 3
    out: Path = OUT_DIR
    hyp: str = "system1.hyp"
    no_time_bin: bool = False
    no_jobs1: bool = False
    strict: bool = False


def bench_commands(a: BenchOptions) -> Dict[str, List[str]]:
    """The programs compared, as a user runs them (raises :class:`BenchError` or a jar error when one is missing)."""
    hyp = a.data / "meteor-example" / a.hyp
    ref = a.data / "meteor-example" / "reference"
    for f in (hyp, ref):
        if not f.is_file():
            raise BenchError(f"{f} not found (pass --data ../shared/data)")
    jar_cmd = jarmod.jar_command([hyp, ref, "-l", "en", "-norm"], heap="2G")
    lite = shutil.which("meteor-lite", path=str(Path(sys.executable).parent)) or shutil.which("meteor-lite")
    if not lite:
        raise BenchError("the meteor-lite command is not installed (make install)")
    cmds = {
        "jar": jar_cmd,
        "meteor-lite": [lite, "score", str(hyp), str(ref), "--lang", "en", "--norm"],
    }
    if not a.no_jobs1:
        # Informative: the same with one process (the default forks workers on a multi-core machine).
        cmds["meteor-lite -j1"] = cmds["meteor-lite"] + ["--jobs", "1"]
    return cmds


def run_rounds(cmds: Dict[str, List[str]], a: BenchOptions, use_time_bin: bool
               ) -> "tuple[Dict[str, List[Dict[str, float]]], Dict[str, Optional[str]]]":
    """Run every program ``a.repeat`` times, alternating the order; the measurements and final scores."""
    a.out.mkdir(parents=True, exist_ok=True)
    runs: Dict[str, List[Dict[str, float]]] = {k: [] for k in cmds}
    finals: Dict[str, Optional[str]] = {}
    for i in range(a.repeat):
        # Alternate the order so that no program always runs first or last.
        order = list(cmds) if i % 2 == 0 else list(reversed(list(cmds)))
        for name in order:
            outp = a.out / f"bench-{name.replace(' ', '')}.out"
            try:
                r = measure(cmds[name], outp, use_time_bin)
            except RuntimeError as e:
                raise BenchError(str(e)) from None
            finals[name] = final_score(outp)
            runs[name].append(r)
            log.info("run %d/%d %-16s wall %7.2f s  peak RSS %8.1f MiB  tree %8.1f MiB (%d proc)",
                     i + 1, a.repeat, name, r["wall_s"], r["peak_rss_mib"], r["peak_tree_rss_mib"],
                     int(r["max_processes"]))
    return runs, finals


def summarise(runs: Dict[str, List[Dict[str, float]]]) -> "tuple[Dict[str, Dict[str, float]], Dict[str, Dict[str, float]]]":
    """Medians per program and the ratios of each meteor-lite variant to the jar."""
    keys = ("wall_s", "peak_rss_mib", "peak_tree_rss_mib", "peak_tree_pss_mib", "user_s", "sys_s")
    med = {k: {f: statistics.median(x[f] for x in v) for f in keys} for k, v in runs.items()}
    for k, v in runs.items():
        med[k]["cpu_s"] = statistics.median(x["user_s"] + x["sys_s"] for x in v)
    ratios = {
        k: {"wall": med[k]["wall_s"] / med["jar"]["wall_s"],
            "peak_rss": med[k]["peak_rss_mib"] / med["jar"]["peak_rss_mib"],
            "peak_tree_rss": med[k]["peak_tree_rss_mib"] / med["jar"]["peak_tree_rss_mib"],
            "peak_tree_pss": med[k]["peak_tree_pss_mib"] / med["jar"]["peak_tree_pss_mib"],
            "cpu": med[k]["cpu_s"] / med["jar"]["cpu_s"]}
        for k in runs if k != "jar"
    }
    return med, ratios


def print_report(a: BenchOptions, cmds: Dict[str, List[str]], med: Dict[str, Dict[str, float]],
                 ratios: Dict[str, Dict[str, float]], finals: Dict[str, Optional[str]], use_time_bin: bool,
                 judged: "tuple[bool, bool, float]") -> None:
    """The comparison table on stdout."""
    ok_wall, ok_rss, rss_judged = judged
    main_r = ratios["meteor-lite"]
    print(f"\n{a.hyp} vs reference (-l en -norm), {a.repeat} runs each, medians "
          f"(RSS: {'GNU time -v' if use_time_bin else 'os.wait4'} largest process, and sampled "
          f"process-tree sum; {os.cpu_count()} cores)")
    print(f"{'':16s} {'wall s':>8s} {'CPU s':>7s} {'peak RSS MiB':>13s} {'tree RSS MiB':>13s} "
          f"{'tree PSS MiB':>13s}  final score")
    for k in cmds:
        print(f"{k:16s} {med[k]['wall_s']:8.2f} {med[k]['cpu_s']:7.2f} {med[k]['peak_rss_mib']:13.1f} "
              f"{med[k]['peak_tree_rss_mib']:13.1f} {med[k]['peak_tree_pss_mib']:13.1f}  {finals.get(k)}")
    for k, r in ratios.items():
        print(f"{'ratio ' + k[len('meteor-lite'):].strip() if k != 'meteor-lite' else 'ratio':16s} "
              f"{r['wall']:8.3f} {r['cpu']:7.3f} {r['peak_rss']:13.3f} {r['peak_tree_rss']:13.3f} "
              f"{r['peak_tree_pss']:13.3f}  ({k} / jar)")
    print(f"requirement (meteor-lite as run by default): wall <= {WALL_RATIO_MAX}x: "
          f"{'PASS' if ok_wall else 'FAIL'} ({main_r['wall']:.3f}); peak RSS <= {RSS_RATIO_MAX}x: "
          f"{'PASS' if ok_rss else 'FAIL'} ({rss_judged:.3f})")
    differing = {k: v for k, v in finals.items() if v != finals.get("jar")}
    if differing:
        print(f"note: final scores differ from the jar's {finals.get('jar')}: {differing}")


def run_bench(a: BenchOptions) -> int:
    """Run the benchmark, print the comparison and write ``bench.json``; the exit status (2 when it cannot run)."""
    try:
        cmds = bench_commands(a)
        java = jarmod.find_java()
        use_time_bin = not a.no_time_bin and os.access(TIME_BIN, os.X_OK)
        runs, finals = run_rounds(cmds, a, use_time_bin)
    except (BenchError, jarmod.JarError) as e:
        log.error("error: %s", e)
        return 2
    med, ratios = summarise(runs)
    main_r = ratios["meteor-lite"]
    # The requirement is judged on the program as a user runs it, with the strictest RSS figure
    # (the whole process tree, workers included, shared pages counted in full).
    rss_judged = max(main_r["peak_rss"], main_r["peak_tree_rss"])
    ok_wall = main_r["wall"] <= WALL_RATIO_MAX
    ok_rss = rss_judged <= RSS_RATIO_MAX
    print_report(a, cmds, med, ratios, finals, use_time_bin, (ok_wall, ok_rss, rss_judged))
    report: Dict[str, Any] = {
        "data": f"meteor-example/{a.hyp} vs reference",
        "commands": {k: " ".join(v) for k, v in cmds.items()},
        "measured_with": ("/usr/bin/time -v" if use_time_bin else "os.wait4 ru_maxrss")
        + " (largest process) + /proc sampling every 50 ms (process-tree sum)",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "java": _java_version(java),
                    "loadavg_at_end": os.getloadavg()},
        "repeat": a.repeat,
        "runs": runs,
        "median": med,
        "final_scores": finals,
        "ratio": ratios,
        "requirement": {"wall_ratio_max": WALL_RATIO_MAX, "peak_rss_ratio_max": RSS_RATIO_MAX,
                        "wall_ratio": main_r["wall"], "peak_rss_ratio_judged": rss_judged,
                        "wall_ok": ok_wall, "peak_rss_ok": ok_rss},
    }
    (a.out / "bench.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    log.info("wrote %s", a.out / "bench.json")
    return 1 if a.strict and not (ok_wall and ok_rss) else 0
