"""The suite's own settings: a test that hangs fails with every thread's stack (pytest-timeout, configured in
pyproject.toml) instead of stalling ``make test`` and CI with no word of where it stopped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

STUCK = '''
import threading


def test_waits_forever():
    threading.Event().wait()  # nothing ever sets it
'''


def test_the_suite_has_a_timeout(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.hasplugin("timeout"), "pytest-timeout (the test extra) is not installed"
    assert float(pytestconfig.getini("timeout")) > 0
    assert pytestconfig.getini("timeout_method") == "thread"


def test_a_stuck_test_fails_with_its_stack(tmp_path: Path) -> None:
    """The project's settings with a 2-second timeout: the stuck test is reported with the line it waits on."""
    (tmp_path / "test_stuck.py").write_text(STUCK, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path),
         "-p", "no:cacheprovider", "-p", "no:xdist", "-o", "timeout=2", str(tmp_path / "test_stuck.py")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    text = out.stdout + out.stderr
    assert out.returncode != 0, text
    assert "Timeout" in text and "test_waits_forever" in text and "threading.Event().wait()" in text, text[-3000:]
