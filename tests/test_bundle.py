"""Bundle schema 2: atomic writer, reader errors (schema 1 refused), content checksum, lookups."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import struct
from pathlib import Path
from typing import Iterable, List, Sequence, Tuple

import pytest

import meteor_lite_builders.bundle.writer as bundle_writer
from meteor_lite.errors import BundleError
from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.locate import ENV_BUNDLE_PATH, bundle_search_path, find_bundle
from meteor_lite.resources.schema import (
    FORMAT_NAME,
    NON_CONTENT_META,
    PAGE_SIZE,
    SCHEMA_VERSION,
    compute_content_checksum,
)
from meteor_lite_builders.bundle.writer import BundleWriter
from meteor_lite_builders.errors import InvalidParameterError
from meteor_lite_builders.sources import sha256_file

PARAPHRASES = [
    ("get rid of", "remove", 0.5),
    ("remove", "get rid of", 0.25),
    ("x", "zeta", 0.1),  # table order, not alphabetical order, is kept
    ("x", "alpha", 0.2),
    ("x", "mid", 1e-05),
    ("a lot of", "many", 0.3),
]


def fill(w: BundleWriter, *, reverse: bool = False, paraphrases: Sequence[Tuple[str, str, float]] = PARAPHRASES) -> None:
    """Write the same content; ``reverse`` changes the order of every insertion but the paraphrases'."""

    def order(rows: Iterable) -> List:
        rows = list(rows)
        return rows[::-1] if reverse else rows

    sources = [
        ("b-source", "corpus", "second", "CC0", "00" * 32, "here"),
        ("a-source", "wordnet", "first", "WordNet 3.0 license", "11" * 32, "there"),
    ]
    for name, kind, desc, lic, sha, loc in order(sources):
        w.add_source(name, kind=kind, description=desc, licence=lic, sha256=sha, location=loc)
    w.add_function_words(order(["the", "a", "of", "’", '"']))
    w.add_stems(order([("running", "run"), ("cars", "car"), ("university", "univers")]))
    w.add_synsets(order([("car", 1), ("automobile", 1), ("car", 7), ("big", 2), ("large", 2), ("mouse", 3)]))
    w.add_synonym_exceptions(order([("mice", "mouse"), ("went", "go"), ("axes", "ax"), ("axes", "axis")]))
    w.add_nonbreaking_prefixes(order([("Mr", False), ("No", True)]))
    w.set_stemmer("english", "snowballstemmer", "2.2.0")
    if reverse:  # the same paraphrase rows (same seq) in two calls
        w.add_paraphrases(paraphrases[:2])
        w.add_paraphrases(paraphrases[2:])
    else:
        w.add_paraphrases(paraphrases)


def write(path: Path, **kw) -> Path:
    with BundleWriter(path, language="en", name="test", version="1.2.3", description="d", build_params={"k": 1}) as w:
        fill(w, **kw)
    return path


def files_in(d: Path) -> List[str]:
    return sorted(p.name for p in d.iterdir())


# -- writer atomicity ------------------------------------------------------------


class Boom(Exception):
    pass


@pytest.mark.parametrize("exc", [Boom("boom"), KeyboardInterrupt()])
def test_error_inside_with_block_leaves_nothing(tmp_path: Path, exc: BaseException) -> None:
    out = tmp_path / "b.sqlite"
    with pytest.raises(type(exc)):
        with BundleWriter(out, language="en", name="x", version="1") as w:
            fill(w)
            assert files_in(tmp_path) != []  # the temporary file exists while writing
            raise exc
    assert files_in(tmp_path) == []


@pytest.mark.parametrize("exc", [Boom("boom"), KeyboardInterrupt()])
def test_error_while_finishing_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    def fail(conn: sqlite3.Connection) -> str:
        raise exc

    monkeypatch.setattr(bundle_writer, "compute_content_checksum", fail)
    with pytest.raises(type(exc)):
        write(tmp_path / "b.sqlite")
    assert files_in(tmp_path) == []


def test_failed_rebuild_keeps_the_old_bundle(tmp_path: Path) -> None:
    out = write(tmp_path / "b.sqlite")
    before = sha256_file(out)
    with pytest.raises(KeyboardInterrupt):
        with BundleWriter(out, language="en", name="x", version="2") as w:
            w.add_function_words(["new"])
            raise KeyboardInterrupt
    assert files_in(tmp_path) == ["b.sqlite"]
    assert sha256_file(out) == before


def test_bundle_file_is_world_readable(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        out = write(tmp_path / "b.sqlite")
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644


def test_writer_creates_parent_directories(tmp_path: Path) -> None:
    out = write(tmp_path / "a" / "b" / "c.sqlite")
    assert out.is_file()
    assert files_in(out.parent) == ["c.sqlite"]


# -- opening ------------------------------------------------------------------------


def test_open_missing_file(tmp_path: Path) -> None:
    p = tmp_path / "nope.sqlite"
    with pytest.raises(BundleError, match="not found") as e:
        Bundle.open(p)
    assert str(p) in str(e.value)


def test_open_directory(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="not found.*directory"):
        Bundle.open(tmp_path)


def test_open_random_bytes(tmp_path: Path) -> None:
    p = tmp_path / "junk.sqlite"
    p.write_bytes(bytes(range(256)) * 64)
    with pytest.raises(BundleError, match="not a readable bundle") as e:
        Bundle.open(p)
    assert str(p) in str(e.value)


def test_open_sqlite_that_is_not_a_bundle(tmp_path: Path) -> None:
    p = tmp_path / "other.sqlite"
    with sqlite3.connect(p) as c:
        c.execute("CREATE TABLE t (x)")
    c.close()
    with pytest.raises(BundleError, match="not a meteor-lite bundle") as e:
        Bundle.open(p)
    assert str(p) in str(e.value)


def test_open_other_format(tmp_path: Path) -> None:
    p = tmp_path / "other.sqlite"
    with sqlite3.connect(p) as c:
        c.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        c.execute("INSERT INTO meta VALUES ('format', 'something-else')")
    c.close()
    with pytest.raises(BundleError, match="not a meteor-lite bundle.*something-else"):
        Bundle.open(p)


def _set_meta(path: Path, key: str, value: str) -> None:
    c = sqlite3.connect(path)
    with c:
        c.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))
    c.close()


def test_open_unknown_schema_version(tmp_path: Path) -> None:
    p = write(tmp_path / "v3.sqlite")
    _set_meta(p, "schema_version", "3")
    with pytest.raises(BundleError) as e:
        Bundle.open(p)
    msg = str(e.value)
    assert str(p) in msg and "schema version 3" in msg and f"reads schema version {SCHEMA_VERSION}" in msg


#: Schema 1's paraphrase tables (the rest of its DDL is schema 2's).
SCHEMA1_PARAPHRASES = """
CREATE TABLE paraphrases (phrase TEXT NOT NULL, seq INTEGER NOT NULL, paraphrase TEXT NOT NULL,
                          prob REAL NOT NULL, PRIMARY KEY (phrase, seq)) WITHOUT ROWID;
CREATE TABLE paraphrase_prefixes (prefix TEXT PRIMARY KEY) WITHOUT ROWID;
"""


def _schema1_bundle(path: Path, build_params: dict) -> Path:
    """A bundle as meteor-lite 0.1 wrote it (schema 1: one row per paraphrase pair)."""
    from meteor_lite.resources.schema import SCHEMA_SQL

    c = sqlite3.connect(path)
    with c:
        c.executescript(SCHEMA_SQL.split("CREATE TABLE paraphrases")[0] + SCHEMA1_PARAPHRASES
                        + "CREATE TABLE nonbreaking_prefixes (prefix TEXT PRIMARY KEY, numeric_only INTEGER NOT NULL) WITHOUT ROWID;")
        meta = {"format": FORMAT_NAME, "schema_version": "1", "language": "en", "name": "en", "version": "1.5.0",
                "build_params": json.dumps(build_params), "content_checksum": "0" * 64}
        c.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        c.execute("INSERT INTO paraphrases VALUES ('get rid of', 0, 'remove', 0.5)")
        c.execute("INSERT INTO paraphrase_prefixes VALUES ('get')")
    c.close()
    return path


@pytest.mark.parametrize(
    "params, how",
    [
        ({"builder": "meteor-build import-official"}, "`meteor-build import-official --lang en --out {p}`"),
        ({"builder": "meteor-build", "recipe": {"file": "en.toml"}}, "`meteor-build recipe en.toml --out {p}`"),
        ({"builder": "meteor-build paraphrases"}, "the command that made it (meteor-build paraphrases)"),
    ],
)
def test_schema_1_bundle_is_refused_with_how_to_rebuild(tmp_path: Path, params: dict, how: str) -> None:
    p = _schema1_bundle(tmp_path / "en.sqlite", params)
    with pytest.raises(BundleError) as e:
        Bundle.open(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}: bundle schema version 1 is an older format that this meteor-lite no longer reads")
    assert f"reads schema version {SCHEMA_VERSION}" in msg and how.format(p=p) in msg


def test_schema_1_bundle_never_scores(tmp_path: Path) -> None:
    from meteor_lite import Meteor

    p = _schema1_bundle(tmp_path / "en.sqlite", {"builder": "meteor-build import-official"})
    with pytest.raises(BundleError, match="schema version 1 .*meteor-build import-official --lang en"):
        Meteor("en", bundle=p).score("a cat", ["a cat"])


def test_open_bad_schema_version(tmp_path: Path) -> None:
    p = write(tmp_path / "bad.sqlite")
    _set_meta(p, "schema_version", "one")
    with pytest.raises(BundleError, match="bad bundle metadata: meta 'schema_version' is not a non-negative integer"):
        Bundle.open(p)


def test_open_incomplete_bundle(tmp_path: Path) -> None:
    p = write(tmp_path / "inc.sqlite")
    c = sqlite3.connect(p)
    c.execute("DROP TABLE stems")
    c.close()
    with pytest.raises(BundleError, match="missing tables: stems"):
        Bundle.open(p)


@pytest.mark.parametrize("name", ["with space.sqlite", "q?x.sqlite", "h#x.sqlite", "p%20x.sqlite"])
def test_open_path_with_uri_characters(tmp_path: Path, name: str) -> None:
    p = write(tmp_path / name)
    with Bundle.open(p) as b:
        assert b.name == "test"


def test_bundle_is_opened_read_only(tmp_path: Path) -> None:
    with Bundle.open(write(tmp_path / "b.sqlite")) as b:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            b._conn.execute("DELETE FROM stems")


# -- checksum -------------------------------------------------------------------------


def reference_checksum(conn: sqlite3.Connection) -> str:
    """The checksum as docs/bundle-format.md defines it, written the slow, obvious way."""
    h = hashlib.sha256()
    order = {
        "function_words": "word",
        "stems": "word",
        "synsets": "word, synset",
        "synonym_exceptions": "form, base",
        "nonbreaking_prefixes": "prefix",
    }
    probs = {}
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'paraphrase_probs'").fetchone():
        for ph, blob in conn.execute("SELECT phrase, probs FROM paraphrase_probs"):
            probs[ph] = [struct.unpack("<d", blob[i : i + 8])[0] for i in range(0, len(blob), 8)]
    pairs, prefixes = [], []
    for ph, prefix, joined in conn.execute("SELECT phrase, prefix, paraphrases FROM paraphrases"):
        if joined is not None:
            for rank, para in enumerate(joined.split("\t")):
                pairs.append([ph, rank, para] + ([probs[ph][rank]] if ph in probs else []))
        if prefix == 1:
            prefixes.append([ph])
    pairs.sort(key=lambda r: (r[0].encode("utf-8"), r[1]))
    prefixes.sort(key=lambda r: r[0].encode("utf-8"))
    sections = [
        ("meta", [r for r in conn.execute("SELECT key, value FROM meta ORDER BY key") if r[0] not in NON_CONTENT_META]),
        ("sources", conn.execute("SELECT name, kind, description, licence, sha256, location FROM sources ORDER BY name")),
    ] + [(t, conn.execute(f"SELECT * FROM {t} ORDER BY {order[t]}")) for t in list(order)[:4]] + [
        ("paraphrases", pairs),
        ("paraphrase_prefixes", prefixes),
        ("nonbreaking_prefixes", conn.execute("SELECT * FROM nonbreaking_prefixes ORDER BY prefix")),
    ]
    for name, rows in sections:
        h.update(b"\x00T" + name.encode() + b"\x00")
        for row in rows:
            h.update(json.dumps(list(row), ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
    return h.hexdigest()


def recorded_checksum(p: Path) -> str:
    with Bundle.open(p) as b:
        return b.checksum


def test_checksum_independent_of_write_order(tmp_path: Path) -> None:
    a = write(tmp_path / "a.sqlite")
    b = write(tmp_path / "b.sqlite", reverse=True)
    assert recorded_checksum(a) == recorded_checksum(b)
    assert len(recorded_checksum(a)) == 64


def test_checksum_ignores_build_time(tmp_path: Path) -> None:
    a = write(tmp_path / "a.sqlite")
    with BundleWriter(tmp_path / "b.sqlite", language="en", name="test", version="1.2.3", description="d", build_params={"k": 1}) as w:
        fill(w)
        w.set_meta("built_at", "2001-01-01T00:00:00+00:00")
    assert recorded_checksum(a) == recorded_checksum(tmp_path / "b.sqlite")


@pytest.mark.parametrize(
    "change",
    [
        lambda w: w.add_function_words(["extra"]),
        lambda w: w.add_stems([("cars", "cars")]),  # replaces a stem
        lambda w: w.set_meta("version", "1.2.4"),
        lambda w: w.add_source("c", kind="k", description="", licence="", sha256="", location=""),
        lambda w: w.add_paraphrases([("x", "beta", 0.1)]),
    ],
)
def test_changed_content_changes_checksum(tmp_path: Path, change) -> None:
    a = write(tmp_path / "a.sqlite")
    with BundleWriter(tmp_path / "b.sqlite", language="en", name="test", version="1.2.3", description="d", build_params={"k": 1}) as w:
        fill(w)
        change(w)
    assert recorded_checksum(a) != recorded_checksum(tmp_path / "b.sqlite")


def test_changed_paraphrase_order_changes_checksum(tmp_path: Path) -> None:
    a = write(tmp_path / "a.sqlite")
    swapped = list(PARAPHRASES)
    swapped[2], swapped[3] = swapped[3], swapped[2]
    b = write(tmp_path / "b.sqlite", paraphrases=swapped)
    assert recorded_checksum(a) != recorded_checksum(b)


@pytest.mark.parametrize("keep", [False, True])
def test_checksum_matches_its_definition_on_awkward_values(tmp_path: Path, keep: bool) -> None:
    awkward = ['quote " and \\ backslash', "\x00\x1f\x7f", "émoji 😀 ünï", "’", "a" * 300, "x\u2028y", "ß ſ"]
    probs = [0.1 + 0.2, 1e-05, 227.93803293543937, 1.0, 5e-324, 1e300, 0.5]
    paras = [(s, s[::-1] or "r", p) for s, p in zip(awkward, probs)]
    with BundleWriter(tmp_path / "b.sqlite", language="en", name="t", version="1", keep_probabilities=keep) as w:
        fill(w, paraphrases=paras)
    c = sqlite3.connect(tmp_path / "b.sqlite")
    with c:
        c.execute("INSERT INTO stems VALUES (?, ?)", ("\\\"", "x\u2028y"))
        c.execute("INSERT INTO stems VALUES (?, ?)", ("tab\there", "nl\nx"))
        c.execute("INSERT INTO synsets VALUES ('big', 9007199254740993)")
    assert compute_content_checksum(c) == reference_checksum(c)
    c.close()


def test_recorded_checksum_is_the_definition(tmp_path: Path) -> None:
    p = write(tmp_path / "b.sqlite")
    c = sqlite3.connect(p)
    assert recorded_checksum(p) == reference_checksum(c)
    c.close()


def test_verify_sound_bundle(tmp_path: Path) -> None:
    with Bundle.open(write(tmp_path / "b.sqlite")) as b:
        assert b.verify() == []


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE paraphrases SET paraphrases = 'alpha' || char(9) || 'zeta' || char(9) || 'mid' WHERE phrase = 'x'",
        "UPDATE paraphrases SET prefix = 0 WHERE phrase = 'get rid'",
        "INSERT INTO paraphrases VALUES ('a lot of many', 0, 'much')",
        "DELETE FROM function_words WHERE word = 'of'",
        "INSERT INTO synsets VALUES ('auto', 1)",
        "UPDATE sources SET licence = 'public domain'",
        "UPDATE meta SET value = 'fr' WHERE key = 'language'",
    ],
)
def test_verify_detects_tampering(tmp_path: Path, sql: str) -> None:
    p = write(tmp_path / "b.sqlite")
    c = sqlite3.connect(p)
    with c:
        c.execute(sql)
    c.close()
    with Bundle.open(p) as b:
        problems = b.verify()
    assert len(problems) == 1 and "content checksum mismatch" in problems[0]


# -- metadata and lookups ------------------------------------------------------------------


@pytest.fixture()
def bundle(tmp_path: Path):
    with Bundle.open(write(tmp_path / "b.sqlite")) as b:
        yield b


def test_metadata(bundle: Bundle) -> None:
    info = bundle.info()
    assert info["format"] == FORMAT_NAME and info["schema_version"] == SCHEMA_VERSION
    assert (bundle.language, bundle.name, bundle.version) == ("en", "test", "1.2.3")
    assert bundle.stemmer == {"language": "english", "package": "snowballstemmer", "version": "2.2.0"}
    assert info["build_params"] == {"k": 1}
    assert [s["name"] for s in bundle.sources()] == ["a-source", "b-source"]
    assert bundle.counts() == {
        "function_words": 5,
        "stems": 3,
        "synsets": 6,
        "synonym_exceptions": 4,
        "paraphrases": 6,
        "paraphrase_prefixes": 4,  # "get", "get rid", "a", "a lot"
        "nonbreaking_prefixes": 2,
    }
    assert bundle.paraphrase_max_length() == 3


def test_lookups(bundle: Bundle) -> None:
    assert bundle.function_words() == frozenset(["the", "a", "of", "’", '"'])
    assert bundle.stems(["running", "cars", "unknown"]) == {"running": "run", "cars": "car"}
    assert bundle.synsets(["car", "big", "nothing"]) == {"car": frozenset({1, 7}), "big": frozenset({2})}
    assert bundle.synonym_exceptions(["axes", "mice", "cat"]) == {"axes": ["ax", "axis"], "mice": ["mouse"]}
    assert bundle.nonbreaking_prefixes() == {"Mr": False, "No": True}
    assert bundle.has("paraphrases") and bundle.has("stems")
    with pytest.raises(ValueError):
        bundle.has("sqlite_master")


def test_paraphrases_in_table_order(bundle: Bundle) -> None:
    assert bundle.paraphrases(["x", "remove", "get rid of", "none"]) == {
        "x": ["zeta", "alpha", "mid"],
        "remove": ["get rid of"],
        "get rid of": ["remove"],
    }
    stored = bundle._conn.execute("SELECT paraphrases FROM paraphrases WHERE phrase = 'x'").fetchone()
    assert stored == ("zeta\talpha\tmid",)


def test_paraphrase_seq_continues_across_calls(tmp_path: Path) -> None:
    with BundleWriter(tmp_path / "b.sqlite", language="en", name="t", version="1") as w:
        assert w.add_paraphrases([("x", "zeta", 0.1)]) == 1
        assert w.add_paraphrases(iter([("x", "alpha", 0.2), ("y", "b", 0.3)])) == 2
        assert w.add_paraphrases([]) == 0
    with Bundle.open(tmp_path / "b.sqlite") as b:
        assert b.paraphrases(["x"]) == {"x": ["zeta", "alpha"]}
        assert b.counts()["paraphrases"] == 3 and b.meta["paraphrase_pairs"] == "3"
        assert b.paraphrase_lookup(["x", "y"]) == ({"x": ["zeta", "alpha"], "y": ["b"]}, set())
        # the scorer's form: each phrase's entry as stored, unsplit (absent phrases absent)
        assert b.paraphrase_entries(["x", "y", "none"]) == ({"x": "zeta\talpha", "y": "b"}, set())


def test_many_keys_are_chunked(bundle: Bundle) -> None:
    words = [f"w{i}" for i in range(2500)] + ["cars"]
    assert bundle.stems(words) == {"cars": "car"}


def test_empty_bundle(tmp_path: Path) -> None:
    with BundleWriter(tmp_path / "e.sqlite", language="xx", name="e", version="0.0.1"):
        pass
    with Bundle.open(tmp_path / "e.sqlite") as b:
        assert set(b.counts().values()) == {0}
        assert b.stemmer is None and b.paraphrase_max_length() == 0 and b.verify() == []


# -- search path ------------------------------------------------------------------------------


def test_search_path_env_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d1, d2 = tmp_path / "one", tmp_path / "two"
    write(d2 / "qq.sqlite")
    monkeypatch.setenv(ENV_BUNDLE_PATH, os.pathsep.join([str(d1), str(d2)]))
    assert bundle_search_path()[:2] == [d1, d2]
    assert find_bundle("qq") == d2 / "qq.sqlite"
    assert find_bundle("no-such-language") is None


# -- schema 2: the compact paraphrase table --------------------------------------------------------

#: Pairs in table order; phrases deliberately not sorted, some phrases prefixes of others.
TABLE = [
    ("the united states", "the us", 0.5),
    ("the united states", "usa", 0.25),
    ("the", "this", 0.125),
    ("new york city", "nyc", 1.0),
    ("the united", "united", 0.1),
    ("ünï 😀", "x", 227.93803293543937),
    ("the united states", "america", 1e-05),
    ("a", "one", 0.3),
    ("a b c d", "abcd", 0.2),
]


def _reference(table: Sequence[Tuple[str, str, float]]) -> Tuple[dict, set]:
    """Phrase -> paraphrases (table order) and the set of proper word prefixes, computed directly."""
    paras: dict = {}
    for ph, para, _ in table:
        paras.setdefault(ph, []).append(para)
    prefixes = {" ".join(ph.split()[:k]) for ph in paras for k in range(1, len(ph.split()))}
    return paras, prefixes


def _write_table(path: Path, table: Sequence[Tuple[str, str, float]], keep: bool = False, batches: int = 1) -> Path:
    with BundleWriter(path, language="en", name="t", version="1", keep_probabilities=keep) as w:
        step = -(-len(table) // batches)
        for i in range(0, len(table), step):
            w.add_paraphrases(table[i : i + step])
    return path


@pytest.mark.parametrize("keep", [False, True])
def test_lookups_identical_to_the_pairs(tmp_path: Path, keep: bool) -> None:
    paras, prefixes = _reference(TABLE)
    words = {w for ph, para, _ in TABLE for w in (ph + " " + para).split()}
    grams = {" ".join(g) for ph in list(paras) + ["the united kingdom", "a b c", "new york"]
             for n in range(1, 5) for g in zip(*[ph.split()[i:] for i in range(n)])}
    keys = sorted(words | grams | set(paras) | prefixes | {"", " ", "the  united", "zzz"})
    with Bundle.open(_write_table(tmp_path / "b.sqlite", TABLE, keep)) as b:
        found, begins = b.paraphrase_lookup(keys)
        assert found == {k: v for k, v in paras.items() if k in keys}
        assert begins == prefixes
        assert b.paraphrases(keys) == found
        assert b.paraphrase_max_length() == 4
        assert b.counts()["paraphrases"] == len(TABLE) and b.counts()["paraphrase_prefixes"] == len(prefixes)
        assert b.has("paraphrases") and b.has("paraphrase_prefixes")
        assert b.has_paraphrase_probabilities is keep
        rows = list(b.iter_paraphrases(with_probs=True))
        assert [r[0] for r in rows] == sorted(paras)  # phrase (UTF-8 byte) order
        assert {r[0]: r[1] for r in rows} == paras
        if keep:  # bit-exact doubles, in the order of the list
            assert {r[0]: list(r[2]) for r in rows} == {ph: [p for q, _, p in TABLE if q == ph] for ph in paras}
        else:
            assert all(r[2] is None for r in rows)
        tables = {r[0] for r in b._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "_paraphrase_pairs" not in tables and ("paraphrase_probs" in tables) is keep
        assert b.meta["paraphrase_probabilities"] == ("float64" if keep else "dropped")
        assert b.verify() == []


def test_checksum_stable_on_rebuild_and_layout(tmp_path: Path) -> None:
    """Same content, same checksum: rebuilt, fed in several batches, sorted input (fast path), other page size, no VACUUM."""
    a = _write_table(tmp_path / "a.sqlite", TABLE)
    b = _write_table(tmp_path / "b.sqlite", TABLE, batches=4)
    by_phrase = sorted(TABLE, key=lambda r: r[0])  # stable: keeps each phrase's table order
    c = _write_table(tmp_path / "c.sqlite", by_phrase)
    assert recorded_checksum(a) == recorded_checksum(b) == recorded_checksum(c)
    conn = sqlite3.connect(a)
    assert conn.execute("PRAGMA page_size").fetchone() == (PAGE_SIZE,)
    conn.execute("PRAGMA page_size = 1024")
    conn.execute("VACUUM")
    conn.execute("INSERT INTO function_words VALUES ('zz')")
    conn.execute("DELETE FROM function_words WHERE word = 'zz'")
    conn.commit()
    assert compute_content_checksum(conn) == recorded_checksum(tmp_path / "c.sqlite")
    assert conn.execute("PRAGMA page_size").fetchone() == (1024,)
    conn.close()
    kept = _write_table(tmp_path / "k.sqlite", TABLE, keep=True)
    assert recorded_checksum(kept) != recorded_checksum(a)  # the probabilities are content when stored


@pytest.mark.parametrize(
    "bad", [("a\tb", "x", 0.1), ("a", "x\ty", 0.1), ("a", "x\n", 0.1), ("a", " x", 0.1), ("a ", "x", 0.1),
            ("a", "x  y", 0.1), ("a", "", 0.1), ("", "x", 0.1), ("a", "x\r", 0.1)],
)
def test_writer_refuses_text_the_format_cannot_hold(tmp_path: Path, bad: Tuple[str, str, float]) -> None:
    with pytest.raises(InvalidParameterError, match="not tokens joined by single spaces"):
        _write_table(tmp_path / "b.sqlite", [("ok", "fine", 0.5), bad])
    assert files_in(tmp_path) == []


def test_copy_from_base_keeps_the_table(tmp_path: Path) -> None:
    from meteor_lite_builders.bundle.pipeline import build_bundle
    from meteor_lite_builders.bundle.spec import BundleSpec
    from meteor_lite_builders.lexical.function_words import FunctionWords

    base = _write_table(tmp_path / "base.sqlite", TABLE, keep=True)
    for keep in (False, True):
        out = tmp_path / f"out-{keep}.sqlite"
        spec = BundleSpec(language="en", base=base, function_words=FunctionWords(["the"], {}, [], {}), keep_probabilities=keep)
        build_bundle(spec, out, progress=False)
        with Bundle.open(out) as b, Bundle.open(base) as a:
            assert b.paraphrase_lookup(sorted(_reference(TABLE)[0])) == a.paraphrase_lookup(sorted(_reference(TABLE)[0]))
            assert b.counts()["paraphrases"] == len(TABLE) and b.paraphrase_max_length() == 4
            assert b.has_paraphrase_probabilities is keep
            assert list(b.iter_paraphrases(with_probs=keep)) == list(a.iter_paraphrases(with_probs=keep))
            assert b.verify() == []
