"""meteor-lite beside the official Meteor 1.5 jar on this machine, in one table (``make bench``).

Sections (``--only`` picks some; all run by default, the jar in the same invocation):

* ``system1`` (:mod:`.system1`): 2,489 segments, ``-l en -norm``, wall time and peak memory of the
  jar and of ``meteor-lite score`` with ``--jobs 1`` and by default, medians of ``--repeat`` runs;
* ``scaling`` (:mod:`.scaling`, :mod:`.segments`, :mod:`.plot`): seconds per segment on synthetic
  segments of 100 to 5,000 tokens, exact+stem and all English modules, with a log-log plot;
* ``stdio`` and ``api`` (:mod:`.rates`): SCORE requests per second of the two ``-stdio`` servers on a
  1,000-request transcript (answers compared line by line), ``Meteor.score_segment`` calls per second
  and ``Meteor.score_pairs`` pairs per second over the same pairs (one call), beside the jar's stdio rate;
* ``import`` and ``pivot`` (:mod:`.extras`): the English import and the synthetic pivot (no jar figure).

Every figure goes to ``bench-out/bench.json``; the table (Markdown) is printed at the end, each
ratio (meteor-lite / jar) beside its goal.  Figures are as good as the machine is quiet.

    meteor-build check bench [--data ../shared/data] [--repeat 5] [--only system1,stdio] [--strict]
"""

from __future__ import annotations

import json
import logging
import os
import platform
import subprocess
from typing import Any, Dict, List

from ... import jar as jarmod
from . import extras, rates, scaling, system1
from .options import SECTIONS, BenchError, BenchOptions
from .plot import write_plot
from .process import TIME_BIN, measure
from .table import Row, all_met, render

__all__ = ["BenchError", "BenchOptions", "SECTIONS", "measure", "run_bench", "table_rows"]

log = logging.getLogger(__name__)

_JAR_SECTIONS = {"system1", "scaling", "stdio"}


def _java_version(java: str) -> str:
    p = subprocess.run([java, "-version"], capture_output=True, text=True)
    text = p.stderr or p.stdout
    return text.splitlines()[0] if text else "?"


def table_rows(results: Dict[str, Any]) -> List[Row]:
    """Every row of the table, in the order of the sections, from the results of those that ran."""
    out: List[Row] = []
    if "system1" in results:
        out += system1.rows(results["system1"])
    if "scaling" in results:
        out += scaling.rows(results["scaling"])
    if "stdio" in results or "api" in results:
        out += rates.rows(results.get("stdio"), results.get("api"))
    out += extras.import_rows(results.get("import"))
    out += extras.pivot_rows(results.get("pivot"))
    return out


def _run_sections(a: BenchOptions, use_time_bin: bool) -> Dict[str, Any]:
    results: Dict[str, Any] = {}
    if "system1" in a.only:
        results["system1"] = system1.run_system1(a, use_time_bin)
    if "scaling" in a.only:
        results["scaling"] = sc = scaling.run_scaling(a)
        if "error" not in sc and a.plot is not None:
            drawn = write_plot(sc, a.plot)
            sc["plot"] = str(drawn) if drawn else None
    if "stdio" in a.only:
        results["stdio"] = rates.run_stdio(a)
    if "api" in a.only:
        jar_answers = results.get("stdio", {}).get("jar", {}).get("answers")
        results["api"] = rates.run_api(a, jar_answers)
    if "import" in a.only:
        results["import"] = extras.run_import(a, use_time_bin)
    if "pivot" in a.only:
        results["pivot"] = extras.run_pivot(a, a.pivot_lines)
    return results


def _strip_answers(results: Dict[str, Any]) -> None:
    """Leave the servers' answer lines out of bench.json (their comparison stays)."""
    for tool in ("jar", "meteor-lite"):
        results.get("stdio", {}).get(tool, {}).pop("answers", None)
        for per_tool in results.get("scaling", {}).get("modules", {}).values():
            per_tool.get(tool, {}).pop("answers", None)


def run_bench(a: BenchOptions) -> int:
    """Run the selected sections, print the table, write ``bench.json``; the exit status.

    2 when the jar is needed and Java or the jar is missing; 1 with ``strict`` when a goal is not met.
    """
    java = "?"
    if _JAR_SECTIONS & set(a.only):
        try:
            java = jarmod.find_java()
            jarmod.find_jar()
        except jarmod.JarError as e:
            log.error("error: %s", e)
            return 2
    a.out.mkdir(parents=True, exist_ok=True)
    use_time_bin = not a.no_time_bin and os.access(TIME_BIN, os.X_OK)
    results = _run_sections(a, use_time_bin)
    rows = table_rows(results)
    table = render(rows)
    print(f"\nmeteor-lite / Meteor 1.5 jar on this machine ({os.cpu_count()} cores, load {os.getloadavg()[0]:.2f})\n")
    print(table)
    _strip_answers(results)
    report = {"sections": list(a.only), "options": {k: str(v) for k, v in vars(a).items()},
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                          "java": _java_version(java) if java != "?" else "?", "loadavg_at_end": os.getloadavg()},
              "rows": [r.as_dict() for r in rows], "table": table, "results": results}
    (a.out / "bench.json").write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
    log.info("wrote %s", a.out / "bench.json")
    return 1 if a.strict and not all_met(rows) else 0
