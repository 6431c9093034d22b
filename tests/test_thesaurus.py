"""MyThes thesauri as synonym sets and paraphrases: the reader, the inflection links, the recipe key, the scorer's contract."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from meteor_lite import Meteor
from meteor_lite.resources.bundle import Bundle
from meteor_lite_builders.errors import MalformedSourceError, RecipeError
from meteor_lite_builders.paraphrases.thesaurus import thesaurus_pairs
from meteor_lite_builders.recipes import load_recipe
from meteor_lite_builders.recipes.build import build_recipe
from meteor_lite_builders.recipes.thesauri import MYTHES_DIR, THESAURI
from meteor_lite_builders.synonyms.inflections import inflection_exceptions
from meteor_lite_builders.synonyms.mythes import iter_mythes, read_mythes, split_notes

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "resources" / "recipes"

# A German-like thesaurus in ISO-8859-1: notes, a relation note (Oberbegriff), a placeholder,
# a multi-word member, an antonym part-of-speech field, and a line larger than max_set_size below.
THES = """ISO8859-1
haus|2
-|Haus|Gebäude|Bauwerk (Oberbegriff)|Wohn... (ugs.)
-|Haus|Familie (geh.)|altes Geschlecht
gebäude|1
-|Gebäude|Haus|Bauwerk (Oberbegriff)|Wohn... (ugs.)
schnell|2
(Adjektiv)|rasch|flink|zügig|im Nu
(Antonym)|langsam
liste|1
-|a1|a2|a3|a4|a5|a6|a7
"""

LEMMAS = "häuser\thaus\nhäusern\thaus\ngebäuden\tgebäude\nrascher\trasch\nschnelle\tschnell\n"


def _write(tmp_path: Path, text: str = THES, name: str = "th_xx.dat", encoding: str = "latin-1") -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode(encoding))
    return p


def test_split_notes() -> None:
    assert split_notes("Wohnhaus (ugs.) (fig.)") == ("Wohnhaus", ["ugs.", "fig."])
    assert split_notes("(den) Button anklicken") == ("Button anklicken", ["den"])
    assert split_notes("a (b (c)) d") == ("a d", ["c", "b"])


def test_read_mythes_sets_notes_relations_phrases(tmp_path: Path) -> None:
    t = read_mythes(_write(tmp_path), "de", show_progress=False)
    members = {m.line: m.members for m in t.meanings}
    assert members[3] == (("haus",), ("gebäude",))  # Bauwerk (Oberbegriff) and the placeholder dropped
    assert members[4] == (("haus",), ("familie",), ("altes", "geschlecht"))
    assert 9 not in members  # the whole (Antonym) line
    assert t.counts["relation_members"] == 2 and t.counts["relation_lines"] == 1 and t.counts["placeholder_members"] == 2
    syn = t.synonyms(max_set_size=6)
    sets: dict = {}
    for w, i in syn.synsets:
        sets.setdefault(i, set()).add(w)
    # the same meaning line under two entries is one set; the 8-word line is too large; the phrase is not a word
    assert sorted(map(sorted, sets.values())) == [["familie", "haus"], ["flink", "rasch", "schnell", "zügig"], ["gebäude", "haus"]]
    assert syn.params["lines_too_large"] == 1 and syn.sources[0].kind == "mythes"
    assert {"a1", "a7"} <= t.synonyms(max_set_size=8).words()


def test_thesaurus_paraphrases_filters(tmp_path: Path) -> None:
    t = read_mythes(_write(tmp_path), "de", show_progress=False)
    rows, counts = thesaurus_pairs(t, function_words={"im"})
    pairs = {(a, b) for a, b, _ in rows}
    assert ("familie", "altes geschlecht") in pairs and ("altes geschlecht", "haus") in pairs
    assert all(" " in a or " " in b for a, b in pairs)  # single-word pairs are the synonym stage's
    assert ("im nu", "rasch") in pairs  # not only function words: "nu" is not one
    rows2, counts2 = thesaurus_pairs(t, function_words={"im", "nu"})
    assert not any("im nu" in (a, b) for a, b, _ in rows2) and counts2["function_words_only"] == 1
    assert all(p == 1.0 for _, _, p in rows)
    contained = read_mythes(_write(tmp_path, "UTF-8\nrot|1\n-|rot|rot werden|erröten\n", "c.dat", "utf-8"), "de", show_progress=False)
    rows3, counts3 = thesaurus_pairs(contained)
    assert {(a, b) for a, b, _ in rows3} == {("erröten", "rot werden"), ("rot werden", "erröten")}
    assert counts3["contained"] == 2  # "rot" inside "rot werden", both ways


@pytest.mark.parametrize(
    "text, line, problem",
    [("UTF-8\nhaus 2\n-|Gebäude\n", 2, "expected an entry line"),
     ("UTF-8\nhaus|3\n-|Gebäude\n", 2, "announces 3 meaning lines"),
     ("KLINGON-8\nhaus|1\n-|x\n", 1, "unknown encoding"),
     ("", 1, "empty file")],
)
def test_malformed_thesaurus_names_file_and_line(tmp_path: Path, text: str, line: int, problem: str) -> None:
    p = _write(tmp_path, text, encoding="utf-8")
    with pytest.raises(MalformedSourceError, match=problem) as exc:
        list(iter_mythes(p))
    assert exc.value.line == line and str(p) in str(exc.value)


def test_bad_bytes_for_the_declared_encoding(tmp_path: Path) -> None:
    p = tmp_path / "bad.dat"
    p.write_bytes(b"UTF-8\nhaus|1\n-|Geb\xe4ude\n")
    with pytest.raises(MalformedSourceError, match="not valid utf-8") as exc:
        list(iter_mythes(p))
    assert exc.value.line == 3


def test_inflection_exceptions() -> None:
    pairs, counts = inflection_exceptions(
        {"haus", "gebäude", "a", "b", "c"},
        [("häuser", "haus"), ("haus", "haus"), ("gebäuden", "gebäud"), ("gebäude", "gebäud"), ("x", "k"),
         ("a", "k"), ("b", "k"), ("c", "k")],
        max_bases=2,
    )
    assert pairs == [("gebäuden", "gebäude"), ("häuser", "haus")]
    assert counts["forms_with_too_many_bases"] == 4  # x, a, b, c: three bases share stem k


def test_english_detachment_rules_are_blocked_where_the_map_says_otherwise() -> None:
    """German "der"/"des" would reach "de" by the scorer's English rules (-er, -s): they get themselves as base."""
    pairs, counts = inflection_exceptions({"de", "haus", "gebäude"}, [("der", "der"), ("des", "des"), ("häuser", "haus")],
                                          unlinked={"des"})
    assert pairs == [("der", "der"), ("des", "des"), ("häuser", "haus")] and counts["blocked"] == 2
    pairs2, _ = inflection_exceptions({"haus"}, [("häuser", "haus")], unlinked={"häuser"})
    assert pairs2 == []  # a function word gets no link


def _recipe(tmp_path: Path, extra: str = "", required: bool = True, stems: bool = True) -> Path:
    thes = _write(tmp_path)
    lem = tmp_path / "lemmas.tsv"
    lem.write_text(LEMMAS, encoding="utf-8")
    sha = hashlib.sha256(thes.read_bytes()).hexdigest()
    lsha = hashlib.sha256(lem.read_bytes()).hexdigest()
    stem_part = f"""
[sources.lemmas]
kind = "lemma-file"
path = "lemmas.tsv"
sha256 = "{lsha}"
licence = "test"

[stems]
from = "lemmas"
""" if stems else ""
    p = tmp_path / "xx.toml"
    p.write_text(f"""format = "meteor-lite-recipe"
format_version = 1

[bundle]
language = "bg"
name = "thes-test"
version = "1.0.0"

[sources.thes]
kind = "mythes"
path = "th_xx.dat"
sha256 = "{sha}"
licence = "LGPL"
required = {str(required).lower()}
{stem_part}
[synonyms]
from = "thes"
{extra}
[paraphrases]
from = "thes"
""", encoding="utf-8")
    return p


def test_recipe_builds_synonyms_inflections_and_paraphrases(tmp_path: Path) -> None:
    res = build_recipe(_recipe(tmp_path), tmp_path / "t.sqlite", show_progress=False)
    with Bundle.open(res.path) as b:
        counts = b.counts()
        assert counts["synsets"] > 0 and counts["synonym_exceptions"] > 0 and counts["paraphrases"] > 0
        assert {s["kind"] for s in b.sources()} >= {"mythes"}
        assert [s["licence"] for s in b.sources() if s["kind"] == "mythes"] == ["LGPL"]
    # Meteor's contract: two words match in the synonym stage when they share a set after normalisation
    # (here: inflected forms reach their thesaurus entry through the bundle's lemma map).
    m = Meteor("bg", bundle=res.path, modules=["exact", "synonym"], weights=[1.0, 0.8], quiet=True)
    assert m.score_segment("häusern", ["gebäuden"]).stats.ref_word_matches == 1
    assert m.score_segment("rascher", ["schnelle"]).stats.ref_word_matches == 1
    assert m.score_segment("häusern", ["schnelle"]).stats.ref_word_matches == 0
    assert m.score_segment("bauwerk", ["haus"]).stats.ref_word_matches == 0  # a hypernym is not a synonym
    p = Meteor("bg", bundle=res.path, modules=["exact", "paraphrase"], weights=[1.0, 0.6], quiet=True)
    assert p.score_segment("die altes geschlecht", ["die familie"]).stats.ref_word_matches == 2


def test_recipe_without_inflections_and_with_set_size(tmp_path: Path) -> None:
    res = build_recipe(_recipe(tmp_path, "inflections = false\nmax_set_size = 3\n"), tmp_path / "t.sqlite", show_progress=False)
    with Bundle.open(res.path) as b:
        assert b.counts()["synonym_exceptions"] == 0
    m = Meteor("bg", bundle=res.path, modules=["exact", "synonym"], weights=[1.0, 0.8], quiet=True)
    assert m.score_segment("haus", ["gebäude"]).stats.ref_word_matches == 1
    assert m.score_segment("rasch", ["flink"]).stats.ref_word_matches == 0  # its 4-word set exceeds max_set_size


def test_recipe_checks_for_mythes(tmp_path: Path) -> None:
    with pytest.raises(RecipeError, match="ids must be one of ordinal"):
        load_recipe(_recipe(tmp_path, 'ids = "offset"\n'))
    with pytest.raises(RecipeError, match="'lexicons' does not apply"):
        load_recipe(_recipe(tmp_path, 'lexicons = ["x"]\n'))
    with pytest.raises(RecipeError, match="at least 2"):
        load_recipe(_recipe(tmp_path, "max_set_size = 1\n"))


def test_recipe_whose_only_source_is_absent_builds_nothing(tmp_path: Path) -> None:
    p = _recipe(tmp_path, required=False, stems=False)
    (tmp_path / "th_xx.dat").unlink()
    with pytest.warns(Warning, match="optional"):
        res = build_recipe(p, tmp_path / "t.sqlite", show_progress=False)
    assert res.nothing_available and not (tmp_path / "t.sqlite").exists()
    assert "not built" in res.summary()


def test_shipped_recipes_name_the_thesauri() -> None:
    langs = set()
    for code, t in THESAURI.items():
        r = load_recipe(RECIPES / f"{code}.toml")
        (name,) = r.uses("synonyms")
        src = r.sources[name]
        assert src.kind == "mythes" and Path(src.path).name == t.file and not src.required and src.licence == t.licence
        assert r.uses("paraphrases") == [name]
        langs.add(r.language)
    # with English's WordNet synonyms: at least 25 languages
    assert len(langs | {"en"}) >= 25


@pytest.mark.skipif(not (MYTHES_DIR / THESAURI["is"].file).is_file(), reason="mythes-is is not installed (.ci/run installs it)")
def test_real_debian_thesaurus_reads_and_matches_its_recipe() -> None:
    """The Icelandic thesaurus (small, with relation notes: undirheiti, yfirheiti, andheiti) as Debian ships it."""
    path = MYTHES_DIR / THESAURI["is"].file
    r = load_recipe(RECIPES / "is.toml")
    assert r.sources["thesaurus"].sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    t = read_mythes(path, "is", show_progress=False)
    syn = t.synonyms()
    assert t.counts["relation_members"] > 1000 and len(syn.synsets) > 1000
    assert all(" " not in w for w, _ in syn.synsets)


def test_cli_synonyms_thesaurus_with_a_base_stem_map(tmp_path: Path) -> None:
    """``meteor-build synonyms --thesaurus FILE --base B``: inflected forms reach the entries through B's stem map."""
    from typer.testing import CliRunner

    from meteor_lite_builders.cli import app

    base = build_recipe(_recipe(tmp_path, "inflections = false\n"), tmp_path / "base.sqlite", show_progress=False).path
    out = tmp_path / "cli.sqlite"
    res = CliRunner().invoke(app, ["synonyms", "--lang", "bg", "--thesaurus", str(tmp_path / "th_xx.dat"), "--base", str(base),
                                   "--thesaurus-licence", "LGPL", "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    m = Meteor("bg", bundle=out, modules=["exact", "synonym"], weights=[1.0, 0.8], quiet=True)
    assert m.score_segment("häusern", ["gebäuden"]).stats.ref_word_matches == 1
    bad = CliRunner().invoke(app, ["synonyms", "--lang", "bg", "--out", str(out)])
    assert bad.exit_code == 2 and "--thesaurus FILE" in bad.output


def test_function_words_leave_the_synonym_sets(tmp_path: Path) -> None:
    """The bundle's function words (here from a corpus where "haus" is frequent) are not synonym-set words."""
    corpus = tmp_path / "c.txt"
    corpus.write_text("haus haus haus rasch\n" * 3 + "".join(f"w{i}\n" for i in range(2000)), encoding="utf-8")
    p = _recipe(tmp_path)
    text = p.read_text(encoding="utf-8").replace("[synonyms]", f'''[sources.corpus]
kind = "corpus"
path = "c.txt"
sha256 = "{hashlib.sha256(corpus.read_bytes()).hexdigest()}"
licence = "test"

[function_words]
from = "corpus"
threshold = 0.001

[synonyms]''')
    p.write_text(text, encoding="utf-8")
    res = build_recipe(p, tmp_path / "fw.sqlite", show_progress=False)
    with Bundle.open(res.path) as b:
        assert "haus" in b.function_words() and "rasch" in b.function_words()
        assert "haus" not in b.synsets(["haus"]) and b.synsets(["flink", "zügig"])["flink"] == b.synsets(["zügig"])["zügig"]
    m = Meteor("bg", bundle=res.path, modules=["exact", "synonym"], weights=[1.0, 0.8], quiet=True)
    assert m.score_segment("haus", ["gebäude"]).stats.ref_word_matches == 0
