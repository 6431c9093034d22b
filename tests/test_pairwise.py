"""The pairwise batch API (``Meteor.score_pairs``, ``Meteor.score_matrix``): the same scores as one
``score_segment`` call per pair, on real sentences with every English module, on both paths (compiled
kernels and pure Python), and clear errors on bad input."""

from __future__ import annotations

import contextlib
import threading
import weakref
from pathlib import Path
from typing import Iterator, List, Optional

import pytest

from meteor_lite import Meteor, accel, pairwise
from meteor_lite.align.bounded import SMALL_SEGMENT
from meteor_lite.errors import InputError
from meteor_lite.scores import SegmentScore

PATHS = ["compiled", "pure"]


@pytest.fixture(params=PATHS)
def kernels(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Optional[accel.Kernels]:
    """Run the test with the compiled kernels (skipped when they are not built) and in pure Python."""
    if request.param == "pure":
        monkeypatch.setattr(accel, "compiled", None)
        return None
    loaded = accel._load()
    if loaded is None:
        pytest.skip("the compiled kernels are not built (make accel)")
    monkeypatch.setattr(accel, "compiled", loaded)
    return loaded


@pytest.fixture
def aligned_steps(monkeypatch: pytest.MonkeyPatch) -> List[int]:
    """The compiled kernels, with each ``align_many`` call's number of pairs recorded in the returned list
    (skipped when they are not built: the second thread runs only with them)."""
    loaded = accel._load()
    if loaded is None:
        pytest.skip("the compiled kernels are not built (make accel): the second thread runs only with them")
    steps: List[int] = []
    real_many = loaded.align_many

    class Counted:
        def __getattr__(self, name: str) -> object:
            return getattr(loaded, name)

        def align_many(self, packed: list, codes: tuple, beam: int) -> list:
            steps.append(len(packed))
            return real_many(packed, codes, beam)

    monkeypatch.setattr(accel, "compiled", Counted())
    return steps


def _lines(shared_data: Path, name: str, n: int) -> List[str]:
    return (shared_data / "meteor-example" / name).read_text(encoding="utf-8").splitlines()[:n]


def _same(a: SegmentScore, b: SegmentScore) -> bool:
    return a.score == b.score and a.stats == b.stats and a.alignment == b.alignment


def test_score_pairs_equals_score_segment(
    shared_data: Path, en_bundle: Path, kernels: Optional[accel.Kernels]
) -> None:
    hyps = _lines(shared_data, "system1.hyp", 150) + _lines(shared_data, "system2.hyp", 150)
    refs = _lines(shared_data, "reference", 150) * 2
    pairs = list(zip(hyps, refs)) + [("", refs[0]), (hyps[0], hyps[0])]  # an empty hypothesis, an identical pair
    one = Meteor("en", norm=True, bundle=en_bundle, quiet=True)
    expected = [one.score_segment(h, [r]) for h, r in pairs]
    got = Meteor("en", norm=True, bundle=en_bundle, quiet=True).score_pairs(pairs)
    assert len(got) == len(expected)
    assert all(_same(a, b) for a, b in zip(got, expected))
    assert got[-2].score == 0.0 and got[-1].score == 1.0
    assert len({s.score for s in got}) > 100  # real, varied scores, not a constant


def test_score_matrix_equals_score_segment(
    shared_data: Path, en_bundle: Path, kernels: Optional[accel.Kernels]
) -> None:
    # MBR: candidates scored against each other; the references include a repeated sentence
    cands = _lines(shared_data, "system1.hyp", 12)
    refs = _lines(shared_data, "system2.hyp", 9) + [cands[3]]
    m = Meteor("en", norm=True, bundle=en_bundle, quiet=True)
    matrix = m.score_matrix(cands, refs)
    assert len(matrix) == len(cands) and all(len(row) == len(refs) for row in matrix)
    one = Meteor("en", norm=True, bundle=en_bundle, quiet=True)
    for i, h in enumerate(cands):
        for j, r in enumerate(refs):
            assert _same(matrix[i][j], one.score_segment(h, [r])), (i, j)
    assert matrix[3][len(refs) - 1].score == 1.0
    square = m.score_matrix(cands, cands)
    assert all(square[i][i].score == 1.0 for i in range(len(cands)))
    assert square[0][1].score != square[1][0].score  # precision and recall weigh differently: not symmetric


def test_pipelined_pairs_equal_score_segment(
    shared_data: Path, en_bundle: Path, monkeypatch: pytest.MonkeyPatch, aligned_steps: List[int]
) -> None:
    """score_pairs in steps over two threads (forced here with small steps, as on a machine with two CPUs) gives
    each pair score_segment's score, in order; a pair too large for the kernel is scored by the Python path
    within its step.  With METEOR_LITE_ONE_THREAD set, or one CPU, the pipeline does not run."""
    steps = aligned_steps
    hyps = _lines(shared_data, "system1.hyp", 100) + _lines(shared_data, "system2.hyp", 60)
    refs = _lines(shared_data, "reference", 100) + _lines(shared_data, "reference", 60)
    long_hyp, long_ref = " ".join(hyps[:12]), " ".join(refs[:12])  # more words than the kernel takes (SMALL_SEGMENT)
    pairs = list(zip(hyps, refs))
    pairs[37:37] = [(long_hyp, long_ref), ("", refs[0]), (hyps[0], hyps[0])]
    one = Meteor("en", norm=True, bundle=en_bundle, quiet=True)
    expected = [one.score_segment(h, [r]) for h, r in pairs]
    assert len(one.tokens(long_hyp)) * len(one.tokens(long_ref)) > SMALL_SEGMENT

    monkeypatch.setattr(pairwise, "PIPE_STEP", 16)
    monkeypatch.setattr(pairwise, "usable_cpus", lambda: 2)
    got = Meteor("en", norm=True, bundle=en_bundle, quiet=True).score_pairs(pairs)
    assert len(got) == len(expected) and all(_same(a, b) for a, b in zip(got, expected))
    assert len(steps) == -(-len(pairs) // 16) and sum(steps) == len(pairs) - 1  # the long pair went the Python way
    assert len({s.score for s in got}) > 100

    steps.clear()
    monkeypatch.setenv("METEOR_LITE_ONE_THREAD", "1")
    again = Meteor("en", norm=True, bundle=en_bundle, quiet=True).score_pairs(pairs)
    assert steps == [] and all(_same(a, b) for a, b in zip(again, expected))
    monkeypatch.delenv("METEOR_LITE_ONE_THREAD")
    monkeypatch.setattr(pairwise, "usable_cpus", lambda: 1)
    again = Meteor("en", norm=True, bundle=en_bundle, quiet=True).score_pairs(pairs)
    assert steps == [] and all(_same(a, b) for a, b in zip(again, expected))


def _segment_view(s: SegmentScore) -> tuple:
    return (s.score, s.stats, s.alignment, s.ref_index, s.bounded)


def test_corpus_in_two_threads_equals_one_thread(
    shared_data: Path, en_bundle: Path, monkeypatch: pytest.MonkeyPatch, aligned_steps: List[int]
) -> None:
    """score_corpus and iter_segments in one process align in a second thread (forced here with small steps, as on a
    machine with two CPUs), with three references a segment, some missing, one pair too large for the kernel
    and an empty hypothesis: every segment (score, statistics, alignment, winning reference) and the corpus score
    are the ones of one thread (METEOR_LITE_ONE_THREAD=1), in order.  A forked worker never starts the thread."""
    steps = aligned_steps
    n = 300
    hyps = _lines(shared_data, "system1.hyp", n)
    first, second = _lines(shared_data, "reference", n), _lines(shared_data, "system2.hyp", n)
    hyps[11] = ""
    hyps[40], first[40] = " ".join(hyps[:12]), " ".join(first[:12])  # above SMALL_SEGMENT: the Python path
    segments = [(h, [a, None if i % 7 == 3 else b, h if i % 5 == 0 else None]) for i, (h, a, b)
                in enumerate(zip(hyps, first, second))]
    streams = [first, second]
    monkeypatch.setattr(pairwise, "usable_cpus", lambda: 2)
    monkeypatch.setattr(pairwise, "SEGMENT_STEP", 8)

    monkeypatch.setenv("METEOR_LITE_ONE_THREAD", "1")
    one = Meteor("en", norm=True, bundle=en_bundle, quiet=True)
    want_corpus = one.score_corpus(hyps, streams, jobs=1)
    want_stream = list(one.iter_segments(segments, jobs=1))
    assert steps == []
    monkeypatch.delenv("METEOR_LITE_ONE_THREAD")

    two = Meteor("en", norm=True, bundle=en_bundle, quiet=True)
    got_corpus = two.score_corpus(hyps, streams, jobs=1)
    assert len(steps) == -(-n // 8)
    assert sum(steps) == 2 * n - 1  # every pair but the large one went through align_many
    assert [_segment_view(s) for s in got_corpus.segments] == [_segment_view(s) for s in want_corpus.segments]
    assert (got_corpus.score, got_corpus.stats) == (want_corpus.score, want_corpus.stats)
    steps.clear()
    got_stream = list(two.iter_segments(segments, jobs=1))
    assert len(steps) == -(-n // 8) and sum(steps) == sum(1 for _, rs in segments for r in rs if r is not None) - 2
    # (the large hypothesis 40, against its large reference and against itself, went the Python way)
    assert [_segment_view(s) for s in got_stream] == [_segment_view(s) for s in want_stream]
    assert {s.ref_index for s in got_stream} == {0, 1, 2} and len({s.score for s in got_stream}) > 100

    two._reopen()  # what a forked worker runs first: no second thread there
    assert two.align_thread is False
    with two._aligner(10 * n) as aligner:
        assert aligner is None
    steps.clear()
    alone = Meteor("en", norm=True, bundle=en_bundle, quiet=True)
    alone.align_thread = False  # a caller's choice: every call in one thread
    assert _segment_view(alone.score_corpus(hyps, streams, jobs=1).segments[5]) == _segment_view(want_corpus.segments[5])
    alone.score_pairs([(h, a) for h, a in zip(hyps, first)])
    assert steps == []


def test_matrix_in_two_threads_equals_score_segment(
    shared_data: Path, en_bundle: Path, monkeypatch: pytest.MonkeyPatch, aligned_steps: List[int]
) -> None:
    """score_matrix with its pairs aligned in two threads at once (forced, as on a machine with two CPUs): each
    cell is score_segment's score, a pair too large for the kernel among them; one row only splits too."""
    calls = aligned_steps
    cands = _lines(shared_data, "system1.hyp", 9) + [" ".join(_lines(shared_data, "system2.hyp", 12))]
    refs = _lines(shared_data, "reference", 6) + [" ".join(_lines(shared_data, "reference", 12)), cands[2]]
    one = Meteor("en", norm=True, bundle=en_bundle, quiet=True)
    expected = [[one.score_segment(h, [r]) for r in refs] for h in cands]
    monkeypatch.setattr(pairwise, "PIPE_STEP", 4)
    monkeypatch.setattr(pairwise, "usable_cpus", lambda: 2)
    m = Meteor("en", norm=True, bundle=en_bundle, quiet=True)
    got = m.score_matrix(cands, refs)
    assert [len(row) for row in got] == [len(refs)] * len(cands)
    assert all(_same(a, b) for row, want in zip(got, expected) for a, b in zip(row, want))
    assert len(calls) == 2 and sum(calls) == len(cands) * len(refs) - 1  # the long pair went the Python way
    assert got[2][-1].score == 1.0 and len({s.score for row in got for s in row}) > 40
    calls.clear()
    row = m.score_matrix(cands[:1], refs)
    assert calls == [len(refs) // 2, len(refs) - len(refs) // 2]
    assert all(_same(a, b) for a, b in zip(row[0], expected[0]))


def test_scorers_in_several_threads_at_once_give_the_same_scores(
    shared_data: Path, en_bundle: Path, monkeypatch: pytest.MonkeyPatch, aligned_steps: List[int]
) -> None:
    """Three threads, each with its own scorer, run score_pairs and score_matrix at once, each call with its second
    thread aligning without the GIL while the others pack: every score is the one of a call made alone."""
    monkeypatch.setattr(pairwise, "PIPE_STEP", 16)
    monkeypatch.setattr(pairwise, "usable_cpus", lambda: 2)
    hyps, refs = _lines(shared_data, "system1.hyp", 200), _lines(shared_data, "reference", 200)
    cands = _lines(shared_data, "system2.hyp", 12)
    jobs = [list(zip(hyps, refs)), list(zip(refs[::-1], hyps)), list(zip(hyps[50:], refs[:150]))]
    alone = [Meteor("en", norm=True, bundle=en_bundle, quiet=True).score_pairs(p) for p in jobs]
    grid = Meteor("en", norm=True, bundle=en_bundle, quiet=True).score_matrix(cands, cands)
    got: dict = {}
    aligned_steps.clear()

    def run(k: int) -> None:
        m = Meteor("en", norm=True, bundle=en_bundle, quiet=True)
        got[k] = (m.score_pairs(jobs[k]), m.score_matrix(cands, cands))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == [0, 1, 2]
    for k, want in enumerate(alone):
        pairs_got, grid_got = got[k]
        assert len(pairs_got) == len(want) and all(_same(a, b) for a, b in zip(pairs_got, want))
        assert all(_same(a, b) for row, wrow in zip(grid_got, grid) for a, b in zip(row, wrow))
    # the second threads ran in every call: a step of 16 pairs each, and the two halves of each matrix
    assert len(aligned_steps) == sum(-(-len(p) // 16) for p in jobs) + 2 * len(jobs)


def test_prepared_sentences_are_dropped_before_the_collector_runs_again(
    shared_data: Path, en_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collector's first pass after a call's pause visits every young object still alive: the scores, and
    the call's prepared sentences if they were still held (15 ms on 999 system1 pairs), so they are dropped first."""
    made: List[weakref.ref] = []
    alive_at_resume: List[int] = []

    class Recorded(pairwise._Sides):
        def __init__(self, meteor: pairwise.Scorer):
            super().__init__(meteor)
            made.append(weakref.ref(self))

    @contextlib.contextmanager
    def pause() -> Iterator[None]:
        yield
        alive_at_resume.append(sum(r() is not None for r in made))

    monkeypatch.setattr(pairwise, "_Sides", Recorded)
    monkeypatch.setattr(pairwise, "gc_paused", pause)
    hyps, refs = _lines(shared_data, "system1.hyp", 40), _lines(shared_data, "reference", 40)
    m = Meteor("en", norm=True, bundle=en_bundle, quiet=True)
    assert len(m.score_pairs(list(zip(hyps, refs)))) == 40
    assert len(m.score_matrix(hyps[:5], refs[:5])) == 5
    assert len(made) == 2 and alive_at_resume == [0, 0]
    if accel.compiled is not None:  # in steps over two threads (forced): each step's sentences dropped too
        monkeypatch.setattr(pairwise, "PIPE_STEP", 8)
        monkeypatch.setattr(pairwise, "usable_cpus", lambda: 2)
        assert len(m.score_pairs(list(zip(hyps, refs)))) == 40
        assert len(made) == 2 + 5 and alive_at_resume == [0, 0, 0]


def test_matrix_of_nothing(empty_bundle: Path) -> None:
    m = Meteor("en", bundle=empty_bundle, quiet=True, modules=["exact"])
    assert m.score_matrix([], ["a b"]) == []
    assert m.score_matrix(["a b"], []) == [[]]
    assert m.score_pairs([]) == []


def test_bad_inputs_are_named(empty_bundle: Path) -> None:
    m = Meteor("en", bundle=empty_bundle, quiet=True, modules=["exact"])
    with pytest.raises(TypeError, match=r"pairs\[1\]"):
        m.score_pairs([("a", "b"), ("a", "b", "c")])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"pairs\[0\]\[1\] is NoneType"):
        m.score_pairs([("a", None)])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"refs\[1\] is int"):
        m.score_matrix(["a"], ["b", 3])  # type: ignore[list-item]
    with pytest.raises(InputError, match=r"hyps\[0\] holds a lone surrogate"):
        m.score_matrix(["a\udc80"], ["b"])
