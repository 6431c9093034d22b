"""Atomic writer for resource bundles (schema: :mod:`meteor_lite.resources.schema`).

A bundle is written to a temporary file beside its destination and moved into
place only when it is complete, so a failed or interrupted build leaves no
bundle (and no half-written file) behind.  Rows go in through sqlite-utils'
batched inserts; the tables themselves are created from the bundle schema.

Paraphrase pairs are staged in a private table of the temporary file as they
stream in (bounded memory, any order); when the bundle is finished they become
schema 2's one row per phrase (its paraphrases in table order, TAB-joined), the
proper word-level prefixes of the phrases are flagged, the staging table is
dropped and the file is VACUUMed (page size :data:`PAGE_SIZE`).  Probabilities
are kept (table ``paraphrase_probs``) only when the writer is asked to.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import tempfile
from itertools import chain, groupby, islice
from operator import itemgetter
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from sqlite_utils import Database

from meteor_lite import __version__
from meteor_lite.resources.integrity import remember as remember_verified
from meteor_lite.resources.schema import (
    FORMAT_NAME,
    PAGE_SIZE,
    PARAPHRASE_SEPARATOR,
    PROBABILITY_SQL,
    PROBS_DROPPED,
    PROBS_FLOAT64,
    SCHEMA_SQL,
    SCHEMA_VERSION,
    compute_content_checksum,
    has_table,
    pack_probs,
)

from ..errors import InvalidParameterError
from .stale import remove_stale_temps, temp_prefix

__all__ = ["BundleWriter", "WRITE_PRAGMAS"]

#: Connection settings while writing: the file is private until it is complete,
#: so no journal and no fsync; a large page cache for bulk inserts into the B-trees.
WRITE_PRAGMAS: Tuple[str, ...] = (
    "journal_mode=OFF",
    "synchronous=OFF",
    "cache_size=-65536",  # KiB: 64 MiB
    "temp_store=FILE",
)

_PARAPHRASE_CHUNK = 100_000

#: Staging table of the paraphrase pairs while the bundle is written (rowid = the pair's ``seq``).
_STAGING = "_paraphrase_pairs"

#: What a joined paraphrase list must not contain: an empty item, a space at either end
#: of an item, two spaces in a row, a line break (TAB only as the separator).
_BAD_LIST = re.compile(r"[\n\r]|  |^[ \t]|[ \t]$|\t[ \t]| \t|^$")


class BundleWriter:
    """Write one bundle atomically.  Use as a context manager::

        with BundleWriter(out, language="en", name="en", version="1.0.0") as w:
            w.add_source(...)
            w.add_function_words(words)
        # the bundle exists at `out` only if the block finished without error
    """

    def __init__(
        self,
        path: "os.PathLike[str] | str",
        *,
        language: str,
        name: str,
        version: str,
        description: str = "",
        build_params: Optional[Dict[str, object]] = None,
        keep_probabilities: bool = False,
    ):
        self.path = Path(path)
        #: store the pairs' probabilities (table ``paraphrase_probs``); the scorer never reads them
        self.keep_probabilities = keep_probabilities
        self.meta: Dict[str, str] = {
            "format": FORMAT_NAME,
            "schema_version": str(SCHEMA_VERSION),
            "language": language,
            "name": name,
            "version": version,
            "description": description,
            "created_by": f"meteor-lite {__version__}",
            "build_params": json.dumps(build_params or {}, sort_keys=True),
        }
        self._tmp: Optional[Path] = None
        self._conn: Optional[sqlite3.Connection] = None
        self._db: Optional[Database] = None
        self._para_seq = 0
        self._para_max_len = 0
        self._para_sorted = True  # phrases arrived in UTF-8 byte (= code point) order so far
        self._para_last = ""

    # -- lifecycle ----------------------------------------------------------
    def __enter__(self) -> "BundleWriter":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temps(self.path)  # left by builds killed (SIGKILL) before they could clean up
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(self.path), suffix=".tmp", dir=self.path.parent)
        os.close(fd)
        self._tmp = Path(tmp)
        try:
            self._conn = sqlite3.connect(str(self._tmp))
            self._conn.execute(f"PRAGMA page_size={PAGE_SIZE}")  # before the first table exists
            for pragma in WRITE_PRAGMAS:
                self._conn.execute(f"PRAGMA {pragma}")
            self._conn.executescript(SCHEMA_SQL)
            self._db = Database(self._conn, execute_plugins=False)
        except BaseException:
            self._discard()
            raise
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        assert self._conn is not None and self._tmp is not None
        if exc_type is not None:
            self._discard()
            return
        try:
            self._finish()
            self._conn.close()
            self._conn = None
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(self._tmp, 0o644 & ~umask)
            os.replace(self._tmp, self.path)
            remember_verified(self.path, self.meta.get("content_checksum", ""))
        except BaseException:  # an error or Ctrl-C while finishing: leave nothing behind
            self._discard()
            raise

    def _discard(self) -> None:
        """Close the connection and delete the temporary file (and any SQLite side file)."""
        try:
            if self._conn is not None:
                self._conn.close()
        finally:
            self._conn = None
            self._db = None
            if self._tmp is not None:
                for p in (self._tmp, Path(f"{self._tmp}-journal"), Path(f"{self._tmp}-wal")):
                    try:
                        p.unlink()
                    except FileNotFoundError:
                        pass

    def _finish(self) -> None:
        conn = self._conn
        assert conn is not None
        if self._para_seq:
            self.meta["paraphrase_max_length"] = str(self._para_max_len)
            self._write_paraphrase_lists()
        elif has_table(conn, _STAGING):  # add_paraphrases was called with no rows
            conn.execute(f"DROP TABLE {_STAGING}")
        self._insert("meta", ("key", "value"), sorted(self.meta.items()), on_conflict="replace")
        conn.commit()
        checksum = compute_content_checksum(conn)
        self._insert("meta", ("key", "value"), [("content_checksum", checksum)], on_conflict="replace")
        conn.commit()
        conn.execute("VACUUM")
        self.meta["content_checksum"] = checksum

    def _write_paraphrase_lists(self) -> None:
        """Turn the staged pairs into one row per phrase, flag the prefixes, drop the staging table."""
        conn = self.conn
        order = "rowid" if self._para_sorted else "phrase, rowid"
        cols = "phrase, paraphrase, prob" if self.keep_probabilities else "phrase, paraphrase"
        read = conn.cursor()
        read.execute(f"SELECT {cols} FROM {_STAGING} ORDER BY {order}")
        prefixes: Set[str] = set()
        groups = groupby(read, key=itemgetter(0))
        if self.keep_probabilities:
            conn.executescript(PROBABILITY_SQL)
            probs: List[Tuple[str, bytes]] = []
            lists = self._lists(((ph, list(rows)) for ph, rows in groups), prefixes, probs)
        else:
            lists = self._lists(((ph, list(rows)) for ph, rows in groups), prefixes, None)
        conn.executemany("INSERT INTO paraphrases (phrase, prefix, paraphrases) VALUES (?, 0, ?)", lists)
        if self.keep_probabilities:
            conn.executemany("INSERT INTO paraphrase_probs (phrase, probs) VALUES (?, ?)", probs)
        conn.executemany(
            "INSERT INTO paraphrases (phrase, prefix, paraphrases) VALUES (?, 1, NULL) "
            "ON CONFLICT (phrase) DO UPDATE SET prefix = 1",
            ((p,) for p in sorted(prefixes)),
        )
        conn.execute(f"DROP TABLE {_STAGING}")
        conn.commit()
        self.meta["paraphrase_pairs"] = str(self._para_seq)
        self.meta["paraphrase_probabilities"] = PROBS_FLOAT64 if self.keep_probabilities else PROBS_DROPPED

    def _lists(
        self, groups: Iterable[Tuple[str, List[Tuple[Any, ...]]]], prefixes: Set[str], probs: Optional[List[Tuple[str, bytes]]]
    ) -> Iterator[Tuple[str, str]]:
        """``(phrase, joined paraphrases)`` per phrase (checked); collects the proper prefixes and the probabilities."""
        sep = PARAPHRASE_SEPARATOR
        for phrase, rows in groups:
            joined = sep.join([r[1] for r in rows])
            if _BAD_LIST.search(phrase) or sep in phrase or _BAD_LIST.search(joined) or joined.count(sep) != len(rows) - 1:
                raise InvalidParameterError(_bad_pair_message(phrase, [r[1] for r in rows]))
            if probs is not None:
                probs.append((phrase, pack_probs([r[2] for r in rows])))
            cut = phrase.rfind(" ")
            while cut > 0:
                phrase_prefix = phrase[:cut]
                prefixes.add(phrase_prefix)
                cut = phrase_prefix.rfind(" ")
            yield phrase, joined

    @property
    def conn(self) -> sqlite3.Connection:
        """The open connection to the temporary file (inside the ``with`` block only)."""
        assert self._conn is not None, "use BundleWriter as a context manager"
        return self._conn

    def _insert(
        self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], *, on_conflict: Optional[str] = None
    ) -> None:
        """Batched insert of ``rows`` (tuples in ``columns`` order); ``on_conflict``: None, "ignore" or "replace"."""
        assert self._db is not None, "use BundleWriter as a context manager"
        self._db[table].insert_all(  # type: ignore[union-attr]
            chain([list(columns)], rows),
            ignore=on_conflict == "ignore",
            replace=on_conflict == "replace",
        )

    # -- content ------------------------------------------------------------
    def set_meta(self, key: str, value: str) -> None:
        """Set a metadata key (e.g. ``stemmer`` as JSON)."""
        self.meta[key] = value

    def set_stemmer(self, language: str, package: str = "snowballstemmer", version: Optional[str] = None) -> None:
        """Record which stemmer built the stem map (checked by the scorer at run time)."""
        if version is None:
            from importlib.metadata import version as _v

            version = _v(package)
        self.meta["stemmer"] = json.dumps({"language": language, "package": package, "version": version}, sort_keys=True)

    def add_source(self, name: str, *, kind: str, description: str, licence: str, sha256: str, location: str) -> None:
        """Record one input of the build (provenance)."""
        self._insert(
            "sources",
            ("name", "kind", "description", "licence", "sha256", "location"),
            [(name, kind, description, licence, sha256, location)],
            on_conflict="replace",
        )

    def add_function_words(self, words: Iterable[str]) -> None:
        """Add function words (duplicates are ignored)."""
        self._insert("function_words", ("word",), ((w,) for w in words), on_conflict="ignore")

    def add_stems(self, pairs: Iterable[Tuple[str, str]]) -> None:
        """Add ``(word, stem)`` pairs (a later pair for a word replaces an earlier one)."""
        self._insert("stems", ("word", "stem"), pairs, on_conflict="replace")

    def add_synsets(self, pairs: Iterable[Tuple[str, int]]) -> None:
        """Add ``(word, synset id)`` pairs (duplicates are ignored)."""
        self._insert("synsets", ("word", "synset"), pairs, on_conflict="ignore")

    def add_synonym_exceptions(self, pairs: Iterable[Tuple[str, str]]) -> None:
        """Add (inflected form, base form) pairs."""
        self._insert("synonym_exceptions", ("form", "base"), pairs, on_conflict="ignore")

    def add_paraphrases(self, triples: Iterable[Tuple[str, str, float]]) -> int:
        """(phrase, paraphrase, probability) in table order; order is kept (it breaks ties in alignment).

        Each row gets the next ``seq`` (0, 1, 2, ... over all calls): the
        paraphrases of a phrase are stored in ``seq`` order, so calls in file
        order keep the file order.  Returns the number of rows added.  Phrases
        and paraphrases are tokens joined by single spaces (no TAB, no line
        break); the bundle is refused (:class:`InvalidParameterError`) otherwise.
        Phrases in sorted (UTF-8 byte) order, as in the official table, are the
        fast path: no sort when the bundle is finished.
        """
        conn = self.conn
        if self._para_seq == 0 and not has_table(conn, _STAGING):
            prob = ", prob REAL NOT NULL" if self.keep_probabilities else ""
            conn.execute(f"CREATE TABLE {_STAGING} (phrase TEXT NOT NULL, paraphrase TEXT NOT NULL{prob})")
        sql = f"INSERT INTO {_STAGING} VALUES (?, ?, ?)" if self.keep_probabilities else f"INSERT INTO {_STAGING} VALUES (?, ?)"
        start = self._para_seq
        it = iter(triples)
        while True:
            chunk = list(islice(it, _PARAPHRASE_CHUNK))
            if not chunk:
                break
            phrases = [r[0] for r in chunk]
            if self._para_sorted and (phrases[0] < self._para_last or any(a > b for a, b in zip(phrases, phrases[1:]))):
                self._para_sorted = False
            self._para_last = phrases[-1]
            conn.executemany(sql, chunk if self.keep_probabilities else ((p, q) for p, q, _ in chunk))
            self._para_seq += len(chunk)
            longest = max(p.count(" ") for p in set(phrases)) + 1
            if longest > self._para_max_len:
                self._para_max_len = longest
        return self._para_seq - start

    def add_nonbreaking_prefixes(self, pairs: Iterable[Tuple[str, bool]]) -> None:
        """Add ``(prefix, numeric_only)`` pairs."""
        self._insert(
            "nonbreaking_prefixes", ("prefix", "numeric_only"), ((p, int(bool(n))) for p, n in pairs), on_conflict="replace"
        )


def _bad_pair_message(phrase: str, paras: Sequence[str]) -> str:
    """Name the first phrase or paraphrase that breaks the bundle's text rules."""
    for text in [phrase, *paras]:
        if not text or text != text.strip(" ") or "  " in text or any(c in text for c in "\t\n\r"):
            return (
                f"paraphrase table: {text!r} (of phrase {phrase!r}) is not tokens joined by single spaces "
                "(empty, a space at an end, two spaces, a TAB or a line break)"
            )
    return f"paraphrase table: phrase {phrase!r} cannot be stored"  # pragma: no cover - the checks above agree
