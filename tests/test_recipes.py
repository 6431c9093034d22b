"""Declarative recipes: parsing and validation, source checksums, builds, reproducibility, CLI."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
import os
import shutil
from pathlib import Path
from typing import List

import pytest
from typer.testing import CliRunner

from meteor_lite import Meteor
from meteor_lite.resources.bundle import Bundle
from meteor_lite_builders.cli import app
from meteor_lite_builders.recipes import (
    MissingSourceError,
    RecipeError,
    build_recipe,
    check_sources,
    is_up_to_date,
    load_recipe,
    recipe_files,
    wordnet_digest,
)

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "resources" / "recipes"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
runner = CliRunner()

needs_wordfreq = pytest.mark.skipif(
    importlib.util.find_spec("wordfreq") is None, reason="wordfreq (build extra) is not installed"
)


def _have_release() -> bool:
    try:
        from meteor_lite_builders import jar as jar_api

        jar_api.find_jar()
    except Exception:
        return False
    return True


needs_release = pytest.mark.skipif(not _have_release(), reason="the official release (pycocoevalcap, build extra) is not installed")

CORPUS = "\n".join(
    [
        "the cats are running in the garden .",
        "the dog runs to the cats .",
        "a cat ran and the dogs were running .",
        "Mr. Smith walked the dog in the park .",
    ]
    * 5
) + "\n"
PREFIXES = "# test prefixes\nMr\nNo #NUMERIC_ONLY#\n"
PARAPHRASES = "0.5\nget rid of\nremove\n0.25\nremove\nget rid of\n0.125\nrunning\nrun\n"


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _inputs(d: Path) -> dict:
    """A corpus, a prefixes file, an LMF wordnet and a paraphrase table in ``d/data``."""
    data = d / "data"
    data.mkdir(parents=True, exist_ok=True)
    (data / "corpus.txt").write_text(CORPUS, encoding="utf-8")
    (data / "test.prefixes").write_text(PREFIXES, encoding="utf-8")
    shutil.copy(FIXTURES / "mini-lmf.xml", data / "mini-lmf.xml")
    with gzip.open(data / "para.gz", "wb") as f:
        f.write(PARAPHRASES.encode("utf-8"))
    return {n: data / n for n in ("corpus.txt", "test.prefixes", "mini-lmf.xml", "para.gz")}


def _recipe_text(files: dict, *, corpus_sha: str = "", extra: str = "", optional_lmf: bool = False,
                 lmf_path: str = "data/mini-lmf.xml") -> str:
    sha = corpus_sha or _sha(files["corpus.txt"])
    return f"""# a test recipe
format = "meteor-lite-recipe"
format_version = 1

[bundle]
language = "en"
name = "en-test"
version = "1.2.3"
description = "a test bundle"

[sources.corpus]
kind = "corpus"
path = "data/corpus.txt"
sha256 = "{sha}"
licence = "CC0-1.0"

[sources.prefixes]
kind = "prefixes"
path = "data/test.prefixes"
sha256 = "{_sha(files['test.prefixes'])}"
licence = "public domain"

[sources.wn]
kind = "lmf"
path = "{lmf_path}"
sha256 = "{_sha(files['mini-lmf.xml'])}"
licence = "CC-BY-4.0"
{"required = false" if optional_lmf else ""}

[sources.para]
kind = "paraphrase-table"
path = "data/para.gz"
sha256 = "{_sha(files['para.gz'])}"
licence = "LGPL-2.1"
description = "a tiny paraphrase table"

[function_words]
from = "corpus"
threshold = 0.05

[stems]
from = ["corpus", "wn"]
algorithm = "english"

[synonyms]
from = "wn"
lmf_language = "any"

[paraphrases]
from = "para"

[nonbreaking]
from = "prefixes"
{extra}"""


@pytest.fixture()
def recipe(tmp_path: Path) -> Path:
    files = _inputs(tmp_path)
    p = tmp_path / "en-test.toml"
    p.write_text(_recipe_text(files), encoding="utf-8")
    return p


# -- building -------------------------------------------------------------------------------


def test_build_from_recipe(recipe: Path, tmp_path: Path) -> None:
    res = build_recipe(recipe, out_dir=tmp_path / "out", show_progress=False)
    assert res.path == tmp_path / "out" / "en-test.sqlite"
    with Bundle.open(res.path) as b:
        assert (b.language, b.name, b.version) == ("en", "en-test", "1.2.3")
        assert b.meta["description"] == "a test bundle"
        counts = b.counts()
        assert counts["function_words"] > 0 and counts["stems"] > 0 and counts["synsets"] > 0
        assert counts["paraphrases"] == 3 and counts["nonbreaking_prefixes"] == 2
        assert "the" in b.function_words() and "garden" not in b.function_words()
        assert b.stems(["running"]) == {"running": "run"}
        assert b.paraphrases(["get rid of"]) == {"get rid of": ["remove"]}
        assert b.nonbreaking_prefixes() == {"Mr": False, "No": True}
        srcs = {s["name"]: s for s in b.sources()}
        # licences come from the recipe; locations are the recipe's (portable) paths
        assert srcs["corpus.txt"]["licence"] == "CC0-1.0"
        assert srcs["corpus.txt"]["location"] == "data/corpus.txt"
        assert srcs["test.prefixes"]["location"] == "data/test.prefixes"
        assert srcs["para.gz"]["description"] == "a tiny paraphrase table"
        assert srcs["mini-lmf.xml"]["licence"] == "CC-BY-4.0"
        params = json.loads(b.meta["build_params"])
        assert params["recipe"]["file"] == "en-test.toml"
        assert params["recipe"]["digest"] == load_recipe(recipe).digest
        assert params["recipe"]["content"]["bundle"]["name"] == "en-test"
        assert b.verify() == []
    # the scorer uses it
    m = Meteor("en", bundle=res.path, modules=["exact", "stem", "paraphrase"], quiet=True)
    assert m.score_segment("get rid of the cats", ["remove the cat"]).score > 0


def test_same_recipe_same_checksum(recipe: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = build_recipe(recipe, tmp_path / "a.sqlite", show_progress=False)
    # again, from another working directory, with the recipe reformatted (comments, key order)
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)
    text = recipe.read_text(encoding="utf-8").replace("# a test recipe", "# reformatted\n\n# more comments")
    text = text.replace('version = "1.2.3"\ndescription = "a test bundle"', 'description = "a test bundle"\nversion = "1.2.3"')
    recipe.write_text(text, encoding="utf-8")
    b = build_recipe(os.path.relpath(recipe), tmp_path / "b.sqlite", show_progress=False)
    assert a.checksum == b.checksum
    with Bundle.open(a.path) as x, Bundle.open(b.path) as y:
        assert x.meta["built_at"] and x.checksum == y.checksum
    # a change of meaning changes the checksum
    recipe.write_text(text.replace("threshold = 0.05", "threshold = 0.1"), encoding="utf-8")
    c = build_recipe(recipe, tmp_path / "c.sqlite", show_progress=False)
    assert c.checksum != a.checksum


def test_skip_up_to_date(recipe: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.sqlite"
    first = build_recipe(recipe, out, show_progress=False)
    again = build_recipe(recipe, out, skip_up_to_date=True, show_progress=False)
    assert again.up_to_date and again.checksum == first.checksum and "up to date" in again.summary()
    assert is_up_to_date(load_recipe(recipe), out) == first.checksum
    recipe.write_text(recipe.read_text(encoding="utf-8").replace('"1.2.3"', '"1.2.4"'), encoding="utf-8")
    assert is_up_to_date(load_recipe(recipe), out) is None
    rebuilt = build_recipe(recipe, out, skip_up_to_date=True, show_progress=False)
    assert not rebuilt.up_to_date and rebuilt.checksum != first.checksum


def test_checksum_mismatch_names_source_and_file(recipe: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "data" / "corpus.txt"
    corpus.write_text(CORPUS + "one more line\n", encoding="utf-8")
    out = tmp_path / "x.sqlite"
    with pytest.raises(RecipeError) as e:
        build_recipe(recipe, out, show_progress=False)
    msg = str(e.value)
    assert "checksum mismatch" in msg and "'corpus'" in msg and str(corpus) in msg and "en-test.toml" in msg
    assert not out.exists() and not list(tmp_path.glob(".x.sqlite*"))


def test_missing_source_names_file(recipe: Path, tmp_path: Path) -> None:
    (tmp_path / "data" / "para.gz").unlink()
    with pytest.raises(MissingSourceError, match=r"source 'para': file data/para.gz not found"):
        build_recipe(recipe, tmp_path / "x.sqlite", show_progress=False)
    assert not (tmp_path / "x.sqlite").exists()


def test_missing_optional_source_is_skipped(tmp_path: Path) -> None:
    files = _inputs(tmp_path)
    p = tmp_path / "r.toml"
    p.write_text(_recipe_text(files, optional_lmf=True, lmf_path="data/absent.xml"), encoding="utf-8")
    warnings: List[str] = []
    res = build_recipe(p, tmp_path / "x.sqlite", show_progress=False, warn=warnings.append)
    assert res.skipped_sources == ["wn"] and "skipped optional source(s) wn" in res.summary()
    assert any("optional" in w and "absent.xml" in w for w in warnings)
    with Bundle.open(res.path) as b:
        assert b.counts()["synsets"] == 0 and b.counts()["stems"] > 0
        assert json.loads(b.meta["build_params"])["recipe"]["skipped_sources"] == ["wn"]
    # a bundle built without an optional source is never "up to date"
    assert is_up_to_date(load_recipe(p), res.path) is None


def test_missing_sha256_gives_the_value(tmp_path: Path) -> None:
    files = _inputs(tmp_path)
    p = tmp_path / "r.toml"
    text = _recipe_text(files).replace(f'sha256 = "{_sha(files["corpus.txt"])}"\n', "")
    p.write_text(text, encoding="utf-8")
    with pytest.raises(RecipeError) as e:
        check_sources(load_recipe(p))
    assert f'sha256 = "{_sha(files["corpus.txt"])}"' in str(e.value)


def test_wordnet_digest_matches_sha256sum_listing(tmp_path: Path) -> None:
    d = tmp_path / "wn"
    d.mkdir()
    for n in ("data.noun", "data.verb", "noun.exc"):
        (d / n).write_text(n, encoding="utf-8")
    listing = "".join(f"{hashlib.sha256(n.encode()).hexdigest()}  {n}\n" for n in ("data.noun", "data.verb", "noun.exc"))
    assert wordnet_digest(d) == hashlib.sha256(listing.encode()).hexdigest()


# -- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace("format_version = 1", "format_version = 2"), "format_version 2 is not supported"),
        (lambda t: t.replace('format = "meteor-lite-recipe"', 'format = "other"'), "format must be"),
        (lambda t: t + "\n[extra]\nx = 1\n", "unknown key(s) extra"),
        (lambda t: t.replace('version = "1.2.3"', 'version = "one"'), "semantic version"),
        (lambda t: t.replace('version = "1.2.3"\n', ""), "'version' is required"),
        (lambda t: t.replace('kind = "corpus"', 'kind = "novel"'), "kind must be one of"),
        (lambda t: t.replace('licence = "CC0-1.0"\n', ""), "'licence' is required"),
        (lambda t: t.replace('threshold = 0.05', 'threshold = "high"'), "threshold must be a number"),
        (lambda t: t.replace('threshold = 0.05', 'treshold = 0.05'), "unknown key(s) treshold"),
        (lambda t: t.replace('[synonyms]\nfrom = "wn"', '[synonyms]\nfrom = "nope"'), "no such source"),
        (lambda t: t.replace('[paraphrases]\nfrom = "para"', '[paraphrases]\nfrom = "corpus"'), "is of kind 'corpus'"),
        (lambda t: t.replace('[paraphrases]\nfrom = "para"\n', ""), "para are declared but no section uses them"),
        (lambda t: t.replace('sha256 = "', 'sha256 = "XY', 1), "64 lowercase hex"),
        (lambda t: t.replace("[bundle]", "[bundle\n"), "not valid TOML"),
    ],
)
def test_malformed_recipes(tmp_path: Path, edit, message: str) -> None:
    files = _inputs(tmp_path)
    p = tmp_path / "bad.toml"
    p.write_text(edit(_recipe_text(files)), encoding="utf-8")
    with pytest.raises(RecipeError) as e:
        load_recipe(p)
    assert message in str(e.value) and str(p) in str(e.value)


def test_json_recipe_and_directories(tmp_path: Path) -> None:
    files = _inputs(tmp_path)
    toml = tmp_path / "a.toml"
    toml.write_text(_recipe_text(files), encoding="utf-8")
    r = load_recipe(toml)
    js = tmp_path / "b.json"
    js.write_text(json.dumps(r.content), encoding="utf-8")
    assert load_recipe(js).digest == r.digest
    assert recipe_files([tmp_path]) == [toml, js]
    with pytest.raises(RecipeError, match="recipe not found"):
        load_recipe(tmp_path / "absent.toml")


# -- command line ---------------------------------------------------------------------------------


def test_cli_recipe_builds_and_reports(recipe: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "bundles"
    r = runner.invoke(app, ["recipe", str(recipe), "--out-dir", str(out_dir), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "en-test.sqlite" in r.output and (out_dir / "en-test.sqlite").exists()
    r = runner.invoke(app, ["recipe", str(recipe), "--out-dir", str(out_dir), "--skip-up-to-date", "--no-progress"])
    assert r.exit_code == 0 and "up to date" in r.output
    r = runner.invoke(app, ["recipe", str(recipe), "--check"])
    assert r.exit_code == 0 and "ok (4 of 4 sources verified" in r.output


def test_cli_recipe_error_exit_code(recipe: Path, tmp_path: Path) -> None:
    (tmp_path / "data" / "test.prefixes").write_text("changed\n", encoding="utf-8")
    r = runner.invoke(app, ["recipe", str(recipe), "--out-dir", str(tmp_path / "o"), "--no-progress"])
    assert r.exit_code == 1
    assert "meteor-build: error:" in r.output and "checksum mismatch" in r.output and "test.prefixes" in r.output
    r = runner.invoke(app, ["recipe", str(recipe), str(recipe), "--out", str(tmp_path / "x.sqlite")])
    assert r.exit_code == 2


def test_cli_new_recipe_roundtrip(tmp_path: Path) -> None:
    files = _inputs(tmp_path)
    out = tmp_path / "recipes" / "xx.toml"
    r = runner.invoke(app, [
        "new-recipe", "--lang", "id", "--corpus", str(files["corpus.txt"]), "--corpus-licence", "CC0-1.0",
        "--paraphrases", str(files["para.gz"]), "--prefixes", str(files["test.prefixes"]),
        "--threshold", "0.05", "--out", str(out),
    ])
    assert r.exit_code == 0, r.output
    rec = load_recipe(out)
    assert rec.language == "id" and rec.sources["corpus"].path == "../data/corpus.txt"
    assert rec.sections["stems"] == {"from": ["corpus"], "algorithm": "indonesian"}
    res = build_recipe(rec, tmp_path / "id.sqlite", show_progress=False)
    with Bundle.open(res.path) as b:
        assert b.stemmer["language"] == "indonesian" and b.counts()["paraphrases"] == 3
    r = runner.invoke(app, ["new-recipe", "--lang", "id", "--corpus", str(files["corpus.txt"]), "--out", str(out)])
    assert r.exit_code == 2 and "exists" in r.output
    r = runner.invoke(app, ["new-recipe", "--lang", "id", "--corpus", str(tmp_path / "nope.txt"), "--out", str(tmp_path / "n.toml")])
    assert r.exit_code == 1 and "nope.txt: file not found" in r.output


# -- the shipped recipes ---------------------------------------------------------------------------


def test_shipped_recipes_parse() -> None:
    recipes = [load_recipe(p) for p in recipe_files([RECIPES])]
    assert len(recipes) >= 24
    names = {r.name for r in recipes}
    meteor = ("en", "cz", "de", "es", "fr", "da", "fi", "hu", "it", "nl", "no", "pt", "ro", "ru", "se", "tr")
    # Meteor's languages keep <lang>.sqlite for the official import (the default that reproduces Meteor 1.5)
    assert {f"{c}-wordfreq" for c in meteor} <= names
    for r in recipes:
        assert r.name != r.language or r.language not in meteor  # ("ar" is Arabic script: ar.sqlite)
        assert all(s.sha256 for s in r.sources.values())


@needs_wordfreq
@needs_release
def test_shipped_recipe_sources_verify() -> None:
    """Every source verifies; without the lemmas extra, recipes with a simplemma source say how to get it."""
    have_simplemma = importlib.util.find_spec("simplemma") is not None
    for p in recipe_files([RECIPES]):
        r = load_recipe(p)
        if not have_simplemma and any(s.kind == "simplemma" for s in r.sources.values()):
            with pytest.raises(MissingSourceError, match=r"simplemma is not installed \(pip install 'meteor-lite\[lemmas\]'\)"):
                check_sources(r)
            continue
        checked = check_sources(r)
        assert all(c.found or not c.source.required for c in checked.values()), p


@needs_wordfreq
def test_every_language_with_stemmer_and_wordfreq_has_a_recipe() -> None:
    from meteor_lite_builders.recipes import regenerate

    assert regenerate.main(["--check", "--out-dir", str(RECIPES)]) == 0


@pytest.mark.slow
@needs_wordfreq
def test_shipped_recipe_is_reproducible(tmp_path: Path) -> None:
    """Greek (a small wordfreq list): two builds, one content checksum; the scorer finds it by --lang."""
    a = build_recipe(RECIPES / "el.toml", tmp_path / "a" / "el.sqlite", show_progress=False)
    b = build_recipe(RECIPES / "el.toml", tmp_path / "b" / "el.sqlite", show_progress=False)
    assert a.checksum == b.checksum and a.counts["stems"] > 40_000 and a.counts["function_words"] > 20
    os.environ["METEOR_LITE_BUNDLE_PATH"] = str(tmp_path / "a")
    try:
        m = Meteor("el", norm=True, quiet=True)
        assert m.bundle is not None and m.bundle.path == a.path
        assert m.config.modules == ("exact", "stem")
        seg = m.score_segment("οι γάτες τρέχουν", ["η γάτα τρέχει"])
        assert seg.stats.to_dict() and seg.score > 0
    finally:
        del os.environ["METEOR_LITE_BUNDLE_PATH"]


def test_cli_recipes_in_parallel(tmp_path: Path) -> None:
    """Several recipes with --jobs 2 (one process each): each bundle as a single build makes it."""
    files = _inputs(tmp_path)
    one = tmp_path / "one.toml"
    one.write_text(_recipe_text(files), encoding="utf-8")
    two = tmp_path / "two.toml"
    two.write_text(_recipe_text(files).replace('name = "en-test"', 'name = "en-test2"'), encoding="utf-8")
    out_dir = tmp_path / "bundles"
    r = runner.invoke(app, ["recipe", str(one), str(two), "--out-dir", str(out_dir), "--jobs", "2"])
    assert r.exit_code == 0, r.output
    assert "2 of 2 recipes built" in r.output
    single = build_recipe(one, tmp_path / "single.sqlite", show_progress=False)
    with Bundle.open(out_dir / "en-test.sqlite") as b:
        assert b.checksum == single.checksum
    assert (out_dir / "en-test2.sqlite").exists()
