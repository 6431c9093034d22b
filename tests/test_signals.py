"""Children die with their parent: SIGTERM or SIGKILL to ``score --jobs 2`` leaves no worker computing,
and Ctrl-C (SIGINT to the whole process group, as a terminal sends it) is one line, not a traceback per worker."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest


def _children(pid: int) -> List[int]:
    """Processes whose parent is ``pid`` (read from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _start_scoring(tmp_path: Path, en_bundle: Path, shared_data: Path) -> "tuple[subprocess.Popen[bytes], List[int]]":
    """``meteor-lite score --jobs 2`` on system1 four times over, in its own process group with SIGINT at its
    default, once both its workers are computing: (process, the workers' pids)."""
    d = shared_data / "meteor-example"
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text((d / "system1.hyp").read_text(encoding="utf-8") * 4, encoding="utf-8")
    ref.write_text((d / "reference").read_text(encoding="utf-8") * 4, encoding="utf-8")
    # SIGINT at its default (a background job inherits it ignored) set by the child itself: no preexec_fn, which
    # runs Python between fork and exec and may block there when the forking process has other threads
    code = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); from meteor_lite.cli import main; main()"
    cmd = [sys.executable, "-c", code, "score", str(hyp), str(ref), "--bundle", str(en_bundle), "--jobs", "2", "-q"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    workers: List[int] = []
    deadline = time.monotonic() + 120
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
        workers = _children(proc.pid)
    if len(workers) != 2:
        proc.kill()
        proc.wait(timeout=30)
        pytest.fail(f"no two workers (exit {proc.poll()})")
    time.sleep(0.5)  # the workers are computing
    return proc, workers


def _kill_all(proc: "subprocess.Popen[bytes]", workers: List[int]) -> None:
    if proc.poll() is None:
        proc.kill()
    for w in workers:
        try:
            os.kill(w, signal.SIGKILL)
        except OSError:
            pass


def _none_alive(workers: List[int]) -> bool:
    end = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < end:
        time.sleep(0.1)
    return not any(_alive(w) for w in workers)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc (Linux)")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGINT], ids=["sigterm", "sigkill", "ctrl-c"])
def test_workers_die_with_the_parent(sig: int, tmp_path: Path, en_bundle: Path, shared_data: Path) -> None:
    proc, workers = _start_scoring(tmp_path, en_bundle, shared_data)
    try:
        if sig == signal.SIGINT:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        code = proc.wait(timeout=30)
        assert code == {signal.SIGTERM: 143, signal.SIGKILL: -signal.SIGKILL, signal.SIGINT: 130}[sig]
        assert _none_alive(workers), "a worker outlived its parent"
        assert proc.stderr is not None
        err = proc.stderr.read().decode()
        assert "Traceback" not in err, err
        if sig == signal.SIGINT:
            assert err == "meteor-lite: error: interrupted\n"
    finally:
        _kill_all(proc, workers)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc (Linux)")
def test_a_killed_worker_stops_the_run_with_an_error(tmp_path: Path, en_bundle: Path, shared_data: Path) -> None:
    """A worker killed mid-run (as the out-of-memory killer does) loses its part: the run says so and stops, with
    exit code 1, and the other worker ends too (before, the parent waited for the lost part forever)."""
    proc, workers = _start_scoring(tmp_path, en_bundle, shared_data)
    try:
        os.kill(workers[0], signal.SIGKILL)
        code = proc.wait(timeout=60)
        assert proc.stderr is not None
        err = proc.stderr.read().decode()
        assert code == 1, err
        assert err.startswith("meteor-lite: error: a worker process ended before its part was scored"), err
        assert err.count("\n") == 1, err
        assert _none_alive(workers), "a worker outlived the run"
    finally:
        _kill_all(proc, workers)


_STREAM_CHILD = r"""
import json, os, signal, time
from meteor_lite import WorkerError, parallel

def score_block(block):
    if block == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return [block]

def blocks():
    for b in range(10):
        if b == 4:
            time.sleep(1.0)  # block 3's worker is dead by now: the next block is handed to a broken pool
        yield b

got = []
try:
    for part in parallel.map_blocks(score_block, lambda: None, blocks(), 2):
        got.extend(part)
except WorkerError as exc:
    print(json.dumps(got))
    print(exc)
"""


def test_a_killed_worker_of_a_stream_raises_worker_error() -> None:
    """map_blocks (the streaming path): blocks before the lost one come out in order (those still being scored when
    it is lost are lost with it), then WorkerError, also when the next block is handed to the broken pool."""
    out = subprocess.run([sys.executable, "-c", _STREAM_CHILD], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    first, message = out.stdout.splitlines()  # printed only where WorkerError was caught
    got = json.loads(first)
    assert got == list(range(len(got))) and len(got) <= 3, out.stdout
    assert message.startswith("a worker process ended before its part was scored"), out.stdout
