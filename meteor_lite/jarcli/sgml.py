"""``-sgml``: NIST/WMT SGML test and reference sets, and the jar's ``.scr`` score files.

Input: ``<tstset|refset setid=...>`` / ``<doc sysid=... docid=...>`` / ``<seg id=...> text </seg>``;
test and reference segments are paired by (docid, seg id); every reference system's segment for a
key is a reference.  Output as observed with Meteor 1.5: the header (``Format: SGML``), then per test
system ``[<setid>][<sysid>] `` and the statistics block (no ``Segment`` lines), and the files
``<prefix>-seg.scr`` (setid, sysid, docid, seg id, score), ``<prefix>-doc.scr`` (setid, sysid, docid,
score of the document's summed statistics) and ``<prefix>-sys.scr`` (setid, sysid, score), TAB-separated,
documents sorted by docid (Java string order), segments by number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..jarcompat import java_double, utf16_sort_key
from ..meteor import Meteor
from ..report import text_report
from ..scores import SegmentScore
from ..text.io import read_lines
from .options import JarOptions
from .setup import JarCliError
from .writers import alignment_block

__all__ = ["SgmlError", "SgmlSegment", "decode_entities", "parse_sgml", "references_of", "run_sgml", "with_missing"]

_TAG = re.compile(r"<(/?)([A-Za-z]+)([^>]*)>")
_ATTR = re.compile(r'([A-Za-z_][\w-]*)="([^"]*)"')
_SEG_OPEN = re.compile(r"<seg\b[^>]*>", re.IGNORECASE)
_SEG_CLOSE = re.compile(r"</seg>", re.IGNORECASE)
#: The five entities Meteor 1.5 decodes in segment text (names in any case; numeric ones are left as written).
_ENTITY = re.compile(r"&(amp|lt|gt|quot|apos);", re.IGNORECASE)
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


class SgmlError(JarCliError):
    """A malformed SGML file: one line naming the file, the line and the problem."""

    def __init__(self, source: str, line: int, problem: str):
        super().__init__(f"{source}:{line}: {problem}" if line else f"{source}: {problem}")


@dataclass(frozen=True)
class SgmlSegment:
    """One ``<seg>`` with the set, system and document it is in (``line``: where it starts, 1-based)."""

    setid: str
    sysid: str
    docid: str
    segid: str
    text: str
    line: int = 0
    source: str = ""


def _attrs(text: str) -> Dict[str, str]:
    """Attributes written ``name="value"`` (the jar finds no other form: ``docid='d1'`` is no docid)."""
    return {m.group(1).lower(): m.group(2) for m in _ATTR.finditer(text)}


def decode_entities(text: str) -> str:
    """``&amp; &lt; &gt; &quot; &apos;`` (any case) decoded once, as Meteor 1.5 decodes them; the rest as written."""
    return _ENTITY.sub(lambda m: _ENTITIES[m.group(1).lower()], text)


class _Reader:
    """The state of :func:`parse_sgml` between lines: the set, system and document being read."""

    def __init__(self, source: str):
        self.source = source
        self.setid = self.sysid = ""
        self.docid: Optional[str] = None
        self.seen: Set[Tuple[str, str, str, str]] = set()

    def tags(self, line: str, lineno: int) -> None:
        """The set and document tags of a line without ``<seg>``."""
        for m in _TAG.finditer(line):
            if m.group(1):
                continue
            name, a = m.group(2).lower(), _attrs(m.group(3))
            if name in ("tstset", "refset", "srcset", "mteval"):
                self.setid, self.sysid = a.get("setid", self.setid), a.get("sysid", self.sysid)
            elif name == "doc":
                if "docid" not in a:
                    raise SgmlError(self.source, lineno, '<doc> without docid="..." (Meteor 1.5 cannot score the file)')
                self.docid, self.sysid = a["docid"], a.get("sysid", self.sysid)

    def key(self, opening: str, lineno: int) -> Tuple[str, str, str, str]:
        """(set, system, document, id) of the ``<seg>`` opened on line ``lineno``; refused when incomplete or seen."""
        segid = _attrs(opening).get("id")
        if segid is None:
            raise SgmlError(self.source, lineno, '<seg> without id="..."')
        if self.docid is None:
            raise SgmlError(self.source, lineno, '<seg> outside a <doc docid="...">')
        key = (self.setid, self.sysid, self.docid, segid)
        if key in self.seen:
            raise SgmlError(self.source, lineno, f"segment id {segid} twice in document {self.docid} of system "
                            f"{self.sysid} (Meteor 1.5 keeps one and scores the other's place as empty)")
        self.seen.add(key)
        return key


def _segment_text(lines: List[str], i: int, start: int, source: str) -> Tuple[List[str], int]:
    """The pieces of the segment whose text starts at column ``start`` of line ``i``, and the index of its last line."""
    rest = lines[i][start:]
    parts: List[str] = []
    first = i
    while True:
        close = _SEG_CLOSE.search(rest)
        if close is not None:
            parts.append(rest[: close.start()])
            return parts, i
        parts.append(rest)
        i += 1
        if i >= len(lines) or (i == len(lines) - 1 and not lines[i]):
            raise SgmlError(source, first + 1, "<seg> not closed: the file ends inside it (Meteor 1.5 never finishes)")
        rest = lines[i]
        if _SEG_OPEN.search(rest):
            raise SgmlError(source, first + 1, f"<seg> not closed before the <seg> of line {i + 1} (Meteor 1.5 would "
                            "read that one into this segment and score it as empty)")


def parse_sgml(text: str, source: str = "<sgml>", warn: Optional[Callable[[str], None]] = None) -> List[SgmlSegment]:
    """Every ``<seg>`` of an SGML document, in document order, read line by line as Meteor 1.5 reads it.

    Where the jar reads a file one way every time, that way is followed: tags in any case, ``name="value"``
    attributes, the five XML entities decoded, a segment over several lines joined *without* a space (the
    jar glues the last word of a line to the first of the next; ``warn`` is told).  Where the jar scores
    something other than what the file says (two ``<seg>`` on a line, a ``<seg>`` left open, a duplicate
    id, a segment without id or outside a ``<doc>`` with a ``docid``) or never ends (a ``<seg>`` open at
    the end of the file), :class:`SgmlError` names the line.
    """
    lines = text.split("\n")
    reader = _Reader(source)
    out: List[SgmlSegment] = []
    i = 0
    while i < len(lines):
        opens = list(_SEG_OPEN.finditer(lines[i]))
        if not opens:
            reader.tags(lines[i], i + 1)
            i += 1
            continue
        if len(opens) > 1:
            raise SgmlError(source, i + 1, "two <seg> on one line (Meteor 1.5 reads one per line and would score "
                            "the others as empty): put each segment on its own line")
        setid, sysid, docid, segid = reader.key(opens[0].group(0), i + 1)
        parts, last = _segment_text(lines, i, opens[0].end(), source)
        if len(parts) > 1 and warn is not None:
            warn(f"{source}:{i + 1}: segment {segid} spans {len(parts)} lines: joined without a space, as Meteor 1.5 "
                 "joins them (the last word of a line and the first of the next become one word)")
        out.append(SgmlSegment(setid, sysid, docid, segid, decode_entities("".join(parts)), i + 1, source))
        i = last + 1
    return out


def _read_sgml(path: str, warn: Callable[[str], None]) -> List[SgmlSegment]:
    if not Path(path).is_file():
        raise JarCliError(f"Could not score SGML files: {path} (No such file or directory)")
    segs = parse_sgml("\n".join(read_lines(path, jar_lines=True)), path, warn)
    if not segs:
        raise SgmlError(path, 0, "no <seg> in the file (empty, or not SGML)")
    return segs


def _seg_key(s: SgmlSegment) -> Tuple[str, Tuple[int, str]]:
    num = int(s.segid) if s.segid.strip().isdigit() else -1
    return (utf16_sort_key(s.docid), (num, s.segid))


def _score_system(scorer: Meteor, segs: List[SgmlSegment], refs: Dict[Tuple[str, str], List[str]]) -> List[SegmentScore]:
    """Score one system's segments (already in output order) against their references."""
    ref_lists = [refs[(s.docid, s.segid)] for s in segs]  # every one has a reference (references_of)
    counts = {len(r) for r in ref_lists}
    if len(counts) == 1:
        n = counts.pop()
        return scorer.score_corpus([s.text for s in segs], [[r[k] for r in ref_lists] for k in range(n)]).segments
    return [scorer.score_segment(s.text, r) for s, r in zip(segs, ref_lists)]


def _with_missing(segs: List[SgmlSegment], refs: Dict[Tuple[str, str], List[str]], err: IO[str]) -> List[SgmlSegment]:
    """The system's segments and, for a reference segment of one of its documents it lacks, an empty one: the
    jar scores it as empty, with a warning (so a system that leaves out segments does not score higher)."""
    def warn(message: str) -> None:
        err.write(f"meteor-jar: warning: {message}\n")

    return with_missing(segs, refs, warn)


def references_of(tests: Sequence[SgmlSegment], references: Iterable[SgmlSegment]) -> Dict[Tuple[str, str], List[str]]:
    """The texts of the ``references`` by (document, segment) id, checked: a segment of ``tests`` without one is an
    :class:`SgmlError` naming its line (the first in ``tests`` order)."""
    refs: Dict[Tuple[str, str], List[str]] = {}
    for r in references:
        refs.setdefault((r.docid, r.segid), []).append(r.text)
    for s in tests:
        if (s.docid, s.segid) not in refs:
            raise SgmlError(s.source, s.line, f"segment {s.segid} of document {s.docid} has no reference "
                            "(Meteor 1.5 leaves it out of every score, with a warning)")
    return refs


def with_missing(segs: List[SgmlSegment], refs: Dict[Tuple[str, str], List[str]],
                 warn: Callable[[str], None]) -> List[SgmlSegment]:
    """One system's segments and, for each reference segment of one of its documents it lacks, an empty one, as
    Meteor 1.5 scores it (``warn`` is told of each, and of each reference document the system lacks, which is
    skipped)."""
    if not segs:
        return segs
    setid, sysid = segs[0].setid, segs[0].sysid
    have = {(s.docid, s.segid) for s in segs}
    docs = {s.docid for s in segs}
    missing = [SgmlSegment(setid, sysid, docid, segid, "", 0, "") for docid, segid in refs
               if docid in docs and (docid, segid) not in have]
    for m in missing:
        warn(f"no data for system [{sysid}] on segment [{setid}][{m.docid}][{m.segid}] - scoring empty segment "
             "(as Meteor 1.5 does)")
    for docid in dict.fromkeys(d for d, _ in refs if d not in docs):
        warn(f"no data for system [{sysid}] on document [{setid}][{docid}] - skipping this document (as Meteor 1.5 "
             "does)")
    return sorted(segs + missing, key=_seg_key)


def run_sgml(opts: JarOptions, scorer: Meteor, out: IO[str], err: IO[str]) -> int:
    """Score SGML files, print the report (after the header) and write the ``.scr`` files (and alignments)."""

    def warn(message: str) -> None:
        err.write(f"meteor-jar: warning: {message}\n")

    tests = _read_sgml(opts.test, warn)
    systems: Dict[Tuple[str, str], List[SgmlSegment]] = {}
    for t in tests:
        systems.setdefault((t.setid, t.sysid), []).append(t)
    # every test segment has a reference: checked before any file is written
    refs = references_of([s for segs in systems.values() for s in segs], _read_sgml(opts.reference, warn))
    scored = {key: _with_missing(segs, refs, err) for key, segs in systems.items()}
    files: Dict[str, IO[str]] = {k: open(f"{opts.prefix}-{k}.scr", "w", encoding="utf-8", newline="\n") for k in ("seg", "doc", "sys")}
    align = open(f"{opts.prefix}-align.out", "w", encoding="utf-8", newline="\n") if opts.write_alignments else None
    try:
        for (setid, sysid), segs in scored.items():
            scores = _score_system(scorer, segs, refs)
            _write_system(scorer, setid, sysid, segs, scores, files, out)
            if align is not None:
                for s, sc in zip(segs, scores):
                    ref = refs[(s.docid, s.segid)][sc.ref_index]
                    seg_id = f"{setid}\t{sysid}\t{s.docid}\t{s.segid}"
                    align.write(alignment_block(seg_id, sc, scorer.tokens(s.text), scorer.tokens(ref)))
    finally:
        for f in files.values():
            f.close()
        if align is not None:
            align.close()
    return 0


def _write_system(
    scorer: Meteor, setid: str, sysid: str, segs: List[SgmlSegment], scores: List[SegmentScore],
    files: Dict[str, IO[str]], out: IO[str],
) -> None:
    """The ``.scr`` lines of one system and its block on standard output."""
    docs: Dict[str, List[SegmentScore]] = {}
    for s, sc in zip(segs, scores):
        files["seg"].write(f"{setid}\t{sysid}\t{s.docid}\t{s.segid}\t{java_double(sc.score)}\n")
        docs.setdefault(s.docid, []).append(sc)
    for docid, doc_scores in docs.items():
        files["doc"].write(f"{setid}\t{sysid}\t{docid}\t{java_double(scorer.aggregate(doc_scores).score)}\n")
    total = scorer.aggregate(scores)
    files["sys"].write(f"{setid}\t{sysid}\t{java_double(total.score)}\n")
    block = text_report(total, header=False, segments=False).split("\n")[4:]
    out.write(f"[{setid}][{sysid}] \n\n" + "\n".join(block) + "\n")
