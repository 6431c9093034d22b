"""Systems of one test set, paired segment by segment (the input of the paired tests and of the report).

Input is a :class:`~meteor_lite.text.wmt.SystemsFile`: a WMT systems TSV as read by ``score --tsv``, or
hypothesis files and reference files made into one by :func:`systems_from_files`.  Every system must
have the segments of the baseline, each once (in any order): they are put in the baseline's order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import InputError
from ..scores import SegmentScore
from ..text.wmt import SystemRow, SystemsFile

__all__ = ["PairedSegments", "pair_segments", "systems_from_files"]


@dataclass
class PairedSegments:
    """Each system's rows and segment scores, in the baseline's segment order."""

    #: the segment ids, in the baseline's order
    seg_ids: List[str]
    rows: Dict[str, List[SystemRow]]
    segments: Dict[str, List[SegmentScore]]


def systems_from_files(names: Sequence[str], hypotheses: Sequence[Sequence[str]],
                       references: Sequence[Sequence[str]], ref_names: Sequence[str]) -> SystemsFile:
    """A :class:`SystemsFile` of plain files: system ``names[k]`` has the lines ``hypotheses[k]``, segment ``i``
    (numbered from 1) the references ``references[j][i]`` (empty lines are missing references).

    Raises :class:`InputError` when two systems have one name or a file's length differs from the first's.
    """
    if len(set(names)) != len(names):
        dup = next(n for n in names if list(names).count(n) > 1)
        raise InputError(f"two systems are named {dup!r}: name them with --names")
    n = len(hypotheses[0]) if hypotheses else 0
    for name, hyps in zip(names, hypotheses):
        if len(hyps) != n:
            raise InputError(f"{name}: {len(hyps)} lines, but {names[0]} has {n}")
    for name, lines in zip(ref_names, references):
        if len(lines) != n:
            raise InputError(f"{name}: {len(lines)} lines, but the hypothesis files have {n}")
    rows = []
    for name, hyps in zip(names, hypotheses):
        for i, hyp in enumerate(hyps):
            refs: Tuple[Optional[str], ...] = tuple(r[i] if r[i].strip() else None for r in references)
            if all(r is None for r in refs):
                raise InputError(f"{ref_names[0]}:{i + 1}: no reference (the line is empty in every reference file)")
            rows.append(SystemRow(i + 1, name, str(i + 1), hyp, refs))
    return SystemsFile("files", list(ref_names), rows, list(names))


def pair_segments(data: SystemsFile, segments: Sequence[SegmentScore], baseline: str,
                  systems: Optional[Sequence[str]] = None) -> PairedSegments:
    """Group ``segments`` (one per row of ``data``, in file order) by system, in the segment order of ``baseline``.

    ``systems``: the systems to keep (default: all).  Raises :class:`InputError` naming the system and a segment
    when a system lacks a segment of the baseline or has one the baseline lacks.
    """
    keep = set(systems) if systems is not None else set(data.systems)
    keep.add(baseline)
    by_system: Dict[str, Dict[str, int]] = {s: {} for s in data.systems if s in keep}
    for k, row in enumerate(data.rows):
        if row.system in by_system:
            by_system[row.system][row.seg_id] = k
    order = list(by_system[baseline])
    rows: Dict[str, List[SystemRow]] = {}
    segs: Dict[str, List[SegmentScore]] = {}
    for system, index in by_system.items():
        missing = [s for s in order if s not in index]
        extra = [s for s in index if s not in by_system[baseline]]
        if missing or extra:
            what = (f"lacks segment {missing[0]!r} of the baseline {baseline!r}" if missing
                    else f"has segment {extra[0]!r}, which the baseline {baseline!r} lacks")
            raise InputError(f"{data.path}: system {system!r} {what} ({len(missing)} missing, {len(extra)} extra): "
                             "the paired tests need the same segments for every system")
        rows[system] = [data.rows[index[s]] for s in order]
        segs[system] = [segments[index[s]] for s in order]
    return PairedSegments(order, rows, segs)
