"""Synthetic Moses phrase tables of any size, with Zipf-distributed phrases, for benchmarking the pivot.

:func:`write_synthetic` writes, from one seed (same seed, same bytes):

* ``pt.gz``: ``lines`` phrase-table lines ``f ||| e ||| p(f|e) lex p(e|f) lex ||| 0-0 ||| c(e) c(f) c(f,e)``,
  grouped by pivot phrase ``f``.  Each F phrase has a number of translations
  drawn from a power law (P(k) ~ k^-2.7, at most :data:`MAX_FANOUT`), like a real
  table: most phrases have one or two translations, a few have dozens.  The E
  phrases of an F phrase are distinct, drawn from a Zipf distribution over the E
  phrase vocabulary; probabilities are ratios of small counts (``2/7``), as the
  phrase-table builder writes them.
* ``f.txt``, ``e.txt``: corpora of ``lines // 40`` sentences (about the ratio of
  Multi30k: 29,000 sentence pairs give 1.2 M phrase-table lines), each a few
  phrases drawn from the same Zipf distributions, so that the frequent words
  are common words for Parex's filter and most E phrases occur as n-grams of
  ``e.txt`` (the target corpus).

Phrases are 1 to 7 words drawn from a Zipf distribution over a word vocabulary
that includes frequent punctuation and a few words with symbols (dropped by the symbol filter), accented
letters, a character above U+FFFF and one in U+E000..U+FFFF (so the output
order exercises Java's UTF-16 ordering).
"""

from __future__ import annotations

import gzip
import io
import os
import random
from bisect import bisect_right
from itertools import accumulate
from pathlib import Path
from typing import Callable, Dict, List, Sequence

__all__ = ["MAX_FANOUT", "write_synthetic", "synthetic_files"]

#: most translations of one F phrase (Multi30k's largest fan-out after filtering is about 100)
MAX_FANOUT = 100
#: phrase-table lines per corpus sentence (Multi30k: 1.2 M lines from 29,000 sentences)
LINES_PER_SENTENCE = 40
_SYLLABLES = ["ka", "lo", "mi", "ne", "sa", "tu", "ri", "po", "de", "va", "ze", "bu", "gi", "fo", "ha", "ju"]
_ODD_WORDS = ["café", "naïve", "straße", "x,y", "(q)", "z.", "😀", "ｚ", "é", "œuvre"]


def _word(i: int, tag: str) -> str:
    """A pronounceable word for index ``i`` (base-16 syllables), with a language tag letter."""
    out = []
    n = i + 1
    while n:
        n, d = divmod(n, len(_SYLLABLES))
        out.append(_SYLLABLES[d])
    return tag + "".join(out)


def _zipf_sampler(rng: random.Random, n: int, s: float) -> Callable[[], int]:
    """A function drawing ranks 0..n-1 with P(r) ~ 1/(r+1)^s."""
    cum = list(accumulate(1.0 / (r + 1) ** s for r in range(n)))
    total = cum[-1]
    rand = rng.random

    def draw() -> int:
        return min(n - 1, bisect_right(cum, rand() * total))
    return draw


def _phrases(rng: random.Random, words: Sequence[str], n: int) -> List[str]:
    """``n`` distinct phrases of 1-7 words (as the phrase-table builder extracts), words drawn by a Zipf law."""
    draw = _zipf_sampler(rng, len(words), 1.0)
    lengths = [1, 2, 2, 3, 3, 4, 4, 5, 6, 7]
    seen = set()
    out: List[str] = []
    while len(out) < n:
        p = " ".join(words[draw()] for _ in range(rng.choice(lengths)))
        if p not in seen:
            seen.add(p)
            out.append(p)
    rng.shuffle(out)  # a phrase's frequency independent of its words' frequencies
    return out


def _vocabularies(rng: random.Random, lines: int, tag: str) -> List[str]:
    """Words of one language: the odd words among the first few thousand ranks."""
    words = [_word(i, tag) for i in range(5_000 + lines // 50)]
    for k, w in enumerate(_ODD_WORDS):
        words[50 + 37 * k] = w
    words[2], words[4] = ",", "."  # frequent punctuation: the symbol filter's main work in a real table
    return words


def _fanouts(rng: random.Random, lines: int) -> List[int]:
    """Numbers of translations of successive F phrases, adding up to ``lines``."""
    draw_w = list(accumulate(k ** -2.7 for k in range(1, MAX_FANOUT + 1)))
    out: List[int] = []
    left = lines
    while left > 0:
        k = min(left, 1 + bisect_right(draw_w, rng.random() * draw_w[-1]))
        out.append(k)
        left -= k
    return out


def _table_line(rng: random.Random, f: str, e: str, p_ef: float) -> str:
    c_fe = rng.randint(1, 5)
    c_e = c_fe + rng.choice([0, 0, 1, 2, 5, 20, 100])
    p_fe = c_fe / c_e
    return f"{f} ||| {e} ||| {p_fe!r} {rng.random()!r} {p_ef!r} {rng.random()!r} ||| 0-0 ||| {c_e} {c_e} {c_fe}\n"


def _write_table(path: Path, rng: random.Random, f_phrases: List[str], e_phrases: List[str],
                 fanouts: List[int]) -> None:
    draw_e = _zipf_sampler(rng, len(e_phrases), 1.05)
    # mtime=0: the same seed gives the same bytes (gzip.open would stamp the current time in the header).
    with gzip.GzipFile(path, "wb", compresslevel=1, mtime=0) as raw, \
            io.TextIOWrapper(raw, encoding="utf-8", newline="\n") as out:
        for f, k in zip(f_phrases, fanouts):
            es: Dict[str, int] = {}
            while len(es) < k:
                es.setdefault(e_phrases[draw_e()], rng.randint(1, 9))
            total = sum(es.values())
            out.writelines(_table_line(rng, f, e, c / total) for e, c in es.items())


def _write_corpus(path: Path, rng: random.Random, phrases: List[str], sentences: int) -> None:
    draw = _zipf_sampler(rng, len(phrases), 1.05)
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for _ in range(sentences):
            out.write(" ".join(phrases[draw()] for _ in range(rng.randint(2, 5))) + "\n")


def synthetic_files(out_dir: "os.PathLike[str] | str") -> Dict[str, Path]:
    """The paths :func:`write_synthetic` writes in ``out_dir``."""
    d = Path(out_dir)
    return {"phrase_table": d / "pt.gz", "f_corpus": d / "f.txt", "e_corpus": d / "e.txt"}


def write_synthetic(out_dir: "os.PathLike[str] | str", lines: int, seed: int = 1) -> Dict[str, Path]:
    """Write a synthetic phrase table of ``lines`` lines and its corpora into ``out_dir``; return their paths.

    Deterministic: the same ``lines`` and ``seed`` give the same files.  Files
    are written under temporary names and renamed, the phrase table last.
    """
    if lines < 1:
        raise ValueError("lines must be >= 1")
    paths = synthetic_files(out_dir)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    e_words, f_words = _vocabularies(rng, lines, "e"), _vocabularies(rng, lines, "f")
    fanouts = _fanouts(rng, lines)
    # one F phrase per group of lines (distinct, as in a real table); E phrases shared between groups
    e_phrases, f_phrases = _phrases(rng, e_words, max(MAX_FANOUT, lines // 3)), _phrases(rng, f_words, len(fanouts))
    sentences = max(1_000, lines // LINES_PER_SENTENCE)
    for key, phrases in (("e_corpus", e_phrases), ("f_corpus", f_phrases)):
        tmp = paths[key].with_name(paths[key].name + ".tmp")
        _write_corpus(tmp, rng, phrases, sentences)
        tmp.replace(paths[key])
    tmp = paths["phrase_table"].with_name("pt.tmp.gz")
    _write_table(tmp, rng, f_phrases, e_phrases, fanouts)
    tmp.replace(paths["phrase_table"])
    return paths
