"""A scorer forked (``os.fork``) while another thread is inside one of its calls works in the child: its lock is
made anew there (the parent's is held by a thread the child does not have) and its bundle connection reopened."""

from __future__ import annotations

import os
import select
import threading
from pathlib import Path

import pytest

from meteor_lite import Meteor


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")
def test_fork_while_another_thread_holds_the_scorer(tiny_bundle: Path) -> None:
    m = Meteor("en", bundle=tiny_bundle, quiet=True)
    expected = m.score_segment("the car ran", ["an automobile ran"]).score
    inside, leave = threading.Event(), threading.Event()

    def busy() -> None:
        with m._lock:  # what a long call of another thread does
            inside.set()
            leave.wait(60)

    t = threading.Thread(target=busy)
    t.start()
    assert inside.wait(30)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: one call, its score written to the pipe; never back into pytest
        try:
            os.close(read)
            os.write(write, repr(m.score_segment("the car ran", ["an automobile ran"]).score).encode())
        finally:
            os._exit(0)
    os.close(write)
    got = b""
    try:
        while select.select([read], [], [], 60)[0]:
            part = os.read(read, 100)
            if not part:
                break
            got += part
    finally:
        leave.set()
        t.join()
        os.close(read)
        if not got:
            os.kill(pid, 9)  # stuck: the test fails below, the child is not left behind
        os.waitpid(pid, 0)
    assert got, "the child's first call waited for a lock held by a thread it does not have"
    assert float(got) == expected
