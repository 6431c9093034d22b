"""The paraphrase table on its way into a bundle: pairs in, schema 2's one row per phrase out.

Used by :class:`~.writer.BundleWriter`.  Pairs arrive in table order, in batches
(:class:`ParaphraseColumns`: three parallel lists).  While the phrases arrive in
sorted (UTF-8 byte = code point) order, as in Meteor's tables, each phrase's
paraphrases are consecutive: they are joined and written to ``paraphrases`` as
they come, checked in bulk, with no second pass.  Pairs in any other order are
staged in a private table (bounded memory) and grouped by phrase when the bundle
is finished; a table that turns out unsorted half-way moves what was written
into the staging table first.  Either way the rows are the same: each phrase's
paraphrases in table order, TAB-joined, and the proper word-level prefixes of
the phrases flagged.

The prefixes are flagged when the bundle is finished, in one pass over the
phrases written, in phrase order, and none is kept: in that order the phrases
beginning with a prefix and a space are consecutive, so a phrase's prefix was met
before exactly when the phrase before it begins with it too (:class:`NewPrefixes`).
Memory does not grow with the number of prefixes.
"""

from __future__ import annotations

import re
import sqlite3
from itertools import accumulate, compress, groupby, islice, repeat
from operator import add, itemgetter, lt, ne
from typing import Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from meteor_lite.parallel import batches
from meteor_lite.printable import one_line
from meteor_lite.resources.jarformat import MAX_PHRASE_CHARS, MAX_PHRASE_WORDS
from meteor_lite.resources.schema import (
    PARAPHRASE_SEPARATOR,
    PROBABILITY_SQL,
    PROBS_DROPPED,
    PROBS_FLOAT64,
    has_table,
    list_chunks,
    pack_probs,
    unpack_probs,
)

from ..errors import InvalidParameterError

__all__ = ["ParaphraseColumns", "ParaphraseLists"]

#: Staging table of the pairs of an unsorted table (rowid = the pair's order).
STAGING = "_paraphrase_pairs"

#: What a joined paraphrase list must not contain: an empty item, a space at either end
#: of an item, two spaces in a row, a line break (TAB only as the separator).
_BAD_LIST = re.compile(r"[\n\r]|  |^[ \t]|[ \t]$|\t[ \t]| \t|^$")

#: Substrings that a batch of texts joined by ``\n`` holds when one of them breaks the rules above.
_BAD_JOINED = ("\t", "\r", "  ", "\n\n", " \n", "\n ")

_INSERT_LIST = "INSERT INTO paraphrases (phrase, prefix, paraphrases) VALUES (?, 0, ?)"
_INSERT_PROBS = "INSERT INTO paraphrase_probs (phrase, probs) VALUES (?, ?)"
_INSERT_PREFIX = ("INSERT INTO paraphrases (phrase, prefix, paraphrases) VALUES (?, 1, NULL) "
                  "ON CONFLICT (phrase) DO UPDATE SET prefix = 1")


#: Pairs of one phrase checked and joined at a time when the staged pairs are grouped.
_GROUP_CHUNK = 10_000

#: A phrase, its paraphrases joined by TAB and their probabilities (empty unless kept).
Group = Tuple[str, str, List[float]]


class ParaphraseColumns(NamedTuple):
    """A batch of pairs as three parallel lists, in table order (the writer's fast input).

    ``normalised`` says that the reader has checked every phrase and paraphrase to be
    tokens joined by single spaces (then the writer does not check them again).
    """

    phrases: List[str]
    paraphrases: List[str]
    probabilities: List[float]
    normalised: bool = False


def _runs(items: List[str]) -> Tuple[List[str], List[int]]:
    """The runs of equal consecutive ``items`` (not empty): their items and where each ends."""
    starts = [0, *compress(range(1, len(items)), map(ne, islice(items, 1, None), items))]
    return list(map(items.__getitem__, starts)), [*islice(starts, 1, None), len(items)]


def _texts_ok(texts: Sequence[str]) -> bool:
    """Whether every text is tokens joined by single spaces (no TAB or line break), checked in bulk."""
    if not texts:
        return True
    joined = "\n".join(texts)
    return (
        joined[:1] not in ("", " ", "\n")
        and joined[-1] not in " \n"
        and joined.count("\n") == len(texts) - 1
        and not any(s in joined for s in _BAD_JOINED)
    )


def check_list(phrase: str, paras: Sequence[str]) -> str:
    """The joined paraphrase list of ``phrase``; :class:`InvalidParameterError` naming the text that cannot be stored."""
    sep = PARAPHRASE_SEPARATOR
    joined = sep.join(paras)
    if _BAD_LIST.search(phrase) or sep in phrase or _BAD_LIST.search(joined) or joined.count(sep) != len(paras) - 1:
        raise InvalidParameterError(_bad_pair_message(phrase, paras))
    return joined


def _bad_pair_message(phrase: str, paras: Sequence[str]) -> str:
    """Name the first phrase or paraphrase that breaks the bundle's text rules."""
    for text in [phrase, *paras]:
        if not text or text != text.strip(" ") or "  " in text or any(c in text for c in "\t\n\r"):
            return (
                f"paraphrase table: {text!r} (of phrase {phrase!r}) is not tokens joined by single spaces "
                "(empty, a space at an end, two spaces, a TAB or a line break)"
            )
    return f"paraphrase table: phrase {phrase!r} cannot be stored"  # pragma: no cover - the checks above agree


def _check_lengths(phrases: List[str]) -> None:
    """:class:`InvalidParameterError` for a phrase over :data:`MAX_PHRASE_WORDS` words or :data:`MAX_PHRASE_CHARS`
    characters: its proper prefixes, one row each, would grow with the square of its length."""
    if max(map(len, phrases)) <= MAX_PHRASE_CHARS and max(map(str.count, phrases, repeat(" "))) < MAX_PHRASE_WORDS:
        return
    bad = next(p for p in phrases if len(p) > MAX_PHRASE_CHARS or p.count(" ") >= MAX_PHRASE_WORDS)
    raise InvalidParameterError(
        f"paraphrase table: a phrase of {bad.count(' ') + 1:,} words and {len(bad):,} characters "
        f"('{one_line(bad[:60])}...'), more than a bundle takes ({MAX_PHRASE_WORDS:,} words, {MAX_PHRASE_CHARS:,} "
        "characters: each of its prefixes is a row)")


def _common_length(a: str, b: str) -> int:
    """The length of the longest common beginning of ``a`` and ``b``."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo], a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


class NewPrefixes:
    """The proper word-level prefixes ("a b c": "a", "a b") of phrases given in increasing order, each once.

    The phrases beginning with ``P`` and a space are consecutive in that order, so a prefix ``P`` of a phrase was
    met before exactly when the phrase just before begins with ``P`` and a space too: a phrase's new prefixes are
    those from the first word it does not share with the one before.  Linear in the phrases' length; only the
    last phrase is kept.
    """

    def __init__(self) -> None:
        #: The last phrase given ("" before the first).
        self.last = ""

    def of(self, phrases: Iterable[str]) -> Iterator[str]:
        """The prefixes of ``phrases`` (after those given before) that no phrase before them has, as they are made."""
        for phrase in phrases:
            i = phrase.find(" ", _common_length(self.last, phrase))
            while i >= 0:
                yield phrase[:i]
                i = phrase.find(" ", i + 1)
            self.last = phrase


def _joined_lists(paras: List[str], ends: List[int]) -> Tuple[str, List[str]]:
    """``paras`` joined by TAB, and the joined lists ``paras[start:end]`` of the runs ending at ``ends``."""
    sep = PARAPHRASE_SEPARATOR
    joined = sep.join(paras)
    after = [0, *accumulate(map(len, paras))]  # characters of paras[:i], separators left out
    stops = [after[j] + j - 1 for j in ends]  # where the list of the run ending at j ends in `joined`
    starts = [0, *map(add, stops[:-1], repeat(1))]
    return joined, list(map(joined.__getitem__, map(slice, starts, stops)))


def _lists_ok(joined: str, n: int) -> bool:
    """Whether ``joined`` (``n`` paraphrases joined by TAB) holds only tokens joined by single spaces, checked in bulk."""
    return (
        joined[:1] not in ("", " ", "\t")
        and joined[-1] not in " \t"
        and joined.count("\t") == n - 1
        and not any(s in joined for s in ("\n", "\r", "  ", "\t\t", " \t", "\t "))
    )


class ParaphraseLists:
    """Pairs in, one ``paraphrases`` row per phrase out (see the module's docstring)."""

    def __init__(self, conn: sqlite3.Connection, keep_probabilities: bool):
        self.conn = conn
        self.keep_probabilities = keep_probabilities
        self.pairs = 0
        self.max_length = 0  # tokens of the longest phrase
        self.staged = False  # the phrases came unsorted: pairs go to the staging table
        self._last = ""  # the last phrase received
        self._open: Optional[Group] = None  # the last phrase written directly (more pairs may follow)

    def add(self, cols: ParaphraseColumns) -> None:
        """Add one batch of pairs (table order)."""
        phrases = cols.phrases
        if not phrases:
            return
        if len(cols.paraphrases) != len(phrases) or len(cols.probabilities) != len(phrases):
            raise ValueError("ParaphraseColumns: the three lists differ in length")
        keys, ends = _runs(phrases)
        _check_lengths(keys)
        if not self.staged and (keys[0] < self._last or not all(map(lt, keys, islice(keys, 1, None)))):
            self._to_staging()
        if self.staged:
            self._stage(cols)
        else:
            self._write_sorted(cols, keys, ends)
        self._last = phrases[-1]
        self.pairs += len(phrases)
        self.max_length = max(self.max_length, max(map(str.count, keys, repeat(" "))) + 1)

    # -- sorted input: written as it comes ----------------------------------------------------
    def _write_sorted(self, cols: ParaphraseColumns, keys: List[str], ends: List[int]) -> None:
        """Write the phrases of ``cols`` (sorted: each phrase's pairs are consecutive) but the last, kept open."""
        paras, probs = cols.paraphrases, cols.probabilities
        joined, lists = _joined_lists(paras, ends)
        if not (cols.normalised or (_texts_ok(keys) and _lists_ok(joined, len(paras)))):
            for phrase, i, j in zip(keys, [0, *ends[:-1]], ends):
                check_list(phrase, paras[i:j])
        if self.keep_probabilities:
            groups = [(ph, ls, probs[i:j]) for ph, ls, i, j in zip(keys, lists, [0, *ends[:-1]], ends)]
        else:
            groups = list(zip(keys, lists, repeat([])))
        open_ = self._open
        if open_ is not None:
            if open_[0] == keys[0]:
                first = groups[0]
                groups[0] = (first[0], open_[1] + PARAPHRASE_SEPARATOR + first[1], open_[2] + first[2])
            else:
                groups.insert(0, open_)
        self._open = groups.pop()
        self._insert(groups)

    def _insert(self, groups: List[Group]) -> None:
        """Write finished groups (checked) to ``paraphrases`` (and ``paraphrase_probs``)."""
        if not groups:
            return
        self.conn.executemany(_INSERT_LIST, [g[:2] for g in groups])
        if self.keep_probabilities:
            if not has_table(self.conn, "paraphrase_probs"):
                self.conn.executescript(PROBABILITY_SQL)
            self.conn.executemany(_INSERT_PROBS, [(ph, pack_probs(pr)) for ph, _, pr in groups])

    # -- unsorted input: staged, grouped when finished -----------------------------------------
    def _create_staging(self) -> None:
        prob = ", prob REAL NOT NULL" if self.keep_probabilities else ""
        self.conn.execute(f"CREATE TABLE {STAGING} (phrase TEXT NOT NULL, paraphrase TEXT NOT NULL{prob})")

    def _stage(self, cols: ParaphraseColumns) -> None:
        if self.keep_probabilities:
            self.conn.executemany(f"INSERT INTO {STAGING} VALUES (?, ?, ?)", zip(cols.phrases, cols.paraphrases, cols.probabilities))
        else:
            self.conn.executemany(f"INSERT INTO {STAGING} VALUES (?, ?)", zip(cols.phrases, cols.paraphrases))

    def _to_staging(self) -> None:
        """The phrases are not sorted after all: move what was written into the staging table."""
        conn = self.conn
        self._create_staging()
        self.staged = True
        if self._open is not None:
            self._insert([self._open])
            self._open = None
        if self.pairs:
            for cols in _expand(conn, self.keep_probabilities):
                self._stage(cols)
            conn.execute("DELETE FROM paraphrases")
            conn.execute("DROP TABLE IF EXISTS paraphrase_probs")

    def _group_staged(self) -> None:
        """Turn the staged pairs into one row per phrase, then drop the staging table."""
        conn = self.conn
        cols = "phrase, paraphrase, prob" if self.keep_probabilities else "phrase, paraphrase"
        read = conn.cursor()
        read.execute(f"SELECT {cols} FROM {STAGING} ORDER BY phrase, rowid")
        batch: List[Group] = []
        for phrase, rows in groupby(read, key=itemgetter(0)):
            lists: List[str] = []
            probs: List[float] = []
            for chunk in batches(rows, _GROUP_CHUNK):  # a chunk at a time: a phrase may have millions of pairs
                lists.append(check_list(phrase, [r[1] for r in chunk]))
                if self.keep_probabilities:
                    probs.extend(r[2] for r in chunk)
            batch.append((phrase, PARAPHRASE_SEPARATOR.join(lists), probs))
            if len(batch) >= 50_000:
                self._insert(batch)
                batch = []
        self._insert(batch)
        conn.execute(f"DROP TABLE {STAGING}")

    # -- the end --------------------------------------------------------------------------------
    def finish(self) -> Dict[str, str]:
        """Write what is pending, flag the prefixes; return the meta keys of the table."""
        if self.staged:
            self._group_staged()
        elif self._open is not None:
            self._insert([self._open])
            self._open = None
        if self.keep_probabilities and not has_table(self.conn, "paraphrase_probs"):
            self.conn.executescript(PROBABILITY_SQL)
        self._flag_prefixes()
        self.conn.commit()
        return {
            "paraphrase_max_length": str(self.max_length),
            "paraphrase_pairs": str(self.pairs),
            "paraphrase_probabilities": PROBS_FLOAT64 if self.keep_probabilities else PROBS_DROPPED,
        }


    def _flag_prefixes(self, batch: int = 10_000) -> None:
        """Flag the proper word-level prefixes of the phrases written, adding a row for those that are no phrase:
        one pass over the phrases in order, a batch at a time (each batch a query of its own: the rows added for
        its prefixes come before its last phrase, so no later batch reads them)."""
        conn, prefixes = self.conn, NewPrefixes()
        phrases = [p for (p,) in conn.execute("SELECT phrase FROM paraphrases ORDER BY phrase LIMIT ?", (batch,))]
        while phrases:
            conn.executemany(_INSERT_PREFIX, zip(prefixes.of(phrases)))
            phrases = [p for (p,) in conn.execute(
                "SELECT phrase FROM paraphrases WHERE phrase > ? ORDER BY phrase LIMIT ?", (phrases[-1], batch))]


def _expand(conn: sqlite3.Connection, with_probs: bool, batch: int = 100_000) -> Iterator[ParaphraseColumns]:
    """The pairs written to ``paraphrases`` so far, in phrase order (table order within a phrase), in batches of
    about ``batch`` pairs (a phrase with millions of paraphrases is split a chunk at a time)."""
    if with_probs and has_table(conn, "paraphrase_probs"):
        sql = ("SELECT p.phrase, p.paraphrases, q.probs FROM paraphrases p "
               "LEFT JOIN paraphrase_probs q ON q.phrase = p.phrase ORDER BY p.phrase")
    else:
        sql = "SELECT phrase, paraphrases, NULL FROM paraphrases ORDER BY phrase"
    cols = ParaphraseColumns([], [], [])
    for phrase, joined, blob in conn.execute(sql):
        if joined is None:
            continue
        done = 0
        for paras in list_chunks(joined):
            n = len(paras)
            cols.phrases.extend(repeat(phrase, n))
            cols.paraphrases.extend(paras)
            if blob is None:
                cols.probabilities.extend(repeat(0.0, n))
            else:
                if done == 0 and len(blob) != 8 * (joined.count(PARAPHRASE_SEPARATOR) + 1):
                    unpack_probs(blob, joined.count(PARAPHRASE_SEPARATOR) + 1, phrase)  # raises, naming the phrase
                cols.probabilities.extend(unpack_probs(blob[8 * done : 8 * (done + n)], n, phrase))
            done += n
            if len(cols.phrases) >= batch:
                yield cols
                cols = ParaphraseColumns([], [], [])
    if cols.phrases:
        yield cols


def columns(rows: Iterable[Sequence[object]]) -> Iterator[ParaphraseColumns]:
    """``(phrase, paraphrase, probability)`` rows as :class:`ParaphraseColumns` of at most 100,000 pairs."""
    for chunk in batches(rows, 100_000):
        phrases, paras, probs = (list(c) for c in zip(*chunk))
        yield ParaphraseColumns(phrases, paras, probs)
