"""``meteor-build check pivot-bench``: wall time and peak memory of the pivot on a synthetic phrase table.

:func:`pivot_bench` (also called by ``make bench``'s pivot section) writes a
synthetic table of ``lines`` lines once (:mod:`meteor_lite_builders.paraphrases.synthetic`,
cached under ``bench-out/pivot-bench/``), then runs ``meteor-build pivot`` on it
in a child process with one engine, and measures that process: wall time,
CPU time and peak resident memory (``os.wait4``, from a small launcher process:
a child's peak RSS would otherwise include the size of the process it was forked from).  The output (Parex's text
format) is kept and hashed, so runs of the two engines can be compared byte
for byte (:func:`run_pivot_bench` does it when it runs both).

Usage::

    meteor-build check pivot-bench --lines 1000000             # both engines, outputs compared
    meteor-build check pivot-bench --lines 10000000 --engine duckdb
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ...paraphrases.pivot import ENGINES
from ...paraphrases.synthetic import synthetic_files, write_synthetic
from ...sources import sha256_file
from ..paths import BENCH_OUT

__all__ = ["pivot_bench", "run_pivot_bench", "synthetic_inputs", "PIVOT_BENCH_DIR"]

#: Where the synthetic tables and the outputs go.
PIVOT_BENCH_DIR = BENCH_OUT / "pivot-bench"


def synthetic_inputs(lines: int, seed: int = 1, work: Path = PIVOT_BENCH_DIR) -> Dict[str, Path]:
    """The synthetic table of ``lines`` lines and its corpora, written on first use (a marker file records it)."""
    d = work / f"synthetic-{lines}-seed{seed}"
    marker = d / "done.json"
    if not marker.exists():
        t0 = time.perf_counter()
        write_synthetic(d, lines, seed)
        marker.write_text(json.dumps({"lines": lines, "seed": seed, "seconds": round(time.perf_counter() - t0, 1)}) + "\n",
                          encoding="utf-8")
    return synthetic_files(d)


def _pivot_command(files: Dict[str, Path], out: Path, engine: str, memory_mb: float, threads: int) -> List[str]:
    """``meteor-build pivot`` (through this interpreter) on the synthetic files, Parex's text output."""
    return [sys.executable, "-c", "from meteor_lite_builders.cli import main; main()", "pivot",
            "-t", str(files["phrase_table"]), "--f-corpus", str(files["f_corpus"]), "--e-corpus", str(files["e_corpus"]),
            "--target", str(files["e_corpus"]), "-o", str(out), "--format", "parex", "--engine", engine,
            "--memory-mb", repr(memory_mb), "--threads", str(threads), "--no-progress"]


#: Runs argv[1:] and prints its wait4 rusage as JSON.  A child's peak RSS (ru_maxrss) starts at the size of the
#: process it was forked from (Linux keeps the high-water mark across fork and exec), so the command is started
#: from this small launcher, not from the caller (``make bench`` or a process that generated a table is large).
_LAUNCHER = """
import json, os, subprocess, sys, time
t0 = time.perf_counter()
with open(sys.argv[1], "wb") as log:
    proc = subprocess.Popen(sys.argv[2:], stdout=log, stderr=subprocess.STDOUT)
    _pid, status, ru = os.wait4(proc.pid, 0)
print(json.dumps({"returncode": os.waitstatus_to_exitcode(status), "wall_s": round(time.perf_counter() - t0, 2),
                  "cpu_s": round(ru.ru_utime + ru.ru_stime, 2), "peak_rss_mb": round(ru.ru_maxrss / 1024, 1)}))
"""


def _run_measured(cmd: Sequence[str], log: Path) -> Dict[str, Any]:
    """Run ``cmd`` (stdout and stderr to ``log``) from a small launcher; its wall and CPU seconds and peak RSS."""
    r = subprocess.run([sys.executable, "-c", _LAUNCHER, str(log), *cmd], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"the measuring launcher failed ({r.returncode}): {r.stderr[-1500:]}")
    res: Dict[str, Any] = json.loads(r.stdout.strip().splitlines()[-1])
    return res


def pivot_bench(lines: int, engine: str, *, seed: int = 1, memory_mb: float = 256.0, threads: int = 2,
                work: Path = PIVOT_BENCH_DIR) -> Dict[str, Any]:
    """Pivot the synthetic table of ``lines`` lines with ``engine`` in a child process.

    Returns ``wall_s``, ``cpu_s``, ``peak_rss_mb`` (the child's peak resident
    memory, MiB), ``pairs`` (paraphrase pairs written), ``sha256`` of the output
    and ``output`` (its path).  The table is generated on first use (not timed).
    Raises :class:`RuntimeError` when the pivot fails (the message holds its log's tail).
    """
    if engine not in ENGINES:
        raise ValueError(f"engine: one of {', '.join(ENGINES)}, not {engine!r}")
    files = synthetic_inputs(lines, seed, work)
    run_dir = files["phrase_table"].parent
    out = run_dir / f"out.{engine}.txt"
    log = run_dir / f"log.{engine}.txt"
    res = _run_measured(_pivot_command(files, out, engine, memory_mb, threads), log)
    text = log.read_text(encoding="utf-8", errors="replace")
    if res["returncode"] != 0:
        raise RuntimeError(f"meteor-build pivot --engine {engine} failed ({res['returncode']}): {text[-1500:]}")
    pairs = sum(1 for _ in open(out, "rb"))
    return {"engine": engine, "lines": lines, **res, "pairs": pairs, "sha256": sha256_file(out), "output": str(out),
            "memory_mb": memory_mb, "threads": threads}


def run_pivot_bench(lines: int, engines: Sequence[str], *, seed: int = 1, memory_mb: float = 256.0, threads: int = 2,
                    work: Path = PIVOT_BENCH_DIR, json_out: Optional[Path] = None) -> int:
    """Run :func:`pivot_bench` for each engine, print the JSON report; exit 1 when two engines' outputs differ."""
    report: Dict[str, Any] = {"lines": lines, "seed": seed, "runs": {}}
    for engine in engines:
        report["runs"][engine] = pivot_bench(lines, engine, seed=seed, memory_mb=memory_mb, threads=threads, work=work)
        print(json.dumps(report["runs"][engine]), file=sys.stderr)
    digests = {r["sha256"] for r in report["runs"].values()}
    report["identical_outputs"] = len(digests) == 1 if len(engines) > 1 else None
    text = json.dumps(report, indent=2)
    print(text)
    if json_out:
        Path(json_out).write_text(text + "\n", encoding="utf-8")
    return 1 if report["identical_outputs"] is False else 0
