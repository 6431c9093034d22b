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
from typing import IO, Dict, List, Tuple

from ..jarcompat import java_double, utf16_sort_key
from ..meteor import Meteor
from ..report import text_report
from ..scores import SegmentScore
from ..text.io import read_lines
from .options import JarOptions
from .setup import JarCliError
from .writers import alignment_block

__all__ = ["SgmlSegment", "parse_sgml", "run_sgml"]

_TAG = re.compile(r"<(/?)([A-Za-z]+)([^>]*)>")
_ATTR = re.compile(r"""([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")


@dataclass(frozen=True)
class SgmlSegment:
    """One ``<seg>`` with the set, system and document it is in."""

    setid: str
    sysid: str
    docid: str
    segid: str
    text: str


def _attrs(text: str) -> Dict[str, str]:
    return {m.group(1).lower(): next(g for g in m.groups()[1:] if g is not None) for m in _ATTR.finditer(text)}


def parse_sgml(text: str) -> List[SgmlSegment]:
    """Every ``<seg>`` of an SGML document, in document order."""
    out: List[SgmlSegment] = []
    setid = sysid = docid = ""
    seg_start = -1
    seg_id = ""
    for m in _TAG.finditer(text):
        closing, name, rest = m.group(1), m.group(2).lower(), m.group(3)
        if closing:
            if name == "seg" and seg_start >= 0:
                out.append(SgmlSegment(setid, sysid, docid, seg_id, text[seg_start : m.start()]))
                seg_start = -1
            continue
        a = _attrs(rest)
        if name in ("tstset", "refset", "srcset", "mteval"):
            setid = a.get("setid", setid)
            sysid = a.get("sysid", sysid)
        elif name == "doc":
            docid = a.get("docid", "")
            sysid = a.get("sysid", sysid)
        elif name == "seg":
            seg_id = a.get("id", "")
            seg_start = m.end()
    return out


def _read_sgml(path: str) -> List[SgmlSegment]:
    if not Path(path).is_file():
        raise JarCliError(f"Could not score SGML files: {path} (No such file or directory)")
    return parse_sgml("\n".join(read_lines(path, jar_lines=True)))


def _seg_key(s: SgmlSegment) -> Tuple[str, Tuple[int, str]]:
    num = int(s.segid) if s.segid.strip().isdigit() else -1
    return (utf16_sort_key(s.docid), (num, s.segid))


def _score_system(scorer: Meteor, segs: List[SgmlSegment], refs: Dict[Tuple[str, str], List[str]]) -> List[SegmentScore]:
    """Score one system's segments (already in output order) against their references."""
    ref_lists: List[List[str]] = []
    for s in segs:
        found = refs.get((s.docid, s.segid))
        if not found:
            raise JarCliError(f"no reference for document {s.docid!r} segment {s.segid!r}")
        ref_lists.append(found)
    counts = {len(r) for r in ref_lists}
    if len(counts) == 1:
        n = counts.pop()
        return scorer.score_corpus([s.text for s in segs], [[r[k] for r in ref_lists] for k in range(n)]).segments
    return [scorer.score_segment(s.text, r) for s, r in zip(segs, ref_lists)]


def run_sgml(opts: JarOptions, scorer: Meteor, out: IO[str]) -> int:
    """Score SGML files, print the report (after the header) and write the ``.scr`` files (and alignments)."""
    tests = _read_sgml(opts.test)
    refs: Dict[Tuple[str, str], List[str]] = {}
    for r in _read_sgml(opts.reference):
        refs.setdefault((r.docid, r.segid), []).append(r.text)
    systems: Dict[Tuple[str, str], List[SgmlSegment]] = {}
    for t in tests:
        systems.setdefault((t.setid, t.sysid), []).append(t)
    files: Dict[str, IO[str]] = {k: open(f"{opts.prefix}-{k}.scr", "w", encoding="utf-8", newline="\n") for k in ("seg", "doc", "sys")}
    align = open(f"{opts.prefix}-align.out", "w", encoding="utf-8", newline="\n") if opts.write_alignments else None
    try:
        for (setid, sysid), segs in systems.items():
            segs = sorted(segs, key=_seg_key)
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
