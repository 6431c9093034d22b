"""The universal set's pooled search (builders/tune/universal.py) and its shipping as language '*' (meteor_lite/tuned.py)."""

from __future__ import annotations

import gzip
import json
import math
import random
from pathlib import Path

import pytest

from meteor_lite.config import TunedTask
from meteor_lite.metaeval import read_judgments
from meteor_lite.metaeval.correlate import align, statistic
from meteor_lite.metaeval.data import MetricScores
from meteor_lite.stats import Stats, compute

np = pytest.importorskip("numpy", reason="the pooled search needs numpy (the test extra)")

from meteor_lite_builders.tune.universal import PooledSet, StatArrays, bootstrap_gain  # noqa: E402


def _random_stats(rng: random.Random, modules: int) -> Stats:
    tl, rl = rng.randint(0, 30), rng.randint(1, 30)
    tfw, rfw = rng.randint(0, tl), rng.randint(0, rl)
    s = Stats(float(tl), float(rl), float(tfw), float(rfw))
    left_t, left_r = tl, rl
    for _ in range(modules):
        c = rng.randint(0, max(0, min(left_t, left_r)))
        f = rng.randint(0, max(0, min(left_t, left_r) - c))
        s.test_content.append(float(c))
        s.ref_content.append(float(c))
        s.test_function.append(float(f))
        s.ref_function.append(float(f))
        left_t -= c + f
        left_r -= c + f
    matched = sum(s.test_content) + sum(s.test_function)
    s.chunks = float(rng.randint(1, int(matched)) if matched else 0)
    s.test_word_matches = s.ref_word_matches = matched
    return s


def test_vectorised_scores_equal_compute() -> None:
    """StatArrays.scores is Meteor's formula (compute) cell by cell, edge cases included (empty hypothesis,
    perfect match, no match: 0)."""
    rng = random.Random(3)
    stats = [_random_stats(rng, 3) for _ in range(400)]
    stats.append(Stats(0.0, 4.0, 0.0, 1.0, [0.0] * 3, [0.0] * 3, [0.0] * 3, [0.0] * 3))
    stats.append(Stats(3.0, 3.0, 1.0, 1.0, [2.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], 1.0, 3.0, 3.0))
    arrays = StatArrays(stats, ("exact", "stem", "synonym"))
    for params in ([0.75, 1.4, 0.7, 0.5, 1.0, 0.5, 0.5], [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0], [0.0, 3.0, 1.0, 0.0, 1.0, 1.0, 0.2]):
        got = arrays.scores(params[0], params[1], params[2], params[3], params[4:])
        want = [compute(s, params[0], params[1], params[2], params[3], params[4:]).score for s in stats]
        assert got.tolist() == pytest.approx(want, abs=1e-12)
    assert got[-1] == pytest.approx(compute(stats[-1], 0.0, 3.0, 1.0, 0.0, [1.0, 1.0, 0.2]).score) and got[-2] == 0.0


def _grid(rng: random.Random, systems: int, items: int) -> PooledSet:
    stats, sys_of, item_of, gold = [], [], [], []
    for s in range(systems):
        for i in range(items):
            if rng.random() < 0.1:
                continue
            st = _random_stats(rng, 2)
            stats.append(st)
            sys_of.append(s)
            item_of.append(i)
            gold.append(float(-rng.randint(0, 25)) if rng.random() < 0.7 else 0.0)
    arrays = StatArrays(stats, ("exact", "stem"))
    return PooledSet("t", "en", "t", True, [f"s{k}" for k in range(systems)], [str(k) for k in range(items)],
                     np.asarray(sys_of), np.asarray(item_of), np.asarray(gold), arrays, arrays)


def test_figure_is_seg_sys_pearson() -> None:
    """PooledSet.figure equals `meteor-lite correlate`'s seg:sys:pearson on the same cells, and with bootstrap
    weights equals the statistic over the resampled columns (repeats counted)."""
    from meteor_lite.metaeval.data import Judgments

    rng = random.Random(5)
    ps = _grid(rng, 5, 40)
    params = [0.8, 1.0, 0.5, 0.6, 1.0, 0.6]
    scores = ps.baseline_scores(params)
    gold = [[None] * len(ps.items) for _ in ps.systems]
    metric = MetricScores("m", {})
    for k, (s, i) in enumerate(zip(ps.sys_of.tolist(), ps.item_of.tolist())):
        gold[s][i] = float(ps.gold[k])
        metric.segments[(ps.systems[s], ps.items[i])] = float(scores[k])
    j = Judgments(list(ps.systems), list(ps.items), gold, set())
    grid = align(j, metric)
    key = ("seg", "sys", "pearson")
    assert ps.figure(scores) == pytest.approx(statistic(grid, key), abs=1e-9)
    cols = [rng.randrange(len(ps.items)) for _ in ps.items]
    counts = np.bincount(np.asarray(cols), minlength=len(ps.items)).astype(float)[ps.item_of]
    assert ps.figure(scores, counts) == pytest.approx(statistic(grid, key, cols), abs=1e-9)
    ci = bootstrap_gain(ps, scores, scores, 50, 0)
    assert ci["gain"] == (0.0, 0.0) and ci["tuned"][0] <= ps.figure(scores) <= ci["tuned"][1]


def test_universal_set_ships_as_star(tmp_path: Path) -> None:
    """The universal set is written and read back as language '*', name 'default' (a name bundles may not take)."""
    from meteor_lite.config import check_task_name
    from meteor_lite.errors import ConfigError
    from meteor_lite.tuned import read_shipped
    from meteor_lite_builders.errors import InvalidParameterError
    from meteor_lite_builders.tune.tasks import add_shipped

    file = tmp_path / "sets.json"
    task = TunedTask("default", 0.8, 0.5, 0.4, 0.7, ("exact", "stem", "synonym", "paraphrase"), (1.0, 0.6, 0.7, 0.3),
                     {"statistic": "seg:sys:pearson"}, "")
    add_shipped(file, "*", task)
    got = read_shipped(file)["*"]["default"]
    assert got == task and got.name == "default" and got.weights == (1.0, 0.6, 0.7, 0.3)
    with pytest.raises(ConfigError):
        check_task_name("default")
    with pytest.raises(InvalidParameterError, match="is Meteor 1.5's"):
        add_shipped(file, "de", task)
    data = json.loads(file.read_text(encoding="utf-8"))
    assert list(data["languages"]) == ["*"]


def test_judgments_esa_and_reference_rows(tmp_path: Path) -> None:
    """`esa` is a score column; a human 'system' that is the reference itself is left out; an empty doc cell is no
    document."""
    f = tmp_path / "x.esa.tsv.gz"
    rows = ["lp\tdoc\tseg_id\tsystem\thyp\tref\tesa",
            "en-de\t\t1\tA\tein Hund\tder Hund\t70", "en-de\t\t2\tA\tdie Katze\tdie Katze\t100",
            "en-de\t\t1\trefA\tder Hund\tder Hund\t95", "en-de\t\t2\trefA\tdie Katze\tdie Katze\t90",
            "en-de\t\t1\trefB\tein Hund\tder Hund\t60", "en-de\t\t2\trefB\tdie Katze\tdie Katze\t99"]
    with gzip.open(f, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(rows) + "\n")
    j = read_judgments(str(f))
    assert j.systems == ["A", "refB"] and j.reference_systems == ["refA"] and j.docs == {}
    assert j.gold == [[70.0, 100.0], [60.0, 99.0]]
    assert math.isclose(j.gold[1][1], 99.0)


def test_no_fragmentation_penalty_is_written_as_gamma_zero() -> None:
    """β = 0 makes the penalty the constant γ (0⁰ = 1, as Java's Math.pow): correlations cannot see it, so the set is
    written with γ = 0 and a perfect segment scores 1; the figures do not change."""
    from meteor_lite_builders.tune.universal import canonical

    rng = random.Random(2)
    ps = _grid(rng, 4, 30)
    a = [0.4, 0.0, 0.7, 1.0, 1.0, 0.7]
    b = canonical(a)
    assert b == [0.4, 0.0, 0.0, 1.0, 1.0, 0.7] and canonical([0.4, 0.5, 0.7, 1.0]) == [0.4, 0.5, 0.7, 1.0]
    assert ps.figure(ps.baseline_scores(a)) == pytest.approx(ps.figure(ps.baseline_scores(b)), abs=1e-12)
    perfect = Stats(2.0, 2.0, 0.0, 0.0, [2.0], [2.0], [0.0], [0.0], 1.0, 2.0, 2.0)
    assert compute(perfect, 0.4, 0.0, 0.0, 1.0, [1.0]).score == 1.0 and compute(perfect, 0.4, 0.0, 0.7, 1.0, [1.0]).score < 0.31


def test_validity_results_round_trip_and_files(tmp_path: Path) -> None:
    """`check validity --json` results read back for `--merge`; the MQM checks read *.mqm.tsv.gz and *.esa.tsv.gz of
    several directories, sorted by file name."""
    from meteor_lite_builders.checks.research import validity
    from meteor_lite_builders.checks.research.mqm_sets import mqm_files

    r = validity.SetResult("wmt23.en-de.esa", "de", 12, 207, "--norm -m 'exact stem'", cv={"default": 0.3},
                           cv_interval={"default": (0.25, 0.35)}, sys={"default": 0.9}, sys_interval={"default": (0.8, 0.95)},
                           protocol="whole")
    back = validity.from_json(json.loads(json.dumps(validity.as_json([r]))))
    assert back == [r]
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    for p in (a / "x.zh-en.mqm.tsv.gz", b / "w.en-de.esa.tsv.gz", b / "notes.tsv.gz"):
        p.write_bytes(b"")
    assert [(p.name, lang) for p, lang in mqm_files([a, b])] == [("w.en-de.esa.tsv.gz", "de"), ("x.zh-en.mqm.tsv.gz", "en")]


def test_keep_rule_and_fallback_of_the_universal_set(tmp_path: Path, shared_data: Path) -> None:
    """A universal set clearly below chrF where the baseline is not, or below the defaults on the perturbation suite,
    is not kept: Meteor 1.5's li parameters ship instead, the provenance saying why and keeping the rejected values;
    a set where the baseline is clearly below chrF too is not held against it."""
    from meteor_lite.tuned import read_shipped
    from meteor_lite_builders.checks.research.perturbations import SuiteFigures
    from meteor_lite_builders.checks.research.universal import ChrfFigure, UniversalRun, li_parameters, write_default
    from meteor_lite_builders.tune.universal import UNIVERSAL_MODULES

    start = li_parameters("xx", UNIVERSAL_MODULES)
    r = UniversalRun([], [0.5, 0.7, 0.45, 0.9, 1.0, 0.7, 0.2, 1.0], 0.16, [], start[:6], start, 2, 10, 0, 0)
    ok = {"universal": SuiteFigures(0.8, 0.6, 0.7), "default": SuiteFigures(0.7, 0.4, 0.5), "good": "system"}
    r.suite = {"en": ok}
    r.versus_chrf = [ChrfFigure("a", 0.1, 0.2, (-0.2, -0.05), (-0.1, -0.01))]  # the baseline clearly below chrF too
    assert r.kept and r.why_not() == ""
    r.versus_chrf.append(ChrfFigure("b", 0.1, 0.2, (-0.2, -0.05), (-0.1, 0.02)))
    assert not r.kept and "clearly below chrF on b" in r.why_not()
    r.versus_chrf = []
    r.suite = {"en": {**ok, "universal": SuiteFigures(0.6, 0.6, 0.7)}}
    assert not r.kept and "below the default's" in r.why_not()
    r.suite = {"en": {**ok, "universal": SuiteFigures(0.9, 0.8, 1.0)}}
    assert not r.kept and "en: reversed references score 0.800" in r.why_not()
    file = tmp_path / "sets.json"
    write_default(r, [shared_data / "mqm"], file)
    got = read_shipped(file)["*"]["default"]
    assert [got.alpha, got.beta, got.gamma, got.delta, *got.weights] == start
    assert "fallback" in got.provenance and got.provenance["tuned_set_withdrawn"]["gamma"] == 0.45
