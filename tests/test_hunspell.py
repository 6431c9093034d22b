"""Hunspell dictionaries as stem/lemma sources: the affix expander, the recipe kind, shipped recipes."""

from __future__ import annotations

from pathlib import Path

import pytest

from meteor_lite import Meteor
from meteor_lite.resources.bundle import Bundle
from meteor_lite_builders.errors import MalformedSourceError, RecipeError
from meteor_lite_builders.lexical.hunspell import expand_hunspell, hunspell_digest, hunspell_vocabulary, read_aff
from meteor_lite_builders.recipes import load_recipe
from meteor_lite_builders.recipes.build import build_recipe
from meteor_lite_builders.recipes.dictionaries import HUNSPELL, HUNSPELL_DIR

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "resources" / "recipes"

AFF = """SET UTF-8
# a comment
NEEDAFFIX X
SFX S Y 2
SFX S 0 s [^s]
SFX S 0 es s

SFX D N 1
SFX D y ied y
PFX U Y 1
PFX U 0 un .
AF 2
AF SU
AF D
"""
# "walk" with S and U (cross products: unwalks); "bus" (es); "carry" (ied, via alias 2 = D); "pre" needs an affix
DIC = """4
walk/SU
bus/S
carry/2
pre/XS
"""


def _dict(tmp_path: Path, aff: str = AFF, dic: str = DIC, name: str = "xx") -> Path:
    (tmp_path / f"{name}.aff").write_text(aff, encoding="utf-8")
    d = tmp_path / f"{name}.dic"
    d.write_text(dic, encoding="utf-8")
    return d


def test_expand_affixes_conditions_cross_products_aliases(tmp_path: Path) -> None:
    pairs, counts = expand_hunspell(_dict(tmp_path))
    got = dict(pairs)
    assert got["walks"] == "walk" and got["unwalk"] == "walk" and got["unwalks"] == "walk"
    assert got["buses"] == "bus" and "buss" not in got  # [^s] keeps "s" off "bus"
    assert got["carried"] == "carry" and "carrys" not in got  # alias 2 = D only
    assert "pre" not in got and got["pres"] == "pre"  # NEEDAFFIX: not a word by itself
    assert got["walk"] == "walk" and counts["roots"] == 4


def test_line_ends_are_only_newlines(tmp_path: Path) -> None:
    """U+0085 (a byte of many UTF-8 letters read as Latin-1, or a letter's neighbour) is not a line end."""
    aff = "SET ISO8859-1\nSFX S Y 1\nSFX S 0 \x85s .\n"
    d = tmp_path / "l1.dic"
    (tmp_path / "l1.aff").write_bytes(aff.encode("latin-1"))
    d.write_bytes("1\nab/S\n".encode("latin-1"))
    assert dict(expand_hunspell(d)[0])["ab\x85s"] == "ab"


@pytest.mark.parametrize(
    "aff, problem",
    [("SFX S Y 2\nSFX S 0 s .\n", "announces 2 rules"),
     ("SFX S Y 1\nSFT S 0 s .\n", "expected a SFX S rule"),
     ("SFX S Y 1\nSFX S 0 s [ab\n", "unclosed"),
     ("SET KLINGON\n", "unknown encoding")],
)
def test_malformed_affix_file_names_file_and_line(tmp_path: Path, aff: str, problem: str) -> None:
    _dict(tmp_path, aff=aff)
    with pytest.raises(MalformedSourceError, match=problem) as exc:
        read_aff(tmp_path / "xx.aff")
    assert str(tmp_path / "xx.aff") in str(exc.value)


def test_a_rule_with_a_bracket_affix_is_skipped_but_counted(tmp_path: Path) -> None:
    """Kazakh's .aff writes some conditions where the affix goes; those rules are left out, and counted in the block."""
    aff = "SFX A N 2\nSFX A 0 [ab]x .\nSFX A 0 s .\nSFX B N 1\nSFX B 0 er .\n"
    d = _dict(tmp_path, aff=aff, dic="1\nwalk/AB\n")
    got = dict(expand_hunspell(d)[0])
    assert got["walks"] == "walk" and got["walker"] == "walk" and not any("[" in f for f in got)
    assert read_aff(tmp_path / "xx.aff").skipped_rules == 1


def test_vocabulary_falls_back_to_roots(tmp_path: Path) -> None:
    d = _dict(tmp_path)
    words, counts = hunspell_vocabulary(d, max_forms=3)
    assert words == {"walk", "bus", "carry", "pre"} and "roots only" in str(counts["words"])
    assert "unwalks" in hunspell_vocabulary(d)[0]


def _recipe(tmp_path: Path, lang: str, stems: str) -> Path:
    d = _dict(tmp_path)
    p = tmp_path / f"{lang}.toml"
    p.write_text(f"""format = "meteor-lite-recipe"
format_version = 1

[bundle]
language = "{lang}"
name = "{lang}-test"
version = "1.0.0"

[sources.hunspell]
kind = "hunspell"
path = "{d.name}"
sha256 = "{hunspell_digest(d)}"
licence = "GPL-2+"

[stems]
{stems}
""", encoding="utf-8")
    return p


def test_recipe_lemma_map_from_hunspell(tmp_path: Path) -> None:
    res = build_recipe(_recipe(tmp_path, "af", 'from = "hunspell"'), tmp_path / "af.sqlite", show_progress=False)
    with Bundle.open(res.path) as b:
        assert b.stemmer is not None and b.stemmer["language"] == "hunspell:xx"
        assert [s["kind"] for s in b.sources()] == ["hunspell"]
    m = Meteor("af", bundle=res.path, quiet=True)
    assert m.config.modules == ("exact", "stem")
    assert m.score_segment("unwalks buses", ["walk bus"]).stats.ref_word_matches == 2
    assert m.score_segment("carried", ["walk"]).stats.ref_word_matches == 0


def test_recipe_hunspell_as_a_stemmer_vocabulary(tmp_path: Path) -> None:
    res = build_recipe(_recipe(tmp_path, "ga", 'from = ["hunspell"]\nalgorithm = "irish"'), tmp_path / "ga.sqlite",
                       show_progress=False)
    with Bundle.open(res.path) as b:
        assert b.stemmer is not None and b.stemmer["language"] == "irish"
        assert b.counts()["stems"] >= 8  # the expanded forms, each with its Snowball stem


def test_recipe_checksum_of_both_files(tmp_path: Path) -> None:
    p = _recipe(tmp_path, "af", 'from = "hunspell"')
    (tmp_path / "xx.aff").write_text(AFF + "\n# changed\n", encoding="utf-8")
    with pytest.raises(RecipeError, match="checksum mismatch"):
        build_recipe(p, tmp_path / "af.sqlite", show_progress=False)


def test_shipped_hunspell_recipes() -> None:
    for code, d in HUNSPELL.items():
        r = load_recipe(RECIPES / f"{code}.toml")
        src = r.sources["hunspell"]
        assert src.kind == "hunspell" and Path(src.path).name == d.dic and not src.required and src.licence == d.licence
        assert r.uses("stems") == ["hunspell"]
        assert (r.sections["stems"].get("algorithm") is not None) == (d.algorithm is not None)


@pytest.mark.skipif(not (HUNSPELL_DIR / HUNSPELL["af"].dic).is_file(), reason="hunspell-af is not installed (.ci/run installs it)")
def test_real_debian_dictionary_matches_its_recipe() -> None:
    d = HUNSPELL_DIR / HUNSPELL["af"].dic
    assert load_recipe(RECIPES / "af.toml").sources["hunspell"].sha256 == hunspell_digest(d)
    pairs, counts = expand_hunspell(d)
    got = dict(pairs)
    assert got["leenbanke"] == "leenbank" and counts["forms"] > 100_000


def test_hunspell_second_opinion_variants(tmp_path: Path) -> None:
    """meteor-build check hunspell-effect's bundles: the base bundle's Snowball map replaced by Hunspell's lemmas."""
    from meteor_lite.resources.stemming import snowball_stem_function
    from meteor_lite_builders.checks.research.hunspell_effect import build_variant, hunspell_lemma_table, variant_pairs

    base = build_recipe(_recipe(tmp_path, "ga", 'from = ["hunspell"]\nalgorithm = "irish"'), tmp_path / "ga.sqlite",
                        show_progress=False).path
    d = tmp_path / "xx.dic"
    table, counts = hunspell_lemma_table(d, "ga")
    assert table["carried"] == "carry" and table["walk"] == "walk" and counts["roots"] == 4  # identities kept
    irish = snowball_stem_function("irish")
    assert irish is not None
    assert dict(variant_pairs(table, "hunspell+snowball", irish))["unwalks"] == irish("walk")
    with pytest.raises(ValueError, match="unknown variant"):
        list(variant_pairs(table, "nope", irish))
    lemma = build_variant(base, d, "hunspell", tmp_path / "v1.sqlite")
    snow = build_variant(base, d, "hunspell+snowball", tmp_path / "v2.sqlite")
    with Bundle.open(lemma) as b:
        assert b.stemmer is not None and b.stemmer["language"] == "hunspell:xx.dic"
    with Bundle.open(snow) as b:
        assert b.stemmer is not None and b.stemmer["language"] == "irish"

    def matches(bundle: Path, hyp: str, ref: str) -> int:
        m = Meteor("ga", bundle=bundle, modules=["exact", "stem"], quiet=True)
        return m.score_segment(hyp, [ref]).stats.ref_word_matches

    assert matches(base, "carried", "carry") == 0  # Snowball (irish) leaves both alone
    assert matches(lemma, "carried", "carry") == 1 and matches(snow, "carried", "carry") == 1
    assert matches(lemma, "unwalks", "walk") == 1
    assert matches(lemma, "zebras", "zebra") == matches(base, "zebras", "zebra")  # outside the map: Snowball, as before


def test_analysis_gives_the_roots_the_expansion_gives(tmp_path: Path) -> None:
    """analyse_hunspell (rules applied backwards to given words) agrees with expand_hunspell on every form."""
    from meteor_lite_builders.lexical.hunspell import analyse_hunspell

    d = _dict(tmp_path)
    expanded = dict(expand_hunspell(d)[0])
    pairs, counts = analyse_hunspell(d, [*expanded, "walked", "busses", "pre", "zebra"])
    assert dict(pairs) == expanded  # "walked" (no such rule), "busses" ([^s]), "pre" (NEEDAFFIX), "zebra": none
    assert counts["words"] == len(expanded) + 4 and counts["analysed"] == len(expanded)


def test_analysis_converts_with_iconv_and_oconv(tmp_path: Path) -> None:
    """ICONV applies to the word before analysis, OCONV to the root after (Korean: syllables <-> jamo)."""
    from meteor_lite_builders.lexical.hunspell import analyse_hunspell, convert

    aff = "SET UTF-8\nICONV 1\nICONV ß ss\nOCONV 1\nOCONV ss ß\nSFX S Y 1\nSFX S 0 es .\n"
    d = _dict(tmp_path, aff=aff, dic="1\nstrass/S\n")
    assert convert("straßeß", {"ß": "ss", "ßß": "x"}) == "strassess"
    assert analyse_hunspell(d, ["straßes", "strasses", "straße"])[0] == [("strasses", "straß"), ("straßes", "straß")]


def test_flag_declarations_are_flags_not_aliases(tmp_path: Path) -> None:
    """With AF aliases, ``ONLYINCOMPOUND 1`` is flag 1 (Korean's .aff), not the flags of alias line 1."""
    aff = "FLAG num\nAF 2\nAF 5,6\nAF 1\nONLYINCOMPOUND 1\nSFX 5 Y 1\nSFX 5 0 s .\n"
    d = _dict(tmp_path, aff=aff, dic="2\nwalk/1\npart/2\n")  # walk: alias 1 = flags 5,6; part: alias 2 = flag 1
    assert read_aff(tmp_path / "xx.aff").not_words == {"1"}
    got = dict(expand_hunspell(d)[0])
    assert got["walk"] == "walk" and got["walks"] == "walk" and "part" not in got


def test_recipe_lemma_map_of_analysed_words(tmp_path: Path) -> None:
    """[stems] analyse = "<vocabulary>": the vocabulary's words analysed, not every form expanded."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("unwalks buses carried zebra\nwalk bus\n", encoding="utf-8")
    import hashlib

    p = _recipe(tmp_path, "ko", 'from = "hunspell"\nanalyse = "corpus"')
    p.write_text(p.read_text(encoding="utf-8") + f"""
[sources.corpus]
kind = "corpus"
path = "corpus.txt"
sha256 = "{hashlib.sha256(corpus.read_bytes()).hexdigest()}"
licence = "CC0"

[function_words]
from = "corpus"
threshold = 0.5
""", encoding="utf-8")
    res = build_recipe(p, tmp_path / "ko.sqlite", show_progress=False)
    with Bundle.open(res.path) as b:
        assert b.stemmer is not None and b.stemmer["language"] == "hunspell:xx"
        assert b.counts()["stems"] == 3  # unwalks, buses, carried (walk, bus: their own roots; zebra: unknown)
    m = Meteor("ko", bundle=res.path, modules=["exact", "stem"], quiet=True)
    assert m.score_segment("unwalks buses", ["walk bus"]).stats.ref_word_matches == 2
    bad = _recipe(tmp_path, "ko", 'from = "hunspell"\nanalyse = "hunspell"')
    with pytest.raises(RecipeError, match="analyse 'hunspell': not a declared wordfreq or corpus source"):
        build_recipe(bad, tmp_path / "bad.sqlite", show_progress=False)
