"""Threads sharing one :class:`~meteor_lite.Meteor`: every score right, no exception.

The scorer's resource caches, its paraphrase walk state and its SQLite connection are shared by
whoever holds the object; threads take turns (one lock per object).  Before the lock, 8 threads
scoring slices of system1/system2 on one object gave wrong segment scores and KeyErrors in about
half the runs with the pure-Python kernels and a short thread switch interval.  The check runs in a
child process, so that the switch interval and ``METEOR_LITE_PURE`` apply from the start, for
both the pure-Python and the compiled kernels: three trials each, each with a new shared object.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

_CHILD = r"""
import sys, threading
sys.setswitchinterval(1e-6)
from meteor_lite import Meteor
bundle, hyp1, hyp2, ref = sys.argv[1:5]
h1 = open(hyp1, encoding="utf-8").read().splitlines()
h2 = open(hyp2, encoding="utf-8").read().splitlines()
refs = open(ref, encoding="utf-8").read().splitlines()
N, T = 120, 8
hyps = [(h1 if k % 2 else h2)[k * N:(k + 1) * N] for k in range(T)]
rs = [refs[k * N:(k + 1) * N] for k in range(T)]
alone = Meteor("en", bundle=bundle)
want = [[s.score for s in alone.score_corpus(h, [r]).segments] for h, r in zip(hyps, rs)]
TRIALS = int(sys.argv[5])
problems = []
def work(k):
    try:
        got = [s.score for s in shared.score_corpus(hyps[k], [rs[k]]).segments]
        bad = sum(a != b for a, b in zip(got, want[k]))
        if bad:
            problems.append(f"thread {k}: {bad} wrong segment scores")
        for i in range(0, N, 11):
            if shared.score_segment(hyps[k][i], [rs[k][i]]).score != want[k][i]:
                problems.append(f"thread {k}: score_segment({i}) wrong")
    except Exception as exc:
        problems.append(f"thread {k}: {exc!r}")
for trial in range(TRIALS):  # a new shared object each trial: its caches and connection start empty
    shared = Meteor("en", bundle=bundle)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(T)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
print("; ".join(problems) or "ok")
"""


@pytest.mark.parametrize("pure", ["1", "0"], ids=["pure", "compiled"])
def test_threads_share_one_meteor(pure: str, en_bundle: Path, shared_data: Path) -> None:
    d = shared_data / "meteor-example"
    env = {**os.environ, "METEOR_LITE_PURE": pure}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(en_bundle), str(d / "system1.hyp"), str(d / "system2.hyp"),
         str(d / "reference"), "3"],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok", out.stdout
