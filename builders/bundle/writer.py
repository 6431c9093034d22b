"""Atomic writer for resource bundles (schema: :mod:`meteor_lite.resources.schema`).

A bundle is written to a temporary file beside its destination and moved into
place only when it is complete, so a failed or interrupted build leaves no
bundle (and no half-written file) behind.  Rows go in through batched
``executemany`` inserts into the tables of the bundle schema, with no journal and
no fsync (:data:`WRITE_PRAGMAS`: the file is private until it is renamed).

Paraphrase pairs become schema 2's one row per phrase (its paraphrases in table
order, TAB-joined) with the proper word-level prefixes of the phrases flagged:
:mod:`.paralists` writes them as they stream in when the phrases come sorted (as
in Meteor's tables) and stages them otherwise.  When the bundle is finished its
content checksum is computed and the file is VACUUMed (page size
:data:`PAGE_SIZE`).  Probabilities are kept (table ``paraphrase_probs``) only when
the writer is asked to.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple, Union

from meteor_lite import __version__
from meteor_lite.resources.integrity import remember as remember_verified
from meteor_lite.resources.schema import (
    FORMAT_NAME,
    PAGE_SIZE,
    SCHEMA_SQL,
    SCHEMA_VERSION,
    compute_content_checksum,
    has_table,
)

from .paralists import STAGING, ParaphraseColumns, ParaphraseLists, columns
from .stale import remove_stale_temps, temp_prefix

__all__ = ["BundleWriter", "ParaphraseColumns", "WRITE_PRAGMAS"]

#: Connection settings while writing: the file is private until it is complete,
#: so no journal and no fsync; a large page cache for bulk inserts into the B-trees.
WRITE_PRAGMAS: Tuple[str, ...] = (
    "journal_mode=OFF",
    "synchronous=OFF",
    "cache_size=-65536",  # KiB: 64 MiB
    "temp_store=FILE",
)

_VERBS = {None: "INSERT", "ignore": "INSERT OR IGNORE", "replace": "INSERT OR REPLACE"}


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
        self._paras: Optional[ParaphraseLists] = None

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
            self._paras = None
            if self._tmp is not None:
                for p in (self._tmp, Path(f"{self._tmp}-journal"), Path(f"{self._tmp}-wal")):
                    try:
                        p.unlink()
                    except FileNotFoundError:
                        pass

    def _finish(self) -> None:
        conn = self._conn
        assert conn is not None
        if self._paras is not None and self._paras.pairs:
            self.meta.update(self._paras.finish())
        elif has_table(conn, STAGING):  # pragma: no cover - staging starts only with pairs
            conn.execute(f"DROP TABLE {STAGING}")
        self._insert("meta", ("key", "value"), sorted(self.meta.items()), on_conflict="replace")
        conn.commit()
        checksum = compute_content_checksum(conn)
        self._insert("meta", ("key", "value"), [("content_checksum", checksum)], on_conflict="replace")
        conn.commit()
        conn.execute("VACUUM")
        self.meta["content_checksum"] = checksum

    @property
    def conn(self) -> sqlite3.Connection:
        """The open connection to the temporary file (inside the ``with`` block only)."""
        assert self._conn is not None, "use BundleWriter as a context manager"
        return self._conn

    def _insert(
        self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], *, on_conflict: Optional[str] = None
    ) -> None:
        """Insert ``rows`` (tuples in ``columns`` order); ``on_conflict``: None, "ignore" or "replace"."""
        marks = ", ".join("?" * len(columns))
        self.conn.executemany(f"{_VERBS[on_conflict]} INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

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

    def add_paraphrases(self, triples: Union[Iterable[Tuple[str, str, float]], ParaphraseColumns]) -> int:
        """(phrase, paraphrase, probability) in table order; order is kept (it breaks ties in alignment).

        ``triples`` are rows or one :class:`ParaphraseColumns` batch (the fast
        input: three parallel lists).  The paraphrases of a phrase are stored in
        the order they were added, over all calls: calls in file order keep the
        file order.  Returns the number of pairs added.  Phrases and paraphrases
        are tokens joined by single spaces (no TAB, no line break); the bundle is
        refused (:class:`InvalidParameterError`) otherwise.  Phrases in sorted
        (UTF-8 byte) order, as in the official table, are the fast path: each
        phrase's row is written as soon as its pairs are in.
        """
        if self._paras is None:
            self._paras = ParaphraseLists(self.conn, self.keep_probabilities)
        start = self._paras.pairs
        for cols in [triples] if isinstance(triples, ParaphraseColumns) else columns(triples):
            self._paras.add(cols)
        return self._paras.pairs - start

    def add_nonbreaking_prefixes(self, pairs: Iterable[Tuple[str, bool]]) -> None:
        """Add ``(prefix, numeric_only)`` pairs."""
        self._insert(
            "nonbreaking_prefixes", ("prefix", "numeric_only"), ((p, int(bool(n))) for p, n in pairs), on_conflict="replace"
        )

