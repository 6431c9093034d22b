"""Pivoting a phrase table into paraphrases (builders/pivot.py), on small synthetic inputs.

The expected behaviours are the ones measured on Meteor's Parex (see
docs/paraphrases.md); `meteor-build check parex` checks the whole pipeline
against the jar itself.
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import List, Sequence

import pytest

from meteor_lite_builders.paraphrases.moses import PhraseTableError
from meteor_lite_builders.paraphrases.pivot import (
    ExternalSorter,
    PivotError,
    PivotOptions,
    PivotStats,
    combine,
    common_words,
    java_key,
    parex,
    pivot_pairs,
    read_meteor_paraphrases,
    read_parex_table,
    threshold,
    write_meteor_paraphrases,
    write_parex_table,
)

FILLER = [" ".join(f"w{i}x{j}" for j in range(10)) for i in range(300)]  # 3,000 rare tokens


def write(path: Path, lines: Sequence[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def write_pt(path: Path, rows: Sequence[tuple]) -> str:
    """rows: (f, e, p(f|e), p(e|f))."""
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for f, e, pfe, pef in rows:
            out.write(f"{f} ||| {e} ||| {pfe!r} 0.5 {pef!r} 0.5 ||| 0-0 ||| 1 1 1\n")
    return str(path)


def run(tmp_path: Path, rows, target=None, e_extra=(), f_extra=(), **opts) -> List[tuple]:
    pt = write_pt(tmp_path / "pt.gz", rows)
    e = write(tmp_path / "e.txt", list(e_extra) + FILLER)
    f = write(tmp_path / "f.txt", list(f_extra) + FILLER)
    t = write(tmp_path / "t.txt", target if target is not None else [r[1] for r in rows])
    return list(parex(pt, f, e, t, PivotOptions(**opts)))


# --------------------------------------------------------------------------- pivot math
def test_probability_is_sum_over_pivots_of_product(tmp_path):
    rows = [("a", "x", 0.5, 0.6), ("a", "y", 0.5, 0.4), ("b", "x", 0.3, 0.5), ("b", "y", 0.7, 0.5)]
    out = dict(((e1, e2), p) for e1, e2, p in run(tmp_path, rows))
    # p(y|x) = p(y|a) p(a|x) + p(y|b) p(b|x)
    assert out[("x", "y")] == 0.4 * 0.5 + 0.5 * 0.3
    assert out[("y", "x")] == 0.6 * 0.5 + 0.5 * 0.7
    assert set(out) == {("x", "y"), ("y", "x")}


def test_contributions_summed_in_phrase_table_order(tmp_path):
    # products 0.3, 0.2, 0.1 in line order: 0.3+0.2+0.1 = 0.6 but 0.1+0.2+0.3 = 0.6000000000000001
    rows = [("c", "x", 1.0, 0.5), ("c", "y", 1.0, 0.3), ("b", "x", 1.0, 0.5), ("b", "y", 1.0, 0.2),
            ("a", "x", 1.0, 0.5), ("a", "y", 1.0, 0.1)]
    out = {(a, b): p for a, b, p in run(tmp_path, rows)}
    assert out[("x", "y")] == 0.6  # Parex: the order of the (f, e2) lines, not of the pivot strings
    rows_rev = [rows[4], rows[5], rows[2], rows[3], rows[0], rows[1]]
    out = {(a, b): p for a, b, p in run(tmp_path, rows_rev)}
    assert out[("x", "y")] == 0.1 + 0.2 + 0.3 == 0.6000000000000001


def test_output_sorted_in_java_order(tmp_path):
    es = ["b", "a b", "X", "é", "😀", "ｚ"]
    rows = [("p", e, 0.5, 0.5) for e in es]
    out = run(tmp_path, rows)
    keys = [(a, b) for a, b, _ in out]
    assert keys == sorted(keys, key=lambda k: (java_key(k[0]), java_key(k[1])))
    firsts = list(dict.fromkeys(a for a, _ in keys))
    assert firsts.index("😀") < firsts.index("ｚ")  # UTF-16: surrogates before U+FF5A


def test_java_key():
    assert java_key("abc") == "abc"
    assert sorted(["ｚ", "😀"], key=java_key) == ["😀", "ｚ"]
    assert sorted(["ｚ", "😀"]) == ["ｚ", "😀"]


# --------------------------------------------------------------------------- filters
def test_min_trans_prob_applies_to_each_pivot_product_inclusive(tmp_path):
    rows = [("a", "x", 0.04, 0.5), ("a", "y", 0.5, 0.025), ("a", "z", 0.04, 0.02)]
    out = {(a, b): p for a, b, p in run(tmp_path, rows, min_final_prob=0.0)}
    assert out[("x", "y")] == 0.025 * 0.04  # == 0.001: kept (>=)
    assert ("x", "z") not in out  # 0.02 * 0.04 = 0.0008 < 0.001


def test_min_final_prob_inclusive(tmp_path):
    rows = [("a", "x", 0.5, 0.5), ("a", "y", 0.5, 0.02)]
    out = {(a, b): p for a, b, p in run(tmp_path, rows)}
    assert out[("x", "y")] == 0.01  # p(y|a) p(a|x) = 0.02 * 0.5, exactly the threshold: kept
    assert out[("y", "x")] == 0.25


def test_min_final_prob_boundary_exact(tmp_path):
    rows = [("a", "x", 0.1, 0.5), ("a", "y", 0.5, 0.099), ("a", "w", 0.5, 0.1)]
    out = {(a, b): p for a, b, p in run(tmp_path, rows)}
    assert ("x", "y") not in out  # 0.099 * 0.1 = 0.0099
    assert out[("x", "w")] == 0.1 * 0.1


def test_symbols_filter_both_sides(tmp_path):
    rows = [("a", "x", 0.5, 0.5), ("a", "y", 0.5, 0.5), ("a", "x,y", 0.5, 0.5), ("a", "it's", 0.5, 0.5),
            ("a,", "u", 0.5, 0.5), ("a,", "v", 0.5, 0.5), ("a", "é", 0.5, 0.5)]
    out = {(a, b) for a, b, _ in run(tmp_path, rows)}
    assert ("x", "y") in out and ("x", "é") in out
    assert not any("," in a or "," in b or "'" in a or "'" in b for a, b in out)
    assert ("u", "v") not in out  # pivot with a symbol
    custom = {(a, b) for a, b, _ in run(tmp_path, rows, symbols="é")}
    assert ("x", "x,y") in custom and ("x", "é") not in custom


def test_common_words_filter(tmp_path):
    rows = [("a", "the", 0.5, 0.5), ("a", "the of", 0.5, 0.5), ("a", "the dog", 0.5, 0.5), ("a", "cat", 0.5, 0.5),
            ("der von", "p1", 0.5, 0.5), ("der von", "p2", 0.5, 0.5),
            ("der hund", "q1", 0.5, 0.5), ("der hund", "q2", 0.5, 0.5)]
    out = {(a, b) for a, b, _ in run(tmp_path, rows, e_extra=["the of " * 4], f_extra=["der von " * 4])}
    assert out == {("cat", "the dog"), ("the dog", "cat"), ("q1", "q2"), ("q2", "q1")}


def test_common_words_strictly_greater(tmp_path):
    # 2 of 2,000 tokens = 0.001 exactly: not common; 3 of 2,001: common
    lines = ["a a b c"] + [f"w{i}" for i in range(1996)]
    assert common_words(write(tmp_path / "c1", lines)) == set()
    lines = ["a a a b c"] + [f"w{i}" for i in range(1996)]
    assert common_words(write(tmp_path / "c2", lines)) == {"a"}
    assert common_words(write(tmp_path / "c3", ["a b"]), 0.4) == {"a", "b"}


def test_substring_filter_is_on_whole_words(tmp_path):
    rows = [("a", s, 0.5, 0.5) for s in ["b c", "q b c d", "r s", "r t s", "x", "xé", "k", "ak ka", "m"]]
    out = {(a, b) for a, b, _ in run(tmp_path, rows)}
    assert ("b c", "q b c d") not in out and ("q b c d", "b c") not in out
    assert ("r s", "r t s") in out  # not contiguous
    assert ("x", "xé") in out  # a character substring, not a word run
    assert ("k", "ak ka") in out
    assert not any(a == b for a, b in out)


def test_target_corpus_filters_first_phrase_only(tmp_path):
    rows = [("a", "xx", 0.5, 0.5), ("a", "yy", 0.5, 0.5), ("a", "zz qq", 0.5, 0.5)]
    out = {(a, b) for a, b, _ in run(tmp_path, rows, target=["xx"])}
    assert out == {("xx", "yy"), ("xx", "zz qq")}
    out = {(a, b) for a, b, _ in run(tmp_path, rows, target=["kzz qq"])}
    assert out == set()  # n-grams of whole words
    out = {(a, b) for a, b, _ in run(tmp_path, rows, target=["ab zz\tqq cd"])}
    assert out == {("zz qq", "xx"), ("zz qq", "yy")}
    assert run(tmp_path, rows, target=["XX"]) == []  # case-sensitive


# --------------------------------------------------------------------------- external memory
def test_external_sorter_spills_and_merges_in_passes(tmp_path):
    rng = random.Random(4)
    recs = [(f"k{rng.randrange(500)}", rng.randrange(10**6), rng.random()) for _ in range(5000)]
    with ExternalSorter("sif", lambda r: (r[0], r[1]), max_records=50, tmp_dir=str(tmp_path), fan_in=3) as s:
        s.extend(recs)
        assert s.chunks == 100
        out = list(s)
    assert out == sorted(recs, key=lambda r: (r[0], r[1]))  # floats round-trip exactly
    assert not any(tmp_path.iterdir()) or all(not list(p.iterdir()) for p in tmp_path.iterdir())


def test_external_sorter_unique_and_in_memory():
    with ExternalSorter("s", lambda r: r[0], max_records=1000, unique=True) as s:
        s.extend([("b",), ("a",), ("b",), ("a",)])
        assert list(s) == [("a",), ("b",)] and s.chunks == 0
    with ExternalSorter("s", lambda r: r[0], max_records=2, unique=True) as s:
        s.extend([("b",), ("a",), ("b",), ("a",), ("c",)])
        assert list(s) == [("a",), ("b",), ("c",)]


def test_tiny_memory_budget_gives_same_table(tmp_path):
    rng = random.Random(7)
    rows, seen = [], set()
    while len(rows) < 400:
        f, e = f"f{rng.randrange(60)}", " ".join(f"e{rng.randrange(80)}" for _ in range(rng.choice([1, 1, 2, 3])))
        if (f, e) not in seen:
            seen.add((f, e))
            rows.append((f, e, rng.random(), rng.random()))
    rows.sort(key=lambda r: r[0])
    big = run(tmp_path, rows, min_final_prob=0.0)
    stats = PivotStats()
    pt = write_pt(tmp_path / "pt.gz", rows)
    e = write(tmp_path / "e.txt", FILLER)
    t = write(tmp_path / "t.txt", [r[1] for r in rows])
    small = list(pivot_pairs(pt, e, e, t, PivotOptions(memory_mb=0.02, fan_in=8), stats=stats))
    assert small == big and len(big) > 1000
    assert stats.sort_chunks["pairs"] > 8 and stats.sort_chunks["entries"] > 8  # more chunks than fan_in: multi-pass merges


# --------------------------------------------------------------------------- combining, formats
def test_combine_mean_and_sum():
    a = [("x", "y", 0.2), ("x", "z", 0.1)]
    b = [("x", "y", 0.4), ("y", "x", 0.3)]
    assert list(combine([a, b], "sum")) == [("x", "y", 0.2 + 0.4), ("x", "z", 0.1), ("y", "x", 0.3)]
    assert list(combine([a, b], "mean")) == [("x", "y", (0.2 + 0.4) / 2), ("x", "z", 0.05), ("y", "x", 0.15)]
    assert list(threshold(combine([a, b], "mean"), 0.1)) == [("x", "y", 0.30000000000000004), ("y", "x", 0.15)]
    with pytest.raises(ValueError):
        list(combine([a], "max"))


def test_file_formats_round_trip(tmp_path):
    triples = [("a b", "c", 0.013999999999999999), ("a b", "d", 1e-05), ("é", "😀", 0.5)]
    write_parex_table(tmp_path / "p.gz", triples)
    assert list(read_parex_table(tmp_path / "p.gz")) == triples
    write_meteor_paraphrases(tmp_path / "m.gz", triples)
    raw = gzip.open(tmp_path / "m.gz", "rt", encoding="utf-8").read().splitlines()
    assert raw[:3] == ["0.013999999999999999", "a b", "c"] and len(raw) == 9
    assert list(read_meteor_paraphrases(tmp_path / "m.gz")) == triples


# --------------------------------------------------------------------------- errors
def test_errors(tmp_path):
    e = write(tmp_path / "e.txt", FILLER)
    t = write(tmp_path / "t.txt", ["x"])
    empty = tmp_path / "empty.gz"
    with gzip.open(empty, "wt") as o:
        o.write("")
    with pytest.raises(PivotError, match="empty"):
        list(parex(str(empty), e, e, t))
    bad = tmp_path / "bad.txt"
    bad.write_text("a ||| x ||| 0.5 0.5 0.5\na ||| y\n", encoding="utf-8")
    with pytest.raises(PhraseTableError, match=r"bad.txt:2"):
        list(parex(str(bad), e, e, t))
    bad.write_text("a ||| x ||| 0.5 zero 0.5\n", encoding="utf-8")
    with pytest.raises(PhraseTableError, match="not numbers"):
        list(parex(str(bad), e, e, t))
    bad.write_text("a ||| x ||| 0.5 0.5\n", encoding="utf-8")
    with pytest.raises(PhraseTableError, match="at least 3 scores"):
        list(parex(str(bad), e, e, t))
    ok = write_pt(tmp_path / "ok.gz", [("a", "x", 0.5, 0.5), ("a", "y", 0.5, 0.5)])
    with pytest.raises(PivotError, match="target corpus has no words"):
        list(parex(ok, e, e, write(tmp_path / "t0.txt", ["", "  "])))
    with pytest.raises(PivotError, match="no words"):
        list(parex(ok, write(tmp_path / "f0.txt", [""]), e, t))


def test_e_side_src_reads_the_table_the_other_way(tmp_path):
    rows = [("a", "x", 0.5, 0.6), ("a", "y", 0.5, 0.4), ("b", "x", 0.3, 0.5), ("b", "y", 0.7, 0.5)]
    fwd = run(tmp_path, rows)
    pt = write_pt(tmp_path / "rev.gz", [(e, f, pef, pfe) for f, e, pfe, pef in rows])
    e = write(tmp_path / "e.txt", FILLER)
    t = write(tmp_path / "t2.txt", ["x", "y"])
    assert list(parex(pt, e, e, t, e_side="src")) == fwd
    with pytest.raises(ValueError):
        list(parex(pt, e, e, t, e_side="left"))


# --------------------------------------------------------------------------- the command line
def test_cli_pivot_writes_meteor_file(tmp_path):
    from typer.testing import CliRunner

    from meteor_lite_builders.cli import app

    rows = [("a", "x", 0.5, 0.6), ("a", "y", 0.5, 0.4), ("b", "x", 0.3, 0.5), ("b", "y", 0.7, 0.5)]
    pt = write_pt(tmp_path / "pt.gz", rows)
    e = write(tmp_path / "e.txt", FILLER)
    t = write(tmp_path / "t.txt", ["x y"])
    out = tmp_path / "sub" / "para.gz"
    r = CliRunner().invoke(app, ["pivot", "-t", pt, "--f-corpus", e, "--e-corpus", e, "--target", t, "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "2 paraphrase pairs" in r.output
    assert list(read_meteor_paraphrases(out)) == run(tmp_path, rows)
    out2 = tmp_path / "para.txt"
    r = CliRunner().invoke(app, ["pivot", "-t", pt, "-t", pt, "--f-corpus", e, "--f-corpus", e, "--e-corpus", e,
                                 "--target", t, "-o", str(out2), "--format", "parex", "--combine", "sum"])
    assert r.exit_code == 0, r.output
    assert [p for _a, _b, p in read_parex_table(out2)] == [2 * p for _a, _b, p in run(tmp_path, rows)]


def test_cli_pivot_errors(tmp_path):
    from typer.testing import CliRunner

    from meteor_lite_builders.cli import app

    bad = tmp_path / "bad.txt"
    bad.write_text("a ||| x\n", encoding="utf-8")
    e = write(tmp_path / "e.txt", FILLER)
    r = CliRunner().invoke(app, ["pivot", "-t", str(bad), "--f-corpus", e, "--e-corpus", e, "--target", e,
                                 "-o", str(tmp_path / "o.gz")])
    assert r.exit_code == 1 and "bad.txt:1" in r.output
    r = CliRunner().invoke(app, ["pivot", "-t", str(bad), "--f-corpus", e, "--f-corpus", e, "--e-corpus", e,
                                 "--target", e, "-o", str(tmp_path / "o.gz")])
    assert r.exit_code == 2


def test_common_word_lists_can_be_given(tmp_path):
    rows = [("a", "dog", 0.5, 0.5), ("a", "hound", 0.5, 0.5)]
    pt = write_pt(tmp_path / "pt.gz", rows)
    e = write(tmp_path / "e.txt", ["dog dog dog hound hound"])  # tiny corpus: every word is common
    f = write(tmp_path / "f.txt", FILLER)
    t = write(tmp_path / "t.txt", ["dog hound"])
    assert list(pivot_pairs(pt, f, e, t)) == []
    out = list(pivot_pairs(pt, f, e, t, common_e={"the"}, common_f=set()))
    assert [(a, b) for a, b, _ in out] == [("dog", "hound"), ("hound", "dog")]


def test_read_meteor_paraphrases_rejects_truncated_file(tmp_path: Path) -> None:
    import gzip as _gzip

    from meteor_lite_builders.errors import MalformedInputError

    bad = tmp_path / "cut.gz"
    with _gzip.open(bad, "wt", encoding="utf-8") as f:
        f.write("0.5\na b\nc d\n0.25\ne f\n")
    with pytest.raises(MalformedInputError, match="line 5"):
        list(read_meteor_paraphrases(bad))
