"""Hostile inputs below the command line: the bounded URL reader, listing entries, the keyed verification cache, the
builders' budgets and the stream line counts (the command-line cases are rows of tests/test_bad_inputs.py)."""

from __future__ import annotations

import io
import os
import signal
import stat
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from hostile_server import serve
from meteor_lite.errors import InputError
from meteor_lite.resources.fetch import Fetch, InstallError, Terminated, interrupt_on_sigterm


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve() as base:
        yield base


def _read(fetch_url: str, **kw: float) -> bytes:
    opts = {"deadline": 30.0, "max_bytes": 10_000_000, **kw}
    with Fetch(fetch_url, deadline=opts["deadline"], stall=opts.get("stall", 15.0), max_bytes=int(opts["max_bytes"])) as f:
        return b"".join(f.chunks())


def test_deadline_covers_the_headers(url: str) -> None:
    """Headers trickled a byte every 0.5 s never trip the stall limit; the overall deadline stops them."""
    start = time.monotonic()
    with pytest.raises(InstallError, match=r"header-trickle/x: the download took longer than its deadline of 2 s"):
        _read(f"{url}/header-trickle/x", deadline=2)
    assert time.monotonic() - start < 12


def test_stall_limit_and_size_cap(url: str) -> None:
    with pytest.raises(InstallError, match=r"no data for 1 s \(the stall limit\) after 1 bytes$"):
        _read(f"{url}/stall/x", stall=1)
    with pytest.raises(InstallError, match=r"larger than the size cap of 1000000 bytes \(received\)"):
        _read(f"{url}/endless/x", max_bytes=1_000_000)
    with pytest.raises(InstallError, match=r"announces 400000000 bytes, more than the size cap"):
        _read(f"{url}/huge/x")


def test_only_http_https_and_file(url: str, tmp_path: Path) -> None:
    with pytest.raises(InstallError, match=r"only http, https and file URLs are read"):
        Fetch("ftp://127.0.0.1/x", deadline=1, max_bytes=1)
    with pytest.raises(InstallError, match=r"only http and https redirects are followed"):
        _read(f"{url}/redirect-ftp/packs.json")
    f = tmp_path / "a.bin"
    f.write_bytes(b"abc")
    assert _read(f.as_uri()) == b"abc"


def test_sigterm_becomes_an_interruption_and_the_handler_is_restored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Terminated), interrupt_on_sigterm():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    assert isinstance(Terminated(), KeyboardInterrupt)
    assert signal.getsignal(signal.SIGTERM) is before


def test_listing_entries_checked_field_by_field() -> None:
    from meteor_lite.resources.index import check_entry

    good = {"project": "meteor-lite-pack-en", "bundle": "en", "version": "1.0.0", "file": "p/x.whl",
            "sha256": "0" * 64, "size": 10, "language": "en", "content_checksum": "ab" * 32}
    assert check_entry(dict(good), "e") == good
    for key, bad in (("file", "../x.whl"), ("file", "/etc/passwd"), ("file", "x\n.whl"), ("size", True), ("size", -1),
                     ("size", "10"), ("version", "1" * 101), ("sha256", "0" * 63), ("language", "e\u202en"),
                     ("bundle", ["en"])):
        with pytest.raises(InstallError, match=f"field '{key}'"):
            check_entry({**good, key: bad}, "e")
    with pytest.raises(InstallError, match="lacks size"):
        check_entry({k: v for k, v in good.items() if k != "size"}, "e")


def test_cache_lines_need_the_users_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A line is believed only with its MAC under the key kept outside the cache directory."""
    import meteor_lite.resources.integrity as integrity

    monkeypatch.setenv(integrity.ENV_KEY_FILE, str(tmp_path / "keydir" / "key"))
    monkeypatch.setattr(integrity, "_keys", {})
    cache = tmp_path / "cache" / "verified.tsv"
    bundle = tmp_path / "b.sqlite"
    bundle.write_bytes(b"x")
    body = "\t".join([*(str(x) for x in integrity.file_identity(bundle)), "c" * 64])
    cache.parent.mkdir()
    cache.write_text(f"{body}\n{body}\t{'0' * 32}\n")
    assert not integrity.is_verified(bundle, "c" * 64, cache)
    integrity.remember(bundle, "c" * 64, cache)
    assert integrity.is_verified(bundle, "c" * 64, cache)
    key = tmp_path / "keydir" / "key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    os.chmod(key, 0o644)  # a key others can read is not used: nothing is believed
    monkeypatch.setattr(integrity, "_keys", {})
    assert not integrity.is_verified(bundle, "c" * 64, cache)


def test_mythes_line_over_the_member_budget_is_skipped(tmp_path: Path) -> None:
    from meteor_lite_builders.synonyms.mythes import MAX_LINE_MEMBERS, read_mythes

    dat = tmp_path / "th.dat"
    many = "|".join(f"w{i}" for i in range(MAX_LINE_MEMBERS + 1))
    dat.write_text(f"UTF-8\nbig|1\n-|{many}\ncar|1\n-|auto|automobile|auto\n", encoding="utf-8")
    t = read_mythes(dat, "en", show_progress=False)
    assert t.counts["lines_over_budget"] == 1
    assert [m.members for m in t.meanings] == [(("car",), ("auto",), ("automobile",))]


def test_hunspell_budget_checked_as_forms_are_made(tmp_path: Path) -> None:
    from meteor_lite_builders.errors import MalformedSourceError, SourceError
    from meteor_lite_builders.lexical.hunspell import expand_hunspell

    (tmp_path / "d.aff").write_text("SET UTF-8\nSFX S Y 3\nSFX S 0 a .\nSFX S 0 b .\nSFX S 0 c .\n")
    (tmp_path / "d.dic").write_text("2\nx/S\ny/S\n")
    assert len(expand_hunspell(tmp_path / "d.dic")[0]) == 8
    with pytest.raises(MalformedSourceError, match=r"d\.dic, line 2: root 'x' gives more than 2 forms"):
        expand_hunspell(tmp_path / "d.dic", max_per_root=2)
    with pytest.raises(SourceError, match=r"more than 5 forms after 2 roots"):
        expand_hunspell(tmp_path / "d.dic", max_forms=5)
    (tmp_path / "d.dic").write_text("x/S\n")
    with pytest.raises(MalformedSourceError, match=r"d\.dic, line 1: the first line of a \.dic file is its number"):
        expand_hunspell(tmp_path / "d.dic")


def test_stdin_read_one_line_past_the_references(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An endless hypothesis stream against a 3-line reference file: four lines read, then the error."""
    from meteor_lite.text.io import SegmentReader

    class Endless(io.RawIOBase):
        lines = 0

        def readable(self) -> bool:
            return True

        def readinto(self, b: "bytearray | memoryview") -> int:  # type: ignore[override]
            Endless.lines += 1
            data = b"a b\n"
            b[: len(data)] = data
            return len(data)

    class Stdin:
        buffer = io.BufferedReader(Endless(), buffer_size=4)

    monkeypatch.setattr(sys, "stdin", Stdin)
    ref = tmp_path / "r3.txt"
    ref.write_text("one\ntwo\nthree\n")
    with pytest.raises(InputError, match=r"3 lines, but the hypotheses \(<stdin>\) have more \(reading stopped at their "
                                         r"line 4\)$"):
        for _ in SegmentReader("-", [str(ref)]):
            pass
    assert Endless.lines < 10
