"""Importing the official Meteor 1.5 release: parsers, malformed input, real import, CLI."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import shutil
import zipfile
from pathlib import Path
from typing import Dict, List, Optional

import pytest
from typer.testing import CliRunner

import meteor_lite_builders.official.importer as imp
from meteor_lite.resources.bundle import Bundle
from meteor_lite_builders import jar as jar_api
from meteor_lite_builders.bundle.writer import BundleWriter
from meteor_lite_builders.cli import app
from meteor_lite_builders.errors import ImportOfficialError, MalformedInputError, OfficialReleaseError
from meteor_lite_builders.official import release as official
from meteor_lite_builders.official.formats import (
    iter_paraphrase_batches,
    iter_paraphrases,
    parse_exceptions,
    parse_function_words,
    parse_synsets,
)
from meteor_lite_builders.official.importer import OFFICIAL_LANGUAGES, build_official_bundle
from meteor_lite_builders.official.stems import snowball_language

runner = CliRunner()


def have_release() -> bool:
    try:
        jar_api.find_jar()
        jar_api.paraphrase_file("en")
    except OfficialReleaseError:
        return False
    return True


needs_release = pytest.mark.skipif(not have_release(), reason="the official release (pycocoevalcap) is not installed")

# -- a small fake release -----------------------------------------------------------------

GOOD = {
    "function/english.words": "the\n,\n\n's\n’\n",
    "synonym/english.synsets": "car\n02958343\nauto\n02958343 00000007\nmotor_car\n02958343\n",
    "synonym/english.exceptions": "mouse\nmice\ngo\nwent gone\n",
    "nonbreaking/english.prefixes": "# comment\nMr\n\nNo #NUMERIC_ONLY#\n",
    "synonym/COPYING.WORDNET": "licence text\n",
}
PARAPHRASES = "0.5\nget rid of\nremove\n0.25\nremove\nget  rid\tof\n0.125\nx\nzeta\n1e-05\nx\nalpha\n"


def make_jar(path: Path, members: Dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, text in members.items():
            z.writestr(name, text.encode("utf-8"))
    return path


def make_gz(path: Path, text: str) -> Path:
    with gzip.open(path, "wb") as f:
        f.write(text.encode("utf-8"))
    return path


@pytest.fixture()
def release(tmp_path: Path):
    jar = make_jar(tmp_path / "meteor-1.5.jar", GOOD)
    para = make_gz(tmp_path / "paraphrase-en.gz", PARAPHRASES)
    return jar, para


def build_fake(tmp_path: Path, jar: Path, para: Optional[Path], **kw) -> Path:
    return build_official_bundle("en", tmp_path / "out" / "en.sqlite", progress=False, jar=jar, paraphrase_file=para, **kw)


# -- parsers ---------------------------------------------------------------------------------


def test_parse_function_words_keeps_lines() -> None:
    assert parse_function_words("the\n\n's\r\n’\n--\n") == ["the", "'s", "’", "--"]


def test_parse_synsets() -> None:
    assert parse_synsets("car\n02958343\nauto\n02958343 7\n") == [("car", 2958343), ("auto", 2958343), ("auto", 7)]


def test_parse_exceptions_gives_form_base_pairs() -> None:
    assert parse_exceptions("go\nwent gone\nmouse\nmice\n") == [("went", "go"), ("gone", "go"), ("mice", "mouse")]


def test_paraphrases_in_file_order_and_normalised() -> None:
    got = list(iter_paraphrases(io.StringIO(PARAPHRASES)))
    assert got == [
        ("get rid of", "remove", 0.5),
        ("remove", "get rid of", 0.25),
        ("x", "zeta", 0.125),
        ("x", "alpha", 1e-05),
    ]
    assert list(iter_paraphrases(PARAPHRASES.splitlines(), limit=2)) == got[:2]
    assert list(iter_paraphrases(PARAPHRASES.splitlines(), limit=0)) == []


def test_paraphrase_batches() -> None:
    batches = list(iter_paraphrase_batches(PARAPHRASES.splitlines(), batch_size=3))
    assert [len(b) for b in batches] == [3, 1]


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("car\n1\nbus\n", 3, "odd number of lines"),
        ("car\n1 x2\n", 2, "synset id 'x2' is not"),
        ("car\n1\nbus\n-4\n", 4, "synset id '-4' is not"),
        ("car\n\nbus\n2\n", 2, "empty synset-id line"),
        ("car\n1\n\n2\n", 3, "empty word line"),
        ("two words\n1\n", 1, "more than one token"),
    ],
)
def test_malformed_synsets(text: str, line: int, problem: str) -> None:
    with pytest.raises(MalformedInputError, match=re.escape(problem)) as e:
        parse_synsets(text, "jar!synonym/english.synsets")
    assert (e.value.source, e.value.line) == ("jar!synonym/english.synsets", line)
    assert str(e.value).startswith(f"jar!synonym/english.synsets, line {line}: ")


def test_malformed_exceptions() -> None:
    with pytest.raises(MalformedInputError, match="odd number of lines") as e:
        parse_exceptions("go\nwent\nmouse\n", "exc")
    assert e.value.line == 3


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("0.5\na\nb\nzero\nc\nd\n", 4, "probability 'zero' is not a number"),
        ("0.5\na\nb\n\nc\nd\n", 4, "probability '' is not a number"),
        ("nan\na\nb\n", 1, "is not a number"),
        ("1_0\na\nb\n", 1, "is not a number"),
        ("١\na\nb\n", 1, "is not a number"),
        ("1e999\na\nb\n", 1, "out of range"),
        ("0.5\na\nb\n0.1\nc\n", 5, "file ends inside an entry (2 of 3 lines"),
        ("0.5\na\nb\n0.1\n", 4, "file ends inside an entry (1 of 3 lines"),
        ("0.5\n  \nb\n", 2, "empty phrase"),
        ("0.5\na\n\t\n", 3, "empty paraphrase"),
    ],
)
def test_malformed_paraphrases(text: str, line: int, problem: str) -> None:
    with pytest.raises(MalformedInputError, match=re.escape(problem)) as e:
        list(iter_paraphrases(io.StringIO(text), "paraphrase-en.gz"))
    assert e.value.line == line
    assert str(e.value).startswith(f"paraphrase-en.gz, line {line}: ")


# -- building from a fake release -------------------------------------------------------------


def test_build_from_fake_release(tmp_path: Path, release) -> None:
    jar, para = release
    out = build_fake(tmp_path, jar, para)
    with Bundle.open(out) as b:
        assert b.verify() == []
        assert (b.language, b.name, b.version) == ("en", "en", "1.5.0")
        assert b.function_words() == frozenset(["the", ",", "'s", "’"])
        assert b.synsets(["car", "auto", "motor_car"]) == {
            "car": frozenset({2958343}),
            "auto": frozenset({2958343, 7}),
            "motor_car": frozenset({2958343}),
        }
        assert b.synonym_exceptions(["went", "gone", "mice"]) == {"went": ["go"], "gone": ["go"], "mice": ["mouse"]}
        assert b.paraphrases(["x", "remove"]) == {"x": ["zeta", "alpha"], "remove": ["get rid of"]}
        assert b.nonbreaking_prefixes() == {"Mr": False, "No": True}
        assert b.stemmer == {"language": "english", "package": "snowballstemmer", "version": "2.2.0"}
        vocab = {"car", "auto", "the", ",", "'s", "’", "get", "rid", "of", "remove", "x", "zeta", "alpha"}
        stems = b.stems(vocab | {"motor_car"})
        assert set(stems) == vocab  # synset words with '_' are left out
        assert stems["remove"] == "remov"
        params = b.info()["build_params"]
        assert params["stem_vocabulary"]["words"] == len(vocab)
        assert params["paraphrases"]["pairs"] == 4
        sources = {s["name"]: s for s in b.sources()}
        assert sources["meteor-1.5.jar"]["sha256"] == hashlib.sha256(jar.read_bytes()).hexdigest()
        assert sources["paraphrase-en.gz"]["sha256"] == hashlib.sha256(para.read_bytes()).hexdigest()
        assert sources["english.synsets"]["sha256"] == hashlib.sha256(GOOD["synonym/english.synsets"].encode()).hexdigest()
        assert "WordNet" in sources["english.synsets"]["licence"]
        assert sources["meteor-1.5.jar"]["licence"] == "LGPL-2.1"
    assert sorted(p.name for p in out.parent.iterdir()) == ["en.sqlite"]


def test_rebuild_gives_same_checksum(tmp_path: Path, release) -> None:
    jar, para = release
    a = build_official_bundle("en", tmp_path / "a.sqlite", progress=False, jar=jar, paraphrase_file=para)
    b = build_official_bundle("en", tmp_path / "b.sqlite", progress=False, jar=jar, paraphrase_file=para)
    c = build_official_bundle("en", tmp_path / "c.sqlite", progress=False, jar=jar, paraphrase_file=para, max_paraphrases=3)
    sums = [Bundle.open(p).checksum for p in (a, b, c)]
    assert sums[0] == sums[1] != sums[2]


@pytest.mark.parametrize(
    "member, text, line",
    [
        ("synonym/english.synsets", "car\n02958343\nauto\n", 3),
        ("synonym/english.synsets", "car\n0295834x\n", 2),
        ("synonym/english.exceptions", "mouse\nmice\ngo\n", 3),
    ],
)
def test_malformed_jar_member_leaves_no_bundle(tmp_path: Path, release, member: str, text: str, line: int) -> None:
    _, para = release
    jar = make_jar(tmp_path / "bad.jar", {**GOOD, member: text})
    with pytest.raises(MalformedInputError) as e:
        build_fake(tmp_path, jar, para)
    assert e.value.source == f"bad.jar!{member}" and e.value.line == line
    assert list((tmp_path / "out").iterdir()) == []


def test_malformed_paraphrase_file_leaves_no_bundle(tmp_path: Path, release) -> None:
    jar, _ = release
    para = make_gz(tmp_path / "p.gz", PARAPHRASES + "0.1\nlast\n")
    with pytest.raises(MalformedInputError, match="line 14: file ends inside an entry") as e:
        build_fake(tmp_path, jar, para)
    assert e.value.source == str(para)
    assert list((tmp_path / "out").iterdir()) == []


def test_truncated_gzip(tmp_path: Path, release) -> None:
    jar, para = release
    bad = tmp_path / "trunc.gz"
    bad.write_bytes(para.read_bytes()[:-12])
    with pytest.raises(ImportOfficialError, match="trunc.gz"):
        build_fake(tmp_path, jar, bad)
    assert list((tmp_path / "out").iterdir()) == []


def test_interrupt_during_paraphrases_leaves_no_bundle(tmp_path: Path, release, monkeypatch: pytest.MonkeyPatch) -> None:
    jar, para = release
    monkeypatch.setattr(imp, "PARAPHRASE_BLOCK_CHARS", 8)  # a batch per entry or two
    calls = []
    original = BundleWriter.add_paraphrases

    def add_then_interrupt(self, triples):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(self, triples)

    monkeypatch.setattr(BundleWriter, "add_paraphrases", add_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        build_fake(tmp_path, jar, para)
    assert len(calls) == 2
    assert list((tmp_path / "out").iterdir()) == []


def test_bad_arguments(tmp_path: Path, release) -> None:
    jar, para = release
    with pytest.raises(ImportOfficialError, match="unknown language 'xx'"):
        build_official_bundle("xx", tmp_path / "x.sqlite", jar=jar)
    with pytest.raises(ImportOfficialError, match="max_paraphrases"):
        build_official_bundle("en", tmp_path / "x.sqlite", jar=jar, max_paraphrases=-1)
    with pytest.raises(ImportOfficialError, match="jar not found"):
        build_official_bundle("en", tmp_path / "x.sqlite", jar=tmp_path / "missing.jar")
    with pytest.raises(OfficialReleaseError, match="cannot read the jar"):
        build_official_bundle("en", tmp_path / "x.sqlite", jar=para)
    assert not (tmp_path / "x.sqlite").exists()


def test_snowball_languages() -> None:
    names = {code: snowball_language(code) for code in OFFICIAL_LANGUAGES}
    assert names["cz"] is None  # snowballstemmer 2.2.0 has no Czech stemmer
    assert all(names[c] == official.LANGUAGE_NAMES[c] for c in OFFICIAL_LANGUAGES if c != "cz")


# -- the real release ------------------------------------------------------------------------------


def jar_text(member: str) -> str:
    return jar_api.read_jar_text(member)


@pytest.fixture(scope="module")
def real_en(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("real") / "en.sqlite"
    return build_official_bundle("en", out, progress=False, max_paraphrases=500)


@needs_release
def test_real_english_counts(real_en: Path) -> None:
    # Independent counts from the jar's files.
    fw = [w for w in jar_text("function/english.words").split("\n") if w]
    syn_lines = jar_text("synonym/english.synsets").split("\n")[:-1]
    syn_pairs = {(w, int(i)) for w, ids in zip(syn_lines[0::2], syn_lines[1::2]) for i in ids.split()}
    exc_lines = jar_text("synonym/english.exceptions").split("\n")[:-1]
    exc_pairs = {(f, b) for b, fs in zip(exc_lines[0::2], exc_lines[1::2]) for f in fs.split()}
    with Bundle.open(real_en) as b:
        counts = b.counts()
        assert len(fw) == 93 and counts["function_words"] == 93
        assert len(syn_lines) == 2 * 147306
        assert counts["synsets"] == len(syn_pairs) == 206941
        assert counts["synonym_exceptions"] == len(exc_pairs) == 6046
        assert counts["nonbreaking_prefixes"] == len(official.read_nonbreaking_prefixes("en")) > 50
        assert counts["paraphrases"] == 500
        synset_words = {w for w, _ in syn_pairs if "_" not in w}
        assert len(synset_words) == 83118
        assert counts["stems"] >= len(synset_words | set(fw))
        assert b.verify() == []
        assert b.stemmer == {"language": "english", "package": "snowballstemmer", "version": "2.2.0"}
        assert b.synonym_exceptions(["mice"]) == {"mice": ["mouse"]}
        assert b.function_words() == frozenset(fw)


@needs_release
def test_real_english_paraphrases_in_file_order(real_en: Path, tmp_path: Path) -> None:
    with gzip.open(jar_api.paraphrase_file(), "rt", encoding="utf-8") as f:
        lines = [next(f).rstrip("\n") for _ in range(3 * 500)]
    expected: Dict[str, List[str]] = {}
    for phrase, para in zip(lines[1::3], lines[2::3]):
        expected.setdefault(phrase, []).append(para)
    with Bundle.open(real_en) as b:
        assert b.paraphrases(list(expected)) == expected
        assert not b.has_paraphrase_probabilities  # the default bundle stores none
    kept = build_official_bundle("en", tmp_path / "k.sqlite", progress=False, max_paraphrases=500, keep_probabilities=True)
    with Bundle.open(kept) as b:
        rows = list(b.iter_paraphrases(with_probs=True))
    # the official file is sorted by phrase: phrase order, then list order, is file order
    assert [(ph, p) for ph, paras, _ in rows for p in paras] == list(zip(lines[1::3], lines[2::3]))
    assert [p for _, _, probs in rows for p in probs or ()] == [float(x) for x in lines[0::3]]


@needs_release
def test_real_english_stems_are_snowball_2_2_0(real_en: Path) -> None:
    import snowballstemmer

    # snowballstemmer 3.x stems these two differently: the map must hold 2.2.0's stems.
    words = ["organization", "university", "running", "the", "dog"]
    with Bundle.open(real_en) as b:
        stems = b.stems(words)
        sample = b._conn.execute("SELECT word, stem FROM stems ORDER BY word LIMIT 3000 OFFSET 40000").fetchall()
    assert stems == {"organization": "organ", "university": "univers", "running": "run", "the": "the", "dog": "dog"}
    assert len(sample) == 3000
    sample_words = [w for w, _ in sample]
    assert [s for _, s in sample] == snowballstemmer.EnglishStemmer().stemWords(sample_words)


@needs_release
def test_real_english_provenance(real_en: Path) -> None:
    with Bundle.open(real_en) as b:
        sources = {s["name"]: s for s in b.sources()}
        params = b.info()["build_params"]
    assert set(sources) == {"meteor-1.5.jar", "english.synsets", "english.exceptions", "paraphrase-en.gz"}
    assert sources["paraphrase-en.gz"]["sha256"] == hashlib.sha256(jar_api.paraphrase_file().read_bytes()).hexdigest()
    assert sources["meteor-1.5.jar"]["sha256"] == hashlib.sha256(jar_api.find_jar().read_bytes()).hexdigest()
    assert all("/work/" not in s["location"] and "site-packages" not in s["location"] for s in sources.values())
    assert params["paraphrases"]["max_paraphrases"] == 500
    assert params["stem_vocabulary"]["sources"] == ["paraphrase-table tokens", "synset words without '_'", "function words"]


@needs_release
@pytest.mark.parametrize(
    "lang, own_function_words, stemmer",
    [("de", 92, "german"), ("cz", 68, None), ("fr", 85, "french"), ("da", 0, "danish"), ("se", 0, "swedish")],
)
def test_real_other_languages(tmp_path: Path, lang: str, own_function_words: int, stemmer: Optional[str]) -> None:
    english = set(parse_function_words(jar_text("function/english.words")))
    own = set(parse_function_words(jar_text(f"function/{official.LANGUAGE_NAMES[lang]}.words")))
    assert len(own) == own_function_words
    # stems="snowball" (the default): no stem corrections (test_stem_corrections_from_the_jar)
    meteor = build_official_bundle(lang, tmp_path / f"{lang}.sqlite", progress=False)
    language = build_official_bundle(
        lang, tmp_path / f"{lang}-own.sqlite", progress=False, function_words="language", stems="snowball"
    )
    for path, expected in ((meteor, english), (language, own)):
        with Bundle.open(path) as b:
            counts = b.counts()
            assert b.function_words() == frozenset(expected)
            assert counts["paraphrases"] == counts["stems"] == counts["synsets"] == 0
            assert (b.stemmer or {}).get("language") == stemmer
            assert b.language == lang and b.version == "1.5.0" and b.verify() == []
            assert counts["nonbreaking_prefixes"] == len(official.read_nonbreaking_prefixes(lang))
    assert Bundle.open(meteor).info()["build_params"]["function_words"]["member"] == "function/english.words"
    assert Bundle.open(meteor).checksum != Bundle.open(language).checksum


@needs_release
@pytest.mark.java
def test_stem_corrections_from_the_jar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """stems="jar": the words where the jar's Stemmer differs from snowballstemmer; the scores stay the same."""
    import functools

    from meteor_lite import Meteor
    from meteor_lite_builders.official.stems import stem_corrections

    monkeypatch.setattr(imp, "stem_corrections", functools.partial(stem_corrections, size=5000))  # not 200,000
    plain = build_official_bundle("de", tmp_path / "de.sqlite", progress=False)
    table = build_official_bundle("de", tmp_path / "de-jar.sqlite", progress=False, stems="jar")
    with Bundle.open(table) as b:
        corrections = b.info()["build_params"]["stem_corrections"]
        assert corrections["words_checked"] > 9000 and corrections["corrections"] == b.counts()["stems"] > 0
        # Meteor 1.5's Snowball keeps -nisse's double s; snowballstemmer 2.2.0 does not
        assert b.stems(["Ergebnisse", "Haus"]) == {"Ergebnisse": "Ergebniss"}
        assert b.verify() == [] and b.checksum != Bundle.open(plain).checksum
    hyps, refs = ["Die Ergebnisse der Studie", "Ereignisse"], ["Ergebnissen der Studien zufolge", "die Ereignis"]
    ours = [Meteor("de", bundle=path, quiet=True).score_corpus(hyps, [refs]) for path in (plain, table)]
    assert [s.score for s in ours[0].segments] == [s.score for s in ours[1].segments] and ours[0].score > 0


def test_function_words_choice_is_checked(tmp_path: Path, release) -> None:
    jar, _ = release
    with pytest.raises(ImportOfficialError, match="function_words must be one of meteor, language"):
        build_official_bundle("de", tmp_path / "x.sqlite", jar=jar, function_words="german")


# -- the CLI -----------------------------------------------------------------------------------------


@pytest.fixture()
def fake_official(monkeypatch: pytest.MonkeyPatch, release):
    """Make the default release the fake one."""
    jar, para = release
    monkeypatch.setattr(jar_api, "find_jar", lambda: jar)
    monkeypatch.setattr(jar_api, "paraphrase_file", lambda lang="en": para)
    return jar, para


def test_cli_import_one_language(tmp_path: Path, fake_official) -> None:
    out = tmp_path / "x" / "en.sqlite"
    r = runner.invoke(app, ["import-official", "--lang", "en", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert re.search(r"^en: wrote .*en\.sqlite \(.*4 paraphrases.*\) in [0-9.]+ s$", r.stdout.strip())
    with Bundle.open(out) as b:
        assert b.counts()["paraphrases"] == 4


def test_cli_function_words_option(tmp_path: Path, fake_official) -> None:
    jar, _ = fake_official
    make_jar(jar, {**GOOD, "function/german.words": "die\nder\n"})
    # --stems snowball: the fake jar has no Stemmer program to run
    r = runner.invoke(
        app, ["import-official", "--lang", "de", "--out-dir", str(tmp_path), "--function-words", "language", "--stems", "snowball"]
    )
    assert r.exit_code == 0, r.output
    with Bundle.open(tmp_path / "de.sqlite") as b:
        assert b.function_words() == frozenset(["die", "der"])
    r = runner.invoke(app, ["import-official", "--lang", "de", "--out-dir", str(tmp_path), "--stems", "snowball"])
    assert r.exit_code == 0, r.output
    with Bundle.open(tmp_path / "de.sqlite") as b:
        assert b.function_words() == frozenset(["the", ",", "'s", "’"])  # the fake jar's English list
    r = runner.invoke(app, ["import-official", "--lang", "de", "--out-dir", str(tmp_path), "--function-words", "german"])
    assert r.exit_code == 2


def test_cli_max_paraphrases(tmp_path: Path, fake_official) -> None:
    r = runner.invoke(app, ["import-official", "--lang", "en", "--out-dir", str(tmp_path), "--max-paraphrases", "1"])
    assert r.exit_code == 0, r.output
    with Bundle.open(tmp_path / "en.sqlite") as b:
        assert b.counts()["paraphrases"] == 1


@needs_release
def test_cli_all_languages_and_skip_existing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, real_en: Path) -> None:
    built: List[str] = []
    original = imp.build_official_bundle

    def small(lang, out, **kw):
        built.append(lang)
        if lang == "en":  # already built once for this module: save the time
            shutil.copy(real_en, out)
            return out
        kw["stems"] = "snowball"  # Meteor's own stemmer (Java, 400k words per language) is tested elsewhere
        return original(lang, out, **kw)

    monkeypatch.setattr("meteor_lite_builders.cli.official.build_official_bundle", small)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "de.sqlite").write_bytes(b"not a bundle")
    BundleWriter(tmp_path / "junk" / "fr.sqlite", language="fr", name="fr", version="0").__enter__().__exit__(None, None, None)
    r = runner.invoke(app, ["import-official", "--lang", "all", "--out-dir", str(tmp_path / "junk"), "--skip-existing"])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (tmp_path / "junk").iterdir()) == sorted(f"{c}.sqlite" for c in OFFICIAL_LANGUAGES)
    assert built == [c for c in OFFICIAL_LANGUAGES if c != "fr"]
    assert "fr: " in r.stdout and "exists, skipped" in r.stdout
    assert "de.sqlite" in r.stderr and "rebuilding" in r.stderr


def _checksums(folder: Path) -> Dict[str, str]:
    out = {}
    for p in sorted(folder.glob("*.sqlite")):
        with Bundle.open(p) as b:
            out[p.name] = b.checksum
    return out


@needs_release
def test_cli_jobs_give_the_same_bundles(tmp_path: Path, real_en: Path) -> None:
    """--jobs 2 (one process per language) writes the bundles one process writes, byte for byte in content."""
    runs = {}
    for jobs in ("1", "2"):
        folder = tmp_path / f"jobs{jobs}"
        folder.mkdir()
        shutil.copy(real_en, folder / "en.sqlite")
        r = runner.invoke(app, ["import-official", "--lang", "all", "--out-dir", str(folder), "--skip-existing",
                                "--stems", "snowball", "--jobs", jobs])
        assert r.exit_code == 0, r.output
        assert sorted(line.split(":")[0] for line in r.stdout.splitlines()) == sorted(OFFICIAL_LANGUAGES)
        runs[jobs] = _checksums(folder)
    assert len(runs["1"]) == len(OFFICIAL_LANGUAGES) and all(runs["1"].values())
    assert runs["2"] == runs["1"]


@needs_release
def test_cli_jobs_go_on_after_a_failure(tmp_path: Path, real_en: Path) -> None:
    """With --jobs a language that fails is one error line; the others are still written; exit 1."""
    shutil.copy(real_en, tmp_path / "en.sqlite")
    (tmp_path / "ro.sqlite").mkdir()  # no bundle can be written there
    r = runner.invoke(app, ["import-official", "--lang", "all", "--out-dir", str(tmp_path), "--stems", "snowball",
                            "--jobs", "2", "--skip-existing"])
    assert r.exit_code == 1, r.output
    errors = [line for line in r.stderr.splitlines() if line.startswith("meteor-build: error: ")]
    assert errors[0].startswith("meteor-build: error: ro: ") and errors[-1].endswith("1 of 15 languages failed: ro")
    assert len(errors) == 2 and "Traceback" not in r.output
    written = {p.name for p in tmp_path.glob("*.sqlite") if p.is_file()}
    assert written == {f"{c}.sqlite" for c in OFFICIAL_LANGUAGES if c != "ro"}


def test_cli_usage_errors(tmp_path: Path) -> None:
    r = runner.invoke(app, ["import-official", "--lang", "xx"])
    assert r.exit_code == 2 and "unknown language 'xx'" in r.stderr
    r = runner.invoke(app, ["import-official", "--lang", "all", "--out", str(tmp_path / "a.sqlite")])
    assert r.exit_code == 2 and "--out-dir" in r.stderr
    r = runner.invoke(app, ["import-official", "--lang", "en", "--max-paraphrases", "-3"])
    assert r.exit_code == 2


def test_cli_library_error_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing():
        raise OfficialReleaseError("the official Meteor 1.5 release is read from the 'pycocoevalcap' package")

    monkeypatch.setattr(jar_api, "find_jar", missing)
    r = runner.invoke(app, ["import-official", "--lang", "de", "--out-dir", str(tmp_path)])
    assert r.exit_code == 1
    assert r.stderr.strip().splitlines() == ["meteor-build: error: de: the official Meteor 1.5 release is read from the 'pycocoevalcap' package"]
    assert "Traceback" not in r.output
    assert list(tmp_path.iterdir()) == []


def test_cli_malformed_input_names_file_and_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, release) -> None:
    _, para = release
    bad = make_jar(tmp_path / "meteor-1.5.jar.bad", {**GOOD, "synonym/english.synsets": "car\nbus\n"})
    monkeypatch.setattr(jar_api, "find_jar", lambda: bad)
    monkeypatch.setattr(jar_api, "paraphrase_file", lambda lang="en": para)
    out_dir = tmp_path / "out"
    r = runner.invoke(app, ["import-official", "--lang", "en", "--out-dir", str(out_dir)])
    assert r.exit_code == 1
    assert r.stderr.strip() == (
        "meteor-build: error: en: meteor-1.5.jar.bad!synonym/english.synsets, line 2: synset id 'bus' is not a non-negative integer"
    )
    assert not out_dir.exists() or list(out_dir.iterdir()) == []


def test_cli_interrupt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_official) -> None:
    def interrupted(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(BundleWriter, "add_synsets", interrupted)
    r = runner.invoke(app, ["import-official", "--lang", "en", "--out-dir", str(tmp_path / "o")])
    assert r.exit_code == 130
    assert r.stderr.strip() == "meteor-build: interrupted: en: no bundle written"
    assert list((tmp_path / "o").iterdir()) == []


def test_cli_version_and_help() -> None:
    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and "meteor-build" in r.stdout
    r = runner.invoke(app, ["--help"])
    assert r.exit_code == 0 and "import-official" in r.stdout


def test_build_params_are_json(tmp_path: Path, release) -> None:
    jar, para = release
    out = build_fake(tmp_path, jar, para, max_paraphrases=2)
    with Bundle.open(out) as b:
        raw = b.meta["build_params"]
    assert json.loads(raw)["paraphrases"]["max_paraphrases"] == 2
    assert raw == json.dumps(json.loads(raw), sort_keys=True)
