"""Resource bundles: one SQLite file per language pack, opened read-only (:class:`Bundle`).

The format (schema version 2) is defined in :mod:`meteor_lite.resources.schema`;
:class:`Bundle` refuses a file whose schema it cannot read (a schema-1 bundle with
a message that says how to rebuild it).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import weakref
from pathlib import Path
from typing import Any, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from ..errors import BundleError, BundleNotFoundError
from .metadata import Meta, check_meta, load_json, read_meta_values
from .schema import (
    FORMAT_NAME,
    PARAPHRASE_SEPARATOR,
    PROBABILITY_TABLE,
    PROBS_FLOAT64,
    RESOURCE_TABLES,
    SCHEMA_VERSION,
    TABLES,
    compute_content_checksum,
    has_table,
    paraphrase_lists,
)

__all__ = ["Bundle", "BundleError"]


class _Watch:
    """A descriptor of the bundle file the connection reads, to notice writes to it (:meth:`Bundle.check_unchanged`).

    Kept: the file's size, modification time and inode (``fstat``), and its first 100 bytes
    (SQLite's header: page count, change counter, schema cookie...), which change with any
    content written by SQLite or copied over from another bundle (even by ``cp -p``, which
    restores the modification time).  Not the change time: a rename over the bundle's path
    (or over another hard link of it) changes the old file's link count, hence its change
    time, without changing a byte of what is read.  What it cannot see: a write that keeps the
    size, the first 100 bytes and, within the file system's timestamp granularity, the
    modification time (another file of the same size and header copied over with ``cp -p``).
    """

    def __init__(self, fd: int):
        self.fd = fd
        self.state = self._state()
        self._closer = weakref.finalize(self, os.close, fd)

    @classmethod
    def open(cls, path: Path) -> "Optional[_Watch]":
        """A watch of ``path`` (None when it cannot be opened: then nothing is watched)."""
        try:
            return cls(os.open(path, os.O_RDONLY))
        except OSError:
            return None

    def _state(self) -> Tuple[int, int, int, bytes]:
        st = os.fstat(self.fd)
        head = os.pread(self.fd, 100, 0) if hasattr(os, "pread") else b""
        return (st.st_size, st.st_mtime_ns, st.st_ino, head)

    def same_file(self, identity: Tuple[Any, ...]) -> bool:
        """Whether the watched file is the one of ``identity`` (:func:`~meteor_lite.resources.integrity.file_identity`)."""
        size, mtime, ino, _ = self.state
        return tuple(identity[1:4]) == (size, mtime, ino)

    def changed(self) -> bool:
        """Whether the file was written since the watch began."""
        try:
            return self._state() != self.state
        except OSError:
            return True

    def close(self) -> None:
        """Close the descriptor (once)."""
        self._closer()


class Bundle:
    """A read-only view of a resource bundle.

    Lookups are indexed queries; results the scorer asks for repeatedly are
    cached by the scorer, not here.  Open with :meth:`open`.
    """

    #: Whether a scorer may read this bundle's look-up tables from a mapped table file beside it
    #: (:mod:`meteor_lite.resources.mapped`); False for a subclass that answers look-ups its own way.
    mappable = True

    def __init__(
        self, path: Path, conn: sqlite3.Connection, meta: "Dict[str, str] | Meta",
        identity: Optional[Tuple[Any, ...]] = None,
    ):
        self.path = path
        self._conn = conn
        #: :meth:`reading`'s count of the blocks of lookups in progress (several threads may share a bundle).
        self._readers = 0
        self._owns_transaction = False
        self._readers_lock = threading.Lock()
        if not isinstance(meta, Meta):  # raw values (tests, writers): checked like a file's
            meta = check_meta(path, meta)
        #: The meta table's text values, checked when the bundle was opened (:mod:`.metadata`).
        self.meta = meta.values
        self._json = meta.json
        #: The identity of the file the connection reads (:func:`meteor_lite.resources.integrity.file_identity`,
        #: taken when it was opened): what its verification is remembered by, and what a forked worker's
        #: reopened file must still be.
        self.identity = identity
        self._watch: Optional[_Watch] = None
        self._counts: Optional[Dict[str, int]] = None

    # -- opening ---------------------------------------------------------
    @classmethod
    def open(cls, path: "os.PathLike[str] | str") -> "Bundle":
        """Open ``path`` read-only and check its format and schema version.

        Raises :class:`BundleError` naming the file and the problem.
        """
        from .integrity import file_identity

        p = Path(path)
        if not p.is_file():
            raise BundleNotFoundError(f"{p}: bundle not found" + (" (it is a directory)" if p.is_dir() else ""))
        _refuse_wal(p)
        try:
            before = file_identity(p)
        except OSError as exc:
            raise BundleError(f"{p}: cannot open ({exc.strerror or exc})") from None
        try:
            # as_uri() percent-encodes the path ('?', '#', '%' and spaces in names are safe).
            conn = sqlite3.connect(
                f"{p.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False,
                cached_statements=STATEMENT_CACHE,
            )
        except sqlite3.Error as exc:
            raise BundleError(f"{p}: cannot open ({exc})") from None
        try:
            meta = _checked_meta(p, conn)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise BundleError(f"{p}: not a readable bundle ({exc})") from None
        except BaseException:
            conn.close()
            raise
        watch = _Watch.open(p)
        try:
            after = file_identity(p)
        except OSError:
            after = None
        if after != before or (watch is not None and not watch.same_file(before)):
            # replaced or written while it was being opened: which file is read is unknown
            conn.close()
            if watch is not None:
                watch.close()
            raise BundleError(f"{p}: the bundle file changed while it was being opened; try again")
        bundle = cls(p, conn, meta, before)
        bundle._watch = watch
        return bundle

    def check_unchanged(self) -> None:
        """Raise :class:`BundleError` if the file opened has been written since (e.g. copied over in place).

        What is scored must be what was verified: a file written in place while scoring would mix
        its old and new content.  One ``fstat`` and one 100-byte read of the file the connection
        reads (its size, modification time, inode and SQLite header), so it is cheap enough for every
        block of segments.
        A bundle *replaced* by a rename is not a change of this file: the open connection goes on
        reading the file it verified (forked workers, which open the path again, refuse the new one).
        """
        if self._watch is not None and self._watch.changed():
            raise BundleError(
                f"{self.path}: the bundle file changed while scoring (it was written after it was opened and "
                "verified, e.g. copied over in place): the scores could mix its old and new content, so none is "
                "given; run again (replace a bundle by renaming a new file over it, as 'bundle install' does)"
            )

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """One read transaction around a block of lookups (the queries of a segment or of a block of segments).

        Outside a transaction SQLite starts and ends one per query: it takes and releases the file's
        shared lock, looks for a hot journal and re-reads the header each time (about a dozen system calls
        per query, several queries per segment).  Inside, the queries share one, as one long query would:
        a writer waits for the block as it waits for a query.  Re-entrant and shared by threads: the
        transaction ends when the last block ends.
        """
        conn = self._conn
        with self._readers_lock:
            self._readers += 1
            if self._readers == 1 and not conn.in_transaction:
                conn.execute("BEGIN")
                self._owns_transaction = True
        try:
            yield
        finally:
            with self._readers_lock:
                self._readers -= 1
                if self._readers == 0 and self._owns_transaction:
                    self._owns_transaction = False
                    conn.rollback()  # nothing was written: ending the read transaction

    def close(self) -> None:
        """Close the underlying connection."""
        self._conn.close()
        if self._watch is not None:
            self._watch.close()

    def __enter__(self) -> "Bundle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- metadata --------------------------------------------------------
    @property
    def language(self) -> str:
        return self.meta.get("language", "")

    @property
    def name(self) -> str:
        return self.meta.get("name", self.path.stem)

    @property
    def version(self) -> str:
        return self.meta.get("version", "0")

    @property
    def checksum(self) -> str:
        return self.meta.get("content_checksum", "")

    @property
    def stemmer(self) -> Optional[Dict[str, str]]:
        """The stemmer recorded at build time (``{"language", "package", "version"}``, strings), if any."""
        return dict(self._json["stemmer"]) or None

    @property
    def build_params(self) -> Dict[str, object]:
        """The builder's parameters recorded in the bundle (``{}`` when none)."""
        return self._json["build_params"]

    @property
    def tasks_json(self) -> Dict[str, Any]:
        """Meta ``tasks`` parsed (a JSON object, ``{}`` when none); :func:`meteor_lite.config.read_tuned_tasks` checks the sets."""
        return self._json["tasks"]

    def sources(self) -> List[Dict[str, str]]:
        """Provenance: one dict per source the bundle was built from."""
        cur = self._conn.execute("SELECT name, kind, description, licence, sha256, location FROM sources ORDER BY name")
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row)) for row in cur]

    def counts(self) -> Dict[str, int]:
        """Number of rows of each resource table (:data:`RESOURCE_TABLES`, logical rows).

        ``paraphrases`` counts pairs and ``paraphrase_prefixes`` the phrases that
        begin a longer phrase, as schema 1's tables did.
        """
        if self._counts is None:
            conn = self._conn
            counts = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES[2:] if t != "paraphrases"}
            pairs = self.meta.get("paraphrase_pairs")
            if pairs is None or not pairs.isdigit():
                pairs = conn.execute(
                    "SELECT COALESCE(SUM(LENGTH(paraphrases) - LENGTH(REPLACE(paraphrases, char(9), '')) + 1), 0)"
                    " FROM paraphrases WHERE paraphrases IS NOT NULL"
                ).fetchone()[0]
            counts["paraphrases"] = int(pairs)
            counts["paraphrase_prefixes"] = conn.execute("SELECT COUNT(*) FROM paraphrases WHERE prefix = 1").fetchone()[0]
            self._counts = {t: counts[t] for t in RESOURCE_TABLES}
        return dict(self._counts)

    def has(self, table: str) -> bool:
        """True when the bundle holds at least one row of ``table`` (one of :data:`RESOURCE_TABLES`)."""
        if table not in RESOURCE_TABLES:
            raise ValueError(f"unknown resource table {table!r} (one of {', '.join(RESOURCE_TABLES)})")
        sql = _HAS_SQL.get(table, f"SELECT 1 FROM {table} LIMIT 1")
        return self._conn.execute(sql).fetchone() is not None

    @property
    def has_paraphrase_probabilities(self) -> bool:
        """True when the bundle stores the pairs' probabilities (table ``paraphrase_probs``)."""
        return self.meta.get("paraphrase_probabilities") == PROBS_FLOAT64 and has_table(self._conn, PROBABILITY_TABLE)

    def info(self) -> Dict[str, object]:
        """Everything `bundle info` shows, as a JSON-ready dict."""
        return {
            "path": str(self.path),
            "format": self.meta.get("format"),
            "schema_version": int(self.meta["schema_version"]),
            "language": self.language,
            "name": self.name,
            "version": self.version,
            "description": self.meta.get("description", ""),
            "created_by": self.meta.get("created_by", ""),
            "stemmer": self.stemmer,
            "build_params": self.build_params,
            "sources": self.sources(),
            "counts": self.counts(),
            "content_checksum": self.checksum,
        }

    def verify(self) -> List[str]:
        """Check integrity; return a list of problems (empty when the bundle is sound)."""
        problems: List[str] = []
        try:
            res = [r[0] for r in self._conn.execute("PRAGMA integrity_check")]
        except sqlite3.DatabaseError as exc:
            return [f"integrity check failed: {exc}"]
        if res != ["ok"]:
            problems.extend(f"sqlite: {r}" for r in res)
            return problems
        for key in ("language", "name", "version", "content_checksum"):
            if not self.meta.get(key):
                problems.append(f"meta key {key!r} is missing")
        try:
            actual = compute_content_checksum(self._conn)
            from .integrity import column_type_problems

            problems.extend(column_type_problems(self._conn))
        except (sqlite3.DatabaseError, ValueError) as exc:
            return problems + [f"content unreadable: {exc}"]
        if self.checksum and actual != self.checksum:
            problems.append(f"content checksum mismatch: recorded {self.checksum}, actual {actual}")
        return problems

    # -- lookups used by the scorer ---------------------------------------
    def function_words(self) -> FrozenSet[str]:
        """The whole function-word list (small: tens to hundreds of words)."""
        return frozenset(r[0] for r in self._conn.execute("SELECT word FROM function_words"))

    def nonbreaking_prefixes(self) -> Dict[str, bool]:
        """Map prefix -> numeric_only flag for the normaliser."""
        return {p: bool(n) for p, n in self._conn.execute("SELECT prefix, numeric_only FROM nonbreaking_prefixes")}

    def stems(self, words: Iterable[str]) -> Dict[str, str]:
        """Stems recorded for ``words`` (words the map lacks are absent from the result)."""
        return dict(self._query_in("SELECT word, stem FROM stems WHERE word IN ({})", list(words)))

    def synsets(self, words: Iterable[str]) -> Dict[str, FrozenSet[int]]:
        """Map each of ``words`` that has synsets to its set of synset ids."""
        out: Dict[str, Set[int]] = {}
        for w, s in self._query_in("SELECT word, synset FROM synsets WHERE word IN ({})", list(words)):
            if type(s) is not int:  # verification refuses such a bundle; this guards unverified use
                raise BundleError(f"{self.path}: the synset id of {w!r} is not an integer ({s!r}): the bundle is "
                                  "damaged; check it with 'meteor-lite bundle verify'")
            out.setdefault(w, set()).add(s)
        return {w: frozenset(s) for w, s in out.items()}

    def synonym_exceptions(self, forms: Iterable[str]) -> Dict[str, List[str]]:
        """Map each inflected form to its base forms (WordNet exception lists)."""
        out: Dict[str, List[str]] = {}
        for f, b in self._query_in("SELECT form, base FROM synonym_exceptions WHERE form IN ({})", list(forms)):
            out.setdefault(f, []).append(b)
        return out

    def paraphrases(self, phrases: Iterable[str]) -> Dict[str, List[str]]:
        """Map each of ``phrases`` found in the table to its paraphrases, in table order."""
        return self.paraphrase_lookup(list(phrases))[0]

    def paraphrase_lookup(self, phrases: Sequence[str]) -> Tuple[Dict[str, List[str]], Set[str]]:
        """Paraphrases of ``phrases`` (table order), and which of them begin a longer phrase.

        The second result lets a caller extend only those n-grams that can still
        reach a phrase of the table (a word-level trie walk in SQL).  One indexed
        query per 900 phrases.
        """
        joined, prefixes = self.paraphrase_entries(phrases)
        sep = PARAPHRASE_SEPARATOR
        return {ph: j.split(sep) for ph, j in joined.items()}, prefixes

    def paraphrase_entries(self, phrases: Sequence[str]) -> Tuple[Dict[str, str], Set[str]]:
        """:meth:`paraphrase_lookup` with each phrase's paraphrases as stored: one string, the paraphrases
        joined by ``PARAPHRASE_SEPARATOR`` (a tab), their words by single spaces (nothing split yet)."""
        paras: Dict[str, str] = {}
        prefixes: Set[str] = set()
        conn = self._conn
        for i in range(0, len(phrases), 900):
            part = _padded(phrases[i : i + 900])
            marks = ",".join("?" * len(part))
            for ph, prefix, joined in conn.execute(
                f"SELECT phrase, prefix, paraphrases FROM paraphrases WHERE phrase IN ({marks})", part
            ).fetchall():
                if joined is not None:
                    paras[ph] = joined
                if prefix:
                    prefixes.add(ph)
        return paras, prefixes

    def iter_paraphrases(
        self, with_probs: bool = False
    ) -> Iterator[Tuple[str, List[str], Optional[Tuple[float, ...]]]]:
        """Every phrase of the table with its paraphrases (table order), in phrase (UTF-8 byte) order.

        Yields ``(phrase, paraphrases, probabilities)``; probabilities are None
        unless ``with_probs`` and the bundle stores them
        (:attr:`has_paraphrase_probabilities`).
        """
        for phrase, _prefix, paras, probs in paraphrase_lists(self._conn, with_probs):
            if paras is not None:
                yield phrase, paras, probs

    def table_rows(self, table: str) -> Iterator[Tuple[Any, ...]]:
        """Every row of one of the scorer's look-up tables (``stems``: word, stem; ``synsets``: word, synset;
        ``synonym_exceptions``: form, base; ``paraphrases``: phrase, prefix, entry), in key order, streamed
        (for :class:`~meteor_lite.resources.memory.TablesInMemory`)."""
        sql = _WHOLE_TABLES.get(table)
        if sql is None:
            raise ValueError(f"not a look-up table: {table!r} (one of {', '.join(_WHOLE_TABLES)})")
        for row in self._conn.execute(sql):
            if table == "synsets" and type(row[1]) is not int:  # as synsets(): verification refuses such a bundle
                raise BundleError(f"{self.path}: the synset id of {row[0]!r} is not an integer ({row[1]!r}): the "
                                  "bundle is damaged; check it with 'meteor-lite bundle verify'")
            yield row

    def paraphrase_max_length(self) -> int:
        """Longest phrase (in words) on the left side of the paraphrase table."""
        return int(self.meta.get("paraphrase_max_length", "0") or 0)

    def _query_in(self, sql: str, keys: List[str], chunk: int = 900) -> List[Tuple[Any, ...]]:
        """The rows of ``sql`` (an ``IN ({})`` query) for ``keys``, one query per ``chunk`` keys."""
        rows: List[Tuple[Any, ...]] = []
        for i in range(0, len(keys), chunk):
            part = _padded(keys[i : i + chunk])
            if part:
                rows.extend(self._conn.execute(sql.format(",".join("?" * len(part))), part).fetchall())
        return rows


#: The queries of :meth:`Bundle.table_rows`.
_WHOLE_TABLES = {
    "stems": "SELECT word, stem FROM stems ORDER BY word",
    "synsets": "SELECT word, synset FROM synsets ORDER BY word, synset",
    "synonym_exceptions": "SELECT form, base FROM synonym_exceptions ORDER BY form, base",
    "paraphrases": "SELECT phrase, prefix, paraphrases FROM paraphrases ORDER BY phrase",
}

#: ``IN (...)`` lists up to this long are queried as they are (one cached statement per length and table);
#: longer ones are padded to a multiple of :data:`_PAD_STEP`.
_EXACT_IN = 128
_PAD_STEP = 64
#: Prepared statements the connection keeps (sqlite3's default, 128, would drop the per-length ones).
STATEMENT_CACHE = 1024


def _padded(keys: Sequence[str]) -> List[Optional[str]]:
    """``keys``, padded with NULLs (which match nothing) to a multiple of 64 when there are more than 128:
    a bounded number of ``IN (...)`` lengths, so that their statements stay in the connection's statement
    cache instead of being compiled per query.  Short lists (the lookups of one segment) are not padded:
    SQLite seeks each value of the list, a NULL included (about as long as a real key)."""
    n = len(keys)
    size = n if n <= _EXACT_IN else min(900, -(-n // _PAD_STEP) * _PAD_STEP)
    return [*keys, *([None] * (size - n))]


#: :meth:`Bundle.has` queries of the logical tables stored in ``paraphrases``.
_HAS_SQL = {
    "paraphrases": "SELECT 1 FROM paraphrases WHERE paraphrases IS NOT NULL LIMIT 1",
    "paraphrase_prefixes": "SELECT 1 FROM paraphrases WHERE prefix = 1 LIMIT 1",
}


#: The first bytes of every SQLite database file.
_SQLITE_MAGIC = b"SQLite format 3\x00"


def _refuse_wal(p: Path) -> None:
    """Refuse a bundle in SQLite's WAL journal mode: its content would also live in a ``-wal`` file beside it.

    A bundle is one self-contained file (what its content checksum and the verification cache
    describe); in WAL mode a planted or left-over ``<bundle>-wal`` would change what is read
    without changing the bundle file.  Bytes 18 and 19 of the header are the file format's
    write/read versions: 1 for a rollback journal, 2 for WAL.
    """
    try:
        with open(p, "rb") as f:
            head = f.read(20)
    except OSError as exc:
        raise BundleError(f"{p}: cannot open ({exc.strerror or exc})") from None
    if head.startswith(_SQLITE_MAGIC) and len(head) == 20 and (head[18] != 1 or head[19] != 1):
        raise BundleError(
            f"{p}: the bundle is in SQLite's WAL journal mode, so its content could change through a '-wal' file "
            f"beside it; a bundle must be one self-contained file: convert it with "
            f"sqlite3 {p} 'PRAGMA journal_mode=DELETE' (then verify it), or rebuild it"
        )


def _checked_meta(p: Path, conn: sqlite3.Connection) -> Meta:
    """Check the format, the schema version and the tables of an open bundle; return its meta."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "meta" not in tables:
        raise BundleError(f"{p}: not a meteor-lite bundle (an SQLite database without a meta table)")
    meta = read_meta_values(p, conn)
    if meta.get("format") != FORMAT_NAME:
        raise BundleError(f"{p}: not a meteor-lite bundle (format {meta.get('format')!r})")
    checked = check_meta(p, meta)
    if not meta.get("schema_version"):
        raise BundleError(f"{p}: bundle has no valid schema_version")
    version = int(meta["schema_version"])
    if version == 1:
        raise BundleError(_schema1_message(p, meta))
    if version != SCHEMA_VERSION:
        raise BundleError(
            f"{p}: bundle schema version {version} is not supported "
            f"(this meteor-lite reads schema version {SCHEMA_VERSION})"
        )
    missing = [t for t in TABLES if t not in tables]
    if missing:
        raise BundleError(f"{p}: bundle is incomplete (missing tables: {', '.join(missing)})")
    for table in TABLES:
        conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchall()
    return checked


def _schema1_message(p: Path, meta: Dict[str, str]) -> str:
    """The error for a schema-1 bundle: what it is and the command that rebuilds it."""
    try:
        params = load_json(meta.get("build_params") or "{}")
    except ValueError:
        params = {}
    builder = str(params.get("builder", "")) if isinstance(params, dict) else ""
    lang = meta.get("language") or "LANG"
    if builder.startswith("meteor-build import-official"):
        how = f"rebuild it with `meteor-build import-official --lang {lang} --out {p}`"
    elif isinstance(params, dict) and isinstance(params.get("recipe"), dict):
        recipe = params["recipe"].get("file") or "RECIPE.toml"
        how = f"rebuild it from its recipe with `meteor-build recipe {recipe} --out {p}`"
    else:
        how = (
            f"rebuild it with the command that made it ({builder or 'see its build_params'}); "
            f"for Meteor 1.5's resources: `meteor-build import-official --lang {lang}`"
        )
    return (
        f"{p}: bundle schema version 1 is an older format that this meteor-lite no longer reads "
        f"(it reads schema version {SCHEMA_VERSION}, which stores the paraphrase table compactly); {how}"
    )
