"""Pack indexes: ``meteor-build pack --index DIR`` writes a PEP 503 simple repository and a JSON listing that
``pip install --index-url`` and ``meteor-lite bundle install NAME --index URL`` read (served by a local http.server)."""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Iterator

import pytest

from meteor_lite.resources.bundle import Bundle
from meteor_lite_builders.packs import add_to_index
from test_cli import run
from tiny_bundles import make_tiny_bundle


@pytest.fixture()
def index(tmp_path: Path) -> Path:
    idx = tmp_path / "index"
    add_to_index(make_tiny_bundle(tmp_path / "b" / "en.sqlite"), idx)
    add_to_index(make_tiny_bundle(tmp_path / "b" / "de-extra.sqlite", language="de"), idx, version="2.0")
    return idx


@pytest.fixture()
def served(index: Path) -> Iterator[str]:
    """The index served over HTTP on 127.0.0.1 (a free port) while the test runs."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(index))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.RequestHandlerClass.log_message = lambda *a: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_listing_and_pages(index: Path, tmp_path: Path) -> None:
    listing = json.loads((index / "packs.json").read_text())
    assert listing["format"] == 1
    packs = {e["bundle"]: e for e in listing["packs"]}
    assert sorted(packs) == ["de-extra", "en"]
    de = packs["de-extra"]
    assert de["project"] == "meteor-lite-pack-de-extra" and de["version"] == "2.0" and de["language"] == "de"
    wheel = index / de["file"]
    assert wheel.name == "meteor_lite_pack_de_extra-2.0-py3-none-any.whl" and wheel.parent.name == de["project"]
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == de["sha256"] and wheel.stat().st_size == de["size"]
    with Bundle.open(tmp_path / "b" / "de-extra.sqlite") as b:
        assert de["content_checksum"] == b.checksum
    root = (index / "index.html").read_text()
    assert '<a href="meteor-lite-pack-de-extra/">' in root and '<a href="meteor-lite-pack-en/">' in root
    page = (index / de["project"] / "index.html").read_text()
    assert f'<a href="{wheel.name}#sha256={de["sha256"]}">' in page
    # the same project and version again replaces its entry; a new version is added beside it
    add_to_index(tmp_path / "b" / "en.sqlite", index)
    add_to_index(tmp_path / "b" / "en.sqlite", index, version="0.0.2")
    versions = sorted(e["version"] for e in json.loads((index / "packs.json").read_text())["packs"] if e["bundle"] == "en")
    assert versions == ["0.0.1", "0.0.2"]


def test_bundle_install_from_served_index_and_directory(index: Path, served: str, user_dir: Path, tmp_path: Path) -> None:
    r = run("bundle", "install", "de-extra", "--index", served)
    assert r.exit_code == 0, r.stderr
    assert f"downloading {served}meteor-lite-pack-de-extra/" in r.stderr
    with Bundle.open(user_dir / "de-extra.sqlite") as got, Bundle.open(tmp_path / "b" / "de-extra.sqlite") as src:
        assert got.checksum == src.checksum and got.verify() == []
    r = run("bundle", "install", "en", "--index", str(index), "--name", "en-tiny")
    assert r.exit_code == 0, r.stderr
    assert sorted(p.name for p in user_dir.iterdir()) == ["de-extra.sqlite", "en-tiny.sqlite"]
    missing = run("bundle", "install", "fr", "--index", served)
    assert missing.exit_code == 1 and "no pack of bundle 'fr' in this index (it has: de-extra, en)" in missing.stderr
    not_index = run("bundle", "install", "en", "--index", str(tmp_path))
    assert not_index.exit_code == 1 and "cannot read the pack index" in not_index.stderr


def test_a_tampered_wheel_is_refused_and_nothing_is_left(index: Path, served: str, user_dir: Path) -> None:
    listing = json.loads((index / "packs.json").read_text())
    wheel = index / next(e["file"] for e in listing["packs"] if e["bundle"] == "en")
    wheel.write_bytes(wheel.read_bytes()[:-10] + b"0123456789")
    r = run("bundle", "install", "en", "--index", served)
    assert r.exit_code == 1 and "sha256 mismatch" in r.stderr
    assert not user_dir.exists() or list(user_dir.iterdir()) == []


@pytest.mark.parametrize("how", ["file", "http"])
def test_pip_installs_a_pack_by_name(index: Path, served: str, tmp_path: Path, how: str) -> None:
    url = index.resolve().as_uri() if how == "file" else served
    target = tmp_path / "site"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-cache-dir", "--index-url", url,
         "--target", str(target), "meteor-lite-pack-de-extra"],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert (target / "meteor_lite_pack_de_extra" / "de-extra.sqlite").is_file()
    assert (target / "meteor_lite_pack_de_extra-2.0.dist-info" / "entry_points.txt").is_file()


def test_index_installs_keep_the_size_cap_and_clean_stale_parts(index: Path, served: str, user_dir: Path, tmp_path: Path) -> None:
    """--max-size bounds the wheel and the bundle unpacked from it; a killed install's .part is removed by the next."""
    from meteor_lite.resources.index import install_from_index
    from meteor_lite.resources.install import InstallError

    entry = next(e for e in json.loads((index / "packs.json").read_text())["packs"] if e["bundle"] == "en")
    unpacked = (tmp_path / "b" / "en.sqlite").stat().st_size
    assert entry["size"] < unpacked  # the wheel is compressed: a cap between the two stops the unpacking
    with pytest.raises(InstallError, match="unpacks to more than"):
        install_from_index("en", served, dest_dir=user_dir, max_bytes=entry["size"] + 1)
    assert list(user_dir.iterdir()) == []
    r = run("bundle", "install", "en", "--index", served, "--max-size", "0.0001")
    assert r.exit_code == 1 and "size cap" in r.stderr, r.stderr
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    stale = user_dir / f".en.whl.{dead}.abc123.part"
    stale.write_bytes(b"left by a killed install")
    r = run("bundle", "install", "en", "--index", served)
    assert r.exit_code == 0, r.stderr
    assert sorted(p.name for p in user_dir.iterdir()) == ["en.sqlite"]
