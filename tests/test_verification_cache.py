"""An unwritable cache directory: verifications are remembered in a private per-user directory of
the temporary directory, with one warning naming both and METEOR_LITE_CACHE_DIR; never silently re-verified."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from meteor_lite.errors import MeteorLiteWarning
from meteor_lite.resources import integrity
from tiny_bundles import make_tiny_bundle

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX users and file modes")


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    """A tiny bundle, written (and remembered by its writer) before the cache becomes unwritable."""
    return make_tiny_bundle(tmp_path / "b.sqlite")


@pytest.fixture()
def unwritable(bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """METEOR_LITE_CACHE_DIR under a regular file (unwritable even for root); the temp dir a fresh one."""
    (tmp_path / "a-file").write_text("x")
    monkeypatch.setenv(integrity.ENV_CACHE_DIR, str(tmp_path / "a-file" / "cache"))
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    return temp


def _verify_count(bundle: Path) -> int:
    """Verify ``bundle`` through the cache; 1 when it was verified, 0 when remembered."""
    from meteor_lite.resources.bundle import Bundle

    calls = []
    with Bundle.open(bundle) as b:
        def verify() -> "list[str]":
            calls.append(1)
            return b.verify()

        integrity.ensure_verified(b.path, b.checksum, verify, identity=b.identity)
    return len(calls)


def test_unwritable_cache_dir_falls_back_with_one_warning(unwritable: Path, bundle: Path, tmp_path: Path) -> None:
    with pytest.warns(MeteorLiteWarning) as caught:
        assert _verify_count(bundle) == 1
    (message,) = [str(w.message) for w in caught]
    fallback = unwritable / f"meteor-lite-{os.getuid()}"
    assert "cannot write the cache of verified bundles" in message and str(tmp_path / "a-file") in message
    assert f"remembered in {fallback} instead" in message and "METEOR_LITE_CACHE_DIR" in message
    assert (fallback.stat().st_mode & 0o777) == 0o700
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the next run: no warning, no verification
        assert _verify_count(bundle) == 0


def test_fallback_writable_by_others_is_not_trusted(unwritable: Path, bundle: Path) -> None:
    """A fallback directory that others can write (planted entries would skip verification) is never read
    nor written: every run verifies again, and says so."""
    fallback = unwritable / f"meteor-lite-{os.getuid()}"
    fallback.mkdir()
    os.chmod(fallback, 0o777)
    with pytest.warns(MeteorLiteWarning, match="so every run verifies its bundles again .*METEOR_LITE_CACHE_DIR"):
        assert _verify_count(bundle) == 1
    with pytest.warns(MeteorLiteWarning):
        assert _verify_count(bundle) == 1
    assert integrity.fallback_cache_file() is None


def test_cli_run_says_it_once(unwritable: Path, bundle: Path, tmp_path: Path) -> None:
    """Through the command line: one warning line on the run that verified, none on the next."""
    from test_cli import run

    (tmp_path / "h.txt").write_text("a cat\n")
    first = run("score", str(tmp_path / "h.txt"), str(tmp_path / "h.txt"), "--bundle", str(bundle), "-m", "exact", "-q")
    assert first.exit_code == 0, first.stderr
    warnings = [line for line in first.stderr.splitlines() if "warning:" in line]
    assert len(warnings) == 1 and "cache of verified bundles" in warnings[0], first.stderr
    again = run("score", str(tmp_path / "h.txt"), str(tmp_path / "h.txt"), "--bundle", str(bundle), "-m", "exact", "-q")
    assert again.exit_code == 0 and "warning:" not in again.stderr, again.stderr
