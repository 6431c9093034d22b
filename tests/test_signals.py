"""Children die with their parent (issue 26): SIGTERM or SIGKILL to ``score --jobs 2`` leaves no worker computing,
and Ctrl-C (SIGINT to the whole process group, as a terminal sends it) is one line, not a traceback per worker."""

from __future__ import annotations

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


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc (Linux)")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGINT], ids=["sigterm", "sigkill", "ctrl-c"])
def test_workers_die_with_the_parent(sig: int, tmp_path: Path, en_bundle: Path, shared_data: Path) -> None:
    d = shared_data / "meteor-example"
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text((d / "system1.hyp").read_text(encoding="utf-8") * 4, encoding="utf-8")
    ref.write_text((d / "reference").read_text(encoding="utf-8") * 4, encoding="utf-8")
    cmd = [sys.executable, "-c", "from meteor_lite.cli import main; main()", "score", str(hyp), str(ref),
           "--bundle", str(en_bundle), "--jobs", "2", "-q"]
    # own process group (Ctrl-C goes to the group) and SIGINT at its default (a background job inherits it ignored)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    workers: List[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
            workers = _children(proc.pid)
        assert len(workers) == 2, f"no two workers (exit {proc.poll()})"
        time.sleep(0.5)  # the workers are computing
        if sig == signal.SIGINT:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        code = proc.wait(timeout=30)
        assert code == {signal.SIGTERM: 143, signal.SIGKILL: -signal.SIGKILL, signal.SIGINT: 130}[sig]
        end = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < end:
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers), "a worker outlived its parent"
        assert proc.stderr is not None
        err = proc.stderr.read().decode()
        assert "Traceback" not in err, err
        if sig == signal.SIGINT:
            assert err == "meteor-lite: error: interrupted\n"
    finally:
        if proc.poll() is None:
            proc.kill()
        for w in workers:
            try:
                os.kill(w, signal.SIGKILL)
            except OSError:
                pass
