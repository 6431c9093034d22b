"""Phrase tables from a bitext (builders/bitext.py): symmetrisation, extraction, scoring, errors.

Most tests replace eflomal with a fixed aligner so they are exact and fast;
one test runs the real eflomal when it is installed.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from meteor_lite_builders.paraphrases.bitext import (
    BitextError,
    BitextOptions,
    BitextStats,
    build_phrase_table,
    eflomal_command,
    extract_phrases,
    grow_diag_final_and,
    lexical_tables,
    lexical_weight,
    parse_links,
    tokenize_bitext,
)
from meteor_lite_builders.paraphrases.moses import read_phrase_table, write_phrase_table


def write(path: Path, lines) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


# --------------------------------------------------------------------------- symmetrisation
def test_gdfa_intersection_when_directions_agree():
    a = {(0, 0), (1, 1)}
    assert grow_diag_final_and(a, set(a), 2, 2) == a


def test_gdfa_grows_into_neighbours_of_the_intersection():
    fwd = {(0, 0), (1, 1), (1, 2)}  # target 2 also to source 1
    rev = {(0, 0), (1, 1), (2, 2)}
    # intersection {(0,0),(1,1)}; (1,2) and (2,2) neighbour (1,1); (1,2) comes first in the scan
    # (source 1 aligned but target 2 not), then (2,2) still aligns an unaligned source word
    assert grow_diag_final_and(fwd, rev, 3, 3) == {(0, 0), (1, 1), (1, 2), (2, 2)}


def test_gdfa_does_not_grow_between_two_aligned_words():
    fwd = {(0, 0), (1, 1), (0, 1)}
    rev = {(0, 0), (1, 1)}
    # (0,1) neighbours the intersection but both its words are already aligned
    assert grow_diag_final_and(fwd, rev, 2, 2) == {(0, 0), (1, 1)}


def test_gdfa_final_and_adds_isolated_points_of_either_direction():
    fwd = {(0, 0), (3, 3)}
    rev = {(0, 0), (2, 3)}
    # no intersection around 2/3: (3,3) and (2,3) are not neighbours of (0,0); final-and adds the
    # first direction's (3,3) (both words unaligned), then (2,3) no longer qualifies (target 3 taken)
    assert grow_diag_final_and(fwd, rev, 4, 4) == {(0, 0), (3, 3)}


def test_gdfa_only_union_points():
    fwd = {(0, 0), (1, 1), (2, 2)}
    rev = {(0, 0), (1, 1), (2, 2), (1, 0)}
    out = grow_diag_final_and(fwd, rev, 3, 3)
    assert out <= fwd | rev and fwd & rev <= out


# --------------------------------------------------------------------------- extraction
def spans(src_len, tgt_len, links, max_len=7):
    return set(extract_phrases(src_len, tgt_len, set(links), max_len))


def test_extraction_monotone_diagonal():
    out = spans(3, 3, [(0, 0), (1, 1), (2, 2)])
    # every contiguous span of a 1:1 diagonal is consistent: 6 pairs
    assert out == {(s, e, s, e) for s in range(3) for e in range(s, 3)}


def test_extraction_respects_consistency():
    # source 0-1 swap with target: 0-1, 1-0 ; and 2-2
    out = spans(3, 3, [(0, 1), (1, 0), (2, 2)])
    assert (0, 0, 1, 1) in out and (1, 1, 0, 0) in out
    assert (0, 1, 0, 1) in out
    assert (0, 0, 0, 0) not in out  # source 0 is linked to target 1, outside
    for s0, s1, t0, t1 in out:  # no link crosses the box
        for i, j in [(0, 1), (1, 0), (2, 2)]:
            assert (s0 <= i <= s1) == (t0 <= j <= t1)


def test_extraction_extends_over_unaligned_source_words():
    # source: a X b (X unaligned); target: A B
    out = spans(3, 2, [(0, 0), (2, 1)])
    assert (0, 0, 0, 0) in out and (0, 1, 0, 0) in out  # "a" and "a X" both translate "A"
    assert (1, 2, 1, 1) in out and (2, 2, 1, 1) in out
    assert (0, 2, 0, 1) in out
    assert all(not (s0 == 1 and s1 == 1) for s0, s1, _, _ in out)  # never X alone


def test_extraction_max_length():
    links = [(i, i) for i in range(10)]
    out = spans(10, 10, links, max_len=3)
    assert max(s1 - s0 + 1 for s0, s1, _, _ in out) == 3
    assert max(t1 - t0 + 1 for _, _, t0, t1 in out) == 3
    # the unaligned extension respects the limit too
    out = spans(5, 1, [(2, 0)], max_len=2)
    assert out == {(2, 2, 0, 0), (1, 2, 0, 0), (2, 3, 0, 0)}


def test_parse_links():
    assert parse_links("0-1 2-2\n") == {(0, 1), (2, 2)}
    assert parse_links("") == set()


# --------------------------------------------------------------------------- scoring
def test_lexical_tables_and_weight():
    data = [(["a", "b"], ["x", "y"], {(0, 0), (1, 1)}), (["a"], ["x", "z"], {(0, 0)})]
    s_t, t_s = lexical_tables(data)
    assert s_t[("a", "x")] == 1.0  # c(a,x)=2, c(x)=2
    assert t_s[("a", "x")] == 1.0  # c(a,x)=2, c(a)=2
    assert s_t[("", "z")] == 1.0  # z unaligned: to NULL
    assert lexical_weight(["a", "b"], ["x", "y"], {(0, 0), (1, 1)}, s_t) == 1.0
    assert lexical_weight(["a"], ["x", "y"], {(0, 0), (0, 1)}, s_t) == (1.0 + 0.0) / 2


def fixed_aligner(links_per_pair):
    def align(pairs):
        assert len(pairs) == len(links_per_pair)
        return [set(x) for x in links_per_pair], [set(x) for x in links_per_pair]

    return align


def test_phrase_probabilities_are_relative_frequencies(tmp_path):
    src = write(tmp_path / "s.txt", ["der hund", "der hund", "ein hund"])
    tgt = write(tmp_path / "t.txt", ["the dog", "the hound", "a dog"])
    diag = [(0, 0), (1, 1)]
    pairs = list(build_phrase_table(src, tgt, "de", "en", aligner=fixed_aligner([diag, diag, diag])))
    table = {(p.src, p.tgt): p for p in pairs}
    p = table[("hund", "dog")]
    # c(hund,dog)=2, c(hund)=3, c(dog)=2
    assert p.scores[0] == 2 / 2 and p.scores[2] == 2 / 3 and p.counts == "2 3 2"
    assert table[("hund", "hound")].scores[2] == 1 / 3
    assert table[("der hund", "the dog")].scores[2] == 1 / 2
    assert p.alignment == "0-0"
    assert [(q.src, q.tgt) for q in pairs] == sorted((q.src, q.tgt) for q in pairs)
    for q in pairs:  # p(t|s) sums to one over t for every s
        assert 0 < q.scores[0] <= 1 and 0 < q.scores[2] <= 1
    for s in {q.src for q in pairs}:
        assert sum(q.scores[2] for q in pairs if q.src == s) == pytest.approx(1.0)


def test_round_trip_through_moses_file(tmp_path):
    src = write(tmp_path / "s.txt", ["der hund"])
    tgt = write(tmp_path / "t.txt", ["the dog"])
    pairs = list(build_phrase_table(src, tgt, "de", "en", aligner=fixed_aligner([[(0, 0), (1, 1)]])))
    write_phrase_table(tmp_path / "pt.gz", pairs)
    assert list(read_phrase_table(tmp_path / "pt.gz")) == pairs
    line = gzip.open(tmp_path / "pt.gz", "rt").readline()
    assert line.count(" ||| ") == 4


def test_tokenisation_uses_meteor_normaliser(tmp_path):
    src = write(tmp_path / "s.txt", ["Der Hund, der U.S.-basiert ist."])
    tgt = write(tmp_path / "t.txt", ["The dog's far-off home."])
    out = list(tokenize_bitext(src, tgt, "de", "en"))
    assert out[0][2] == ["the", "dog", "'s", "far", "off", "home", "."]
    assert "," in out[0][1] and out[0][1][0] == "der"


# --------------------------------------------------------------------------- bad input
def test_different_line_counts(tmp_path):
    src = write(tmp_path / "s.txt", ["a", "b"])
    tgt = write(tmp_path / "t.txt", ["a"])
    with pytest.raises(BitextError, match="2 lines but .* has 1"):
        list(build_phrase_table(src, tgt, "de", "en", aligner=fixed_aligner([])))


def test_empty_file(tmp_path):
    src = write(tmp_path / "s.txt", [])
    tgt = write(tmp_path / "t.txt", ["a"])
    with pytest.raises(BitextError, match="empty"):
        list(build_phrase_table(src, tgt, "de", "en", aligner=fixed_aligner([])))


def test_lines_that_tokenise_to_nothing_are_skipped_and_counted(tmp_path):
    src = write(tmp_path / "s.txt", ["der hund", "   ", "katze"])
    tgt = write(tmp_path / "t.txt", ["the dog", "nothing here", "  "])
    st = BitextStats()
    pairs = list(build_phrase_table(src, tgt, "de", "en", stats=st, aligner=fixed_aligner([[(0, 0), (1, 1)]])))
    assert st.lines == 3 and st.used == 1 and st.skipped_empty == 2 and pairs
    assert "line 2" in st.skipped_examples[0]


def test_all_lines_unusable_is_an_error(tmp_path):
    src = write(tmp_path / "s.txt", ["  ", ""])
    tgt = write(tmp_path / "t.txt", ["a", "b"])
    with pytest.raises(BitextError, match="no usable sentence pair"):
        list(build_phrase_table(src, tgt, "de", "en", aligner=fixed_aligner([])))


def test_long_lines_skipped(tmp_path):
    src = write(tmp_path / "s.txt", ["a " * 10, "b"])
    tgt = write(tmp_path / "t.txt", ["x", "y"])
    st = BitextStats()
    list(build_phrase_table(src, tgt, "de", "en", stats=st, options=BitextOptions(max_sentence_length=5),
                            aligner=fixed_aligner([[(0, 0)]])))
    assert st.skipped_long == 1 and st.used == 1


def test_invalid_utf8(tmp_path):
    (tmp_path / "s.txt").write_bytes(b"caf\xe9\n")
    tgt = write(tmp_path / "t.txt", ["x"])
    with pytest.raises(BitextError, match="UTF-8"):
        list(build_phrase_table(str(tmp_path / "s.txt"), tgt, "de", "en", aligner=fixed_aligner([])))


# --------------------------------------------------------------------------- the real aligner
def _have_eflomal() -> bool:
    try:
        eflomal_command()
        return True
    except BitextError:
        return False


@pytest.mark.skipif(not _have_eflomal(), reason="eflomal (build extra) is not installed")
def test_eflomal_end_to_end(tmp_path):
    import random

    rng = random.Random(0)
    de = ["hund", "katze", "haus", "baum", "auto", "frau", "mann", "kind"]
    en = ["dog", "cat", "house", "tree", "car", "woman", "man", "child"]
    src, tgt = [], []
    for _ in range(400):
        idx = rng.sample(range(8), 3)
        src.append("der " + " ".join(de[i] for i in idx))
        tgt.append("the " + " ".join(en[i] for i in idx))
    pairs = list(build_phrase_table(write(tmp_path / "s", src), write(tmp_path / "t", tgt), "de", "en"))
    best = {}
    for p in pairs:
        if p.src in de and (p.src not in best or p.scores[2] > best[p.src].scores[2]):
            best[p.src] = p
    assert {s: best[s].tgt for s in de} == dict(zip(de, en))


def test_cli_phrase_table_bad_input(tmp_path):
    from typer.testing import CliRunner

    from meteor_lite_builders.cli import app

    src = write(tmp_path / "s.txt", ["a", "b"])
    tgt = write(tmp_path / "t.txt", ["a"])
    out = tmp_path / "pt.gz"
    r = CliRunner().invoke(app, ["phrase-table", "--src", src, "--src-lang", "de", "--tgt", tgt, "--tgt-lang", "en",
                                 "-o", str(out), "--nonbreaking", "none"])
    assert r.exit_code == 1 and "2 lines but" in r.output
    assert not out.exists() and not list(tmp_path.glob("pt.gz.tmp*"))


@pytest.mark.skipif(not _have_eflomal(), reason="eflomal (build extra) is not installed")
def test_cli_paraphrases_bundle(tmp_path):
    from typer.testing import CliRunner

    from meteor_lite.resources.bundle import Bundle
    from meteor_lite_builders.cli import app

    de = ["hund", "katze", "haus", "baum", "auto"]
    en = [["dog", "hound"], ["cat", "kitty"], ["house", "home"], ["tree", "trunk"], ["car", "auto"]]
    src, tgt = [], []
    for k in range(300):
        i = k % 5
        src.append(f"{de[i]} {de[(i + 1) % 5]}")
        tgt.append(f"{en[i][k % 2]} {en[(i + 1) % 5][(k // 2) % 2]}")
    s = write(tmp_path / "c.de", src)
    t = write(tmp_path / "c.en", tgt)
    out = tmp_path / "b.sqlite"
    r = CliRunner().invoke(app, ["paraphrases", "--lang", "en", "--corpus", t, "--pivot", f"de={s}", "-o", str(out),
                                 "--work-dir", str(tmp_path / "w"), "--nonbreaking", "none",
                                 "--min-rel-freq", "0.9",  # a tiny corpus: every word would be common
                                 "--meteor-file", str(tmp_path / "m" / "p.gz")])
    assert r.exit_code == 0, r.output
    with Bundle.open(out) as b:
        paras = b.paraphrases(["dog", "cat"])
    assert "hound" in paras["dog"] and "kitty" in paras["cat"]
