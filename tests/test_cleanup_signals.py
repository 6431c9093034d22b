"""SIGTERM cleans up as Ctrl-C does, and the next run removes what SIGKILL left: ``bundle install`` (a recipe build,
an official import: their ``finally`` clauses run), the first write of a mapped table file, and the files a builder
writes beside an install's ``.part`` file."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from meteor_lite.cli import run as cli_run
from meteor_lite.cli.errors import run_guarded
from meteor_lite.resources import mapped
from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.install import remove_stale_parts


def test_sigterm_during_bundle_install_lang_runs_the_cleanup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build interrupted by SIGTERM: its ``finally`` removes its file, one line, exit 130 (was: exit 143, no word,
    the .part left)."""
    part = tmp_path / ".xx.123.abcd.part"
    before = signal.getsignal(signal.SIGTERM)

    def building(lang: str, **kwargs: Any) -> None:
        part.write_bytes(b"half a bundle")
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            pytest.fail("SIGTERM did not interrupt the build")
        finally:
            part.unlink()

    modules = {"official.release": SimpleNamespace(LANGUAGE_NAMES={"xx": "Nowhere"}),
               "official.user_install": SimpleNamespace(install_official=building)}
    monkeypatch.setattr("meteor_lite.cli.bundles._builders", lambda name, what: modules[name])
    monkeypatch.setattr("meteor_lite.languages.language_alias", lambda source: source)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = run_guarded(cli_run, ["bundle", "install", "xx"])
    assert code == 130 and err.getvalue() == "meteor-lite: error: interrupted: nothing installed\n"
    assert not part.exists() and signal.getsignal(signal.SIGTERM) is before


def test_sigterm_during_the_first_write_of_a_mapped_table_leaves_no_temporary_file(
    tiny_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = mapped._write_table

    def write_then_terminate(*args: Any) -> Any:
        result = real(*args)
        os.kill(os.getpid(), signal.SIGTERM)
        return result

    monkeypatch.setattr(mapped, "_write_table", write_then_terminate)
    monkeypatch.setattr(mapped, "_mac", lambda digest: "0" * 64)  # no key needed to reach the write
    with Bundle.open(tiny_bundle) as b, pytest.raises(KeyboardInterrupt, match="SIGTERM"):
        mapped.open_mapped_tables(b)
    assert sorted(p.name for p in tiny_bundle.parent.iterdir()) == ["tiny.sqlite"]


def test_files_beside_a_part_of_a_killed_install_are_removed_by_the_next(tmp_path: Path) -> None:
    """``..en.<pid>.<random>.part.<pid>.<random>.tmp`` (the builder's file beside an install's .part) and its
    journal: removed once the install's process is gone; those of a live one (this process) stay."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = [f"..en.{dead.pid}.k3j4h5g6.part.{dead.pid}.a1b2c3d4.tmp",
            f"..en.{dead.pid}.k3j4h5g6.part.{dead.pid}.a1b2c3d4.tmp-journal", f".en.{dead.pid}.k3j4h5g6.part"]
    mine = [f"..en.{os.getpid()}.zz99yy88.part.{os.getpid()}.q1w2e3r4.tmp", "en.sqlite", ".en.sqlite.tables"]
    for name in left + mine:
        (tmp_path / name).write_bytes(b"x")
    remove_stale_parts(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(mine)
