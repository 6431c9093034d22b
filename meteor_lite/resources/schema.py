"""The bundle format: SQLite schema (version 2), resource tables and the content checksum.

A bundle holds any subset of the resources METEOR needs (function words, a stem
map, synonym sets with morphological exceptions, a paraphrase table and the
normaliser's non-breaking prefixes), plus metadata and provenance.  The schema
is documented in ``docs/bundle-format.md`` and in :data:`SCHEMA_SQL`; other
programs may query a bundle directly.  The writer lives with the builders; the
reader is :class:`meteor_lite.resources.bundle.Bundle`.

Schema 2 stores the paraphrase table compactly: one row per phrase holding its
paraphrases joined by TAB (and a flag saying whether the phrase begins a longer
one), instead of schema 1's one row per pair plus a table of prefixes.  The
probabilities of the pairs are optional (table ``paraphrase_probs``): the
scorer never reads them.  The content checksum is defined on the *logical*
content (pairs, prefixes), so it does not depend on this physical layout.
"""

from __future__ import annotations

import sqlite3
from itertools import islice
from typing import TYPE_CHECKING, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

if TYPE_CHECKING:
    import hashlib

# json, hashlib and struct are imported where they are used: scoring opens bundles without them.

FORMAT_NAME = "meteor-lite-bundle"
SCHEMA_VERSION = 2

#: SQLite page size of the bundles the builders write (measured: the knee between size and lookup speed).
PAGE_SIZE = 8192

#: Separator of the paraphrases of one phrase in ``paraphrases.paraphrases``.
PARAPHRASE_SEPARATOR = "\t"

#: Logical resource tables, in the order they enter the content checksum.  They are
#: what :meth:`Bundle.counts` and :meth:`Bundle.has` speak of: ``paraphrases`` counts
#: pairs and ``paraphrase_prefixes`` the phrases flagged as prefixes, as in schema 1.
RESOURCE_TABLES: Tuple[str, ...] = (
    "function_words",
    "stems",
    "synsets",
    "synonym_exceptions",
    "paraphrases",
    "paraphrase_prefixes",
    "nonbreaking_prefixes",
)

#: Tables every schema-2 bundle has (physical layout).
TABLES: Tuple[str, ...] = (
    "meta",
    "sources",
    "function_words",
    "stems",
    "synsets",
    "synonym_exceptions",
    "paraphrases",
    "nonbreaking_prefixes",
)

#: Optional table: the pairs' probabilities (only when a builder was asked to keep them).
PROBABILITY_TABLE = "paraphrase_probs"

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
    phrase      TEXT PRIMARY KEY,
    prefix      INTEGER NOT NULL,
    paraphrases TEXT
) WITHOUT ROWID;
CREATE TABLE nonbreaking_prefixes (
    prefix       TEXT PRIMARY KEY,
    numeric_only INTEGER NOT NULL
) WITHOUT ROWID;
"""

#: The optional probability table (created by writers that keep probabilities).
PROBABILITY_SQL = """
CREATE TABLE paraphrase_probs (
    phrase TEXT PRIMARY KEY,
    probs  BLOB NOT NULL
) WITHOUT ROWID;
"""

#: Meta keys that describe the build but not the content (left out of the checksum).
NON_CONTENT_META = frozenset({"content_checksum", "built_at", "tasks_run"})

#: Values of meta ``paraphrase_probabilities``.
PROBS_DROPPED = "dropped"
PROBS_FLOAT64 = "float64"

#: Primary-key order of the plain tables (the same in schema 1 and 2).
_ORDER_BY = {
    "function_words": "word",
    "stems": "word",
    "synsets": "word, synset",
    "synonym_exceptions": "form, base",
    "nonbreaking_prefixes": "prefix",
}


def pack_probs(probs: Sequence[float]) -> bytes:
    """``paraphrase_probs.probs``: IEEE-754 little-endian doubles, one per paraphrase (bit-exact)."""
    import struct

    return struct.pack(f"<{len(probs)}d", *probs)


def unpack_probs(blob: bytes, n: int, phrase: str = "") -> Tuple[float, ...]:
    """The ``n`` probabilities stored in ``blob``; ValueError when it does not hold exactly ``n``."""
    if len(blob) != 8 * n:
        raise ValueError(f"paraphrase_probs of {phrase!r} holds {len(blob)} bytes for {n} paraphrases")
    import struct

    return struct.unpack(f"<{n}d", blob)


def has_table(conn: sqlite3.Connection, name: str) -> bool:
    """True when the database has a table ``name``."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def paraphrase_lists(
    conn: sqlite3.Connection, with_probs: bool = False
) -> Iterator[Tuple[str, bool, Optional[List[str]], Optional[Tuple[float, ...]]]]:
    """Every row of ``paraphrases`` in phrase (UTF-8 byte) order.

    Yields ``(phrase, is_prefix, paraphrases or None, probabilities or None)``;
    probabilities only with ``with_probs`` and when the bundle stores them.
    """
    sep = PARAPHRASE_SEPARATOR
    if with_probs and has_table(conn, PROBABILITY_TABLE):
        sql = (
            "SELECT p.phrase, p.prefix, p.paraphrases, q.probs FROM paraphrases p "
            "LEFT JOIN paraphrase_probs q ON q.phrase = p.phrase ORDER BY p.phrase"
        )
        for phrase, prefix, joined, blob in conn.execute(sql):
            paras = joined.split(sep) if joined is not None else None
            probs = unpack_probs(blob, len(paras), phrase) if blob is not None and paras is not None else None
            yield phrase, bool(prefix), paras, probs
        return
    for phrase, prefix, joined in conn.execute("SELECT phrase, prefix, paraphrases FROM paraphrases ORDER BY phrase"):
        yield phrase, bool(prefix), (joined.split(sep) if joined is not None else None), None


def compute_content_checksum(conn: sqlite3.Connection) -> str:
    """Return the SHA-256 of a bundle's logical content (meta except build-time keys, sources, resources).

    Rows are hashed in primary-key order with an unambiguous encoding, so the
    same content always gives the same checksum, whatever order it was written
    in and however it is laid out in the file.

    Definition (``docs/bundle-format.md``): SHA-256 over, for each section in
    order (``meta`` without :data:`NON_CONTENT_META`, ``sources``, then each of
    :data:`RESOURCE_TABLES`), the bytes ``\\x00T<section>\\x00`` followed by one
    line per row in primary-key order: the row as a compact JSON array
    (``json.dumps(list(row), ensure_ascii=False, separators=(",", ":"))``,
    UTF-8) and ``\\n``.  The section ``paraphrases`` has one row per pair,
    ``[phrase, rank, paraphrase]`` (rank: 0-based position in the phrase's
    list), with the probability as a fourth element when the bundle stores
    probabilities; ``paraphrase_prefixes`` has ``[phrase]`` for each phrase
    flagged as a prefix.
    """
    import hashlib

    h = hashlib.sha256()
    _encode_row, _ = _encoders()

    read: List[str] = ["meta"]  # the section being read, for the error message

    def section(name: str, lines: Iterable[str]) -> None:
        read[0] = name
        h.update(b"\x00T" + name.encode("utf-8") + b"\x00")
        _hash_lines(h, lines)

    try:
        meta = [(k, v) for k, v in conn.execute("SELECT key, value FROM meta ORDER BY key") if k not in NON_CONTENT_META]
        section("meta", (_encode_row(list(r)) for r in meta))
        sources = conn.execute("SELECT name, kind, description, licence, sha256, location FROM sources ORDER BY name")
        section("sources", (_encode_row(list(r)) for r in sources))
        for table in RESOURCE_TABLES[:4]:
            rows = conn.execute(f"SELECT * FROM {table} ORDER BY {_ORDER_BY[table]}")
            section(table, _format_rows(rows))
        read[0] = "paraphrases"
        h.update(b"\x00Tparaphrases\x00")
        if has_table(conn, PROBABILITY_TABLE):
            _hash_lines(h, _pair_lines(paraphrase_lists(conn, with_probs=True)))
        else:
            for text in _pair_texts(conn):
                h.update(text.encode("utf-8"))
        read[0] = "paraphrase_prefixes"
        h.update(b"\x00Tparaphrase_prefixes\x00")
        for text in _prefix_texts(conn):
            h.update(text.encode("utf-8"))
        rows = conn.execute("SELECT * FROM nonbreaking_prefixes ORDER BY prefix")
        section("nonbreaking_prefixes", (_encode_row(list(r)) for r in rows))
    except (TypeError, AttributeError) as exc:  # a BLOB (or another non-text value) where text belongs
        raise ValueError(f"table {read[0]!r} holds a value that is not text or a number ({exc})") from None
    return h.hexdigest()


def _encoders() -> Tuple[Callable[[object], str], Callable[[str], str]]:
    """The checksum's row encoding, exactly ``json.dumps(list(row), ensure_ascii=False, separators=(",", ":"))``,
    and the string escaping it uses (for the fast paths)."""
    import json

    return json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode, json.encoder.encode_basestring


_float_repr = float.__repr__  # how json writes a finite float


def _pair_lines(
    lists: Iterable[Tuple[str, bool, Optional[List[str]], Optional[Tuple[float, ...]]]],
    prefixes: Optional[List[str]] = None,
) -> Iterator[str]:
    """Checksum lines of the pairs (the bytes of the JSON encoding, faster); collects the prefixes in
    ``prefixes`` when given."""
    _encode_row, _json_str = _encoders()
    for phrase, is_prefix, paras, probs in lists:
        if is_prefix and prefixes is not None:
            prefixes.append(phrase)
        if paras is None:
            continue
        q = _json_str(phrase)
        if probs is None:
            for rank, para in enumerate(paras):
                yield f"[{q},{rank},{_json_str(para)}]"
        else:
            for rank, (para, prob) in enumerate(zip(paras, probs)):
                if prob - prob == 0.0:  # finite
                    yield f"[{q},{rank},{_json_str(para)},{_float_repr(prob)}]"
                else:
                    yield _encode_row([phrase, rank, para, prob])


#: ``_PAIR_FORMATS[n]``: the checksum lines of a phrase's ``n`` paraphrases, as one ``str.format``
#: template (argument 0: ``[`` + the phrase's JSON string + ``,``; then the paraphrases).
_PAIR_FORMATS: Dict[int, str] = {}


def _pair_format(n: int) -> str:
    fmt = _PAIR_FORMATS.get(n)
    if fmt is None:
        fmt = _PAIR_FORMATS[n] = "".join(f'{{0}}{i},"{{{i + 1}}}"]\n' for i in range(n))
    return fmt


def _pair_texts(conn: sqlite3.Connection, prefixes: Optional[List[str]] = None, batch: int = 20_000) -> Iterator[str]:
    """The checksum lines of the pairs (bundles without probabilities), many lines per string; collects the
    prefixes in ``prefixes`` when given.

    The same bytes as :func:`_pair_lines`, built a phrase at a time: a batch of rows
    none of whose texts JSON would escape (checked at once: the phrases joined by
    ``\\n`` and the lists joined by TAB lengthen, encoded, by exactly their separators)
    needs no escaping, only ``str.split``; any other batch goes through :func:`_pair_lines`.
    """
    _, _json_str = _encoders()
    sep = PARAPHRASE_SEPARATOR
    cur = conn.execute("SELECT phrase, prefix, paraphrases FROM paraphrases ORDER BY phrase")
    while True:
        rows = cur.fetchmany(batch)
        if not rows:
            return
        if prefixes is not None:
            prefixes.extend(phrase for phrase, prefix, _ in rows if prefix)
        rows = [r for r in rows if r[2] is not None]
        phrases = "\n".join([r[0] for r in rows])
        lists = sep.join([r[2] for r in rows])
        plain = len(_json_str(phrases)) == len(phrases) + 2 + phrases.count("\n") and len(_json_str(lists)) == len(
            lists
        ) + 2 + lists.count(sep)  # else something to escape (or a phrase with a line break)
        del phrases, lists
        out: List[str] = []
        for phrase, _, paras in rows:
            n = paras.count(sep) + 1
            if n > _TEMPLATE_PAIRS:  # a phrase with very many paraphrases: a chunk of them at a time
                if out:
                    yield "".join(out)
                    out = []
                yield from _long_list_texts(phrase, paras, plain)
            elif plain:
                out.append(_pair_format(n).format(f'["{phrase}",', *paras.split(sep)))
            else:
                out.extend(line + "\n" for line in _pair_lines([(phrase, False, paras.split(sep), None)]))
        if out:
            yield "".join(out)


#: The most paraphrases of one phrase whose checksum lines are made through a template of :data:`_PAIR_FORMATS`.
_TEMPLATE_PAIRS = 256


def list_chunks(joined: str, chars: int = 1 << 20) -> Iterator[List[str]]:
    """The paraphrases of a list joined by :data:`PARAPHRASE_SEPARATOR` (a ``paraphrases`` entry), about
    ``chars`` characters of them at a time: the chunks of ``joined.split(PARAPHRASE_SEPARATOR)`` in order, without
    a list of millions of strings at once."""
    sep = PARAPHRASE_SEPARATOR
    start = 0
    while len(joined) - start > chars:
        cut = joined.find(sep, start + chars)
        if cut < 0:
            break
        yield joined[start:cut].split(sep)
        start = cut + 1
    yield joined[start:].split(sep)


def _long_list_texts(phrase: str, joined: str, plain: bool) -> Iterator[str]:
    """The checksum lines of the pairs of one phrase with many paraphrases, a chunk at a time (``plain``: nothing
    in them for JSON to escape)."""
    _, _json_str = _encoders()
    head = f'["{phrase}",' if plain else f"[{_json_str(phrase)},"
    rank = 0
    for chunk in list_chunks(joined):
        if plain:
            yield "".join([f'{head}{r},"{para}"]\n' for r, para in enumerate(chunk, rank)])
        else:
            yield "".join([f"{head}{r},{_json_str(para)}]\n" for r, para in enumerate(chunk, rank)])
        rank += len(chunk)


def _prefix_texts(conn: sqlite3.Connection, batch: int = 20_000) -> Iterator[str]:
    """The checksum lines of the phrases flagged as prefixes (``[phrase]``), many lines per string, read in a pass of
    their own (a bundle may hold millions of them: none is kept).  A batch none of whose phrases JSON would escape
    (checked at once, as in :func:`_pair_texts`) is joined as it is; any other goes through the JSON encoder."""
    _encode_row, _json_str = _encoders()
    cur = conn.execute("SELECT phrase, prefix FROM paraphrases ORDER BY phrase")
    while True:
        rows = cur.fetchmany(batch)
        if not rows:
            return
        phrases = [phrase for phrase, prefix in rows if prefix]
        if not phrases:
            continue
        try:
            joined = "\n".join(phrases)
            plain = joined.count("\n") == len(phrases) - 1 and len(_json_str(joined)) == len(joined) + 2 + len(phrases) - 1
        except TypeError:  # a phrase that is not text: the encoder says what it is
            plain = False
        if plain:
            yield '["' + '"]\n["'.join(phrases) + '"]\n'
        else:
            yield "".join(_encode_row([p]) + "\n" for p in phrases)


def _format_rows(rows: Iterable[Sequence[object]]) -> Iterator[str]:
    """Checksum lines of rows: ``json.dumps(list(row), ...)``, faster for rows of strings and integers."""
    _encode_row, _json_str = _encoders()
    _int_repr = int.__repr__  # how json writes an int
    for row in rows:
        parts = []
        for value in row:
            kind = type(value)
            if kind is str:
                parts.append(_json_str(value))  # type: ignore[arg-type]
            elif kind is int:
                parts.append(_int_repr(value))
            else:
                yield _encode_row(list(row))
                break
        else:
            yield "[" + ",".join(parts) + "]"


def _hash_lines(h: "hashlib._Hash", lines: Iterable[str], batch: int = 50_000) -> None:
    """Feed ``line + "\\n"`` for each line, UTF-8, in batches."""
    it = iter(lines)
    while True:
        chunk = list(islice(it, batch))
        if not chunk:
            return
        h.update(("\n".join(chunk) + "\n").encode("utf-8"))
