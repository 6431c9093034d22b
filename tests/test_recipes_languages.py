"""The shipped recipes cover >= 40 languages, and docs/languages.md's table is the one they give."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from meteor_lite.languages import canonical_language, default_tokenizer, long_name
from meteor_lite.resources.stemming import snowball_algorithm_for, snowball_classes
from meteor_lite_builders.lexical.lemmas import check_map_only
from meteor_lite_builders.recipes import load_recipe, recipe_files
from meteor_lite_builders.recipes.catalogue import CATALOGUE, has_matcher, language_rows, language_table

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "resources" / "recipes"
DOC = ROOT / "docs" / "languages.md"
BEGIN, END = "<!-- language-table:begin -->", "<!-- language-table:end -->"


def _shipped():  # type: ignore[no-untyped-def]
    return [load_recipe(p) for p in recipe_files([RECIPES])]


def test_at_least_40_languages_with_function_words_and_a_matcher() -> None:
    good = {canonical_language(r.language) for r in _shipped() if "function_words" in r.sections and has_matcher(r)}
    assert len(good) >= 40, sorted(good)


def test_map_only_recipes_are_for_languages_the_scorer_cannot_stem() -> None:
    """A lemma or PyStemmer map never meets a runtime Snowball stemmer: one stemmer per bundle."""
    seen = 0
    for r in _shipped():
        sec = r.sections.get("stems")
        if sec is None:
            continue
        kinds = {r.sources[n].kind for n in r.uses("stems")}
        if (kinds & {"simplemma", "lemma-file"} or str(sec.get("stemmer", "")).startswith("PyStemmer")
                or (kinds == {"hunspell"} and "algorithm" not in sec)):
            check_map_only(r.language, str(r.path))
            seen += 1
        else:  # a Snowball 2.2.0 map: an algorithm of the scorer's snowballstemmer
            assert (sec.get("algorithm") or snowball_algorithm_for(canonical_language(r.language))) in snowball_classes(), r.path
    assert seen >= 14


def test_catalogue_languages_have_recipes() -> None:
    names = {r.language: r for r in _shipped()}
    for code, entry in CATALOGUE.items():
        r = names[code]
        assert entry.name in r.description
        if entry.stems.startswith("simplemma:"):
            (src,) = [r.sources[n] for n in r.uses("stems")]
            assert src.kind == "simplemma" and src.language == entry.stems.split(":")[1]
            assert "ODbL" in src.licence


def _doc_table() -> str:
    text = DOC.read_text(encoding="utf-8")
    assert BEGIN in text and END in text, f"{DOC} lacks the {BEGIN} ... {END} markers"
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip()


def _without_sizes(table: str) -> list:
    rows = []
    for line in table.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            del cells[7]  # sizes: from the built bundles, not the recipes
            rows.append(cells)
    return rows


def test_docs_table_matches_the_recipes() -> None:
    """Regenerate with: meteor-build recipe resources/recipes --table --out-dir resources/bundles."""
    want = _without_sizes(language_table(language_rows(RECIPES)))
    got = _without_sizes(_doc_table())
    assert got == want


def test_language_codes() -> None:
    assert canonical_language("cs") == "cz" and canonical_language("sv") == "se"
    assert canonical_language("se") == "se" and long_name("se") == "swedish"  # Meteor's Swedish, not Northern Sami
    assert canonical_language("fil") == "tl"
    for r in _shipped():
        code = canonical_language(r.language)
        assert code == r.language and re.fullmatch(r"[a-z]{2}", code), r.path
    assert default_tokenizer("pl") == "meteor"


@pytest.mark.skipif(importlib.util.find_spec("simplemma") is None or importlib.util.find_spec("wordfreq") is None,
                    reason="simplemma/wordfreq (lemmas, build extras) are not installed")
@pytest.mark.parametrize("code", ["ms", "fa"])
def test_catalogue_writes_the_shipped_recipe(code: str, tmp_path: Path) -> None:
    from meteor_lite_builders.recipes.catalogue import write_catalogue

    if code == "fa" and importlib.util.find_spec("Stemmer") is None:
        pytest.skip("PyStemmer (lemmas extra) is not installed")
    (out,) = write_catalogue(tmp_path, [code])
    assert load_recipe(out).content == load_recipe(RECIPES / f"{code}.toml").content
