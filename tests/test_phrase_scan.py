"""The pure-Python paraphrase matcher's two routes: the substring scan (no cap, the usual one) against the
token-by-token matcher it replaced, which remains for the bounded mode's cap.

Both must give the same matches in the same order (the order decides ties in the search): on real sentences of
the official example (system1, system2) and WMT21 de-en with the English bundle's table (the sentences of
tests/test_accel.py), and on random entries and sentences whose words are meant to confuse a substring search
(words that are prefixes and suffixes of others, empty paraphrases, doubled spaces).  Sentences the scan cannot read (a word that is empty or holds a space) go to
the token-by-token matcher.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meteor_lite import Meteor, accel
from meteor_lite.align import matches
from meteor_lite.align.matches import phrase_matches, scan_phrase_matches
from meteor_lite.resources.lookups import PhraseHit, Resources
from test_accel import _pure_phrase_matches as _by_tokens
from test_accel import _segments


def _by_scan(hits: List[PhraseHit], words: Tuple[str, ...], res: Resources) -> List[Tuple[int, int, int, int]]:
    return list(scan_phrase_matches(hits, words, res.framed_paraphrases))


def test_real_sentences_get_the_same_phrase_matches(shared_data: Path, en_bundle: Path) -> None:
    """900 real pairs (system1, system2, WMT21 de-en; first references), both directions, with the English table:
    the scan finds exactly the token matcher's matches."""
    m = Meteor("en", norm=True, quiet=True)
    sentences = [(m.tokens(h), m.tokens(refs[0])) for h, refs in _segments(shared_data, 300)]
    res = m.resources
    res.paraphrase_table([s for pair in sentences for s in pair])
    found = 0
    for hyp, ref in sentences:
        for a, b in ((ref, hyp), (hyp, ref)):
            hits = res.phrase_hits(a)
            want = _by_tokens(hits, tuple(b), res)
            assert _by_scan(hits, tuple(b), res) == want, (a, b)
            found += len(want)
    assert found > len(sentences)  # most pairs have paraphrase matches: the comparison is not vacuous


#: Words that are prefixes, suffixes and joins of each other ("a b" is not a word: the scan's input has none).
_WORDS = ["a", "b", "ab", "ba", "aa", "a-b", "é", "Ω", "漢字", "\U0001F600", "a\U0001F600"]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.lists(st.lists(st.sampled_from(_WORDS + [""]), min_size=1, max_size=4), min_size=1, max_size=5),
        max_size=6,
    ),
    st.lists(st.sampled_from(_WORDS), max_size=14),
)
def test_random_entries_get_the_same_phrase_matches(entries: List[List[List[str]]], words: List[str]) -> None:
    """Random entries (with empty paraphrases and doubled spaces) against random sentences: the same matches."""
    res = Resources(None, None)
    hits: List[PhraseHit] = [(i, 1 + i % 3, "\t".join(" ".join(p) for p in paras)) for i, paras in enumerate(entries)]
    assert _by_scan(hits, tuple(words), res) == _by_tokens(hits, tuple(words), res)


@pytest.mark.parametrize("words", [("a", "", "b"), ("a b", "c"), ("", ), ("x", "a b")])
def test_words_the_scan_cannot_read_go_to_the_token_matcher(
    words: Tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An empty word or a word with a space would break the scan's word boundaries: phrase_matches does not scan."""
    monkeypatch.setattr(accel, "compiled", None)
    res = Resources(None, None)
    hits: List[PhraseHit] = [(0, 1, "a b\tc\ta\tb")]
    scanned: List[object] = []
    monkeypatch.setattr(matches, "scan_phrase_matches", lambda *a: scanned.append(a) or iter(()))
    got = list(phrase_matches(hits, words, res, None))
    assert scanned == []
    assert got == _by_tokens(hits, words, res)


def test_readable_words_are_scanned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain words without the compiled kernels: phrase_matches scans (and finds overlapping occurrences)."""
    monkeypatch.setattr(accel, "compiled", None)
    res = Resources(None, None)
    words = ("a", "a", "a", "b")
    hits: List[PhraseHit] = [(3, 1, "a a\tb\tc")]
    scanned: List[object] = []
    real = matches.scan_phrase_matches
    monkeypatch.setattr(matches, "scan_phrase_matches", lambda *a: scanned.append(a) or real(*a))
    got = list(phrase_matches(hits, words, res, None))
    assert len(scanned) == 1
    assert got == [(3, 1, 0, 2), (3, 1, 1, 2), (3, 1, 3, 1)]
