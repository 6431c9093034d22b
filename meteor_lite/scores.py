"""Score objects: :class:`SegmentScore` (one hypothesis) and :class:`CorpusScore` (a corpus)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from .config import MeteorConfig
from .report import text_report
from .stats import Metrics, Stats

__all__ = ["SegmentScore", "CorpusScore", "RunningTotal", "json_document", "segment_json"]


@dataclass
class SegmentScore:
    """The score of one hypothesis against its best reference, with its statistics."""

    score: float
    precision: float
    recall: float
    f1: float
    fmean: float
    frag_penalty: float
    stats: Stats
    ref_index: int = 0
    alignment: List[Tuple[int, int, int, int, int]] = field(default_factory=list, repr=False)
    #: True when the segment was aligned in bounded mode (too many candidate matches for the beam
    #: search: see :mod:`meteor_lite.align.bounded`); its alignment may differ from Meteor 1.5's.
    bounded: bool = False

    def to_dict(self) -> Dict[str, object]:
        """JSON-ready dict (statistics included; NaN written as null)."""
        return {
            "score": self.score,
            "precision": _finite(self.precision),
            "recall": _finite(self.recall),
            "fmean": _finite(self.fmean),
            "frag_penalty": _finite(self.frag_penalty),
            "ref_index": self.ref_index,
            "bounded": self.bounded,
            "stats": self.stats.to_dict(),
        }


@dataclass
class CorpusScore:
    """A corpus score from summed sufficient statistics, with every segment's score."""

    score: float
    metrics: Metrics
    stats: Stats
    segments: List[SegmentScore]
    config: MeteorConfig
    signature: str

    def to_dict(self) -> Dict[str, object]:
        """JSON-ready dict: corpus metrics, statistics, signature and all segments."""
        m = self.metrics
        return {
            "score": self.score,
            "precision": _finite(m.precision),
            "recall": _finite(m.recall),
            "f1": _finite(m.f1),
            "fmean": _finite(m.fmean),
            "frag_penalty": _finite(m.frag_penalty),
            "stats": self.stats.to_dict(),
            "signature": self.signature,
            "segments": [s.to_dict() for s in self.segments],
        }

    def to_json(self, **kw: Any) -> str:
        """:meth:`to_dict` as JSON (keyword arguments go to :func:`json.dumps`).

        Always valid JSON: a non-finite number (NaN, infinity) is written as ``null``.
        """
        kw.setdefault("allow_nan", False)
        return json.dumps(_json_safe(self.to_dict()), **kw)

    def format(self, fmt: str = "text") -> str:
        """Format as Meteor 1.5's text report (``text``) or JSON (``json``)."""
        if fmt == "json":
            return self.to_json(indent=1) + "\n"
        return text_report(self)


class RunningTotal:
    """The sum of segments' statistics, added in segment order (as a corpus score sums them), and which were bounded.

    What a streamed corpus keeps instead of its segments: the final score is computed
    from :attr:`stats` exactly as from the list of every segment.
    """

    #: Bounded segments whose numbers are kept (the report and the warning show the first few).
    KEEP_BOUNDED = 5

    def __init__(self) -> None:
        """An empty total."""
        self.stats = Stats()
        self.count = 0
        self.bounded = 0
        self.first_bounded: List[int] = []

    def add(self, seg: SegmentScore) -> None:
        """Add the next segment (numbered from 1 in the order added)."""
        self.count += 1
        self.stats.add(seg.stats)
        if seg.bounded:
            self.bounded += 1
            if len(self.first_bounded) < self.KEEP_BOUNDED:
                self.first_bounded.append(self.count)

    def merge(self, other: "RunningTotal") -> None:
        """Add ``other``, the total of the segments that follow this total's (the next part of a corpus).

        Its statistics are added as a segment's: a sum of segments is never "perfect" (every word matched in
        one chunk), since a perfect segment adds no chunk and any other fully matched one adds at least two,
        so :meth:`Stats.add` adds all its chunks, and the sums are those of adding each segment here.
        """
        self.stats.add(other.stats)
        room = self.KEEP_BOUNDED - len(self.first_bounded)
        self.first_bounded.extend(self.count + k for k in other.first_bounded[:max(room, 0)])
        self.bounded += other.bounded
        self.count += other.count


def segment_json(seg: SegmentScore, depth: int = 0) -> str:
    """``seg`` as :meth:`CorpusScore.format` writes it in its ``segments`` list (at ``depth``: 2 there), without
    the separator: the pieces of a JSON document written a segment at a time (see :func:`json_document`)."""
    text = json.dumps(_json_safe(seg.to_dict()), indent=1, allow_nan=False)
    return "\n".join(" " * depth + line for line in text.splitlines())


def json_document(result: CorpusScore, has_segments: bool) -> Tuple[str, str]:
    """What :meth:`CorpusScore.format` writes for ``json``, before and after the segments (``result`` holds none):
    write the first part, the :func:`segment_json` pieces (depth 2) joined by ``",\\n"``, then the second."""
    doc = result.format("json")
    if not has_segments:
        return doc, ""
    empty = '"segments": []\n}\n'
    assert doc.endswith(empty), doc[-40:]
    return doc[: -len(empty)] + '"segments": [\n', "\n ]\n}\n"


def _finite(x: float) -> Optional[float]:
    """``x``, or ``None`` (JSON ``null``) when it is NaN or infinite."""
    return x if math.isfinite(x) else None


def _json_safe(value: Any) -> Any:
    """``value`` with every non-finite float (anywhere in dicts and lists) replaced by ``None``."""
    if isinstance(value, float):
        return _finite(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value
