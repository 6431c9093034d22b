"""build_bundle: combining resources, copying from a base bundle, atomic writes, provenance."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from meteor_lite import Meteor
from meteor_lite.resources.bundle import Bundle
from meteor_lite_builders.bundle import base as compose
from meteor_lite_builders.bundle.pipeline import build_bundle as _pipeline_build
from meteor_lite_builders.bundle.spec import BuildResult, BundleSpec, Paraphrases
from meteor_lite_builders.bundle.writer import BundleWriter
from meteor_lite_builders.lexical.function_words import FunctionWords
from meteor_lite_builders.lexical.nonbreaking import NonbreakingPrefixes, read_nonbreaking_file
from meteor_lite_builders.lexical.stems import make_stem_map
from meteor_lite_builders.sources import Source, SourceError
from meteor_lite_builders.synonyms.wndb import Synonyms


def build_bundle(lang: str, out: Path, **resources: Any) -> BuildResult:
    """The one pipeline, with a spec of ``lang`` holding ``resources`` (and base, name, ...)."""
    return _pipeline_build(BundleSpec(language=lang, **resources), out)


SRC = Source("test-src", "corpus", "a test source", "CC0", "0" * 64, "nowhere")


def _fw(words=("the", "a")) -> FunctionWords:
    return FunctionWords(words=list(words), frequencies={w: 0.1 for w in words}, sources=[SRC], params={"source": "test"})


def _base(path: Path) -> Path:
    """A bundle like the imported official one: paraphrases, synonyms, function words, a stemmer record."""
    with BundleWriter(path, language="en", name="base", version="1.5.0") as w:
        w.add_function_words(["the", "of"])
        w.add_synsets([("old", 1), ("former", 1)])
        w.add_paraphrases([("get rid of", "remove", 0.5), ("remove", "get rid of", 0.4), ("a lot of", "many", 0.3)])
        w.add_stems([("running", "run")])
        w.set_stemmer("english", "snowballstemmer", "2.2.0")
        w.add_source("syn", kind="wordnet", description="d", licence="l", sha256="1" * 64, location="x")
        w.add_source("para", kind="paraphrase-table", description="d", licence="l", sha256="2" * 64, location="x")
        w.add_source("jar", kind="official-release", description="d", licence="l", sha256="3" * 64, location="x")
    return path


def test_build_records_resources_and_sources(tmp_path: Path) -> None:
    out = tmp_path / "b.sqlite"
    nb = NonbreakingPrefixes({"Mr": False, "No": True}, params={"source": "test"})
    res = build_bundle("en", out, function_words=_fw(), stems=make_stem_map(["cats"], "english"), nonbreaking=nb,
                       version="2.0.0", name="mine")
    assert res.resources == {"function_words": "built", "stems": "built", "nonbreaking": "built"}
    with Bundle.open(out) as b:
        assert (b.name, b.version, b.language) == ("mine", "2.0.0", "en")
        assert b.nonbreaking_prefixes() == {"Mr": False, "No": True}
        params = json.loads(b.meta["build_params"])
        assert set(params["resources"]) == {"function_words", "stems", "nonbreaking"}
        assert params["resources"]["function_words"]["sources"] == ["test-src"]
        assert "function words (test)" in b.meta["description"]
        assert b.verify() == []


def test_nothing_to_build(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="nothing to build"):
        build_bundle("en", tmp_path / "x.sqlite")
    assert not (tmp_path / "x.sqlite").exists()


def test_base_bundle_is_copied_and_replaced_parts_dropped(tmp_path: Path) -> None:
    base = _base(tmp_path / "base.sqlite")
    out = tmp_path / "new.sqlite"
    syn = Synonyms(synsets=[("car", 7), ("auto", 7)], exceptions=[("cars", "car")], sources=[SRC], params={"source": "t"})
    res = build_bundle("en", out, synonyms=syn, base=base)
    assert res.resources["synonyms"] == "built"
    assert {r for r, v in res.resources.items() if v == "base"} == {"function_words", "stems", "paraphrases"}
    with Bundle.open(out) as b:
        assert b.function_words() == frozenset({"the", "of"})
        assert b.synsets(["old", "car"]) == {"car": frozenset({7})}
        assert b.paraphrases(["get rid of"]) == {"get rid of": ["remove"]}
        assert b.paraphrase_max_length() == 3
        assert b.stemmer == {"language": "english", "package": "snowballstemmer", "version": "2.2.0"}
        names = {s["name"] for s in b.sources()}
        assert names == {"test-src", "para", "jar"}  # the replaced synonyms' source is gone
        params = json.loads(b.meta["build_params"])["resources"]
        assert params["paraphrases"]["from_bundle"].startswith("base 1.5.0")
    # the paraphrase matcher works on the copied table (prefixes and max length came along)
    m = Meteor("en", modules=["exact", "paraphrase"], bundle=out, quiet=True)
    assert m.score_segment("we get rid of it", ["we remove it"]).score > m.score_segment("we get it", ["we remove it"]).score


def test_base_may_be_the_output(tmp_path: Path) -> None:
    base = _base(tmp_path / "b.sqlite")
    build_bundle("en", base, function_words=_fw(["x"]), base=base)
    with Bundle.open(base) as b:
        assert b.function_words() == frozenset({"x"}) and b.counts()["paraphrases"] == 3


def test_base_of_another_language(tmp_path: Path) -> None:
    base = _base(tmp_path / "b.sqlite")
    with pytest.raises(SourceError, match="is for language 'en', not 'de'"):
        build_bundle("de", tmp_path / "de.sqlite", function_words=_fw(), base=base)
    with pytest.raises(SourceError, match="base bundle: .*not found"):
        build_bundle("en", tmp_path / "x.sqlite", function_words=_fw(), base=tmp_path / "missing.sqlite")


def test_copy_table_in_small_chunks_keeps_order(tmp_path: Path) -> None:
    base = _base(tmp_path / "b.sqlite")
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE paraphrases (phrase TEXT PRIMARY KEY, prefix INTEGER NOT NULL, paraphrases TEXT) WITHOUT ROWID")
    conn.execute("ATTACH DATABASE ? AS base", (str(base),))

    class Bar:
        n = 0

        def update(self, k: int) -> None:
            self.n += k

    bar = Bar()
    # schema 2: one row per phrase and per prefix (a, a lot, a lot of, get, get rid, get rid of, remove)
    assert compose._copy_table(conn, "paraphrases", bar, chunk=1) == 7 and bar.n == 7
    assert conn.execute("SELECT * FROM main.paraphrases ORDER BY phrase").fetchall() == conn.execute(
        "SELECT * FROM base.paraphrases ORDER BY phrase"
    ).fetchall()


def test_paraphrases_resource(tmp_path: Path) -> None:
    rows = iter([("big", "large", 0.6), ("big", "huge", 0.2), ("large", "big", 0.5)])
    out = tmp_path / "p.sqlite"
    res = build_bundle("en", out, paraphrases=Paraphrases(rows, sources=[SRC], params={"source": "pivot"}))
    assert res.counts["paraphrases"] == 3
    with Bundle.open(out) as b:
        assert b.paraphrases(["big"]) == {"big": ["large", "huge"]}  # table order kept
        assert json.loads(b.meta["build_params"])["resources"]["paraphrases"]["pairs"] == 3


def test_interruption_leaves_no_bundle_and_keeps_the_old_one(tmp_path: Path) -> None:
    out = tmp_path / "b.sqlite"
    build_bundle("en", out, function_words=_fw())
    before = out.read_bytes()

    def rows():
        yield ("big", "large", 0.5)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_bundle("en", out, function_words=_fw(["z"]), paraphrases=Paraphrases(rows()))
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.sqlite"]  # no temporary file left


def test_read_nonbreaking_file(tmp_path: Path) -> None:
    p = tmp_path / "x.prefixes"
    p.write_text("# comment\nMr\n\nNo #NUMERIC_ONLY#\n", encoding="utf-8")
    nb = read_nonbreaking_file(p)
    assert nb.prefixes == {"Mr": False, "No": True} and nb.sources[0].kind == "nonbreaking-prefixes"
