"""``meteor_lite.atomicfile.atomic_path``: a reader sees the old file or the whole new one."""

from __future__ import annotations

from pathlib import Path

import pytest

from meteor_lite.atomicfile import atomic_path


def test_the_new_file_replaces_the_old_one_when_the_block_ends(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "out.txt"  # the parent is created
    with atomic_path(target) as tmp:
        assert tmp.parent == target.parent and tmp.name.startswith(".out.txt.") and tmp.name.endswith(".tmp")
        tmp.write_text("first", encoding="utf-8")
        assert not target.exists()  # nothing visible before the block ends
    assert target.read_text(encoding="utf-8") == "first"
    with atomic_path(target, ".tmp.gz") as tmp:
        assert tmp.name.endswith(".tmp.gz")
        tmp.write_text("second", encoding="utf-8")
        assert target.read_text(encoding="utf-8") == "first"
    assert target.read_text(encoding="utf-8") == "second"
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError, match="disk full"):
        with atomic_path(target) as tmp:
            tmp.write_text("half", encoding="utf-8")
            raise RuntimeError("disk full")
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(target):  # nothing written yet: nothing to remove
            raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
