"""Caps on the length of a paraphrase table's phrases, and -a tables that are not gzipped.

``meteor-jar -a`` refuses a phrase of more than 4,000 words: Meteor 1.5 dies of a StackOverflowError loading
one of 5,000 (checked with ``java -jar meteor-1.5.jar h r -l en -m 'exact paraphrase' -a TABLE.gz`` on tables
of one phrase of 4,000 and of 5,000 distinct words).  A bundle (``bundle install LANG --paraphrase``,
``meteor-build``) takes phrases of at most 20 words and 400 characters, refused with the file and line.
A table that is not gzipped is not read by the jar (``java.util.zip.ZipException: Not in GZIP format``, then
scores without it); meteor-jar warns and does the same.  Reads no file of ../shared.
"""

from __future__ import annotations

import gzip
import io
import sqlite3
from pathlib import Path
from typing import List

import pytest

from meteor_lite.jarcli import main
from meteor_lite.resources.jarformat import (
    JAR_MAX_PHRASE_WORDS,
    MAX_PHRASE_CHARS,
    MAX_PHRASE_WORDS,
    JarFormatError,
    iter_paraphrase_batches,
    write_jar_bundle,
)
from meteor_lite.resources.locate import find_bundle
from meteor_lite_builders.bundle.paralists import ParaphraseColumns, ParaphraseLists
from meteor_lite_builders.errors import InvalidParameterError
from meteor_lite_builders.official.formats import fast_paraphrase_batches

needs_en = pytest.mark.skipif(find_bundle("en") is None, reason="no English bundle: run `make bundles`")

HYP = "the cat sat on the mat\na big dog ran\n"
REF = "a feline rested upon the rug\nthe large hound sprinted\n"
TABLE = "0.5\nthe cat\na feline\n0.5\nsat on\nrested upon\n0.5\nthe mat\nthe rug\n"


def _files(tmp_path: Path) -> List[str]:
    (tmp_path / "h.txt").write_text(HYP, encoding="utf-8")
    (tmp_path / "r.txt").write_text(REF, encoding="utf-8")
    return [str(tmp_path / "h.txt"), str(tmp_path / "r.txt"), "-l", "en", "-m", "exact paraphrase"]


def _table_of(phrase: str) -> str:
    return f"0.5\nthe cat\na feline\n0.5\n{phrase}\nx y\n"


# ----------------------------------------------------------------------------- meteor-jar -a ----------


def test_jar_phrase_cap(tmp_path: Path) -> None:
    """A phrase of 4,000 words is read (the jar loads it), one of 4,001 refused naming the file and its line."""
    from meteor_lite.jarcli.setup import JarFilesBundle

    ok, long = tmp_path / "ok.gz", tmp_path / "long.gz"
    words = [f"w{i}" for i in range(JAR_MAX_PHRASE_WORDS + 1)]
    ok.write_bytes(gzip.compress(_table_of(" ".join(words[:-1])).encode()))
    long.write_bytes(gzip.compress(_table_of(" ".join(words)).encode()))
    out = write_jar_bundle(tmp_path / "ok.sqlite", language="en", paraphrase_file=ok, prefix_rows=False)
    with sqlite3.connect(out) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'paraphrase_max_length'").fetchone() == ("4000",)
        assert conn.execute("SELECT count(*), sum(prefix) FROM paraphrases").fetchone() == (2, 0)
    conn.close()
    with JarFilesBundle.open(out) as bundle:
        assert isinstance(bundle, JarFilesBundle)
        asked = [" ".join(words[:3999]), "w0", " ".join(words[:4000]), "w1", "the"]
        assert bundle.longer_phrases_begun(asked) == {asked[0], "w0", "the"}
    with pytest.raises(JarFormatError) as err:
        write_jar_bundle(tmp_path / "long.sqlite", language="en", paraphrase_file=long, prefix_rows=False)
    assert err.value.source == str(long) and err.value.line == 5
    assert "a phrase of 4,001 words, more than 4,000" in err.value.problem


@needs_en
def test_jar_phrase_cap_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """meteor-jar with a 200,000-word phrase: one error line, exit 1 (the jar: StackOverflowError)."""
    table = tmp_path / "bomb.gz"
    table.write_bytes(gzip.compress(_table_of(" ".join(["the"] * 200_000)).encode()))
    assert main([*_files(tmp_path), "-a", str(table)]) == 1
    err = capsys.readouterr().err
    assert err == (f"meteor-jar: error: {table}, line 5: a phrase of 200,000 words, more than 4,000: Meteor 1.5 "
                   "dies loading it (StackOverflowError from about 5,000 words)\n")


@needs_en
def test_plain_text_table_scores_without_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """-a with a table not gzipped: a warning, and the jar's scores without the table (java -jar meteor-1.5.jar
    h.txt r.txt -l en -m 'exact paraphrase' -a TABLE: 0.016877637130801686, its -a TABLE.gz: 0.34639175257731947;
    with the default modules and the plain table 0.10932761468538346)."""
    args = _files(tmp_path)
    plain, packed = tmp_path / "t.para", tmp_path / "t.para.gz"
    plain.write_text(TABLE, encoding="utf-8")
    packed.write_bytes(gzip.compress(TABLE.encode()))
    assert main([*args, "-a", str(plain)]) == 0
    out, err = capsys.readouterr()
    assert out.endswith("Final score:            0.016877637130801686\n")
    assert err == (f"meteor-jar: warning: {plain}: not in gzip format: scored without this paraphrase table, as "
                   "Meteor 1.5 does (it reads a table gzipped only: java.util.zip.ZipException); gzip it to use it\n")
    assert main([*args, "-a", str(packed)]) == 0
    out, err = capsys.readouterr()
    assert out.endswith("Final score:            0.34639175257731947\n") and err == ""
    assert main([*args[:4], "-a", str(plain)]) == 0
    assert capsys.readouterr().out.endswith("Final score:            0.10932761468538346\n")


# ----------------------------------------------------------------------------- bundles ----------


@pytest.mark.parametrize("phrase, words", [(" ".join(["a"] * (MAX_PHRASE_WORDS + 1)), MAX_PHRASE_WORDS + 1),
                                           ("x" * (MAX_PHRASE_CHARS + 1), 1)])
def test_bundle_phrase_cap(phrase: str, words: int) -> None:
    """Both readers of a table for a bundle (the strict one and the fast one) refuse a phrase over the caps
    with the same file and line; at the caps it is read."""
    text = _table_of(phrase)
    with pytest.raises(JarFormatError) as strict:
        list(iter_paraphrase_batches(io.StringIO(text), "t.gz"))
    with pytest.raises(JarFormatError) as fast:
        list(fast_paraphrase_batches(io.StringIO(text), "t.gz"))
    assert str(strict.value) == str(fast.value) == (
        f"t.gz, line 5: a phrase of {words:,} words and {len(phrase):,} characters, more than a bundle takes "
        "(20 words, 400 characters: each of its prefixes is a row)")
    at_cap = phrase[: MAX_PHRASE_CHARS] if words == 1 else phrase[2:]
    pairs = [p for batch in fast_paraphrase_batches(io.StringIO(_table_of(at_cap)), "t.gz") for p in batch.phrases]
    assert pairs == ["the cat", at_cap]


def test_paraphrase_lists_refuse_a_long_phrase() -> None:
    """The bundle writer refuses such a phrase from any builder (pivot tables included), before its prefixes."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE paraphrases (phrase TEXT PRIMARY KEY, prefix INTEGER NOT NULL, paraphrases TEXT)")
    lists = ParaphraseLists(conn, keep_probabilities=False)
    long = " ".join(["w"] * (MAX_PHRASE_WORDS + 1))
    with pytest.raises(InvalidParameterError, match=r"a phrase of 21 words and 41 characters \('w w w"):
        lists.add(ParaphraseColumns(["a b", long], ["c", "d"], [0.5, 0.5]))
    assert conn.execute("SELECT count(*) FROM paraphrases").fetchone() == (0,)
