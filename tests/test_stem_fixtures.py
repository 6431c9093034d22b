"""Meteor 1.5's stemmers against the jar's recorded stems: a million words and more in each of its 15 stemmed languages.

``tests/fixtures/stems/<lang>.txt.xz`` holds what ``java -cp meteor-1.5.jar Stemmer LANG`` printed for the
words of :func:`meteor_lite_builders.checks.stem_words.stem_check_words` (wordfreq's largest list, every token
of ``../shared/data``, generated inflections, compounds and odd Unicode); ``meteor-build check stems
--write-fixtures`` records them (needs Java), ``make parity`` checks against the jar itself.  Here the words
are made again and every one is compared, without Java: the scorer's stem (``Meteor(lang)`` with the official
bundle) for each word that is not number-like, the word itself for the others (the jar's program leaves them);
and ``meteor-jar-stemmer`` is run on part of the words, output compared byte for byte.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from meteor_lite.jarcompat import java_utf8_encode
from meteor_lite.resources.locate import find_bundle

pytest.importorskip("wordfreq", reason="the stem check's word lists need wordfreq (the build extra)")

from meteor_lite_builders.checks.stem_words import STEM_LANGUAGES, stem_check_words  # noqa: E402
from meteor_lite_builders.checks.stems import (  # noqa: E402
    STEM_FIXTURE_DIR,
    check_language_against_fixture,
    decode_outputs,
    encode_outputs,
    read_fixture,
)

LANGS = list(STEM_LANGUAGES)


def _need(shared_data: Path) -> None:
    missing = [lang for lang in LANGS if find_bundle(lang) is None]
    if missing:
        pytest.fail(f"no official bundle for {', '.join(missing)}: run `make bundles` (the stem fixtures never skip)")
    if not (shared_data / "wmt21").is_dir():
        pytest.skip(f"{shared_data} has no wmt21/: the word lists are made from the shared data")


def test_every_language_has_a_fixture_of_a_million_words() -> None:
    for lang in LANGS:
        header, lines = read_fixture(STEM_FIXTURE_DIR / f"{lang}.txt.xz")
        assert header["lang"] == lang and header["algorithm"] == STEM_LANGUAGES[lang][0]
        assert len(lines) == header["words"] >= 1_000_000


def test_encoding_round_trips() -> None:
    words = ["Bedürfnisse", "katt", "100", "ab", "😀sen", "x"]
    outs = ["Bedurfniss", "kat", "100", "abc", "😀s", ""]
    assert decode_outputs(words, encode_outputs(words, outs)) == outs


@pytest.mark.slow
def test_every_stem_equals_the_jars(shared_data: Path) -> None:
    """All languages, two at a time: every word's stem is the jar's (program and scorer)."""
    from concurrent.futures import ProcessPoolExecutor

    _need(shared_data)
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(check_language_against_fixture, LANGS, [shared_data] * len(LANGS)))
    for r in results:
        assert r.words >= 1_000_000, r.lang
    bad = [(r.lang, r.program_differences, r.scorer_differences, r.examples[:5]) for r in results if not r.ok]
    assert not bad, bad


@pytest.mark.parametrize("lang", ["de", "fi", "hu", "ru"])
def test_the_stemmer_program_prints_the_jars_lines(lang: str, shared_data: Path) -> None:
    """``meteor-jar-stemmer`` on 20,000 of the words (the last ones: generated forms, odd Unicode, numbers)."""
    _need(shared_data)
    header, lines = read_fixture(STEM_FIXTURE_DIR / f"{lang}.txt.xz")
    words = stem_check_words(lang, shared_data)
    assert len(words) == len(lines)
    part = slice(len(words) - 20_000, None)
    expected: List[str] = decode_outputs(words[part], lines[part])
    proc = subprocess.run([sys.executable, "-m", "meteor_lite.jarcli.stemmer", lang],
                          input=java_utf8_encode("\n".join(words[part]) + "\n"), capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == java_utf8_encode("\n".join(expected) + "\n")
