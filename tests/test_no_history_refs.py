"""The manual, the code's comments and the shipped data speak to a reader of the project as it is.

A reader has neither the project's list of issues nor the story of how the code came to be, so no text file of the
repository (README.md, docs/, the package, the builders, resources/, tests/ and the top-level build files) may cite an
issue by its number or narrate the steps of development: that history is CHANGELOG.md's, which is the one file left
out.  A failure lists every file:line and the words found.

An issue of another, public project cited with its owner and name (``owner/name#N``, or its address) is a reference a
reader can follow, and is not matched.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator, List

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: What is searched, from the repository's root: folders (walked) and single files.
SEARCHED = ("README.md", "Makefile", "mkdocs.yml", "pyproject.toml", "setup.py", "MANIFEST.in", ".ci",
            "docs", "meteor_lite", "builders", "resources", "tests")

#: Folders that are built or installed, not written: never searched.
NOT_SOURCE = {".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "build", "dist", "site",
              "bench-out", "bundles"}

#: Binary or compressed files, skipped by name (any other file that is not UTF-8 text is skipped too).
BINARY = (".sqlite", ".gz", ".xz", ".bz2", ".zip", ".png", ".jpg", ".so", ".pyc", ".jar", ".tables")

_ORDINAL = r"(?:this|that|last|previous|next|earlier|later|first|second|third|fourth|same|another|other)"

#: The references: an issue's number, and development told step by step (numbered, or "the previous one").
HISTORY = re.compile(
    r"\bissues?[\s-]+(?:no\.\s*)?#?\d+"                    # an issue and its number
    r"|(?:^|(?<=[\s(\[]))#\d{1,4}\b(?![\w\"'])"           # a bare #N (not a colour, an entity or a quoted string)
    r"|\bsessions?[ -]\d+"                                  # a numbered session
    r"|\b" + _ORDINAL + r"\s+(?:sessions?|rounds?)\b(?!\s*\()"  # an ordinal or "this" before either word
    r"|\brounds?\s+(?:of\s+)?(?:development|work)\b"        # the plural, "of development" after it
    r"|(?<!-)\bround\s+\d+\b",                              # a numbered round (not the --rounds option)
    re.IGNORECASE,
)


def searched_files() -> Iterator[Path]:
    """Every text file under SEARCHED, in a stable order, without built folders and CHANGELOG.md."""
    for name in SEARCHED:
        top = ROOT / name
        if top.is_file():
            yield top
            continue
        if not top.is_dir():
            continue
        for path in sorted(top.rglob("*")):
            rel = path.relative_to(ROOT)
            if not path.is_file() or any(part in NOT_SOURCE or part.endswith(".egg-info") for part in rel.parts[:-1]):
                continue
            if path.name == "CHANGELOG.md" or path.name.endswith(BINARY):
                continue
            yield path


def history_refs(text: str) -> List[str]:
    """The references to issues or to steps of development in ``text``, one ``line: words`` entry each."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        words = [m.group(0) for m in HISTORY.finditer(line)]
        if words:
            found.append(f"{number}: {', '.join(repr(w) for w in words)}")
    return found


def _text(path: Path) -> str:
    data = path.read_bytes()
    if b"\0" in data:
        return ""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return ""


def test_the_searched_tree_is_there() -> None:
    """The walk finds the manual and the package (an empty walk would pass the next test vacuously)."""
    names = {p.relative_to(ROOT).as_posix() for p in searched_files()}
    assert {"README.md", "docs/performance.md", "docs/languages.md", "meteor_lite/meteor.py",
            "meteor_lite/tuned_tasks.json", "tests/test_no_history_refs.py"} <= names
    assert "CHANGELOG.md" not in names


# The examples below are written with "~" for the space that makes them references (and "^" where no space goes), so
# that this file holds none of the references it looks for; they are put back together at run time.
CAUGHT = [s.replace("~", " ").replace("^", "") for s in (
    "as issue~34 asked", "see Issue~#34", "fixed (#^34)", "measured in session~34", "the session-^34 notes",
    "this~session's code", "in the last~round", "other~sessions' jobs", "two rounds~of development", "in round~34",
)]
NOT_CAUGHT = [
    "x = round(34)", "rounding to the nearest", "a background job", "`--rounds 34`", "each round tries 11 values",
    "color:#212529", "&#233;", '"input": "#1"', "SparkSession.builder", "the session's temporary directory",
    "huggingface/evaluate#115", 'scope="session"', "a pipe round trip",
]


@pytest.mark.parametrize("text", CAUGHT)
def test_the_pattern_finds_references(text: str) -> None:
    assert history_refs(text), text


@pytest.mark.parametrize("text", NOT_CAUGHT)
def test_the_pattern_leaves_ordinary_words(text: str) -> None:
    assert history_refs(text) == [], text


def test_no_tracker_numbers_or_development_rounds() -> None:
    """No searched file cites an issue's number or narrates development (CHANGELOG.md has the history)."""
    problems = []
    for path in searched_files():
        for ref in history_refs(_text(path)):
            problems.append(f"{path.relative_to(ROOT).as_posix()}:{ref}")
    assert not problems, f"{len(problems)} lines cite issues or narrate development:\n" + "\n".join(problems)
