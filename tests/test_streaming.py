"""``meteor-lite score`` streams its input: memory bounded whatever the length, results unchanged.

The block sizes are made small here (monkeypatched) so that a few hundred lines cross many blocks.
The 2,000,000-line measurement is in docs/performance.md (it is not a test: minutes, not seconds).
"""

from __future__ import annotations

import io
import sys
import weakref
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

import pytest

from meteor_lite import Meteor
from meteor_lite.scores import RunningTotal

HYPS = ["the cat sat on the mat", "a big car", "get rid of it", "", "the mouse and the mice", "a lot of cars"]
REFS = ["the cat sat on a mat", "a large automobile", "remove it", "nothing", "a mouse", "many cars"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tiny_bundles import make_tiny_bundle

    return make_tiny_bundle(tmp_path_factory.mktemp("stream") / "tiny.sqlite")


@pytest.fixture()
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 5 segments, worker tasks of 7 (the defaults are thousands)."""
    monkeypatch.setattr("meteor_lite.meteor.BLOCK", 5)
    monkeypatch.setattr("meteor_lite.meteor.WORKER_BLOCK", 3)
    monkeypatch.setattr("meteor_lite.meteor.STREAM_TASK", 7)


def _corpus(n: int) -> Tuple[List[str], List[str]]:
    return [HYPS[i % len(HYPS)] + f" w{i % 13}" for i in range(n)], [REFS[i % len(REFS)] + f" w{i % 11}" for i in range(n)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_stream_gives_score_corpus_numbers_bit_for_bit(tiny: Path, small_blocks: None, jobs: int) -> None:
    """Segments and the corpus score from iter_segments + RunningTotal are score_corpus's, over many blocks."""
    hyps, refs = _corpus(300)
    m = Meteor("en", bundle=tiny)
    want = m.score_corpus(hyps, [refs], jobs=1)
    total = RunningTotal()
    got = []
    for seg in m.iter_segments(zip(hyps, ([r] for r in refs)), jobs=jobs):
        total.add(seg)
        got.append(seg)
    assert [(s.score, s.stats, s.ref_index) for s in got] == [(s.score, s.stats, s.ref_index) for s in want.segments]
    result = m.total_score(total)
    assert (result.score, result.metrics, result.stats) == (want.score, want.metrics, want.stats)
    assert result.format("text").splitlines()[-1] == want.format("text").splitlines()[-1]


def test_totals_of_parts_merge_into_the_whole(tiny: Path) -> None:
    """RunningTotal.merge (a corpus summed in parts, as Spark's partitions): the same statistics, bounded count and
    first bounded positions as one total; the parts hold perfect segments, whose chunk the whole never counts."""
    hyps, refs = _corpus(40)
    hyps[3], hyps[17], hyps[30] = refs[3], refs[17], refs[30]  # perfect segments in three parts
    segs = Meteor("en", bundle=tiny).score_corpus(hyps, [refs]).segments
    assert {i for i in (3, 17, 30) if segs[i].stats.is_perfect()} == {3, 17, 30}
    for k in (2, 5, 11, 39):  # flagged as bounded, to follow their numbers through the merge
        segs[k].bounded = True
    whole = RunningTotal()
    for s in segs:
        whole.add(s)
    merged = RunningTotal()
    for b, e in ((0, 10), (10, 10), (10, 25), (25, 40)):  # an empty part too
        part = RunningTotal()
        for s in segs[b:e]:
            part.add(s)
        merged.merge(part)
    assert merged.stats == whole.stats
    assert (merged.count, merged.bounded, merged.first_bounded) == (40, 4, [3, 6, 12, 40]) == (
        whole.count, whole.bounded, whole.first_bounded)


def test_input_is_consumed_lazily(tiny: Path, small_blocks: None) -> None:
    """A generator is read a block ahead, not to its end, before the first score comes out."""
    pulled = []

    def pairs() -> Iterator[Tuple[str, List[Optional[str]]]]:
        for i in range(10_000):
            pulled.append(i)
            yield HYPS[i % len(HYPS)], [REFS[i % len(REFS)]]

    stream = Meteor("en", bundle=tiny).iter_segments(pairs(), jobs=1)
    next(stream)
    assert len(pulled) <= 7 + 1  # the first read (one task's worth), not 10,000
    for _ in range(20):
        next(stream)
    assert len(pulled) <= 7 + 5 * 4 + 1


def test_cli_keeps_no_segments(tiny: Path, small_blocks: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the CLI scores 400 lines, at most a couple of blocks of segment results are alive at any time."""
    from meteor_lite.cli import run
    from meteor_lite.cli import score as score_cli

    hyps, refs = _corpus(400)
    (tmp_path / "h.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    alive: List["weakref.ref[object]"] = []
    most = 0
    real = score_cli._Output.segment

    def segment(self: object, number: int, seg: object) -> None:
        nonlocal most
        alive.append(weakref.ref(seg))
        most = max(most, sum(r() is not None for r in alive))
        real(self, number, seg)  # type: ignore[arg-type]

    monkeypatch.setattr(score_cli._Output, "segment", segment)
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        assert run(["score", str(tmp_path / "h.txt"), str(tmp_path / "r.txt"), "--bundle", str(tiny), "--jobs", "1"]) == 0
    assert len(alive) == 400
    assert most <= 2 * 5, most
    want = Meteor("en", bundle=tiny).score_corpus(hyps, [refs]).format("text")
    assert out.getvalue() == want


@pytest.mark.parametrize("fmt", [["--format", "json"], ["-q"], []])
def test_cli_output_is_the_whole_corpus_report(tiny: Path, small_blocks: None, tmp_path: Path, fmt: List[str]) -> None:
    """Text, JSON (spooled segments) and -q output are what the corpus result formats, byte for byte."""
    from meteor_lite.cli import run
    from meteor_lite.jarcompat import java_double

    for n in (0, 1, 23):
        hyps, refs = _corpus(n)
        (tmp_path / "h.txt").write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
        (tmp_path / "r.txt").write_text("".join(r + "\n" for r in refs), encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            assert run(["score", str(tmp_path / "h.txt"), str(tmp_path / "r.txt"), "--bundle", str(tiny), *fmt]) == 0
        want = Meteor("en", bundle=tiny).score_corpus(hyps, [refs])
        if fmt == ["-q"]:
            assert out.getvalue() == java_double(want.score) + "\n"
            assert err.getvalue() == "".join(java_double(s.score) + "\n" for s in want.segments)
        else:
            assert out.getvalue() == want.format("json" if fmt else "text")


def test_stdin_error_after_output_is_unmistakable(
    tiny: Path, small_blocks: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Standard input is read once: a reference file longer than it is found at its end, after segment lines were
    written.  Exit 1, one error line saying the output is incomplete, and no final score."""
    from meteor_lite.cli import run
    from meteor_lite.cli.errors import run_guarded

    hyps, refs = _corpus(40)
    (tmp_path / "r.txt").write_text("\n".join(refs + ["one more"]) + "\n", encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(("\n".join(hyps) + "\n").encode())))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = run_guarded(run, ["score", "-", str(tmp_path / "r.txt"), "--bundle", str(tiny), "--jobs", "1"])
    assert code == 1
    assert "Segment 1 score:" in out.getvalue() and "Final score" not in out.getvalue()
    assert err.getvalue().count("\n") == 1
    assert err.getvalue().startswith(f"meteor-lite: error: {tmp_path / 'r.txt'}: 41 lines, but the hypothesis file has 40 (after ")
    assert "segment score(s) were written: the output is incomplete and has no final score)" in err.getvalue()


def test_regular_files_are_checked_before_any_output(tiny: Path, small_blocks: None, tmp_path: Path) -> None:
    """A bad line far into a regular file is found before anything is scored or written (as before streaming)."""
    from meteor_lite.cli import run
    from meteor_lite.cli.errors import run_guarded

    hyps, refs = _corpus(40)
    (tmp_path / "h.txt").write_bytes(("\n".join(hyps) + "\n").encode() + b"bad \xff\n")
    (tmp_path / "r.txt").write_text("\n".join(refs) + "\nx\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert run_guarded(run, ["score", str(tmp_path / "h.txt"), str(tmp_path / "r.txt"), "--bundle", str(tiny)]) == 1
    assert out.getvalue() == ""
    assert err.getvalue() == f"meteor-lite: error: {tmp_path / 'h.txt'}:41: invalid UTF-8 (byte 0xff at column 5)\n"
