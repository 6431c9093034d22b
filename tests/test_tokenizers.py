"""Tokenisers for unspaced scripts (meteor_lite.text.tokenizers) and their place in scoring (no Java needed)."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meteor_lite import ConfigError, Meteor
from meteor_lite.languages import SCRIPT_LANGUAGES, default_modules, default_tokenizer
from meteor_lite.text import tokenizers as tk
from meteor_lite.text.normalize import prepare, tokenize
from meteor_lite.text.tokenizers import char_tokenize, cjk_tokenize, get_tokenizer, meteor_tokenize
from tiny_bundles import BundleWriter

# -- cjk -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, expected",
    [
        ("我们在2021年用了GPT-3模型。", ["我", "们", "在", "2021", "年", "用", "了", "GPT-3", "模", "型", "。"]),
        ("東京でカタカナとひらがな", ["東", "京", "で", "カ", "タ", "カ", "ナ", "と", "ひ", "ら", "が", "な"]),
        ("「引用」、（括弧）！", ["「", "引", "用", "」", "、", "（", "括", "弧", "）", "！"]),
        ("ｶﾞｷﾞ", ["ｶﾞ", "ｷﾞ"]),  # half-width kana keep their voicing marks
        ("か\u3099", ["か\u3099"]),  # combining voicing mark stays with its kana
        ("葛\U000e0100城", ["葛\U000e0100", "城"]),  # ideographic variation selector
        ("ＡＢＣ１２３漢", ["ＡＢＣ１２３", "漢"]),  # full-width letters and digits stay a word
        ("𠀋𡈽", ["𠀋", "𡈽"]),  # extension B (outside the BMP)
        ("Hello, world", ["Hello,", "world"]),  # no CJK: white space only
        ("한국어 문장", ["한국어", "문장"]),  # Hangul is not split
        ("  \t", []),
        ("中\u3000文", ["中", "文"]),  # the ideographic space separates
        ("", []),
    ],
)
def test_cjk(line: str, expected: List[str]) -> None:
    assert cjk_tokenize(line) == expected


def test_char_splits_thai_with_marks() -> None:
    assert char_tokenize("สวัสดี ok") == ["ส", "วั", "ส", "ดี", "ok"]
    assert char_tokenize("中文abc") == ["中", "文", "abc"]
    assert cjk_tokenize("สวัสดี") == ["สวัสดี"]  # cjk leaves Thai alone


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_tokenisers_keep_every_non_space_character(line: str) -> None:
    for fn in (cjk_tokenize, char_tokenize):
        toks = fn(line)
        assert all(t and not any(c in " \t\n\r\f" for c in t) for t in toks)
        assert "".join(toks) == "".join(meteor_tokenize(line)).replace("\u3000", "")  # a refinement of Meteor's split


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FFF, blacklist_categories=("Cs",)), max_size=40))
def test_cjk_is_meteor_without_cjk_characters(line: str) -> None:
    if not any(tk.is_cjk(c) for c in line):
        assert cjk_tokenize(line) == tokenize(line)


# -- language table, prepare ---------------------------------------------------------------------


def test_language_defaults() -> None:
    assert default_tokenizer("zh") == "cjk" and default_tokenizer("ja") == "cjk"
    assert default_tokenizer("th") == "char" and default_tokenizer("ko") == "meteor"
    for code in ("en", "de", "cz", "ar-bw-red", "other", "el", "xx"):
        assert default_tokenizer(code) == "meteor"
    for code in ("zh", "ja", "th", "ko"):
        assert code in SCRIPT_LANGUAGES and default_modules(code, "li") == ("exact",)
    assert default_tokenizer("ar") == "arabic" and default_modules("ar", "li") == ("exact", "stem")


def test_prepare_uses_the_language_default() -> None:
    line = "我们在2021年用了GPT-3模型。"
    assert prepare(line, "zh", norm=True, lower=True) == ["我", "们", "在", "2021", "年", "用", "了", "gpt", "-", "3", "模", "型", "。"]
    assert prepare(line, "zh", norm=True, lower=True, tokenizer="meteor") == ["我们在2021年用了gpt", "-", "3模型。"]
    # every other language: exactly Meteor's split, whatever the text
    assert prepare(line, "en", norm=True, lower=True) == prepare(line, "en", norm=True, lower=True, tokenizer="meteor")
    assert prepare(line, "other", norm=True, lower=True) == ["我们在2021年用了gpt", "-", "3模型。"]


def test_unknown_tokeniser() -> None:
    with pytest.raises(ConfigError, match="unknown tokeniser 'nope'"):
        get_tokenizer("nope")
    with pytest.raises(TypeError):
        get_tokenizer(3)  # type: ignore[arg-type]


@pytest.mark.parametrize("name, module, extra", [("jieba", "jieba", "zh"), ("mecab", "fugashi", "ja"),
                                                 ("pythainlp", "pythainlp", "th"), ("kiwi", "kiwipiepy", "ko")])
def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch, name: str, module: str, extra: str) -> None:
    real_import = builtins.__import__

    def no_module(mod: str, *a: Any, **k: Any) -> Any:
        if mod.split(".")[0] == module:
            raise ImportError(mod)
        return real_import(mod, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_module)
    monkeypatch.setattr(tk, "_LOADED", {})
    with pytest.raises(ConfigError, match=rf"tokeniser '{name}' needs .*pip install 'meteor-lite\[{extra}\]'"):
        get_tokenizer(name)


def test_segmenter_output_is_cleaned(monkeypatch: pytest.MonkeyPatch) -> None:
    """A segmenter's white-space tokens are dropped (jieba returns them), through a stand-in module."""
    import sys
    import types

    fake = types.ModuleType("jieba")
    fake.setLogLevel = lambda level: None  # type: ignore[attr-defined]
    fake.lcut = lambda line, HMM=True: ["我们", " ", "在", "北京", "\t"]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jieba", fake)
    monkeypatch.setattr(tk, "_LOADED", {})
    assert get_tokenizer("jieba")("我们 在北京") == ["我们", "在", "北京"]


# -- scoring -------------------------------------------------------------------------------------


def _zh_bundle(tmp_path: Path) -> Path:
    out = tmp_path / "zh-test.sqlite"
    with BundleWriter(out, language="zh", name="zh-test", version="0.0.1") as w:
        w.add_function_words(["的", "了", "是"])
    return out


def test_meteor_scores_chinese_by_character(tmp_path: Path) -> None:
    b = _zh_bundle(tmp_path)
    m = Meteor("zh", norm=True, bundle=b, quiet=True)
    assert m.tokenizer == "cjk"
    seg = m.score_segment("我喜欢猫。", ["我很喜欢猫。"])
    assert seg.stats.test_length == 5 and seg.stats.ref_length == 6
    assert seg.stats.test_word_matches == 5 and seg.score > 0.5
    # a language outside Meteor 1.5 scores with the universal set (meteor_lite/defaults.py), named in the signature
    assert "|tok:cjk|" in m.signature and m.signature.startswith("meteor-lite|lang:zh|norm|tok:cjk|task:default@")
    assert "|mods:exact|" in m.signature
    ws = Meteor("zh", norm=True, bundle=b, quiet=True, tokenize="meteor")
    assert ws.score_segment("我喜欢猫。", ["我很喜欢猫。"]).score == 0.0  # one "word" each, different
    assert "tok:" not in ws.signature


def test_signature_of_other_languages_unchanged(tmp_path: Path) -> None:
    from tiny_bundles import make_tiny_bundle

    b = make_tiny_bundle(tmp_path / "tiny.sqlite")
    default = Meteor("en", norm=True, bundle=b, modules=["exact"], quiet=True)
    explicit = Meteor("en", norm=True, bundle=b, modules=["exact"], quiet=True, tokenize="meteor")
    assert "tok:" not in default.signature and default.signature == explicit.signature
    cjk = Meteor("en", norm=True, bundle=b, modules=["exact"], quiet=True, tokenize="CJK")
    assert "|norm|tok:cjk|task:" in cjk.signature


def test_missing_bundle_is_an_error_naming_the_recipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from meteor_lite import MissingResourcesError

    monkeypatch.setenv("METEOR_LITE_BUNDLE_PATH", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr("meteor_lite.configure.find_bundle", lambda name: None)
    with pytest.raises(MissingResourcesError, match=r"Chinese.*resources/recipes/zh.toml"):
        Meteor("zh", norm=True, quiet=True)


def test_cli_tokenize_option(tmp_path: Path) -> None:
    from test_cli import run

    b = _zh_bundle(tmp_path)
    hyp = tmp_path / "hyp.txt"
    ref = tmp_path / "ref.txt"
    hyp.write_text("我喜欢猫。\n", encoding="utf-8")
    ref.write_text("我很喜欢猫。\n", encoding="utf-8")
    r = run("score", str(hyp), str(ref), "--lang", "zh", "--norm", "--bundle", str(b))
    assert r.exit_code == 0 and "|tok:cjk|" in r.stdout
    r = run("score", str(hyp), str(ref), "--lang", "zh", "--norm", "--bundle", str(b), "--tokenize", "meteor", "-q")
    assert r.exit_code == 0 and r.stdout.strip() == "0.0"
    r = run("score", str(hyp), str(ref), "--lang", "zh", "--bundle", str(b), "--tokenize", "bogus")
    assert r.exit_code == 1 and "unknown tokeniser 'bogus'" in r.stderr


# -- Arabic script -------------------------------------------------------------------------------


def test_arabic_normalisation_rules() -> None:
    from meteor_lite.text.arabic import arabic_tokenize, normalize_arabic

    assert normalize_arabic("مُحَمَّدٌ") == "محمد"  # harakat, shadda, tanwin
    assert normalize_arabic("كتـــاب") == "كتاب"  # tatweel
    assert normalize_arabic("أإآٱا") == "ااااا"  # alef variants
    assert normalize_arabic("على مدرسة فارسی") == "علي مدرسه فارسي"  # alef maqsura, taa marbuta, Persian yeh
    assert normalize_arabic("سؤال شيء") == "سؤال شيء"  # hamza on waw, hamza letter kept
    assert arabic_tokenize("لماذا؟ نعم؛ لا، ربما٪") == ["لماذا", "؟", "نعم", "؛", "لا", "،", "ربما", "٪"]
    assert arabic_tokenize("ّ abc") == ["abc"]  # a lone diacritic disappears


def test_arabic_question_mark_gives_two_matches(tmp_path: Path) -> None:
    """؟ glued to the word would make one match out of two possible: split off, both match."""
    out = tmp_path / "ar-test.sqlite"
    with BundleWriter(out, language="ar", name="ar-test", version="0.0.1") as w:
        w.add_function_words(["هل"])
    m = Meteor("ar", norm=True, bundle=out, modules=["exact"], quiet=True)
    seg = m.score_segment("المدرسةِ؟", ["المدرسة ؟"])
    assert m.tokens("المدرسةِ؟") == ["المدرسه", "؟"] and seg.stats.test_word_matches == 2 and seg.score > 0.9
    assert "|tok:arabic|" in m.signature


def test_buckwalter_arabic_keeps_meteors_behaviour() -> None:
    """-l ar-bw-red (the jar's code; it refuses -l ar): white space only, no letter normalisation."""
    from meteor_lite.config import resolve_config
    from meteor_lite.languages import canonical_language, long_name

    for code in ("ar-bw-red", "ar-bw", "arabic-buckwalter-reduced"):
        assert canonical_language(code) == "ar-bw-red"
    assert default_tokenizer("ar-bw-red") == "meteor" and long_name("ar-bw-red") == "arabic-buckwalter-reduced"
    line = "Al>wlAd* ktbw ? w|xr"
    assert prepare(line, "ar-bw-red", norm=True, lower=False) == prepare(line, "other", norm=True, lower=False)
    cfg = resolve_config("ar-bw-red")
    assert cfg.modules == ("exact", "stem") and cfg.eval_id().startswith("meteor-1.5-wo-ar-bw-red-no_norm-")


def test_names_of_the_new_languages() -> None:
    from meteor_lite.languages import canonical_language, long_name

    for code, name in (("zh", "chinese"), ("ja", "japanese"), ("th", "thai"), ("ko", "korean"), ("ar", "arabic")):
        assert long_name(code) == name and canonical_language(name) == code
    assert long_name("en") == "english" and long_name("xx") == "other"
