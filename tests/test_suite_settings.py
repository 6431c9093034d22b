"""The suite's own settings: a test that hangs has every thread's stack printed (faulthandler_timeout) and then
fails (pytest-timeout), both configured in pyproject.toml, instead of stalling ``make test`` and CI with no word of
where it stopped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

ROOT = Path(__file__).resolve().parent.parent

STUCK = '''
import threading


def test_waits_forever():
    threading.Event().wait()  # nothing ever sets it
'''


def test_the_suite_has_a_timeout(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.hasplugin("timeout"), "pytest-timeout (the test extra) is not installed"
    assert 0 < float(pytestconfig.getini("faulthandler_timeout")) < float(pytestconfig.getini("timeout"))
    assert pytestconfig.getini("timeout_method") == "thread"


@pytest.mark.parametrize("workers", [[], ["-n", "1"]], ids=["one-process", "xdist-worker"])
def test_a_stuck_test_fails_with_its_stack(tmp_path: Path, workers: List[str]) -> None:
    """The project's settings with the stack printed at 2 seconds and the test ended at 4: the stack names the line
    the stuck test waits on, also in a pytest-xdist worker (as make test runs), where the run names the test."""
    (tmp_path / "test_stuck.py").write_text(STUCK, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path),
         "-p", "no:cacheprovider", "-o", "faulthandler_timeout=2", "-o", "timeout=4", *workers,
         str(tmp_path / "test_stuck.py")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    text = out.stdout + out.stderr
    assert out.returncode != 0, text
    assert 'test_stuck.py", line 6 in test_waits_forever' in text, text[-3000:]  # faulthandler's stack
    if workers:  # the worker ended, the run goes on and names the test (in one process, the run ends there)
        assert "FAILED test_stuck.py::test_waits_forever" in text, text[-3000:]
