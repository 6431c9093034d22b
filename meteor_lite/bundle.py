"""Resource bundles: one SQLite file per language pack, opened read-only.

A bundle holds any subset of the resources METEOR needs (function words, a stem
map, synonym sets with morphological exceptions, a paraphrase table and the
normaliser's non-breaking prefixes), plus metadata and provenance.  The schema
is versioned; :class:`Bundle` refuses a file whose schema it cannot read.

The schema (version 1) is documented in ``docs/bundle-format.md`` and in
:data:`SCHEMA_SQL`; other programs may query a bundle directly.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from itertools import islice
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

FORMAT_NAME = "meteor-lite-bundle"
SCHEMA_VERSION = 1
BUNDLE_SUFFIX = ".sqlite"

#: Tables of resources, in the order they enter the content checksum.
RESOURCE_TABLES: Tuple[str, ...] = (
    "function_words",
    "stems",
    "synsets",
    "synonym_exceptions",
    "paraphrases",
    "paraphrase_prefixes",
    "nonbreaking_prefixes",
)

SCHEMA_SQL = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE sources (
    name        TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    description TEXT NOT NULL,
    licence     TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    location    TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE function_words (
    word TEXT PRIMARY KEY
) WITHOUT ROWID;
CREATE TABLE stems (
    word TEXT PRIMARY KEY,
    stem TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE synsets (
    word   TEXT NOT NULL,
    synset INTEGER NOT NULL,
    PRIMARY KEY (word, synset)
) WITHOUT ROWID;
CREATE TABLE synonym_exceptions (
    form TEXT NOT NULL,
    base TEXT NOT NULL,
    PRIMARY KEY (form, base)
) WITHOUT ROWID;
CREATE TABLE paraphrases (
    phrase     TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    paraphrase TEXT NOT NULL,
    prob       REAL NOT NULL,
    PRIMARY KEY (phrase, seq)
) WITHOUT ROWID;
CREATE TABLE paraphrase_prefixes (
    prefix TEXT PRIMARY KEY
) WITHOUT ROWID;
CREATE TABLE nonbreaking_prefixes (
    prefix       TEXT PRIMARY KEY,
    numeric_only INTEGER NOT NULL
) WITHOUT ROWID;
"""

#: Meta keys that describe the build but not the content (left out of the checksum).
NON_CONTENT_META = frozenset({"content_checksum", "built_at"})


class BundleError(Exception):
    """A bundle is missing, unreadable, corrupt or of an unsupported schema."""


def _order_by(table: str) -> str:
    return {
        "function_words": "word",
        "stems": "word",
        "synsets": "word, synset",
        "synonym_exceptions": "form, base",
        "paraphrases": "phrase, seq",
        "paraphrase_prefixes": "prefix",
        "nonbreaking_prefixes": "prefix",
    }[table]


def compute_content_checksum(conn: sqlite3.Connection) -> str:
    """Return the SHA-256 of a bundle's content (meta except build-time keys, sources, tables).

    Rows are hashed in primary-key order with an unambiguous encoding, so the
    same content always gives the same checksum, whatever order it was written in.

    Definition (``docs/bundle-format.md``): SHA-256 over, for each section in
    order (``meta`` without :data:`NON_CONTENT_META`, ``sources``, then each of
    :data:`RESOURCE_TABLES`), the bytes ``\\x00T<section>\\x00`` followed by one
    line per row in primary-key order: the row as a compact JSON array
    (``json.dumps(list(row), ensure_ascii=False, separators=(",", ":"))``,
    UTF-8) and ``\\n``.
    """
    h = hashlib.sha256()
    sections: List[Tuple[str, Iterable[Sequence[object]]]] = [
        ("meta", [(k, v) for k, v in conn.execute("SELECT key, value FROM meta ORDER BY key") if k not in NON_CONTENT_META]),
        ("sources", conn.execute("SELECT name, kind, description, licence, sha256, location FROM sources ORDER BY name")),
    ]
    for tag, rows in sections:
        h.update(b"\x00T" + tag.encode("utf-8") + b"\x00")
        _hash_rows(h, rows)
    for table in RESOURCE_TABLES:
        h.update(b"\x00T" + table.encode("utf-8") + b"\x00")
        _hash_rows(h, conn.execute(f"SELECT * FROM {table} ORDER BY {_order_by(table)}"), table)
    return h.hexdigest()


#: The checksum's row encoding: exactly ``json.dumps(list(row), ensure_ascii=False, separators=(",", ":"))``.
_encode_row = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_json_str = json.encoder.encode_basestring  # type: ignore[attr-defined]  # the escaping ensure_ascii=False uses
_float_repr = float.__repr__  # how json writes a finite float


def _format_rows(rows: List[Sequence[object]]) -> str:
    return "".join([_encode_row(row) + "\n" for row in rows])


def _format_paraphrase_rows(rows: List[Sequence[object]]) -> str:
    # Same bytes as _format_rows for (str, int, str, finite float) rows, several times faster.
    out: List[str] = []
    append = out.append
    for row in rows:
        a, b, c, d = row
        if type(a) is str and type(b) is int and type(c) is str and type(d) is float and d - d == 0.0:
            append(f"[{_json_str(a)},{b},{_json_str(c)},{_float_repr(d)}]\n")
        else:
            append(_encode_row(row) + "\n")
    return "".join(out)


def _format_str_pairs(rows: List[Sequence[object]]) -> str:
    out: List[str] = []
    append = out.append
    for row in rows:
        a, b = row
        if type(a) is str and type(b) is str:
            append(f"[{_json_str(a)},{_json_str(b)}]\n")
        else:
            append(_encode_row(row) + "\n")
    return "".join(out)


#: Row formatters of the big tables; every other table uses :func:`_format_rows`.
_ROW_FORMATTERS = {"paraphrases": _format_paraphrase_rows, "stems": _format_str_pairs}


def _hash_rows(h: "hashlib._Hash", rows: Iterable[Sequence[object]], table: str = "", batch: int = 20_000) -> None:
    fmt = _ROW_FORMATTERS.get(table, _format_rows)
    it = iter(rows)
    while True:
        chunk = list(islice(it, batch))
        if not chunk:
            return
        h.update(fmt(chunk).encode("utf-8"))


class Bundle:
    """A read-only view of a resource bundle.

    Lookups are indexed queries; results the scorer asks for repeatedly are
    cached by the scorer, not here.  Open with :meth:`open`.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, meta: Dict[str, str]):
        self.path = path
        self._conn = conn
        self.meta = meta
        self._counts: Optional[Dict[str, int]] = None

    # -- opening ---------------------------------------------------------
    @classmethod
    def open(cls, path: "os.PathLike[str] | str") -> "Bundle":
        """Open ``path`` read-only and check its format and schema version.

        Raises :class:`BundleError` naming the file and the problem.
        """
        p = Path(path)
        if not p.is_file():
            raise BundleError(f"{p}: bundle not found" + (" (it is a directory)" if p.is_dir() else ""))
        try:
            # as_uri() percent-encodes the path ('?', '#', '%' and spaces in names are safe).
            conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        except sqlite3.Error as exc:
            raise BundleError(f"{p}: cannot open ({exc})") from None
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "meta" not in tables:
                raise BundleError(f"{p}: not a meteor-lite bundle (an SQLite database without a meta table)")
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            if meta.get("format") != FORMAT_NAME:
                raise BundleError(f"{p}: not a meteor-lite bundle (format {meta.get('format')!r})")
            try:
                version = int(meta.get("schema_version", ""))
            except ValueError:
                raise BundleError(f"{p}: bundle has no valid schema_version") from None
            if version != SCHEMA_VERSION:
                raise BundleError(
                    f"{p}: bundle schema version {version} is not supported "
                    f"(this meteor-lite reads schema version {SCHEMA_VERSION})"
                )
            missing = [t for t in RESOURCE_TABLES if t not in tables]
            if missing:
                raise BundleError(f"{p}: bundle is incomplete (missing tables: {', '.join(missing)})")
            for table in RESOURCE_TABLES:
                conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchall()
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise BundleError(f"{p}: not a readable bundle ({exc})") from None
        except BaseException:
            conn.close()
            raise
        return cls(p, conn, meta)

    def close(self) -> None:
        """Close the underlying connection."""
        self._conn.close()

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
        """The stemmer recorded at build time (``{"language", "package", "version"}``), if any."""
        raw = self.meta.get("stemmer")
        return json.loads(raw) if raw else None

    def sources(self) -> List[Dict[str, str]]:
        """Provenance: one dict per source the bundle was built from."""
        cur = self._conn.execute("SELECT name, kind, description, licence, sha256, location FROM sources ORDER BY name")
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row)) for row in cur]

    def counts(self) -> Dict[str, int]:
        """Number of rows in each resource table."""
        if self._counts is None:
            self._counts = {t: self._conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in RESOURCE_TABLES}
        return dict(self._counts)

    def has(self, table: str) -> bool:
        """True when the bundle holds at least one row of ``table`` (one of :data:`RESOURCE_TABLES`)."""
        if table not in RESOURCE_TABLES:
            raise ValueError(f"unknown resource table {table!r} (one of {', '.join(RESOURCE_TABLES)})")
        return self._conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is not None

    def info(self) -> Dict[str, object]:
        """Everything `bundle info` shows, as a JSON-ready dict."""
        build_params = self.meta.get("build_params")
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
            "build_params": json.loads(build_params) if build_params else {},
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
        except sqlite3.DatabaseError as exc:
            return problems + [f"content unreadable: {exc}"]
        if self.checksum and actual != self.checksum:
            problems.append(f"content checksum mismatch: recorded {self.checksum}, actual {actual}")
        return problems

    # -- lookups used by the scorer ---------------------------------------
    def function_words(self) -> frozenset:
        """The whole function-word list (small: tens to hundreds of words)."""
        return frozenset(r[0] for r in self._conn.execute("SELECT word FROM function_words"))

    def nonbreaking_prefixes(self) -> Dict[str, bool]:
        """Map prefix -> numeric_only flag for the normaliser."""
        return {p: bool(n) for p, n in self._conn.execute("SELECT prefix, numeric_only FROM nonbreaking_prefixes")}

    def stems(self, words: Iterable[str]) -> Dict[str, str]:
        """Stems recorded for ``words`` (words the map lacks are absent from the result)."""
        return dict(self._query_in("SELECT word, stem FROM stems WHERE word IN ({})", list(words)))

    def synsets(self, words: Iterable[str]) -> Dict[str, frozenset]:
        """Map each of ``words`` that has synsets to its set of synset ids."""
        out: Dict[str, set] = {}
        for w, s in self._query_in("SELECT word, synset FROM synsets WHERE word IN ({})", list(words)):
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
        out: Dict[str, List[str]] = {}
        for ph, para in self._query_in(
            "SELECT phrase, paraphrase FROM paraphrases WHERE phrase IN ({}) ORDER BY phrase, seq", list(phrases)
        ):
            out.setdefault(ph, []).append(para)
        return out

    def paraphrase_lookup(self, phrases: Sequence[str]) -> Tuple[Dict[str, List[str]], set]:
        """Paraphrases of ``phrases`` (table order), and which of them begin a longer phrase.

        The second result lets a caller extend only those n-grams that can still
        reach a phrase of the table (a word-level trie walk in SQL).
        """
        paras: Dict[str, List[str]] = {}
        conn = self._conn
        for i in range(0, len(phrases), 900):
            part = list(phrases[i : i + 900])
            marks = ",".join("?" * len(part))
            for ph, para in conn.execute(
                f"SELECT phrase, paraphrase FROM paraphrases WHERE phrase IN ({marks}) ORDER BY phrase, seq", part
            ).fetchall():
                lst = paras.get(ph)
                if lst is None:
                    paras[ph] = [para]
                else:
                    lst.append(para)
        prefixes = set()
        for i in range(0, len(phrases), 900):
            part = list(phrases[i : i + 900])
            marks = ",".join("?" * len(part))
            prefixes.update(
                r[0] for r in conn.execute(f"SELECT prefix FROM paraphrase_prefixes WHERE prefix IN ({marks})", part)
            )
        return paras, prefixes

    def paraphrase_max_length(self) -> int:
        """Longest phrase (in words) on the left side of the paraphrase table."""
        return int(self.meta.get("paraphrase_max_length", "0") or 0)

    def _query_in(self, sql: str, keys: List[str], chunk: int = 900) -> Iterator[Tuple]:
        for i in range(0, len(keys), chunk):
            part = keys[i : i + chunk]
            if not part:
                continue
            yield from self._conn.execute(sql.format(",".join("?" * len(part))), part)


# -- finding bundles ----------------------------------------------------------

ENV_BUNDLE_PATH = "METEOR_LITE_BUNDLE_PATH"


def bundle_search_path() -> List[Path]:
    """Directories searched for ``<lang>.sqlite`` bundles, in order.

    1. each directory in ``$METEOR_LITE_BUNDLE_PATH`` (``os.pathsep``-separated);
    2. ``$XDG_DATA_HOME/meteor-lite/bundles`` (default ``~/.local/share/...``);
    3. ``resources/bundles`` of the source checkout this package runs from.
    """
    dirs: List[Path] = []
    env = os.environ.get(ENV_BUNDLE_PATH)
    if env:
        dirs.extend(Path(d) for d in env.split(os.pathsep) if d)
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    dirs.append(Path(xdg) / "meteor-lite" / "bundles")
    dirs.append(Path(__file__).resolve().parent.parent / "resources" / "bundles")
    return dirs


def find_bundle(language: str) -> Optional[Path]:
    """Return the first ``<language>.sqlite`` on the search path, or None."""
    for d in bundle_search_path():
        p = d / f"{language}{BUNDLE_SUFFIX}"
        if p.is_file():
            return p
    return None


def list_bundles() -> List[Path]:
    """Every bundle file on the search path (the first of each language wins when scoring)."""
    found: List[Path] = []
    for d in bundle_search_path():
        if d.is_dir():
            found.extend(sorted(d.glob(f"*{BUNDLE_SUFFIX}")))
    return found
