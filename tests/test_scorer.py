"""Unit tests of the matchers, the alignment search and the formula.

Worked examples come from the papers in ../shared/docs/papers (003: the
encyclopedia examples of the 2005 metric; 004: the Meteor 1.3 formula).
Small bundles are written with the project's own BundleWriter.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from meteor_lite import ConfigError, Meteor, Stats
from meteor_lite.align.matches import Match, collect_matches
from meteor_lite.align.search import count_chunks
from meteor_lite.align.search import search_alignment as resolve
from meteor_lite.config import resolve_config
from meteor_lite.errors import MeteorLiteWarning, MissingResourcesError
from meteor_lite.resources.lookups import Resources, morph_candidates
from meteor_lite.stats import compute
from meteor_lite_builders.bundle.writer import BundleWriter
from tiny_bundles import make_empty_bundle

# The 2005 metric: Fmean = 10PR/(R+9P), penalty 0.5 * (chunks/matches)^3, no function words.
PAPER_2005 = dict(params=(0.9, 3.0, 0.5, 1.0), modules=["exact"], weights=[1.0])



def score(m: Meteor, hyp: str, ref: str) -> float:
    return m.score_segment(hyp, [ref]).score


# -- the formula ----------------------------------------------------------------------


def test_paper_example_extra_word(empty_bundle: Path) -> None:
    # 003: "the cat was sat on the mat" vs "the cat sat on the mat":
    # P = 6/7, R = 1, 2 chunks, 6 matches -> Fmean 0.9836, penalty 0.0185, score 0.9654.
    m = Meteor("en", bundle=empty_bundle, quiet=True, **PAPER_2005)
    s = m.score_segment("the cat was sat on the mat", ["the cat sat on the mat"])
    assert s.precision == pytest.approx(6 / 7)
    assert s.recall == 1.0
    assert s.stats.chunks == 2
    assert round(s.fmean, 4) == 0.9836
    assert round(s.frag_penalty, 4) == 0.0185
    assert round(s.score, 4) == 0.9654


def test_identical_segment_scores_one(empty_bundle: Path) -> None:
    # 003 gives 0.9977 (1 chunk / 6 matches) under the 2005 metric; Meteor 1.3+ drops the
    # penalty when every word is matched in one chunk, so the score is exactly 1.0.
    m = Meteor("en", bundle=empty_bundle, quiet=True, **PAPER_2005)
    s = m.score_segment("the cat sat on the mat", ["the cat sat on the mat"])
    assert s.stats.chunks == 1 and s.frag_penalty == 0.0 and s.score == 1.0
    st = Stats(6, 6, 0, 0, [6.0], [6.0], [0.0], [0.0], 1.0, 6, 6)
    st.test_length = 7  # not perfect any more: the 2005 penalty applies
    assert compute(st, 0.9, 3.0, 0.5, 1.0, [1.0]).frag_penalty == pytest.approx(0.5 * (1 / 6) ** 3)


def test_reordered_example_uses_fewest_chunks(empty_bundle: Path) -> None:
    # 003's "on the mat sat the cat" shows 6 chunks under the 2005 aligner; Meteor 1.3+
    # chooses among equal-coverage alignments the one with the fewest chunks: 3.
    m = Meteor("en", bundle=empty_bundle, quiet=True, **PAPER_2005)
    s = m.score_segment("on the mat sat the cat", ["the cat sat on the mat"])
    assert s.stats.test_word_matches == 6
    assert s.stats.chunks == 3
    assert s.score == pytest.approx(1.0 * (1 - 0.5 * (3 / 6) ** 3))


def test_function_words_and_delta(tiny_bundle: Path) -> None:
    # 004: P = sum_i w_i (d m_i(h_c) + (1-d) m_i(h_f)) / (d |h_c| + (1-d) |h_f|)
    m = Meteor("en", bundle=tiny_bundle, params=(0.5, 1.0, 0.5, 0.8), modules=["exact"], weights=[1.0], quiet=True)
    s = m.score_segment("the dog of mine", ["the cat of mine"])
    # hyp: the(f) dog(c) of(f) mine(c); matched the, of, mine
    p = (0.8 * 1 + 0.2 * 2) / (0.8 * 2 + 0.2 * 2)
    assert s.precision == pytest.approx(p)
    assert s.recall == pytest.approx(p)
    assert s.stats.test_function_words == 2


def test_empty_segments_score_zero(tiny_bundle: Path) -> None:
    m = Meteor("en", bundle=tiny_bundle, quiet=True)
    assert score(m, "", "a car") == 0.0
    assert score(m, "a car", "") == 0.0
    e = m.score_segment("", [""])
    assert e.score == 0.0 and math.isnan(e.precision)


def test_best_reference_wins(tiny_bundle: Path) -> None:
    m = Meteor("en", bundle=tiny_bundle, quiet=True)
    s = m.score_segment("a big car", ["something else", "a large automobile", "a big car"])
    assert s.ref_index == 2 and s.score == 1.0
    t = m.score_segment("x y", ["p q", "r s"])  # all zero: the first reference is kept
    assert t.ref_index == 0


def test_corpus_skips_chunk_of_perfect_segments(tiny_bundle: Path) -> None:
    m = Meteor("en", bundle=tiny_bundle, quiet=True, modules=["exact"], weights=[1.0])
    c = m.score_corpus(["a b c", "x y z w"], [["a b c", "x z y w"]])
    assert c.segments[0].stats.chunks == 1 and c.segments[0].score == 1.0
    assert c.stats.chunks == c.segments[1].stats.chunks  # the perfect segment's chunk is not summed
    assert c.stats.test_length == 7


# -- matchers -------------------------------------------------------------------------


def _modules_of(cands):
    return sorted({m.module for lst in cands for m in lst})


def test_exact_and_stem_matchers(tiny_bundle: Path) -> None:
    res = Resources(None, "english")
    cands = collect_matches(["cats", "sat"], ["cat", "sat", "sits"], ["exact", "stem"], res)
    got = sorted(m.as_tuple() for lst in cands for m in lst)
    # exact: sat~sat; stem: cats~cat (different words, same stem); sat/sits differ in stem
    assert got == [(0, 1, 1, 1, 1), (1, 0, 1, 0, 1)]


def test_stem_never_duplicates_exact() -> None:
    res = Resources(None, "english")
    cands = collect_matches(["running"], ["running"], ["exact", "stem"], res)
    assert [m.as_tuple() for m in cands[0]] == [(0, 0, 1, 0, 1)]


def test_synonym_matcher_uses_exceptions_and_morphology(tiny_bundle: Path) -> None:
    from meteor_lite.resources.bundle import Bundle

    res = Resources(Bundle.open(tiny_bundle), "english")
    cands = collect_matches(["cars", "mice", "big"], ["automobile", "mouse", "large"], ["exact", "synonym"], res)
    got = sorted((m.rstart, m.hstart) for lst in cands for m in lst)
    assert got == [(0, 0), (1, 1), (2, 2)]  # cars->car (rule s->''), mice->mouse (exception list)
    assert morph_candidates("boxes")[:3] == ["boxe", "box", "boxe"]
    assert morph_candidates("glass") == [] and morph_candidates("is") == []


def test_paraphrase_matcher_both_directions(tiny_bundle: Path) -> None:
    from meteor_lite.resources.bundle import Bundle

    res = Resources(Bundle.open(tiny_bundle), "english")
    cands = collect_matches(["we", "get", "rid", "of", "it"], ["we", "remove", "it"], ["paraphrase"], res)
    got = [m.as_tuple() for lst in cands for m in lst]
    # ref "remove" -> hyp "get rid of", and hyp "get rid of" -> ref "remove": listed twice, as Meteor does
    assert got == [(0, 1, 1, 1, 3), (0, 1, 1, 1, 3)]


def test_paraphrase_score(tiny_bundle: Path) -> None:
    m = Meteor("en", bundle=tiny_bundle, quiet=True)
    s = m.score_segment("we get rid of it", ["we remove it"])
    assert s.stats.test_content[3] + s.stats.test_function[3] == 3  # 3 hypothesis words by paraphrase
    assert s.stats.ref_content[3] == 1
    assert s.stats.chunks == 1


# -- the alignment search -----------------------------------------------------------------


def test_resolve_prefers_coverage_then_chunks() -> None:
    # hyp: a b a ; ref: a b  -> "a b" contiguous (1 chunk) beats hyp[2]~ref[0]
    hyp, ref = ["a", "b", "a"], ["a", "b"]
    cands = collect_matches(hyp, ref, ["exact"], Resources(None, None))
    best = resolve(len(hyp), len(ref), cands, beam=40)
    assert [(m.rstart, m.hstart) for m in best] == [(0, 0), (1, 1)]
    assert count_chunks(best) == 1


def test_resolve_distance_breaks_ties() -> None:
    # ref "x" can match either hyp "x"; equal coverage and chunks: the nearer one wins
    hyp, ref = ["x", "y", "x"], ["y", "x"]
    cands = collect_matches(hyp, ref, ["exact"], Resources(None, None))
    best = resolve(len(hyp), len(ref), cands, beam=40)
    assert [(m.rstart, m.hstart) for m in best] == [(0, 1), (1, 2)]


def test_count_chunks_gaps_close_chunks() -> None:
    ms = [Match(0, 0, 1, 0, 1, True), Match(0, 2, 1, 1, 1, True), Match(0, 3, 1, 2, 1, True)]
    assert count_chunks(ms) == 2  # ref gap between 0 and 2


# -- configuration --------------------------------------------------------------------------


def test_presets_match_meteor_15() -> None:
    en = resolve_config("en")
    assert en.params == (0.85, 0.2, 0.6, 0.75) and en.weights == (1.0, 0.6, 0.8, 0.6)
    assert en.eval_id() == "meteor-1.5-wo-en-no_norm-0.85_0.2_0.6_0.75-ex_st_sy_pa-1.0_0.6_0.8_0.6"
    de = resolve_config("de", norm=True)
    assert de.modules == ("exact", "stem", "paraphrase") and de.weights == (1.0, 0.8, 0.2)
    assert resolve_config("cs").lang == "cz"
    da = resolve_config("da")
    assert da.task == "li" and da.params == (0.75, 1.4, 0.7, 0.5) and da.modules == ("exact", "stem")
    assert resolve_config("en", task="hter").params == (0.4, 1.5, 0.35, 0.55)
    assert resolve_config("en", modules=["exact", "stem"]).weights == (1.0, 0.6)
    padded = resolve_config("en", weights=[1.0], modules=["exact", "stem"])
    assert padded.weights == (1.0, 0.0) and padded.warnings


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(modules=["exact", "fuzzy"]), "unknown module"),
        (dict(params=(0.5, 0.5)), "4 values"),
        (dict(lang="de", task="adq"), "no parameters"),
        (dict(beam=0), "beam"),
    ],
)
def test_bad_configuration(kwargs, message) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve_config(**{"lang": "en", **kwargs})


def test_unknown_task_is_refused_once_the_bundle_is_known() -> None:
    # A name that is not one of Meteor's tasks may be a tuned set of the bundle: the scorer decides.
    with pytest.raises(ConfigError, match="unknown task"):
        Meteor("en", task="nope", quiet=True)


def test_module_without_resources(tiny_bundle: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare.sqlite"
    with BundleWriter(bare, language="en", name="bare", version="0.0.1") as w:
        w.add_function_words(["the"])
    with pytest.raises(ConfigError, match="paraphrase"):
        Meteor("en", bundle=bare, modules=["exact", "paraphrase"], quiet=True)
    with pytest.raises(MissingResourcesError, match="synonym sets, a paraphrase table"):
        Meteor("en", bundle=bare, quiet=True, strict_modules=True)  # the jar's configuration, or nothing
    with pytest.warns(MeteorLiteWarning, match=r"include synonym paraphrase, but bundle .*bare.sqlite lacks"):
        fallback = Meteor("en", bundle=bare)  # default modules: the ones the bundle supports, with a warning
    assert fallback.config.modules == ("exact", "stem") and fallback.config.weights == (1.0, 0.6)
    assert "|mods:exact+stem|w:1,0.6|" in fallback.signature and len(fallback.warnings) == 1
    m = Meteor("en", bundle=bare, modules=["exact", "stem"], quiet=True)  # a reduced set only when asked for
    assert m.config.modules == ("exact", "stem") and m.config.weights == (1.0, 0.6) and not m.warnings


def test_parallel_scoring_gives_identical_results(tiny_bundle: Path) -> None:
    import random

    rng = random.Random(7)
    vocab = "the a of on car automobile big large mouse mice get rid remove it we many lot".split()
    hyps = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 12))) for _ in range(300)]
    refs = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 12))) for _ in range(300)]
    m = Meteor("en", bundle=tiny_bundle, quiet=True)
    one = m.score_corpus(hyps, [refs], jobs=1)
    two = m.score_corpus(hyps, [refs], jobs=2)
    assert [s.score for s in one.segments] == [s.score for s in two.segments]
    assert [s.stats for s in one.segments] == [s.stats for s in two.segments]
    assert one.score == two.score and 0.0 < one.score < 1.0


def test_custom_parameters_take_adequacy_weights() -> None:
    # Meteor 1.5 makes -p a "custom" task whose weights are the Adequacy ones (checked with the jar).
    cfg = resolve_config("en", params=(0.5, 1.0, 0.4, 0.5))
    assert cfg.weights == (1.0, 1.0, 0.6, 0.8) and cfg.task_description == "Custom"
    assert resolve_config("en", params=(0.5, 1.0, 0.4, 0.5), weights=[1, 0, 0, 0]).weights == (1.0, 0.0, 0.0, 0.0)


def test_java_hash_and_collisions(empty_bundle: Path) -> None:
    from meteor_lite.jarcompat import java_string_hash as java_hash

    assert java_hash("hello") == 99162322 and java_hash("") == 0
    assert java_hash("Aa") == java_hash("BB") == 2112
    assert java_hash("\U0001F600") == 1772899  # computed over UTF-16 code units
    # Meteor 1.5 compares words by hash code: colliding words match exactly (checked with the jar).
    m = Meteor("en", bundle=empty_bundle, modules=["exact"], weights=[1.0], quiet=True)
    assert m.score_segment("Aa", ["BB"]).score == 1.0


def test_bundle_stem_map_overrides_stemmer(tmp_path: Path) -> None:
    # Meteor 1.5's older German Snowball stemmer keeps "-niss" (ergebnisse -> ergebniss) where
    # snowballstemmer 2.2.0 gives "ergebnis"; a bundle stem map carries Meteor's stem.
    plain = make_empty_bundle(tmp_path / "plain.sqlite", language="de")
    fixed = tmp_path / "fixed.sqlite"
    with BundleWriter(fixed, language="de", name="de", version="0.0.1") as w:
        w.add_stems([("ergebnisse", "ergebniss")])
    kw = dict(modules=["exact", "stem"], weights=[1.0, 0.8], quiet=True)
    with_map = Meteor("de", bundle=fixed, **kw).score_segment("ergebnisse", ["ergebnis"])
    without = Meteor("de", bundle=plain, **kw).score_segment("ergebnisse", ["ergebnis"])
    assert with_map.score == 0.0
    assert without.score > 0.0 and without.stats.test_content[1] == 1


@pytest.mark.java
def test_jar_stemmer_differs_from_snowballstemmer_where_expected() -> None:
    from meteor_lite_builders.jar import find_jar as jar_path
    from meteor_lite_builders.lexical.stems import make_stemmer
    from meteor_lite_builders.official.stems import jar_stems

    words = ["ergebnisse", "ergebnis", "haus", "häuser"]
    theirs = jar_stems(words, "german", jar_path())
    ours = make_stemmer("german")(words)
    assert theirs[0] == "ergebniss" and ours[0] == "ergebnis"
    assert theirs[1:] == ours[1:]


def test_gc_paused_restores_the_collector_as_it_found_it() -> None:
    """Scoring pauses the cyclic GC and turns it on again only if it was on (also after an error)."""
    import gc

    from meteor_lite.gcpause import gc_paused

    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("inside")
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # the caller had turned it off: it stays off
    finally:
        gc.enable()
