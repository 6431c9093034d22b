"""Reading a WMT-style systems file: one TSV (optionally gzipped) holding every system's output.

The layout is that of WMT's flattened test sets (``newstest2021.<lp>.systems.tsv.gz``,
``newstest2021.<lp>.da.tsv.gz``): a header line naming the columns, then one line per
(system, segment) with the system's hypothesis and the segment's references::

    lp  seg_id  system  hyp  ref_A  ref_B  [more columns, ignored]

The file is read whole and checked before anything is scored, so that a bad line is one
:class:`~meteor_lite.errors.InputError` naming the file, the line and the problem: a missing
column, a line with another number of fields than the header, a system with the same segment
twice, a row with no reference, invalid UTF-8, a carriage return inside a line.

A human translation judged as a system (WMT's ``ref-B``) has, on every row, the hypothesis
equal to one reference column; scored against itself it would get 1.0.  Such a column is left
out of that system's references (:attr:`SystemsFile.self_references` says which), as WMT does
when it scores a human translation against the other references; where a row of that system has
no other reference, the column is kept (:attr:`SystemsFile.identical`).
"""

from __future__ import annotations

import gzip
import io
import os
import re
import stat
import sys
import zlib
from dataclasses import dataclass, field
from typing import BinaryIO, Dict, Iterator, List, Optional, Sequence, Tuple

from ..cappedlines import MAX_TSV_INFLATION, TSV_INFLATION_FLOOR, capped_lines, gunzip_capped
from ..errors import InputError
from .io import invalid_utf8

__all__ = [
    "DEFAULT_SYSTEM_COLUMN", "DEFAULT_SEGMENT_COLUMN", "DEFAULT_HYP_COLUMN", "REF_COLUMN",
    "SystemRow", "SystemsFile", "read_systems_file",
]

DEFAULT_SYSTEM_COLUMN = "system"
DEFAULT_SEGMENT_COLUMN = "seg_id"
DEFAULT_HYP_COLUMN = "hyp"
#: The language-pair column (``en-de``): its target language is the file's language.
LP_COLUMN = "lp"
#: Reference columns found without ``ref_columns``: ``ref``, ``ref_A``, ``ref-b``, ``ref2``, ... (any case).
REF_COLUMN = re.compile(r"^ref(?:[_-]?[a-z]|[_-]?[0-9]+)?$", re.IGNORECASE)
_GZIP_MAGIC = b"\x1f\x8b"
#: The longest line read (bytes, after decompression, its line end left out): a longer one is refused when it is
#: met, before it is held whole (a gzip bomb of one endless line costs one line's buffer, not the file;
#: :func:`meteor_lite.cappedlines.capped_lines`).
MAX_LINE_BYTES = 1_000_000


@dataclass(frozen=True)
class SystemRow:
    """One line of the file: a system's hypothesis for a segment, and that segment's references."""

    #: line number in the file (the header is line 1)
    line: int
    system: str
    seg_id: str
    hyp: str
    #: one entry per reference column of :attr:`SystemsFile.ref_columns`; None where the cell is empty
    refs: Tuple[Optional[str], ...]


@dataclass
class SystemsFile:
    """A checked systems file: its rows in file order, and what was found about them."""

    path: str
    ref_columns: List[str]
    rows: List[SystemRow]
    #: systems in the order they first appear
    systems: List[str]
    #: the target language of the ``lp`` column when every row has the same pair (``en-de`` -> ``de``)
    target_language: Optional[str] = None
    #: system -> reference columns equal to its hypothesis on every row, left out of its references
    self_references: Dict[str, List[str]] = field(default_factory=dict)
    #: system -> such columns kept, because some row of the system has no other reference (it scores 1.0 there)
    identical: Dict[str, List[str]] = field(default_factory=dict)

    def references(self, row: SystemRow) -> List[Optional[str]]:
        """The references ``row`` is scored against (None: an empty cell or a column left out for its system)."""
        skip = self.self_references.get(row.system)
        if not skip:
            return list(row.refs)
        return [None if col in skip else r for col, r in zip(self.ref_columns, row.refs)]

    def system_rows(self, system: str) -> List[SystemRow]:
        """The rows of ``system``, in file order."""
        return [r for r in self.rows if r.system == system]


def read_systems_file(
    path: str,
    *,
    system_column: str = DEFAULT_SYSTEM_COLUMN,
    segment_column: str = DEFAULT_SEGMENT_COLUMN,
    hyp_column: str = DEFAULT_HYP_COLUMN,
    ref_columns: Optional[Sequence[str]] = None,
) -> SystemsFile:
    """Read and check a systems TSV (``.gz`` or plain, found by its first bytes; ``-``: standard input).

    ``ref_columns`` names the reference columns (default: every column named like
    :data:`REF_COLUMN`, in header order); empty cells are missing references.  Column names
    match exactly, else ignoring case.  Raises :class:`InputError` naming the file and line.
    """
    name = "<stdin>" if path == "-" else path
    lines = _lines(path, name)
    try:
        first = next(lines)
    except StopIteration:
        raise InputError(f"{name}: empty file (expected a header line naming the columns)") from None
    header = first.split("\t")
    folded = [h.strip().lower() for h in header]
    twice = next((h for i, h in enumerate(header) if folded[i] and folded.index(folded[i]) != i), None)
    if twice is not None:
        raise InputError(f"{name}:1: the header names column {twice!r} twice (columns are found by name)")
    col = _ColumnFinder(name, header)
    sys_i, seg_i, hyp_i = col.find(system_column, "system"), col.find(segment_column, "segment"), col.find(hyp_column, "hypothesis")
    if ref_columns:
        ref_idx = [col.find(c, "reference") for c in ref_columns]
    else:
        ref_idx = [i for i, c in enumerate(header) if REF_COLUMN.match(c.strip())]
        if not ref_idx:
            raise InputError(f"{name}:1: no reference column in the header ({_listed(header)}): name one with "
                             "--ref-column (columns called ref, ref_A, ref_B, ... are found without it)")
    lp_i = next((i for i, c in enumerate(header) if c.strip().lower() == LP_COLUMN), None)
    out = SystemsFile(name, [header[i] for i in ref_idx], [], [])
    seen: Dict[Tuple[str, str], int] = {}
    pairs = set()
    known = set()
    nul: List[int] = []  # the first line holding a NUL, then the count
    for number, text in enumerate(lines, start=2):
        if "\x00" in text:
            nul = [nul[0] if nul else number, (nul[1] if nul else 0) + 1]
        cells = text.split("\t")
        if len(cells) != len(header):
            raise InputError(f"{name}:{number}: {len(cells)} tab-separated field(s), but the header has {len(header)}"
                             + (" (an empty line)" if text == "" else ""))
        system, seg_id = cells[sys_i], cells[seg_i]
        if not system.strip() or not seg_id.strip():
            what = header[sys_i] if not system.strip() else header[seg_i]
            raise InputError(f"{name}:{number}: empty {what!r} cell")
        earlier = seen.setdefault((system, seg_id), number)
        if earlier != number:
            raise InputError(f"{name}:{number}: system {system!r} has segment {seg_id!r} twice (first on line {earlier})")
        refs = tuple(cells[i] if cells[i].strip() else None for i in ref_idx)
        if all(r is None for r in refs):
            raise InputError(f"{name}:{number}: no reference: {_listed([header[i] for i in ref_idx])} "
                             f"{'is' if len(ref_idx) == 1 else 'are all'} empty")
        if system not in known:
            known.add(system)
            out.systems.append(system)
        if lp_i is not None:
            pairs.add(cells[lp_i].strip())
        out.rows.append(SystemRow(number, system, seg_id, cells[hyp_i], refs))
    if not out.rows:
        raise InputError(f"{name}: no rows after the header")
    if nul:
        import warnings

        from ..errors import MeteorLiteWarning

        warnings.warn(f"{name}:{nul[0]}: NUL (U+0000) inside a cell ({nul[1]} line(s)); it is scored as part of the "
                      "text, as in a plain file", MeteorLiteWarning, stacklevel=2)
    if len(pairs) == 1:
        lp = pairs.pop()
        out.target_language = lp.rsplit("-", 1)[1] if "-" in lp else None
    out.self_references, out.identical = _self_references(out)
    return out


class _ColumnFinder:
    """Finds named columns in a header (exact name first, then ignoring case)."""

    def __init__(self, path: str, header: List[str]):
        self.path, self.header = path, header

    def find(self, column: str, role: str) -> int:
        """The index of ``column`` (its role, e.g. ``system``, named in the error when it is missing)."""
        for names, key in ((self.header, column), ([h.strip().lower() for h in self.header], column.strip().lower())):
            if key in names:
                if names.count(key) > 1:
                    raise InputError(f"{self.path}:1: the header names column {column!r} twice")
                return names.index(key)
        raise InputError(f"{self.path}:1: no {role} column {column!r} in the header ({_listed(self.header)})")


def _listed(names: Sequence[str]) -> str:
    return ", ".join(repr(n) for n in names)


def _self_references(data: SystemsFile) -> Tuple[Dict[str, List[str]], Dict[str, List[str]]]:
    """Per system, the reference columns equal to its hypothesis on every one of its rows: those that can be
    left out (every row keeps another reference), and those kept (some row has no other reference)."""
    equal: Dict[str, List[bool]] = {}
    for row in data.rows:
        flags = equal.setdefault(row.system, [True] * len(data.ref_columns))
        for k, ref in enumerate(row.refs):
            if ref != row.hyp:
                flags[k] = False
    found = {s: [c for c, f in zip(data.ref_columns, flags) if f] for s, flags in equal.items() if any(flags)}
    kept: Dict[str, List[str]] = {}
    for row in data.rows:  # one pass: a row of such a system with no reference but those equal to its hypothesis
        cols = found.get(row.system)
        if cols is not None and row.system not in kept and all(
                r is None or c in cols for c, r in zip(data.ref_columns, row.refs)):
            kept[row.system] = cols
    return {s: cols for s, cols in found.items() if s not in kept}, kept


def _lines(path: str, name: str) -> Iterator[str]:
    """The decoded lines of the file, without their line ends; errors as :class:`InputError` naming ``name``."""
    raw = _open(path, name)
    try:
        lines = capped_lines(raw, name, MAX_LINE_BYTES,
                             what="not a systems TSV (or a segment far longer than any Meteor scores)")
        for number, data in enumerate(lines, start=1):
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(invalid_utf8(name, number, exc.start + 1, data, exc.start)) from None
            if number == 1 and text.startswith("\ufeff"):
                text = text[1:]
            text = text[:-1] if text.endswith("\n") else text
            text = text[:-1] if text.endswith("\r") else text
            if "\r" in text:
                raise InputError(f"{name}:{number}: carriage return (CR) inside a line, at column {text.index(chr(13)) + 1}")
            yield text
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"{name}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    finally:
        raw.close()


def _open(path: str, name: str) -> "BinaryIO | gzip.GzipFile | io.BufferedReader":
    """The file's bytes, gunzipped when it starts with gzip's magic number."""
    if path == "-":
        if sys.stdin is None:
            raise InputError("standard input is closed: nothing to read for '-'")
        plain: BinaryIO = sys.stdin.buffer  # read a line at a time, as a file is
    else:
        try:
            plain = open(path, "rb")  # noqa: SIM115 - closed by _lines
        except FileNotFoundError:
            raise InputError(f"{name}: no such file") from None
        except OSError as exc:
            raise InputError(f"{name}: cannot read ({exc.strerror})") from None
    try:
        if isinstance(plain, io.BufferedReader):  # a file, a pipe, standard input: looked at, not consumed
            magic = plain.peek(2)[:2]
        else:
            magic = plain.read(2)
            plain.seek(0)
    except OSError as exc:
        plain.close()
        raise InputError(f"{name}: cannot read ({exc.strerror})") from None
    if magic == _GZIP_MAGIC:
        if path != "-" and _regular(plain):  # standard input is not capped: its size is not known
            return gunzip_capped(plain, name, ratio=MAX_TSV_INFLATION, floor=TSV_INFLATION_FLOOR, close_raw=True,
                                 what="not a systems file of this size (decompress it first if it is one)")
        return _Gunzipped(plain)
    return plain


def _regular(f: BinaryIO) -> bool:
    """Whether ``f`` is a regular file (its size says how much a gzip of it may decompress to)."""
    try:
        return stat.S_ISREG(os.fstat(f.fileno()).st_mode)
    except (AttributeError, OSError, io.UnsupportedOperation):
        return False


class _Gunzipped(gzip.GzipFile):
    """A gzip reader that closes the file it reads from."""

    def __init__(self, raw: BinaryIO):
        super().__init__(fileobj=raw, mode="rb")
        self._raw = raw

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()
