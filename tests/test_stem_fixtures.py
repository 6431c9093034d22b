"""Meteor 1.5's stemmers against the jar's recorded stems: a million words and more in each of its 15 stemmed languages.

``tests/fixtures/stems/<lang>.txt.xz`` holds what ``java -cp meteor-1.5.jar Stemmer LANG`` printed for the
words of :func:`meteor_lite_builders.checks.parity.stem_words.stem_check_words` (wordfreq's largest list, every token
of ``../shared/data``, generated inflections, compounds and odd Unicode); ``meteor-build check stems
--write-fixtures`` records them (needs Java), ``make parity`` checks against the jar itself.  Here the words
are made again and one part of them (:data:`STEM_PARTS`, a different part each run) is compared, without Java: the scorer's stem (``Meteor(lang)`` with the official
bundle) for each word that is not number-like, the word itself for the others (the jar's program leaves them);
and ``meteor-jar-stemmer`` is run on part of the words, output compared byte for byte.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from meteor_lite.jarcompat import java_utf8_encode
from meteor_lite.resources.locate import find_bundle

pytest.importorskip("wordfreq", reason="the stem check's word lists need wordfreq (the build extra)")

from meteor_lite_builders.checks.parity.stem_words import (  # noqa: E402
    SHARED_TABLES,
    SHARED_TEXT_FILES,
    STEM_LANGUAGES,
    shared_tokens,
    stem_check_words,
)
from meteor_lite_builders.checks.parity.stems import (  # noqa: E402
    STEM_FIXTURE_DIR,
    StemCheck,
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


#: Each run compares one part of every language's words: the words at positions i with i % STEM_PARTS == k
#: (about 250,000 of the 16 million), k drawn at random per run; the STEM_PARTS parts cover every word.
#: The whole list is still made and checked against the fixture's SHA-256 every time.
#: ``meteor-build check stems --fixtures`` (``make stem-fixtures``) compares every word; ``make parity`` runs the jar.
STEM_PARTS = 64


def _stem_part() -> int:
    """This run's part: ``$METEOR_LITE_STEM_PART`` (to repeat a run), else drawn at random."""
    chosen = os.environ.get("METEOR_LITE_STEM_PART")
    if chosen is None:
        return random.SystemRandom().randrange(STEM_PARTS)
    if not chosen.isdigit() or int(chosen) >= STEM_PARTS:
        pytest.fail(f"METEOR_LITE_STEM_PART={chosen!r}: a part from 0 to {STEM_PARTS - 1}")
    return int(chosen)


#: The languages whose last :data:`PROGRAM_WORDS` words (generated forms, odd Unicode, numbers) also go through
#: ``meteor-jar-stemmer``, output compared byte for byte with the jar's.
PROGRAM_LANGS = ("de", "fi", "hu", "ru")
PROGRAM_WORDS = 20_000


def _program_difference(lang: str, words: List[str]) -> Optional[str]:
    """``meteor-jar-stemmer LANG`` on the last words of the list against the jar's lines: None, or what differs."""
    header, lines = read_fixture(STEM_FIXTURE_DIR / f"{lang}.txt.xz")
    part = slice(len(words) - PROGRAM_WORDS, None)
    expected: List[str] = decode_outputs(words[part], lines[part])
    proc = subprocess.run([sys.executable, "-m", "meteor_lite.jarcli.stemmer", lang],
                          input=java_utf8_encode("\n".join(words[part]) + "\n"), capture_output=True, check=False, timeout=600)
    if proc.returncode != 0:
        return f"meteor-jar-stemmer {lang}: exit {proc.returncode}: {proc.stderr[-500:]!r}"
    if proc.stdout != java_utf8_encode("\n".join(expected) + "\n"):
        got = proc.stdout.decode("utf-8", "replace").split("\n")
        first = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
        return f"meteor-jar-stemmer {lang}: the output differs from the jar's from line {first + 1} of the last {PROGRAM_WORDS}"
    return None


def _check_language(lang: str, data: Path, part: Tuple[int, int]) -> Tuple[StemCheck, Optional[str]]:
    """One language's part against the fixture, and the stemmer program on its last words (one word list for both)."""
    words = stem_check_words(lang, data)
    result = check_language_against_fixture(lang, data, STEM_FIXTURE_DIR, part, words=words)
    return result, (_program_difference(lang, words) if lang in PROGRAM_LANGS else None)


def _check_languages(data: Path, part: int, langs: List[str]) -> List[Tuple[StemCheck, Optional[str]]]:
    """The part of each language of ``langs``, one after the other (this module run as a program)."""
    return [_check_language(lang, data, (part, STEM_PARTS)) for lang in langs]


#: Seconds the check of a part may take (about a minute on two cores): a stuck run fails instead of stalling the suite.
PART_TIMEOUT = 900


def test_a_part_of_every_languages_stems_equals_the_jars(shared_data: Path) -> None:
    """All languages, two at a time: every word of this run's part has the jar's stem (program and scorer), and
    ``meteor-jar-stemmer`` prints the jar's lines for the last 20,000 words of four languages.

    The languages are checked by two child processes (this module run as a program), each with half of them: no
    process is forked from this one, which has threads of its own (pytest-xdist's), and a process forked from a
    threaded one may block forever on a lock another thread held at the fork."""
    _need(shared_data)
    part = _stem_part()
    print(f"stem fixtures: part {part} of {STEM_PARTS} (METEOR_LITE_STEM_PART={part} repeats this run)")
    halves = [LANGS[0::2], LANGS[1::2]]
    children = [subprocess.Popen([sys.executable, __file__, str(shared_data), str(part), *langs], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parent) for langs in halves]
    found = {}
    try:
        for child in children:
            stdout, stderr = child.communicate(timeout=PART_TIMEOUT)
            assert child.returncode == 0, stderr[-3000:]
            for r, problem in json.loads(stdout):
                found[r["lang"]] = (StemCheck(**{**r, "examples": [tuple(e) for e in r["examples"]]}), problem)
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    assert sorted(found) == sorted(LANGS)
    results = [found[lang] for lang in LANGS]
    for r, _ in results:
        assert r.words >= 1_000_000 // STEM_PARTS, r.lang
    bad = [(r.lang, r.program_differences, r.scorer_differences, r.examples[:5]) for r, _ in results if not r.ok]
    assert not bad, f"part {part} of {STEM_PARTS} (METEOR_LITE_STEM_PART={part} repeats it): {bad}"
    programs = [problem for _, problem in results if problem is not None]
    assert not programs, programs
    assert sum(1 for lang in LANGS if lang in PROGRAM_LANGS) == len(PROGRAM_LANGS)


def test_the_parts_cover_every_word_once() -> None:
    words = [str(i) for i in range(1000)]
    parts = [words[k::STEM_PARTS] for k in range(STEM_PARTS)]
    assert sorted(w for p in parts for w in p) == sorted(words)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        path.write_text(text, encoding="utf-8")


def test_the_word_lists_name_their_files(tmp_path: Path) -> None:
    """A file added to the shared data changes no word list: the lists read named files only."""
    for i, name in enumerate(SHARED_TEXT_FILES):
        _write(tmp_path / name, f"Word{i} word{i}\n")
    for i, name in enumerate(SHARED_TABLES):
        _write(tmp_path / name, f"lp\tseg_id\tsystem\thyp\tref_A\tref_B\nxx\t1\ts\tHyp{i}\tref{i}\t\n")
    before = shared_tokens(tmp_path)
    assert before[:3] == ("Word0", "word0", "Word1") and "hyp0" in before and "ref0" in before
    _write(tmp_path / "wmt21" / "newstest2021.xx-yy.systems.tsv.gz", "lp\tseg_id\tsystem\thyp\tref_A\tref_B\nxx\t1\ts\tzzunseen\tzz\t\n")
    _write(tmp_path / "meteor-example" / "system3.hyp", "zzunseen\n")
    shared_tokens.cache_clear()
    assert shared_tokens(tmp_path) == before
    (tmp_path / SHARED_TABLES[0]).unlink()
    shared_tokens.cache_clear()
    with pytest.raises(FileNotFoundError, match="missing"):
        shared_tokens(tmp_path)


if __name__ == "__main__":  # a child of the part check: python test_stem_fixtures.py DATA PART LANG...
    checked = _check_languages(Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:])
    json.dump([(dataclasses.asdict(r), problem) for r, problem in checked], sys.stdout)
