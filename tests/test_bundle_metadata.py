"""A bundle's metadata is read by one checked reader (``meteor_lite/resources/metadata.py``):
whatever its meta table holds, opening the bundle either works, and then every consumer of the metadata
works, or raises :class:`BundleError` naming the bundle and the key; never another exception."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Optional, Union

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meteor_lite.errors import BundleError
from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.metadata import INTEGER_KEYS, JSON_OBJECT_KEYS
from tiny_bundles import make_tiny_bundle

Value = Union[None, str, bytes, int, float]

_json_texts = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
).map(lambda v: __import__("json").dumps(v))

_values = st.one_of(
    st.none(), st.binary(max_size=8), st.integers(-5, 10**12), st.floats(allow_nan=True),
    st.text(max_size=12), _json_texts,
    st.sampled_from(["{", "[" * 5000, "{\"language\": 1}", "2", "-1", "٣", "{}", ""]),
)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("meta") / "base.sqlite"
    make_tiny_bundle(out)
    conn = sqlite3.connect(out)  # a meta table without NOT NULL / TEXT affinity: any value can be stored
    with conn:
        for sql in ("CREATE TABLE m2 (key PRIMARY KEY, value) WITHOUT ROWID", "INSERT INTO m2 SELECT * FROM meta",
                    "DROP TABLE meta", "ALTER TABLE m2 RENAME TO meta"):
            conn.execute(sql)
    conn.close()
    return out


def _with_meta(base: Path, out: Path, key: str, value: Value) -> Path:
    shutil.copy(base, out)
    conn = sqlite3.connect(out)
    with conn:
        conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
    conn.close()
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from([*JSON_OBJECT_KEYS, *INTEGER_KEYS, "name", "language", "version"]), value=_values)
def test_any_metadata_opens_cleanly_or_is_refused_by_key(base: Path, tmp_path: Path, key: str, value: Value) -> None:
    path = _with_meta(base, tmp_path / "b.sqlite", key, value)
    try:
        bundle: Optional[Bundle] = Bundle.open(path)
    except BundleError as exc:
        message = str(exc)
        assert message.startswith(f"{path}: ") and "\n" not in message
        if "bad bundle metadata" in message:
            assert f"meta {key!r}" in message
        return
    assert bundle is not None
    with bundle:
        info = bundle.info()  # every consumer of the metadata
        assert isinstance(info["build_params"], dict) and isinstance(bundle.tasks_json, dict)
        stemmer = bundle.stemmer
        assert stemmer is None or all(isinstance(stemmer.get(f, ""), str) for f in ("language", "package", "version"))
        assert bundle.paraphrase_max_length() >= 0
        assert isinstance(bundle.name, str) and isinstance(bundle.version, str)


def test_a_meta_key_that_is_not_text(base: Path, tmp_path: Path) -> None:
    path = tmp_path / "b.sqlite"
    shutil.copy(base, path)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT INTO meta VALUES (x'00', 'x')")
    conn.close()
    with pytest.raises(BundleError, match=r"b\.sqlite: bad bundle metadata: a meta key is a BLOB, not text$"):
        Bundle.open(path)


def test_wal_bundle_named_even_where_sqlite_cannot_open_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A WAL-mode bundle in a read-only directory: SQLite itself could only say "unable to open database
    file" (it cannot create the ``-shm`` file there); the bundle is refused as WAL before SQLite opens it."""
    path = make_tiny_bundle(tmp_path / "wal.sqlite")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()

    def unable(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("unable to open database file")  # what SQLite says in a read-only directory

    monkeypatch.setattr(sqlite3, "connect", unable)
    with pytest.raises(BundleError, match=rf"^{path}: the bundle is in SQLite's WAL journal mode"):
        Bundle.open(path)
