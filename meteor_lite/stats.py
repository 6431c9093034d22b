"""Sufficient statistics and the METEOR formula (Denkowski & Lavie 2011, section 3).

A :class:`Stats` holds what one segment (or a sum of segments) contributes;
:func:`compute` turns it into precision, recall, Fmean, fragmentation penalty
and score.  Arithmetic follows Meteor 1.5 operation by operation (including
IEEE division by zero giving NaN/Infinity, and NaN scores reported as 0), so
results agree with the official jar to the last bits in almost all cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Sequence

from .jarcompat import java_double, jdiv, jpow

__all__ = ["Stats", "Metrics", "compute", "SS_STAGES"]

#: Stages in the -ssOut line (Meteor always prints four).
SS_STAGES = 4


@dataclass
class Stats:
    """Meteor's sufficient statistics (word counts, or character counts for the util task).

    ``*_content`` / ``*_function`` hold one count per module (stage), in module order.
    """

    test_length: float = 0.0
    ref_length: float = 0.0
    test_function_words: float = 0.0
    ref_function_words: float = 0.0
    test_content: List[float] = field(default_factory=list)
    ref_content: List[float] = field(default_factory=list)
    test_function: List[float] = field(default_factory=list)
    ref_function: List[float] = field(default_factory=list)
    chunks: float = 0.0
    test_word_matches: float = 0.0
    ref_word_matches: float = 0.0

    @property
    def test_total_matches(self) -> float:
        """Hypothesis words matched by any module (content + function)."""
        return sum(self.test_content) + sum(self.test_function)

    @property
    def ref_total_matches(self) -> float:
        """Reference words matched by any module (content + function)."""
        return sum(self.ref_content) + sum(self.ref_function)

    def is_perfect(self) -> bool:
        """Every word matched, in one chunk (Meteor then uses no fragmentation penalty)."""
        return (
            self.test_total_matches == self.test_length
            and self.ref_total_matches == self.ref_length
            and self.chunks == 1.0
        )

    def add(self, other: "Stats") -> None:
        """Add ``other`` into this object, as Meteor aggregates segments into a corpus.

        As in Meteor 1.5, the chunk of a perfectly matched segment is not added.
        """
        self.test_length += other.test_length
        self.ref_length += other.ref_length
        self.test_function_words += other.test_function_words
        self.ref_function_words += other.ref_function_words
        n = len(other.test_content)
        for lst in (self.test_content, self.ref_content, self.test_function, self.ref_function):
            while len(lst) < n:
                lst.append(0.0)
        for i in range(n):
            self.test_content[i] += other.test_content[i]
            self.ref_content[i] += other.ref_content[i]
            self.test_function[i] += other.test_function[i]
            self.ref_function[i] += other.ref_function[i]
        if not other.is_perfect():
            self.chunks += other.chunks
        self.test_word_matches += other.test_word_matches
        self.ref_word_matches += other.ref_word_matches

    def values(self, stages: int = SS_STAGES) -> List[float]:
        """The numbers of a ``-ssOut`` line, in its order, with ``stages`` stages (missing ones 0, extra ones left
        out): Meteor 1.5's 23 by default; :meth:`from_values` reads them back."""
        vals: List[float] = [self.test_length, self.ref_length, self.test_function_words, self.ref_function_words]
        for i in range(stages):
            if i < len(self.test_content):
                vals += [self.test_content[i], self.ref_content[i], self.test_function[i], self.ref_function[i]]
            else:
                vals += [0.0, 0.0, 0.0, 0.0]
        vals += [self.chunks, self.test_word_matches, self.ref_word_matches]
        return [float(v) for v in vals]

    def to_ss_line(self) -> str:
        """The 23 numbers Meteor 1.5 prints with ``-ssOut``, in its format."""
        return " ".join(java_double(v) for v in self.values())

    @classmethod
    def from_ss_line(cls, line: str, stages: int = SS_STAGES) -> "Stats":
        """Parse a ``-ssOut`` line (keeps the first ``stages`` stages)."""
        v = [float(x) for x in line.split()]
        if len(v) != 4 + 4 * SS_STAGES + 3:
            raise ValueError(f"expected {4 + 4 * SS_STAGES + 3} numbers in a stats line, got {len(v)}")
        return cls.from_values(v, stages)

    @classmethod
    def from_values(cls, v: Sequence[float], stages: int = SS_STAGES) -> "Stats":
        """Statistics from the 23 numbers of a ``-ssOut`` line, in its order (keeps the first ``stages`` stages)."""
        s = cls(v[0], v[1], v[2], v[3])
        for i in range(stages):
            b = 4 + 4 * i
            s.test_content.append(v[b])
            s.ref_content.append(v[b + 1])
            s.test_function.append(v[b + 2])
            s.ref_function.append(v[b + 3])
        s.chunks, s.test_word_matches, s.ref_word_matches = v[-3], v[-2], v[-1]
        return s

    def to_dict(self) -> Dict[str, object]:
        """JSON-ready dict of every statistic."""
        return {
            "test_length": self.test_length,
            "ref_length": self.ref_length,
            "test_function_words": self.test_function_words,
            "ref_function_words": self.ref_function_words,
            "test_content": list(self.test_content),
            "ref_content": list(self.ref_content),
            "test_function": list(self.test_function),
            "ref_function": list(self.ref_function),
            "chunks": self.chunks,
            "test_word_matches": self.test_word_matches,
            "ref_word_matches": self.ref_word_matches,
        }


@dataclass(frozen=True)
class Metrics:
    """What the formula derives from :class:`Stats`."""

    precision: float
    recall: float
    f1: float
    fmean: float
    frag_penalty: float
    score: float


def compute(stats: Stats, alpha: float, beta: float, gamma: float, delta: float, weights: Sequence[float]) -> Metrics:
    """Weighted precision/recall, Fmean, fragmentation penalty and score (Meteor 1.3+ formula).

    Every sum is taken in Meteor's order (the content matches of all modules, then the function-word
    matches), so the result is the same to the last bit; a division by a zero is Java's (:func:`jdiv`).
    """
    tl, rl, tfw, rfw = stats.test_length, stats.ref_length, stats.test_function_words, stats.ref_function_words
    tc, rc, tf, rf = stats.test_content, stats.ref_content, stats.test_function, stats.ref_function
    nd = 1.0 - delta
    test_wlen = delta * (tl - tfw) + nd * tfw
    ref_wlen = delta * (rl - rfw) + nd * rfw
    test_wm = 0.0
    ref_wm = 0.0
    n = len(weights)
    for i in range(n):  # two sums, each in Meteor's order: content first, then function words
        w = weights[i]
        test_wm += tc[i] * w * delta
        ref_wm += rc[i] * w * delta
    for i in range(n):
        w = weights[i]
        test_wm += tf[i] * w * nd
        ref_wm += rf[i] * w * nd
    p = jdiv(test_wm, test_wlen)
    r = jdiv(ref_wm, ref_wlen)
    f1 = jdiv(2 * p * r, p + r)
    fmean = jdiv(1.0, jdiv(1.0 - alpha, p) + jdiv(alpha, r))
    if stats.is_perfect():
        frag = 0.0
    else:
        frag = jdiv(stats.chunks, (stats.test_word_matches + stats.ref_word_matches) / 2)
    pen = gamma * jpow(frag, beta)
    score = fmean * (1.0 - pen)
    score = score if score > 0.0 else 0.0  # NaN and negatives -> 0.0, as Meteor
    return Metrics(p, r, f1, fmean, pen, score)
