"""The one table of ``make bench``: every figure of meteor-lite beside the jar's, as a ratio, against the goals."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional


@dataclass
class Row:
    """One line of the table.

    ``ratio`` is meteor-lite's figure over the jar's; ``goal`` is a bound on
    it (``("<=", 0.2)``: at most 0.2x the jar's; ``(">=", 5)``: at least 5x),
    or on meteor-lite's own figure when there is no jar figure (``absolute``).
    """

    name: str
    unit: str
    jar: Optional[float] = None
    lite: Optional[float] = None
    goal: Optional["tuple[str, float]"] = None
    absolute: bool = False
    note: str = ""
    jar_text: str = ""
    lite_text: str = ""

    @property
    def ratio(self) -> Optional[float]:
        """meteor-lite / jar (``None`` when either is missing or the jar's is zero)."""
        if self.jar is None or self.lite is None or self.jar == 0:
            return None
        return self.lite / self.jar

    @property
    def ok(self) -> Optional[bool]:
        """Whether the goal is met (``None``: no goal, or nothing to judge)."""
        if self.goal is None:
            return None
        value = self.lite if self.absolute else self.ratio
        if value is None:
            return None
        op, bound = self.goal
        return value <= bound if op == "<=" else value >= bound

    def as_dict(self) -> Dict[str, Any]:
        """The row for ``bench.json``."""
        d = asdict(self)
        d["ratio"] = self.ratio
        d["ok"] = self.ok
        return d


def fmt(value: Optional[float], text: str = "") -> str:
    """A figure for the table: ``text`` when given (e.g. ``>300``), ``n/a`` when missing, else 3-4 significant digits."""
    if text:
        return text
    if value is None:
        return "n/a"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 0.1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def _goal_text(row: Row) -> str:
    if row.goal is None:
        return ""
    op, bound = row.goal
    sign = "≤" if op == "<=" else "≥"
    return f"{sign} {bound:g} {row.unit}" if row.absolute else f"{sign} {bound:g}×"


def _verdict(row: Row) -> str:
    ok = row.ok
    return "" if ok is None else ("PASS" if ok else "FAIL")


def render(rows: List[Row]) -> str:
    """The table as Markdown (what ``make bench`` prints and docs/performance.md quotes)."""
    head = ["", "unit", "Meteor 1.5 jar", "meteor-lite", "ratio", "goal", ""]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        ratio = "" if r.ratio is None else f"{r.ratio:.3g}×"
        cells = [r.name, r.unit, fmt(r.jar, r.jar_text), fmt(r.lite, r.lite_text), ratio, _goal_text(r), _verdict(r)]
        lines.append("| " + " | ".join(cells) + " |")
    notes = [f"{r.name}: {r.note}" for r in rows if r.note]
    if notes:
        lines.append("")
        lines.extend(f"- {n}" for n in notes)
    return "\n".join(lines)


def all_met(rows: List[Row]) -> bool:
    """True when no row fails its goal (rows without a verdict do not count)."""
    return all(r.ok is not False for r in rows)
