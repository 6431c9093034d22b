"""Lemma maps and Snowball 3 (PyStemmer) stem maps: map-only stem maps for languages the scorer cannot stem."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import List, Tuple

import pytest

from meteor_lite import Meteor
from meteor_lite.configure import stemmer_name
from meteor_lite.resources.bundle import Bundle
from meteor_lite_builders.errors import MalformedSourceError, MissingSourceError, RecipeError, SourceError
from meteor_lite_builders.lexical.lemmas import (
    SNOWBALL3_ONLY,
    check_map_only,
    lemma_stem_map,
    pystemmer_stem_map,
    read_lemma_file,
)
from meteor_lite_builders.recipes import build_recipe, check_sources, load_recipe

needs_pystemmer = pytest.mark.skipif(importlib.util.find_spec("Stemmer") is None,
                                     reason="PyStemmer (lemmas extra) is not installed")
needs_simplemma = pytest.mark.skipif(importlib.util.find_spec("simplemma") is None,
                                     reason="simplemma (lemmas extra) is not installed")

LEMMAS = "# Bulgarian forms\nкотките\tкотка\nкотка\tкотка\nТичаха\tтичам\nтича\tтичам\n\nUS\tus\nus\tние\nдве думи\tдума\n"


def _pairs(sm: object) -> List[Tuple[str, str]]:
    return list(sm.pairs)  # type: ignore[attr-defined]


def test_read_lemma_file(tmp_path: Path) -> None:
    p = tmp_path / "bg.tsv"
    p.write_text(LEMMAS, encoding="utf-8")
    pairs, src = read_lemma_file(p, licence="CC0-1.0")
    assert pairs[0] == ("котките", "котка") and len(pairs) == 7
    assert src.licence == "CC0-1.0" and src.sha256 == hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    "text, line, problem",
    [("a\tb\nonly-one-field\n", 2, "expected 'form<TAB>lemma'"), ("a\tb\tc\n", 1, "expected"),
     ("a\t \n", 1, "expected"), (b"a\tb\n\xff\tx\n", 2, "not valid UTF-8")],
)
def test_lemma_file_errors_name_file_and_line(tmp_path: Path, text: object, line: int, problem: str) -> None:
    p = tmp_path / "bad.tsv"
    p.write_bytes(text if isinstance(text, bytes) else str(text).encode("utf-8"))
    with pytest.raises(MalformedSourceError) as e:
        read_lemma_file(p)
    assert e.value.line == line and problem in str(e.value) and str(p) in str(e.value)


def test_missing_lemma_file(tmp_path: Path) -> None:
    with pytest.raises(MissingSourceError, match="nope.tsv: lemma file not found"):
        read_lemma_file(tmp_path / "nope.tsv")


def test_lemma_map_tokens_clashes_identities(tmp_path: Path) -> None:
    p = tmp_path / "bg.tsv"
    p.write_text(LEMMAS, encoding="utf-8")
    pairs, src = read_lemma_file(p)
    sm = lemma_stem_map(pairs, "bg", name="lemma-file:test", package="test", version="1", sources=[src], show_progress=False)
    got = dict(_pairs(sm))
    assert got["котките"] == "котка" and got["тичаха"] == "тичам"  # lower-cased as the scorer does
    assert "котка" not in got  # identity pairs are left out (a word outside the map is its own stem)
    assert got["us"] == "ние"  # 'us' (already the token) wins over 'US' -> 'us'
    assert "две" not in got and "две думи" not in got  # a form of two tokens is dropped
    assert sm.params["lemmas"]["dropped_not_one_token"] == 1  # type: ignore[index]
    assert sm.stemmer.algorithm == "lemma-file:test"


def test_map_only_refused_where_the_scorer_stems() -> None:
    with pytest.raises(SourceError, match="stems language 'de' with Snowball 'german'"):
        check_map_only("de", "lemma map")
    with pytest.raises(SourceError, match="'english'"):
        lemma_stem_map([("went", "go")], "en", name="lemma-file:x", package="x", version="1", show_progress=False)
    with pytest.raises(SourceError, match="is a Snowball algorithm"):
        lemma_stem_map([("a", "b")], "bg", name="german", package="x", version="1", show_progress=False)
    check_map_only("bg", "lemma map")
    check_map_only("cz", "lemma map")  # Meteor's Czech has no stemmer


def _lemma_recipe(tmp_path: Path, extra_stems: str = "") -> Path:
    data = tmp_path / "bg.tsv"
    data.write_text(LEMMAS, encoding="utf-8")
    sha = hashlib.sha256(data.read_bytes()).hexdigest()
    p = tmp_path / "bg.toml"
    p.write_text(
        f"""format = "meteor-lite-recipe"
format_version = 1

[bundle]
language = "bg"
name = "bg-test"
version = "1.0.0"

[sources.lemmas]
kind = "lemma-file"
path = "bg.tsv"
sha256 = "{sha}"
licence = "ODbL-1.0"

[stems]
from = "lemmas"
{extra_stems}""",
        encoding="utf-8",
    )
    return p


def test_lemma_recipe_builds_a_map_only_bundle(tmp_path: Path) -> None:
    res = build_recipe(_lemma_recipe(tmp_path), tmp_path / "bg-test.sqlite", show_progress=False)
    with Bundle.open(res.path) as b:
        assert b.stemmer is not None and b.stemmer["language"].startswith("lemma-file:")
        assert [s["licence"] for s in b.sources()] == ["ODbL-1.0"]
        assert stemmer_name(b, "bg") is None  # the scorer uses the map only
    m = Meteor("bg", bundle=res.path, quiet=True)
    assert m.config.modules == ("exact", "stem")
    assert m.score_segment("котките тичаха", ["котка тича"]).stats.ref_word_matches == 2
    # words outside the map stay as they are: no Snowball stemmer joins them
    assert m.score_segment("котенца", ["котенцата"]).stats.ref_word_matches == 0


@pytest.mark.parametrize(
    "extra, message",
    [('algorithm = "english"\n', "a lemma map takes no algorithm"),
     ('stemmer = "PyStemmer"\n', "a lemma map takes no")],
)
def test_lemma_recipe_rejects_stemmer_keys(tmp_path: Path, extra: str, message: str) -> None:
    with pytest.raises(RecipeError, match=message):
        load_recipe(_lemma_recipe(tmp_path, extra))


def test_recipe_rejects_lemmas_with_vocabularies_and_unpinned_stemmer(tmp_path: Path) -> None:
    p = _lemma_recipe(tmp_path)
    text = p.read_text(encoding="utf-8")
    corpus = tmp_path / "c.txt"
    corpus.write_text("котка\n", encoding="utf-8")
    sha = hashlib.sha256(corpus.read_bytes()).hexdigest()
    mixed = text.replace('[stems]\nfrom = "lemmas"', f'[sources.c]\nkind = "corpus"\npath = "c.txt"\nsha256 = "{sha}"\n'
                         'licence = "CC0-1.0"\n\n[stems]\nfrom = ["lemmas", "c"]')
    p.write_text(mixed, encoding="utf-8")
    with pytest.raises(RecipeError, match="from lemma sources .* or from vocabularies, not both"):
        load_recipe(p)
    p.write_text(mixed.replace('from = ["lemmas", "c"]', 'from = ["c"]\nalgorithm = "czech"\nstemmer = "PyStemmer"')
                 .replace('[sources.lemmas]\nkind = "lemma-file"\npath = "bg.tsv"', '[sources.unused]\nkind = "corpus"\npath = "c.txt"'),
                 encoding="utf-8")
    with pytest.raises(RecipeError, match="pinned 'PyStemmer==<version>'"):
        load_recipe(p)


@needs_pystemmer
def test_pystemmer_only_for_snowball3_algorithms() -> None:
    with pytest.raises(SourceError, match="snowballstemmer 2.2.0 lacks"):
        pystemmer_stem_map({"running"}, "english", "en")
    with pytest.raises(MissingSourceError, match="pins PyStemmer 0.0.1"):
        pystemmer_stem_map({"kočky"}, "czech", "cz", version="0.0.1", show_progress=False)
    import snowballstemmer

    assert not set(SNOWBALL3_ONLY) & set(snowballstemmer._languages)  # type: ignore[attr-defined]


@needs_pystemmer
def test_pystemmer_czech_map_is_map_only(tmp_path: Path) -> None:
    corpus = tmp_path / "cs.txt"
    corpus.write_text("kočky běhaly po zahradě .\nkočka běhá v zahradách .\n", encoding="utf-8")
    sha = hashlib.sha256(corpus.read_bytes()).hexdigest()
    import Stemmer

    ver = Stemmer.version()
    p = tmp_path / "cz.toml"
    p.write_text(
        f"""format = "meteor-lite-recipe"
format_version = 1

[bundle]
language = "cz"
name = "cz-test"
version = "1.0.0"

[sources.c]
kind = "corpus"
path = "cs.txt"
sha256 = "{sha}"
licence = "CC0-1.0"

[stems]
from = ["c"]
algorithm = "czech"
stemmer = "PyStemmer=={ver}"
""",
        encoding="utf-8",
    )
    res = build_recipe(p, tmp_path / "cz-test.sqlite", show_progress=False)
    with Bundle.open(res.path) as b:
        assert b.stemmer == {"language": "czech", "package": "PyStemmer", "version": ver}
        assert stemmer_name(b, "cz") is None
        stems = b.stems(["kočky", "kočka", "zahradě", "zahradách"])
    assert stems["kočky"] == stems["kočka"] and stems["zahradě"] == stems["zahradách"]
    m = Meteor("cz", bundle=res.path, modules=["exact", "stem"], quiet=True)
    assert m.score_segment("kočky", ["kočka"]).stats.ref_word_matches == 1
    assert m.score_segment("psy", ["psi"]).stats.ref_word_matches == 0  # outside the map: unstemmed


@needs_pystemmer
def test_cli_stems_stemmer_czech_runs_pystemmer(tmp_path: Path) -> None:
    """`meteor-build stems --stemmer czech` (a Snowball 3 algorithm snowballstemmer lacks): PyStemmer's map-only
    stem map, the same stems as a recipe's; refused for a language the scorer stems itself."""
    from typer.testing import CliRunner

    from meteor_lite_builders.cli import app
    from meteor_lite_builders.lexical.lemmas import pystemmer_stem_map

    corpus = tmp_path / "cs.txt"
    corpus.write_text("kočky běhaly po zahradě .\nkočka běhá v zahradách .\n", encoding="utf-8")
    out = tmp_path / "cz-stems.sqlite"
    runner = CliRunner()
    r = runner.invoke(app, ["stems", "--lang", "cz", "--corpus", str(corpus), "--stemmer", "czech", "--out", str(out),
                            "--no-progress"])
    assert r.exit_code == 0, r.output
    import Stemmer

    want = pystemmer_stem_map({"kočky", "běhaly", "po", "zahradě", ".", "kočka", "běhá", "v", "zahradách"}, "czech", "cz",
                              show_progress=False)
    with Bundle.open(out) as b:
        assert b.stemmer == {"language": "czech", "package": "PyStemmer", "version": Stemmer.version()}
        assert b.stems(["kočky", "kočka", "zahradě", "zahradách"]) == {w: s for w, s in want.pairs if w in ("kočky", "kočka", "zahradě", "zahradách")}
        assert b.stems(["kočky"])["kočky"] == b.stems(["kočka"])["kočka"]
    r = runner.invoke(app, ["stems", "--lang", "en", "--corpus", str(corpus), "--stemmer", "czech", "--out",
                            str(tmp_path / "en.sqlite")])
    assert r.exit_code == 1 and "stems language 'en' with Snowball 'english'" in r.output
    assert not (tmp_path / "en.sqlite").exists()


@needs_simplemma
def test_simplemma_source_checksum_and_missing_language(tmp_path: Path) -> None:
    from meteor_lite_builders.lexical.lemmas import simplemma_data_file

    sha = hashlib.sha256(simplemma_data_file("bg").read_bytes()).hexdigest()
    p = tmp_path / "bg.toml"
    body = f"""format = "meteor-lite-recipe"
format_version = 1

[bundle]
language = "bg"
version = "1.0.0"

[sources.lemmas]
kind = "simplemma"
language = "LANG"
sha256 = "{sha}"
licence = "mixed"

[stems]
from = "lemmas"
"""
    p.write_text(body.replace("LANG", "bg"), encoding="utf-8")
    assert check_sources(load_recipe(p))["lemmas"].found
    p.write_text(body.replace("LANG", "xx"), encoding="utf-8")
    with pytest.raises(MissingSourceError, match="source 'lemmas': simplemma .* has no dictionary for 'xx'"):
        check_sources(load_recipe(p))


def test_cli_stems_lemmas_and_new_recipe(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from meteor_lite_builders.cli import app

    runner = CliRunner()
    data = tmp_path / "bg.tsv"
    data.write_text(LEMMAS, encoding="utf-8")
    out = tmp_path / "bg-lemmas.sqlite"
    r = runner.invoke(app, ["stems", "--lang", "bg", "--lemmas", str(data), "--lemma-licence", "CC0-1.0", "--out", str(out),
                            "--no-progress"])
    assert r.exit_code == 0, r.output
    with Bundle.open(out) as b:
        assert b.stems(["котките"]) == {"котките": "котка"} and b.sources()[0]["licence"] == "CC0-1.0"
    r = runner.invoke(app, ["stems", "--lang", "de", "--lemmas", str(data), "--out", str(tmp_path / "de.sqlite")])
    assert r.exit_code == 1 and "stems language 'de' with Snowball 'german'" in r.output
    recipe = tmp_path / "bg.toml"
    r = runner.invoke(app, ["new-recipe", "--lang", "bg", "--lemmas", str(data), "--lemma-licence", "ODbL-1.0",
                            "--prefixes", "none", "--out", str(recipe)])
    assert r.exit_code == 0, r.output
    rec = load_recipe(recipe)
    assert rec.sections["stems"] == {"from": "lemmas"} and rec.sources["lemmas"].kind == "lemma-file"
    built = build_recipe(recipe, tmp_path / "from-recipe.sqlite", show_progress=False)
    with Bundle.open(built.path) as b:
        assert b.stems(["котките"]) == {"котките": "котка"}
