"""Synonym sets from the WordNet database format and from WN-LMF XML, and their bundles."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
from typer.testing import CliRunner

from meteor_lite import Meteor
from meteor_lite.resources.bundle import Bundle
from meteor_lite_builders.bundle.pipeline import build_bundle as _pipeline_build
from meteor_lite_builders.bundle.spec import BuildResult, BundleSpec
from meteor_lite_builders.sources import MalformedSourceError, SourceError
from meteor_lite_builders.synonyms.compare import (
    compare_synonyms,
    load_meteor_synonyms,
    parse_meteor_exceptions,
    parse_meteor_synsets,
)
from meteor_lite_builders.synonyms.lmf import read_lmf
from meteor_lite_builders.synonyms.wndb import DEFAULT_WNDB_DIR, parse_data_line, read_wndb


def build_bundle(lang: str, out: Path, **resources: Any) -> BuildResult:
    """The one pipeline, with a spec of ``lang`` holding ``resources`` (and base, name, ...)."""
    return _pipeline_build(BundleSpec(language=lang, **resources), out)

FIXTURES = Path(__file__).parent / "fixtures"
MINI_LMF = FIXTURES / "mini-lmf.xml"

HEADER = "  1 This software and database is being provided to you, the LICENSEE, by  \n  2 Princeton University under the following license.  \n"

#: A tiny WordNet database.  Offset 00000100 is used by a noun and by a verb (as
#: happens in the real files), so the ``offset`` scheme merges them.
TINY_DATA: Dict[str, List[str]] = {
    "noun": [
        "00000100 06 n 03 car 0 Automobile 0 motor_car 0 000 | a motor vehicle  ",
        "00000200 05 n 01 mouse 0 000 | a rodent  ",
    ],
    "verb": [
        "00000100 38 v 02 drive 0 motor 0 000 01 + 02 00 | travel in a vehicle  ",
    ],
    "adj": [
        "00000300 00 a 02 big(a) 0 large 1 000 | above average in size  ",
        "00000400 00 s 01 great(ip) 0 000 | very large  ",
    ],
    "adv": [
        "00000500 02 r 01 well 0 000 | in a good way  ",
    ],
}
TINY_EXC = {"noun": "mice mouse\ncars car\n", "verb": "drove drive\nleft leave left\n", "adj": "bigger big\n", "adv": ""}


def make_wndb(root: Path, data: Dict[str, List[str]] = TINY_DATA, exc: Dict[str, str] = TINY_EXC) -> Path:
    """Write a WordNet database directory (data.* with licence header, *.exc)."""
    root.mkdir(parents=True, exist_ok=True)
    for pos, lines in data.items():
        (root / f"data.{pos}").write_text(HEADER + "".join(line + "\n" for line in lines), encoding="utf-8")
    for pos, text in exc.items():
        (root / f"{pos}.exc").write_text(text, encoding="utf-8")
    return root


# -- the WordNet database format ---------------------------------------------------------


def test_parse_data_line_words_and_type() -> None:
    off, ss_type, words = parse_data_line("00000300 00 a 02 big(a) 0 large 1 000 | above average")
    assert (off, ss_type, words) == (300, "a", ["big(a)", "large"])


def test_parse_data_line_hex_word_count() -> None:
    words = " ".join(f"w{i} 0" for i in range(11))
    _, _, got = parse_data_line(f"00001000 03 n 0b {words} 000 | eleven words")
    assert got == [f"w{i}" for i in range(11)]


@pytest.mark.parametrize(
    "line, problem",
    [
        ("0000010 06 n 01 car 0 000 | x", "not 8 digits"),
        ("00000100 06 q 01 car 0 000 | x", "synset type"),
        ("00000100 06 n zz car 0 000 | x", "hexadecimal"),
        ("00000100 06 n 03 car 0 000 | x", "ends before"),
        ("00000100 06 n 00 000 | x", "no words"),
        ("00000100 06", "too few fields"),
    ],
)
def test_parse_data_line_errors(line: str, problem: str) -> None:
    with pytest.raises(MalformedSourceError) as err:
        parse_data_line(line, "data.noun", 7)
    assert err.value.source == "data.noun" and err.value.line == 7
    assert problem in str(err.value)


def test_read_wndb_pairs_and_exceptions(tmp_path: Path) -> None:
    syn = read_wndb(make_wndb(tmp_path / "wn"), show_progress=False)
    assert syn.synsets == sorted(
        [("car", 100), ("automobile", 100), ("motor_car", 100), ("mouse", 200), ("drive", 100), ("motor", 100),
         ("big", 300), ("large", 300), ("great", 400), ("well", 500)]
    )
    assert syn.exceptions == sorted(
        [("mice", "mouse"), ("cars", "car"), ("drove", "drive"), ("left", "leave"), ("left", "left"), ("bigger", "big")]
    )
    assert syn.params["offsets_shared_across_pos"] == 1
    assert syn.params["synsets"] == {"noun": 2, "verb": 1, "adj": 2, "adv": 1}
    assert sorted(s.name for s in syn.sources) == sorted(
        [f"wordnet-data.{p}" for p in ("noun", "verb", "adj", "adv")] + [f"wordnet-{p}.exc" for p in ("noun", "verb", "adj", "adv")]
    )
    assert all(len(s.sha256) == 64 and s.kind == "wordnet" for s in syn.sources)


def test_read_wndb_pos_offset_keeps_parts_of_speech_apart(tmp_path: Path) -> None:
    syn = read_wndb(make_wndb(tmp_path / "wn"), id_scheme="pos-offset", show_progress=False)
    ids = dict()
    for w, s in syn.synsets:
        ids.setdefault(w, set()).add(s)
    assert ids["car"] == {1001} and ids["drive"] == {1002}
    assert ids["big"] == {3003} and ids["great"] == {4003} and ids["well"] == {5004}


def test_read_wndb_without_exceptions(tmp_path: Path) -> None:
    syn = read_wndb(make_wndb(tmp_path / "wn"), exceptions=False, show_progress=False)
    assert syn.exceptions == [] and len(syn.sources) == 4


def test_read_wndb_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    data = dict(TINY_DATA)
    data["verb"] = TINY_DATA["verb"] + ["00000900 38 v 0x drive 0 000 | broken count"]
    d = make_wndb(tmp_path / "wn", data=data)
    with pytest.raises(MalformedSourceError) as err:
        read_wndb(d, show_progress=False)
    # two header lines, then the good synset, then the bad one
    assert err.value.source == str(d / "data.verb") and err.value.line == 4
    assert str(err.value).startswith(f"{d / 'data.verb'}, line 4:")


def test_read_wndb_exception_line_without_base(tmp_path: Path) -> None:
    exc = dict(TINY_EXC, noun="mice mouse\nlonely\n")
    d = make_wndb(tmp_path / "wn", exc=exc)
    with pytest.raises(MalformedSourceError, match=r"noun\.exc, line 2: .*no base form"):
        read_wndb(d, show_progress=False)


def test_read_wndb_invalid_utf8(tmp_path: Path) -> None:
    d = make_wndb(tmp_path / "wn")
    (d / "data.adv").write_bytes(HEADER.encode() + b"00000500 02 r 01 w\xffll 0 000 | x\n")
    with pytest.raises(MalformedSourceError, match=r"data\.adv, line 3: not valid UTF-8"):
        read_wndb(d, show_progress=False)


def test_read_wndb_missing_file(tmp_path: Path) -> None:
    d = make_wndb(tmp_path / "wn")
    (d / "data.adv").unlink()
    with pytest.raises(SourceError, match=r"data\.adv: file not found"):
        read_wndb(d, show_progress=False)
    with pytest.raises(SourceError, match="no WordNet database directory"):
        read_wndb(tmp_path / "nowhere", show_progress=False)


def test_read_wndb_unknown_id_scheme(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="unknown synset id scheme"):
        read_wndb(make_wndb(tmp_path / "wn"), id_scheme="lemma")


# -- WN-LMF ------------------------------------------------------------------------------


def _by_word(pairs):
    out: Dict[str, set] = {}
    for w, s in pairs:
        out.setdefault(w, set()).add(s)
    return out


def test_lmf_english_lexicon() -> None:
    syn = read_lmf(MINI_LMF, language="en", show_progress=False)
    words = _by_word(syn.synsets)
    assert set(words) == {"car", "automobile", "motor_car", "mouse", "computer_mouse", "drive", "motor", "big", "large"}
    assert words["car"] == words["automobile"] == words["motor_car"]  # lower-cased, spaces -> _
    assert len(words["mouse"]) == 2 and words["computer_mouse"] < words["mouse"]
    assert words["drive"] == words["motor"] and words["big"] == words["large"]
    assert len({s for _, s in syn.synsets}) == 5
    assert syn.exceptions == [("cars", "car"), ("driven", "drive"), ("drove", "drive"), ("mice", "mouse")]
    assert syn.params["lexicons"] == [{"id": "mini-en", "language": "en", "version": "1.0"}]
    (src,) = syn.sources
    assert src.kind == "wn-lmf" and src.licence == "https://creativecommons.org/licenses/by/4.0/" and len(src.sha256) == 64


def test_lmf_ordinal_ids_follow_sorted_synset_ids() -> None:
    syn = read_lmf(MINI_LMF, language="en", show_progress=False)
    words = _by_word(syn.synsets)
    # sorted ids: 01382086-a, 01930874-v, 02330245-n, 02958343-n, 03793489-n
    assert words["big"] == {1} and words["drive"] == {2} and words["car"] == {4} and words["mouse"] == {3, 5}


def test_lmf_offset_id_schemes() -> None:
    off = _by_word(read_lmf(MINI_LMF, language="en", id_scheme="offset", show_progress=False).synsets)
    assert off["car"] == {2958343} and off["mouse"] == {2330245, 3793489}
    pos = _by_word(read_lmf(MINI_LMF, language="en", id_scheme="pos-offset", show_progress=False).synsets)
    assert pos["car"] == {29583431} and pos["drive"] == {19308742} and pos["big"] == {13820863}


def test_lmf_lexicon_selection_and_unicode() -> None:
    fr = read_lmf(MINI_LMF, lexicons=["mini-fr"], show_progress=False)
    words = _by_word(fr.synsets)
    assert set(words) == {"voiture", "automobile", "être_humain", "homme"}
    assert words["être_humain"] == words["homme"] and words["voiture"] == words["automobile"]
    both = read_lmf(MINI_LMF, show_progress=False)
    assert len(both.params["lexicons"]) == 2
    # the same word in two lexicons keeps both synsets
    assert len(_by_word(both.synsets)["automobile"]) == 2
    with pytest.raises(SourceError, match=r"no lexicon matches .*mini-en \(en\), mini-fr \(fr\)"):
        read_lmf(MINI_LMF, language="de", show_progress=False)


def test_lmf_gzip(tmp_path: Path) -> None:
    gz = tmp_path / "mini.xml.gz"
    gz.write_bytes(gzip.compress(MINI_LMF.read_bytes()))
    assert read_lmf(gz, language="en", show_progress=False).synsets == read_lmf(MINI_LMF, language="en", show_progress=False).synsets


LMF_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<LexicalResource>\n<Lexicon id="t" language="en" label="t" email="x" license="L" version="1">\n'


@pytest.mark.parametrize(
    "body, line, problem",
    [
        ('<LexicalEntry id="e1">\n<Sense id="s" synset="t-1"/>\n</LexicalEntry>\n', 4, "has no <Lemma>"),
        ('<LexicalEntry id="e1">\n<Lemma writtenForm="" partOfSpeech="n"/>\n</LexicalEntry>\n', 5, "no writtenForm"),
        ('<LexicalEntry id="e1">\n<Lemma writtenForm="a" partOfSpeech="n"/>\n<Sense id="s1"/>\n</LexicalEntry>\n', 6, "no synset attribute"),
        ('<LexicalEntry id="e1">\n<Lemma writtenForm="a" partOfSpeech="n">\n</LexicalEntry>\n', 6, "XML error: mismatched tag"),
    ],
)
def test_lmf_malformed(tmp_path: Path, body: str, line: int, problem: str) -> None:
    p = tmp_path / "bad.xml"
    p.write_text(LMF_HEAD + body + "</Lexicon>\n</LexicalResource>\n", encoding="utf-8")
    with pytest.raises(MalformedSourceError) as err:
        read_lmf(p, show_progress=False)
    assert err.value.source == str(p) and err.value.line == line, str(err.value)
    assert problem in str(err.value)


def test_lmf_not_lmf(tmp_path: Path) -> None:
    p = tmp_path / "other.xml"
    p.write_text("<?xml version='1.0'?>\n<html><body/></html>\n", encoding="utf-8")
    with pytest.raises(MalformedSourceError, match=r"line 2: not a WN-LMF file \(root element <html>"):
        read_lmf(p, show_progress=False)


def test_lmf_offset_scheme_needs_offset_ids(tmp_path: Path) -> None:
    p = tmp_path / "ids.xml"
    p.write_text(
        LMF_HEAD + '<LexicalEntry id="e1">\n<Lemma writtenForm="a" partOfSpeech="n"/>\n<Sense id="s" synset="t-dog"/>\n'
        "</LexicalEntry>\n</Lexicon>\n</LexicalResource>\n",
        encoding="utf-8",
    )
    assert read_lmf(p, show_progress=False).synsets == [("a", 1)]
    with pytest.raises(MalformedSourceError, match=r"line 6: synset id 't-dog' does not end in an 8-digit offset"):
        read_lmf(p, id_scheme="offset", show_progress=False)


# -- bundles and the scorer ----------------------------------------------------------------


def test_lmf_bundle_drives_the_synonym_matcher(tmp_path: Path) -> None:
    out = tmp_path / "en-lmf.sqlite"
    res = build_bundle("en", out, synonyms=read_lmf(MINI_LMF, language="en", show_progress=False))
    assert res.counts["synsets"] == 10 and res.counts["synonym_exceptions"] == 4
    m = Meteor("en", modules=["exact", "synonym"], bundle=out, quiet=True)
    seg = m.score_segment("the automobile", ["the car"])
    assert seg.stats.to_dict()["test_content"][1] == 1  # automobile ~ car through the synonym stage
    seg = m.score_segment("mice", ["mouse"])  # through the exception list (Form elements)
    assert seg.score > 0.0
    assert m.score_segment("cat", ["mouse"]).score == 0.0
    with Bundle.open(out) as b:
        params = json.loads(b.meta["build_params"])
        assert params["resources"]["synonyms"]["source"] == "wn-lmf"
        assert [s["kind"] for s in b.sources()] == ["wn-lmf"]


def test_wndb_bundle_is_reproducible(tmp_path: Path) -> None:
    d = make_wndb(tmp_path / "wn")
    a = build_bundle("en", tmp_path / "a.sqlite", synonyms=read_wndb(d, show_progress=False))
    b = build_bundle("en", tmp_path / "b.sqlite", synonyms=read_wndb(d, show_progress=False))
    assert a.checksum == b.checksum
    with Bundle.open(a.path) as bundle:
        assert bundle.verify() == []


# -- Meteor's own files ---------------------------------------------------------------------


def test_parse_meteor_synonym_files() -> None:
    assert parse_meteor_synsets("car\n02958343\nauto\n02958343 00000001\n") == {
        ("car", 2958343), ("auto", 2958343), ("auto", 1)
    }
    assert parse_meteor_exceptions("leave\nleft leaving\n") == {("left", "leave"), ("leaving", "leave")}
    with pytest.raises(MalformedSourceError, match="line 2: synset id 'x1'"):
        parse_meteor_synsets("car\nx1\n")
    with pytest.raises(MalformedSourceError, match="odd number of lines"):
        parse_meteor_exceptions("leave\n")


def test_compare_synonyms_is_independent_of_id_numbering() -> None:
    ours = ([("car", 1), ("auto", 1), ("big", 2), ("large", 2)], [("cars", "car")])
    theirs = ([("car", 10), ("auto", 10), ("big", 20), ("large", 20), ("huge", 20)], [("cars", "car"), ("mice", "mouse")])
    r = compare_synonyms(ours, theirs)
    assert r["word_synset_pairs"]["both"] == 0
    assert r["synonym_pairs"] == {"ours": 2, "theirs": 4, "both": 2, "of_theirs": 0.5, "of_ours": 1.0}
    assert r["exceptions"]["of_theirs"] == 0.5 and r["exceptions"]["of_ours"] == 1.0
    assert r["id_shifts"] == []  # single synsets with a shift are not reported


# -- the real WordNet 3.0 (Debian's wordnet-base) --------------------------------------------

needs_wordnet = pytest.mark.skipif(
    not (DEFAULT_WNDB_DIR / "data.noun").is_file(),
    reason="Debian's wordnet-base is not installed (/usr/share/wordnet); .ci/run installs it when run as root",
)
needs_jar = pytest.mark.skipif(
    importlib.util.find_spec("pycocoevalcap") is None,
    reason="the official Meteor 1.5 jar comes with pycocoevalcap (build extra), which is not installed",
)


@needs_wordnet
def test_real_wordnet_counts() -> None:
    syn = read_wndb(show_progress=False)
    assert syn.params["synsets"] == {"noun": 82115, "verb": 13767, "adj": 18156, "adv": 3621}
    assert syn.params["words"] == 147306 and syn.params["pairs"] == 206941
    assert len(syn.exceptions) == 6046
    words = _by_word(syn.synsets)
    assert words["car"] & words["automobile"] and words["big"] & words["large"]
    assert "new_york" in words and not any(w != w.lower() for w in words)


@needs_wordnet
@needs_jar
def test_real_wordnet_agrees_with_meteor() -> None:
    syn = read_wndb(show_progress=False)
    t_pairs, t_exc, _ = load_meteor_synonyms()
    r = compare_synonyms((syn.synsets, syn.exceptions), (t_pairs, t_exc))
    assert r["words"]["of_theirs"] == 1.0 and r["words"]["of_ours"] == 1.0
    assert r["exceptions"]["of_theirs"] == 1.0 and r["exceptions"]["of_ours"] == 1.0
    assert r["synonym_pairs"]["of_theirs"] > 0.995 and r["synonym_pairs"]["of_ours"] > 0.995
    # Meteor's ids are the database's offsets: nouns and adverbs identical; Debian's
    # rebuilt data.verb / data.adj are shifted by 18 / 1 bytes from one synset on.
    shifts = {s["shift"]: s for s in r["id_shifts"]}
    assert set(shifts) == {-18, -1}
    assert shifts[-18]["from_id"] == 613036 and shifts[-1]["from_id"] == 1681478


# -- the command line --------------------------------------------------------------------------

runner = CliRunner()


def _app():
    from meteor_lite_builders.cli import app

    return app


def test_cli_synonyms_from_wndb(tmp_path: Path) -> None:
    out = tmp_path / "syn.sqlite"
    r = runner.invoke(_app(), ["synonyms", "-l", "en", "--wordnet", str(make_wndb(tmp_path / "wn")), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "synsets 10" in r.output
    with Bundle.open(out) as b:
        assert b.counts()["synonym_exceptions"] == 6 and b.language == "en"


def test_cli_synonyms_from_lmf(tmp_path: Path) -> None:
    out = tmp_path / "fr.sqlite"
    r = runner.invoke(_app(), ["synonyms", "-l", "fr", "--lmf", str(MINI_LMF), "-o", str(out)])
    assert r.exit_code == 0, r.output
    with Bundle.open(out) as b:
        assert b.counts()["synsets"] == 4  # the French lexicon only (its language matches --lang)


def test_cli_malformed_source_leaves_no_bundle(tmp_path: Path) -> None:
    data = dict(TINY_DATA, adj=["00000300 00 a 02 big 0"])
    d = make_wndb(tmp_path / "wn", data=data)
    out = tmp_path / "syn.sqlite"
    r = runner.invoke(_app(), ["synonyms", "-l", "en", "--wordnet", str(d), "-o", str(out)])
    assert r.exit_code == 1
    assert f"{d / 'data.adj'}, line 3:" in r.output
    assert not out.exists() and list(tmp_path.glob("*.tmp")) == []


def test_cli_synonyms_needs_one_source(tmp_path: Path) -> None:
    r = runner.invoke(_app(), ["synonyms", "-l", "en", "-o", str(tmp_path / "x.sqlite")])
    assert r.exit_code == 2


def test_cli_synonyms_onto_base_keeps_other_resources(tmp_path: Path) -> None:
    from meteor_lite_builders.bundle.writer import BundleWriter

    base = tmp_path / "base.sqlite"
    with BundleWriter(base, language="en", name="base", version="1.0.0") as w:
        w.add_function_words(["the", "a"])
        w.add_synsets([("old", 1)])
        w.add_source("old-syn", kind="wordnet", description="old", licence="x", sha256="0" * 64, location="x")
        w.add_source("jar", kind="official-release", description="jar", licence="x", sha256="0" * 64, location="x")
    r = runner.invoke(
        _app(), ["synonyms", "-l", "en", "--lmf", str(MINI_LMF), "--base", str(base), "-o", str(base)]
    )
    assert r.exit_code == 0, r.output
    with Bundle.open(base) as b:
        assert b.function_words() == frozenset({"the", "a"})
        assert "old" not in b.synsets(["old", "car"]) and "car" in b.synsets(["old", "car"])
        names = {s["name"] for s in b.sources()}
        assert "jar" in names and "old-syn" not in names and "mini-lmf.xml" in names


def _fake_jar(path: Path, synsets: str, exceptions: str) -> Path:
    import zipfile

    with zipfile.ZipFile(path, "w") as z:
        z.writestr("synonym/english.synsets", synsets)
        z.writestr("synonym/english.exceptions", exceptions)
    return path


def test_cli_compare_synonyms_with_scores(tmp_path: Path) -> None:
    wn = make_wndb(tmp_path / "wn")
    # "Meteor's" files: the tiny database's synsets, ids shifted by 7, with one synset split differently
    jar = _fake_jar(
        tmp_path / "meteor.jar",
        "automobile\n00000107\ncar\n00000107\nmotor_car\n00000107\ndrive\n00000107\nmotor\n00000107\n"
        "mouse\n00000207\nbig\n00000307\nlarge\n00000999\ngreat\n00000407\nwell\n00000507\n",
        "mouse\nmice\ncar\ncars\ndrive\ndrove\nleave\nleft\nleft\nleft\nbig\nbigger\n",
    )
    base = tmp_path / "base.sqlite"
    from meteor_lite_builders.synonyms.compare import load_meteor_synonyms
    from meteor_lite_builders.synonyms.wndb import Synonyms

    pairs, exc, _ = load_meteor_synonyms(jar)
    build_bundle("en", base, synonyms=Synonyms(sorted(pairs), sorted(exc)))
    hyp, ref = tmp_path / "hyp", tmp_path / "ref"
    hyp.write_text("a big automobile\nthe mice\n", encoding="utf-8")
    ref.write_text("a large car\nthe mouse\n", encoding="utf-8")
    r = runner.invoke(
        _app(),
        ["compare-synonyms", "--wordnet", str(wn), "--official", str(jar), "--score", "--base", str(base),
         "--hyp", str(hyp), "--ref", str(ref), "--json", "--no-progress"],
    )
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["words"]["of_theirs"] == 1.0 and rep["exceptions"]["of_ours"] == 1.0
    assert rep["word_synset_pairs"]["both"] == 0  # every id differs
    # in ours big and large share a synset; in "Meteor's" they do not
    assert ("big", "large") in map(tuple, rep["examples"]["synonym_pairs_only_ours"])
    assert rep["id_shifts"][0]["shift"] == 7 and rep["id_shifts"][0]["synsets"] >= 2
    scores = rep["scores"]
    assert set(scores) == {"official synonyms", "our synonyms"}
    assert scores["our synonyms"]["score"] > scores["official synonyms"]["score"]  # big ~ large only in ours
    assert scores["our synonyms"]["segments_differing"] == 1
    text = runner.invoke(
        _app(), ["compare-synonyms", "--wordnet", str(wn), "--official", str(jar), "--no-progress"]
    ).stdout
    assert "synonym_pairs" in text and "both/theirs" in text and "id shift +7" in text
