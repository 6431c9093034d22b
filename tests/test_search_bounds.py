"""The alignment search's bounds: pruned children keep the beam's choice; hostile segments go to bounded mode."""

from __future__ import annotations

import json
import random
import time
from typing import Any, List, Optional, Tuple

import pytest

from meteor_lite import Meteor
from meteor_lite.align.bounded import BOUNDED_CAP, bounded_alignment, work_limit
from meteor_lite.align.budget import count_candidates
from meteor_lite.align.matches import Match, _nearest, collect_matches
from meteor_lite.align.search import count_chunks, search_alignment_pure
from meteor_lite.resources.lookups import Resources


def plain_beam_search(n1: int, n2: int, cands: List[List[Match]], beam: int) -> List[Match]:
    """The search as the 2011 paper and Meteor 1.5 describe it, with no pruning (slow, obviously complete).

    Paths are ranked by (-gain, chunks, distance) with a stable sort; every child is created.
    """
    cov_h = [0] * n1
    cov_r = [0] * n2
    for lst in cands:
        for m in lst:
            for k in range(m.hstart, m.hstart + m.hlen):
                cov_h[k] += 1
            for k in range(m.rstart, m.rstart + m.rlen):
                cov_r[k] += 1
    fixed = {
        j: lst[0] for j, lst in enumerate(cands)
        if len(lst) == 1
        and all(cov_r[k] == 1 for k in range(lst[0].rstart, lst[0].rstart + lst[0].rlen))
        and all(cov_h[k] == 1 for k in range(lst[0].hstart, lst[0].hstart + lst[0].hlen))
    }
    used_h = set(k for m in fixed.values() for k in range(m.hstart, m.hstart + m.hlen))
    used_r = set(k for m in fixed.values() for k in range(m.rstart, m.rstart + m.rlen))
    # path: [gain, chunks, dist, next_idx, last, used_h, used_r, chosen]
    paths: List[List[Any]] = [[0, 0, 0, 0, -1, used_h, used_r, []]]
    for cur in range(n2):
        paths.sort(key=lambda p: (-p[0], p[1], p[2]))
        nxt: List[List[Any]] = []
        for gain, ch, dist, idx, last, uh, ur, chosen in paths[:beam]:
            if cur in ur:
                if cur < idx:
                    nxt.append([gain, ch, dist, idx, last, uh, ur, chosen])
                elif idx in fixed:
                    m = fixed[idx]
                    c = ch + (1 if last != -1 and m.hstart != last else 0)
                    nxt.append([gain + m.gain, c, dist + m.dist, m.rstart + m.rlen, m.hstart + m.hlen, uh, ur, chosen])
                continue
            for m in [] if cur in fixed else cands[cur]:
                hs = set(range(m.hstart, m.hstart + m.hlen))
                rs = set(range(m.rstart, m.rstart + m.rlen))
                if hs & uh or rs & ur:
                    continue
                c = ch + (1 if last != -1 and m.hstart != last else 0)
                nxt.append([gain + m.gain, c, dist, m.rstart + m.rlen, m.hstart + m.hlen, uh | hs, ur | rs, chosen + [m]])
                dist += m.dist
            nxt.append([gain, ch + (1 if last != -1 else 0), dist, idx + 1, -1, uh, ur, chosen])
        paths = nxt or paths[:1]
    paths.sort(key=lambda p: (-p[0], p[1], p[2]))
    final = [[p[0], p[1] + (1 if p[4] != -1 else 0), p[2], p[7]] for p in paths[:beam]]
    final.sort(key=lambda p: (-p[0], p[1], p[2]))
    return sorted(list(fixed.values()) + final[0][3], key=lambda m: m.rstart)


def _crowded_pair(rng: random.Random, n: int, vocab: int) -> Tuple[List[str], List[str]]:
    """A segment pair over a tiny vocabulary: many reference positions with more candidates than the beam."""
    words = [f"w{k}" for k in range(vocab)] + ["walks", "walked", "walking"]
    ref = [rng.choice(words) for _ in range(n)]
    hyp = [w if rng.random() < 0.7 else rng.choice(words) for w in ref]
    for _ in range(n // 8):
        i = rng.randrange(n - 1)
        hyp[i], hyp[i + 1] = hyp[i + 1], hyp[i]
    return hyp, ref


def crowded_case(seed: int) -> Tuple[List[str], List[str], List[List[Match]], int]:
    """A crowded segment pair (seeded), its exact+stem candidates and a beam some positions exceed."""
    rng = random.Random(seed)
    res = Resources(None, "english")
    beam = rng.choice([2, 5, 40])
    n = rng.choice([30, 60, 90]) if beam < 40 else 150
    hyp, ref = _crowded_pair(rng, n, rng.choice([2, 3, 6]) if beam < 40 else 1)
    cands = collect_matches(hyp, ref, ["exact", "stem"], res)
    assert max(len(c) for c in cands) > beam  # the pruned expansion is exercised
    return hyp, ref, cands, beam


@pytest.mark.parametrize("seed", range(12))
def test_pruned_search_chooses_what_the_plain_beam_chooses(seed: int) -> None:
    hyp, ref, cands, beam = crowded_case(seed)
    got = search_alignment_pure(len(hyp), len(ref), cands, beam)
    want = plain_beam_search(len(hyp), len(ref), cands, beam)
    assert [m.as_tuple() for m in got] == [m.as_tuple() for m in want]


def test_count_is_exact_below_the_limit() -> None:
    rng = random.Random(3)
    res = Resources(None, "english")
    for _ in range(5):
        hyp, ref = _crowded_pair(rng, 80, 4)
        cands = collect_matches(hyp, ref, ["exact", "stem"], res)
        assert count_candidates(hyp, ref, ["exact", "stem"], res, 10**9) == sum(len(c) for c in cands)


def test_nearest_keeps_the_closest_in_order() -> None:
    assert list(_nearest([0, 3, 5, 9, 20], 6, 3)) == [3, 5, 9]
    assert list(_nearest([0, 3, 5, 9, 20], 0, 2)) == [0, 3]
    assert list(_nearest([1, 2], 50, 5)) == [1, 2]


def test_hostile_segment_is_bounded_quickly_and_flagged() -> None:
    scorer = Meteor("da", quiet=True)  # exact + stem with the Snowball stemmer, no bundle lookups
    hyp = " ".join(["og"] * 3000)
    ref = " ".join(["og"] * 2999)
    start = time.process_time()
    with pytest.warns(Warning, match="bounded mode"):
        result = scorer.score_corpus([hyp, "en to tre"], [[ref, "en to tre"]], layout="streams")
    assert time.process_time() - start < 60  # generous: bounded mode takes well under a second here
    seg = result.segments[0]
    assert seg.bounded and not result.segments[1].bounded
    assert 0.0 <= seg.score <= 1.0
    assert seg.stats.test_word_matches == 2999  # every reference word found a partner, in one chunk
    assert seg.stats.chunks == 1
    doc = json.loads(result.format("json"))
    assert [s["bounded"] for s in doc["segments"]] == [True, False]
    assert "Bounded segments:       1 (Segment 1: aligned in bounded mode)" in result.format("text")


def test_normal_report_has_no_bounded_line() -> None:
    result = Meteor("da", quiet=True).score_corpus(["en to tre"], [["en to tre fire"]], layout="streams")
    assert "Bounded" not in result.format("text")
    assert json.loads(result.format("json"))["segments"][0]["bounded"] is False


def test_bounded_alignment_is_a_valid_alignment() -> None:
    rng = random.Random(5)
    res = Resources(None, "english")
    hyp, ref = _crowded_pair(rng, 200, 3)
    cands = collect_matches(hyp, ref, ["exact", "stem"], res, cap=BOUNDED_CAP)
    assert max(len(c) for c in cands) <= 2 * BOUNDED_CAP
    chosen = bounded_alignment(len(hyp), len(ref), cands)
    hyp_used: List[int] = []
    ref_end: Optional[int] = None
    for m in chosen:
        hyp_used.extend(range(m.hstart, m.hstart + m.hlen))
        assert ref_end is None or m.rstart >= ref_end
        ref_end = m.rstart + m.rlen
    assert len(hyp_used) == len(set(hyp_used))
    assert 1 <= count_chunks(chosen) <= len(chosen)


def test_work_limit_scales_with_the_beam() -> None:
    assert work_limit(80) == work_limit(40) // 2
    assert work_limit(1) > work_limit(40)


def test_stdio_answers_a_hostile_request_and_warns() -> None:
    import io

    from meteor_lite.jarcli.stdio import StdioServer

    server = StdioServer(Meteor("da", quiet=True))
    request = "SCORE ||| " + " ".join(["og"] * 2999) + " ||| " + " ".join(["og"] * 3000) + "\nSCORE ||| en to ||| en to\n"
    out = io.BytesIO()
    with pytest.warns(Warning, match="bounded mode"):
        assert server.serve(io.BytesIO(request.encode()), out) is None
    lines = out.getvalue().decode().splitlines()
    assert len(lines) == 2
    assert lines[0].split()[:2] == ["3000.0", "2999.0"]  # hypothesis and reference lengths
    assert lines[1].split()[:2] == ["2.0", "2.0"]


@pytest.mark.parametrize("seed", range(12))
def test_shared_masks_choose_the_same_alignment(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Steps sharing their masks (segments with very many candidates) search exactly as unshared ones."""
    hyp, ref, cands, beam = crowded_case(seed)
    want = search_alignment_pure(len(hyp), len(ref), cands, beam)
    monkeypatch.setattr("meteor_lite.align.search._SHARE_FROM", 0)
    got = search_alignment_pure(len(hyp), len(ref), cands, beam)
    assert [m.as_tuple() for m in got] == [m.as_tuple() for m in want]
