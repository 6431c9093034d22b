"""Languages with a simplemma lemma map and no wordfreq list (Welsh, Georgian, Latin, ...): recipes without function words."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from meteor_lite import Meteor
from meteor_lite.resources.bundle import Bundle
from meteor_lite_builders.recipes import load_recipe
from meteor_lite_builders.recipes.catalogue import CATALOGUE, catalogue_recipe

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "resources" / "recipes"
NO_WORDFREQ = sorted(c for c, e in CATALOGUE.items() if not e.wordfreq)


def test_lemma_only_recipes_are_shipped() -> None:
    assert NO_WORDFREQ == ["cy", "gv", "ka", "la", "lb", "ml", "sw"]
    for code in NO_WORDFREQ:
        r = load_recipe(RECIPES / f"{code}.toml")
        assert list(r.sources) == ["lemmas"] and r.uses("stems") == ["lemmas"]
        assert "function_words" not in r.sections and "no function words" in r.description


@pytest.mark.skipif(importlib.util.find_spec("simplemma") is None, reason="simplemma (lemmas extra) is not installed")
def test_manx_recipe_builds_a_lemma_matcher(tmp_path: Path) -> None:
    """The shipped recipe as the catalogue writes it, built (simplemma's Manx data: 48,549 forms, about 2 s)."""
    from meteor_lite_builders.recipes.build import build_recipe

    data = catalogue_recipe("gv", tmp_path / "gv.toml")
    assert data["sources"] == load_recipe(RECIPES / "gv.toml").content["sources"]
    res = build_recipe(RECIPES / "gv.toml", tmp_path / "gv.sqlite", show_progress=False)
    with Bundle.open(res.path) as b:
        assert b.stemmer is not None and b.stemmer["language"] == "simplemma:gv"
        assert b.counts()["function_words"] == 0 and b.counts()["stems"] > 40_000
    m = Meteor("gv", bundle=res.path, quiet=True)
    assert m.config.modules == ("exact", "stem")
    assert m.score_segment("havailyn", ["savail"]).stats.ref_word_matches == 1  # a mutated form and its lemma
    assert m.score_segment("havailyn", ["saveen"]).stats.ref_word_matches == 0
