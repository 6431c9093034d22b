"""``meteor_lite.atomicfile``: a reader sees the old file or the whole new one; ``output_file`` writes only regular
files, never over a device, a FIFO, a link or an input."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from meteor_lite.atomicfile import OutputRefused, atomic_path, output_file, temp_path


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


# -- output_file: the one writer of the files a user names ----------------------------------------------------------


def test_output_file_writes_a_new_or_regular_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "out.tsv"
    with output_file(str(target)) as out:
        out.write("a\n")
    assert target.read_text() == "a\n"
    with output_file(str(target)) as out:
        out.write("b\n")
    assert target.read_text() == "b\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.tsv"]


@pytest.mark.parametrize("kind", ["fifo", "symlink", "device", "directory"])
def test_output_file_never_replaces_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    """A FIFO, a symbolic link (even to a regular file), a device, a directory: refused, left as they were."""
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    target = tmp_path / "out"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink":
        target.symlink_to(victim)
    elif kind == "directory":
        target.mkdir()
    else:
        target = Path(os.devnull)
    before = os.lstat(target)
    with pytest.raises(OutputRefused, match="not a regular file: only regular files are written"):
        with output_file(str(target)) as out:
            out.write("x\n")
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert victim.read_text() == "keep\n"


def test_output_file_never_overwrites_an_input(tmp_path: Path) -> None:
    data = tmp_path / "in.tsv"
    data.write_text("input\n")
    link = tmp_path / "hard"
    os.link(data, link)  # another name of the same file
    for name in (data, link):
        with pytest.raises(OutputRefused, match="is an input of this run"):
            with output_file(str(name), inputs=[str(data)]) as out:
                out.write("x\n")
    assert data.read_text() == "input\n"


def test_output_file_dash_is_standard_output(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with output_file("-") as out:
        out.write("to stdout\n")
    assert capsys.readouterr().out == "to stdout\n" and not (tmp_path / "-").exists()


def test_output_file_does_not_follow_a_link_planted_at_its_temporary_name(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    target = tmp_path / "out"
    planted = temp_path(target)
    assert planted.parent == tmp_path and planted.name.startswith(f".out.{os.getpid()}.")
    planted.symlink_to(victim)
    with output_file(str(target)) as out:
        out.write("new\n")
    assert victim.read_text() == "keep\n" and target.read_text() == "new\n"


def test_output_file_leaves_nothing_when_the_writer_fails(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with output_file(str(target)) as out:
            out.write("half")
            raise RuntimeError("stop")
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_two_threads_writing_one_target_at_once_each_write_their_own_file(tmp_path: Path) -> None:
    """Two threads inside ``atomic_path`` of the same target at the same time (a bundle's mapped tables first
    used by two threads): each writes its own temporary file, both renames succeed, the target is one whole copy."""
    import threading

    target = tmp_path / "tables"
    inside = threading.Barrier(2)
    temps: list = []
    errors: list = []

    def write(text: str) -> None:
        try:
            with atomic_path(target) as tmp:
                temps.append(tmp)
                with open(tmp, "w") as f:
                    f.write(text[: len(text) // 2])
                    inside.wait(timeout=30)  # both threads hold their temporary file open, half written
                    f.write(text[len(text) // 2:])
                inside.wait(timeout=30)  # and both close it before either renames
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(c * 1000,)) for c in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(temps)) == 2
    assert target.read_text() in ("a" * 1000, "b" * 1000)
    assert [p.name for p in tmp_path.iterdir()] == ["tables"]
