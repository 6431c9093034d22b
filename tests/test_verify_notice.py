"""A first-use bundle verification that takes more than a second says what is happening; a quick one says nothing."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import List

import pytest

from meteor_lite.resources import integrity


def test_slow_verification_is_announced_once(tmp_path: Path, tiny_bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    said: List[str] = []
    monkeypatch.setattr(integrity, "SLOW_NOTICE_SECONDS", 0.05)
    monkeypatch.setattr(integrity, "_notice", said.append)
    cache = tmp_path / "verified.tsv"

    def slow() -> List[str]:
        time.sleep(0.5)
        return []

    integrity.ensure_verified(tiny_bundle, "abc", slow, cache)
    assert len(said) == 1 and said[0].startswith(f"verifying {tiny_bundle} (first use of this file")
    integrity.ensure_verified(tiny_bundle, "abc", slow, cache)  # remembered: no verification, no notice
    assert len(said) == 1


def test_quick_verification_says_nothing(tmp_path: Path, tiny_bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    said: List[str] = []
    monkeypatch.setattr(integrity, "_notice", said.append)
    integrity.ensure_verified(tiny_bundle, "abc", lambda: [], tmp_path / "verified.tsv")
    time.sleep(integrity.SLOW_NOTICE_SECONDS + 0.2)  # the cancelled timer never fires
    assert said == []


def test_without_a_notice_it_is_logged(tmp_path: Path, tiny_bundle: Path, monkeypatch: pytest.MonkeyPatch,
                                       caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(integrity, "SLOW_NOTICE_SECONDS", 0.05)
    monkeypatch.setattr(integrity, "_notice", None)
    with caplog.at_level(logging.INFO, logger=integrity.__name__):
        integrity.ensure_verified(tiny_bundle, "abc", lambda: time.sleep(0.4) or [], tmp_path / "verified.tsv")
    assert any("first use of this file" in r.getMessage() for r in caplog.records)
