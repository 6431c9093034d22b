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
from pathlib import Path
from typing import Dict, Iterable, Optional, Tuple

from meteor_lite import __version__
from meteor_lite.bundle import FORMAT_NAME, SCHEMA_SQL, SCHEMA_VERSION, compute_content_checksum


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
        self._conn = sqlite3.connect(str(self._tmp))
        self._conn.execute("PRAGMA journal_mode=OFF")
        self._conn.execute("PRAGMA synchronous=OFF")
        self._conn.executescript(SCHEMA_SQL)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        assert self._conn is not None and self._tmp is not None
        try:
            if exc_type is None:
                self._finish()
        finally:
            try:
                self._conn.close()
            finally:
                if exc_type is not None and self._tmp.exists():
                    self._tmp.unlink()
        if exc_type is None:
            os.replace(self._tmp, self.path)

    def _finish(self) -> None:
        conn = self._conn
        assert conn is not None
        if self._para_max_len:
            self.meta["paraphrase_max_length"] = str(self._para_max_len)
        conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", sorted(self.meta.items()))
        conn.commit()
        checksum = compute_content_checksum(conn)
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('content_checksum', ?)", (checksum,))
        conn.commit()
        conn.execute("VACUUM")
        self.meta["content_checksum"] = checksum

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

        Returns the number of rows added.
        """
        start = self._para_seq

        def rows():
            for phrase, para, prob in triples:
                n = phrase.count(" ") + 1
                if n > self._para_max_len:
                    self._para_max_len = n
                yield (phrase, self._para_seq, para, prob)
                self._para_seq += 1

        self.conn.executemany("INSERT INTO paraphrases(phrase, seq, paraphrase, prob) VALUES (?,?,?,?)", rows())
        return self._para_seq - start

    def add_nonbreaking_prefixes(self, pairs: Iterable[Tuple[str, bool]]) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO nonbreaking_prefixes(prefix, numeric_only) VALUES (?, ?)",
            ((p, int(bool(n))) for p, n in pairs),
        )
