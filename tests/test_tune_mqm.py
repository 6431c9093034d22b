"""Each language's `mqm` set tuned on all of its sets from cached statistics (builders/checks/research/tune_mqm.py, `make tune-mqm`)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, List

import pytest

from meteor_lite import tuned
from meteor_lite.metaeval import read_judgments
from meteor_lite.metaeval.data import merge_judgments

np = pytest.importorskip("numpy", reason="the search needs numpy (the test extra)")

from meteor_lite_builders.checks.research import tune_mqm  # noqa: E402
from meteor_lite_builders.tune.trainer import column_folds  # noqa: E402

#: two small English sets of two domains (documents in both)
FILES = ("biomed2021.es-en.dev.mqm.tsv.gz", "biomed2021.fr-en.dev.mqm.tsv.gz")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The statistics' cache of this module's searches (a scratch directory)."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def run(shared_data: Path, cache: Path) -> tune_mqm.LangRun:
    """The search on two small English sets (cached statistics in a scratch directory)."""
    if not (Path(__file__).resolve().parents[1] / "resources" / "bundles" / "en.sqlite").is_file():
        pytest.skip("needs resources/bundles/en.sqlite (make bundles)")
    files = [shared_data / "mqm" / f for f in FILES]
    return tune_mqm.tune_language("en", files, cache, k=3, seed=0, rounds=1, samples=30, suite_data=shared_data, suite_items=60)


def test_fold_maps_are_the_merged_files_document_folds(shared_data: Path) -> None:
    """The folds are those of the merged files (as `tune --add --cv documents` makes them): documents whole."""
    parts = [(f.split(".mqm")[0], read_judgments(str(shared_data / "mqm" / f))) for f in FILES]
    maps = tune_mqm.fold_maps(parts, "documents", 3, 0)
    merged = merge_judgments(parts)
    expected = {merged.items[c]: f for f, cols in enumerate(column_folds("documents", merged.items, merged.docs, 3, 0)) for c in cols}
    for label, j in parts:
        assert set(maps[label]) == set(j.items)
        by_doc: dict = {}
        for item, f in maps[label].items():
            assert expected[f"{label}/{item}"] == f
            by_doc.setdefault(j.docs[item], set()).add(f)
        assert all(len(fs) == 1 for fs in by_doc.values())


def test_search_and_figures(run: tune_mqm.LangRun) -> None:
    """The search starts at the default (the configuration `--norm` with the default modules is searched), so on the
    data it was tuned on it is at least the default; figures are correlations inside their intervals; every set is
    left out once."""
    default_cfg = ("norm", run.default_modules, "")
    assert default_cfg in run.configs
    train = [s for s in run.sets if s.train]
    default_value = math.fsum(s.figure(s.default_scores()) for s in train) / len(train)
    assert run.final.value >= default_value - 1e-12
    assert run.final.values[run.final.cfg] == run.final.value == max(run.final.values.values())
    assert run.final.params[3] <= tune_mqm.MAX_DELTA and len(run.folds) == 3
    for f in [*run.cv_by_set, run.cv_pooled, *run.loso]:
        for value, (lo, hi) in ((f.value, f.interval), (f.default, f.default_interval)):
            assert -1 <= lo <= hi <= 1 and -1 <= value <= 1
        assert f.gain_interval[0] <= f.gain_interval[1]
    assert sorted(f.name for f in run.loso) == sorted(s.name for s in run.sets)
    for f in run.loso:
        assert f.trained_on == [s.name for s in run.sets if s.name != f.name]


def test_numpy_scores_are_meteors(run: tune_mqm.LangRun, shared_data: Path) -> None:
    """The statistics re-scored with numpy give the scorer's own segment scores (default configuration)."""
    from meteor_lite_builders.checks.research.mqm_sets import default_meteor

    s = run.sets[0]
    m, _ = default_meteor("en")
    j = s.judgments
    scores = s.default_scores()
    system = s.systems[int(s.sys_of[0])]
    rows = [n for n in range(s.cells) if s.systems[int(s.sys_of[n])] == system][:20]
    by_item = {j.items[i]: n for n, i in enumerate(j.order[system])}
    for n in rows:
        hyp, ref = j.texts[system][by_item[s.items[int(s.item_of[n])]]]
        assert abs(m.score_segment(hyp, [ref]).score - float(scores[n])) < 1e-9


def _write(run: tune_mqm.LangRun, path: Path) -> Any:
    from meteor_lite_builders.tune.tasks import add_shipped

    task = tune_mqm.shipped_task(run)
    add_shipped(str(path), "en", task, replace=True)
    tuned._cached.cache_clear()
    return task


def test_rule_falls_back_to_the_default(run: tune_mqm.LangRun, shipped_file: Path) -> None:
    """A set whose held-out gain does not hold is not shipped: the default configuration is, saying why and keeping
    the rejected values."""
    saved = run.cv_pooled.gain_interval
    run.cv_pooled.gain_interval = (-0.01, 0.05)
    try:
        assert not run.kept and "does not hold" in run.why_not()
        task = _write(run, shipped_file)
    finally:
        run.cv_pooled.gain_interval = saved
    d = run.default_params
    assert (task.alpha, task.beta, task.gamma, task.delta, task.modules, task.norm) == (d[0], d[1], d[2], d[3], run.default_modules, "norm")
    prov = json.loads(shipped_file.read_text(encoding="utf-8"))["languages"]["en"]["mqm"]["provenance"]
    assert "fallback" in prov and prov["tuned_set_withdrawn"]["modules"] == list(run.final.cfg[1])


def test_rule_keeps_a_set_and_validity_rebuilds_its_folds(run: tune_mqm.LangRun, shipped_file: Path, shared_data: Path,
                                                           tmp_path: Path) -> None:
    """A kept set ships with its recorded folds; `check validity` rebuilds each segment's held-out score from them
    (the fold's normalisation, modules, parameters, scored by the scorer) and gets each file's recorded figure."""
    pytest.importorskip("sacrebleu")
    from meteor_lite_builders.checks.research import validity

    saved, saved_loso, saved_chrf, saved_suite = run.cv_pooled.gain_interval, run.loso, run.versus_chrf, run.suite
    run.cv_pooled.gain_interval, run.loso, run.versus_chrf, run.suite = (0.01, 0.05), [], [], {}
    try:
        assert run.kept
        task = _write(run, shipped_file)
    finally:
        run.cv_pooled.gain_interval, run.loso, run.versus_chrf, run.suite = saved, saved_loso, saved_chrf, saved_suite
    assert (task.modules, task.norm) == (run.final.cfg[1], run.final.cfg[0])
    d = tmp_path / "mqm"
    d.mkdir()
    for f in FILES:
        (d / f).symlink_to(shared_data / "mqm" / f)
    results = validity.validity(d, samples=5, seed=0)
    recorded: List[float] = []
    for r in results:
        assert r.mqm_note == "" and r.recorded is not None
        assert abs((r.cv["mqm (cv)"] or 0.0) - r.recorded) <= 5e-7
        assert abs((r.cv["default"] or 0.0) - next(f.default for f in run.cv_by_set if f.name == r.name)) <= 1e-9
        recorded.append(r.recorded)
    assert len(recorded) == 2


def test_validity_scores_a_measured_only_set_by_its_left_out_configuration(run: tune_mqm.LangRun, shipped_file: Path,
                                                                          shared_data: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A file the kept set was not tuned on but whose segments it saw (as wmt23.en-de.esa): `check validity` scores it
    with the configuration searched without it (provenance `leave_one_set_out`) and gets the figure recorded there."""
    pytest.importorskip("sacrebleu")
    from meteor_lite_builders.checks.research import validity
    from meteor_lite_builders.tune.tasks import add_shipped

    monkeypatch.setattr(tune_mqm.LangRun, "kept", property(lambda self: True))  # whatever the small sets' verdicts
    task = tune_mqm.shipped_task(run)
    assert "fallback" not in task.provenance
    measured = FILES[1].split(".mqm")[0]
    task.provenance["judgments"] = [j for j in task.provenance["judgments"] if not j["file"].startswith(measured)]
    left_out = task.provenance["leave_one_set_out"][measured]
    add_shipped(str(shipped_file), "en", task, replace=True)
    tuned._cached.cache_clear()
    d = tmp_path / "mqm"
    d.mkdir()
    for f in FILES:
        (d / f).symlink_to(shared_data / "mqm" / f)
    (r,) = validity.validity(d, samples=5, seed=0, only=[measured])
    assert r.protocol == "whole" and "leave one set out" in r.mqm_note
    assert r.recorded == left_out["value"] and abs((r.cv["mqm (cv)"] or 0.0) - left_out["value"]) <= 5e-7


def test_search_stays_where_the_fragmentation_penalty_is_on(run: tune_mqm.LangRun) -> None:
    """Every searched set (the final one, each fold's, each left-out one) has α, β and γ inside the search space
    (precision weighs, the penalty is on), whatever each configuration's objective would prefer outside it."""
    from meteor_lite_builders.tune.trainer import BETA_RANGE, GAMMA_RANGE

    lo, hi = tune_mqm.ALPHA_RANGE
    for ch in [run.final, *run.folds, *(f.choice for f in run.loso if f.choice is not None)]:
        assert BETA_RANGE[0] <= ch.params[1] <= BETA_RANGE[1] and GAMMA_RANGE[0] <= ch.params[2] <= GAMMA_RANGE[1]
        assert lo <= ch.params[0] <= hi
    objective = tune_mqm._objective([s for s in run.sets if s.train], [None, None], run.final.cfg)
    assert objective([1.0, *run.final.params[1:]]) == -math.inf  # recall alone: outside the space
    assert objective(list(run.final.params)) == pytest.approx(run.final.value)


def test_words_and_characters_are_both_searched(run: tune_mqm.LangRun) -> None:
    """Every module set is searched over words and over characters (-ch); a set over characters scores as the
    scorer does with --ch, and the report and provenance name the unit."""
    from meteor_lite import Meteor

    assert {c for c in run.configs if c[2] == "char"} == {(c[0], c[1], "char") for c in run.configs if c[2] == ""}
    cfg = ("norm", ("exact", "stem"), "char")
    s = run.sets[0]
    params = [0.7, 1.0, 0.5, 0.6, 1.0, 0.6]
    m = tune_mqm.tuned_meteor("en", cfg, params)
    assert "|ch|" in m.signature
    system = s.systems[int(s.sys_of[0])]
    by_item = {s.judgments.items[i]: n for n, i in enumerate(s.judgments.order[system])}
    hyp, ref = s.judgments.texts[system][by_item[s.items[int(s.item_of[0])]]]
    assert abs(float(s.scores(cfg, params)[0]) - m.score_segment(hyp, [ref]).score) < 1e-9
    words = Meteor("en", norm=True, modules=["exact", "stem"], params=params[:4], weights=params[4:], quiet=True)
    assert float(s.scores(("norm", ("exact", "stem"), ""), params)[0]) == pytest.approx(words.score_segment(hyp, [ref]).score)
    assert "--ch" in tune_mqm._opts(cfg, params) and "--ch" not in tune_mqm._opts(("norm", cfg[1], ""), params)
    assert tune_mqm.provenance(run)["units_searched"] == ["word", "char"]


def test_rule_checks_chrf_and_the_perturbation_suite(run: tune_mqm.LangRun) -> None:
    """The set is compared with chrF on every set and run through the perturbation suite beside the default; a set
    clearly below chrF, or below the default's perturbation accuracy, is not kept, the reason named."""
    from meteor_lite_builders.checks.research.perturbations import SuiteFigures

    assert {f.name for f in run.versus_chrf} == {s.name for s in run.sets}
    assert all(-1.0 <= f.default <= 1.0 for f in run.versus_chrf)
    t, d = run.suite["tuned"], run.suite["default"]
    assert 0.0 <= t.accuracy <= 1.0 and 0.0 <= d.accuracy <= 1.0
    assert t.word_order_ok  # the search space keeps the fragmentation penalty on
    saved_gain, saved_loso, saved_chrf, saved_suite = run.cv_pooled.gain_interval, run.loso, run.versus_chrf, run.suite
    run.cv_pooled.gain_interval, run.loso = (0.01, 0.05), []
    try:
        run.versus_chrf, run.suite = [], {"tuned": SuiteFigures(0.5, 0.6, 0.9), "default": SuiteFigures(0.8, 0.4, 0.5)}
        assert not run.kept and "perturbation accuracy is below the default's" in run.why_not()
        run.suite = {"tuned": SuiteFigures(0.9, 0.8, 1.0), "default": SuiteFigures(0.8, 0.4, 0.5)}
        assert not run.kept and "reversed references score 0.800" in run.why_not()
        run.suite = {}
        worse = tune_mqm.SetFigures("x", 2, 10, 0.1, 0.3, (0.0, 0.2), (0.2, 0.4), (-0.3, -0.1))
        run.versus_chrf = [worse]
        assert not run.kept and "clearly below chrF on x" in run.why_not()
    finally:
        run.cv_pooled.gain_interval, run.loso, run.versus_chrf, run.suite = saved_gain, saved_loso, saved_chrf, saved_suite


def test_near_weight_bound() -> None:
    """near's weight is searched at most at NEAR_MAX_WEIGHT and at most stem's where the set has stem."""
    ok = tune_mqm.near_weight_ok
    assert ok(("exact", "stem"), [0.5, 1, 0.5, 0.5, 1.0, 0.9])  # no near: anything
    assert ok(("exact", "near"), [0.5, 1, 0.5, 0.5, 1.0, tune_mqm.NEAR_MAX_WEIGHT])
    assert not ok(("exact", "near"), [0.5, 1, 0.5, 0.5, 1.0, tune_mqm.NEAR_MAX_WEIGHT + 0.1])
    assert ok(("exact", "stem", "near"), [0.5, 1, 0.5, 0.5, 1.0, 0.3, 0.3])
    assert not ok(("exact", "stem", "near"), [0.5, 1, 0.5, 0.5, 1.0, 0.3, 0.4])


def test_near_is_searched_within_its_bound(run: tune_mqm.LangRun) -> None:
    """Every English module set is searched with near beside it too, and every choice that has near keeps its weight
    within the bound."""
    mods = {c[1] for c in run.configs}
    assert all(m + ("near",) in mods for m in mods if "near" not in m)
    assert set(run.final.values) == set(run.configs)
    for ch in [run.final, *run.folds, *(f.choice for f in run.loso if f.choice is not None)]:
        assert tune_mqm.near_weight_ok(ch.cfg[1], ch.params)


@pytest.mark.parametrize("dimension", ["near", "case", "char"])
def test_dimension_gain(run: tune_mqm.LangRun, shared_data: Path, cache: Path, dimension: str) -> None:
    """Each half of a dimension searched as the tuner does: the halves' choices have / lack it, each set's difference
    is with minus without, the mean is over sets, near's share is a share; case-aware and characters: Meteor 1.5's
    configuration with the dimension beside it, its figure without the tuner's default, and the language's row the
    mean of the sets' figures."""
    from meteor_lite_builders.checks.research import dimension_gain as dg

    files = [shared_data / "mqm" / f for f in FILES]
    r = dg.dimension_language("en", files, cache, dimension, rounds=1, samples=30, suite_items=0)
    has = dg.DIMENSIONS[dimension]
    assert r.final_with is not None and r.final_without is not None
    assert has(r.final_with.cfg) and not has(r.final_without.cfg)
    assert all(has(c) for c in r.with_cfgs) and not any(has(c) for c in r.without_cfgs)
    assert sorted(x.name for x in r.sets) == sorted(s.name for s in run.sets)
    assert r.pooled is not None
    assert abs(r.pooled.difference - math.fsum(x.difference for x in r.sets) / len(r.sets)) < 1e-12
    for x in r.sets:
        assert x.interval[0] <= x.interval[1] and -2 <= x.difference <= 2
        if dimension == "near":
            assert 0 <= x.near_words <= x.matched_words and 0 <= x.near_segments <= x.segments
        else:
            assert x.default == next(f.default for f in run.cv_by_set if f.name == x.name)
            assert -1 <= x.default_with <= 1
    if dimension == "near":
        assert r.pooled.near_words > 0  # typos and variants on two biomedical sets
    else:
        assert r.pooled.default_with == pytest.approx(math.fsum(x.default_with for x in r.sets) / len(r.sets))
        assert r.pooled.default == pytest.approx(run.cv_pooled.default)
        lo, hi = r.pooled.default_interval
        assert lo <= hi
    text = dg.format_markdown([r])
    if dimension != "near":  # the language's row shows Meteor 1.5's configuration with the dimension and without
        assert f"{r.pooled.default_with:.3f}, {r.pooled.default:.3f}, [{lo:+.3f}, {hi:+.3f}]" in text
    assert all(x.name in text for x in r.sets)


def test_cache_keeps_every_modules_numbers(shared_data: Path, tmp_path: Path) -> None:
    """Five modules (near after paraphrase) do not fit the jar's 23 numbers: the cache keeps all of them, so the
    statistics read back are those aligned."""
    from meteor_lite import Meteor
    from meteor_lite_builders.tune.statcache import align_cached

    if not (Path(__file__).resolve().parents[1] / "resources" / "bundles" / "en.sqlite").is_file():
        pytest.skip("needs resources/bundles/en.sqlite (make bundles)")
    path = shared_data / "mqm" / FILES[0]
    j = read_judgments(str(path))
    mods = ("exact", "stem", "synonym", "paraphrase", "near")
    m = Meteor("en", modules=list(mods), norm=True, quiet=True)
    fresh = align_cached(j, path, "en", None, mods, tmp_path, lambda s: None, meteor=m)
    cached = align_cached(j, path, "en", None, mods, tmp_path, lambda s: None, meteor=m)
    assert fresh.keys() == cached.keys()
    assert all(fresh[k][0].to_dict() == cached[k][0].to_dict() for k in fresh)
    assert any(st[0].test_content[4] > 0 for st in fresh.values())  # near matched something


def test_dimension_gain_command_refuses_a_language_without_sets(shared_data: Path, tmp_path: Path) -> None:
    """``meteor-build check dimension-gain`` names the language and directories it found no judged set of, and exits 1
    instead of printing empty tables."""
    from typer.testing import CliRunner

    from meteor_lite_builders.checks.cli import app as check_app

    r = CliRunner().invoke(check_app, ["dimension-gain", "--lang", "xx", "--data", str(shared_data / "mqm"),
                                       "--cache", str(tmp_path / "cache"), "--suite-items", "0"])
    assert r.exit_code == 1
    assert "no judged set of 'xx'" in r.output and "| set |" not in r.output
