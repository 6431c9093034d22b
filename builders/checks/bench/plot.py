"""The length-scaling plot (docs/img/length-scaling.png): seconds per segment against tokens, log-log, both programs.

Needs matplotlib (the ``bench`` extra); without it the plot is skipped with a message.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from meteor_lite.atomicfile import atomic_path

log = logging.getLogger(__name__)

_STYLE = {"jar": ("tab:red", "o"), "meteor-lite": ("tab:blue", "s")}
_LINES = {"exact-stem": ("-", "exact+stem"), "full": ("--", "all English modules")}


def series(result: Dict[str, Any], modules: str, tool: str) -> "Tuple[List[Tuple[int, float]], List[int]]":
    """Points (tokens, seconds) measured for one program, and the lengths where it timed out."""
    per_length = result["modules"].get(modules, {}).get(tool, {}).get("per_length", {})
    points, timeouts = [], []
    for n in result["lengths"]:
        entry = per_length.get(n) or per_length.get(str(n))
        if entry and entry["status"] == "ok":
            points.append((n, entry["median_s"]))
        elif entry and entry["status"] == "timeout":
            timeouts.append(n)
    return points, timeouts


def write_plot(result: Dict[str, Any], path: Path) -> Optional[Path]:
    """Draw the plot to ``path`` (atomically); the path, or None when matplotlib is missing or nothing was measured."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log.warning("no plot: matplotlib is not installed (pip install 'meteor-lite[bench]')")
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    drawn = False
    for modules in result["modules"]:
        style, label = _LINES.get(modules, ("-.", modules))
        for tool, (colour, marker) in _STYLE.items():
            points, timeouts = series(result, modules, tool)
            if points:
                ax.plot(*zip(*points), style, color=colour, marker=marker, label=f"{tool}, {label}")
                drawn = True
            if timeouts:
                ax.plot(timeouts, [result["timeout_s"]] * len(timeouts), "^", color=colour, fillstyle="none",
                        label=f"{tool}, {label}: > {result['timeout_s']:g} s")
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("reference tokens per segment")
    ax.set_ylabel("seconds per segment (net of start-up)")
    ax.set_title(f"Cost per segment, -l en (median of {result['segments_per_length']} synthetic segments)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    try:
        with atomic_path(path, ".tmp.png") as tmp:
            fig.savefig(tmp, metadata={"Software": None})
    finally:
        plt.close(fig)
    return path
