"""Readers of the shared data (``../shared/data``) the checks compare on."""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Dict, List, Sequence

from ..jar import JarError

#: Characters that would split a segment into two lines for the jar (Java's
#: ``readLine`` breaks on CR and LF).
LINE_BREAKS = ("\n", "\r")


class SharedDataError(JarError):
    """A file of the shared data is not as the checks expect."""


def read_lines(path: "os.PathLike[str] | str") -> List[str]:
    """Lines of a UTF-8 text file without their line ends (one segment a line)."""
    text = Path(path).read_bytes().decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def meteor_example(data_dir: Path, name: str) -> List[str]:
    """A file of ``meteor-example/`` (``system1.hyp``, ``system2.hyp``, ``reference``)."""
    return read_lines(Path(data_dir) / "meteor-example" / name)


def wmt21_rows(data_dir: Path, lp: str) -> List[Dict[str, str]]:
    """Rows of ``wmt21/newstest2021.<lp>.{da,systems}.tsv.gz`` as dicts keyed by the header.

    Rows with a line break inside a field (none in the shipped files) are dropped,
    since the jar reads one segment a line.
    """
    base = Path(data_dir) / "wmt21"
    path = base / f"newstest2021.{lp}.da.tsv.gz"
    if not path.is_file():
        path = base / f"newstest2021.{lp}.systems.tsv.gz"
    if not path.is_file():
        raise FileNotFoundError(f"no WMT21 file for {lp} under {base}")
    return _tsv_rows(path, ("hyp", "ref_A", "ref_B"))


def mqm_rows(data_dir: Path, name: str) -> List[Dict[str, str]]:
    """Rows of ``mqm/<name>.tsv.gz`` (``lp doc seg_id system hyp ref mqm n_raters``) as dicts keyed by the header.

    Rows with a line break inside a field are dropped, as in :func:`wmt21_rows`.
    """
    path = Path(data_dir) / "mqm" / f"{name}.tsv.gz"
    if not path.is_file():
        raise FileNotFoundError(f"no MQM file {path}")
    return _tsv_rows(path, ("hyp", "ref"))


def _tsv_rows(path: Path, text_columns: Sequence[str]) -> List[Dict[str, str]]:
    """Rows of a gzipped TSV with a header line, as dicts; rows with a line break in a text column are dropped."""
    rows: List[Dict[str, str]] = []
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != len(header):
                raise SharedDataError(f"{path}: a row has {len(parts)} fields, header {len(header)}")
            row = dict(zip(header, parts))
            if any(c in row.get(col, "") for col in text_columns for c in LINE_BREAKS):
                continue
            rows.append(row)
    return rows
