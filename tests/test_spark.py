"""meteor_lite.spark and the pivot's spark engine, in Spark's local mode (``local[2]``), against the command line's numbers.

* :func:`meteor_lite.spark.corpus_score` must give :meth:`Meteor.score_corpus`'s result (what ``meteor-lite
  score`` prints) bit for bit: corpus score, statistics, every segment, signature; multiple and missing
  references, other languages and options; the bundle from a shared path or shipped with the job.
* ``--engine spark`` must give the DuckDB engine's pairs and doubles in the same order, and its statistics.

One SparkSession for the whole test session (a session-scoped fixture; about 10 s to start).  The tests skip,
saying why, only when pyspark or java is missing (the spark extra is installed by ``make install``).
"""

from __future__ import annotations

import os
import shutil
import struct
import sys
from pathlib import Path
from typing import Any, Iterator, List, Sequence, Tuple

import pytest

pytest.importorskip("pyspark", reason="needs pyspark (the spark extra: pip install 'meteor-lite[spark]')")
pytest.importorskip("duckdb", reason="the pivot comparison needs the duckdb engine (build extra)")
if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
    pytest.skip("needs java (Spark runs on the JVM); not found on PATH nor JAVA_HOME", allow_module_level=True)

from meteor_lite import ConfigError, InputError, Meteor, Stats  # noqa: E402
from meteor_lite.spark import STATS_FIELDS, corpus_score, output_columns, score_dataframe  # noqa: E402
from meteor_lite.text.io import read_lines  # noqa: E402
from meteor_lite_builders.checks.parity.parex_compare import generate  # noqa: E402
from meteor_lite_builders.paraphrases.pivot import PivotOptions, PivotStats, pivot_pairs  # noqa: E402

SYSTEM1_SLICE = 300


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local[2] SparkSession for every test here (Python workers run this interpreter)."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (SparkSession.builder.master("local[2]").appName("meteor-lite tests")
               .config("spark.driver.memory", "1g").config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "2")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def system1(shared_data: Path) -> Tuple[List[str], List[str]]:
    d = shared_data / "meteor-example"
    return read_lines(d / "system1.hyp")[:SYSTEM1_SLICE], read_lines(d / "reference")[:SYSTEM1_SLICE]


def _same_corpus(a: Any, b: Any) -> None:
    """Two CorpusScores equal bit for bit (JSON holds every statistic and segment; repr() keeps all bits)."""
    assert repr(a.score) == repr(b.score) and a.signature == b.signature and a.stats == b.stats
    assert len(a.segments) == len(b.segments)
    for x, y in zip(a.segments, b.segments):
        assert (repr(x.score), x.stats, x.ref_index, x.bounded, x.alignment) == (repr(y.score), y.stats, y.ref_index, y.bounded, y.alignment)
    assert a.to_json() == b.to_json()


def test_system1_slice_equals_the_command_line(spark: Any, system1: Tuple[List[str], List[str]], en_bundle: Path) -> None:
    hyps, refs = system1
    df = spark.createDataFrame(list(zip(hyps, refs)), "hyp string, ref string")  # in order, 2 partitions
    got = corpus_score(df, "en", ref_cols=["ref"], norm=True, bundle=en_bundle)
    want = Meteor("en", norm=True, bundle=en_bundle).score_corpus(hyps, [refs])
    _same_corpus(got, want)
    totals = corpus_score(df, "en", ref_cols=["ref"], norm=True, bundle=en_bundle, segments=False)
    assert repr(totals.score) == repr(want.score) and totals.stats == want.stats and totals.segments == []


def test_score_dataframe_columns(spark: Any, system1: Tuple[List[str], List[str]], en_bundle: Path) -> None:
    hyps, refs = system1
    df = spark.createDataFrame([(i, h, r) for i, (h, r) in enumerate(zip(hyps[:60], refs[:60]))], "id int, hyp string, ref string")
    out = score_dataframe(df, "en", ref_cols=["ref"], norm=True, bundle=en_bundle)
    assert out.columns == ["id", "hyp", "ref", *output_columns()]
    want = Meteor("en", norm=True, bundle=en_bundle).score_corpus(hyps[:60], [refs[:60]]).segments
    rows = sorted(out.collect(), key=lambda r: r["id"])
    for row, seg in zip(rows, want):
        st = row["meteor_stats"].asDict()
        assert list(st) == list(STATS_FIELDS)
        assert Stats(**st) == seg.stats
        assert (row["meteor_score"], row["meteor_fmean"], row["meteor_ref_index"]) == (seg.score, seg.fmean, seg.ref_index)
    with pytest.raises(ConfigError, match="already has a column"):
        score_dataframe(out, "en", ref_cols=["ref"], norm=True, bundle=en_bundle)
    with pytest.raises(ConfigError, match="no column 'reference'"):
        corpus_score(df, "en", ref_cols=["reference"], bundle=en_bundle)


def test_bundle_shipped_with_the_job(spark: Any, tiny_bundle: Path) -> None:
    # the executors score with the copy Spark distributes (SparkFiles), verified, with the driver's signature
    hyps = ["the cat sat on the mat", "a dog barked", ""]
    refs = ["the cat sat on a mat", "the dog was barking", "nothing"]
    df = spark.createDataFrame(list(zip(hyps, refs)), "hyp string, ref string")
    opts = {"modules": ["exact", "synonym", "paraphrase"], "lower": True}
    got = corpus_score(df, "en", ref_cols=["ref"], bundle=tiny_bundle, ship_bundle=True, **opts)
    _same_corpus(got, Meteor("en", bundle=tiny_bundle, **opts).score_corpus(hyps, [refs]))


def test_multiple_and_missing_references_and_options(spark: Any, system1: Tuple[List[str], List[str]], en_bundle: Path) -> None:
    hyps, refs = (x[:80] for x in system1)
    first = [None if i % 5 == 1 else r for i, r in enumerate(refs)]
    second = [None if i % 3 == 0 and first[i] is not None else hyps[(i + 1) % len(hyps)] for i in range(len(hyps))]
    df = spark.createDataFrame(list(zip(hyps, first, second)), "hyp string, r1 string, r2 string")
    for opts in ({"norm": True}, {"lower": True, "modules": ["exact", "stem"], "params": [0.9, 0.5, 0.4, 0.8]},
                 {"norm": True, "char_based": True, "task": "hter"}, {"case_aware": True, "beam": 5}):
        got = corpus_score(df, "en", ref_cols=["r1", "r2"], bundle=en_bundle, **opts)
        want = Meteor("en", bundle=en_bundle, **opts).score_corpus(hyps, [first, second])
        _same_corpus(got, want)
    assert any(s.ref_index == 1 for s in got.segments)
    lost = spark.createDataFrame([("a b", None, None)], "hyp string, r1 string, r2 string")
    with pytest.raises(InputError, match=r"row 1 of partition \d+ has no reference"):
        corpus_score(lost, "en", ref_cols=["r1", "r2"], bundle=en_bundle)


def test_another_language(spark: Any, bundle_dir: Path, shared_data: Path) -> None:
    de = bundle_dir / "de.sqlite"
    if not de.is_file():
        pytest.skip(f"needs {de} (make bundles)")
    m = shared_data / "multi30k"
    import gzip

    with gzip.open(m / "val.de.gz", "rt", encoding="utf-8") as f:
        lines = [next(f).rstrip("\n") for _ in range(60)]
    hyps, refs = lines[:30], lines[30:]
    df = spark.createDataFrame(list(zip(hyps, refs)), "hyp string, ref string")
    opts = {"norm": True, "modules": ["exact", "stem"]}  # the official German bundle has no paraphrase table
    _same_corpus(corpus_score(df, "de", ref_cols=["ref"], bundle=de, **opts),
                 Meteor("de", bundle=de, **opts).score_corpus(hyps, [refs]))


# --------------------------------------------------------------------------- the pivot
def _bits(rows: Sequence[Tuple[str, str, float]]) -> List[Tuple[str, str, bytes]]:
    return [(a, b, struct.pack("<d", p)) for a, b, p in rows]


def _engines_agree(spark: Any, pt: str, f: str, e: str, t: str, **kw: Any) -> List[Tuple[str, str, float]]:
    e_side = kw.pop("e_side", "tgt")
    out, stats = {}, {}
    for engine in ("duckdb", "spark"):
        st = PivotStats()
        out[engine] = list(pivot_pairs(pt, f, e, t, PivotOptions(engine=engine, **kw), stats=st, e_side=e_side))
        stats[engine] = {k: v for k, v in st.as_dict().items() if k != "sort_chunks"}
    assert _bits(out["spark"]) == _bits(out["duckdb"])
    assert stats["spark"] == stats["duckdb"]
    return out["spark"]


def test_pivot_generated_table_identical(spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # symbols, common words, non-BMP characters (Java's order), accumulated phrases, shared pivots, tiny probabilities
    from meteor_lite_builders.paraphrases import pivot_spark

    monkeypatch.setattr(pivot_spark, "ROWS_PER_FETCH", 700)  # the output in several range partitions, fetched in turn
    p = generate(tmp_path, 1500, 1)
    out = _engines_agree(spark, p["pt.gz"], p["f.txt"], p["e.txt"], p["target.txt"], min_final_prob=0.0)
    assert len(out) > 1000
    _engines_agree(spark, p["pt.gz"], p["e.txt"], p["f.txt"], p["f.txt"], e_side="src", symbols="xé😀")
    # the same table as Parquet (ln, line), results kept in --spark-dir: the same pairs
    import gzip

    with gzip.open(p["pt.gz"], "rt", encoding="utf-8") as f:
        lines = [(i, line.rstrip("\n")) for i, line in enumerate(f, 1)]
    pq = str(tmp_path / "pt.parquet")
    spark.createDataFrame(lines, "ln long, line string").write.parquet(pq)
    kept = tmp_path / "kept"
    opts = PivotOptions(engine="spark", min_final_prob=0.0, spark_dir=str(kept))
    assert _bits(list(pivot_pairs(pq, p["f.txt"], p["e.txt"], p["target.txt"], opts))) == _bits(out)
    assert [d.name[:13] for d in kept.iterdir()] == ["meteor-pivot-"]


def test_pivot_sums_in_line_order(spark: Any, tmp_path: Path) -> None:
    import gzip

    vals = [((i * 7919) % 1000 + 4) / 997.0 for i in range(400)]
    pt = tmp_path / "pt.gz"
    with gzip.open(pt, "wt", encoding="utf-8") as o:
        for i, v in enumerate(vals):
            o.write(f"f{i} ||| x ||| 1.0 0.5 0.5 0.5 ||| 0-0\nf{i} ||| y ||| 1.0 0.5 {v / 3!r} 0.5 ||| 0-0\n")
    filler = tmp_path / "e.txt"
    filler.write_text("".join(" ".join(f"w{i}x{j}" for j in range(10)) + "\n" for i in range(300)), encoding="utf-8")
    target = tmp_path / "t.txt"
    target.write_text("x y\n", encoding="utf-8")
    out = _engines_agree(spark, str(pt), str(filler), str(filler), str(target))
    total = 0.0
    for v in vals:
        total += (v / 3) * 1.0
    assert dict(((a, b), p) for a, b, p in out)[("x", "y")] == total != sum(sorted(v / 3 for v in vals))


def test_pivot_bad_line_named_as_the_sorter(spark: Any, tmp_path: Path) -> None:
    from meteor_lite_builders.paraphrases.moses import PhraseTableError

    bad = tmp_path / "bad.txt"
    bad.write_text("a ||| x ||| 0.5 0.5 0.5\r\n\r\na |||  ||| 0.5 0.5 0.5\n", encoding="utf-8", newline="")
    e = tmp_path / "e.txt"
    e.write_text("x y\n", encoding="utf-8")
    with pytest.raises(PhraseTableError, match=r"bad.txt:3: empty phrase"):
        list(pivot_pairs(str(bad), str(e), str(e), str(e), PivotOptions(engine="spark")))


def test_executor_without_the_driver_path_opens_the_bundle_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (no Spark needed: the plan's bundle lookup as an executor runs it)
    from meteor_lite import BundleNotFoundError
    from meteor_lite.resources.locate import ENV_BUNDLE_PATH
    from meteor_lite.spark.executor import ScoringPlan
    from tiny_bundles import make_tiny_bundle

    node = tmp_path / "node"
    node.mkdir()
    make_tiny_bundle(node / "tinyname.sqlite")
    plan = ScoringPlan("en", (), str(tmp_path / "driver-only" / "tinyname.sqlite"), None, "tinyname", "sig", 0, (1,))
    monkeypatch.setenv(ENV_BUNDLE_PATH, str(node))
    assert plan.bundle_file() == str(node / "tinyname.sqlite")
    monkeypatch.setenv(ENV_BUNDLE_PATH, str(tmp_path / "elsewhere"))
    with pytest.raises(BundleNotFoundError, match="neither the driver's bundle"):
        plan.bundle_file()


def test_pivot_command_line_engine_spark(spark: Any, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from meteor_lite_builders.cli import app

    p = generate(tmp_path, 400, 3)
    outs = {}
    for engine in ("duckdb", "spark"):
        outs[engine] = tmp_path / f"{engine}.txt"
        r = CliRunner().invoke(app, ["pivot", "-t", p["pt.gz"], "--f-corpus", p["f.txt"], "--e-corpus", p["e.txt"],
                                     "--target", p["target.txt"], "-o", str(outs[engine]), "--format", "parex",
                                     "--engine", engine, "--no-progress"])
        assert r.exit_code == 0, r.output
    assert outs["spark"].read_bytes() == outs["duckdb"].read_bytes() != b""


def test_submit_script(spark: Any, tmp_path: Path, system1: Tuple[List[str], List[str]], en_bundle: Path,
                       capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from meteor_lite.jarcompat import java_double
    from meteor_lite.spark.submit import main

    hyps, refs = (x[:40] for x in system1)
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps({"h": h, "r": r}) + "\n" for h, r in zip(hyps, refs)), encoding="utf-8")
    out = tmp_path / "scored.parquet"
    assert main([str(data), "--input-format", "json", "--hyp-col", "h", "--ref-col", "r", "--norm",
                 "--bundle", str(en_bundle), "--out", str(out)]) == 0
    want = Meteor("en", norm=True, bundle=en_bundle).score_corpus(hyps, [refs])
    assert f"Final score:            {java_double(want.score)}\n" in capsys.readouterr().out
    assert spark.read.parquet(str(out)).count() == 40
    assert main([str(data), "--input-format", "json", "--hyp-col", "h", "--ref-col", "missing"]) == 1
    assert "no column 'missing'" in capsys.readouterr().err


def test_an_executor_python_without_meteor_lite_is_named() -> None:
    """A worker Python that lacks a dependency (PYSPARK_PYTHON not set: Spark's default ``python3``) gives one
    clear line, not Spark's nested traceback (checked on the error text Spark raises; no session needed)."""
    from meteor_lite.errors import ConfigError
    from meteor_lite.spark.scoring import _executor_errors

    spark_text = ("Job aborted due to stage failure: Task 1 in stage 0.0 failed\norg.apache.spark.api.python."
                  "PythonException: Traceback (most recent call last):\n  File \"x.py\", line 66, in stemmer_class\n"
                  "ModuleNotFoundError: No module named 'snowballstemmer'\n\n\tat org.apache.spark.Foo(Foo.java:1)")
    with pytest.raises(ConfigError, match=r"^on an executor: its Python cannot import 'snowballstemmer': .*PYSPARK_PYTHON"):
        with _executor_errors():
            raise RuntimeError(spark_text)
    with pytest.raises(RuntimeError, match="other"):
        with _executor_errors():
            raise RuntimeError("something other")
