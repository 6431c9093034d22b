"""meteor-build tune: the trainer's search and cross-validation on synthetic statistics (fast)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from meteor_lite.metaeval.correlate import parse_key
from meteor_lite.metaeval.data import MetricScores, read_judgments
from meteor_lite.stats import Stats, compute

trainer = pytest.importorskip("meteor_lite_builders.tune.trainer")

DEFAULT = [0.85, 0.2, 0.6, 0.75, 1.0, 0.6]
TARGET = [0.3, 1.0, 0.4, 0.5, 1.0, 0.2]  # the parameters the synthetic judgments follow


def _stats(rng: random.Random) -> Stats:
    tl, rl = rng.randrange(8, 30), rng.randrange(8, 30)
    tf, rf = tl // 3, rl // 3
    m1 = rng.randrange(0, min(tl, rl) // 2 + 1)
    m2 = rng.randrange(0, min(tl, rl) - m1 + 1)
    f1 = min(m1, tf, rf) // 2
    return Stats(tl, rl, tf, rf, [m1 - f1, m2], [m1 - f1, m2], [f1, 0], [f1, 0],
                 max(1, (m1 + m2) // 3), m1 + m2, m1 + m2)


def _data(tmp_path: Path) -> "tuple[object, MetricScores]":
    rng = random.Random(5)
    lines = ["system\tseg_id\tmqm"]
    metric = MetricScores("syn", {}, signature="w:1,0.6|a:0.85|b:0.2|g:0.6|d:0.75")
    for sys_ in ("A", "B", "C", "D"):
        for seg in range(24):
            st = _stats(rng)
            gold = compute(st, *TARGET[:4], TARGET[4:]).score + rng.gauss(0, 0.02)
            lines.append(f"{sys_}\t{seg}\t{gold}")
            metric.stats[(sys_, str(seg))] = st.to_dict()
            metric.segments[(sys_, str(seg))] = compute(st, *DEFAULT[:4], DEFAULT[4:]).score
    (tmp_path / "j.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return read_judgments(str(tmp_path / "j.tsv")), metric


def test_search_improves_and_cross_validates(tmp_path: Path) -> None:
    judgments, metric = _data(tmp_path)
    key = parse_key("seg:none:pearson")
    r = trainer.tune(judgments, trainer.json_cells(metric), DEFAULT, key, cv="items", folds=2, rounds=2, samples=50)
    assert r.chosen[4] == 1.0 and len(r.chosen) == len(DEFAULT)
    assert r.train_value > r.default_value + 0.01
    assert r.heldout_value is not None and len(r.folds) == 2
    lo, hi = r.gain_interval
    assert lo <= hi and r.gain_supported == (lo > 0)
    # judgments follow TARGET almost exactly: the held-out gain is real here
    assert r.gain_supported


def test_no_cv_and_systems_cv(tmp_path: Path) -> None:
    judgments, metric = _data(tmp_path)
    r = trainer.tune(judgments, trainer.json_cells(metric), DEFAULT, parse_key("seg:sys:kendall-b"), cv="none", rounds=1)
    assert r.heldout_value is None and r.train_value >= r.default_value
    r = trainer.tune(judgments, trainer.json_cells(metric), DEFAULT, parse_key("sys:pearson"), cv="systems", rounds=1, samples=20)
    assert len(r.folds) == 4


def test_parse_key() -> None:
    assert parse_key("sys:pairwise-acc") == ("sys", "-", "pairwise-acc")
    assert parse_key("seg:item:acc-eq") == ("seg", "item", "acc-eq")
    with pytest.raises(ValueError):
        parse_key("seg:rows:pearson")


def test_cli(tmp_path: Path) -> None:
    typer_testing = pytest.importorskip("typer.testing")
    from meteor_lite_builders.cli import app

    judgments, metric = _data(tmp_path)
    out = tmp_path / "json"
    out.mkdir()
    for sys_ in ("A", "B", "C", "D"):
        segs = [{"score": metric.segments[(sys_, str(i))], "stats": metric.stats[(sys_, str(i))]} for i in range(24)]
        doc = {"score": 0.5, "signature": metric.signature, "segments": segs}
        (out / f"{sys_}.json").write_text(json.dumps(doc), encoding="utf-8")
    res = typer_testing.CliRunner().invoke(app, ["tune", str(tmp_path / "j.tsv"), str(out), "--cv", "none", "--rounds", "1"])
    assert res.exit_code == 0, res.output
    assert "chosen (all data)" in res.output


# -- in-process alignment: every reference's statistics, module sets, --into ---------------------------------

alignment = pytest.importorskip("meteor_lite_builders.tune.alignment")

HYP = "the cat sat on the mat"
REF_A = "the cat sat on the"  # one chunk, lower precision
REF_B = "on the mat the cat sat"  # every word, two chunks
RECALL_NO_FRAG = [0.9, 0.2, 0.0, 0.75, 1.0]  # B is best
FRAG = [0.1, 0.2, 1.0, 0.75, 1.0]  # A is best


def _two_ref_judgments(tmp_path: Path) -> Path:
    """Three systems, a few segments, two reference columns; gold from a fixed random draw."""
    rng = random.Random(3)
    hyps = [HYP, "a big car", "the large automobile sat", "get rid of the mouse", "a lot of mice on the mat", "car"]
    refs = [(REF_A, REF_B), ("a large car", "the big automobile"), ("the big car sat", "a car sat"),
            ("remove the mouse", "get rid of mice"), ("many mice on a mat", "a lot of mice"), ("auto", "the car")]
    lines = ["system\tseg_id\thyp\tref_a\tref_b\tmqm"]
    for s in ("S1", "S2", "S3"):
        for i, (h, (a, b)) in enumerate(zip(hyps, refs)):
            words = h.split()
            hyp = " ".join(words[: len(words) - (s == "S2")]) if s != "S1" else h
            lines.append(f"{s}\t{i}\t{hyp or h}\t{a}\t{b}\t{-rng.random() * 5:.3f}")
    path = tmp_path / "j2.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_every_reference_kept_and_best_chosen_per_candidate(tmp_path: Path, tiny_bundle: Path) -> None:
    from meteor_lite import Meteor

    j = read_judgments(str(_two_ref_judgments(tmp_path)))
    assert j.refs["S1"][0] == [REF_A, REF_B]
    ms = alignment.align_module_set(j, "en", ["exact"], bundle=str(tiny_bundle), norm=False)
    assert all(len(v) == 2 for v in ms.cells.values()) and len(ms.cells) == 18
    scorer = trainer.GridScorer(j, ms.cells, True)
    chosen = []
    for params in (RECALL_NO_FRAG, FRAG):
        m = Meteor("en", params=params[:4], modules=["exact"], weights=params[4:], bundle=str(tiny_bundle), quiet=True)
        seg = m.score_segment(HYP, [REF_A, REF_B])
        chosen.append(seg.ref_index)
        data = scorer.data(params)
        s1 = data.systems.index("S1")
        assert data.metric[s1][0] == seg.score  # the best reference under *these* parameters, as Meteor picks it
        rows = j.refs["S1"]
        hyps = [h for h, _ in j.texts["S1"]]
        corpus = m.score_corpus(hyps, [[r[0] for r in rows], [r[1] for r in rows]], layout="streams")
        assert data.system_score(list(range(len(j.items))))[s1] == pytest.approx(corpus.score, abs=1e-12)
    assert chosen == [1, 0]  # which reference is best depends on the parameters


def test_first_of_equal_references_wins() -> None:
    a, b = Stats(2, 3, 0, 0, [0], [0], [0], [0], 0, 0, 0), Stats(2, 5, 0, 0, [0], [0], [0], [0], 0, 0, 0)
    assert trainer._best([a, b], 0.85, 0.2, 0.6, 0.75, [1.0])[1] is a  # the jar: ref_length 3 (-r 2 -ssOut)
    assert trainer._best([b, a], 0.85, 0.2, 0.6, 0.75, [1.0])[1] is b


def test_module_sets_are_searched(tmp_path: Path, tiny_bundle: Path) -> None:
    j = read_judgments(str(_two_ref_judgments(tmp_path)))
    sets = alignment.parse_module_sets("exact; exact synonym;")
    assert sets == [("exact",), ("exact", "synonym")]
    aligned = [alignment.align_module_set(j, "en", m, bundle=str(tiny_bundle), norm=False) for m in sets]
    assert aligned[0].cells != aligned[1].cells  # another alignment per module set
    base = aligned[1]
    r = trainer.tune_modules(j, [(a.modules, a.default, a.cells) for a in aligned], (base.default, base.cells, base.modules),
                             parse_key("seg:none:pearson"), cv="items", folds=2, rounds=1, samples=20)
    assert [m for m, _ in r.sets] == sets and r.modules == sets[r.chosen]
    assert r.overall.train_value == max(rep.train_value for _, rep in r.sets)
    assert r.overall.heldout_value is not None and len(r.overall.folds) == 2
    r = trainer.tune_modules(j, [(a.modules, a.default, a.cells) for a in aligned], (base.default, base.cells, base.modules),
                             parse_key("sys:pearson"), cv="systems", rounds=1, samples=20)
    assert len(r.overall.folds) == 3 and r.overall.heldout_value is not None  # one system left out per fold
    with pytest.raises(Exception, match="unknown module"):
        alignment.parse_module_sets("exact; exact fuzzy")


def test_cli_into_bundle_then_score_with_task(tmp_path: Path, tiny_bundle: Path) -> None:
    typer_testing = pytest.importorskip("typer.testing")
    from meteor_lite import Meteor
    from meteor_lite.config import read_tuned_tasks
    from meteor_lite.resources.bundle import Bundle
    from meteor_lite_builders.cli import app

    j = _two_ref_judgments(tmp_path)
    args = ["tune", str(j), "--bundle", str(tiny_bundle), "--no-norm", "-M", "exact; exact synonym", "--cv", "items",
            "-k", "2", "--rounds", "1", "--bootstrap", "20", "--into", str(tiny_bundle), "--name", "syn-test"]
    res = typer_testing.CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "held-out (items cross-validation, module set chosen in each fold)" in res.output
    with Bundle.open(tiny_bundle) as b:
        assert b.verify() == []
        task = read_tuned_tasks(b.meta["tasks"])["syn-test"]
    prov = task.provenance
    assert prov["judgments"][0]["file"] == "j2.tsv" and prov["statistic"] == "seg:sys:pearson"
    assert prov["heldout"]["cv"] == "items, 2 folds" and len(prov["heldout"]["interval"]) == 2
    assert prov["modules_searched"] == ["exact", "exact synonym"] and prov["meteor_lite_version"]
    m = Meteor("en", task="syn-test", bundle=str(tiny_bundle), quiet=True)
    assert m.config.modules == task.modules and f"task:syn-test@{task.short_hash}" in m.signature
    again = typer_testing.CliRunner().invoke(app, args)
    assert again.exit_code == 1 and "already has a task 'syn-test'" in again.output
    bad = typer_testing.CliRunner().invoke(app, args[:-1] + ["rank"])
    assert bad.exit_code == 1 and "Meteor 1.5's" in bad.output


def test_cli_baseline_modules_and_option_errors(tmp_path: Path, empty_bundle: Path) -> None:
    typer_testing = pytest.importorskip("typer.testing")
    from meteor_lite_builders.cli import app

    j = str(_two_ref_judgments(tmp_path))
    run = typer_testing.CliRunner().invoke
    args = ["tune", j, "--bundle", str(empty_bundle), "-M", "exact", "--cv", "none", "--rounds", "1"]
    res = run(app, args)  # English's default modules need synonyms and paraphrases: the bundle has none, so the
    assert res.exit_code == 0, res.output  # untuned baseline is what the language scores with here: exact stem
    assert "default (exact stem)" in res.output
    res = run(app, args + ["--baseline-modules", "exact"])
    assert res.exit_code == 0, res.output
    assert "default (exact)" in res.output and "chosen (all data): -m 'exact'" in res.output
    assert run(app, args + ["--into", str(empty_bundle)]).exit_code != 0  # --into needs --name
    res = run(app, ["tune", j, str(tmp_path), "-M", "exact"])
    assert res.exit_code != 0 and "in-process" in res.output


def test_refcheck(tmp_path: Path, tiny_bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from meteor_lite_builders.tune import refcheck

    j = str(_two_ref_judgments(tmp_path))
    code = refcheck.main([j, "en", "--no-norm", "--bundle", str(tiny_bundle), "--systems", "S1,S3",
                          "--params", " ".join(str(x) for x in FRAG + [0.6, 0.8, 0.6])])
    out = capsys.readouterr().out
    assert code == 0 and "max |difference| 0.00e+00" in out and "S2" not in out
    assert "best reference differs" in out and "of 12 several-reference segments" in out


def test_search_keeps_the_fragmentation_penalty_on() -> None:
    """An objective that pays for switching the fragmentation penalty off (β = 0, γ = 0) still gets β and γ inside
    their ranges, and a start outside them is brought inside; the lowest γ at the highest β keeps a reversed
    sentence of distinct words (fragmentation 1, so 1 - γ) and a reversed reference whose repeated words leave
    frag^β at 0.75 (the worst language of the shared references) below 0.75."""
    lo_b, hi_b = trainer.BETA_RANGE
    lo_g, hi_g = trainer.GAMMA_RANGE
    assert 0 < lo_b < hi_b and 0 < lo_g < hi_g <= 1
    assert 1 - lo_g < 0.75 and 1 - lo_g * 0.75 < 0.75

    def objective(p: "list[float]") -> float:
        return -(p[1] ** 2) - p[2] ** 2

    params, _ = trainer.coordinate_search(objective, [0.8, 0.0, 0.0, 0.5, 1.0], 3, lambda: None)
    assert params[1] == pytest.approx(lo_b) and params[2] == pytest.approx(lo_g)
    params, _ = trainer.coordinate_search(lambda p: p[1] + p[2], [0.8, 2.5, 0.2, 0.5, 1.0], 2, lambda: None)
    assert params[1] == pytest.approx(hi_b) and params[2] == pytest.approx(hi_g)
