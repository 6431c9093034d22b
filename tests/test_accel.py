"""The optional compiled kernels (``make accel``, meteor_lite/_accel.c) against the pure-Python code they twin.

The pure-Python code stays the reference.  The compiled search must choose exactly the
same matches on real segments (the official example's system1 and system2, WMT21 de-en
with two references), on crowded synthetic segments and on random candidate sets; the
compiled paraphrase walk, paraphrase matching (on table entries as stored, where the pure
code splits them) and synonym test must return exactly what the pure functions return on the
same real segments, and the matching on random entries too.  The parity fixtures also run on both paths
(tests/test_parity_fixtures.py).  Where the extension has not been built, these tests skip
saying so; ``make test`` builds it first.
"""

from __future__ import annotations

import csv
import gzip
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import FrozenSet, List, Optional, Sequence, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meteor_lite import Meteor, accel
from meteor_lite.align.matches import Match, collect_matches, iter_phrase_matches, positions_of, synonym_positions
from meteor_lite.align.search import search_alignment, search_alignment_pure
from meteor_lite.jarcompat import java_string_hashes
from meteor_lite.resources.lookups import PhraseHit, Resources
from test_search_bounds import crowded_case, plain_beam_search

try:
    from meteor_lite import _accel
except ImportError:  # pragma: no cover - depends on `make accel`
    _accel = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(
    _accel is None, reason="the compiled kernels are not built (make accel; `make test` builds them)"
)


def compiled(n1: int, n2: int, cands: List[List[Match]], beam: int) -> Optional[List[Match]]:
    """The compiled search (the module is there: the skip mark guards)."""
    assert _accel is not None
    return _accel.search(n1, n2, cands, beam)


def tuples(matches: Optional[Sequence[Match]]) -> List[Tuple[int, int, int, int, int]]:
    assert matches is not None, "the compiled search declined a segment in its range"
    return [m.as_tuple() for m in matches]


def _segments(shared: Path, limit: int) -> List[Tuple[str, List[str]]]:
    """system1 and system2 of the official example, then WMT21 de-en with both references."""
    ex = shared / "meteor-example"
    refs = (ex / "reference").read_text(encoding="utf-8").splitlines()
    out: List[Tuple[str, List[str]]] = []
    for name in ("system1.hyp", "system2.hyp"):
        hyps = (ex / name).read_text(encoding="utf-8").splitlines()
        out.extend((h, [r]) for h, r in list(zip(hyps, refs))[:limit])
    with gzip.open(shared / "wmt21" / "newstest2021.de-en.da.tsv.gz", "rt", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    random.Random(5).shuffle(rows)
    out.extend((r["hyp"], [r["ref_A"], r["ref_B"]]) for r in rows[:limit])
    return out


def test_real_segments_get_the_same_alignment(shared_data: Path, en_bundle: Path) -> None:
    """Every candidate set of 2,400 real segment pairs (English, all four modules): same matches chosen."""
    m = Meteor("en", norm=True, quiet=True)
    segs = _segments(shared_data, 600)
    toks = [(m.tokens(h), [m.tokens(r) for r in refs]) for h, refs in segs]
    m.prefetch([t for h, rs in toks for t in [h, *rs]])
    checked = 0
    for hyp, refs in toks:
        for ref in refs:
            cands = collect_matches(hyp, ref, m.config.modules, m.resources)
            want = search_alignment_pure(len(hyp), len(ref), cands, m.config.beam)
            assert tuples(compiled(len(hyp), len(ref), cands, m.config.beam)) == tuples(want), (hyp, ref)
            checked += 1
    assert checked >= 2400


@pytest.mark.parametrize("seed", range(12))
def test_crowded_segments_get_the_plain_beams_alignment(seed: int) -> None:
    """More candidates than the beam at many positions (where the pure search prunes): the plain beam's choice."""
    hyp, ref, cands, beam = crowded_case(seed)
    want = plain_beam_search(len(hyp), len(ref), cands, beam)
    assert tuples(compiled(len(hyp), len(ref), cands, beam)) == [x.as_tuple() for x in want]


@st.composite
def candidate_sets(draw: st.DrawFn) -> Tuple[int, int, List[List[Match]], int]:
    """Random segments of up to 70 words a side (past one 64-bit word) with random phrase candidates."""
    n1 = draw(st.integers(1, 70))
    n2 = draw(st.integers(1, 70))
    cands: List[List[Match]] = [[] for _ in range(n2)]
    for _ in range(draw(st.integers(0, 3 * max(n1, n2)))):
        rlen = draw(st.integers(1, min(3, n2)))
        hlen = draw(st.integers(1, min(3, n1)))
        rstart = draw(st.integers(0, n2 - rlen))
        hstart = draw(st.integers(0, n1 - hlen))
        module = draw(st.integers(0, 3))
        cands[rstart].append(Match(module, rstart, rlen, hstart, hlen, module == 0))
    return n1, n2, cands, draw(st.sampled_from([1, 2, 3, 40]))


@settings(max_examples=300, deadline=None)
@given(candidate_sets())
def test_random_candidate_sets_get_the_same_alignment(case: Tuple[int, int, List[List[Match]], int]) -> None:
    n1, n2, cands, beam = case
    assert tuples(compiled(n1, n2, cands, beam)) == tuples(search_alignment_pure(n1, n2, cands, beam))


def test_segments_past_its_range_fall_back_to_pure_python() -> None:
    """Longer than MAX_WORDS on a side: the compiled search declines and search_alignment runs the pure one."""
    assert _accel is not None
    n = _accel.MAX_WORDS + 1
    cands: List[List[Match]] = [[Match(0, j, 1, j, 1, True)] if j % 2 == 0 else [] for j in range(n)]
    cands[1] = [Match(0, 1, 1, 1, 1, True), Match(1, 1, 1, 3, 1, False)]
    assert compiled(n, n, cands, 40) is None
    assert tuples(search_alignment(n, n, cands, 40)) == tuples(search_alignment_pure(n, n, cands, 40))


def test_bad_candidates_raise() -> None:
    with pytest.raises(ValueError, match="outside the segment"):
        compiled(2, 2, [[Match(0, 0, 1, 5, 1, True)], []], 40)
    with pytest.raises(ValueError, match="reference positions"):
        compiled(2, 3, [[], []], 40)
    with pytest.raises(ValueError, match="beam"):
        compiled(2, 2, [[], []], 0)


def test_the_compiled_kernels_are_used_unless_told_not_to() -> None:
    assert accel.compiled is not None
    assert "compiled" in accel.description()
    code = "from meteor_lite import accel; print(accel.compiled is None, accel.description())"
    for value, pure in (("1", "True"), ("yes", "True"), ("0", "False"), ("", "False")):
        env = {**os.environ, "METEOR_LITE_PURE": value}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.split()[0] == pure, f"METEOR_LITE_PURE={value!r}: {out.stdout}"
        assert ("METEOR_LITE_PURE is set" in out.stdout) == (pure == "True")


@pytest.fixture(scope="module")
def real_sentences(shared_data: Path) -> List[Tuple[List[str], List[str]]]:
    """Tokenised (hypothesis, reference) pairs of the real segments (first references only)."""
    m = Meteor("en", norm=True, quiet=True)
    return [(m.tokens(h), m.tokens(refs[0])) for h, refs in _segments(shared_data, 400)]


def _resources(kernels: "accel.Kernels | None", monkeypatch: pytest.MonkeyPatch) -> Resources:
    """An English scorer's look-ups that query the bundle (the walk of walk_level; the mapped file's walk is
    tests/test_mapped_tables.py's)."""
    monkeypatch.setattr(accel, "compiled", kernels)
    monkeypatch.setenv("METEOR_LITE_MAPPED", "0")
    m = Meteor("en", norm=True, quiet=True)
    assert not m.resources.mapped
    return m.resources


def test_walk_finds_the_same_phrases(
    real_sentences: List[Tuple[List[str], List[str]]], en_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The paraphrase table's walk: the same phrase hits per sentence, and the same caches afterwards."""
    sentences = [s for pair in real_sentences for s in pair]
    pure = _resources(None, monkeypatch)
    pure.paraphrase_table(sentences)
    fast = _resources(accel._load(), monkeypatch)
    fast.paraphrase_table(sentences)
    assert accel.compiled is not None
    hits = 0
    for s in sentences:
        assert fast.phrase_hits(s) == pure.phrase_hits(s)
        hits += len(pure.phrase_hits(s))
    assert hits > 10 * len(sentences)
    assert fast._para == pure._para and fast._para_prefix == pure._para_prefix
    # phrase_hits' fallback (a sentence the last prefetch did not cover) walks the same way
    assert fast._walk([["a", "number", "of", "the", "countries"]]) == pure._walk([["a", "number", "of", "the", "countries"]])


def test_paraphrase_and_synonym_matches_are_the_same(
    real_sentences: List[Tuple[List[str], List[str]]], en_bundle: Path
) -> None:
    """Paraphrase matches (both directions) and pairwise synonym positions: the pure functions' results."""
    assert _accel is not None
    res = Meteor("en", norm=True, quiet=True).resources
    res.paraphrase_table([s for pair in real_sentences for s in pair])
    found = 0
    for hyp, ref in real_sentences:
        for a, b in ((ref, hyp), (hyp, ref)):
            hits = res.phrase_hits(a)
            want = _pure_phrase_matches(hits, tuple(b), res)
            assert _accel.phrase_matches(list(hits), tuple(b)) == want
            found += len(want)
        yh, yr = res.synsets(hyp), res.synsets(ref)
        hk, rk = java_string_hashes(hyp), java_string_hashes(ref)
        want_syn = _pure_synonyms(yh, yr, hk, rk)
        assert _accel.synonym_pairs(yh, yr, hk, rk) == want_syn
        found += sum(map(len, want_syn))
    assert found > len(real_sentences)


def _pure_phrase_matches(hits: List[PhraseHit], words: Tuple[str, ...], res: Resources) -> List[Tuple[int, int, int, int]]:
    return list(iter_phrase_matches(hits, positions_of(words), words, None, res.paraphrase_tokens))


#: Words for random table entries and sentences: ASCII, Latin-1, other BMP and astral characters
#: (the kernel compares strings stored in different widths), and an empty word.
_WORDS = ["a", "b", "ab", "ba", "é", "e\u0301", "ü", "Ω", "漢字", "\U0001F600", "a\U0001F600", "", "\u00e9t\u00e9"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4), min_size=1, max_size=5), max_size=6),
    st.lists(st.sampled_from(_WORDS[:-1]), max_size=14),
)
def test_phrase_matches_on_random_entries_are_the_pure_ones(entries: List[List[List[str]]], words: List[str]) -> None:
    """Table entries of random paraphrases (words of mixed string widths; empty words, so empty paraphrases
    and doubled spaces) matched against random sentences: exactly the pure matcher's matches, in its order."""
    assert _accel is not None
    res = Resources(None, None)
    hits: List[PhraseHit] = [
        (i, 1 + i % 3, "\t".join(" ".join(p) for p in paras)) for i, paras in enumerate(entries)
    ]
    assert _accel.phrase_matches(hits, tuple(words)) == _pure_phrase_matches(hits, tuple(words), res)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4), min_size=1, max_size=5), max_size=6),
    st.lists(st.sampled_from(_WORDS[:-1] + ["a b", "b ", " a", " ", "a\tb"]), max_size=14),
)
def test_sentence_words_holding_spaces_match_no_more_entry_words(entries: List[List[List[str]]], words: List[str]) -> None:
    """A sentence word holding a space or a tab is one word: it matches no two words of a paraphrase (the kernel
    reads a paraphrase's other words off the entry where its first word occurs)."""
    assert _accel is not None
    res = Resources(None, None)
    hits: List[PhraseHit] = [(i, 1, "\t".join(" ".join(p) for p in paras)) for i, paras in enumerate(entries)]
    hits.append((len(hits), 1, "a b\ta b a\tb  a\t a"))
    assert _accel.phrase_matches(hits, tuple(words)) == _pure_phrase_matches(hits, tuple(words), res)


_SYNSETS = st.lists(st.frozensets(st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.integers(0, 6), max_size=4),
                    max_size=12)


@settings(max_examples=300, deadline=None)
@given(_SYNSETS, _SYNSETS, st.data())
def test_synonym_pairs_on_random_synsets_are_the_pure_ones(
    yh: List[FrozenSet[int]], yr: List[FrozenSet[int]], data: st.DataObject
) -> None:
    """Random synset ids (few distinct ones, so words share them; the 64-bit extremes) and word hashes that are often
    equal (the "other words only" rule): exactly the pure function's positions."""
    assert _accel is not None
    hk = data.draw(st.lists(st.integers(0, 3), min_size=len(yh), max_size=len(yh)))
    rk = data.draw(st.lists(st.integers(0, 3), min_size=len(yr), max_size=len(yr)))
    assert _accel.synonym_pairs(yh, yr, hk, rk) == _pure_synonyms(yh, yr, hk, rk)


def _pure_synonyms(*args: object) -> List[List[int]]:
    saved = accel.compiled
    accel.compiled = None
    try:
        return [list(x) for x in synonym_positions(*args, None)]  # type: ignore[arg-type]
    finally:
        accel.compiled = saved


def test_kernels_reject_malformed_arguments() -> None:
    assert _accel is not None
    with pytest.raises(TypeError):
        _accel.phrase_matches([(0, 1, ("not", "a table entry"))], ("a",))  # type: ignore[list-item]
    with pytest.raises(TypeError, match="words must be strings"):
        _accel.phrase_matches([(0, 1, "a")], ("a", 1))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one hash per word"):
        _accel.synonym_pairs([frozenset({1})], [frozenset({1})], [], [2])
    with pytest.raises(KeyError):
        _accel.walk_level([(0, 0, "unknown")], {}, {}, [["unknown"]], 1, True, [[]])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12), max_size=20))
def test_java_hashes_and_positions_are_the_pure_ones(words: List[str]) -> None:
    """Java's String.hashCode() over UTF-16 code units (astral characters as surrogate pairs), and positions."""
    from meteor_lite.jarcompat import java_string_hash

    assert _accel is not None
    assert _accel.java_hashes(words) == [java_string_hash(w) for w in words]
    pure: dict = {}
    for i, w in enumerate(words):
        pure.setdefault(w, []).append(i)
    assert _accel.positions_of(words) == pure


def test_java_hashes_of_known_words_and_lone_surrogates() -> None:
    assert _accel is not None
    # Java: "Aa".hashCode() == "BB".hashCode() == 2112; "\U0001F600" is the pair D83D DE00 in Java
    assert _accel.java_hashes(["Aa", "BB", "", "\U0001F600"]) == [2112, 2112, 0, 0xD83D * 31 + 0xDE00]
    assert _accel.java_hashes(["ok", "\ud800"]) is None  # lone surrogate: the pure function decides


def test_kernels_built_from_another_source_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkout updated since `make accel`: the old module is not used (a warning says to rebuild)."""
    from meteor_lite.errors import MeteorLiteWarning

    assert _accel is not None and len(_accel.SOURCE_SHA256) == 64
    assert accel._load() is _accel  # built from the _accel.c beside it
    monkeypatch.setattr(accel, "_source_digest", lambda: "0" * 64)
    with pytest.warns(MeteorLiteWarning, match="another version of _accel.c"):
        assert accel._load() is None
    monkeypatch.setattr(accel, "_source_digest", lambda: None)  # no source installed: nothing to compare
    assert accel._load() is _accel


def _full(cands: List[List[Match]]) -> List[List[Tuple[int, ...]]]:
    """Every field of every candidate (gain and distance included), with the exact type of each object."""
    out = []
    for lst in cands:
        assert all(type(m) is Match for m in lst)
        out.append([(*m.as_tuple(), m.gain, m.dist) for m in lst])
    return out


def test_collected_candidates_are_the_same(
    real_sentences: List[Tuple[List[str], List[str]]], en_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """collect_matches (the one-word matches built by word_matches): the same Match objects, in the same order,
    with every module of English, on both paths; the compiled search reads them the same way."""
    kernels = accel._load()
    assert kernels is not None
    res = Meteor("en", norm=True, quiet=True).resources
    res.paraphrase_table([s for pair in real_sentences for s in pair])
    modules = ["exact", "stem", "synonym", "paraphrase"]
    found = 0
    for hyp, ref in real_sentences:
        monkeypatch.setattr(accel, "compiled", None)
        want = collect_matches(hyp, ref, modules, res)
        monkeypatch.setattr(accel, "compiled", kernels)
        got = collect_matches(hyp, ref, modules, res)
        assert _full(got) == _full(want), (hyp, ref)
        assert tuples(compiled(len(hyp), len(ref), got, 40)) == tuples(search_alignment_pure(len(hyp), len(ref), want, 40))
        found += sum(map(len, want))
    assert found > 10 * len(real_sentences)


def test_word_matches_bad_input() -> None:
    assert _accel is not None
    cands: List[List[Match]] = [[], []]
    _accel.word_matches(cands, [[1], ()], 2, False, Match)
    assert _full(cands) == [[(2, 0, 1, 1, 1, 0, 1)], []]
    with pytest.raises(ValueError, match="differ in length"):
        _accel.word_matches(cands, [[1]], 0, True, Match)
    with pytest.raises(TypeError, match="no __slots__ member"):
        _accel.word_matches(cands, [[], []], 0, True, int)
    with pytest.raises(TypeError):
        _accel.word_matches(cands, [["x"], []], 0, True, Match)
