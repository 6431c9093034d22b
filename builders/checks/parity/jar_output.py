"""Parsers of what Meteor 1.5's scorer prints: scores, the statistics block, ``-ssOut`` lines."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from ...jar import JarError


class JarOutputError(JarError):
    """The jar printed something these parsers do not understand."""


_SEG_RE = re.compile(r"^Segment (\d+) score:\t(.*)$")
_KV_RE = re.compile(r"^([A-Za-z][A-Za-z ]*?):\s+(\S.*)$")
_STATS_KEYS = {
    "Test words": "test_words",
    "Reference words": "reference_words",
    "Chunks": "chunks",
    "Precision": "precision",
    "Recall": "recall",
    "f1": "f1",
    "fMean": "fmean",
    "Fragmentation penalty": "frag_penalty",
    "Final score": "final_score",
}


class _ScoreOutput:
    """Accumulates the parsed lines of one scorer output."""

    def __init__(self) -> None:
        self.header: Dict[str, str] = {}
        self.segs: Dict[int, str] = {}
        self.verbose: Dict[int, List[str]] = {}
        self.stats: Dict[str, Any] = {"stages": {}}
        self.final_text: Optional[str] = None
        self.in_stats = False

    def feed(self, line: str) -> None:
        """Take one line of the output."""
        m = _SEG_RE.match(line)
        if m:
            fields = [x.strip() for x in m.group(2).split("\t")]
            self.segs[int(m.group(1))] = fields[-1]
            self.verbose[int(m.group(1))] = fields[:-1]
            return
        if line.startswith("System level statistics"):
            self.in_stats = True
            return
        if self.in_stats:
            parts = line.split()
            if parts and (parts[0] in {"1", "2", "3", "4", "Total"}) and len(parts) == 7:
                self.stats["stages"][parts[0].lower()] = [int(p) for p in parts[1:]]
                return
        m = _KV_RE.match(line)
        if m:
            self._key_value(m.group(1).strip(), m.group(2).strip())

    def _key_value(self, key: str, val: str) -> None:
        if self.in_stats and key in _STATS_KEYS:
            k = _STATS_KEYS[key]
            if k == "final_score":
                self.final_text = val
            elif k in {"test_words", "reference_words", "chunks"}:
                self.stats[k] = int(float(val))
            else:
                self.stats[k] = float(val)
        elif not self.in_stats:
            self.header[key] = val


def parse_score_output(text: str) -> Dict[str, Any]:
    """Parse the jar's normal (non ``-ssOut``) standard output.

    Returns ``header`` (Eval ID, Task, Modules, Weights, Parameters, ...),
    ``segments`` (list of the score texts in order), ``verbose`` (for each
    segment the texts printed before the score under ``-vOut``: precision,
    recall, fragmentation penalty; empty without ``-vOut``), ``stats`` (numbers of the
    system-level block; ``stages`` holds for each stage 1-4 and ``total`` the
    six counts test content/function/total, reference content/function/total)
    and ``final_text``.
    """
    out = _ScoreOutput()
    for line in text.splitlines():
        out.feed(line)
    if out.final_text is None:
        raise JarOutputError("jar output has no 'Final score:' line:\n" + text[-2000:])
    n = len(out.segs)
    if sorted(out.segs) != list(range(1, n + 1)):
        raise JarOutputError("jar output has missing or out-of-order segment lines")
    return {
        "header": out.header,
        "segments": [out.segs[i] for i in range(1, n + 1)],
        "verbose": [out.verbose[i] for i in range(1, n + 1)],
        "stats": out.stats,
        "final_text": out.final_text,
    }


def parse_ss_output(text: str) -> List[str]:
    """Parse ``-ssOut`` output: one line of 23 numbers per segment (returned as printed)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        parts = ln.split()
        if len(parts) != 23:
            raise JarOutputError(f"unexpected -ssOut line (expected 23 numbers): {ln!r}")
        for p in parts:
            float(p)
    return lines


def parse_ss_line(line: str) -> List[float]:
    """The 23 numbers of one ``-ssOut`` line as floats."""
    parts = line.split()
    if len(parts) != 23:
        raise ValueError(f"expected 23 numbers, got {len(parts)}: {line!r}")
    return [float(p) for p in parts]


def ss_fields(line: str) -> Dict[str, Any]:
    """Named view of an ``-ssOut`` line (handy for selecting segments).

    Keys: ``tst_len``, ``ref_len``, ``tst_func``, ``ref_func``, ``stages``
    (4 lists of tstContent refContent tstFunction refFunction), ``chunks``,
    ``tst_matches``, ``ref_matches``.
    """
    v = parse_ss_line(line)
    return {
        "tst_len": v[0],
        "ref_len": v[1],
        "tst_func": v[2],
        "ref_func": v[3],
        "stages": [v[4 + 4 * i : 8 + 4 * i] for i in range(4)],
        "chunks": v[20],
        "tst_matches": v[21],
        "ref_matches": v[22],
    }
