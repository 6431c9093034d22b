"""Measuring one child process: wall time, CPU time, peak memory (GNU time, ``os.wait4``, /proc sampling)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional

TIME_BIN = "/usr/bin/time"


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
