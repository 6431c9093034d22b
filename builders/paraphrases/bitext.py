"""A Moses-format phrase table from a sentence-aligned bitext.

Pipeline (:func:`build_phrase_table`):

1. **Tokenise** both sides with the scorer's own normaliser
   (:func:`meteor_lite.text.normalize.prepare`, ``norm=True``: Meteor's ``-norm``
   tokenisation and punctuation rules, then lower-casing), so the phrases are
   the tokens the scorer will look up.  Sentence pairs where either side
   tokenises to nothing, or either side is longer than ``max_sentence_length``
   tokens, are skipped and counted (:class:`BitextStats`); files of different
   line counts, empty files and a bitext where every pair is skipped are errors.
2. **Word alignment** in both directions with *eflomal* (Östling & Tiedemann
   2016; PyPI ``eflomal``, GPL-3.0).  It is run as a separate program, its
   ``eflomal-align`` command, on temporary files; meteor-lite neither imports
   nor links nor ships it (see ``docs/paraphrases.md`` on the licences).
   eflomal samples with a seed drawn from the system, so two runs give slightly
   different alignments.
3. **Symmetrisation** with grow-diag-final-and (Koehn et al. 2003).
4. **Phrase extraction**: every phrase pair consistent with the symmetrised
   alignment, up to ``max_phrase_length`` words on each side, including the
   variants that extend the source span over unaligned boundary words.
5. **Scoring**: phrase translation probabilities ``p(src|tgt) = c(src, tgt) /
   c(tgt)`` and ``p(tgt|src) = c(src, tgt) / c(src)`` (relative frequencies of
   extracted instances), and the lexical weights ``lex(src|tgt)`` and
   ``lex(tgt|src)`` of Koehn et al. (2003), computed with the pair's most
   frequent internal alignment (the first in sort order on ties) and word
   translation tables estimated from the symmetrised alignments (unaligned
   words are aligned to NULL).

Output lines are ``src ||| tgt ||| p(s|t) lex(s|t) p(t|s) lex(t|s) ||| align ||| c(t) c(s) c(s,t)``
sorted by ``(src, tgt)`` in code-point order (the byte order of ``LC_ALL=C sort``).

Memory: the tokenised bitext and its alignments are held in memory (eflomal
holds the whole corpus too), as are the two word-translation tables (one entry
per distinct aligned word pair); the phrase instances, by far the largest
stream, go through external sorts
(:class:`~meteor_lite_builders.paraphrases.pivot.ExternalSorter`, budget ``memory_mb``),
and one source phrase's pairs at a time are held while scoring.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

from meteor_lite.atomicfile import atomic_path
from meteor_lite.text.normalize import prepare

from ..errors import BitextError
from ..sources import progress_iter as _progress
from .moses import PhrasePair, open_text
from .pivot import ExternalSorter

Alignment = Set[Tuple[int, int]]
_log = logging.getLogger(__name__)

NULL = ""  # the NULL word in the lexical tables (a real token is never empty)


@dataclass(frozen=True)
class BitextOptions:
    """Parameters of :func:`build_phrase_table` (the CLI reads its defaults from here)."""

    #: longest phrase, in words, on either side
    max_phrase_length: int = 7
    #: sentence pairs with a longer side are skipped
    max_sentence_length: int = 100
    #: memory budget of each external sort's in-memory chunk, in MiB
    memory_mb: float = 256.0
    #: eflomal's model: 1 IBM1, 2 +HMM, 3 +HMM+fertility (eflomal's default)
    eflomal_model: int = 3
    #: use only the first N sentence pairs (None: all)
    limit: Optional[int] = None
    #: where temporary files go
    tmp_dir: Optional[str] = None


@dataclass
class BitextStats:
    """Counts gathered while building a phrase table."""

    lines: int = 0
    used: int = 0
    skipped_empty: int = 0
    skipped_long: int = 0
    alignment_points: int = 0
    phrase_instances: int = 0
    phrase_pairs: int = 0
    skipped_examples: List[str] = field(default_factory=list)

    def as_dict(self) -> Dict[str, object]:
        return dict(self.__dict__)


# --------------------------------------------------------------------------- tokenising
def _read_lines(path: "os.PathLike[str] | str") -> List[str]:
    try:
        with open_text(path) as f:
            return f.read().split("\n")
    except UnicodeDecodeError as exc:
        raise BitextError(f"{path}: not valid UTF-8 ({exc})") from None


def tokenize_bitext(
    src_path: "os.PathLike[str] | str",
    tgt_path: "os.PathLike[str] | str",
    src_lang: str,
    tgt_lang: str,
    *,
    options: BitextOptions = BitextOptions(),
    src_nonbreaking: Optional[Mapping[str, bool]] = None,
    tgt_nonbreaking: Optional[Mapping[str, bool]] = None,
    stats: Optional[BitextStats] = None,
    progress: bool = False,
) -> Iterator[Tuple[int, List[str], List[str]]]:
    """Yield ``(line_number, src_tokens, tgt_tokens)`` for the usable sentence pairs.

    Raises :class:`BitextError` for files of different line counts or an empty
    file; pairs that tokenise to nothing or are too long are skipped and counted.
    """
    st = stats if stats is not None else BitextStats()
    src_lines = _read_lines(src_path)
    tgt_lines = _read_lines(tgt_path)
    for lines in (src_lines, tgt_lines):
        if lines and lines[-1] == "":
            lines.pop()  # the final newline
    if not src_lines or not tgt_lines:
        raise BitextError(f"{src_path if not src_lines else tgt_path}: the file is empty")
    if len(src_lines) != len(tgt_lines):
        raise BitextError(
            f"{src_path} has {len(src_lines)} lines but {tgt_path} has {len(tgt_lines)}: "
            "a sentence-aligned bitext needs the same number of lines on both sides"
        )
    n = len(src_lines) if options.limit is None else min(options.limit, len(src_lines))
    for i in _progress(range(n), "tokenise", progress, n, "line"):
        st.lines += 1
        s = prepare(src_lines[i], src_lang, norm=True, lower=True, nonbreaking=src_nonbreaking)
        t = prepare(tgt_lines[i], tgt_lang, norm=True, lower=True, nonbreaking=tgt_nonbreaking)
        if not s or not t:
            st.skipped_empty += 1
            if len(st.skipped_examples) < 5:
                st.skipped_examples.append(f"line {i + 1}: tokenises to nothing")
            continue
        if len(s) > options.max_sentence_length or len(t) > options.max_sentence_length:
            st.skipped_long += 1
            if len(st.skipped_examples) < 5:
                st.skipped_examples.append(f"line {i + 1}: longer than {options.max_sentence_length} tokens")
            continue
        st.used += 1
        yield i + 1, s, t


# --------------------------------------------------------------------------- alignment
def eflomal_command() -> str:
    """Path of eflomal's ``eflomal-align`` program (next to this Python, or on PATH)."""
    here = Path(sys.executable).parent / "eflomal-align"
    if here.exists():
        return str(here)
    found = shutil.which("eflomal-align")
    if found:
        return found
    raise BitextError(
        "word alignment needs eflomal's 'eflomal-align' program: pip install 'meteor-lite[build]' (or pip install eflomal)"
    )


def parse_links(line: str) -> Alignment:
    """``"0-1 2-2"`` -> ``{(0, 1), (2, 2)}`` (source position, target position)."""
    out = set()
    for tok in line.split():
        a, _, b = tok.partition("-")
        out.add((int(a), int(b)))
    return out


def align_eflomal(
    pairs: Sequence[Tuple[Sequence[str], Sequence[str]]],
    *,
    model: int = 3,
    tmp_dir: Optional[str] = None,
) -> Tuple[List[Alignment], List[Alignment]]:
    """Align tokenised sentence pairs both ways with eflomal; links are (source, target) positions.

    Returns the forward (each target word to at most one source word) and the
    reverse alignments.
    """
    cmd = eflomal_command()
    work = tempfile.mkdtemp(prefix="meteor-lite-align-", dir=tmp_dir)
    try:
        src, tgt, fwd, rev = (os.path.join(work, n) for n in ("src", "tgt", "fwd", "rev"))
        with open(src, "w", encoding="utf-8") as fs, open(tgt, "w", encoding="utf-8") as ft:
            for s, t in pairs:
                fs.write(" ".join(s) + "\n")
                ft.write(" ".join(t) + "\n")
        r = subprocess.run([cmd, "-s", src, "-t", tgt, "-f", fwd, "-r", rev, "-m", str(model)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise BitextError(f"eflomal failed (exit {r.returncode}): {r.stderr.strip()[-1000:]}")
        with open(fwd, encoding="utf-8") as ff, open(rev, encoding="utf-8") as fr:
            a_f = [parse_links(line) for line in ff]
            a_r = [parse_links(line) for line in fr]
        if len(a_f) != len(pairs) or len(a_r) != len(pairs):
            raise BitextError(f"eflomal returned {len(a_f)}/{len(a_r)} alignments for {len(pairs)} sentence pairs")
        return a_f, a_r
    finally:
        shutil.rmtree(work, ignore_errors=True)


_NEIGHBOURS = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


def grow_diag_final_and(fwd: Alignment, rev: Alignment, src_len: int, tgt_len: int) -> Alignment:
    """Symmetrise two directional alignments with grow-diag-final-and (Koehn et al. 2003).

    Start from the intersection; repeatedly add union points that neighbour
    (horizontally, vertically or diagonally) a current point and align a word
    not aligned yet on at least one side; finally add, from each direction,
    points whose two words are both still unaligned.
    """
    union = fwd | rev
    a = set(fwd & rev)
    src_al = {i for i, _ in a}
    tgt_al = {j for _, j in a}
    added = True
    while added:
        added = False
        for i in range(src_len):
            for j in range(tgt_len):
                if (i, j) not in a:
                    continue
                for di, dj in _NEIGHBOURS:
                    ni, nj = i + di, j + dj
                    if (ni, nj) in union and (ni, nj) not in a and (ni not in src_al or nj not in tgt_al):
                        a.add((ni, nj))
                        src_al.add(ni)
                        tgt_al.add(nj)
                        added = True
    for direction in (fwd, rev):
        for i in range(src_len):
            for j in range(tgt_len):
                if (i, j) in direction and i not in src_al and j not in tgt_al:
                    a.add((i, j))
                    src_al.add(i)
                    tgt_al.add(j)
    return a


# --------------------------------------------------------------------------- extraction
def extract_phrases(
    src_len: int, tgt_len: int, alignment: Alignment, max_len: int = 7
) -> Iterator[Tuple[int, int, int, int]]:
    """Spans ``(s_start, s_end, t_start, t_end)`` (inclusive) of every phrase pair consistent with ``alignment``.

    Consistent: at least one link inside, and no link joins a word inside the
    pair to a word outside it.  For each target span, the source span is the
    smallest one covering its links, then extended over unaligned source words
    at either end (each extension is another pair); both sides at most
    ``max_len`` words.
    """
    t_links: List[List[int]] = [[] for _ in range(tgt_len)]
    s_tmin = [tgt_len] * src_len
    s_tmax = [-1] * src_len
    for i, j in alignment:
        t_links[j].append(i)
        if j < s_tmin[i]:
            s_tmin[i] = j
        if j > s_tmax[i]:
            s_tmax[i] = j
    s_aligned = [s_tmax[i] >= 0 for i in range(src_len)]
    for t_start in range(tgt_len):
        s_min, s_max = src_len, -1
        for t_end in range(t_start, min(t_start + max_len, tgt_len)):
            for i in t_links[t_end]:
                if i < s_min:
                    s_min = i
                if i > s_max:
                    s_max = i
            if s_max < 0:
                continue
            if s_max - s_min >= max_len:
                continue
            # consistency: every source word in [s_min, s_max] links only inside [t_start, t_end]
            if any(s_aligned[i] and (s_tmin[i] < t_start or s_tmax[i] > t_end) for i in range(s_min, s_max + 1)):
                continue
            s_start = s_min
            while True:
                s_end = s_max
                while True:
                    yield (s_start, s_end, t_start, t_end)
                    s_end += 1
                    if s_end >= src_len or s_aligned[s_end] or s_end - s_start >= max_len:
                        break
                s_start -= 1
                if s_start < 0 or s_aligned[s_start] or s_max - s_start >= max_len:
                    break


def lexical_tables(
    pairs: Iterable[Tuple[Sequence[str], Sequence[str], Alignment]]
) -> Tuple[Dict[Tuple[str, str], float], Dict[Tuple[str, str], float]]:
    """Word translation tables ``w(s|t)`` and ``w(t|s)`` from aligned sentence pairs (NULL = ``""``).

    ``w(s|t) = c(s, t) / c(t)`` over alignment links; an unaligned source word
    counts as linked to NULL on the target side, and vice versa.
    """
    joint: Counter = Counter()
    for s, t, a in pairs:
        s_al = {i for i, _ in a}
        t_al = {j for _, j in a}
        for i, j in a:
            joint[(s[i], t[j])] += 1
        for i, w in enumerate(s):
            if i not in s_al:
                joint[(w, NULL)] += 1
        for j, w in enumerate(t):
            if j not in t_al:
                joint[(NULL, w)] += 1
    c_s: Counter = Counter()
    c_t: Counter = Counter()
    for (ws, wt), c in joint.items():
        c_s[ws] += c
        c_t[wt] += c
    s_given_t = {k: c / c_t[k[1]] for k, c in joint.items()}
    t_given_s = {k: c / c_s[k[0]] for k, c in joint.items()}
    return s_given_t, t_given_s


def lexical_weight(
    src: Sequence[str], tgt: Sequence[str], links: Alignment, s_given_t: Mapping[Tuple[str, str], float]
) -> float:
    """``lex(src|tgt, a)`` = product over source words of the mean ``w(s|t)`` over their links (NULL if none)."""
    by_src: Dict[int, List[int]] = {}
    for i, j in links:
        by_src.setdefault(i, []).append(j)
    p = 1.0
    for i, w in enumerate(src):
        js = by_src.get(i)
        if js:
            p *= sum(s_given_t.get((w, tgt[j]), 0.0) for j in js) / len(js)
        else:
            p *= s_given_t.get((w, NULL), 0.0)
    return p


# --------------------------------------------------------------------------- the phrase table
def score_phrase_pairs(
    instances: Iterable[Tuple[str, str, str]],
    s_given_t: Mapping[Tuple[str, str], float],
    t_given_s: Mapping[Tuple[str, str], float],
    *,
    options: BitextOptions = BitextOptions(),
    stats: Optional[BitextStats] = None,
    progress: bool = False,
) -> Iterator[PhrasePair]:
    """Turn phrase instances ``(src, tgt, internal alignment)`` into scored Moses pairs, sorted by (src, tgt)."""
    st = stats if stats is not None else BitextStats()
    mk: Dict[str, Any] = dict(max_records=max(2, int(options.memory_mb * 1024 * 1024 / 400)), tmp_dir=options.tmp_dir)
    by_pair = ExternalSorter("sss", lambda r: r, name="instances", **mk)
    by_tgt = ExternalSorter("ssiisff", lambda r: (r[1], r[0]), name="by-target", **mk)
    by_src = ExternalSorter("ssiiisff", lambda r: (r[0], r[1]), name="by-source", **mk)
    ts_swapped = _Swapped(t_given_s)
    try:
        for inst in instances:
            by_pair.add(inst)
            st.phrase_instances += 1
        # group by source phrase: c(s,t), c(s), the most frequent alignment and its lexical weights
        for s, grp_s in groupby(_progress(by_pair, "score: count", progress, by_pair.count, "inst"), key=lambda r: r[0]):
            rows = []
            c_s = 0
            for t, grp_t in groupby(grp_s, key=lambda r: r[1]):
                best_a, best_n, n_st = "", 0, 0
                for a, grp_a in groupby(grp_t, key=lambda r: r[2]):
                    n = sum(1 for _ in grp_a)
                    n_st += n
                    if n > best_n:
                        best_a, best_n = a, n
                c_s += n_st
                rows.append((t, n_st, best_a))
            s_toks = s.split(" ")
            for t, n_st, a in rows:
                t_toks = t.split(" ")
                links = {(int(x), int(y)) for x, _, y in (p.partition("-") for p in a.split(" "))}
                lex_st = lexical_weight(s_toks, t_toks, links, s_given_t)
                lex_ts = lexical_weight(t_toks, s_toks, {(j, i) for i, j in links}, ts_swapped)
                by_tgt.add((s, t, n_st, c_s, a, lex_st, lex_ts))
        by_pair.close()
        # group by target phrase: c(t)
        for t, grp in groupby(by_tgt, key=lambda r: r[1]):
            rows2 = list(grp)
            c_t = sum(r[2] for r in rows2)
            for s, _t, n_st, c_s, a, lex_st, lex_ts in rows2:
                by_src.add((s, t, n_st, c_s, c_t, a, lex_st, lex_ts))
        by_tgt.close()
        for s, t, n_st, c_s, c_t, a, lex_st, lex_ts in by_src:
            st.phrase_pairs += 1
            yield PhrasePair(s, t, (n_st / c_t, lex_st, n_st / c_s, lex_ts), a, f"{c_t} {c_s} {n_st}")
    finally:
        by_pair.close()
        by_tgt.close()
        by_src.close()


class _Swapped(Mapping[Tuple[str, str], float]):
    """View of a table keyed (s, t) as keyed (t, s)."""

    def __init__(self, table: Mapping[Tuple[str, str], float]):
        self._t = table

    def __getitem__(self, key: Tuple[str, str]) -> float:
        return self._t[(key[1], key[0])]

    def get(self, key, default=None):
        return self._t.get((key[1], key[0]), default)

    def __iter__(self):
        return ((b, a) for a, b in self._t)

    def __len__(self) -> int:
        return len(self._t)


def phrase_instances(
    aligned: Iterable[Tuple[Sequence[str], Sequence[str], Alignment]], max_len: int = 7
) -> Iterator[Tuple[str, str, str]]:
    """Every consistent phrase pair of every sentence: ``(src phrase, tgt phrase, internal links "i-j ...")``."""
    for s, t, a in aligned:
        for s0, s1, t0, t1 in extract_phrases(len(s), len(t), a, max_len):
            links = sorted((i - s0, j - t0) for i, j in a if s0 <= i <= s1 and t0 <= j <= t1)
            yield " ".join(s[s0 : s1 + 1]), " ".join(t[t0 : t1 + 1]), " ".join(f"{i}-{j}" for i, j in links)


def build_phrase_table(
    src_path: "os.PathLike[str] | str",
    tgt_path: "os.PathLike[str] | str",
    src_lang: str,
    tgt_lang: str,
    *,
    options: BitextOptions = BitextOptions(),
    src_nonbreaking: Optional[Mapping[str, bool]] = None,
    tgt_nonbreaking: Optional[Mapping[str, bool]] = None,
    stats: Optional[BitextStats] = None,
    progress: bool = False,
    aligner=None,
) -> Iterator[PhrasePair]:
    """Tokenise, align, symmetrise, extract and score: the Moses phrase table of a bitext (source -> target).

    ``aligner`` replaces eflomal (a callable with :func:`align_eflomal`'s
    signature; tests use it).  Raises :class:`BitextError` on bad input.
    """
    st = stats if stats is not None else BitextStats()
    pairs = [(s, t) for _n, s, t in tokenize_bitext(
        src_path, tgt_path, src_lang, tgt_lang, options=options, src_nonbreaking=src_nonbreaking,
        tgt_nonbreaking=tgt_nonbreaking, stats=st, progress=progress)]
    if not pairs:
        raise BitextError(
            f"{src_path} / {tgt_path}: no usable sentence pair "
            f"({st.skipped_empty} tokenise to nothing, {st.skipped_long} too long)"
        )
    if progress:
        _log.info("aligning %d sentence pairs with eflomal ...", len(pairs))
    align = aligner or (lambda p: align_eflomal(p, model=options.eflomal_model, tmp_dir=options.tmp_dir))
    fwd, rev = align(pairs)
    sym: List[Alignment] = []
    for (s, t), af, ar in zip(_progress(pairs, "symmetrise", progress, len(pairs), "pair"), fwd, rev):
        a = grow_diag_final_and(af, ar, len(s), len(t))
        st.alignment_points += len(a)
        sym.append(a)
    aligned = [(s, t, a) for (s, t), a in zip(pairs, sym)]
    del fwd, rev, sym
    s_given_t, t_given_s = lexical_tables(aligned)
    inst = phrase_instances(_progress(aligned, "extract", progress, len(aligned), "pair"), options.max_phrase_length)
    yield from score_phrase_pairs(inst, s_given_t, t_given_s, options=options, stats=st, progress=progress)


# --------------------------------------------------------------------------- bitexts -> paraphrases
def tokenize_corpus(
    path: "os.PathLike[str] | str",
    lang: str,
    out: "os.PathLike[str] | str",
    *,
    nonbreaking: Optional[Mapping[str, bool]] = None,
    limit: Optional[int] = None,
    progress: bool = False,
) -> int:
    """Write ``path`` tokenised as the scorer tokenises (normalised, lower-cased), one line per line; return lines.

    These are the corpora the pivot counts common words in and looks target
    phrases up in, so they must be tokenised like the phrase table.
    """
    n = 0
    try:
        with open_text(path) as f, open_text(out, "wt") as o:
            for line in _progress(f, f"tokenise {Path(path).name}", progress, limit, "line"):
                if limit is not None and n >= limit:
                    break
                o.write(" ".join(prepare(line, lang, norm=True, lower=True, nonbreaking=nonbreaking)) + "\n")
                n += 1
    except UnicodeDecodeError as exc:
        raise BitextError(f"{path}: not valid UTF-8 ({exc})") from None
    if n == 0:
        raise BitextError(f"{path}: the file is empty")
    return n


@dataclass
class PivotInput:
    """One pivot language of :func:`paraphrases_from_bitexts`: its code and its side of the bitext."""

    lang: str
    path: str
    #: a prebuilt phrase table for it (source = pivot, target = paraphrased language), if any
    phrase_table: Optional[str] = None


def paraphrases_from_bitexts(
    lang: str,
    corpus: "os.PathLike[str] | str",
    pivots: Sequence[PivotInput],
    work_dir: "os.PathLike[str] | str",
    *,
    bitext_options: BitextOptions = BitextOptions(),
    pivot_options=None,
    combine_mode: str = "sum",
    nonbreaking: Optional[Mapping[str, Mapping[str, bool]]] = None,
    reuse: bool = True,
    progress: bool = False,
    report: Optional[Dict[str, object]] = None,
    common_words: Optional[Mapping[str, Set[str]]] = None,
) -> Iterator[Tuple[str, str, float]]:
    """Paraphrases of ``lang`` from sentence-aligned bitexts with one or more pivot languages.

    ``corpus`` is the ``lang`` side; each pivot's file is line-aligned with it
    (e.g. the 4-way parallel Multi30k).  For each pivot: tokenise, build the
    phrase table (pivot -> ``lang``; kept in ``work_dir`` and reused when
    ``reuse``), then pivot it as Parex does with the tokenised corpora (the
    ``lang`` corpus is also the target corpus).  Several pivots combine with
    :func:`~meteor_lite_builders.paraphrases.pivot.combine` (``mean`` or ``sum``) before
    the final threshold.  Yields ``(phrase, paraphrase, prob)`` in table order
    (sorted by phrase, then paraphrase, in Java's string order).
    ``nonbreaking`` maps language -> non-breaking prefixes for the normaliser.
    ``report`` (a dict) receives the statistics of every step.  ``common_words``
    (language -> words) replaces Parex's common-word lists, which are otherwise
    counted on the corpora (relative frequency > ``min_rel_freq``); on a small
    corpus that list holds frequent content words too (in Multi30k: dog, man,
    woman), whose phrases Parex's filter then drops.
    """
    from .moses import write_phrase_table
    from .pivot import PivotOptions, PivotStats, combine, pivot_pairs, threshold

    popts = pivot_options or PivotOptions()
    wd = Path(work_dir)
    wd.mkdir(parents=True, exist_ok=True)
    nb = nonbreaking or {}
    rep = report if report is not None else {}
    limit = bitext_options.limit
    tag = "" if limit is None else f".{limit}"

    def tok(path: str, code: str) -> str:
        out = wd / f"tok.{code}{tag}.txt.gz"
        if not (reuse and out.exists()):
            with atomic_path(out, ".tmp.gz") as tmp:
                tokenize_corpus(path, code, tmp, nonbreaking=nb.get(code), limit=limit, progress=progress)
        return str(out)

    e_tok = tok(str(corpus), lang)
    streams = []
    for pv in pivots:
        f_tok = tok(pv.path, pv.lang)
        pt = pv.phrase_table or str(wd / f"pt.{pv.lang}-{lang}{tag}.gz")
        if pv.phrase_table is None and not (reuse and Path(pt).exists()):
            bst = BitextStats()
            with atomic_path(pt, ".tmp.gz") as tmp:
                write_phrase_table(str(tmp), build_phrase_table(
                    pv.path, str(corpus), pv.lang, lang, options=bitext_options, src_nonbreaking=nb.get(pv.lang),
                    tgt_nonbreaking=nb.get(lang), stats=bst, progress=progress))
            rep[f"phrase_table.{pv.lang}-{lang}"] = bst.as_dict()
        pst = PivotStats()
        rep[f"pivot.{pv.lang}"] = pst  # filled while the stream is consumed
        cw = common_words or {}
        streams.append(pivot_pairs(pt, f_tok, e_tok, e_tok, popts.shared_by(len(pivots)), stats=pst, progress=progress,
                                   common_e=cw.get(lang), common_f=cw.get(pv.lang)))
    merged = streams[0] if len(streams) == 1 else combine(streams, combine_mode)
    yield from threshold(merged, popts.min_final_prob)
