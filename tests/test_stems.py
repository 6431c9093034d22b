"""Stem maps: Snowball algorithm choice, the map and its stemmer record, the scorer's use of it."""

from __future__ import annotations

import importlib.util
import json
import re
import warnings
from importlib.metadata import version as pkg_version
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from meteor_lite import Meteor
from meteor_lite.errors import MeteorLiteWarning
from meteor_lite.resources.bundle import Bundle
from meteor_lite_builders.bundle.pipeline import build_bundle as _pipeline_build
from meteor_lite_builders.bundle.spec import BuildResult, BundleSpec
from meteor_lite_builders.bundle.writer import BundleWriter
from meteor_lite_builders.lexical.function_words import count_tokens
from meteor_lite_builders.lexical.stems import (
    corpus_vocabulary,
    lexicon_vocabulary,
    make_stem_map,
    make_stemmer,
    snowball_algorithm,
    snowball_algorithms,
)
from meteor_lite_builders.sources import SourceError


def build_bundle(lang: str, out: Path, **resources: Any) -> BuildResult:
    """The one pipeline, with a spec of ``lang`` holding ``resources`` (and base, name, ...)."""
    return _pipeline_build(BundleSpec(language=lang, **resources), out)

needs_wordfreq = pytest.mark.skipif(
    importlib.util.find_spec("wordfreq") is None, reason="wordfreq (build extra) is not installed"
)
INSTALLED = pkg_version("snowballstemmer")


@pytest.mark.parametrize(
    "lang, algorithm",
    [
        ("en", "english"), ("de", "german"), ("se", "swedish"), ("sv", "swedish"), ("no", "norwegian"),
        ("nb", "norwegian"), ("el", "greek"), ("ca", "catalan"), ("porter", "porter"), ("french", "french"),
    ],
)


def test_snowball_algorithm(lang: str, algorithm: str) -> None:
    assert snowball_algorithm(lang) == algorithm


def test_snowball_algorithm_missing() -> None:
    with pytest.raises(SourceError, match="no stemmer for 'xx'"):
        snowball_algorithm("xx")
    with pytest.raises(SourceError, match="scorer has no stemmer for language 'cz'"):
        snowball_algorithm("cz")  # Meteor's Czech has no stemmer: the map would disagree with the scorer
    with pytest.raises(SourceError, match="no 'klingon' algorithm"):
        make_stemmer("klingon")
    assert "english" in snowball_algorithms() and "porter" in snowball_algorithms()


def test_make_stem_map_keeps_every_word() -> None:
    sm = make_stem_map(["running", "runs", "run", "", "cats", "the"], "english")
    assert sm.pairs == [("cats", "cat"), ("run", "run"), ("running", "run"), ("runs", "run"), ("the", "the")]
    assert sm.stemmer.algorithm == "english" and sm.stemmer.version == INSTALLED
    assert sm.params["words"] == 5 and sm.params["changed"] == 3


def test_make_stem_map_is_the_pure_python_stemmer() -> None:
    import snowballstemmer

    words = ["organization", "university", "added", "generously", "nationalities"]
    ref = snowballstemmer.EnglishStemmer().stemWords(words)
    assert [s for _, s in make_stem_map(words, "english").pairs] == [dict(zip(words, ref))[w] for w in sorted(words)]


def test_vocabularies(tmp_path: Path) -> None:
    p = tmp_path / "c.txt"
    p.write_text("The cats sat .\nThe dogs sat .\n", encoding="utf-8")
    tc = count_tokens([p], "en")
    assert corpus_vocabulary(tc) == {"the", "cats", "sat", ".", "dogs"}
    assert corpus_vocabulary(tc, min_count=2) == {"the", "sat", "."}
    assert lexicon_vocabulary([("motor_car", 1), ("car", 1), ("new york", 2)], [("mice", "mouse"), ("a_b", "c")]) == {
        "car", "mice", "mouse", "c"
    }


@needs_wordfreq
def test_wordfreq_vocabulary_top_n() -> None:
    from meteor_lite_builders.lexical.stems import wordfreq_vocabulary

    vocab, src = wordfreq_vocabulary("en", top_n=1000, show_progress=False)
    assert {"the", "people", "'s"} <= vocab and 900 < len(vocab) < 1100
    assert src.kind == "wordfreq"


# -- the bundle and the scorer -------------------------------------------------------------------


def test_stem_map_bundle_records_the_stemmer(tmp_path: Path) -> None:
    out = tmp_path / "stems.sqlite"
    build_bundle("en", out, stems=make_stem_map(["running", "runs"], "english"))
    with Bundle.open(out) as b:
        assert b.stemmer == {"language": "english", "package": "snowballstemmer", "version": INSTALLED}
        assert b.stems(["running", "runs", "walked"]) == {"running": "run", "runs": "run"}
        params = json.loads(b.meta["build_params"])["resources"]["stems"]
        assert params["stemmer"]["version"] == INSTALLED


def test_scorer_uses_the_map_before_the_stemmer(tmp_path: Path) -> None:
    from meteor_lite_builders.lexical.stems import StemMap, StemmerInfo

    # a deliberately odd map: "cats" and "feline" share a stem only through the map
    sm = StemMap(pairs=[("cats", "feline"), ("feline", "feline")], stemmer=StemmerInfo("english", version=INSTALLED))
    out = tmp_path / "odd.sqlite"
    build_bundle("en", out, stems=sm)
    m = Meteor("en", modules=["exact", "stem"], bundle=out, quiet=True)
    assert m.score_segment("cats", ["feline"]).score > 0
    # words outside the map fall back to the Snowball stemmer
    assert m.score_segment("walking", ["walked"]).score > 0
    assert not m.warnings


def _bundle_with_stemmer_version(path: Path, version: str) -> Path:
    with BundleWriter(path, language="en", name="t", version="0.0.1") as w:
        w.add_stems([("running", "run")])
        w.set_stemmer("english", "snowballstemmer", version)
    return path


def test_scorer_warns_when_the_stemmer_version_differs(tmp_path: Path) -> None:
    path = _bundle_with_stemmer_version(tmp_path / "old.sqlite", "0.0.1")
    expected = f"bundle stem map was built with snowballstemmer 0.0.1, {INSTALLED} is installed"
    with pytest.warns(MeteorLiteWarning, match=re.escape(expected)):
        m = Meteor("en", modules=["exact", "stem"], bundle=path)
    assert any(expected in w for w in m.warnings)
    # quiet keeps the warning on the object but issues none
    with warnings.catch_warnings():
        warnings.simplefilter("error", MeteorLiteWarning)
        m = Meteor("en", modules=["exact", "stem"], bundle=path, quiet=True)
    assert any(expected in w for w in m.warnings)


def test_scorer_does_not_warn_when_the_stemmer_version_matches(tmp_path: Path) -> None:
    path = _bundle_with_stemmer_version(tmp_path / "same.sqlite", INSTALLED)
    m = Meteor("en", modules=["exact", "stem"], bundle=path, quiet=True)
    assert not any("stem map was built" in w for w in m.warnings)


# -- the command line --------------------------------------------------------------------------

runner = CliRunner()


def _app():
    from meteor_lite_builders.cli import app

    return app


def test_cli_stems_from_corpus(tmp_path: Path) -> None:
    p = tmp_path / "c.txt"
    p.write_text("Runners were running .\nThe runner runs .\n", encoding="utf-8")
    out = tmp_path / "stems.sqlite"
    r = runner.invoke(_app(), ["stems", "-l", "en", "-c", str(p), "--nonbreaking", "none", "-o", str(out)])
    assert r.exit_code == 0, r.output
    with Bundle.open(out) as b:
        assert b.stems(["running", "runs", "runners"]) == {"running": "run", "runs": "run", "runners": "runner"}
        assert b.stemmer["language"] == "english" and b.counts()["stems"] == 7


def test_cli_stems_with_another_algorithm(tmp_path: Path) -> None:
    p = tmp_path / "c.txt"
    p.write_text("generously\n", encoding="utf-8")
    out = tmp_path / "porter.sqlite"
    r = runner.invoke(_app(), ["stems", "-l", "en", "--stemmer", "porter", "-c", str(p), "--nonbreaking", "none", "-o", str(out)])
    assert r.exit_code == 0, r.output
    with Bundle.open(out) as b:
        assert b.stemmer["language"] == "porter" and b.stems(["generously"]) == {"generously": "gener"}


def test_cli_stems_errors(tmp_path: Path) -> None:
    p = tmp_path / "c.txt"
    p.write_text("words\n", encoding="utf-8")
    out = tmp_path / "s.sqlite"
    r = runner.invoke(_app(), ["stems", "-l", "en", "--stemmer", "klingon", "-c", str(p), "-o", str(out)])
    assert r.exit_code == 1 and "no 'klingon' algorithm" in r.output and not out.exists()
    r = runner.invoke(_app(), ["stems", "-l", "xx", "-c", str(p), "-o", str(out)])
    assert r.exit_code == 1 and "no stemmer for 'xx'" in r.output
    assert runner.invoke(_app(), ["stems", "-l", "en", "-o", str(out)]).exit_code == 2  # no vocabulary


def test_cli_bundle_everything(tmp_path: Path) -> None:
    from test_wordnet import make_wndb

    p = tmp_path / "c.txt"
    p.write_text("The cars drove .\nThe mice ran .\n", encoding="utf-8")
    wn = make_wndb(tmp_path / "wn")
    args = ["bundle", "-l", "en", "-c", str(p), "--wordnet", str(wn), "--threshold", "0.2", "--nonbreaking", "none"]
    out1, out2 = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    assert runner.invoke(_app(), args + ["-o", str(out1)]).exit_code == 0
    r = runner.invoke(_app(), args + ["-o", str(out2)])
    assert r.exit_code == 0, r.output
    with Bundle.open(out1) as a, Bundle.open(out2) as b:
        assert a.checksum == b.checksum  # reproducible
        counts = a.counts()
        assert counts["function_words"] == 2 and counts["synsets"] == 10 and counts["synonym_exceptions"] == 6
        stems = a.stems(["cars", "motor_car", "large", "mice"])
        assert stems["cars"] == "car" and stems["mice"] == "mice" and "motor_car" not in stems and "large" in stems
        assert {s["kind"] for s in a.sources()} == {"corpus", "wordnet"}
        m = Meteor("en", bundle=a.path, modules=["exact", "stem", "synonym"], quiet=True)  # synonyms are used
        assert "synonym" in m.config.modules and m.score_segment("automobile", ["car"]).score > 0


@pytest.mark.parametrize("command", ["bundle", "stems", "new-recipe"])
def test_cli_wordnet_and_lmf_together_is_a_usage_error(command: str, tmp_path: Path) -> None:
    (tmp_path / "wn").mkdir()
    (tmp_path / "x.xml").write_text("<LexicalResource/>", encoding="utf-8")
    args = [command, "--lang", "en", "--wordnet", str(tmp_path / "wn"), "--lmf", str(tmp_path / "x.xml"),
            "--out", str(tmp_path / "out.sqlite" if command != "new-recipe" else tmp_path / "out.toml")]
    r = runner.invoke(_app(), args)
    assert r.exit_code == 2 and "give --wordnet or --lmf, not both" in r.output
    assert not (tmp_path / "out.sqlite").exists() and not (tmp_path / "out.toml").exists()
