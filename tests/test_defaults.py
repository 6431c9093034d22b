"""A language's configuration (meteor_lite/defaults.py's language_config) and its callers: configure.setup_scorer,
meteor-jar's set-up and ``bundle available``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from meteor_lite import Meteor
from meteor_lite.config import TunedTask, resolve_config
from meteor_lite.defaults import Capabilities, language_config, universal_weight
from meteor_lite.errors import MeteorLiteWarning, MissingResourcesError
from meteor_lite.tuned import shipped_languages, universal_set
from tiny_bundles import make_empty_bundle, make_tiny_bundle

ALL = Capabilities(stem=True, synonyms=True, paraphrases=True, function_words=True)
NO_PARA = Capabilities(stem=True, synonyms=True, function_words=True)
MODULES4 = {"exact", "stem", "synonym", "paraphrase"}
POOLED = TunedTask("pooled", 0.7, 1.2, 0.4, 0.6, ("exact", "stem", "synonym", "paraphrase"), (1.0, 0.7, 0.9, 0.4))


def test_official_import_keeps_meteor_defaults_and_drops_what_is_missing() -> None:
    cfg = resolve_config("de")
    fitted = language_config(cfg, replace(NO_PARA, official=True), universal=POOLED)
    assert fitted.config.modules == ("exact", "stem") and fitted.config.weights == (1.0, 0.8)
    assert fitted.dropped == ("paraphrase",) and fitted.added == ()
    assert fitted.config.params == cfg.params and fitted.config.task == "rank"
    # English's official bundle has every table: nothing changes (the parity configuration)
    en = resolve_config("en")
    assert language_config(en, replace(ALL, official=True), universal=POOLED).config == en


def test_other_bundle_of_a_meteor_language_adds_its_synonyms() -> None:
    fr = resolve_config("fr")  # exact stem paraphrase, 1.0 0.2 0.4
    fitted = language_config(fr, NO_PARA, universal=POOLED)
    assert fitted.config.modules == ("exact", "stem", "synonym")
    assert fitted.config.weights == (1.0, 0.2, 0.9)  # Meteor's weights where it has them, the universal set's otherwise
    assert fitted.added == ("synonym",) and fitted.dropped == ("paraphrase",)
    it = resolve_config("it")  # language-independent preset: four weights by position
    assert language_config(it, ALL, universal=POOLED).config.weights == (1.0, 0.5, 0.5, 0.5)


def test_language_outside_meteor_takes_every_module_and_the_universal_set() -> None:
    ca = resolve_config("ca")
    fitted = language_config(ca, NO_PARA, universal=POOLED)
    c = fitted.config
    assert c.modules == ("exact", "stem", "synonym") and c.weights == (1.0, 0.7, 0.9)
    assert c.params == (0.7, 1.2, 0.4, 0.6) and c.task == "pooled" and c.tuned_hash == POOLED.short_hash
    without = language_config(ca, ALL, universal=None).config
    assert without.task == "li" and without.weights == tuple(universal_weight(m, None) for m in without.modules)


def test_nothing_is_added_to_what_the_caller_chose() -> None:
    ca = resolve_config("ca", weights=[1.0, 0.5])
    fitted = language_config(ca, ALL, extendable=False, universal=POOLED)
    assert fitted.config.modules == ("exact", "stem") and fitted.added == ()


def test_universal_set_is_read_from_the_shipped_sets() -> None:
    assert universal_set({"*": {"pooled": POOLED}}) is POOLED
    assert universal_set({"de": {"mqm": POOLED}}) is None
    shipped = universal_set(shipped_languages())
    assert shipped is universal_set()  # one function: the shipped file's set by default
    if shipped is not None:  # the shipped set covers every module a bundle may have
        assert set(shipped.modules) == MODULES4


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


# -- the one function and its callers --------------------------------------------------------------------------


def _only_exact(monkeypatch: pytest.MonkeyPatch) -> list:
    """Make ``language_config`` answer ``exact`` (weight 1) for every language; return the list of its calls."""
    import meteor_lite.defaults as defaults

    real = defaults.language_config
    calls: list = []

    def spy(request, capabilities=None, **kw):  # type: ignore[no-untyped-def]
        out = real(request, capabilities, **kw)
        calls.append(capabilities)
        return replace(out, config=replace(out.config, modules=("exact",), weights=(1.0,)))

    monkeypatch.setattr(defaults, "language_config", spy)
    return calls


def test_meteor_takes_its_configuration_from_language_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bundle = make_tiny_bundle(tmp_path / "en.sqlite", language="en")
    assert Meteor("en", bundle=bundle, quiet=True).config.modules == ("exact", "stem", "synonym", "paraphrase")
    calls = _only_exact(monkeypatch)
    m = Meteor("en", bundle=bundle, quiet=True)
    assert m.config.modules == ("exact",) and m.config.weights == (1.0,)
    assert calls[0] is None and isinstance(calls[-1], Capabilities)  # before the bundle is open, then with it


def test_meteor_jar_takes_its_configuration_from_language_config(monkeypatch: pytest.MonkeyPatch) -> None:
    from meteor_lite.jarcli.options import parse_args
    from meteor_lite.jarcli.setup import jar_config

    opts = parse_args(["h", "r", "-l", "de"])
    assert jar_config(opts).modules == ("exact", "stem", "paraphrase")  # Meteor 1.5's German defaults
    _only_exact(monkeypatch)
    assert jar_config(opts).modules == ("exact",)


def _official_line(lines: list, lang: str) -> str:
    found = [ln for ln in lines if ln.split()[:2] == [lang, lang] and "Meteor 1.5" in ln]
    assert len(found) == 1, lines
    return found[0]


def test_bundle_available_takes_its_modules_from_language_config(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("meteor_lite_builders", reason="bundle available lists the builders' recipes")
    from meteor_lite_builders.recipes.shipped import available_lines

    assert " exact stem + function words" in _official_line(available_lines(), "de")
    calls = _only_exact(monkeypatch)
    assert " exact + function words" in _official_line(available_lines(), "de")
    assert calls and all(c is not None for c in calls)  # with the capabilities the bundle would have


def test_bundle_available_offers_only_the_paraphrase_tables_meteor_uses() -> None:
    """A table is offered for the languages whose Meteor 1.5 defaults include paraphrase (the full distribution's
    tables: Meteor 1.5 lists the module where it has one), English's being in the release; none for Danish."""
    pytest.importorskip("meteor_lite_builders", reason="bundle available lists the builders' recipes")
    from meteor_lite.languages import LANGUAGES, default_modules, default_task
    from meteor_lite_builders.official.release import LANGUAGE_NAMES
    from meteor_lite_builders.recipes.shipped import available_lines

    lines = available_lines()
    for lang in LANGUAGE_NAMES:
        offered = f"--paraphrase paraphrase-{lang}.gz" in _official_line(lines, lang)
        meteor_has = lang in LANGUAGES and "paraphrase" in default_modules(lang, default_task(lang))
        assert offered == (meteor_has and lang != "en"), lang
    assert "--paraphrase" not in _official_line(lines, "da")
    for ln in lines:  # a line that scores with stem never says the bundle has no stems
        assert not (" stem " in ln.split(";")[0] + " " and "no stems" in ln), ln


def test_meteor_jar_other_universal_needs_the_paraphrase_table_as_the_jar() -> None:
    """The jar with ``-l other -t universal`` prints ``Modules: exact paraphrase`` and dies on
    ``file not found (.../paraphrase-other.gz)`` (observed with meteor-1.5.jar); meteor-jar's header and error agree."""
    from meteor_lite.jarcli.options import parse_args
    from meteor_lite.jarcli.setup import JarCliError, build_scorer, jar_config

    opts = parse_args(["h", "r", "-l", "other", "-t", "universal"])
    assert jar_config(opts).modules == ("exact", "paraphrase")
    with pytest.raises(JarCliError, match=r"paraphrase-other\.gz"):
        build_scorer(opts)


def test_the_decision_is_made_in_one_place() -> None:
    """One universal set reader, one language key for it, and no second defaults function beside language_config."""
    import meteor_lite.configure as configure
    import meteor_lite.defaults as defaults
    import meteor_lite.tuned as tuned

    assert defaults.universal_set is tuned.universal_set and tuned.UNIVERSAL_LANGUAGE == "*"
    for gone in ("UNIVERSAL_KEY", "UNIVERSAL_NAMES", "default_modules_for", "DefaultModules"):
        assert not hasattr(defaults, gone), gone
    assert not hasattr(configure, "default_tokenizer")  # the tokeniser comes with the language's configuration
