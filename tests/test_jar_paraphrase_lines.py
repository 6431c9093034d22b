"""``meteor-jar -a TABLE`` reads a paraphrase table as the jar does: the probability line of an entry is not read
(``NaN``, ``Infinity``, ``1e400``, ``abc``, a byte order mark), an entry with an empty phrase is skipped.  The
scores equal those of the same table with ordinary probabilities, and the jar's (``java`` marker)."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

ENTRIES = [("big car", "large automobile"), ("the cat", "the feline"), ("", "something")]
ODD = ["\ufeffNaN", "abc", "1e400", "Infinity"]


def _table(path: Path, probabilities: List[str]) -> Path:
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for prob, (phrase, para) in zip(probabilities, ENTRIES):
            f.write(f"{prob}\n{phrase}\n{para}\n")
    return path


def _files(tmp_path: Path) -> List[str]:
    (tmp_path / "h").write_text("the cat sat on the mat\na big car\n", encoding="utf-8")
    (tmp_path / "r").write_text("the cat sat on the mat\na large automobile\n", encoding="utf-8")
    return [str(tmp_path / "h"), str(tmp_path / "r"), "-l", "en", "-m", "exact paraphrase", "-q"]


def _ours(args: List[str]) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([sys.executable, "-m", "meteor_lite.jarcli", *args], capture_output=True, text=True)


def test_probability_lines_are_not_read_and_empty_phrases_skipped(tmp_path: Path) -> None:
    args = _files(tmp_path)
    odd = _ours([*args, "-a", str(_table(tmp_path / "odd.gz", ODD))])
    clean = _ours([*args, "-a", str(_table(tmp_path / "clean.gz", ["0.5", "0.5"]))])  # without the empty phrase
    exact = _ours(args[:-3] + ["-m", "exact", "-q"])
    assert odd.returncode == clean.returncode == 0, odd.stderr + clean.stderr
    assert odd.stdout == clean.stdout and odd.stdout != exact.stdout  # the table is used, not dropped


@pytest.mark.java
def test_the_jar_scores_the_same_table_the_same(tmp_path: Path) -> None:
    from conftest import ROOT

    jar = next(ROOT.glob(".venv/lib/python3*/site-packages/pycocoevalcap/meteor/meteor-1.5.jar"), None)
    if jar is None:
        pytest.skip("the official jar (pycocoevalcap) is not installed in .venv")
    args = [*_files(tmp_path), "-a", str(_table(tmp_path / "odd.gz", ODD))]
    theirs = subprocess.run(["java", "-Xmx2G", "-jar", str(jar), *args], capture_output=True, text=True, timeout=600)
    assert theirs.returncode == 0, theirs.stderr[-2000:]
    assert _ours(args).stdout == theirs.stdout
