"""``meteor-lite bundle install|remove|list`` against a local HTTP server (127.0.0.1, port 0): no network."""

from __future__ import annotations

import hashlib
import http.server
import lzma
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, Iterator, Optional, Tuple

import pytest

from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.install import InstallError, install_bundle
from test_cli import run
from tiny_bundles import make_tiny_bundle

#: URL path -> (body, Content-Length to announce: None for the body's own length; -2: redirect to the body's URL;
#: -3: a trickle, one byte at a time; -4: an endless body).
Routes = Dict[str, Tuple[bytes, Optional[int]]]


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: Routes = {}

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        body, announced = self.routes.get(self.path, (b"", -1))
        if announced == -2:  # a redirect to the URL in the body
            self.send_response(302)
            self.send_header("Location", body.decode())
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if announced == -1:
            self.send_error(404, "not found")
            return
        if announced in (-3, -4):  # -3: one byte every 0.3 s of 1000 announced; -4: an endless body, no length
            self.send_response(200)
            if announced == -3:
                self.send_header("Content-Length", "1000")
            self.end_headers()
            try:
                for _ in range(1000 if announced == -3 else 10**6):
                    self.wfile.write(b"x" if announced == -3 else b"\0" * 65536)
                    self.wfile.flush()
                    if announced == -3:
                        time.sleep(0.3)
            except OSError:  # the client has gone
                pass
            self.close_connection = True
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body) if announced is None else announced))
        self.end_headers()
        self.wfile.write(body)  # fewer bytes than announced: a truncated transfer
        self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[Tuple[str, Routes]]:
    routes: Routes = {}
    handler = type("Handler", (_Handler,), {"routes": routes})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", routes
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture()
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user bundle directory ($XDG_DATA_HOME/meteor-lite/bundles) and no other bundles."""
    import meteor_lite.resources.locate as locate
    import meteor_lite.resources.packs as packs

    monkeypatch.delenv("METEOR_LITE_BUNDLE_PATH", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(locate, "_checkout_dir", lambda: None)
    monkeypatch.setattr(packs, "pack_bundles", lambda: [])
    return tmp_path / "xdg" / "meteor-lite" / "bundles"


@pytest.fixture()
def tiny(tmp_path: Path) -> bytes:
    return make_tiny_bundle(tmp_path / "src" / "tiny.sqlite").read_bytes()


def leftovers(d: Path) -> list:
    return sorted(p.name for p in d.iterdir()) if d.is_dir() else []


def test_install_good_file_with_sha256_then_list_and_remove(server, user_dir: Path, tiny: bytes) -> None:
    url, routes = server
    routes["/en.sqlite"] = (tiny, None)
    r = run("bundle", "install", f"{url}/en.sqlite", "--sha256", hashlib.sha256(tiny).hexdigest())
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith(f"installed {user_dir / 'en.sqlite'} (tiny 0.0.1 @")
    assert leftovers(user_dir) == ["en.sqlite"]
    with Bundle.open(user_dir / "en.sqlite") as b:
        assert b.verify() == []
    listed = run("bundle", "list")
    assert listed.stdout.startswith("* en ") and "[user dir]" in listed.stdout
    again = run("bundle", "install", f"{url}/en.sqlite")
    assert again.exit_code == 0 and again.stdout.startswith("replaced ")
    removed = run("bundle", "remove", "en")
    assert removed.exit_code == 0 and removed.stdout.strip() == f"removed {user_dir / 'en.sqlite'}"
    assert leftovers(user_dir) == []
    missing = run("bundle", "remove", "en")
    assert missing.exit_code == 1 and "no bundle 'en' in the user bundle directory" in missing.stderr


def test_wrong_sha256(server, user_dir: Path, tiny: bytes) -> None:
    url, routes = server
    routes["/en.sqlite"] = (tiny, None)
    r = run("bundle", "install", f"{url}/en.sqlite", "--sha256", "0" * 64)
    assert r.exit_code == 1 and "sha256 mismatch" in r.stderr and len(r.stderr.splitlines()) == 1
    assert leftovers(user_dir) == []


def test_truncated_transfer(server, user_dir: Path, tiny: bytes) -> None:
    url, routes = server
    routes["/en.sqlite"] = (tiny[: len(tiny) // 2], len(tiny))
    r = run("bundle", "install", f"{url}/en.sqlite")
    assert r.exit_code == 1 and "truncated transfer" in r.stderr and len(r.stderr.splitlines()) == 1
    assert leftovers(user_dir) == []


def test_not_a_bundle(server, user_dir: Path) -> None:
    url, routes = server
    routes["/en.sqlite"] = (b"<html>not a bundle</html>\n" * 50, None)
    r = run("bundle", "install", f"{url}/en.sqlite")
    assert r.exit_code == 1 and "not a usable bundle" in r.stderr and len(r.stderr.splitlines()) == 1
    assert leftovers(user_dir) == []
    routes["/gone.sqlite"] = (b"", -1)
    r404 = run("bundle", "install", f"{url}/gone.sqlite")
    assert r404.exit_code == 1 and "HTTP 404" in r404.stderr and leftovers(user_dir) == []


def test_xz_file_and_truncated_xz(server, user_dir: Path, tiny: bytes) -> None:
    url, routes = server
    packed = lzma.compress(tiny)
    routes["/en.sqlite.xz"] = (packed, None)
    routes["/cut.sqlite.xz"] = (packed[: len(packed) // 2], None)  # the server itself sends a short file
    r = run("bundle", "install", f"{url}/en.sqlite.xz", "--sha256", hashlib.sha256(packed).hexdigest())
    assert r.exit_code == 0, r.stderr
    assert (user_dir / "en.sqlite").read_bytes() == tiny
    cut = run("bundle", "install", f"{url}/cut.sqlite.xz")
    assert cut.exit_code == 1 and "ends early" in cut.stderr
    assert leftovers(user_dir) == ["en.sqlite"]


def test_content_checksum_is_verified(tmp_path: Path, user_dir: Path) -> None:
    import sqlite3

    bad = make_tiny_bundle(tmp_path / "bad.sqlite")
    with sqlite3.connect(bad) as conn:
        conn.execute("UPDATE meta SET value = 'deadbeef' WHERE key = 'content_checksum'")
    r = run("bundle", "install", str(bad), "--name", "en")
    assert r.exit_code == 1 and "content checksum mismatch" in r.stderr
    assert leftovers(user_dir) == []


def test_install_from_path_zst_and_full_disk(tmp_path: Path, user_dir: Path, tiny: bytes, monkeypatch) -> None:
    src = tmp_path / "de-extra.sqlite"
    src.write_bytes(tiny)
    r = run("bundle", "install", str(src))
    assert r.exit_code == 0 and (user_dir / "de-extra.sqlite").is_file()
    zst = tmp_path / "x.sqlite.zst"
    zst.write_bytes(b"\x28\xb5\x2f\xfd" + b"\0" * 32)
    try:
        import zstandard  # noqa: F401
    except ImportError:
        z = run("bundle", "install", str(zst))
        assert z.exit_code == 1 and "'zstandard' module" in z.stderr
    import os as _os

    def full(*args: object, **kw: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_os, "fsync", full)
    with pytest.raises(InstallError, match="No space left on device"):
        install_bundle(str(src), name="disk")
    assert leftovers(user_dir) == ["de-extra.sqlite"]


def test_redirect_only_to_http(server, user_dir: Path, tiny: bytes) -> None:
    """A redirect to another http URL is followed; one to ftp:// (or file://) is refused in one line, nothing left."""
    url, routes = server
    routes["/en.sqlite"] = (tiny, None)
    routes["/moved.sqlite"] = (f"{url}/en.sqlite".encode(), -2)
    routes["/ftp.sqlite"] = (b"ftp://127.0.0.1/en.sqlite", -2)
    ok = run("bundle", "install", f"{url}/moved.sqlite", "--name", "en")
    assert ok.exit_code == 0, ok.stderr
    assert leftovers(user_dir) == ["en.sqlite"]
    bad = run("bundle", "install", f"{url}/ftp.sqlite")
    assert bad.exit_code == 1 and len(bad.stderr.splitlines()) == 1, bad.stderr
    assert "redirects to 'ftp://127.0.0.1/en.sqlite': only http and https redirects are followed" in bad.stderr
    assert leftovers(user_dir) == ["en.sqlite"]


def test_redirect_loop_is_one_line(server, user_dir: Path) -> None:
    """A server whose redirects loop (urllib's own error is three lines): one line naming the URL, nothing left."""
    url, routes = server
    routes["/loop-a.sqlite"] = (f"{url}/loop-b.sqlite".encode(), -2)
    routes["/loop-b.sqlite"] = (f"{url}/loop-a.sqlite".encode(), -2)
    r = run("bundle", "install", f"{url}/loop-a.sqlite")
    assert r.exit_code == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"meteor-lite: error: {url}/loop-a.sqlite: the server's redirects loop or are too many "
                               f"(more than 10; the last one: HTTP 302 to '{url}/loop-b.sqlite')"), r.stderr
    assert leftovers(user_dir) == []


def test_url_fragment_and_query_do_not_name_the_bundle(server, user_dir: Path, tiny: bytes) -> None:
    """``.../en.sqlite#frag`` and ``.../en.sqlite?x=1#frag`` install as en.sqlite."""
    from meteor_lite.resources.install import bundle_name_from_source

    assert bundle_name_from_source("https://h/p/en.sqlite.xz?x=1#frag") == "en"
    assert bundle_name_from_source("https://h/p/de.sqlite#a/b") == "de"
    url, routes = server
    routes["/en.sqlite"] = (tiny, None)
    r = run("bundle", "install", f"{url}/en.sqlite#frag")
    assert r.exit_code == 0, r.stderr
    assert leftovers(user_dir) == ["en.sqlite"]


def test_deadline(server, user_dir: Path) -> None:
    """A server trickling one byte every 0.3 s: stopped at the deadline (--timeout 2), one line, nothing left."""
    url, routes = server
    routes["/slow.sqlite"] = (b"", -3)
    start = time.monotonic()
    r = run("bundle", "install", f"{url}/slow.sqlite", "--timeout", "2")
    assert time.monotonic() - start < 8
    assert r.exit_code == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "the download took longer than its deadline of 2 s" in r.stderr
    assert leftovers(user_dir) == []


def test_size_caps(server, user_dir: Path, tiny: bytes) -> None:
    """An endless body stops at the size cap; a Content-Length above it is refused before reading; nothing left."""
    url, routes = server
    routes["/endless.sqlite"] = (b"", -4)
    r = run("bundle", "install", f"{url}/endless.sqlite", "--max-size", "5")
    assert r.exit_code == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "larger than the size cap of 5000000 bytes (received); raise it with --max-size" in r.stderr
    routes["/huge.sqlite"] = (tiny, 10**12)
    r = run("bundle", "install", f"{url}/huge.sqlite", "--max-size", "5")
    assert r.exit_code == 1 and "announces 1000000000000 bytes, more than the size cap of 5000000 bytes" in r.stderr
    assert leftovers(user_dir) == []


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak memory from /proc (Linux)")
def test_xz_bomb_in_bounded_memory(tmp_path: Path) -> None:
    """A 300 MB expansion of a small .xz file is decompressed a mebibyte at a time: peak memory far below it."""
    bomb = tmp_path / "bomb.sqlite.xz"
    comp = lzma.LZMACompressor()
    with bomb.open("wb") as f:
        for _ in range(300):
            f.write(comp.compress(b"\0" * 1_000_000))
        f.write(comp.flush())
    assert bomb.stat().st_size < 200_000
    child = (
        "import sys\n"
        "from meteor_lite.resources.install import InstallError, install_bundle\n"
        "try:\n"
        "    install_bundle(sys.argv[1], dest_dir=sys.argv[2])\n"
        "except InstallError as exc:\n"
        "    print(exc, file=sys.stderr)\n"
        # VmHWM: this process's peak resident memory in KiB (ru_maxrss would include the forking pytest's)
        "print(next(ln.split()[1] for ln in open('/proc/self/status') if ln.startswith('VmHWM:')))\n"
    )
    out = subprocess.run([sys.executable, "-c", child, str(bomb), str(tmp_path / "dest")], capture_output=True,
                         text=True, timeout=300)
    assert "not a usable bundle" in out.stderr, out.stderr
    assert int(out.stdout.strip()) < 150_000, f"peak memory {out.stdout.strip()} KiB"
    assert leftovers(tmp_path / "dest") == []


def test_killed_install_part_removed_by_the_next(server, user_dir: Path, tiny: bytes) -> None:
    """The .part of an install killed outright (its process gone) is removed by the next install; a live one stays."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    user_dir.mkdir(parents=True)
    stale = user_dir / f".en.{dead.pid}.ab12cd34.part"
    live = user_dir / f".de.{os.getppid()}.ef56gh78.part"
    stale.write_bytes(b"partial")
    live.write_bytes(b"partial")
    url, routes = server
    routes["/en.sqlite"] = (tiny, None)
    r = run("bundle", "install", f"{url}/en.sqlite")
    assert r.exit_code == 0, r.stderr
    assert leftovers(user_dir) == [live.name, "en.sqlite"]
