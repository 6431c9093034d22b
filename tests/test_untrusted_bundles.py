"""Untrusted bundles: metadata is data, never markup; what is scored is what was verified."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from meteor_lite.printable import is_one_line, one_line
from test_cli import run
from tiny_bundles import make_tiny_bundle

hypothesis = pytest.importorskip("hypothesis", reason="the property tests need hypothesis (the [dev] extra)")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def test_one_line_escapes_line_breaks_and_terminal_controls() -> None:
    assert one_line("tiny\nFinal score: 0.99") == "tiny\\nFinal score: 0.99"
    assert one_line("a\rb\tc\x1b[2J\x7f\x85") == "a\\rb\\tc\\x1b[2J\\x7f\\x85"
    assert one_line("x\u2028y\u2029z\u202eevil") == "x\\u2028y\\u2029z\\u202eevil"
    assert one_line("meteor-1.5-en") == "meteor-1.5-en"  # ordinary names print as before
    assert one_line("Čeština 日本語 العربية") == "Čeština 日本語 العربية"
    assert one_line("\ud800") == "\\ud800"  # a lone surrogate: printable, never a UnicodeEncodeError
    assert is_one_line("CC-BY 4.0") and not is_one_line("CC0\nRequires-Dist: x")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_one_line_never_leaves_a_control_character(value: str) -> None:
    """Property: the result holds no control character, line or paragraph separator, and encodes as UTF-8."""
    out = one_line(value)
    assert not any(unicodedata.category(ch) in ("Cc", "Zl", "Zp", "Cs") for ch in out)
    assert len(out.splitlines()) <= 1
    out.encode("utf-8")
    if all(unicodedata.category(ch) not in ("Cc", "Zl", "Zp", "Cs") and ch not in "\u202a\u202b\u202c\u202d\u202e"
           "\u2066\u2067\u2068\u2069\u200e\u200f\u061c" for ch in value):
        assert out == value


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(min_size=1, max_size=12), version=st.text(min_size=1, max_size=8))
def test_report_keeps_its_lines_whatever_the_bundle_metadata(tmp_path: Path, name: str, version: str) -> None:
    """Fuzzed bundle name/version: the text report has one Signature line and one Final score line, as always."""
    from meteor_lite import Meteor
    from meteor_lite.report import text_report

    bundle = make_tiny_bundle(tmp_path / "fuzz.sqlite", name=name, version=version)
    result = Meteor("en", bundle=bundle, modules=["exact"]).score_corpus(["the cat sat"], [["the cat sat"]])
    lines = text_report(result).splitlines()
    assert sum(ln.startswith("Signature:") for ln in lines) == 1
    assert [ln for ln in lines if ln.startswith("Final score:")] == ["Final score:            1.0"]
    assert len(lines) == len(text_report(Meteor("en", bundle=make_tiny_bundle(tmp_path / "plain.sqlite"),
                                                modules=["exact"]).score_corpus(["the cat sat"], [["the cat sat"]])
                                     ).splitlines())


def test_bundle_list_escapes_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``bundle list`` prints a forged name on its own line, escaped (no ESC reaches the terminal)."""
    d = tmp_path / "bundles"
    make_tiny_bundle(d / "en.sqlite", name="tiny\n* de   fake", version="1\x1b]0;title\x07")
    monkeypatch.setenv("METEOR_LITE_BUNDLE_PATH", str(d))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    import meteor_lite.resources.locate as locate
    import meteor_lite.resources.packs as packs

    monkeypatch.setattr(locate, "_checkout_dir", lambda: None)
    monkeypatch.setattr(packs, "pack_bundles", lambda: [])
    r = run("bundle", "list")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.count("\n") == 1 and "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "tiny\\n* de   fake 1\\x1b]0;title\\x07" in r.stdout


# --------------------------------------------------------------------------------------------------------
# what is scored is what was verified, in every process


def _corpus(n: int = 200) -> "tuple[list[str], list[list[str]]]":
    hyps = [f"the cat {i} sat on a big car" for i in range(n)]
    return hyps, [[f"the cat {i} sat on the mat" for i in range(n)]]  # one reference stream


def _tampered_copy(src: Path, out: Path) -> Path:
    import shutil
    import sqlite3

    shutil.copy(src, out)
    conn = sqlite3.connect(out)
    with conn:
        conn.execute("UPDATE function_words SET word = 'thee' WHERE word = 'the'")
    conn.close()
    return out


@pytest.mark.skipif(not __import__("meteor_lite.parallel").parallel.can_fork(), reason="no fork on this platform")
def test_forked_workers_score_only_the_verified_file(tmp_path: Path) -> None:
    """A bundle renamed over the verified one before the workers start is refused; a deleted one too (no respawn loop)."""
    import os

    from meteor_lite import Meteor
    from meteor_lite.errors import BundleError

    path = make_tiny_bundle(tmp_path / "b.sqlite")
    hyps, refs = _corpus()
    m = Meteor("en", bundle=path, modules=["exact"])
    one = [s.score for s in m.score_corpus(hyps, refs, jobs=1).segments]
    assert [s.score for s in m.score_corpus(hyps, refs, jobs=2).segments] == one
    os.replace(_tampered_copy(path, tmp_path / "t.sqlite"), path)
    with pytest.raises(BundleError, match="the bundle file was replaced or changed during the run"):
        m.score_corpus(hyps, refs, jobs=2)
    assert [s.score for s in m.score_corpus(hyps, refs, jobs=1).segments] == one  # the parent's file, still open
    os.unlink(path)
    with pytest.raises(BundleError, match="bundle not found"):
        m.score_corpus(hyps, refs, jobs=2)


def test_verification_is_remembered_for_the_file_read_not_the_one_renamed_over_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file renamed over the bundle while it is verified is not recorded as verified (the cache keys on the opened file)."""
    import os

    from meteor_lite import Meteor
    from meteor_lite.errors import BundleError
    from meteor_lite.resources.bundle import Bundle

    monkeypatch.setenv("METEOR_LITE_CACHE_DIR", str(tmp_path / "cache"))
    path = make_tiny_bundle(tmp_path / "b.sqlite")
    (tmp_path / "cache" / "verified-bundles.tsv").unlink(missing_ok=True)  # the writer seeds the cache
    tampered = _tampered_copy(path, tmp_path / "t.sqlite")
    real_verify = Bundle.verify

    def verify_then_swap(self: Bundle) -> "list[str]":
        problems = real_verify(self)
        os.replace(tampered, path)  # swapped in after the (good) file was checked
        return problems

    monkeypatch.setattr(Bundle, "verify", verify_then_swap)
    Meteor("en", bundle=path, modules=["exact"])
    monkeypatch.setattr(Bundle, "verify", real_verify)
    with pytest.raises(BundleError, match="content checksum mismatch"):
        Meteor("en", bundle=path, modules=["exact"])


def test_no_language_refused_even_unverified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With verification off, a bundle without a language is still not taken as matching --lang."""
    from meteor_lite import Meteor
    from meteor_lite.errors import ConfigError

    monkeypatch.setenv("METEOR_LITE_VERIFY_BUNDLES", "0")
    path = make_tiny_bundle(tmp_path / "nolang.sqlite", language="")
    with pytest.raises(ConfigError, match="records no language .* cannot be checked against 'de'"):
        Meteor("de", bundle=path, modules=["exact"])
    with pytest.warns(UserWarning, match="records no language; scored as 'de'"):
        Meteor("de", bundle=path, modules=["exact"], allow_other_language=True)


def test_missing_checksum_scores_only_when_verification_is_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil
    import sqlite3

    from meteor_lite import Meteor
    from meteor_lite.errors import BundleError

    path = tmp_path / "nock.sqlite"
    shutil.copy(make_tiny_bundle(tmp_path / "b.sqlite"), path)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DELETE FROM meta WHERE key = 'content_checksum'")
    conn.close()
    with pytest.raises(BundleError, match="records no content checksum"):
        Meteor("en", bundle=path, modules=["exact"])
    monkeypatch.setenv("METEOR_LITE_VERIFY_BUNDLES", "0")
    assert "@nochecks|" in Meteor("en", bundle=path, modules=["exact"]).signature  # (first 8 of "nochecksum")


def test_verification_cache_evicts_small_files_first(tmp_path: Path) -> None:
    """A full cache drops the smallest files' entries, not the oldest: a big bundle stays remembered."""
    from meteor_lite.resources import integrity

    cache = tmp_path / "verified.tsv"
    big = tmp_path / "big.sqlite"
    big.write_bytes(b"x" * 100_000)
    integrity.remember(big, "c" * 64, cache)
    for i in range(integrity.MAX_ENTRIES + 20):
        small = tmp_path / f"s{i}.sqlite"
        small.write_bytes(b"y")
        integrity.remember(small, "d" * 64, cache)
    assert len(cache.read_text().splitlines()) == integrity.MAX_ENTRIES
    assert integrity.is_verified(big, "c" * 64, cache)
    assert integrity.is_verified(tmp_path / f"s{integrity.MAX_ENTRIES + 19}.sqlite", "d" * 64, cache)
