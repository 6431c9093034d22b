"""Bundle schema v1: atomic writer, reader errors, content checksum, lookups."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Iterable, List, Sequence, Tuple

import pytest

import meteor_lite_builders.bundle_writer as bundle_writer
from meteor_lite.bundle import (
    ENV_BUNDLE_PATH,
    FORMAT_NAME,
    NON_CONTENT_META,
    RESOURCE_TABLES,
    SCHEMA_VERSION,
    Bundle,
    BundleError,
    bundle_search_path,
    compute_content_checksum,
    find_bundle,
)
from meteor_lite_builders.bundle_writer import BundleWriter, sha256_file

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


def test_open_schema_version_2(tmp_path: Path) -> None:
    p = write(tmp_path / "v2.sqlite")
    _set_meta(p, "schema_version", "2")
    with pytest.raises(BundleError) as e:
        Bundle.open(p)
    msg = str(e.value)
    assert str(p) in msg and "schema version 2" in msg and f"reads schema version {SCHEMA_VERSION}" in msg


def test_open_bad_schema_version(tmp_path: Path) -> None:
    p = write(tmp_path / "bad.sqlite")
    _set_meta(p, "schema_version", "one")
    with pytest.raises(BundleError, match="no valid schema_version"):
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
        "paraphrases": "phrase, seq",
        "paraphrase_prefixes": "prefix",
        "nonbreaking_prefixes": "prefix",
    }
    sections = [
        ("meta", [r for r in conn.execute("SELECT key, value FROM meta ORDER BY key") if r[0] not in NON_CONTENT_META]),
        ("sources", conn.execute("SELECT name, kind, description, licence, sha256, location FROM sources ORDER BY name")),
    ] + [(t, conn.execute(f"SELECT * FROM {t} ORDER BY {order[t]}")) for t in RESOURCE_TABLES]
    assert [s for s, _ in sections][2:] == list(order)
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


def test_checksum_matches_its_definition_on_awkward_values(tmp_path: Path) -> None:
    awkward = ['quote " and \\ backslash', "tab\there", "nl\nx", "\x00\x1f\x7f", "émoji 😀 ünï", "’", "a" * 300]
    paras = [(s, s[::-1] or "r", p) for s, p in zip(awkward, [0.1 + 0.2, 1e-05, 227.93803293543937, 1.0, 5e-324, 1e300, 0.5])]
    p = write(tmp_path / "b.sqlite", paraphrases=paras)
    c = sqlite3.connect(p)
    with c:
        c.execute("INSERT INTO stems VALUES (?, ?)", ("\\\"", "x\u2028y"))
        c.execute("INSERT INTO synsets VALUES ('big', 9007199254740993)")
        c.execute("INSERT INTO paraphrases VALUES ('zz', 99, 'typed', 'text in a REAL column')")
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
        "UPDATE paraphrases SET prob = 0.75 WHERE phrase = 'x' AND seq = 2",
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
    seqs = bundle._conn.execute("SELECT phrase, seq FROM paraphrases ORDER BY seq").fetchall()
    assert seqs == [(p, i) for i, (p, _, _) in enumerate(PARAPHRASES)]


def test_paraphrase_seq_continues_across_calls(tmp_path: Path) -> None:
    with BundleWriter(tmp_path / "b.sqlite", language="en", name="t", version="1") as w:
        assert w.add_paraphrases([("x", "zeta", 0.1)]) == 1
        assert w.add_paraphrases(iter([("x", "alpha", 0.2), ("y", "b", 0.3)])) == 2
        assert w.add_paraphrases([]) == 0
    with Bundle.open(tmp_path / "b.sqlite") as b:
        assert b.paraphrases(["x"]) == {"x": ["zeta", "alpha"]}
        assert b._conn.execute("SELECT max(seq) FROM paraphrases").fetchone() == (2,)


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
