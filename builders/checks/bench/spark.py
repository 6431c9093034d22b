"""``meteor-build check spark-bench``: meteor-lite on Spark's local mode against the command line and DuckDB (docs/spark.md).

Two measurements, each in a child process timed from outside (wall time; peak memory of the whole process
tree, JVM included, sampled by :class:`.bench.process.TreeSampler`):

* **scoring**: 100,000 WMT21 (hypothesis, reference) pairs (:func:`wmt21_pairs`), ``--lang en --norm``, with
  ``meteor-lite score --jobs 1`` and ``--jobs 2``, and with :func:`meteor_lite.spark.corpus_score` on
  ``local[1]`` and ``local[2]`` (its child reports the JVM's start and the scoring time apart); every run's
  corpus score must be the command line's, bit for bit;
* **pivot**: ``meteor-build pivot --engine duckdb`` and ``--engine spark`` on the synthetic tables of
  :mod:`.pivot` (1 M and 3 M lines by default), outputs compared byte for byte.

Usage::

    meteor-build check spark-bench --data ../shared/data                  # both, the tables of docs/spark.md
    meteor-build check spark-bench --data ../shared/data --skip-pivot --segments 20000
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ...sources import sha256_file
from ..paths import BENCH_OUT
from .pivot import _pivot_command, synthetic_inputs
from .process import measure

__all__ = ["wmt21_pairs", "run_spark_bench", "SPARK_BENCH_DIR"]

SPARK_BENCH_DIR = BENCH_OUT / "spark-bench"
#: The into-English DA files of WMT21 (data README), read in this order.
WMT21_DA = ("cs-en", "de-en", "ja-en", "ru-en", "zh-en")

#: The Spark child: argv = hyp file, ref file, master, JSON out.  Times the session start and the scoring apart.
_SPARK_CHILD = """
import json, os, sys, time
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
TICK = os.sysconf("SC_CLK_TCK")

def tree_cpu():
    # CPU seconds of this process and every live descendant (the JVM, its Python workers)
    kids, seen, total = [os.getpid()], set(), 0.0
    while kids:
        pid = kids.pop()
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / TICK
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    kids.extend(int(x) for x in f.read().split() if int(x) not in seen)
        except OSError:
            pass
    return total

t0 = time.perf_counter()
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master(sys.argv[3]).appName("meteor-lite spark-bench")
         .config("spark.driver.memory", "1g").config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
t1 = time.perf_counter()
from meteor_lite.spark import corpus_score
from meteor_lite.text.io import read_lines
hyps, refs = read_lines(sys.argv[1]), read_lines(sys.argv[2])
df = spark.createDataFrame(list(zip(hyps, refs)), "hyp string, ref string").cache()
df.count()
t2 = time.perf_counter()
c2 = tree_cpu()
cs = corpus_score(df, "en", ref_cols=["ref"], norm=True, segments=False)
t3 = time.perf_counter()
c3 = tree_cpu()
with open(sys.argv[4], "w") as out:
    json.dump({"session_s": t1 - t0, "load_s": t2 - t1, "score_s": t3 - t2, "score_cpu_s": c3 - c2,
               "cpu_s": c3, "score": repr(cs.score),
               "signature": cs.signature, "partitions": df.rdd.getNumPartitions()}, out)
spark.stop()
"""


def wmt21_pairs(data: Path, n: int) -> Tuple[List[str], List[str]]:
    """``n`` (hypothesis, reference) pairs of WMT21's into-English DA files, in file order: every row with
    its reference A, then rows from the start again with reference B (the files hold 87,982 rows)."""
    rows: List[Tuple[str, str, str]] = []
    for lp in WMT21_DA:
        with gzip.open(data / "wmt21" / f"newstest2021.{lp}.da.tsv.gz", "rt", encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
            rows.extend((r["hyp"], r["ref_A"], r["ref_B"]) for r in reader)
    pairs = [(h, a) for h, a, _ in rows] + [(h, b) for h, _, b in rows if b]
    if len(pairs) < n:
        raise ValueError(f"WMT21 has {len(pairs)} pairs here, fewer than {n}")
    hyps, refs = zip(*pairs[:n])
    return list(hyps), list(refs)


def _write_lines(path: Path, lines: Sequence[str]) -> None:
    path.write_text("".join(x.replace("\r", " ").replace("\n", " ") + "\n" for x in lines), encoding="utf-8")


def _round(d: Dict[str, Any]) -> Dict[str, Any]:
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in d.items()}


def bench_scoring(data: Path, n: int, work: Path, bundle: Optional[Path] = None) -> List[Dict[str, Any]]:
    """The command line (--jobs 1, 2) and Spark (local[1], local[2]) on the same ``n`` pairs; scores compared."""
    work.mkdir(parents=True, exist_ok=True)
    hyp, ref = work / f"wmt21-{n}.hyp", work / f"wmt21-{n}.ref"
    if not (hyp.exists() and ref.exists()):
        hyps, refs = wmt21_pairs(data, n)
        _write_lines(hyp, hyps)
        _write_lines(ref, refs)
    bin_dir = Path(sys.executable).parent
    runs: List[Dict[str, Any]] = []
    for jobs in (1, 2):
        out = work / f"cli-j{jobs}.out"
        res = measure([str(bin_dir / "meteor-lite"), "score", str(hyp), str(ref), "--lang", "en", "--norm", "--quiet",
                       "--jobs", str(jobs)], out, use_time_bin=False)
        score = out.read_text(encoding="utf-8").split()[-1]
        cpu = res["user_s"] + res["sys_s"]
        runs.append(_round({"run": f"meteor-lite score --jobs {jobs}", "cores": jobs, **res, "score": score, "cpu_s": cpu,
                            "segments_per_s": n / res["wall_s"], "segments_per_cpu_s": n / cpu}))
        print(json.dumps(runs[-1]), file=sys.stderr)
    for cores in (1, 2):
        report = work / f"spark-local{cores}.json"
        res = measure([sys.executable, "-c", _SPARK_CHILD, str(hyp), str(ref), f"local[{cores}]", str(report)],
                      work / f"spark-local{cores}.out", use_time_bin=False)
        child = json.loads(report.read_text(encoding="utf-8"))
        runs.append(_round({"run": f"corpus_score on local[{cores}]", "cores": cores, **res, **child,
                            "segments_per_s": n / res["wall_s"], "scoring_segments_per_s": n / child["score_s"],
                            "segments_per_cpu_s": n / child["score_cpu_s"]}))
        print(json.dumps(runs[-1]), file=sys.stderr)
    java = [r["score"] for r in runs]
    if len(set(java)) != 1:
        raise RuntimeError(f"the runs gave different corpus scores: {java}")
    return runs


def bench_pivot(lines: Sequence[int], work: Path, memory_mb: float = 256.0, threads: int = 2) -> List[Dict[str, Any]]:
    """``meteor-build pivot`` with the duckdb and spark engines on each synthetic table; outputs compared."""
    runs: List[Dict[str, Any]] = []
    for n in lines:
        files = synthetic_inputs(n, 1, work)
        digests = set()
        for engine in ("duckdb", "spark"):
            out = files["phrase_table"].parent / f"out.{engine}.txt"
            res = measure(_pivot_command(files, out, engine, memory_mb, threads), out.with_suffix(".log"), use_time_bin=False)
            digest = sha256_file(out)
            digests.add(digest)
            pairs = sum(1 for _ in open(out, "rb"))
            runs.append(_round({"lines": n, "engine": engine, **res, "pairs": pairs, "sha256": digest}))
            print(json.dumps(runs[-1]), file=sys.stderr)
        if len(digests) != 1:
            raise RuntimeError(f"the engines' outputs differ on the {n}-line table: {sorted(digests)}")
    return runs


def _tables(scoring: List[Dict[str, Any]], pivot: List[Dict[str, Any]], n: int) -> str:
    """Markdown tables of docs/spark.md."""
    out: List[str] = []
    if scoring:
        out += [f"| {n:,} WMT21 pairs, `--lang en --norm` | cores | wall | segments/s (wall) | JVM start | scoring only | "
                "segments/s (scoring) | CPU s (scoring) | segments per CPU-second | peak memory (tree) | corpus score |",
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in scoring:
            spark = "session_s" in r
            out.append(f"| {r['run']} | {r['cores']} | {r['wall_s']:.1f} s | {r['segments_per_s']:,.0f} | "
                       f"{(str(round(r['session_s'], 1)) + ' s') if spark else ''} | "
                       f"{(str(round(r['score_s'], 1)) + ' s') if spark else ''} | "
                       f"{format(round(r['scoring_segments_per_s']), ',') if spark else ''} | "
                       f"{r['score_cpu_s'] if spark else r['cpu_s']:.1f} | {r['segments_per_cpu_s']:,.0f} | "
                       f"{r['peak_tree_rss_mib']:,.0f} MiB | {r['score']} |")
    if pivot:
        # (no CPU column: the JVM is not a reaped child of the measured process, its CPU time is not counted)
        out += ["", "| synthetic table | engine | wall | peak memory (tree) | pairs | output (SHA-256) |",
                "| --- | --- | --- | --- | --- | --- |"]
        for r in pivot:
            out.append(f"| {r['lines']:,} lines | {r['engine']} | {r['wall_s']:.1f} s | "
                       f"{r['peak_tree_rss_mib']:,.0f} MiB | {r['pairs']:,} | {r['sha256'][:12]} |")
    return "\n".join(out) + "\n"


def run_spark_bench(data: Path, segments: int = 100_000, pivot_lines: Sequence[int] = (1_000_000, 3_000_000), *,
                    skip_scoring: bool = False, skip_pivot: bool = False, work: Path = SPARK_BENCH_DIR,
                    json_out: Optional[Path] = None) -> int:
    """Run the measurements, print the Markdown tables (and the JSON report to ``json_out``); 0 when all agree."""
    scoring = [] if skip_scoring else bench_scoring(data, segments, work / "scoring")
    pivot = [] if skip_pivot else bench_pivot(pivot_lines, work / "pivot")
    report = {"segments": segments, "scoring": scoring, "pivot": pivot}
    if json_out is not None:
        json_out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(_tables(scoring, pivot, segments))
    return 0
