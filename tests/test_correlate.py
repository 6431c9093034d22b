"""meteor-lite correlate: statistics against scipy and hand-worked examples; data reading; CLI."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import List

import pytest

from meteor_lite.cli import run
from meteor_lite.metaeval import stats as st
from meteor_lite.metaeval.correlate import align, bootstrap, evaluate, permutation_test
from meteor_lite.metaeval.data import read_judgments, read_metric

scipy_stats = pytest.importorskip("scipy.stats")
pytestmark = pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")


def _vectors(seed: int, n: int, levels: int) -> "tuple[List[float], List[float]]":
    """Random vectors with ties (``levels`` distinct values), correlated a little."""
    rng = random.Random(seed)
    h = [float(rng.randrange(levels)) for _ in range(n)]
    m = [x + rng.randrange(levels) for x in h]
    return h, [float(v) for v in m]


CASES = [(seed, n, levels) for seed in range(6) for n, levels in ((2, 3), (7, 3), (25, 5), (60, 100), (200, 4))]


@pytest.mark.parametrize("seed,n,levels", CASES)
def test_against_scipy(seed: int, n: int, levels: int) -> None:
    h, m = _vectors(seed, n, levels)
    for mine, ref in (
        (st.pearson(h, m), scipy_stats.pearsonr(h, m)[0] if len(set(h)) > 1 and len(set(m)) > 1 else math.nan),
        (st.spearman(h, m), scipy_stats.spearmanr(h, m)[0]),
        (st.kendall(h, m, "b"), scipy_stats.kendalltau(h, m, variant="b")[0]),
        (st.kendall(h, m, "c"), scipy_stats.kendalltau(h, m, variant="c")[0]),
    ):
        if math.isnan(ref):
            assert math.isnan(mine)
        else:
            assert mine == pytest.approx(float(ref), abs=1e-12)


def _brute_counts(h: List[float], m: List[float]) -> "tuple[int, int, int, int, int]":
    c = d = th = tm = thm = 0
    for i in range(len(h)):
        for j in range(i + 1, len(h)):
            dh, dm = h[i] - h[j], m[i] - m[j]
            if dh == 0 and dm == 0:
                thm += 1
            elif dh == 0:
                th += 1
            elif dm == 0:
                tm += 1
            elif (dh > 0) == (dm > 0):
                c += 1
            else:
                d += 1
    return c, d, th, tm, thm


@pytest.mark.parametrize("seed,n,levels", CASES)
def test_kendall_counts_brute_force(seed: int, n: int, levels: int) -> None:
    h, m = _vectors(seed, n, levels)
    assert st.kendall_counts(h, m) == _brute_counts(h, m)


def test_acc23_hand_worked() -> None:
    # human 3 2 2 1, metric 0.9 0.5 0.5 0.6: pairs (1,2) C, (1,3) C, (1,4) C, (2,3) T_hm, (2,4) D, (3,4) D
    h, m = [3, 2, 2, 1], [0.9, 0.5, 0.5, 0.6]
    assert st.kendall_counts(h, m) == (3, 2, 0, 0, 1)
    assert st.kendall(h, m, "acc23") == pytest.approx(4 / 6)
    assert st.kendall(h, m, "23") == pytest.approx((3 + 1 - 2) / 6)
    # Tie calibration: ε = 0.1 ties (2,4) and (3,4) (|Δm| = 0.1): both human-untied -> still wrong;
    # ε = 0.3 also ties (1,4) (0.3): correct -> wrong; so ε = 0 is best, acc 4/6.
    assert st.tie_calibrated([(h, m)])["acc23"] == (pytest.approx(4 / 6), 0.0)


def test_acc_eq_threshold_helps() -> None:
    # human 1 1 2, metric 0.50 0.51 0.9: at ε=0 pair (1,2) is T_h (wrong), (1,3) (2,3) C -> 2/3;
    # with ε = 0.01 the pair (1,2) becomes T_hm (right) -> 3/3; ε = 0.39 would tie (2,3) too.
    h, m = [1.0, 1.0, 2.0], [0.50, 0.51, 0.9]
    value, eps = st.tie_calibrated([(h, m)])["acc23"]
    assert value == pytest.approx(1.0)
    assert eps == pytest.approx(0.01)
    # two rows share one ε; the result is the mean of the rows' accuracies
    h2, m2 = [1.0, 2.0], [0.0, 0.005]  # C at ε=0; tied (wrong) at ε >= 0.005
    # ε = 0: (2/3 + 1) / 2; ε = 0.005: (2/3 + 0) / 2; ε = 0.01: (1 + 0) / 2 -> ε = 0 wins
    assert st.tie_calibrated([(h, m), (h2, m2)])["acc23"] == (pytest.approx(5 / 6), 0.0)


def test_tau23_and_agreement() -> None:
    h, m = [1.0, 2.0, 3.0, 3.0], [1.0, 1.0, 2.0, 3.0]
    # pairs: (1,2) T_m, (1,3) C, (1,4) C, (2,3) C, (2,4) C, (3,4) T_h
    assert st.kendall_counts(h, m) == (4, 0, 1, 1, 0)
    assert st.kendall(h, m, "23") == pytest.approx((4 - 2) / 6)
    assert st.agreement(h, m) == pytest.approx(4 / 6)
    assert st.agreement([1, 1], [2, 2]) == 1.0


def test_ranks_and_nan() -> None:
    assert st.ranks([3, 1, 3, 2]) == [3.5, 1.0, 3.5, 2.0]
    assert math.isnan(st.pearson([1, 1, 1], [1, 2, 3]))
    assert math.isnan(st.kendall([1, 1], [1, 2], "b"))
    assert math.isnan(st.mean_ignoring_nan([math.nan]))


def _write_judgments(path: Path) -> None:
    rng = random.Random(7)
    lines = ["lp\tdoc\tseg_id\tsystem\thyp\tref\tmqm\tn_raters"]
    for seg in range(12):
        for sys_ in ("A", "B", "C", "refA"):
            mqm = "" if (sys_, seg) == ("B", 3) else str(-float(rng.randrange(6)))
            lines.append(f"xx\td\t{seg}\t{sys_}\th {seg} {sys_}\tr {seg}\t{mqm}\t1")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_metric(path: Path, judgments_path: Path) -> None:
    j = read_judgments(str(judgments_path))
    rng = random.Random(3)
    lines = ["system\tseg_id\tscore"]
    for s, name in enumerate(j.systems):
        for i, item in enumerate(j.items):
            g = j.gold[s][i]
            lines.append(f"{name}\t{item}\t{(g or 0) + rng.random() * 4}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_groupings_match_direct_computation(tmp_path: Path) -> None:
    jp, mp = tmp_path / "j.tsv", tmp_path / "m.tsv"
    _write_judgments(jp)
    _write_metric(mp, jp)
    j = read_judgments(str(jp))
    assert j.human_systems == {"refA"}
    data = align(j, read_metric(str(mp), j))
    values, _ = evaluate(data)
    cells = [(g, m) for gr, mr in zip(data.gold, data.metric) for g, m in zip(gr, mr) if g is not None]
    h = [float(g) for g, _ in cells]
    m = [float(x) for _, x in cells]  # type: ignore[arg-type]
    assert values[("seg", "none", "pearson")] == pytest.approx(scipy_stats.pearsonr(h, m)[0], abs=1e-12)
    per_sys = []
    for gr, mr in zip(data.gold, data.metric):
        kept = [(g, x) for g, x in zip(gr, mr) if g is not None]
        per_sys.append(scipy_stats.kendalltau([g for g, _ in kept], [x for _, x in kept])[0])
    assert values[("seg", "sys", "kendall-b")] == pytest.approx(sum(per_sys) / len(per_sys), abs=1e-12)
    no_human = align(j, read_metric(str(mp), j), include_human=False)
    assert no_human.systems == ["A", "B", "C"]


def test_bootstrap_and_permutation_seeded(tmp_path: Path) -> None:
    jp, mp = tmp_path / "j.tsv", tmp_path / "m.tsv"
    _write_judgments(jp)
    _write_metric(mp, jp)
    j = read_judgments(str(jp))
    data = align(j, read_metric(str(mp), j))
    ci = bootstrap(data, samples=30, seed=1)
    assert ci == bootstrap(data, samples=30, seed=1)
    values, _ = evaluate(data)
    lo, hi = ci[("seg", "none", "pearson")]
    assert lo <= values[("seg", "none", "pearson")] <= hi
    p_same = permutation_test(data, data, samples=20, seed=1)
    assert all(p == 1.0 for p in p_same.values())  # identical metrics: every swap ties the observed 0


def test_cli_tsv_and_json_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jp, mp = tmp_path / "j.tsv", tmp_path / "m.tsv"
    _write_judgments(jp)
    _write_metric(mp, jp)
    assert run(["correlate", str(jp), "--split", str(tmp_path / "split")]) == 0
    assert (tmp_path / "split" / "refA.hyp").read_text(encoding="utf-8").splitlines()[0] == "h 0 refA"
    j = read_judgments(str(jp))
    jd = tmp_path / "json"
    jd.mkdir()
    metric = read_metric(str(mp), j)
    for name in j.systems:  # meteor-lite JSON layout: segments in file order, corpus score on top
        segs = [{"score": metric.segments[(name, item)]} for item in j.items]
        (jd / f"{name}.json").write_text(json.dumps({"score": 0.5, "segments": segs}), encoding="utf-8")
    capsys.readouterr()
    assert run(["correlate", str(jp), str(mp), "--compare", str(jd), "--bootstrap", "5",
                "--permutations", "5", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    seg_values = {(r["grouping"], r["statistic"]): r["value"] for r in doc["results"] if r["level"] == "seg"}
    seg_values2 = {(r["grouping"], r["statistic"]): r["value"] for r in doc["results2"] if r["level"] == "seg"}
    assert seg_values == pytest.approx(seg_values2)  # same segment scores
    assert all("p_second_better" in r for r in doc["results2"] if r["level"] == "seg")
    assert run(["correlate", str(jp), str(mp), "--bootstrap", "0", "--exclude-human"]) == 0
    out = capsys.readouterr().out
    assert "3 systems (0 human" in out and "acc-eq" in out


def test_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jp = tmp_path / "j.tsv"
    _write_judgments(jp)
    bad = tmp_path / "m.tsv"
    bad.write_text("system\tseg_id\tscore\nA\t0\t1.0\n", encoding="utf-8")
    assert run(["correlate", str(jp), str(bad), "--bootstrap", "0"]) == 1
    err = capsys.readouterr().err
    assert "no score for system" in err and len(err.strip().splitlines()) == 1
    assert run(["correlate", str(tmp_path / "missing.tsv"), str(bad)]) == 1


def test_duplicate_metric_rows_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two scores for one (system, segment) in the metric file: an error naming the file and both lines."""
    jp, mp = tmp_path / "j.tsv", tmp_path / "m.tsv"
    _write_judgments(jp)
    _write_metric(mp, jp)
    with mp.open("a", encoding="utf-8") as f:
        f.write("B\t3\t0.5\n")  # one row per system (A, B, ...) and segment: B/3 is on line 2 + 12 + 3 = 17
    assert run(["correlate", str(jp), str(mp), "--bootstrap", "0"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == (f"meteor-lite: error: {mp}:{2 + 48}: system 'B' has segment '3' twice (first on line 17)")


def _brute_calibrated(rows: "list[tuple[List[float], List[float]]]", variant: str) -> "tuple[float, float]":
    """Every candidate ε tried directly: |Δm| <= ε is a metric tie; best mean over rows (smallest ε)."""
    eps_all = sorted({0.0} | {abs(m[i] - m[j]) for _, m in rows for i in range(len(m)) for j in range(i + 1, len(m))})
    best = (-math.inf, 0.0)
    for eps in eps_all:
        vals = []
        for h, m in rows:
            right = total = 0
            for i in range(len(h)):
                for j in range(i + 1, len(h)):
                    dh, dm = h[i] - h[j], m[i] - m[j]
                    tie_m = abs(dm) <= eps
                    right += (dh == 0 and tie_m) or (dh != 0 and not tie_m and (dh > 0) == (dm > 0))
                    total += 1
            vals.append(right / total if variant == "acc23" else (2 * right - total) / total)
        value = sum(vals) / len(vals)
        if value > best[0] + 1e-12:
            best = (value, eps)
    return best


@pytest.mark.parametrize("seed", range(8))
def test_tie_calibration_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    rows = []
    for _ in range(3):
        h, m = _vectors(rng.randrange(1000), rng.randrange(2, 12), 4)
        rows.append((h, [x / 4 + rng.choice((0.0, 0.01, 0.02)) for x in m]))
    got = st.tie_calibrated(rows)
    for variant in ("acc23", "23"):
        value, eps = _brute_calibrated(rows, variant)
        assert got[variant][0] == pytest.approx(value, abs=1e-9)
        assert got[variant][1] == pytest.approx(eps)
