"""Reading human judgments and metric scores into aligned system x item matrices.

* Human judgments: a TSV (optionally ``.gz``) with a header naming ``system``, ``seg_id`` and a
  score column (``mqm``, ``esa``, or ``da_z`` / ``da_raw`` / ``score``; ``--human-column`` picks another).
  The MQM sets of ``../shared/data/mqm`` and ``../shared/data/wmt-mqm`` and WMT21's DA sets have this
  layout.  Higher must mean better: MQM's penalties (0 best, negative worse), ESA's 0-100 and Unbabel's
  MQM scale (100 perfect, down to about -400) already do; correlations need no common scale.
  A human translation that *is* the reference (a system named like ``refA`` whose every hypothesis
  equals the ``ref`` column) is left out: its rows would correlate the reference with itself.
  An empty ``doc`` cell is no document (folds over documents then put that segment alone).
* Metric scores: a TSV with ``system``, ``seg_id`` and ``score`` columns; or a directory of
  ``<system>.json`` files written by ``meteor-lite score --format json`` whose segments are that
  system's rows of the judgments file in file order (``meteor-lite correlate --split DIR`` writes
  ``<system>.hyp`` / ``<system>.ref`` in that order).  From JSON the system score is the corpus
  score (summed statistics), and each segment's statistics are kept so a bootstrap can re-sum them.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import IO, Callable, Dict, List, Optional, Sequence, Set, Tuple

from ..cappedlines import MAX_TSV_INFLATION, TSV_INFLATION_FLOOR, capped_lines, gunzip_capped
from ..errors import InputError

__all__ = ["Judgments", "MetricScores", "read_judgments", "merge_judgments", "judgments_label", "read_metric", "split_inputs", "HUMAN_SYSTEM"]

#: Names taken for human translations unless ``human_systems`` is given (refA, ref-B, Human-A...).
HUMAN_SYSTEM = re.compile(r"^(ref|human)", re.IGNORECASE)
_HUMAN_COLUMNS = ("mqm", "esa", "da_z", "score", "da_raw")
#: Reference columns of a judgments file: ``ref``, ``ref_a``, ``ref-b``, ``ref2``, ...
_REF_COLUMN = re.compile(r"^ref(?:[_-]?[a-z]|[_-]?[0-9]+)?$")

Matrix = List[List[Optional[float]]]

#: System names that can name the files ``--split`` writes.
_SAFE_FILE_NAME = re.compile(r"[\w+@-][\w.+@ -]{0,199}")


@dataclass
class Judgments:
    """Human scores as a systems x items matrix (None where a system has no judged segment)."""

    systems: List[str]
    items: List[str]
    gold: Matrix
    human_systems: Set[str]
    #: per system, the item indices in file order (how ``<system>.json`` segments map to items)
    order: Dict[str, List[int]] = field(default_factory=dict)
    #: per system, (hypothesis, reference) texts in file order when the file has them
    texts: Dict[str, List[Tuple[str, str]]] = field(default_factory=dict)
    #: per system, every reference of each row in file order (columns ``ref``, ``ref_a``, ``ref_b``, ...,
    #: ``ref2``...; empty cells left out), when the file has hypotheses
    refs: Dict[str, List[List[str]]] = field(default_factory=dict)
    #: item -> its document (the ``doc`` column), when the file has one (``meteor-build tune --cv documents``)
    docs: Dict[str, str] = field(default_factory=dict)
    #: human systems left out because every hypothesis of theirs is the reference itself
    reference_systems: List[str] = field(default_factory=list)


@dataclass
class MetricScores:
    """A metric's segment scores keyed (system, item), and system scores when the input had them."""

    name: str
    segments: Dict[Tuple[str, str], float]
    system_scores: Dict[str, float] = field(default_factory=dict)
    #: per (system, item): the segment's statistics dict (meteor-lite JSON), for re-summing
    stats: Dict[Tuple[str, str], dict] = field(default_factory=dict)
    signature: str = ""


#: Longest line of a judgments or metric TSV, in characters (its line end left out): a segment with its references
#: is a few kB; a longer line is refused (a 50 MB cell, a decompression bomb of one endless line) before it fills
#: the memory (:func:`meteor_lite.cappedlines.capped_lines`).
MAX_LINE = 1_000_000


def _open_text(path: str) -> IO[str]:
    """Open a text file, gunzipping ``*.gz`` as it is read, up to :data:`~meteor_lite.cappedlines.MAX_TSV_INFLATION`
    times the file's size (at least :data:`~meteor_lite.cappedlines.TSV_INFLATION_FLOOR` bytes)."""
    if path.endswith(".gz"):
        raw = open(path, "rb")  # noqa: SIM115 - closed with the reader
        try:
            inflated = gunzip_capped(raw, path, ratio=MAX_TSV_INFLATION, floor=TSV_INFLATION_FLOOR, close_raw=True,
                                     what="not a judgments or scores file of this size (decompress it first if it is one)")
        except BaseException:
            raw.close()
            raise
        return io.TextIOWrapper(inflated, encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")


def _rows(path: str) -> Tuple[List[str], List[List[str]]]:
    """(header, rows) of a tab-separated file (no quoting: MT text holds quote characters).

    Read a line at a time, each at most :data:`MAX_LINE` characters; a malformed file (not UTF-8, a NUL
    byte, a line too long, a damaged or truncated ``.gz``) is one :class:`InputError` naming the file and
    the line.
    """
    import zlib

    rows: List[List[str]] = []
    line = 0
    try:
        with _open_text(path) as fh:
            for line, text in enumerate(capped_lines(fh, path, MAX_LINE, what="not a judgments or scores TSV"), 1):
                if "\x00" in text:
                    raise InputError(f"{path}:{line}: a NUL character (U+0000): not a text TSV")
                text = text.rstrip("\r\n")
                if text:
                    rows.append(text.split("\t"))
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}:{line + 1}: invalid UTF-8 (byte 0x{exc.object[exc.start]:02x})") from None
    except EOFError:
        raise InputError(f"{path}: the gzip stream ends early after line {line} (a truncated file)") from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise InputError(f"{path}: not a valid gzip file after line {line} ({exc})") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not rows:
        raise InputError(f"{path}: empty file")
    return [c.strip().lower() for c in rows[0]], rows[1:]


def _column(header: List[str], path: str, *names: str) -> int:
    """Index of the first of ``names`` in ``header``."""
    for name in names:
        if name in header:
            return header.index(name)
    raise InputError(f"{path}: no column {' / '.join(names)} in header {header}")


def _float(text: str, path: str, line: int) -> Optional[float]:
    """A score cell: float, or None for an empty / 'None' / 'nan' cell (missing); an infinite one is an error."""
    if text.strip().lower() in ("", "none", "nan", "na"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{path}:{line}: not a number: {text!r}") from None
    if math.isinf(value):
        raise InputError(f"{path}:{line}: not a finite number: {text!r} (a missing score is an empty cell, None or nan)")
    return None if math.isnan(value) else value


def _json_score(value: object, file: str, where: str) -> float:
    """A score of a meteor-lite JSON file (None: 0.0, as an empty segment); anything but a finite number is an error."""
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{file}: {where}: the score is not a finite number: {value!r}")
    return float(value)


def read_judgments(path: str, column: Optional[str] = None, human_systems: Optional[Sequence[str]] = None) -> Judgments:
    """Read a judgments TSV into a :class:`Judgments` matrix."""
    header, rows = _rows(path)
    sys_col = _column(header, path, "system", "sys")
    seg_col = _column(header, path, "seg_id", "segment", "item")
    score_col = _column(header, path, *((column.lower(),) if column else _HUMAN_COLUMNS))
    hyp_col = header.index("hyp") if "hyp" in header else None
    ref_col = header.index("ref") if "ref" in header else (header.index("ref_a") if "ref_a" in header else None)
    ref_cols = [i for i, name in enumerate(header) if _REF_COLUMN.match(name)]
    doc_col = header.index("doc") if "doc" in header else None
    if doc_col is not None and _ids_repeat(rows, sys_col, seg_col):
        # segment ids numbered within each document (the biomedical MQM sets): the item is DOC:SEG_ID
        rows = [r[:seg_col] + [f"{r[doc_col]}:{r[seg_col]}"] + r[seg_col + 1:] if len(r) > max(doc_col, seg_col) else r
                for r in rows]
    is_human = (lambda name: name in human_systems) if human_systems is not None else (lambda name: bool(HUMAN_SYSTEM.match(name)))
    mirrors = _reference_systems(rows, sys_col, hyp_col, ref_col, is_human)
    if mirrors:
        rows = [r for r in rows if len(r) <= sys_col or r[sys_col] not in mirrors]
    systems: List[str] = []
    items: List[str] = []
    sys_index: Dict[str, int] = {}
    item_index: Dict[str, int] = {}
    cells: Dict[Tuple[int, int], Optional[float]] = {}
    order: Dict[str, List[int]] = {}
    texts: Dict[str, List[Tuple[str, str]]] = {}
    refs: Dict[str, List[List[str]]] = {}
    docs: Dict[str, str] = {}
    for line, row in enumerate(rows, start=2):
        if len(row) <= max(sys_col, seg_col, score_col):
            raise InputError(f"{path}:{line}: {len(row)} columns, header has {len(header)}")
        name, item = row[sys_col], row[seg_col]
        s = sys_index.setdefault(name, len(systems))
        if s == len(systems):
            systems.append(name)
        i = item_index.setdefault(item, len(items))
        if i == len(items):
            items.append(item)
        if (s, i) in cells:
            raise InputError(f"{path}:{line}: system {name!r} has segment {item!r} twice")
        cells[(s, i)] = _float(row[score_col], path, line)
        order.setdefault(name, []).append(i)
        if doc_col is not None and doc_col < len(row) and row[doc_col].strip():
            if docs.setdefault(item, row[doc_col]) != row[doc_col]:
                raise InputError(f"{path}:{line}: segment {item!r} is in document {row[doc_col]!r} here and in "
                                 f"{docs[item]!r} on an earlier line")
        if hyp_col is not None and ref_col is not None:
            texts.setdefault(name, []).append((row[hyp_col], row[ref_col]))
            refs.setdefault(name, []).append([row[c] for c in ref_cols if c < len(row) and row[c].strip()])
    gold: Matrix = [[cells.get((s, i)) for i in range(len(items))] for s in range(len(systems))]
    humans = set(human_systems) if human_systems is not None else {s for s in systems if HUMAN_SYSTEM.match(s)}
    return Judgments(systems, items, gold, humans, order, texts, refs, docs, sorted(mirrors))


def _reference_systems(rows: List[List[str]], sys_col: int, hyp_col: Optional[int], ref_col: Optional[int],
                       is_human: "Callable[[str], bool]") -> Set[str]:
    """Human systems whose every hypothesis equals the reference: the reference itself, judged as a system."""
    if hyp_col is None or ref_col is None:
        return set()
    same: Dict[str, bool] = {}
    for r in rows:
        if len(r) > max(sys_col, hyp_col, ref_col) and is_human(r[sys_col]):
            same[r[sys_col]] = same.get(r[sys_col], True) and r[hyp_col] == r[ref_col]
    return {name for name, all_same in same.items() if all_same}


def _ids_repeat(rows: List[List[str]], sys_col: int, seg_col: int) -> bool:
    """True when some system has a segment id twice (ids counted within documents)."""
    seen: Set[Tuple[str, str]] = set()
    for r in rows:
        if len(r) > max(sys_col, seg_col):
            key = (r[sys_col], r[seg_col])
            if key in seen:
                return True
            seen.add(key)
    return False


def judgments_label(path: str) -> str:
    """A judgments file's name in a merged grid (:func:`merge_judgments`): its base name without ``.gz``,
    ``.tsv`` and ``.mqm`` (``biomed2021.en-de.dev``)."""
    base = os.path.basename(path)
    for ext in (".gz", ".tsv", ".mqm"):
        base = base[: -len(ext)] if base.endswith(ext) else base
    return base


def merge_judgments(parts: Sequence[Tuple[str, Judgments]]) -> Judgments:
    """One grid of several judgment sets: systems and items named ``LABEL/name`` (``LABEL`` per set).

    Segment statistics grouped by system (``seg:sys:...``) then average over every set's systems, and
    a bootstrap resamples the items of all sets together.
    """
    if len(parts) == 1:
        return parts[0][1]
    out = Judgments([], [], [], set())
    for label, j in parts:
        base = len(out.items)
        out.items.extend(f"{label}/{i}" for i in j.items)
        out.docs.update({f"{label}/{i}": f"{label}/{d}" for i, d in j.docs.items()})
        for s, name in enumerate(j.systems):
            new = f"{label}/{name}"
            out.systems.append(new)
            pad: List[Optional[float]] = [None] * base
            out.gold.append(pad + list(j.gold[s]))
            if name in j.human_systems:
                out.human_systems.add(new)
            if name in j.order:
                out.order[new] = [base + i for i in j.order[name]]
            if name in j.texts:
                out.texts[new] = list(j.texts[name])
            if name in j.refs:
                out.refs[new] = list(j.refs[name])
    for row in out.gold:
        row.extend([None] * (len(out.items) - len(row)))
    return out


def _read_json_dir(path: str, judgments: Judgments) -> MetricScores:
    """``<system>.json`` files (meteor-lite ``--format json``), segments in the judgments' file order."""
    metric = MetricScores(os.path.basename(os.path.normpath(path)), {})
    for name in judgments.systems:
        file = os.path.join(path, f"{name}.json")
        if not os.path.exists(file):
            raise InputError(f"{path}: no {name}.json (one file per system of the judgments)")
        try:
            with open(file, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read {file}: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("segments", []), list):
            raise InputError(f"{file}: not a meteor-lite JSON report (an object with a list of 'segments')")
        segments = data.get("segments", [])
        order = judgments.order[name]
        if len(segments) != len(order):
            raise InputError(f"{file}: {len(segments)} segments, the judgments have {len(order)} for {name!r}")
        for n, (i, seg) in enumerate(zip(order, segments), start=1):
            key = (name, judgments.items[i])
            if not isinstance(seg, dict):
                raise InputError(f"{file}: segment {n} is not a JSON object")
            metric.segments[key] = _json_score(seg.get("score"), file, f"segment {n}")
            if "stats" in seg:
                metric.stats[key] = seg["stats"]
        metric.system_scores[name] = _json_score(data.get("score"), file, "the corpus score")
        metric.signature = data.get("signature", metric.signature)
    return metric


def read_metric(path: str, judgments: Judgments, name: Optional[str] = None) -> MetricScores:
    """Read metric scores: a TSV (system, seg_id, score) or a directory of meteor-lite JSON files."""
    if os.path.isdir(path):
        metric = _read_json_dir(path, judgments)
    else:
        header, rows = _rows(path)
        sys_col = _column(header, path, "system", "sys")
        seg_col = _column(header, path, "seg_id", "segment", "item")
        score_col = _column(header, path, "score", "metric")
        base = os.path.basename(path)
        metric = MetricScores(base.split(".")[0] or base, {})
        first: Dict[Tuple[str, str], int] = {}
        for line, row in enumerate(rows, start=2):
            if len(row) <= max(sys_col, seg_col, score_col):
                raise InputError(f"{path}:{line}: {len(row)} columns, header has {len(header)}")
            key = (row[sys_col], row[seg_col])
            if key in first:  # never keep one of two scores silently
                raise InputError(
                    f"{path}:{line}: system {key[0]!r} has segment {key[1]!r} twice (first on line {first[key]})"
                )
            first[key] = line
            value = _float(row[score_col], path, line)
            if value is not None:
                metric.segments[key] = value
    if name:
        metric.name = name
    return metric


def split_inputs(judgments: Judgments, out_dir: str) -> List[str]:
    """Write ``<system>.hyp`` and ``<system>.ref`` (file order) for scoring each system; return the systems."""
    if not judgments.texts:
        raise InputError("the judgments file has no hyp/ref columns to split")
    for name in judgments.texts:  # a system's name becomes a file name: never a path, a hidden or an odd file
        if not _SAFE_FILE_NAME.fullmatch(name):
            from ..printable import one_line

            raise InputError(f"system {one_line(repr(name))[:80]} cannot name a file (<system>.hyp): use letters, "
                             "digits and . _ + - @ only, not starting with '.'")
    os.makedirs(out_dir, exist_ok=True)
    for name, pairs in judgments.texts.items():
        for ext, k in (("hyp", 0), ("ref", 1)):
            with open(os.path.join(out_dir, f"{name}.{ext}"), "w", encoding="utf-8") as fh:
                fh.writelines(p[k].replace("\n", " ") + "\n" for p in pairs)
    return list(judgments.texts)
