"""Rows without a jar counterpart: the English import and the synthetic pivot (meteor-lite's own goals).

* import: ``meteor-build import-official --lang en --out TMP/en.sqlite`` in a
  fresh process, wall time and peak memory, run once (the goal: under 30 s;
  docs/performance.md has the latest figure).
* pivot: the function ``pivot_bench(lines, engine)`` of the pivot benchmark
  (``meteor_lite_builders.checks.bench.pivot`` or
  ``meteor_lite_builders.paraphrases.synthetic``), imported only when this
  section runs; ``n/a`` when neither module has it.
"""

from __future__ import annotations

import importlib
import logging
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from .options import BenchError, BenchOptions, console_script
from .process import measure
from .table import Row

log = logging.getLogger(__name__)

#: The goals: the English import under 30 s; the 10M-line pivot under 10 minutes and 2 GB.
IMPORT_MAX_S = 30.0
PIVOT_MAX_S = 600.0
PIVOT_MAX_MIB = 2048.0
PIVOT_GOAL_LINES = 10_000_000
PIVOT_MODULES = ("meteor_lite_builders.checks.bench.pivot", "meteor_lite_builders.paraphrases.synthetic")
PIVOT_ENGINES = ("duckdb", "sort")


def run_import(a: BenchOptions, use_time_bin: bool) -> Dict[str, Any]:
    """Time the English import once into a temporary directory."""
    try:
        cmd = [console_script("meteor-build"), "import-official", "--lang", "en"]
    except BenchError as e:
        return {"error": str(e)}
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        full = cmd + ["--out", str(Path(tmp) / "en.sqlite")]
        try:
            r = measure(full, a.out / "bench-import.out", use_time_bin)
        except RuntimeError as e:
            return {"error": str(e)}
    log.info("import-official --lang en: %.1f s, %.0f MiB", r["wall_s"], r["peak_rss_mib"])
    return {"command": " ".join(cmd + ["--out", "TMP/en.sqlite"]), **r}


def find_pivot_bench() -> Optional[Callable[..., Dict[str, Any]]]:
    """The pivot benchmark's ``pivot_bench(lines, engine)`` function, or None when no module provides it."""
    for name in PIVOT_MODULES:
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        fn = getattr(mod, "pivot_bench", None)
        if callable(fn):
            return fn
    return None


def run_pivot(a: BenchOptions, lines: int) -> Dict[str, Any]:
    """Wall time and peak memory of the pivot of a synthetic table of ``lines`` lines, per engine."""
    fn = find_pivot_bench()
    if fn is None:
        return {"error": "no pivot_bench function (" + " or ".join(PIVOT_MODULES) + ")"}
    out: Dict[str, Any] = {"lines": lines}
    for engine in PIVOT_ENGINES:
        try:
            out[engine] = dict(fn(lines, engine))
        except Exception as e:  # a missing engine (extra not installed) or a failed run: reported, not fatal
            out[engine] = {"error": f"{type(e).__name__}: {e}"}
        log.info("pivot %s %d lines: %s", engine, lines, out[engine])
    return out


def import_rows(r: Optional[Dict[str, Any]]) -> List[Row]:
    """The import row (goal on meteor-lite's own wall time)."""
    if r is None:
        return []
    note = r.get("error", "")
    if "peak_rss_mib" in r:
        note = f"peak memory {r['peak_rss_mib']:.0f} MiB"
    return [Row("English import (import-official --lang en)", "s", None, r.get("wall_s"), ("<=", IMPORT_MAX_S),
                absolute=True, note=note, jar_text="–")]


def _mib(res: Dict[str, Any]) -> Optional[float]:
    for key in ("peak_rss_mib", "peak_rss_mb", "peak_mib"):
        if res.get(key) is not None:
            return float(res[key])
    return None


def pivot_rows(r: Optional[Dict[str, Any]]) -> List[Row]:
    """Wall time and peak memory of each engine (goals only at 10 million lines)."""
    if r is None:
        return []
    if "error" in r:
        return [Row("synthetic pivot", "s", note=r["error"], jar_text="–", lite_text="n/a")]
    lines = r["lines"]
    at_goal = lines >= PIVOT_GOAL_LINES
    out = []
    digests = {r[e].get("sha256") for e in PIVOT_ENGINES if r.get(e, {}).get("sha256")}
    same = "; both engines wrote the same bytes" if len(digests) == 1 and all("sha256" in r.get(e, {}) for e in PIVOT_ENGINES) \
        else ("; THE ENGINES' OUTPUTS DIFFER" if len(digests) > 1 else "")
    for engine in PIVOT_ENGINES:
        res = r.get(engine, {})
        err = res.get("error", "")
        pairs = res.get("pairs")
        note = err or (f"{pairs:,} paraphrase pairs{same}" if isinstance(pairs, int) else "")
        out.append(Row(f"pivot {lines:,} lines, {engine}: wall", "s", None, res.get("wall_s"),
                       ("<=", PIVOT_MAX_S) if at_goal else None, absolute=True, note=note, jar_text="–"))
        out.append(Row(f"pivot {lines:,} lines, {engine}: peak memory", "MiB", None, _mib(res),
                       ("<=", PIVOT_MAX_MIB) if at_goal else None, absolute=True, jar_text="–"))
    return out
