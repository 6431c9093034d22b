"""The pivot's DuckDB engine (builders/paraphrases/pivot_sql.py) against the streaming sorter, bit for bit.

The sorter's behaviour is Parex's (tests/test_pivot.py, `meteor-build check parex`);
here the SQL engine must give the same pairs, the same doubles, the same order and
the same statistics, on generated tables that exercise every filter, and on the
cases where a careless SQL translation would differ (summation order, Java's
UTF-16 order, CRLF lines, blank lines, bad input).
"""

from __future__ import annotations

import gzip
import struct
from pathlib import Path
from typing import List, Sequence, Tuple

import pytest

pytest.importorskip("duckdb", reason="the duckdb engine needs duckdb (in the build extra)")

from meteor_lite_builders.checks.parity.parex_compare import generate  # noqa: E402
from meteor_lite_builders.paraphrases.moses import PhraseTableError  # noqa: E402
from meteor_lite_builders.paraphrases.pivot import (  # noqa: E402
    PivotError,
    PivotOptions,
    PivotStats,
    java_key,
    pivot_pairs,
)
from meteor_lite_builders.paraphrases.synthetic import write_synthetic  # noqa: E402

Triple = Tuple[str, str, float]
FILLER = [" ".join(f"w{i}x{j}" for j in range(10)) for i in range(300)]  # 3,000 rare tokens


def bits(rows: Sequence[Triple]) -> List[Tuple[str, str, bytes]]:
    """The rows with each probability as its 8 bytes (so -0.0/0.0 and NaNs compare exactly)."""
    return [(a, b, struct.pack("<d", p)) for a, b, p in rows]


def both(pt: str, f: str, e: str, t: str, **kw) -> Tuple[List[Triple], PivotStats, PivotStats]:
    """Pivot with each engine; assert identical output and statistics; return the output and both stats."""
    e_side = kw.pop("e_side", "tgt")
    out = {}
    stats = {}
    for engine in ("sort", "duckdb"):
        st = PivotStats()
        out[engine] = list(pivot_pairs(pt, f, e, t, PivotOptions(engine=engine, **kw), stats=st, e_side=e_side))
        stats[engine] = st
    assert bits(out["duckdb"]) == bits(out["sort"])
    s_sort = {k: v for k, v in stats["sort"].as_dict().items() if k != "sort_chunks"}
    s_sql = {k: v for k, v in stats["duckdb"].as_dict().items() if k != "sort_chunks"}
    assert s_sql == s_sort
    return out["sort"], stats["sort"], stats["duckdb"]


def write(path: Path, lines: Sequence[str], newline: str = "\n") -> str:
    path.write_text("".join(line + newline for line in lines), encoding="utf-8", newline="")
    return str(path)


def write_pt(path: Path, rows: Sequence[tuple], newline: str = "\n") -> str:
    """rows: (f, e, p(f|e), p(e|f))."""
    with gzip.open(path, "wt", encoding="utf-8", newline="") as out:
        for f, e, pfe, pef in rows:
            out.write(f"{f} ||| {e} ||| {pfe!r} 0.5 {pef!r} 0.5 ||| 0-0 ||| 1 1 1{newline}")
    return str(path)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_tables_identical(tmp_path: Path, seed: int) -> None:
    # symbols, common words, non-BMP characters, accumulated phrases, shared pivots, tiny probabilities
    p = generate(tmp_path, 3000, seed)
    out, st, _ = both(p["pt.gz"], p["f.txt"], p["e.txt"], p["target.txt"], min_final_prob=0.0)
    assert len(out) > 1000 and st.dropped_symbols and st.dropped_common and st.dropped_substring and st.dropped_target


def test_synthetic_table_identical_both_sides(tmp_path: Path) -> None:
    p = write_synthetic(tmp_path, 4000, seed=5)
    out, st, _ = both(str(p["phrase_table"]), str(p["f_corpus"]), str(p["e_corpus"]), str(p["e_corpus"]))
    assert out and st.max_fanout > 5
    # the table read the other way round (E = its source side)
    both(str(p["phrase_table"]), str(p["e_corpus"]), str(p["f_corpus"]), str(p["f_corpus"]), e_side="src")


def test_sum_in_phrase_table_line_order(tmp_path: Path) -> None:
    # products 0.3, 0.2, 0.1 in line order: 0.3+0.2+0.1 = 0.6, 0.1+0.2+0.3 = 0.6000000000000001
    rows = [("c", "x", 1.0, 0.5), ("c", "y", 1.0, 0.3), ("b", "x", 1.0, 0.5), ("b", "y", 1.0, 0.2),
            ("a", "x", 1.0, 0.5), ("a", "y", 1.0, 0.1)]
    e = write(tmp_path / "e.txt", FILLER)
    t = write(tmp_path / "t.txt", ["x y"])
    out, _, _ = both(write_pt(tmp_path / "pt.gz", rows), e, e, t)
    assert dict(((a, b), p) for a, b, p in out)[("x", "y")] == 0.6
    rev = [rows[4], rows[5], rows[2], rows[3], rows[0], rows[1]]
    out, _, _ = both(write_pt(tmp_path / "rev.gz", rev), e, e, t)
    assert dict(((a, b), p) for a, b, p in out)[("x", "y")] == 0.6000000000000001


def test_many_terms_summed_left_to_right(tmp_path: Path) -> None:
    # 3,000 pivots of one pair: a sum whose bits depend on the order (and on any pairwise or Kahan summation)
    vals = [((i * 7919) % 1000 + 4) / 997.0 for i in range(3000)]  # every product >= minTP (0.001)
    rows = []
    for i, v in enumerate(vals):
        rows += [(f"f{i}", "x", 1.0, 0.5), (f"f{i}", "y", 1.0, v / 3)]
    e = write(tmp_path / "e.txt", FILLER)
    out, _, _ = both(write_pt(tmp_path / "pt.gz", rows), e, e, write(tmp_path / "t.txt", ["x y"]))
    total = 0.0
    for v in vals:
        total += (v / 3) * 1.0
    assert dict(((a, b), p) for a, b, p in out)[("x", "y")] == total
    ascending = 0.0
    for v in sorted(vals):
        ascending += v / 3
    assert total != ascending  # the order matters for these numbers


def test_java_utf16_order(tmp_path: Path) -> None:
    es = ["b", "a b", "X", "é", "😀", "ｚ", "\ue000", "\U0010ffff", "\U0010ffffa", "z😀", "zｚ", "z"]
    rows = [("p", e, 0.5, 0.5) for e in es]
    e = write(tmp_path / "e.txt", FILLER)
    out, _, _ = both(write_pt(tmp_path / "pt.gz", rows), e, e, write(tmp_path / "t.txt", es))
    keys = [(a, b) for a, b, _ in out]
    assert keys == sorted(keys, key=lambda k: (java_key(k[0]), java_key(k[1])))
    firsts = list(dict.fromkeys(a for a, _ in keys))
    assert firsts.index("😀") < firsts.index("\U0010ffff") < firsts.index("\U0010ffffa") < firsts.index("\ue000")
    assert firsts.index("z😀") < firsts.index("zｚ")


def test_crlf_blank_lines_and_untidy_phrases(tmp_path: Path) -> None:
    rows = [("a", "x", 0.5, 0.6), ("a", "y", 0.5, 0.4), ("b", "x", 0.3, 0.5), ("b", "y", 0.7, 0.5)]
    e = write(tmp_path / "e.txt", FILLER)
    t = write(tmp_path / "t.txt", ["x y"], newline="\r\n")
    ref, _, _ = both(write_pt(tmp_path / "pt.gz", rows), e, e, t)
    out, _, _ = both(write_pt(tmp_path / "crlf.gz", rows, newline="\r\n"), e, e, t)
    assert out == ref
    untidy = tmp_path / "untidy.txt"
    untidy.write_text("\n  \n a\t ||| x  ||| 0.5 0.5  0.6 0.5\n\na ||| \ty ||| 0.5\t0.5 0.4 0.5 ||| \n"
                      "b ||| x ||| 0.3 0.5 0.5 0.5\nb ||| y ||| 0.7 0.5 0.5 0.5\n", encoding="utf-8")
    out, st, _ = both(str(untidy), e, e, t)
    assert out == ref and st.pt_lines == 4


def test_options_apply_the_same(tmp_path: Path) -> None:
    p = generate(tmp_path, 1500, 4)
    args = (p["pt.gz"], p["f.txt"], p["e.txt"], p["target.txt"])
    both(*args, min_trans_prob=0.01, min_rel_freq=0.01, min_final_prob=0.05, symbols="")
    both(*args, symbols="xé😀", min_trans_prob=0.0)
    both(*args, memory_mb=1, threads=1)  # a small memory limit: DuckDB spills, same output


def test_bad_input_same_errors_as_the_sorter(tmp_path: Path) -> None:
    e = write(tmp_path / "e.txt", FILLER)
    t = write(tmp_path / "t.txt", ["x"])
    duck = PivotOptions(engine="duckdb")
    bad = tmp_path / "bad.txt"
    for text, msg in [("a ||| x ||| 0.5 0.5 0.5\na ||| y\n", r"bad.txt:2"),
                      ("a ||| x ||| 0.5 0.5 0.5\r\n\r\na |||  ||| 0.5 0.5 0.5\n", r"bad.txt:3: empty phrase"),
                      ("a ||| x ||| 0.5 zero 0.5\n", "not numbers"), ("a ||| x ||| 0.5 0.5\n", "at least 3 scores")]:
        bad.write_text(text, encoding="utf-8", newline="")
        with pytest.raises(PhraseTableError, match=msg):
            list(pivot_pairs(str(bad), e, e, t, duck))
    bad.write_bytes(b"a ||| x\xff ||| 0.5 0.5 0.5\n")
    with pytest.raises(UnicodeDecodeError):
        list(pivot_pairs(str(bad), e, e, t, duck))
    bad.write_text("a\rb ||| x ||| 0.5 0.5 0.5\n", encoding="utf-8", newline="")  # a bare CR: the known difference
    with pytest.raises(PhraseTableError, match="bare carriage return"):
        list(pivot_pairs(str(bad), e, e, t, duck))
    empty = tmp_path / "empty.gz"
    with gzip.open(empty, "wt") as o:
        o.write("\n\n")
    with pytest.raises(PivotError, match="empty"):
        list(pivot_pairs(str(empty), e, e, t, duck))
    ok = write_pt(tmp_path / "ok.gz", [("a", "x", 0.5, 0.5), ("a", "y", 0.5, 0.5)])
    with pytest.raises(PivotError, match="target corpus has no words"):
        list(pivot_pairs(ok, e, e, write(tmp_path / "t0.txt", ["", "  "]), duck))
    with pytest.raises(ValueError, match="unknown pivot engine"):
        list(pivot_pairs(ok, e, e, t, PivotOptions(engine="hive")))


def test_synthetic_tables_are_deterministic(tmp_path: Path) -> None:
    a = write_synthetic(tmp_path / "a", 3000, seed=7)
    b = write_synthetic(tmp_path / "b", 3000, seed=7)
    c = write_synthetic(tmp_path / "c", 3000, seed=8)
    for k in a:
        assert a[k].read_bytes() == b[k].read_bytes()
    assert a["phrase_table"].read_bytes() != c["phrase_table"].read_bytes()
    with gzip.open(a["phrase_table"], "rt", encoding="utf-8") as f:
        assert sum(1 for _ in f) == 3000


def test_pivot_bench_measures_a_child_process(tmp_path: Path) -> None:
    from meteor_lite_builders.checks.bench.pivot import pivot_bench

    r = {e: pivot_bench(3000, e, work=tmp_path, memory_mb=16) for e in ("duckdb", "sort")}
    assert r["duckdb"]["sha256"] == r["sort"]["sha256"] and r["duckdb"]["pairs"] == r["sort"]["pairs"] > 0
    for res in r.values():
        assert res["wall_s"] > 0 and res["peak_rss_mb"] > 10
    with pytest.raises(ValueError):
        pivot_bench(3000, "hive", work=tmp_path)


def test_cli_engine_option(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from meteor_lite_builders.cli import app

    rows = [("a", "x", 0.5, 0.6), ("a", "y", 0.5, 0.4), ("b", "x", 0.3, 0.5), ("b", "y", 0.7, 0.5)]
    pt = write_pt(tmp_path / "pt.gz", rows)
    e = write(tmp_path / "e.txt", FILLER)
    t = write(tmp_path / "t.txt", ["x y"])
    outs = {}
    for engine in ("duckdb", "sort"):
        outs[engine] = tmp_path / f"{engine}.txt"
        r = CliRunner().invoke(app, ["pivot", "-t", pt, "--f-corpus", e, "--e-corpus", e, "--target", t,
                                     "-o", str(outs[engine]), "--format", "parex", "--engine", engine])
        assert r.exit_code == 0, r.output
    assert outs["duckdb"].read_bytes() == outs["sort"].read_bytes() != b""
    r = CliRunner().invoke(app, ["pivot", "-t", pt, "--f-corpus", e, "--e-corpus", e, "--target", t,
                                 "-o", str(tmp_path / "x.txt"), "--engine", "hive"])
    assert r.exit_code == 2


def test_memory_budget_shared_by_concurrent_pivots(tmp_path: Path) -> None:
    assert PivotOptions(engine="duckdb", memory_mb=300).shared_by(3).memory_mb == 100
    assert PivotOptions(engine="sort", memory_mb=300).shared_by(3).memory_mb == 300  # its sorts fill one after another
    assert PivotOptions(engine="duckdb", memory_mb=300).shared_by(1).memory_mb == 300
    from meteor_lite_builders.paraphrases.build import pivot_file

    p = generate(tmp_path, 2000, 6)
    out = {}
    for engine in ("duckdb", "sort"):
        out[engine] = tmp_path / f"{engine}.txt"
        pivot_file([Path(p["pt.gz"])] * 3, [Path(p["f.txt"])] * 3, Path(p["e.txt"]), Path(p["target.txt"]), out[engine],
                   options=PivotOptions(engine=engine, memory_mb=30), fmt="parex", combine_mode="mean")
    assert out["duckdb"].read_bytes() == out["sort"].read_bytes() != b""
