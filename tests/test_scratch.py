"""Scratch files live where the next run cleans them: ``meteor-jar -s/-d/-a/-new``'s bundle and
``meteor-build import-official``'s word list for its stemming worker, after SIGTERM and after SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List

import pytest

from meteor_lite.scratch import remove_stale, scratch_dir, scratch_file

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX processes and signals")


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _entries(d: Path, prefix: str) -> List[str]:
    return sorted(p.name for p in d.iterdir() if p.name.startswith(prefix))


def test_remove_stale_keeps_the_living(tmp_path: Path) -> None:
    """Entries of dead processes go (files and directories); this process's, a live one's, a locked one's,
    another prefix's and an unnamed one stay."""
    import fcntl

    dead = _dead_pid()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / f"x-{dead}.a1.json").write_text("[]")
        (tmp_path / f"x-{dead}.b2").mkdir()
        (tmp_path / f"x-{dead}.b2" / "bundle.sqlite").write_bytes(b"0" * 1000)
        (tmp_path / f"x-{live.pid}.c3.json").write_text("[]")
        (tmp_path / f"x-{os.getpid()}.d4.json").write_text("[]")
        (tmp_path / f"y-{dead}.e5.json").write_text("[]")
        (tmp_path / "x-f6g7h8").write_text("[]")  # no process id: never guessed at
        locked = tmp_path / f"x-{dead}.h9.json"  # a dead pid here, but its lock held (another pid namespace)
        locked.write_text("[]")
        fd = os.open(locked, os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            removed = remove_stale("x-", tmp_path)
        finally:
            os.close(fd)
        assert sorted(p.name for p in removed) == [f"x-{dead}.a1.json", f"x-{dead}.b2"]
        assert _entries(tmp_path, "x-") == sorted(
            [f"x-{live.pid}.c3.json", f"x-{os.getpid()}.d4.json", "x-f6g7h8", f"x-{dead}.h9.json"])
        assert remove_stale("x-", tmp_path) == [locked]  # the lock released: it goes too
    finally:
        live.kill()
        live.wait()


def test_scratch_entries_are_named_by_process_and_released(tmp_path: Path) -> None:
    from meteor_lite.scratch import release

    d = scratch_dir("t-", tmp_path)
    fd, f = scratch_file("t-", ".json", tmp_path)
    os.close(fd)
    assert d.name.startswith(f"t-{os.getpid()}.") and f.name.startswith(f"t-{os.getpid()}.") and f.suffix == ".json"
    assert remove_stale("t-", tmp_path) == []  # ours, alive
    release(d)
    release(f)
    assert _entries(tmp_path, "t-") == []


_KILLED_HOLDER = """
import os, signal, sys, time
from pathlib import Path
from meteor_lite.scratch import scratch_dir, scratch_file
d = scratch_dir("k-", Path(sys.argv[1]))
(d / "bundle.sqlite").write_bytes(b"0" * 100000)
fd, f = scratch_file("k-", ".json", Path(sys.argv[1]))
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_sigkill_leftovers_removed_by_the_next_run(tmp_path: Path) -> None:
    """A process killed outright leaves its scratch entries; the next scratch of the prefix removes them."""
    proc = subprocess.run([sys.executable, "-c", _KILLED_HOLDER, str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL and proc.stdout == "ready\n", proc.stderr
    assert len(_entries(tmp_path, "k-")) == 2
    fd, mine = scratch_file("k-", "", tmp_path)
    os.close(fd)
    assert _entries(tmp_path, "k-") == [mine.name]


def _jar_new_dir(tmp_path: Path) -> Path:
    import gzip

    new = tmp_path / "newlang"
    new.mkdir()
    (new / "function.words").write_text("the\na\n", encoding="utf-8")
    with gzip.open(new / "paraphrase.gz", "wt", encoding="utf-8") as f:
        f.write("0.5\nbig car\nlarge auto\n")
    return new


def _wait_for(predicate, seconds: float = 20.0) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_meteor_jar_scratch_bundle_after_a_signal(tmp_path: Path, sig: int) -> None:
    """``meteor-jar -stdio -new DIR`` (a bundle built from the user's files into a scratch directory):
    SIGTERM exits 143 through its cleanup, nothing left; after SIGKILL the next run removes it."""
    new = _jar_new_dir(tmp_path)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    cmd = [sys.executable, "-c", "from meteor_lite.jarcli import console; console()", "-", "-", "-stdio", "-new", str(new)]
    server = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(b"SCORE ||| a b ||| a b\n")
        server.stdin.flush()
        assert server.stdout.readline().startswith(b"2.0 2.0 ")  # the scratch bundle is in use
        assert len(_entries(scratch, "meteor-jar-")) == 1
        server.send_signal(sig)
        code = server.wait(timeout=20)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert server.stderr is not None
    err = server.stderr.read().decode()
    if sig == signal.SIGTERM:
        assert code == 143 and "Traceback" not in err, err
        assert _entries(scratch, "meteor-jar-") == []
        return
    assert code == -signal.SIGKILL and len(_entries(scratch, "meteor-jar-")) == 1
    again = subprocess.run(cmd, input=b"SCORE ||| a ||| a\n", capture_output=True, env=env, timeout=60)
    assert again.returncode == 0, again.stderr
    assert _entries(scratch, "meteor-jar-") == []  # the dead run's removed, this run's removed at exit


_KILLED_IMPORT = """
import os, signal
from meteor_lite_builders.official.stems import BackgroundStems
stems = BackgroundStems("english", ["cats", "dogs"] * 1000)
print(stems._input, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_import_official_stem_list_after_sigkill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The word list ``import-official`` writes for its stemming worker, left by a build killed outright,
    is removed by the next one's; a finished one removes its own."""
    from meteor_lite_builders.official.stems import BackgroundStems

    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", _KILLED_IMPORT], capture_output=True, text=True, env=env)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    left = Path(proc.stdout.strip())
    assert left.parent == tmp_path and left.name.startswith("meteor-lite-stems-") and left.exists()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stems = BackgroundStems("english", ["cats", "dogs"])
    assert not left.exists()
    assert stems.stems() == {"cats": "cat", "dogs": "dog"}
    assert _entries(tmp_path, "meteor-lite-stems-") == []
