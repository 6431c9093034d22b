"""A bundle replaced or written while scoring: what is scored is what was verified.

* written in place (``cp other.sqlite en.sqlite``: same inode, new content) while one process, its
  threads, or its forked workers score: a :class:`BundleError` naming the bundle ("changed while
  scoring"), never a score mixing the two files;
* replaced by a rename (as ``bundle install`` does): the open connection goes on reading the file it
  verified, so the scores are those of the original (forked workers started later refuse the new file:
  tests/test_untrusted_bundles.py).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from typing import Callable, List

import pytest

from meteor_lite import Meteor
from meteor_lite.errors import BundleError

HYPS = ["the cat sat on the mat", "a big car", "get rid of it", "the mouse", "a lot of cars", "on the car"] * 50
REFS = ["the cat sat on a mat", "a large automobile", "remove it", "a mouse", "many cars", "of the auto"] * 50


def _bundles(tmp_path: Path) -> "tuple[Path, Path]":
    """The bundle scored, and another one with the same layout but other function words and synonyms."""
    from meteor_lite_builders.bundle.writer import BundleWriter
    from tiny_bundles import make_tiny_bundle

    path = make_tiny_bundle(tmp_path / "en.sqlite")
    other = tmp_path / "other.sqlite"
    with BundleWriter(other, language="en", name="tiny", version="0.0.1") as w:
        w.add_function_words(["cat", "mat", "car"])
        w.add_synsets([("car", 1), ("mat", 1), ("big", 2), ("auto", 2)])
        w.add_synonym_exceptions([("mice", "mouse")])
        w.add_paraphrases([("the cat", "a mouse", 0.5)])
    return path, other


def _overwrite_in_place(src: Path, dst: Path) -> None:
    inode = dst.stat().st_ino
    shutil.copyfile(src, dst)  # opens dst for writing: same inode, new content
    assert dst.stat().st_ino == inode


@pytest.fixture()
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("meteor_lite.meteor.BLOCK", 16)
    monkeypatch.setattr("meteor_lite.meteor.WORKER_BLOCK", 16)
    monkeypatch.setattr("meteor_lite.meteor.STREAM_TASK", 16)


def _after_blocks(monkeypatch: pytest.MonkeyPatch, m: Meteor, blocks: int, action: Callable[[], None]) -> None:
    """Run ``action`` once, when ``m`` starts prefetching its block number ``blocks`` (in this process)."""
    calls = []
    real = m._prefetch

    def prefetch(sentences: object) -> None:
        calls.append(1)
        if len(calls) == blocks:
            action()
        real(sentences)  # type: ignore[arg-type]

    monkeypatch.setattr(m, "_prefetch", prefetch)


def test_overwritten_in_place_while_one_process_scores(tmp_path: Path, small_blocks: None, monkeypatch: pytest.MonkeyPatch) -> None:
    path, other = _bundles(tmp_path)
    m = Meteor("en", bundle=path)
    clean = Meteor("en", bundle=path).score_corpus(HYPS, [REFS]).score
    _after_blocks(monkeypatch, m, 3, lambda: _overwrite_in_place(other, path))
    with pytest.raises(BundleError, match=r"en\.sqlite: the bundle file changed while scoring"):
        m.score_corpus(HYPS, [REFS], jobs=1)
    with pytest.raises(BundleError, match="changed while scoring"):  # and for as long as the object lives
        m.score_segment("the cat", ["the cat"])
    assert Meteor("en", bundle=path).score_corpus(HYPS, [REFS]).score != clean  # the new file scores otherwise


def test_replaced_by_rename_while_one_process_scores(tmp_path: Path, small_blocks: None, monkeypatch: pytest.MonkeyPatch) -> None:
    path, other = _bundles(tmp_path)
    want = Meteor("en", bundle=path).score_corpus(HYPS, [REFS], jobs=1)
    m = Meteor("en", bundle=path)
    spare = tmp_path / "spare.sqlite"
    shutil.copyfile(other, spare)
    _after_blocks(monkeypatch, m, 3, lambda: os.replace(spare, path))
    got = m.score_corpus(HYPS, [REFS], jobs=1)
    assert [s.score for s in got.segments] == [s.score for s in want.segments]  # the verified file, still open


def test_overwritten_in_place_while_threads_share_a_meteor(tmp_path: Path) -> None:
    """Four threads score on one object; the file is written in place meanwhile: every call after that fails, and
    every call that returned gave the original file's score."""
    path, other = _bundles(tmp_path)
    want = [s.score for s in Meteor("en", bundle=path).score_corpus(HYPS[:6], [REFS[:6]]).segments]
    m = Meteor("en", bundle=path)
    errors: List[str] = []
    wrong: List[float] = []
    changed = threading.Event()
    early: List[str] = []  # errors before the write started: the check would be wrong

    def work(k: int) -> None:
        deadline = time.monotonic() + 60
        i = 0
        while time.monotonic() < deadline:  # until the change is seen
            i += 1
            j = (i + k) % 6
            try:
                score = m.score_segment(HYPS[j], [REFS[j]]).score
            except BundleError as exc:
                (errors if changed.is_set() else early).append(str(exc))
                return
            if score != want[j]:
                wrong.append(score)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    changed.set()  # before the write starts: a thread may see the change before this thread runs again
    _overwrite_in_place(other, path)
    for t in threads:
        t.join()
    assert not wrong
    assert not early and len(errors) == 4
    assert all("changed while scoring" in e for e in errors)


def _mark_reopen(monkeypatch: pytest.MonkeyPatch, m: Meteor, marks: Path) -> None:
    """Each worker leaves a file in ``marks`` once it has opened the bundle."""
    real = m._reopen

    def reopen() -> None:
        real()
        (marks / f"opened-{os.getpid()}").touch()

    monkeypatch.setattr(m, "_reopen", reopen)


def _wait_for(marks: Path, n: int) -> None:
    deadline = time.monotonic() + 60
    while len(list(marks.glob("opened-*"))) < n:
        assert time.monotonic() < deadline, "the workers did not start"
        time.sleep(0.01)


@pytest.mark.parametrize("streamed", [False, True])
def test_overwritten_in_place_while_workers_score(
    tmp_path: Path, small_blocks: None, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    """Forked workers check the file too (and the parent at the end): a BundleError, not a mixed score.  The
    first worker to score writes the file in place, once both workers have opened it."""
    from meteor_lite import parallel

    if not parallel.can_fork():
        pytest.skip("no fork start method on this platform: no worker processes")
    path, other = _bundles(tmp_path)
    m = Meteor("en", bundle=path)
    marks = tmp_path / "marks"
    marks.mkdir()
    _mark_reopen(monkeypatch, m, marks)
    real = m._prefetch

    def prefetch(sentences: object) -> None:
        _wait_for(marks, 2)
        try:
            os.close(os.open(marks / "written", os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            pass
        else:
            _overwrite_in_place(other, path)
        real(sentences)  # type: ignore[arg-type]

    monkeypatch.setattr(m, "_prefetch", prefetch)
    with pytest.raises(BundleError, match=r"en\.sqlite: the bundle file changed while scoring"):
        if streamed:
            list(m.iter_segments(zip(HYPS, ([r] for r in REFS)), jobs=2))
        else:
            m.score_corpus(HYPS, [REFS], jobs=2)


def test_replaced_by_rename_while_streamed_workers_score(
    tmp_path: Path, small_blocks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers started before a rename keep the verified file: scores unchanged."""
    from meteor_lite import parallel

    if not parallel.can_fork():
        pytest.skip("no fork start method on this platform: no worker processes")
    path, other = _bundles(tmp_path)
    want = [s.score for s in Meteor("en", bundle=path).score_corpus(HYPS, [REFS]).segments]
    m = Meteor("en", bundle=path)
    marks = tmp_path / "marks"
    marks.mkdir()
    _mark_reopen(monkeypatch, m, marks)
    stream = m.iter_segments(zip(HYPS, ([r] for r in REFS)), jobs=2)
    got = [next(stream).score]  # the pool is running
    _wait_for(marks, 2)
    spare = tmp_path / "spare.sqlite"
    shutil.copyfile(other, spare)
    os.replace(spare, path)
    got += [s.score for s in stream]
    assert got == want


def test_check_is_cheap(tmp_path: Path) -> None:
    """The check is one fstat and one 100-byte read: well under a millisecond."""
    path, _ = _bundles(tmp_path)
    m = Meteor("en", bundle=path)
    assert m.bundle is not None
    start = time.perf_counter()
    for _ in range(1000):
        m.bundle.check_unchanged()
    assert (time.perf_counter() - start) / 1000 < 1e-3
