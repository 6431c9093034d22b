"""Paraphrase tables by pivoting a Moses phrase table, as Meteor's Parex does.

Bannard & Callison-Burch (2005): two phrases ``e1``, ``e2`` of a language E that
translate to the same phrase ``f`` of a pivot language F are paraphrases, with

    p(e2|e1) = sum over f of p(e2|f) * p(f|e1)

read from a Moses phrase table whose source side is F and target side is E
(``p(f|e)`` is score column 0, ``p(e|f)`` column 2).

The filters and their exact boundaries were established by running the
official ``Parex`` (inside ``meteor-1.5.jar``) as a black box on small
generated tables; ``docs/paraphrases.md`` lists the experiments.  In order:

1. *Common words.*  A word is common when its relative frequency in a corpus
   (whitespace tokens) is strictly greater than ``min_rel_freq`` (default
   0.001).  Phrase-table entries whose E phrase is made only of common E words
   (counted on the E corpus), or whose F phrase is made only of common F words
   (counted on the F corpus), are dropped.
2. *Symbols.*  Entries whose E or F phrase contains any character of
   ``symbols`` (default: the 32 ASCII punctuation characters) are dropped.
3. *Translation probability.*  A contribution ``p(e2|f) * p(f|e1)`` of one
   pivot is kept only when it is ``>= min_trans_prob`` (default 0.001).
4. *Substrings.*  A pair is dropped when one phrase occurs as a contiguous
   run of whole words inside the other (``"b c"`` in ``"a b c d"``, but not
   ``"x"`` in ``"xy"`` and not ``"r s"`` in ``"r t s"``); this includes
   ``e1 == e2``.
5. *Target corpus.*  Only pairs whose first phrase ``e1`` occurs as a word
   n-gram of the target corpus are kept (``e2`` need not occur).
6. *Final probability.*  The summed probability must be ``>= min_final_prob``
   (default 0.01).

Contributions are summed in the order of the phrase-table lines ``(f, e2)``
(as Parex does), so probabilities agree to the last bit.  Output is sorted by
``(e1, e2)`` in UTF-16 code-unit order (Java's ``String.compareTo``, which is
the order of Parex's ``paraphrase.gz``; it differs from code-point order only
for characters above U+FFFF); the bundle keeps this order as ``seq``.

Memory
------
Everything is streamed through external merge sorts (:class:`ExternalSorter`):
chunks of at most ``memory_mb`` worth of records are sorted in memory and
spilled to temporary files, then merged with at most ``fan_in`` files open.
Besides those buffers, the process holds (a) the word counts of the two
corpora (one entry per distinct word), (b) the entries of one pivot phrase
at a time (its fan-out; the pairs it produces are streamed), and (c) the
paraphrases of one phrase at a time.  None of these grows with the number of
phrase-table lines.  Disk use is about the size of the pair stream.

Engines
-------
This module is the ``sort`` engine.  With ``PivotOptions(engine="duckdb")``,
:func:`pivot_pairs` hands the phrase table to :mod:`.pivot_sql`, which runs the
same filters, join and sums as SQL on DuckDB (out of core) and gives the same
output bit for bit (docs/paraphrases.md compares them); ``engine="spark"`` runs
them as Spark SQL (:mod:`.pivot_spark`, docs/spark.md), again bit for bit.
"""

from __future__ import annotations

import gzip
import heapq
import os
import shutil
import string
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from itertools import groupby
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from meteor_lite.jarcompat import utf16_sort_key as java_key
from meteor_lite.text.normalize import tokenize

from ..errors import InvalidParameterError, PhraseTableError, PivotError
from ..sources import progress_iter as _progress
from .moses import PhrasePair, open_text, parse_line

#: Parex's default symbol filter (established by probing: every ASCII punctuation character).
DEFAULT_SYMBOLS: str = string.punctuation

#: The pivot's engines (PivotOptions.engine).
ENGINES = ("sort", "duckdb", "spark")
#: The command line's default engine (docs/paraphrases.md: faster at every measured size).
DEFAULT_ENGINE = "duckdb"

#: Rough size in memory of one buffered record (tuple + strings + key), used to turn a
#: memory budget into a number of records per sorted chunk.
RECORD_BYTES = 480


@dataclass(frozen=True)
class PivotOptions:
    """Parameters of the pivot; defaults are Parex's."""

    #: keep a pivot's contribution p(e2|f) * p(f|e1) when >= this (Parex ``minTP``)
    min_trans_prob: float = 0.001
    #: a word is common when count/total > this (Parex ``minRF``)
    min_rel_freq: float = 0.001
    #: keep a pair when its summed probability >= this (Parex ``minFinalP``)
    min_final_prob: float = 0.01
    #: characters that disqualify a phrase (Parex ``symbols``)
    symbols: str = DEFAULT_SYMBOLS
    #: memory budget of each external sort's in-memory chunk, in MiB
    memory_mb: float = 256.0
    #: most temporary files merged at once
    fan_in: int = 32
    #: where temporary files go (default: the system's temporary directory)
    tmp_dir: Optional[str] = None
    #: "sort" (the streaming external merge sorts of this module) or "duckdb" (the same pivot as SQL,
    #: :mod:`.pivot_sql`; bit-identical output)
    engine: str = "sort"
    #: threads of the duckdb engine (and of the spark engine's local master, when it starts one)
    threads: int = 2
    #: the spark engine's Parquet directory (a directory of the cluster's shared storage: hdfs://, s3a://, ...;
    #: its results are kept there); default: a local temporary directory, removed (:mod:`.pivot_spark`)
    spark_dir: Optional[str] = None

    def shared_by(self, k: int) -> "PivotOptions":
        """These options for one of ``k`` pivots that run at once (several pivot languages, merged).

        The duckdb engine's pipelines all hold their database until the merge is
        done, so they share the memory budget (``memory_mb / k`` each); the sorts of
        the sort engine fill one after another, so its budget stays as it is.
        """
        if self.engine != "duckdb" or k <= 1:
            return self
        return replace(self, memory_mb=self.memory_mb / k)

    @property
    def max_records(self) -> int:
        """Records per in-memory chunk implied by :attr:`memory_mb`."""
        return max(2, int(self.memory_mb * 1024 * 1024 / RECORD_BYTES))


@dataclass
class PivotStats:
    """Counts gathered while pivoting one phrase table."""

    pt_lines: int = 0
    entries_kept: int = 0
    dropped_symbols: int = 0
    dropped_common: int = 0
    pivots: int = 0
    max_fanout: int = 0
    contributions: int = 0
    dropped_min_trans: int = 0
    dropped_substring: int = 0
    pairs_summed: int = 0
    dropped_target: int = 0
    pairs_out: int = 0
    sort_chunks: Dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> Dict[str, object]:
        return dict(self.__dict__)


# --------------------------------------------------------------------------- external sort
_ENC: Dict[str, Callable[[Any], str]] = {"s": str, "i": str, "f": lambda x: repr(float(x))}
_DEC: Dict[str, Callable[[str], object]] = {"s": str, "i": int, "f": float}


class ExternalSorter:
    """Sort records that may not fit in memory: sorted chunks on disk, then a k-way merge.

    Records are tuples whose fields follow ``types`` (``s`` str without tab or
    newline, ``i`` int, ``f`` float; floats round-trip exactly).  Use as::

        with ExternalSorter("sif", key, max_records=100_000) as srt:
            for rec in records: srt.add(rec)
            for rec in srt: ...          # in key order (stable for equal keys)

    At most ``max_records`` records are held in memory and at most ``fan_in``
    chunk files are open at once (more chunks are merged in several passes).
    With ``unique`` equal records are output once.
    """

    def __init__(
        self,
        types: str,
        key: Callable[[Tuple], Any],
        *,
        max_records: int,
        tmp_dir: Optional[str] = None,
        fan_in: int = 32,
        unique: bool = False,
        name: str = "sort",
    ):
        self.types = types
        self.key = key
        self.max_records = max(2, int(max_records))
        self.fan_in = max(2, int(fan_in))
        self.unique = unique
        self.name = name
        self._tmp_parent = tmp_dir
        self._dir: Optional[str] = None
        self._buf: List[Tuple] = []
        self._files: List[str] = []
        self.chunks = 0
        self.count = 0
        self._enc = [_ENC[t] for t in types]
        self._dec = [_DEC[t] for t in types]

    def __enter__(self) -> "ExternalSorter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Delete the temporary files."""
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        self._files = []
        self._buf = []

    def add(self, rec: Tuple) -> None:
        """Add one record."""
        self._buf.append(rec)
        self.count += 1
        if len(self._buf) >= self.max_records:
            self._spill()

    def extend(self, recs: Iterable[Tuple]) -> None:
        """Add records."""
        for r in recs:
            self.add(r)

    def _new_file(self) -> str:
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix=f"meteor-lite-{self.name}-", dir=self._tmp_parent)
        fd, path = tempfile.mkstemp(dir=self._dir, suffix=".chunk")
        os.close(fd)
        return path

    def _write(self, path: str, recs: Iterable[Tuple]) -> None:
        enc = self._enc
        with open(path, "w", encoding="utf-8", newline="\n") as out:
            lines: List[str] = []
            for r in recs:
                lines.append("\t".join([e(v) for e, v in zip(enc, r)]))
                if len(lines) >= 8192:
                    out.write("\n".join(lines))
                    out.write("\n")
                    lines = []
            if lines:
                out.write("\n".join(lines))
                out.write("\n")

    def _read(self, path: str) -> Iterator[Tuple]:
        dec = self._dec
        with open(path, "r", encoding="utf-8", newline="\n") as f:
            for line in f:
                parts = line[:-1].split("\t")
                yield tuple([d(p) for d, p in zip(dec, parts)])

    def _dedupe(self, recs: Iterable[Tuple]) -> Iterator[Tuple]:
        prev = None
        for r in recs:
            if r != prev:
                yield r
                prev = r

    def _spill(self) -> None:
        if not self._buf:
            return
        self._buf.sort(key=self.key)
        path = self._new_file()
        self._write(path, self._dedupe(self._buf) if self.unique else self._buf)
        self._files.append(path)
        self._buf = []
        self.chunks += 1

    def _merge(self, paths: Sequence[str]) -> Iterator[Tuple]:
        merged = heapq.merge(*[self._read(p) for p in paths], key=self.key)
        return self._dedupe(merged) if self.unique else merged

    def __iter__(self) -> Iterator[Tuple]:
        if not self._files:
            self._buf.sort(key=self.key)
            buf, self._buf = self._buf, []
            yield from (self._dedupe(buf) if self.unique else buf)
            return
        self._spill()
        files = self._files
        while len(files) > self.fan_in:  # multi-pass merge keeps the open files bounded
            nxt = []
            for i in range(0, len(files), self.fan_in):
                group = files[i : i + self.fan_in]
                path = self._new_file()
                self._write(path, self._merge(group))
                for p in group:
                    os.unlink(p)
                nxt.append(path)
            files = nxt
        self._files = files
        yield from self._merge(files)


# --------------------------------------------------------------------------- corpora
def count_words(path: "os.PathLike[str] | str") -> Tuple[Counter, int]:
    """Word counts (whitespace tokens, as Meteor splits) of a corpus, and the number of tokens."""
    counts: Counter = Counter()
    total = 0
    with open_text(path) as f:
        for line in f:
            toks = tokenize(line)
            counts.update(toks)
            total += len(toks)
    return counts, total


def common_words(path: "os.PathLike[str] | str", min_rel_freq: float = 0.001) -> Set[str]:
    """Words whose relative frequency in the corpus is strictly greater than ``min_rel_freq``.

    This is Parex's common-word list (its ``parex.e`` / ``parex.f`` files).
    """
    counts, total = count_words(path)
    if total == 0:
        raise PivotError(f"{path}: the corpus has no words")
    return {w for w, c in counts.items() if c / total > min_rel_freq}


def _is_contained(a_pad: str, b_pad: str) -> bool:
    """True when one space-padded phrase is a contiguous word run of the other."""
    if len(a_pad) >= len(b_pad):
        return b_pad in a_pad
    return a_pad in b_pad


# --------------------------------------------------------------------------- the pivot
def pivot_pairs(
    phrase_table: "os.PathLike[str] | str",
    f_corpus: "os.PathLike[str] | str",
    e_corpus: "os.PathLike[str] | str",
    target_corpus: "os.PathLike[str] | str",
    options: PivotOptions = PivotOptions(),
    *,
    stats: Optional[PivotStats] = None,
    progress: bool = False,
    common_e: Optional[Set[str]] = None,
    common_f: Optional[Set[str]] = None,
    e_side: str = "tgt",
) -> Iterator[Tuple[str, str, float]]:
    """Pivot a phrase table (source F, target E) into ``(e1, e2, p(e2|e1))``, before the final threshold.

    Applies filters 1-5 of the module docstring; the caller applies the final
    probability threshold (see :func:`parex`), or first combines several pivot
    languages (see :func:`combine`).  Output is sorted by ``(e1, e2)`` in
    :func:`java_key` order.  ``common_e``/``common_f`` override the word lists
    computed from the corpora.  ``e_side="src"`` reads a table whose *source*
    side is E (its columns swapped), so one table serves both directions.
    """
    if e_side not in ("src", "tgt"):
        raise InvalidParameterError(f"e_side must be 'src' or 'tgt', not {e_side!r}")
    if options.engine not in ENGINES:
        raise InvalidParameterError(f"unknown pivot engine {options.engine!r} (one of {', '.join(ENGINES)})")
    swap = e_side == "src"
    st = stats if stats is not None else PivotStats()
    opts = options
    if common_e is None:
        common_e = common_words(e_corpus, opts.min_rel_freq)
    if common_f is None:
        common_f = common_words(f_corpus, opts.min_rel_freq)
    if opts.engine == "duckdb":
        from .pivot_sql import pivot_pairs_duckdb

        yield from pivot_pairs_duckdb(phrase_table, target_corpus, opts, st, common_e, common_f, swap)
        return
    if opts.engine == "spark":
        from .pivot_spark import pivot_pairs_spark

        yield from pivot_pairs_spark(phrase_table, target_corpus, opts, st, common_e, common_f, swap)
        return
    symbols = frozenset(opts.symbols)

    def bad(phrase: str, common: Set[str]) -> Optional[str]:
        if symbols and not symbols.isdisjoint(phrase):
            return "symbols"
        if all(w in common for w in phrase.split(" ")):
            return "common"
        return None

    # Stage 1: phrase-table entries, filtered, grouped by pivot phrase (sorted on disk).
    max_len = 0
    entries = ExternalSorter("sisff", lambda r: (r[0], r[1]), max_records=opts.max_records,
                             tmp_dir=opts.tmp_dir, fan_in=opts.fan_in, name="entries")
    pairs = ExternalSorter("ssif", lambda r: (java_key(r[0]), java_key(r[1]), r[2]), max_records=opts.max_records,
                           tmp_dir=opts.tmp_dir, fan_in=opts.fan_in, name="pairs")
    ngrams = ExternalSorter("s", lambda r: java_key(r[0]), max_records=opts.max_records,
                            tmp_dir=opts.tmp_dir, fan_in=opts.fan_in, unique=True, name="ngrams")
    try:
        bad_f: Dict[str, Optional[str]] = {}
        with open_text(phrase_table) as f:
            for lineno, line in enumerate(_progress(f, "pivot: read phrase table", progress, unit="line"), 1):
                if not line.strip():
                    continue
                pp = parse_line(line, f"{phrase_table}:{lineno}")
                if swap:
                    pp = PhrasePair(pp.tgt, pp.src, (pp.scores[2], 0.0, pp.scores[0], 0.0))  # only columns 0 and 2 are used
                st.pt_lines += 1
                why = bad_f.get(pp.src, "?")
                if why == "?":
                    why = bad(pp.src, common_f)
                    if len(bad_f) > 100_000:
                        bad_f.clear()
                    bad_f[pp.src] = why
                if why is None:
                    why = bad(pp.tgt, common_e)
                if why == "symbols":
                    st.dropped_symbols += 1
                    continue
                if why == "common":
                    st.dropped_common += 1
                    continue
                st.entries_kept += 1
                n = pp.tgt.count(" ") + 1
                if n > max_len:
                    max_len = n
                entries.add((pp.src, lineno, pp.tgt, pp.p_src_given_tgt, pp.p_tgt_given_src))
        if st.pt_lines == 0:
            raise PivotError(f"{phrase_table}: the phrase table is empty")

        # Stage 2: within each pivot phrase, every ordered pair of its E phrases.
        min_tp = opts.min_trans_prob
        add = pairs.add
        for _f, grp in groupby(_progress(entries, "pivot: pair up", progress, st.entries_kept, "entry"),
                               key=lambda r: r[0]):
            group = [(r[1], r[2], " " + r[2] + " ", r[3], r[4]) for r in grp]
            st.pivots += 1
            if len(group) > st.max_fanout:
                st.max_fanout = len(group)
            if len(group) < 2:
                continue
            for j, (ln2, e2, pad2, _pfe2, pe2f) in enumerate(group):
                for i, (_ln1, e1, pad1, pfe1, _pe1f) in enumerate(group):
                    if i == j:
                        continue
                    st.contributions += 1
                    prod = pe2f * pfe1
                    if prod < min_tp:
                        st.dropped_min_trans += 1
                        continue
                    if _is_contained(pad1, pad2):
                        st.dropped_substring += 1
                        continue
                    add((e1, e2, ln2, prod))
        st.sort_chunks["entries"] = entries.chunks
        entries.close()

        # Target corpus: its word n-grams up to the longest E phrase (sorted, unique, on disk).
        with open_text(target_corpus) as f:
            any_words = False
            for line in _progress(f, "pivot: target n-grams", progress, unit="line"):
                toks = tokenize(line)
                if toks:
                    any_words = True
                for i in range(len(toks)):
                    for n in range(1, min(max_len, len(toks) - i) + 1):
                        ngrams.add((" ".join(toks[i : i + n]),))
            if not any_words:
                raise PivotError(f"{target_corpus}: the target corpus has no words")

        # Stage 3: sum each pair's contributions in phrase-table order; keep e1 found in the target.
        targets = iter(ngrams)
        cur_t: Optional[str] = None
        for (e1, e2), grp in groupby(_progress(pairs, "pivot: sum", progress, pairs.count, "pair"),
                                     key=lambda r: (r[0], r[1])):
            k1 = java_key(e1)
            while cur_t is None or cur_t < k1:
                nxt = next(targets, None)
                if nxt is None:
                    cur_t = "\U0010ffff" * 4  # past every key
                    break
                cur_t = java_key(nxt[0])
            total = 0.0
            for r in grp:
                total += r[3]
            st.pairs_summed += 1
            if cur_t != k1:
                st.dropped_target += 1
                continue
            st.pairs_out += 1
            yield (e1, e2, total)
        st.sort_chunks["pairs"] = pairs.chunks
        st.sort_chunks["ngrams"] = ngrams.chunks
    finally:
        entries.close()
        pairs.close()
        ngrams.close()


def threshold(triples: Iterable[Tuple[str, str, float]], min_final_prob: float) -> Iterator[Tuple[str, str, float]]:
    """Keep the pairs whose probability is ``>= min_final_prob``."""
    for t in triples:
        if t[2] >= min_final_prob:
            yield t


def parex(
    phrase_table: "os.PathLike[str] | str",
    f_corpus: "os.PathLike[str] | str",
    e_corpus: "os.PathLike[str] | str",
    target_corpus: "os.PathLike[str] | str",
    options: PivotOptions = PivotOptions(),
    *,
    stats: Optional[PivotStats] = None,
    progress: bool = False,
    e_side: str = "tgt",
) -> Iterator[Tuple[str, str, float]]:
    """The paraphrase table Parex builds from one phrase table: :func:`pivot_pairs` then the final threshold."""
    return threshold(
        pivot_pairs(phrase_table, f_corpus, e_corpus, target_corpus, options, stats=stats, progress=progress,
                    e_side=e_side),
        options.min_final_prob,
    )


#: How several pivot languages' probabilities combine.
COMBINE_MODES = ("mean", "sum")


def combine(
    streams: Sequence[Iterable[Tuple[str, str, float]]], mode: str = "sum"
) -> Iterator[Tuple[str, str, float]]:
    """Merge per-pivot-language tables (each sorted by :func:`java_key` of ``(e1, e2)``) into one.

    ``sum`` (the default): the plain sum over the languages; ``mean``: the average
    over the ``len(streams)`` languages, a pair missing from a language counting 0
    (so the result is still a distribution over e2).  Output stays sorted; apply
    :func:`threshold` after.  Sum was chosen by measurement (docs/paraphrases.md:
    on Multi30k, English and German, it correlates slightly better with MQM).
    """
    if mode not in COMBINE_MODES:
        raise InvalidParameterError(f"unknown combine mode {mode!r} (one of {', '.join(COMBINE_MODES)})")
    k = len(streams)
    merged = heapq.merge(*streams, key=lambda t: (java_key(t[0]), java_key(t[1])))
    for (e1, e2), grp in groupby(merged, key=lambda t: (t[0], t[1])):
        total = 0.0
        for t in grp:
            total += t[2]
        yield (e1, e2, total / k if mode == "mean" else total)


# --------------------------------------------------------------------------- file formats
def write_parex_table(path: "os.PathLike[str] | str", triples: Iterable[Tuple[str, str, float]]) -> int:
    """Write Parex's ``paraphrase.gz`` format: ``e1 ||| e2 ||| prob`` lines (gzip if ``.gz``)."""
    n = 0
    with open_text(path, "wt") as out:
        for e1, e2, p in triples:
            out.write(f"{e1} ||| {e2} ||| {p!r}\n")
            n += 1
    return n


def read_parex_table(path: "os.PathLike[str] | str") -> Iterator[Tuple[str, str, float]]:
    """Read ``e1 ||| e2 ||| prob`` lines (Parex's ``paraphrase.gz``)."""
    with open_text(path) as f:
        for n, line in enumerate(f, 1):
            parts = line.rstrip("\n").split(" ||| ")
            if len(parts) != 3:
                raise PhraseTableError(f"{path}:{n}: expected 'e1 ||| e2 ||| prob'")
            yield parts[0], parts[1], float(parts[2])


def write_meteor_paraphrases(path: "os.PathLike[str] | str", triples: Iterable[Tuple[str, str, float]]) -> int:
    """Write the paraphrase file Meteor reads: groups of three lines (prob, phrase, paraphrase), gzipped."""
    n = 0
    with gzip.open(path, "wt", encoding="utf-8", newline="\n") as out:
        for e1, e2, p in triples:
            out.write(f"{p!r}\n{e1}\n{e2}\n")
            n += 1
    return n


def read_meteor_paraphrases(path: "os.PathLike[str] | str") -> Iterator[Tuple[str, str, float]]:
    """Read a Meteor paraphrase file (three lines per pair: prob, phrase, paraphrase; plain or gzip).

    Uses the importer's strict parser: a malformed file raises an error naming the line.
    """
    from ..official.formats import iter_paraphrases

    with open_text(path) as f:
        yield from iter_paraphrases(f, str(path))


def write_word_list(path: "os.PathLike[str] | str", words: Iterable[str]) -> None:
    """One word per line, sorted (e.g. the common-word lists)."""
    Path(path).write_text("".join(w + "\n" for w in sorted(words)), encoding="utf-8")
