"""Input formats of the command line: one reader class per format, all registered in :data:`READERS`.

A reader opens its input when it is made (reading and checking what can be checked before any segment is
scored), then yields ``(hypothesis, references)`` segments from :meth:`InputReader.segments`, and names its
format (:attr:`InputReader.format_name`, the report's ``Format:`` line).  The readers are thin: the parsing is
:mod:`meteor_lite.text.io` (plain files, streamed), :mod:`meteor_lite.text.wmt` (WMT systems files) and
:mod:`meteor_lite.jarcli.sgml` (NIST/WMT SGML).

A command picks its reader with :func:`chosen_reader`: the reader whose :attr:`~InputReader.option` was given
on its command line (``--tsv``), else plain files.  Adding a format: a subclass of :class:`InputReader` (its
``name``, ``format_name``, ``option``, ``from_args`` and ``segments``) and its line in :data:`READERS`; the
command that offers it adds the option naming the file to its parser.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar, Dict, Iterator, List, Optional, Sequence, Tuple, Type

from ..errors import ConfigError, InputError, MeteorLiteWarning

if TYPE_CHECKING:  # pragma: no cover
    import argparse

    from ..jarcli.sgml import SgmlSegment
    from ..text.io import SegmentReader
    from ..text.wmt import SystemsFile

__all__ = ["READERS", "InputReader", "PlainReader", "SgmlReader", "TsvReader", "Segment", "chosen_reader", "reader_class"]

#: One segment: the hypothesis and its references (None: a missing reference, e.g. an empty cell).
Segment = Tuple[str, Sequence[Optional[str]]]


class InputReader(ABC):
    """An opened input: its segments, in order, and the name of its format."""

    #: The reader's name in :data:`READERS`.
    name: ClassVar[str]
    #: The format as the text report's ``Format:`` line names it.
    format_name: ClassVar[str]
    #: The argparse ``dest`` of the option that chooses this reader (None: the command's positional files).
    option: ClassVar[Optional[str]] = None

    #: The language of the input when the input says it (a systems file's ``lp`` column), else None.
    target_language: Optional[str] = None

    @classmethod
    @abstractmethod
    def from_args(cls, args: "argparse.Namespace") -> "InputReader":
        """The reader of the input that the parsed command line ``args`` names."""

    @abstractmethod
    def segments(self) -> Iterator[Segment]:
        """Every ``(hypothesis, references)`` segment, in input order (read once)."""

    def close(self) -> None:  # noqa: B027 - a reader that read its input whole holds nothing open
        """Close the files the reader holds open (nothing when it has read them whole)."""

    def __enter__(self) -> "InputReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PlainReader(InputReader):
    """A hypothesis file and reference files, one segment per line (:class:`~meteor_lite.text.io.SegmentReader`:
    streamed, line counts checked beforehand for regular files; ``-`` is standard input)."""

    name = "plain"
    format_name = "plaintext"

    def __init__(self, hypothesis: str, references: Sequence[str], refs_per_hyp: int = 1):
        """Open the files (``refs_per_hyp``: references interleaved in one file, that many lines per hypothesis)."""
        from ..text.io import SegmentReader

        self.reader: "SegmentReader" = SegmentReader(hypothesis, references, refs_per_hyp)

    @classmethod
    def from_args(cls, args: "argparse.Namespace") -> "PlainReader":
        """``HYPOTHESIS REFERENCE... [--refs-per-hyp N]``."""
        return cls(args.hypothesis, args.references, getattr(args, "refs_per_hyp", 1))

    def segments(self) -> Iterator[Segment]:
        """The segments as the files are read (an input found short or long is an error when it ends)."""
        return iter(self.reader)

    def close(self) -> None:
        """Close every file."""
        self.reader.close()


class TsvReader(InputReader):
    """A WMT-style systems file (:func:`~meteor_lite.text.wmt.read_systems_file`: read and checked whole); its
    segments are its rows, in file order, every system's (:attr:`data` has the systems)."""

    name = "tsv"
    format_name = "systems TSV"
    option = "tsv"

    def __init__(self, path: str, *, system_column: Optional[str] = None, segment_column: Optional[str] = None,
                 hyp_column: Optional[str] = None, ref_columns: Optional[Sequence[str]] = None):
        """Read the file; a column not named is the file format's default (docs/wmt-files.md)."""
        from ..text import wmt

        self.data: "SystemsFile" = wmt.read_systems_file(
            path, system_column=wmt.DEFAULT_SYSTEM_COLUMN if system_column is None else system_column,
            segment_column=wmt.DEFAULT_SEGMENT_COLUMN if segment_column is None else segment_column,
            hyp_column=wmt.DEFAULT_HYP_COLUMN if hyp_column is None else hyp_column, ref_columns=ref_columns)
        self.target_language = self.data.target_language

    @classmethod
    def from_args(cls, args: "argparse.Namespace") -> "TsvReader":
        """``--tsv FILE`` with the column options of ``score --tsv`` (those a command lacks: the defaults)."""
        return cls(args.tsv, system_column=getattr(args, "system_column", None),
                   segment_column=getattr(args, "segment_column", None), hyp_column=getattr(args, "hyp_column", None),
                   ref_columns=getattr(args, "ref_column", None))

    def segments(self) -> Iterator[Segment]:
        """Every row's hypothesis and the references it is scored against (:meth:`SystemsFile.references`)."""
        return ((row.hyp, self.data.references(row)) for row in self.data.rows)


class SgmlReader(InputReader):
    """NIST/WMT SGML test and reference sets (:func:`~meteor_lite.jarcli.sgml.parse_sgml`), paired as Meteor 1.5's
    ``-sgml`` pairs them: each test ``<seg>`` with every reference ``<seg>`` of the same document and id, in
    document and segment order; a reference segment of one of the system's documents that the test lacks is scored
    as empty, with a warning (so leaving segments out does not raise the score), a reference document it lacks is
    skipped, with a warning.  A test segment without a reference, or a test file of more than one system (the jar
    scores each apart: ``meteor-jar -sgml``), is an :class:`InputError`; a segment over several lines is joined as
    Meteor 1.5 joins it, with a warning."""

    name = "sgml"
    format_name = "SGML"
    option = "sgml"

    def __init__(self, test: str, reference: str):
        """Read and pair both files."""
        from ..jarcli.sgml import SgmlError, references_of, with_missing

        self.test, self.reference = test, reference
        tests = _sgml_segments(test)
        try:
            refs = references_of(tests, _sgml_segments(reference))
        except SgmlError as exc:
            raise InputError(str(exc)) from None
        systems = list(dict.fromkeys((t.setid, t.sysid) for t in tests))
        if len(systems) > 1:
            raise InputError(f"{test}: {len(systems)} systems ({', '.join(f'{s}/{y}' for s, y in systems[:3])}"
                             f"{', ...' if len(systems) > 3 else ''}): meteor-lite score scores one; meteor-jar "
                             f"{test} {reference} -sgml scores each")

        def warn(message: str) -> None:
            warnings.warn(message, MeteorLiteWarning, stacklevel=3)

        self.pairs: List[Segment] = [(t.text, refs[(t.docid, t.segid)]) for t in with_missing(tests, refs, warn)]

    @classmethod
    def from_args(cls, args: "argparse.Namespace") -> "SgmlReader":
        """``--sgml TEST REFERENCE``."""
        test, reference = args.sgml
        return cls(test, reference)

    def segments(self) -> Iterator[Segment]:
        """Every test segment with its references."""
        return iter(self.pairs)


def _sgml_segments(path: str) -> "List[SgmlSegment]":
    """The ``<seg>`` of an SGML file read as meteor-lite reads text (:func:`~meteor_lite.text.io.read_lines`);
    malformed: an :class:`InputError` naming the line."""
    from ..jarcli.sgml import SgmlError, parse_sgml
    from ..text.io import read_lines

    def warn(message: str) -> None:
        warnings.warn(message, MeteorLiteWarning, stacklevel=4)

    try:
        segments = parse_sgml("\n".join(read_lines(path)), path, warn)
    except SgmlError as exc:
        raise InputError(str(exc)) from None
    if not segments:
        raise InputError(f"{path}: no <seg> in the file (empty, or not SGML)")
    return segments


#: Every input format: name -> reader (one line each).
READERS: Dict[str, Type[InputReader]] = {
    "plain": PlainReader,
    "tsv": TsvReader,
    "sgml": SgmlReader,
}


def reader_class(name: str) -> Type[InputReader]:
    """The reader registered as ``name``; another name is a :class:`ConfigError` listing the formats."""
    try:
        return READERS[name]
    except KeyError:
        raise ConfigError(f"no input format {name!r} (formats: {', '.join(READERS)})") from None


def chosen_reader(args: "argparse.Namespace") -> Type[InputReader]:
    """The reader whose option the parsed command line ``args`` gives (``--tsv FILE``), else plain files."""
    for reader in READERS.values():
        if reader.option is not None and getattr(args, reader.option, None) is not None:
            return reader
    return READERS["plain"]
