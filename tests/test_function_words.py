"""Function words from a corpus and from wordfreq; the function-words command; corpus reading errors."""

from __future__ import annotations

import bz2
import gzip
import importlib.util
import json
import lzma
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from meteor_lite.resources.bundle import Bundle
from meteor_lite.text.normalize import prepare
from meteor_lite_builders.bundle.pipeline import build_bundle as _pipeline_build
from meteor_lite_builders.bundle.spec import BuildResult, BundleSpec
from meteor_lite_builders.lexical.function_words import (
    count_tokens,
    function_words_from_corpus,
    select_function_words,
)
from meteor_lite_builders.sources import MalformedSourceError, SourceError, iter_text_lines


def build_bundle(lang: str, out: Path, **resources: Any) -> BuildResult:
    """The one pipeline, with a spec of ``lang`` holding ``resources`` (and base, name, ...)."""
    return _pipeline_build(BundleSpec(language=lang, **resources), out)

CORPUS = [
    "The cat sat on the mat.",
    "A dog and the cat, and a bird.",
    "Mr. Smith's dog is on the sofa.",
    "",
    "The end.",
]

needs_wordfreq = pytest.mark.skipif(
    importlib.util.find_spec("wordfreq") is None, reason="wordfreq (build extra) is not installed"
)


def write(path: Path, lines, opener=open) -> Path:
    with opener(path, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


# -- reading ------------------------------------------------------------------------------


@pytest.mark.parametrize("opener, suffix", [(open, ".txt"), (gzip.open, ".gz"), (lzma.open, ".xz"), (bz2.open, ".bz2")])
def test_iter_text_lines_compressed(tmp_path: Path, opener, suffix: str) -> None:
    p = write(tmp_path / f"c{suffix}", CORPUS, opener)
    assert list(iter_text_lines(p)) == list(enumerate(CORPUS, 1))


def test_iter_text_lines_crlf(tmp_path: Path) -> None:
    p = tmp_path / "crlf.txt"
    p.write_bytes(b"one\r\ntwo\r\nthree")
    assert list(iter_text_lines(p)) == [(1, "one"), (2, "two"), (3, "three")]


def test_invalid_utf8_names_file_and_line(tmp_path: Path) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(b"fine\nalso fine\nbro\xe9ken\n")
    with pytest.raises(MalformedSourceError) as err:
        count_tokens([p], "en")
    assert err.value.line == 3 and err.value.source == str(p)
    assert str(err.value).startswith(f"{p}, line 3: not valid UTF-8")


def test_corrupt_gzip(tmp_path: Path) -> None:
    p = tmp_path / "c.gz"
    data = gzip.compress("".join(f"line {i} of the corpus\n" for i in range(5000)).encode())
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(SourceError, match=r"c\.gz: corrupt or truncated compressed file"):
        count_tokens([p], "en")


def test_missing_corpus(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="file not found"):
        count_tokens([tmp_path / "nope.txt"], "en")
    with pytest.raises(SourceError, match="no corpus file"):
        count_tokens([], "en")


# -- counting and selecting ------------------------------------------------------------------


def test_count_tokens_uses_the_scorer_tokenisation(tmp_path: Path) -> None:
    p = write(tmp_path / "c.txt", CORPUS)
    tc = count_tokens([p], "en")
    expected = [t for line in CORPUS for t in prepare(line, "en", norm=True, lower=True)]
    assert tc.tokens == len(expected) and tc.lines == len(CORPUS)
    assert tc.counts["the"] == 5 and tc.counts["."] == 5 and tc.counts["'s"] == 1 and tc.counts[","] == 1
    assert tc.sources[0].kind == "corpus" and len(tc.sources[0].sha256) == 64


def test_nonbreaking_prefixes_change_tokens(tmp_path: Path) -> None:
    p = write(tmp_path / "c.txt", ["Mr. Smith met Mr. Jones ."])
    assert count_tokens([p], "en").counts["mr"] == 2
    assert count_tokens([p], "en", nonbreaking={"Mr": False}).counts["mr."] == 2


def test_max_lines(tmp_path: Path) -> None:
    p = write(tmp_path / "c.txt", CORPUS)
    assert count_tokens([p], "en", max_lines=2).lines == 2


def test_select_threshold_is_inclusive_and_ordered() -> None:
    freqs = {"a": 0.2, "b": 0.001, "c": 0.000999, "d": 0.2, "e": 0.01}
    assert select_function_words(freqs, 1e-3) == ["a", "d", "e", "b"]
    assert select_function_words(freqs, 0.5) == []
    with pytest.raises(ValueError):
        select_function_words(freqs, 0)


def test_function_words_from_corpus(tmp_path: Path) -> None:
    p = write(tmp_path / "c.txt", CORPUS)
    fw = function_words_from_corpus([p], "en", threshold=0.1)
    # 30 tokens: "the" 5/30, "." 5/30 are >= 0.1; "cat", "a", "and", "dog", "on" 2/30 are not
    assert fw.words == [".", "the"]
    assert fw.frequencies["the"] == pytest.approx(5 / 30)
    assert fw.params["tokens"] == 30 and fw.params["threshold"] == 0.1 and fw.params["source"] == "corpus"
    assert set(function_words_from_corpus([p], "en", threshold=2 / 30).words) == {
        ".", "the", "cat", "a", "and", "dog", "on"
    }


def test_function_words_from_empty_corpus(tmp_path: Path) -> None:
    p = write(tmp_path / "empty.txt", ["", "   "])
    with pytest.raises(MalformedSourceError, match="holds no tokens"):
        function_words_from_corpus([p], "en")


def test_function_words_bundle_and_base(tmp_path: Path) -> None:
    p = write(tmp_path / "c.txt", CORPUS)
    out = tmp_path / "fw.sqlite"
    res = build_bundle("en", out, function_words=function_words_from_corpus([p], "en", threshold=0.1, licence="CC0"))
    assert res.counts["function_words"] == 2
    with Bundle.open(out) as b:
        assert b.function_words() == frozenset({".", "the"})
        (src,) = b.sources()
        assert src["licence"] == "CC0" and src["kind"] == "corpus"
        params = json.loads(b.meta["build_params"])["resources"]["function_words"]
        assert params["threshold"] == 0.1 and params["sources"] == ["c.txt"]
    # the same inputs give the same content checksum
    again = build_bundle("en", tmp_path / "fw2.sqlite", function_words=function_words_from_corpus([p], "en", threshold=0.1, licence="CC0"))
    assert again.checksum == res.checksum


# -- wordfreq -------------------------------------------------------------------------------


@needs_wordfreq
def test_function_words_from_wordfreq_english() -> None:
    from meteor_lite_builders.lexical.function_words import function_words_from_wordfreq

    fw = function_words_from_wordfreq("en", show_progress=False)
    assert {"the", "of", "and", "to", "a", "in", "'s"} <= set(fw.words)
    assert fw.words[0] == "the"
    assert not any(ch.isdigit() and len(w) > 1 for w in fw.words for ch in w)  # no "0000" placeholders
    assert 60 < len(fw.words) < 200
    assert fw.sources[0].kind == "wordfreq" and fw.params["wordfreq"]["language"] == "en"


@needs_wordfreq
def test_wordfreq_language_codes() -> None:
    from meteor_lite_builders.lexical.function_words import wordfreq_language

    assert wordfreq_language("cz") == "cs" and wordfreq_language("se") == "sv" and wordfreq_language("no") == "nb"
    with pytest.raises(SourceError, match="has no frequency list for 'tlh'"):
        wordfreq_language("tlh")


# -- the command line --------------------------------------------------------------------------

runner = CliRunner()


def _app():
    from meteor_lite_builders.cli import app

    return app


def test_cli_function_words_corpus(tmp_path: Path) -> None:
    p = write(tmp_path / "c.txt", CORPUS)
    out = tmp_path / "fw.sqlite"
    r = runner.invoke(
        _app(), ["function-words", "-l", "en", "--corpus", str(p), "--threshold", "0.1", "--nonbreaking", "none", "-o", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert "function_words 2" in r.output
    with Bundle.open(out) as b:
        assert b.function_words() == frozenset({".", "the"})


def test_cli_function_words_print(tmp_path: Path) -> None:
    p = write(tmp_path / "c.txt", CORPUS)
    r = runner.invoke(_app(), ["function-words", "-l", "en", "-c", str(p), "--threshold", "0.1", "--nonbreaking", "none", "--print"])
    assert r.exit_code == 0, r.output
    assert [line.split("\t")[0] for line in r.stdout.splitlines()] == [".", "the"]


def test_cli_function_words_bad_corpus(tmp_path: Path) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(b"good line\n\xff\xfe\n")
    out = tmp_path / "fw.sqlite"
    r = runner.invoke(_app(), ["function-words", "-l", "en", "-c", str(p), "--nonbreaking", "none", "-o", str(out)])
    assert r.exit_code == 1
    assert f"meteor-build: error: {p}, line 2: not valid UTF-8" in r.output
    assert not out.exists() and not list(tmp_path.glob(".fw.sqlite.*"))


@pytest.mark.parametrize(
    "args",
    [
        ["function-words", "-l", "en", "-o", "x.sqlite"],  # no source
        ["function-words", "-l", "en", "-c", "c.txt", "--wordfreq", "-o", "x.sqlite"],  # two sources
        ["function-words", "-l", "en", "-c", "c.txt"],  # no output
        ["function-words", "-l", "en", "-c", "c.txt", "--threshold", "0", "-o", "x.sqlite"],
    ],
)


def test_cli_function_words_usage_errors(args) -> None:
    assert runner.invoke(_app(), args).exit_code == 2


@needs_wordfreq
def test_cli_function_words_wordfreq(tmp_path: Path) -> None:
    out = tmp_path / "fw-da.sqlite"  # Danish: a small wordfreq list, so a quick test
    r = runner.invoke(_app(), ["function-words", "-l", "da", "--wordfreq", "--nonbreaking", "none", "-o", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    with Bundle.open(out) as b:
        fw = b.function_words()
        assert {"og", "i", "at", "det", "er", "ikke"} <= fw
        assert b.sources()[0]["kind"] == "wordfreq"
