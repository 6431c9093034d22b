"""Property tests (hypothesis) of the scorer on random text.

Random segments in many scripts, 0 to 500 tokens (long ones rare), a token repeated at most
:data:`MAX_REPEAT` times (the alignment search grows fast with repetition: every repetition
matches every other), 1 to 5 references.  Properties: no exception; every score in [0, 1];
a non-empty hypothesis equal to its reference scores 1.0; the order of the segments does not
change their scores; the corpus score is deterministic.

Scored with a tiny English bundle (function words, synonyms, paraphrases: every module runs), so
the big bundles are not needed.  Time is bounded by the ``ci`` profile (set
``HYPOTHESIS_PROFILE=thorough`` for a longer run); ``deadline=None`` because one long segment
may take a good part of a second.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from pathlib import Path
from typing import Iterator, List

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from meteor_lite import Meteor  # noqa: E402

settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough", max_examples=500, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")

#: At most this many copies of one token in a segment.
MAX_REPEAT = 30

#: Words of many scripts, with the tiny bundle's function words, synonyms and paraphrase words among them.
WORDS: List[str] = [
    "the", "a", "of", "on", "car", "automobile", "auto", "big", "large", "mouse", "mice", "get", "rid", "remove",
    "many", "lot", "cat", "sat", "mat", "Running", "runs", "ran", "don't", "U.S.", "e-mail", "3.14", "1,000",
    "кошка", "сидела", "Москва", "γάτα", "καθόταν", "猫", "坐", "在", "垫子上", "ねこ", "すわった", "고양이",
    "قطة", "جلست", "बिल्ली", "बैठी", "แมว", "חתול", "ქართული", "Ægir", "straße", "ǅemal", "İstanbul", "ı",
    ".", ",", "!", "?", "\"", "'", "(", ")", "-", "--", "...", "«", "»", "。", "、", "…", "|||", "&amp;", "@",
    "😀", "👍🏽", "e\u0301", "\u200b", "ﬁ", "Ⅻ", "½",
]

word = st.one_of(
    st.sampled_from(WORDS),
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=8),
)


def _cap(tokens: List[str]) -> List[str]:
    """``tokens`` without the copies of a token beyond :data:`MAX_REPEAT`."""
    seen: Counter = Counter()
    out = []
    for t in tokens:
        seen[t] += 1
        if seen[t] <= MAX_REPEAT:
            out.append(t)
    return out


#: A segment: usually short, sometimes long (up to 500 tokens), sometimes a few tokens repeated.
segment = st.one_of(
    st.lists(word, max_size=25),
    st.lists(word, max_size=25),
    st.lists(word, max_size=25),
    st.lists(st.sampled_from(WORDS[:12]), min_size=10, max_size=120),  # heavy repetition (capped)
    st.lists(word, min_size=100, max_size=500),
).map(lambda tokens: " ".join(_cap(tokens)))


@pytest.fixture(scope="module")
def scorers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[List[Meteor]]:
    """Two scorers on the tiny bundle (every module): raw text, and ``--norm``."""
    from tiny_bundles import make_tiny_bundle

    bundle = make_tiny_bundle(tmp_path_factory.mktemp("props") / "tiny.sqlite")
    yield [Meteor("en", bundle=Path(bundle), quiet=True), Meteor("en", bundle=Path(bundle), norm=True, quiet=True)]


def _in_unit_interval(x: float) -> bool:
    return not math.isnan(x) and 0.0 <= x <= 1.0


@settings(settings.get_profile(PROFILE))
@given(hyp=segment, refs=st.lists(segment, min_size=1, max_size=5), norm=st.booleans())
def test_segment_score_in_unit_interval(scorers: List[Meteor], hyp: str, refs: List[str], norm: bool) -> None:
    """No exception; the score, precision, recall and fragmentation penalty are in [0, 1]."""
    s = scorers[norm].score_segment(hyp, refs)
    assert _in_unit_interval(s.score), s
    assert 0 <= s.ref_index < len(refs)


@settings(settings.get_profile(PROFILE))
@given(text=segment.filter(lambda t: t.strip() != ""), others=st.lists(segment, max_size=4), norm=st.booleans())
def test_identical_hypothesis_scores_one(scorers: List[Meteor], text: str, others: List[str], norm: bool) -> None:
    """A non-empty hypothesis equal to one of its references scores 1.0."""
    scorer = scorers[norm]
    if scorer.score_segment(text, [text]).stats.test_length == 0:
        return  # nothing left after normalisation: an empty segment, which scores 0 as in the jar
    assert scorer.score_segment(text, [*others, text]).score == pytest.approx(1.0, abs=1e-12)


@settings(settings.get_profile(PROFILE))
@given(
    pairs=st.lists(st.tuples(segment, segment), min_size=1, max_size=6),
    seed=st.randoms(use_true_random=False),
)
def test_order_does_not_change_scores(scorers: List[Meteor], pairs: List[tuple], seed: "object") -> None:
    """Shuffling the segments permutes their scores and nothing else; the corpus score is deterministic."""
    scorer = scorers[1]
    hyps = [h for h, _ in pairs]
    refs = [r for _, r in pairs]
    first = scorer.score_corpus(hyps, [refs], layout="streams")
    again = scorer.score_corpus(hyps, [refs], layout="streams")
    assert first.score == again.score and first.stats == again.stats
    assert _in_unit_interval(first.score)
    order = list(range(len(pairs)))
    seed.shuffle(order)  # type: ignore[attr-defined]
    shuffled = scorer.score_corpus([hyps[i] for i in order], [[refs[i] for i in order]], layout="streams")
    for pos, i in enumerate(order):
        assert shuffled.segments[pos].score == first.segments[i].score
        assert shuffled.segments[pos].stats == first.segments[i].stats
