"""The examples of README.md and docs/*.md, read from their fenced code blocks (the docs check, tests/test_docs.py).

The convention (docs/contributing.md, "The docs check"):

- a fence's info string says what the block is: ``sh`` (commands, run by bash), ``console`` (``$ `` commands, each
  followed by the output it prints), ``python`` (a script), ``pycon`` (``>>>`` lines and their output, run by
  doctest); ``text``, ``toml``, ``sql``, ``json``, ``tsv``, ``c`` and ``html`` blocks are shown, never run.  A
  fence without an info string is an error (say what it is);
- ``<!-- docs-check: skip REASON -->`` on the line before a fence leaves that example out of the check; the
  reason is required and says why it cannot run in CI (hours, the jar, a cluster, root, the network) and what
  runs it instead (``make parity``, ``make bench``, a maintainer target).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

ROOT = Path(__file__).resolve().parent.parent

#: Info strings of examples that run, and of blocks that are only shown.
RUN_KINDS = frozenset({"sh", "console", "python", "pycon"})
SHOWN_KINDS = frozenset({"text", "toml", "sql", "json", "tsv", "c", "html", "diff"})
SKIP_MARK = re.compile(r"^\s*<!--\s*docs-check:\s*skip\b(?P<reason>.*?)-->\s*$")
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<ticks>```+)(?P<info>[^`]*)$")


@dataclass
class Example:
    """One fenced block: where it is, what kind, its text, and why it is not run (None: it runs)."""

    path: Path
    line: int  # of the opening fence, 1-based
    kind: str
    text: str
    skip: Optional[str] = None
    problem: Optional[str] = None  # a malformed block or marker

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents(root: Path = ROOT) -> List[Path]:
    """README.md and every page of docs/ (a new page is picked up)."""
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def examples(path: Path) -> List[Example]:
    """The fenced blocks of one Markdown file, in order."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found: List[Example] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, info = m.group("indent"), m.group("ticks"), m.group("info").strip()
        start = i
        body: List[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != ticks:
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        i += 1
        kind = info.split()[0].lower() if info else ""
        ex = Example(path, start + 1, kind, "\n".join(body) + "\n")
        prev = lines[start - 1] if start > 0 else ""
        mark = SKIP_MARK.match(prev)
        if mark:
            reason = mark.group("reason").strip()
            if not reason:
                ex.problem = "a docs-check skip marker without a reason"
            ex.skip = reason or "?"
        elif "docs-check" in prev:
            ex.problem = f"a docs-check marker not understood: {prev.strip()!r} (write <!-- docs-check: skip REASON -->)"
        if not kind:
            ex.problem = "a fence without an info string: say what the block is (sh, console, python, pycon, text, ...)"
        elif kind not in RUN_KINDS | SHOWN_KINDS:
            ex.problem = f"unknown info string {kind!r} (run: {', '.join(sorted(RUN_KINDS))}; shown: {', '.join(sorted(SHOWN_KINDS))})"
        found.append(ex)
    return found


def console_steps(text: str) -> List["tuple[str, str]"]:
    """``(command, expected output)`` pairs of a ``console`` block: ``$ `` starts a command (a line ending in
    ``\\`` continues it), the lines up to the next ``$ `` are its output."""
    steps: List["tuple[str, List[str]]"] = []
    cont = False
    for line in text.rstrip("\n").split("\n"):
        if cont:
            steps[-1] = (steps[-1][0] + "\n" + line, steps[-1][1])
            cont = line.endswith("\\")
        elif line.startswith("$ "):
            steps.append((line[2:], []))
            cont = line.endswith("\\")
        elif steps:
            steps[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"output before the first '$ ' command: {line!r}")
    return [(cmd, "\n".join(out)) for cmd, out in steps]


def output_matches(expected: str, actual: str) -> bool:
    """Whether ``actual`` is ``expected``, where a line ``...`` stands for any lines (none included) and
    ``...`` inside a line for any text; trailing white space is ignored."""
    parts: List[str] = []
    for line in expected.rstrip("\n").split("\n"):
        if line.strip() == "...":
            parts.append(r"(?:.*\n)*?")
        else:
            parts.append(".*?".join(re.escape(p) for p in line.rstrip().split("...")) + r"[ \t]*\n")
    text = "\n".join(x.rstrip() for x in actual.rstrip("\n").split("\n")) + "\n"
    return re.fullmatch("".join(parts), text) is not None
