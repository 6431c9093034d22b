"""The compiled pair kernel (``_accel.pack_words`` / ``_accel.align_stats``) against the Python path it replaces.

``scoring.best_of`` scores a pair in one call of the kernel when the compiled kernels are in use: candidate
matches of every module, the search and the statistics.  It must give exactly what the Python path
(``collect_matches``, ``search_alignment``, ``_side_stats``) gives: the same statistics, bit for bit, and the
same chosen matches, on real segments with every English module and with other module sets, in the
character-based mode, on crowded segments and on random sentences over a small vocabulary.
"""

from __future__ import annotations

import gc
import random
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meteor_lite import Meteor, accel
from meteor_lite.scoring import _align_sides, _pair_stats, module_codes, prepare_side
from test_accel import _segments

try:
    from meteor_lite import _accel
except ImportError:  # pragma: no cover - depends on `make accel`
    _accel = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(
    _accel is None, reason="the compiled kernels are not built (make accel; `make test` builds them)"
)

Pair = Tuple[List[str], List[str]]


def _python_path(m: Meteor, hyp: List[str], ref: List[str]) -> Tuple[str, List[Tuple[int, ...]]]:
    """The statistics line and chosen matches of the Python path (the sides prepared without a kernel view)."""
    h, r = prepare_side(hyp, m.config, m.resources), prepare_side(ref, m.config, m.resources)
    st_, matches, bounded = _align_sides(h[:5] + (None,), r[:5] + (None,), m.config, m.resources)
    assert not bounded
    return st_.to_ss_line(), [x.as_tuple() for x in matches]


def _kernel_path(m: Meteor, hyp: List[str], ref: List[str]) -> Tuple[str, List[Tuple[int, ...]]]:
    h, r = prepare_side(hyp, m.config, m.resources), prepare_side(ref, m.config, m.resources)
    assert h[5] is not None and r[5] is not None, "the sides have no kernel view"
    st_, chosen, _ = _pair_stats(h, r, m.config, m.resources)
    return st_.to_ss_line(), list(chosen)


def _compare(m: Meteor, pairs: Sequence[Pair]) -> int:
    """Assert both paths agree on every pair; return how many words were matched in all."""
    m.prefetch([s for pair in pairs for s in pair])
    matched = 0
    for hyp, ref in pairs:
        want = _python_path(m, hyp, ref)
        assert _kernel_path(m, hyp, ref) == want, (hyp, ref)
        matched += sum(t[2] for t in want[1])
    return matched


@pytest.fixture(scope="module")
def real_pairs(shared_data: Path) -> List[Tuple[str, str]]:
    """1,800 real (hypothesis, reference) pairs: system1, system2 and WMT21 de-en against both references."""
    return [(h, r) for h, refs in _segments(shared_data, 300) for r in refs]


@pytest.mark.parametrize(
    "options",
    [
        {"norm": True},
        {"norm": True, "modules": ["exact", "stem"]},
        {"norm": True, "modules": ["exact", "paraphrase", "synonym"]},
        {"norm": True, "modules": ["paraphrase", "exact"]},
        {"lower": True, "char_based": True},
        {"norm": True, "no_punct": True, "modules": ["synonym", "stem", "exact"]},
    ],
    ids=["all-modules", "exact-stem", "exact-para-syn", "para-first", "char-based", "syn-stem-exact"],
)
def test_real_pairs_get_the_same_statistics_and_alignment(
    real_pairs: List[Tuple[str, str]], en_bundle: Path, options: dict
) -> None:
    m = Meteor("en", quiet=True, **options)
    pairs = [(m.tokens(h), m.tokens(r)) for h, r in real_pairs]
    assert _compare(m, pairs) > 10 * len(pairs)


def test_identical_and_empty_sides(en_bundle: Path) -> None:
    """A reference identical to the hypothesis (the first module only), empty sides, one-word sides."""
    m = Meteor("en", norm=True, quiet=True)
    same = m.tokens("The house is big , and the houses are bigger .")
    pairs: List[Pair] = [(same, list(same)), ([], same), (same, []), ([], []), (["house"], ["houses"])]
    _compare(m, pairs)
    assert _kernel_path(m, same, list(same))[1] == [(0, k, 1, k, 1) for k in range(len(same))]


def test_crowded_segments(en_bundle: Path) -> None:
    """Many repeats of a few words (many candidates per position, the beam cut at every step)."""
    m = Meteor("en", norm=True, quiet=True)
    vocab = m.tokens("the a of house houses home big large great , . is are was be")
    rng = random.Random(11)
    pairs = [([rng.choice(vocab) for _ in range(rng.randint(20, 120))], [rng.choice(vocab) for _ in range(rng.randint(20, 120))])
             for _ in range(40)]
    assert _compare(m, pairs) > 40


_VOCAB = ["the", "a", "house", "houses", "home", "building", "big", "large", "great", "in", "of", "on", "united",
          "states", "us", "america", "president", "said", "says", "say", ",", ".", "'s"]


_SCORERS: List[Meteor] = []


# en_bundle is only a path (checked to exist): the same for every example
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_VOCAB), max_size=30), st.lists(st.sampled_from(_VOCAB), max_size=30))
def test_random_sentences(en_bundle: Path, hyp: List[str], ref: List[str]) -> None:
    if not _SCORERS:
        _SCORERS.append(Meteor("en", norm=True, quiet=True))
    _compare(_SCORERS[0], [(hyp, ref)])


def test_the_kernel_is_used_and_can_be_turned_off(en_bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the kernels on, best_of scores through align_stats (counted); with them off, no kernel view."""
    assert _accel is not None
    calls = []
    real = _accel.align_stats

    class Counting:
        def __getattr__(self, name: str) -> object:
            return getattr(_accel, name)

        def align_stats(self, *args: object) -> object:
            calls.append(1)
            return real(*args)

    monkeypatch.setattr(accel, "compiled", Counting())
    m = Meteor("en", norm=True, quiet=True)
    fast = m.score_segment("the big house", ["a large home"])
    assert len(calls) == 1
    monkeypatch.setattr(accel, "compiled", None)
    assert prepare_side(["x"], m.config, m.resources)[5] is None
    slow = Meteor("en", norm=True, quiet=True).score_segment("the big house", ["a large home"])
    assert (fast.score, fast.alignment) == (slow.score, slow.alignment)


def test_malformed_arguments_are_refused(en_bundle: Path) -> None:
    assert _accel is not None
    records: dict = {}
    with pytest.raises(ValueError, match="one hash, stem hash"):
        _accel.make_records(records, ["a"], [1, 2], None, None, [False])
    with pytest.raises(ValueError, match="32-bit"):
        _accel.make_records(records, ["a"], [2**40], None, None, [False])
    with pytest.raises(TypeError, match="sets"):
        _accel.make_records(records, ["a"], [1], None, [[1]], [False])
    assert records == {}
    assert _accel.pack_words(["a", "b", "a"], records, None, False, False) == ["a", "b"]  # the words lacking a record
    _accel.make_records(records, ["a"], [1], None, None, [False])
    with pytest.raises(TypeError, match="not one made by make_records for these modules"):
        _accel.pack_words(["a"], records, None, True, False)  # no stem hash in the record
    with pytest.raises(TypeError, match="not one made by make_records"):
        _accel.pack_words(["a"], {"a": (1, None, None, False, 1)}, None, False, False)
    with pytest.raises(TypeError, match="a phrase hit must be"):
        _accel.pack_words(["a"], records, [(0, 1)], False, False)
    with pytest.raises(ValueError, match="outside its sentence"):
        _accel.pack_words(["a"], records, [(0, 2, "x y")], False, False)
    bare, func, lengths, total, func_total = _accel.pack_words(["a"], records, None, False, False)
    assert (func, lengths, total, func_total) == ([False], [1], 1.0, 0.0)
    assert _accel.align_stats(bare, bare, (0,), 40)[-1] == [(0, 0, 1, 0, 1)]
    with pytest.raises(ValueError, match="lacks what one of the modules needs"):
        _accel.align_stats(bare, bare, (0, 1), 40)
    with pytest.raises(ValueError, match="module code"):
        _accel.align_stats(bare, bare, (7,), 40)
    with pytest.raises(ValueError, match="beam"):
        _accel.align_stats(bare, bare, (0,), 0)
    with pytest.raises(ValueError):
        _accel.align_stats("not a capsule", bare, (0,), 40)
    assert _accel.align_many([(bare, bare)], (0,), 40) == [_accel.align_stats(bare, bare, (0,), 40)]
    assert _accel.align_many((), (0,), 40) == []
    with pytest.raises(TypeError, match="list of \\(hyp, ref\\) tuples"):
        _accel.align_many([[bare, bare]], (0,), 40)
    with pytest.raises(TypeError, match="list of \\(hyp, ref\\) tuples"):
        _accel.align_many([(bare,)], (0,), 40)
    with pytest.raises(ValueError, match="lacks what one of the modules needs"):
        _accel.align_many([(bare, bare)], (0, 1), 40)
    with pytest.raises(ValueError, match="module code"):
        _accel.align_many([(bare, bare)], (7,), 40)
    with pytest.raises(ValueError):
        _accel.align_many([(bare, "not a capsule")], (0,), 40)


def test_align_many_is_align_stats_of_each_pair(real_pairs: List[Tuple[str, str]], en_bundle: Path) -> None:
    """The batch's call (the GIL released around the pairs' alignment) gives each pair what align_stats gives,
    on 1,800 real pairs with every module, a pair out of the search's range (None) among them."""
    assert _accel is not None
    m = Meteor("en", norm=True, quiet=True)
    codes = module_codes(m.config.modules)
    m.prefetch([m.tokens(s) for pair in real_pairs for s in pair])
    sides = [(prepare_side(m.tokens(h), m.config, m.resources), prepare_side(m.tokens(r), m.config, m.resources))
             for h, r in real_pairs]
    long_side = prepare_side(["word"] * (_accel.MAX_WORDS + 1), m.config, m.resources)
    sides.insert(7, (long_side, sides[0][1]))
    packed = [(h[5], r[5]) for h, r in sides]
    many = _accel.align_many(packed, codes, m.config.beam)
    assert many == [_accel.align_stats(h, r, codes, m.config.beam) for h, r in packed]
    assert many[7] is None and sum(x is None for x in many) == 1
    assert sum(len(x[7]) for x in many if x is not None) > 10 * len(real_pairs)


_PARA = 3  # the paraphrase module's code in align_stats (meteor_lite.languages.MODULES)


def _paraphrase_matches(hyp: List[str], entry: str, cache: object) -> List[Tuple[int, ...]]:
    """The matches align_stats finds between ``hyp`` and a one-word reference whose only table phrase is the word
    itself, with ``entry`` as its paraphrases, the entry parsed through ``cache`` (None: none)."""
    assert _accel is not None
    from meteor_lite.jarcompat import java_string_hash

    words = sorted(set(hyp) | {"R"})
    records: dict = {}
    _accel.make_records(records, words, [java_string_hash(w) for w in words], None, None, [False] * len(words))
    ref = _accel.pack_words(["R"], records, [(0, 1, entry)], False, False, False, cache)[0]
    side = _accel.pack_words(hyp, records, [], False, False, False, cache)[0]
    return list(_accel.align_stats(side, ref, (_PARA,), 40)[-1])


@pytest.mark.parametrize(
    "entry, hyp, match",
    [
        ("x y\tz", ["z"], (0, 1)),
        ("x y\tz", ["x", "y"], (0, 2)),
        ("x  y", ["x", "", "y"], (0, 3)),  # two spaces: an empty word between
        ("x  y", ["x", "y"], None),
        ("\tz", ["q", ""], (1, 1)),  # an empty paraphrase first: one empty word
        ("z\t", ["", "q"], (0, 1)),  # and last
        ("z\t\tw", ["q", "w"], (1, 1)),
        ("\u00fcn\u00ef\t\u65e5\u672c \u8a9e\t\U0001f600", ["\u65e5\u672c", "\u8a9e"], (0, 2)),  # a 4-byte str
        ("\u00fcn\u00ef\t\u65e5\u672c \u8a9e\t\U0001f600", ["q", "\U0001f600"], (1, 1)),
        ("\u00fcn \u00ef", ["\u00fcn", "\u00ef"], (0, 2)),  # a 1-byte str beyond ASCII
        ("a\x00b c", ["a\x00b", "c"], (0, 2)),  # a NUL inside a word is part of it
        ("a\x00b c", ["a", "c"], None),
        ("x y z", ["x", "y z"], None),  # a sentence word holding a space is one word
        ("x y z", ["x", "y"], None),  # a paraphrase longer than the rest of the sentence
        ("x y\tx", ["x", "y "], (0, 1)),
    ],
)
def test_table_entries_are_split_alike_with_and_without_the_parse_cache(
    entry: str, hyp: List[str], match: Optional[Tuple[int, int]]
) -> None:
    """An entry's paraphrases and their words as phrase_matches splits them (tabs, then single spaces), whether
    pack_words parses it for the sentence or takes it from a parse_cache (met the first time, then again)."""
    assert _accel is not None
    want = [(0, 0, 1, *match)] if match else []  # module 0: the first (only) module asked for
    cache = _accel.parse_cache(4)
    got = [_paraphrase_matches(hyp, entry, c) for c in (None, cache, cache)]
    assert got == [want] * 3
    assert _accel.parse_cache_len(cache) == 1


def test_the_parse_cache_keeps_its_first_entries_and_refuses_what_is_not_one(en_bundle: Path) -> None:
    assert _accel is not None
    cache = _accel.parse_cache(2)
    entries = [f"p{k} q\tr{k}" for k in range(5)]
    for k, e in enumerate(entries):
        assert _paraphrase_matches([f"r{k}"], e, cache) == [(0, 0, 1, 0, 1)]
    assert _accel.parse_cache_len(cache) == 2, "filled with the first two, then left as it is"
    assert _paraphrase_matches(["p0", "q"], entries[0], cache) == [(0, 0, 1, 0, 2)]
    for bad in (0, -1, 2**40, "4"):
        with pytest.raises((ValueError, TypeError, OverflowError)):
            _accel.parse_cache(bad)
    with pytest.raises(TypeError, match="parse_cache"):
        _accel.pack_words(["R"], {}, [], False, False, False, {})
    with pytest.raises(TypeError, match="parse_cache"):
        _accel.pack_words(["R"], {}, [], False, False, False, _accel.entry_cache())


def test_a_packed_sentence_outlives_the_parse_cache_and_entries_it_points_into(en_bundle: Path) -> None:
    """A packed sentence points at its phrases' parsed entries instead of copying them: one kept by the parse cache,
    one parsed for the sentence alone.  Both stay valid after every other reference to the cache and to the
    entries' texts is dropped and their memory reused (a dangling pointer would find other words, or crash)."""
    assert _accel is not None
    from meteor_lite.jarcompat import java_string_hash

    words = ["R", "S", "p", "q", "t", "u"]
    records: dict = {}
    _accel.make_records(records, words, [java_string_hash(w) for w in words], None, None, [False] * len(words))
    cache = _accel.parse_cache(1)
    entries = ["".join(("p q", "\t", "x")), "".join(("y", "\t", "t u"))]  # new str objects, not constants
    ref = _accel.pack_words(["R", "S"], records, [(0, 1, entries[0]), (1, 1, entries[1])], False, False, False, cache)[0]
    assert _accel.parse_cache_len(cache) == 1, "the first entry kept by the cache, the second parsed for the sentence"
    del cache, entries
    gc.collect()
    reuse = ["".join(("z", str(k), "\t", "w")) for k in range(10_000)]  # the freed memory taken by other texts
    hyp = _accel.pack_words(["t", "u", "p", "q"], records, [], False, False, False, None)[0]
    assert reuse and list(_accel.align_stats(hyp, ref, (_PARA,), 40)[-1]) == [(0, 0, 1, 2, 2), (0, 1, 1, 0, 2)]


def test_packed_flags_and_lengths_are_the_python_paths(en_bundle: Path) -> None:
    """The function-word flags, unit lengths and their sums of a packed side (``_accel.pack_words`` from the
    words' records) are those prepare_side computes in Python, astral characters (two Java units) included."""
    for char_based in (False, True):
        m = Meteor("en", lower=True, char_based=char_based, quiet=True)
        words = ["the", "𝔘ber", "house", "of", "ünïcode", "the", "a\U0001F600b"]
        packed = prepare_side(words, m.config, m.resources)
        plain = prepare_side(words, m.config, m.resources, packed=False)
        assert packed[5] is not None and plain[5] is None
        assert packed[:5] == plain[:5]
        assert packed[2] == ([3, 5, 5, 2, 7, 3, 4] if char_based else [1] * 7)
        assert packed[1] == [True, False, False, True, False, True, False]
