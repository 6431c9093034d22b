"""The modules a language scores with by default (meteor_lite/defaults.py, configure.setup_scorer)."""

from __future__ import annotations

from pathlib import Path

import pytest

from meteor_lite import Meteor
from meteor_lite.config import TunedTask, resolve_config
from meteor_lite.defaults import default_modules_for, universal_set, universal_weight
from meteor_lite.errors import MeteorLiteWarning, MissingResourcesError
from meteor_lite.tuned import shipped_languages
from tiny_bundles import make_empty_bundle, make_tiny_bundle

ALL = {"exact": True, "stem": True, "synonym": True, "paraphrase": True}
POOLED = TunedTask("pooled", 0.7, 1.2, 0.4, 0.6, ("exact", "stem", "synonym", "paraphrase"), (1.0, 0.7, 0.9, 0.4))


def test_official_import_keeps_meteor_defaults_and_drops_what_is_missing() -> None:
    cfg = resolve_config("de")
    fitted = default_modules_for(cfg, {**ALL, "paraphrase": False}, official=True, extendable=True, universal=POOLED)
    assert fitted.config.modules == ("exact", "stem") and fitted.config.weights == (1.0, 0.8)
    assert fitted.dropped == ("paraphrase",) and fitted.added == ()
    assert fitted.config.params == cfg.params and fitted.config.task == "rank"
    # English's official bundle has every table: nothing changes (the parity configuration)
    en = resolve_config("en")
    assert default_modules_for(en, ALL, official=True, extendable=True, universal=POOLED).config == en


def test_other_bundle_of_a_meteor_language_adds_its_synonyms() -> None:
    fr = resolve_config("fr")  # exact stem paraphrase, 1.0 0.2 0.4
    fitted = default_modules_for(fr, {**ALL, "paraphrase": False}, official=False, extendable=True, universal=POOLED)
    assert fitted.config.modules == ("exact", "stem", "synonym")
    assert fitted.config.weights == (1.0, 0.2, 0.9)  # Meteor's weights where it has them, the universal set's otherwise
    assert fitted.added == ("synonym",) and fitted.dropped == ("paraphrase",)
    it = resolve_config("it")  # language-independent preset: four weights by position
    assert default_modules_for(it, ALL, official=False, extendable=True, universal=POOLED).config.weights == (1.0, 0.5, 0.5, 0.5)


def test_language_outside_meteor_takes_every_module_and_the_universal_set() -> None:
    ca = resolve_config("ca")
    fitted = default_modules_for(ca, {**ALL, "paraphrase": False}, official=False, extendable=True, universal=POOLED)
    c = fitted.config
    assert c.modules == ("exact", "stem", "synonym") and c.weights == (1.0, 0.7, 0.9)
    assert c.params == (0.7, 1.2, 0.4, 0.6) and c.task == "pooled" and c.tuned_hash == POOLED.short_hash
    without = default_modules_for(ca, ALL, official=False, extendable=True, universal=None).config
    assert without.task == "li" and without.weights == tuple(universal_weight(m, None) for m in without.modules)


def test_nothing_is_added_to_what_the_caller_chose() -> None:
    ca = resolve_config("ca", weights=[1.0, 0.5])
    fitted = default_modules_for(ca, ALL, official=False, extendable=False, universal=POOLED)
    assert fitted.config.modules == ("exact", "stem") and fitted.added == ()


def test_universal_set_is_read_from_the_shipped_sets() -> None:
    assert universal_set({"*": {"pooled": POOLED}}) is POOLED
    assert universal_set({"de": {"mqm": POOLED}}) is None
    shipped = universal_set(shipped_languages())
    if shipped is not None:  # the shipped set covers every module a bundle may have
        assert set(shipped.modules) == set(ALL)


def test_scorer_uses_a_bundles_synonyms_and_paraphrases(tmp_path: Path) -> None:
    bundle = make_tiny_bundle(tmp_path / "ca.sqlite", language="ca")
    m = Meteor("ca", bundle=bundle, quiet=True)
    assert m.config.modules == ("exact", "stem", "synonym", "paraphrase")
    assert "|mods:exact+stem+syn+para|" in m.signature and not m.warnings
    plain = Meteor("ca", bundle=bundle, modules=["exact", "stem"], quiet=True)
    hyp, ref = "the big automobile", "the large car"
    assert m.score_segment(hyp, [ref]).score > plain.score_segment(hyp, [ref]).score


def test_meteor_language_without_its_table_scores_with_a_warning(tmp_path: Path) -> None:
    bare = make_empty_bundle(tmp_path / "de.sqlite", language="de")
    with pytest.warns(MeteorLiteWarning, match=r"bundle install de --paraphrase paraphrase-de\.gz"):
        m = Meteor("de", bundle=bare)
    assert m.config.modules == ("exact", "stem") and "|mods:exact+stem|w:1,0.8|" in m.signature
    with pytest.raises(MissingResourcesError, match=r"German .*need a paraphrase table.*--paraphrase paraphrase-de\.gz"):
        Meteor("de", bundle=bare, strict_modules=True)
    # the same score as asking for the modules it has
    asked = Meteor("de", bundle=bare, modules=["exact", "stem"], quiet=True)
    pair = ("Der Hund bellte laut", ["Der Hund bellt laut"])
    assert m.score_segment(*pair).score == asked.score_segment(*pair).score


def test_explicit_module_without_its_table_is_one_sentence(tmp_path: Path) -> None:
    bare = make_empty_bundle(tmp_path / "de.sqlite", language="de")
    with pytest.raises(MissingResourcesError) as err:
        Meteor("de", bundle=bare, modules=["exact", "synonym"], quiet=True)
    assert str(err.value).startswith("module synonym (synonym sets) needs a table that bundle ")


def test_modules_without_weights_outside_meteor_take_the_universal_weights(tmp_path: Path) -> None:
    bundle = make_tiny_bundle(tmp_path / "ca.sqlite", language="ca")
    m = Meteor("ca", bundle=bundle, modules=["exact", "synonym"])  # no "more modules than weights" warning
    assert not m.warnings and m.config.modules == ("exact", "synonym")
    universal = universal_set(shipped_languages())
    assert m.config.weights == (universal_weight("exact", universal), universal_weight("synonym", universal))
    assert m.config.weights[1] > 0
    # a Meteor 1.5 language keeps the jar's positional weights, padded with zeros (checked with the jar)
    it = Meteor("it", bundle=make_tiny_bundle(tmp_path / "it.sqlite", language="it"), quiet=True,
                modules=["exact", "stem", "synonym", "paraphrase"])
    assert it.config.weights == (1.0, 0.5, 0.0, 0.0)


def test_strict_modules_is_meteors_configuration_exactly(tmp_path: Path) -> None:
    ca = Meteor("ca", bundle=make_tiny_bundle(tmp_path / "ca.sqlite", language="ca"), strict_modules=True, quiet=True)
    assert ca.config.modules == ("exact", "stem") and ca.config.task == "li" and ca.config.params == (0.75, 1.4, 0.7, 0.5)
    fr = Meteor("fr", bundle=make_tiny_bundle(tmp_path / "fr.sqlite", language="fr"), strict_modules=True, quiet=True)
    assert fr.config.modules == ("exact", "stem", "paraphrase")  # the tiny bundle's synonyms are not added


def test_universal_set_scores_an_identical_segment_of_function_words_one(tmp_path: Path) -> None:
    """With δ = 1 function words would count for nothing, and such a segment (common in Vietnamese) score 0."""
    from meteor_lite_builders.bundle.writer import BundleWriter

    out = tmp_path / "vi.sqlite"
    with BundleWriter(out, language="vi", name="vi", version="0.0.1") as w:
        w.add_function_words(["cuộc", "một", "đang", "thủ", "nếu", "muốn"])
    m = Meteor("vi", bundle=out, quiet=True)
    assert m.score_segment("cuộc một đang thủ nếu muốn", ["cuộc một đang thủ nếu muốn"]).score == 1.0
    universal = universal_set(shipped_languages())
    assert universal is not None and universal.delta < 1.0
