"""Synthetic long segments for the length-scaling section, the same for every run (a fixed seed).

* **Vocabulary**: the lower-cased alphabetic words of system1's ``reference``
  (white-space tokens for which ``str.isalpha()`` holds), ranked by frequency
  (ties alphabetically).
* **Reference** of ``n`` tokens: each word drawn independently with a Zipf
  law over that ranking, P(rank r) proportional to 1/r, so frequent words
  repeat as in real text (many candidate matches per word: the hard case of
  the alignment search).
* **Hypothesis**: the reference with, per token, 8% substituted by another
  drawn word, 5% inflected (a trailing ``s`` added or removed: a stem match
  rather than an exact one), 4% deleted and 3% followed by an inserted word;
  then cut into chunks of 2-12 tokens of which 15% change places with the
  next chunk, so the alignment has many chunks.

Every segment has its own generator seeded with ``"seed:length:index"`` (a
string seed: the same on every machine and Python version since 3.2).
"""

from __future__ import annotations

import bisect
import random
from collections import Counter
from pathlib import Path
from typing import List, Sequence, Tuple

P_SUBSTITUTE = 0.08
P_INFLECT = 0.05
P_DELETE = 0.04
P_INSERT = 0.03
P_SWAP_CHUNK = 0.15
CHUNK_MIN, CHUNK_MAX = 2, 12


def reference_vocabulary(path: Path) -> List[str]:
    """The alphabetic, lower-cased words of ``path``, most frequent first (ties alphabetically)."""
    counts: Counter = Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            counts.update(w for w in line.lower().split() if w.isalpha())
    if not counts:
        raise ValueError(f"{path}: no alphabetic words to build segments from")
    return sorted(counts, key=lambda w: (-counts[w], w))


def zipf_cumulative(n: int, exponent: float = 1.0) -> List[float]:
    """Cumulative weights of ranks 1..n under P(r) proportional to r^-exponent."""
    total = 0.0
    out = []
    for r in range(1, n + 1):
        total += r ** -exponent
        out.append(total)
    return out


def _inflect(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word + "s"


class SegmentMaker:
    """Makes reference/hypothesis pairs of a given length from a ranked vocabulary."""

    def __init__(self, vocabulary: Sequence[str], seed: int = 13) -> None:
        self.vocabulary = list(vocabulary)
        self.seed = seed
        self._cum = zipf_cumulative(len(self.vocabulary))

    def _word(self, rng: random.Random) -> str:
        x = rng.random() * self._cum[-1]
        return self.vocabulary[min(bisect.bisect_right(self._cum, x), len(self.vocabulary) - 1)]

    def _edit(self, ref: List[str], rng: random.Random) -> List[str]:
        out: List[str] = []
        for w in ref:
            x = rng.random()
            if x < P_SUBSTITUTE:
                out.append(self._word(rng))
            elif x < P_SUBSTITUTE + P_INFLECT:
                out.append(_inflect(w))
            elif x < P_SUBSTITUTE + P_INFLECT + P_DELETE:
                continue
            else:
                out.append(w)
            if rng.random() < P_INSERT:
                out.append(self._word(rng))
        return out

    @staticmethod
    def _shuffle_chunks(words: List[str], rng: random.Random) -> List[str]:
        chunks: List[List[str]] = []
        i = 0
        while i < len(words):
            k = rng.randint(CHUNK_MIN, CHUNK_MAX)
            chunks.append(words[i:i + k])
            i += k
        j = 0
        while j + 1 < len(chunks):
            if rng.random() < P_SWAP_CHUNK:
                chunks[j], chunks[j + 1] = chunks[j + 1], chunks[j]
                j += 2
            else:
                j += 1
        return [w for c in chunks for w in c]

    def pair(self, n_tokens: int, index: int = 0) -> Tuple[str, str]:
        """The ``index``-th (reference, hypothesis) pair of ``n_tokens`` reference tokens, space-joined."""
        rng = random.Random(f"{self.seed}:{n_tokens}:{index}")
        ref = [self._word(rng) for _ in range(n_tokens)]
        hyp = self._shuffle_chunks(self._edit(ref, rng), rng)
        return " ".join(ref), " ".join(hyp)
