"""Atomic writer for resource bundles (schema: :mod:`meteor_lite.bundle`).

A bundle is written to a temporary file beside its destination and moved into
place only when it is complete, so a failed or interrupted build leaves no
bundle (and no half-written file) behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
from itertools import islice
from pathlib import Path
from typing import Dict, Iterable, Optional, Tuple

from meteor_lite import __version__
from meteor_lite.bundle import FORMAT_NAME, SCHEMA_SQL, SCHEMA_VERSION, compute_content_checksum

#: Connection settings while writing: the file is private until it is complete,
#: so no journal and no fsync; a large page cache for bulk inserts into the B-trees.
WRITE_PRAGMAS: Tuple[str, ...] = (
    "journal_mode=OFF",
    "synchronous=OFF",
    "cache_size=-65536",  # KiB: 64 MiB
    "temp_store=FILE",
)

_PARAPHRASE_CHUNK = 100_000


def sha256_file(path: "os.PathLike[str] | str", chunk: int = 1 << 20) -> str:
    """SHA-256 of a file's bytes, streamed."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


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
    ):
        self.path = Path(path)
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
        self._para_seq = 0
        self._para_max_len = 0

    # -- lifecycle ----------------------------------------------------------
    def __enter__(self) -> "BundleWriter":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        os.close(fd)
        self._tmp = Path(tmp)
        try:
            self._conn = sqlite3.connect(str(self._tmp))
            for pragma in WRITE_PRAGMAS:
                self._conn.execute(f"PRAGMA {pragma}")
            self._conn.executescript(SCHEMA_SQL)
        except BaseException:
            self._discard()
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
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
            if self._tmp is not None:
                for p in (self._tmp, Path(f"{self._tmp}-journal"), Path(f"{self._tmp}-wal")):
                    try:
                        p.unlink()
                    except FileNotFoundError:
                        pass

    def _finish(self) -> None:
        conn = self._conn
        assert conn is not None
        if self._para_max_len:
            self.meta["paraphrase_max_length"] = str(self._para_max_len)
            self._write_paraphrase_prefixes()
        conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", sorted(self.meta.items()))
        conn.commit()
        checksum = compute_content_checksum(conn)
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('content_checksum', ?)", (checksum,))
        conn.commit()
        conn.execute("VACUUM")
        self.meta["content_checksum"] = checksum

    def _write_paraphrase_prefixes(self) -> None:
        """Derive the word-level proper prefixes of all phrases (streamed, bounded memory)."""
        conn = self.conn
        read = conn.cursor()
        read.execute("SELECT DISTINCT phrase FROM paraphrases ORDER BY phrase")

        def prefixes():
            for (phrase,) in read:
                cut = phrase.rfind(" ")
                while cut > 0:
                    phrase = phrase[:cut]
                    yield (phrase,)
                    cut = phrase.rfind(" ")

        conn.executemany("INSERT OR IGNORE INTO paraphrase_prefixes(prefix) VALUES (?)", prefixes())

    @property
    def conn(self) -> sqlite3.Connection:
        assert self._conn is not None, "use BundleWriter as a context manager"
        return self._conn

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
        self.conn.execute(
            "INSERT OR REPLACE INTO sources(name, kind, description, licence, sha256, location) VALUES (?,?,?,?,?,?)",
            (name, kind, description, licence, sha256, location),
        )

    def add_function_words(self, words: Iterable[str]) -> None:
        self.conn.executemany("INSERT OR IGNORE INTO function_words(word) VALUES (?)", ((w,) for w in words))

    def add_stems(self, pairs: Iterable[Tuple[str, str]]) -> None:
        self.conn.executemany("INSERT OR REPLACE INTO stems(word, stem) VALUES (?, ?)", pairs)

    def add_synsets(self, pairs: Iterable[Tuple[str, int]]) -> None:
        self.conn.executemany("INSERT OR IGNORE INTO synsets(word, synset) VALUES (?, ?)", pairs)

    def add_synonym_exceptions(self, pairs: Iterable[Tuple[str, str]]) -> None:
        """(inflected form, base form) pairs."""
        self.conn.executemany("INSERT OR IGNORE INTO synonym_exceptions(form, base) VALUES (?, ?)", pairs)

    def add_paraphrases(self, triples: Iterable[Tuple[str, str, float]]) -> int:
        """(phrase, paraphrase, probability) in table order; order is kept (it breaks ties in alignment).

        Each row gets the next ``seq`` (0, 1, 2, ... over all calls), so calls in
        file order keep the file order.  Returns the number of rows added.
        Inserting phrases in sorted (UTF-8 byte) order, as the official table
        is, is the fast path: rows are then appended to the table's B-tree.
        """
        start = self._para_seq
        it = iter(triples)
        while True:
            chunk = list(islice(it, _PARAPHRASE_CHUNK))
            if not chunk:
                break
            seq = self._para_seq
            rows = [(p, i, q, r) for i, (p, q, r) in enumerate(chunk, seq)]
            self.conn.executemany("INSERT INTO paraphrases(phrase, seq, paraphrase, prob) VALUES (?,?,?,?)", rows)
            self._para_seq = seq + len(rows)
            longest = max(p.count(" ") for p in {r[0] for r in rows}) + 1
            if longest > self._para_max_len:
                self._para_max_len = longest
        return self._para_seq - start

    def add_nonbreaking_prefixes(self, pairs: Iterable[Tuple[str, bool]]) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO nonbreaking_prefixes(prefix, numeric_only) VALUES (?, ?)",
            ((p, int(bool(n))) for p, n in pairs),
        )
