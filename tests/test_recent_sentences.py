"""What a scorer keeps of the sentences it prepared last: their tokens (Meteor.tokens) and their
paraphrase-table phrases (Resources.paraphrase_table), bounded, and giving exactly what a fresh
scorer gives (an n-best list scores its reference again and again)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Sequence

import pytest

from meteor_lite import Meteor, accel, meteor
from meteor_lite.resources import lookups
from meteor_lite.resources.mapped import MAPPED_ENV

MODULES = ["exact", "stem", "synonym", "paraphrase"]


def test_tokens_are_kept_and_handed_out_as_new_lists(tiny_bundle: Path) -> None:
    m = Meteor("en", norm=True, bundle=tiny_bundle, modules=MODULES, quiet=True)
    line = "The cat, it said: \u201cNo!\u201d"
    first = m.tokens(line)
    first.append("changed")
    again = m.tokens(line)
    assert again == Meteor("en", norm=True, bundle=tiny_bundle, modules=MODULES, quiet=True).tokens(line)
    assert "changed" not in again


def test_tokens_kept_are_bounded(tiny_bundle: Path) -> None:
    m = Meteor("en", norm=True, bundle=tiny_bundle, modules=MODULES, quiet=True)
    for i in range(meteor.RECENT_SENTENCES * 2 + 5):
        m.tokens(f"sentence number {i}")
    assert 0 < len(m._recent_tokens) <= meteor.RECENT_SENTENCES


def test_a_sentence_seen_recently_is_not_walked_again(tiny_bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = Meteor("en", norm=True, bundle=tiny_bundle, modules=MODULES, quiet=True)
    res = m.resources
    s1, s2 = m.tokens("the cat sat on the mat"), m.tokens("a dog ran in the park")
    fresh = Meteor("en", norm=True, bundle=tiny_bundle, modules=MODULES, quiet=True).resources
    expected = fresh._walk([s1])[0]
    walked: List[int] = []
    real_walk = res._walk

    def counting(sentences: Sequence[Sequence[str]]) -> List[List[lookups.PhraseHit]]:
        walked.append(len(sentences))
        return real_walk(sentences)

    monkeypatch.setattr(res, "_walk", counting)
    res.paraphrase_table([s1, s1])
    res.paraphrase_table([s2])
    res.paraphrase_table([s1])
    assert walked == [1, 1]  # the third call walks nothing (no walk at all)
    assert res.phrase_hits(s1) == expected


def test_phrases_kept_are_bounded(tiny_bundle: Path) -> None:
    res = Meteor("en", norm=True, bundle=tiny_bundle, modules=MODULES, quiet=True).resources
    for i in range(lookups.RECENT_SENTENCES * 2 + 5):
        res.paraphrase_table([["word", str(i)]])
    assert 0 < len(res._hits) <= lookups.RECENT_SENTENCES + 1


def test_a_scored_block_leaves_no_more_walks_than_recent_sentences(
    tiny_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """forget_walks: once a corpus block is scored, its sentences' phrases are not all kept (the garbage collector
    would visit every list); a few recent ones are, as paraphrase_table keeps them between calls.  (A scorer that
    queries the bundle: with the mapped file and the compiled kernels, each sentence is walked as it is packed and
    no walk is kept at all, see the next test.)"""
    monkeypatch.setenv(MAPPED_ENV, "0")
    m = Meteor("en", norm=True, bundle=tiny_bundle, modules=MODULES, quiet=True)
    assert not m.resources.mapped
    n = lookups.RECENT_SENTENCES + 50
    hyps = [f"the cat number {i} sat on the mat" for i in range(n)]
    refs = [f"a cat number {i} was on the mat" for i in range(n)]
    m.score_corpus(hyps, [refs])
    assert len(m.resources._hits) == 0
    m.score_segment(hyps[0], [refs[0]])
    assert len(m.resources._hits) == 2  # a short call's sentences stay, for the next call
    assert m.score_pairs(list(zip(hyps, refs)))[0].score == m.score_segment(hyps[0], [refs[0]]).score
    assert len(m.resources._hits) <= lookups.RECENT_SENTENCES


def test_with_the_mapped_file_no_walk_is_kept(tiny_bundle: Path) -> None:
    """With the compiled kernels and the mapped file, the pair kernel walks each sentence's phrases as it packs it:
    scoring keeps no walked phrases, and the scores are those of a scorer that queries the bundle."""
    if accel.compiled is None:
        pytest.skip("the compiled kernels are not built (make accel; `make test` builds them)")
    m = Meteor("en", norm=True, bundle=tiny_bundle, modules=MODULES, quiet=True)
    assert m.resources.mapped, "the tiny bundle's directory is writable: its mapped file is built"
    hyps = [f"they get rid of a lot of car number {i}" for i in range(20)]
    refs = [f"they remove many cars number {i} on the mat" for i in range(20)]
    got = [m.score_segment(h, [r]) for h, r in zip(hyps, refs)] + m.score_pairs(list(zip(hyps, refs)))
    assert not m.resources._hits
    os.environ[MAPPED_ENV] = "0"
    try:
        sql = Meteor("en", norm=True, bundle=tiny_bundle, modules=MODULES, quiet=True)
    finally:
        del os.environ[MAPPED_ENV]
    want = [sql.score_segment(h, [r]) for h, r in zip(hyps, refs)] * 2
    assert [(g.stats.to_ss_line(), g.alignment) for g in got] == [(w.stats.to_ss_line(), w.alignment) for w in want]
    assert any(a[0] == 3 for g in got for a in g.alignment), "no paraphrase match: the walk was not tested"


def test_an_nbest_list_scores_as_fresh_scorers_do(en_bundle: Path, shared_data: Path) -> None:
    """One reference against many hypotheses in turn (what a tuning loop sends): the same statistics
    as a new scorer for every pair."""
    ex = shared_data / "meteor-example"
    refs = (ex / "reference").read_text(encoding="utf-8").splitlines()
    hyps = [(ex / f"system{k}.hyp").read_text(encoding="utf-8").splitlines() for k in (1, 2)]
    m = Meteor("en", norm=True, quiet=True)
    for i in range(0, 40, 4):
        for h in (hyps[0][i], hyps[1][i], hyps[0][i + 1], hyps[1][i]):
            got = m.score_segment(h, [refs[i]])
            want = Meteor("en", norm=True, quiet=True).score_segment(h, [refs[i]])
            assert got.stats.to_ss_line() == want.stats.to_ss_line()
            assert got.alignment == want.alignment
