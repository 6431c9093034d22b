"""The benchmark harness (``meteor-build check bench``): its segments, stdio client, table, plot and command line.

The figures themselves are not tested (they depend on the machine); one ``java``
test runs the harness end to end on tiny inputs against the jar.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict

import pytest
from typer.testing import CliRunner

from meteor_lite_builders.checks.bench import BenchOptions, extras, rates, run_bench, scaling, system1, table_rows
from meteor_lite_builders.checks.bench.options import parse_lengths, parse_list
from meteor_lite_builders.checks.bench.segments import SegmentMaker, reference_vocabulary, zipf_cumulative
from meteor_lite_builders.checks.bench.session import RequestTimeout, ServerDied, StdioSession
from meteor_lite_builders.checks.bench.table import Row, all_met, fmt, render
from meteor_lite_builders.checks.cli import app as check_app

runner = CliRunner()

VOCAB = ["the", "of", "cat", "cats", "sat", "mat", "house", "dog", "runs", "red", "blue", "green", "tree"]


# -- synthetic segments ------------------------------------------------------------------------


def test_vocabulary_is_ranked_by_frequency(tmp_path: Path) -> None:
    f = tmp_path / "ref"
    f.write_text("The cat sat on the mat .\nthe dog , 42 cats\n", encoding="utf-8")
    assert reference_vocabulary(f) == ["the", "cat", "cats", "dog", "mat", "on", "sat"]
    (tmp_path / "empty").write_text(". , 42\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no alphabetic words"):
        reference_vocabulary(tmp_path / "empty")


def test_zipf_weights_fall_with_rank() -> None:
    cum = zipf_cumulative(4)
    steps = [cum[0]] + [b - a for a, b in zip(cum, cum[1:])]
    assert steps == pytest.approx([1, 1 / 2, 1 / 3, 1 / 4])


def test_segments_are_deterministic_and_non_trivial() -> None:
    maker = SegmentMaker(VOCAB, seed=13)
    ref, hyp = maker.pair(500, 0)
    assert (ref, hyp) == SegmentMaker(VOCAB, seed=13).pair(500, 0)
    assert (ref, hyp) != maker.pair(500, 1) and (ref, hyp) != SegmentMaker(VOCAB, seed=14).pair(500, 0)
    words = ref.split()
    assert len(words) == 500 and set(words) <= set(VOCAB)
    assert words.count("the") > words.count("tree")  # Zipf: the first word is the most frequent
    hyp_words = hyp.split()
    assert hyp_words != words and 400 < len(hyp_words) < 600
    assert any(w.endswith("s") and w[:-1] in VOCAB for w in hyp_words if w not in VOCAB)  # inflected words


# -- options and the table ---------------------------------------------------------------------


def test_option_lists() -> None:
    assert parse_list("stdio, api", ("stdio", "api", "pivot"), "section(s)") == ("stdio", "api")
    with pytest.raises(ValueError, match="unknown section"):
        parse_list("stdio,bogus", ("stdio",), "section(s)")
    assert parse_lengths("500,100,100") == (100, 500)
    for bad in ("100,x", "0", ""):
        with pytest.raises(ValueError, match="--lengths"):
            parse_lengths(bad)


def test_rows_judge_ratios_against_goals() -> None:
    faster = Row("wall", "s", jar=10.0, lite=1.5, goal=("<=", 0.2))
    slower = Row("wall", "s", jar=10.0, lite=3.0, goal=("<=", 0.2))
    rate = Row("rate", "req/s", jar=100.0, lite=600.0, goal=(">=", 5))
    own = Row("import", "s", lite=45.0, goal=("<=", 30), absolute=True)
    missing = Row("pivot", "s", note="no pivot_bench function")
    assert (faster.ratio, faster.ok, slower.ok, rate.ok, own.ok, missing.ok) == (0.15, True, False, True, False, None)
    assert not all_met([faster, slower]) and all_met([faster, rate, missing])
    text = render([faster, slower, rate, own, missing])
    assert "| wall | s | 10.0 | 1.50 | 0.15× | ≤ 0.2× | PASS |" in text
    assert "| rate | req/s | 100 | 600 | 6× | ≥ 5× | PASS |" in text
    assert "| import | s | n/a | 45.0 |  | ≤ 30 s | FAIL |" in text
    assert "- pivot: no pivot_bench function" in text
    assert (fmt(None), fmt(300.0, ">300"), fmt(0.0123)) == ("n/a", ">300", "0.0123")


def test_system1_rows_show_the_one_thread_run() -> None:
    """The system1 rows: --jobs 1 against its goal, the same in one thread (no goal) and its memory, pure Python."""
    def fig(wall: float, mib: float) -> Dict[str, float]:
        return {"wall_s": wall, "memory_mib": mib}

    med = {"jar": fig(8.0, 1000.0), "meteor-lite -j1": fig(0.3, 75.0), "one thread -j1": fig(0.34, 72.0),
           "meteor-lite": fig(0.3, 75.0), "pure -j1": fig(2.0, 90.0), "pure": fig(2.0, 90.0)}
    section = {"median": med, "repeat": 3, "kernels": "meteor-lite 0.1.0 (compiled kernels)"}
    named = {r.name: r for r in system1.rows(section)}
    assert named["system1 wall, --jobs 1 (median of 3)"].ok is True  # 0.0375x <= 0.05x
    one = named["system1 wall, --jobs 1, one thread (METEOR_LITE_ONE_THREAD=1)"]
    assert (one.lite, one.ok, one.ratio) == (0.34, None, 0.34 / 8.0)
    assert named["system1 peak memory, --jobs 1, one thread"].lite == 72.0
    assert named["system1 wall, --jobs 1, pure Python"].ok is False  # 0.25x > 0.2x
    del med["one thread -j1"]  # a bench.json of before the one-thread run
    assert not any("one thread" in r.name for r in system1.rows(section))


def _scaling_result(jar_5k: Dict[str, Any]) -> Dict[str, Any]:
    per = {"jar": {2000: {"median_s": 4.0, "status": "ok"}, 5000: jar_5k},
           "meteor-lite": {2000: {"median_s": 0.5, "status": "ok"}, 5000: {"median_s": 20.0, "status": "ok"}}}
    return {"lengths": [2000, 5000], "segments_per_length": 1, "timeout_s": 300.0,
            "modules": {"exact-stem": {t: {"per_length": v} for t, v in per.items()}}}


def test_scaling_rows_report_a_timeout_as_a_bound() -> None:
    r2k, r5k = scaling.rows(_scaling_result({"median_s": None, "status": "timeout"}))
    assert (r2k.ratio, r2k.ok) == (0.125, True)
    assert r5k.jar_text == ">300" and r5k.ratio == pytest.approx(20 / 300) and "upper bound" in r5k.note
    not_run = scaling.rows(_scaling_result({"median_s": None, "status": "not run"}))[1]
    assert not_run.jar is None and not_run.ok is None
    short = _scaling_result({"median_s": None, "status": "not run"})
    short["lengths"] = [2000, 3000]
    assert [(r.name, r.ok) for r in scaling.rows(short)] == [("2,000-token segment, exact+stem", True)]
    short["lengths"] = [100, 1000]
    [longest] = scaling.rows(short)
    assert longest.name == "1,000-token segment, exact+stem" and longest.goal is None


def test_scaling_needs_a_length_within_max_tokens(tmp_path: Path) -> None:
    (tmp_path / "meteor-example").mkdir()
    (tmp_path / "meteor-example" / "reference").write_text("the cat sat\n", encoding="utf-8")
    opts = BenchOptions(data=tmp_path, lengths=(100, 200), max_tokens=50, scaling_segments=2)
    assert scaling.run_scaling(opts) == {"error": "no segment length up to --max-tokens 50 (lengths: 100, 200)"}
    opts.max_tokens = 100
    assert [(n, i, len(ref.split())) for n, i, ref, _ in scaling.make_pairs(opts)] == [(100, 0, 100), (100, 1, 100)]


def test_plot_is_drawn(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the plot needs the bench extra (matplotlib)")
    from meteor_lite_builders.checks.bench.plot import series, write_plot

    res = _scaling_result({"median_s": None, "status": "timeout"})
    assert series(res, "exact-stem", "jar") == ([(2000, 4.0)], [5000])
    out = write_plot(res, tmp_path / "img" / "plot.png")
    assert out is not None and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert list((tmp_path / "img").iterdir()) == [out]  # no temporary file left


def test_rate_rows_compare_answers() -> None:
    same = rates._compare(["a", "b"], ["a", "b"])
    diff = rates._compare(["a", "b"], ["a", "c"])
    assert same["different_lines"] == 0 and diff["first_difference"] == {"line": 2, "jar": "b", "meteor-lite": "c"}
    ulp = rates._compare(["0.377130186310757", "x"], ["0.3771301863107571", "x"])  # 2 ulps: the jar's Math.pow
    assert (ulp["different_lines"], ulp["ulp_lines"]) == (1, 1) and "in the last place apart" in rates._agreement(ulp)
    far = rates._compare(["0.377130186310757"], ["0.37713018631075"])
    assert far["ulp_lines"] == 0 and "1 of 1 answer lines differ" in rates._agreement(far)
    assert rates._latency_ms([]) is None
    assert rates._latency_ms([0.001 * i for i in range(1, 101)]) == pytest.approx({"median": 50.5, "p95": 96.0, "max": 100.0})
    stdio = {"jar": {"requests_per_s": 100.0, "first_answer_s": 10.0, "score_requests": 1000, "latency_ms": {"median": 9.5}},
             "meteor-lite": {"requests_per_s": 450.0, "first_answer_s": 0.2, "score_requests": 1000,
                             "latency_ms": {"median": 2.25}}, "comparison": diff}
    rows = rates.rows(stdio, {"calls_per_s": 600.0, "construct_s": 0.1, "first_call_s": 0.2})
    assert [r.ok for r in rows] == [False, None, True]
    assert "1 of 2 answer lines differ" in rows[0].note and "1,000-request" in rows[0].name
    assert rows[0].note.endswith("median latency 9.50 ms (jar), 2.25 ms (meteor-lite)")


def test_nbest_transcript_groups_each_reference_s_outputs(shared_data: Path) -> None:
    """--transcript nbest: runs of the 20 systems' outputs of one source against one reference, as an n-best list."""
    pairs = rates.transcript_pairs(BenchOptions(data=shared_data, requests=60, transcript="nbest"))
    assert len(pairs) == 60
    refs = [r for _, r in pairs]
    assert [len(set(refs[i : i + 20])) for i in range(0, 60, 20)] == [1, 1, 1] and len(set(refs)) == 3
    assert len({h for h, _ in pairs[:20]}) > 10  # the systems' outputs differ
    system1 = rates.transcript_pairs(BenchOptions(data=shared_data, requests=60))
    assert len(set(r for _, r in system1)) > 50  # the goal's transcript: new sentence pairs
    with pytest.raises(rates.BenchError, match="fewer than --requests"):
        rates.transcript_pairs(BenchOptions(data=shared_data, requests=10**6, transcript="nbest"))
    stdio = {"transcript": "nbest", "jar": {"score_requests": 60}, "meteor-lite": {}}
    assert "60-request nbest transcript" in rates.rows(stdio, None)[0].name


def test_mbr_transcript_is_each_output_against_each(shared_data: Path) -> None:
    """--transcript mbr: whole groups of the 20 outputs of one source, every output against every output, in
    score_matrix's order (row by row), as many groups as --requests needs."""
    a = BenchOptions(data=shared_data, requests=500, transcript="mbr")
    groups = rates.mbr_groups(a)
    pairs = rates.transcript_pairs(a)
    assert len(groups) == 2 and all(len(g) == 20 for g in groups) and len(pairs) == 800
    assert pairs[:20] == [(groups[0][0], r) for r in groups[0]] and pairs[400] == (groups[1][0], groups[1][0])
    api = {"calls_per_s": 1.0, "construct_s": 0.1, "first_call_s": 0.2, "matrix": {"groups": 2, "pairs_per_s": 5000.0},
           "matrix_one_thread": {"groups": 2, "pairs_per_s": 3000.0}, "usable_cpus": 2,
           "preload": {"construct_s": 1.5, "calls_per_s": 700.0, "batch": {"pairs_per_s": 900.0}}}
    rows = rates.rows({"jar": {"requests_per_s": 100.0}}, api)
    named = {r.name: r for r in rows}
    assert named["API score_matrix pairs/s, 2 MBR groups of 20 (jar: stdio req/s)"].ok is True
    assert "second thread" in named["API score_matrix pairs/s, 2 MBR groups of 20 (jar: stdio req/s)"].note
    assert named["API score_matrix pairs/s, one thread (METEOR_LITE_ONE_THREAD=1)"].lite == 3000.0
    assert named["API score_segment calls/s, preload=True (jar: stdio req/s)"].ok is True
    assert named["API score_pairs pairs/s, preload=True (jar: stdio req/s)"].ok is False
    assert "built in 1.50 s" in named["API score_segment calls/s, preload=True (jar: stdio req/s)"].note


def test_pivot_rows_without_the_pivot_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "PIVOT_MODULES", ("meteor_lite_builders.no_such_module",))
    res = extras.run_pivot(BenchOptions(), 1000)
    [row] = extras.pivot_rows(res)
    assert row.lite_text == "n/a" and "no pivot_bench function" in row.note
    fake = {"lines": 10_000_000, "duckdb": {"wall_s": 500.0, "peak_rss_mb": 2500.0, "pairs": 7}, "sort": {"error": "x"}}
    wall, mem, sort_wall, _ = extras.pivot_rows(fake)
    assert (wall.ok, mem.ok, sort_wall.ok, sort_wall.note) == (True, False, None, "x")
    same: Dict[str, Any] = {"lines": 1000, "duckdb": {"wall_s": 1.0, "pairs": 7, "sha256": "ab"}, "sort": {"wall_s": 2.0, "pairs": 7, "sha256": "ab"}}
    assert extras.pivot_rows(same)[0].note == "7 paraphrase pairs; both engines wrote the same bytes"
    same["sort"]["sha256"] = "cd"
    assert "OUTPUTS DIFFER" in extras.pivot_rows(same)[2].note and extras.pivot_rows(same)[0].goal is None


# -- the stdio client --------------------------------------------------------------------------

_ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line.upper()); sys.stdout.write('done\\n'); sys.stdout.flush()\n"


def test_session_times_requests(tmp_path: Path) -> None:
    with StdioSession([sys.executable, "-c", _ECHO], tmp_path / "err") as s:
        answers, seconds = s.request("score ||| a ||| b", 2, timeout=30)
        assert answers == ["SCORE ||| A ||| B", "done"] and seconds > 0
        assert s.close() == 0


def test_session_timeout_and_death(tmp_path: Path) -> None:
    with StdioSession([sys.executable, "-c", "import time; time.sleep(60)"], tmp_path / "err") as s:
        with pytest.raises(RequestTimeout, match="within 0.3 s"):
            s.request("SCORE ||| a ||| b", 1, timeout=0.3)
        assert s.proc.poll() is not None
    with StdioSession([sys.executable, "-c", "import sys; sys.exit('bad request')"], tmp_path / "err2") as s:
        with pytest.raises(ServerDied, match="bad request"):
            s.request("SCORE ||| a ||| b", 1, timeout=30)


# -- the command -------------------------------------------------------------------------------


def test_bench_usage_errors() -> None:
    r = runner.invoke(check_app, ["bench", "--only", "system1,bogus"])
    assert r.exit_code == 2 and "unknown section(s): bogus" in r.output
    r = runner.invoke(check_app, ["bench", "--lengths", "100,abc"])
    assert r.exit_code == 2 and "not a list of integers" in r.output


@pytest.mark.java
@pytest.mark.slow
def test_bench_end_to_end_against_the_jar(tmp_path: Path, shared_data: Path, en_bundle: Path) -> None:
    opts = BenchOptions(data=shared_data, out=tmp_path, only=("scaling", "stdio", "api"), lengths=(30, 60),
                        scaling_segments=1, scaling_modules=("exact-stem",), requests=5, plot=None)
    assert run_bench(opts) == 0
    report = json.loads((tmp_path / "bench.json").read_text(encoding="utf-8"))
    results = report["results"]
    assert results["scaling"]["modules"]["exact-stem"]["different_answers"] == []
    assert results["stdio"]["comparison"]["different_lines"] == 0 and results["stdio"]["comparison"]["lines"] == 11
    assert results["stdio"]["comparison_pure"]["different_lines"] == 0 and results["stdio"]["comparison_pure"]["lines"] == 11
    assert results["stdio"]["comparison_preload"]["different_lines"] == 0 and results["stdio"]["comparison_preload"]["lines"] == 11
    assert results["api"]["comparison_with_jar"]["different_lines"] == 0
    assert [r.name for r in table_rows(results)] == [  # 60 tokens, the longest run, stands in for 2,000 and 5,000
        "60-token segment, exact+stem", "stdio SCORE requests/s (5-request transcript)", "stdio time to first answer (start-up)",
        "stdio SCORE requests/s, pure Python", "stdio SCORE requests/s, METEOR_LITE_PRELOAD=1",
        "API score_segment calls/s (jar: stdio req/s)",
        "API score_pairs pairs/s, 4 pairs in one call (jar: stdio req/s)",
        "API score_pairs pairs/s, one thread (METEOR_LITE_ONE_THREAD=1)",
        "API score_segment calls/s, preload=True (jar: stdio req/s)", "API score_pairs pairs/s, preload=True (jar: stdio req/s)"]
    assert results["api"]["batch"]["comparison_with_jar"]["different_lines"] == 0
    assert results["api"]["batch_one_thread"]["comparison_with_jar"]["different_lines"] == 0
    assert results["api"]["preload"]["comparison_with_jar"]["different_lines"] == 0
    assert results["api"]["preload"]["batch"]["comparison_with_jar"]["different_lines"] == 0
