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
    r = trainer.tune(judgments, metric, DEFAULT, key, cv="items", folds=2, rounds=2, samples=50)
    assert r.chosen[4] == 1.0 and len(r.chosen) == len(DEFAULT)
    assert r.train_value > r.default_value + 0.01
    assert r.heldout_value is not None and len(r.folds) == 2
    lo, hi = r.gain_interval
    assert lo <= hi and r.gain_supported == (lo > 0)
    # judgments follow TARGET almost exactly: the held-out gain is real here
    assert r.gain_supported


def test_no_cv_and_systems_cv(tmp_path: Path) -> None:
    judgments, metric = _data(tmp_path)
    r = trainer.tune(judgments, metric, DEFAULT, parse_key("seg:sys:kendall-b"), cv="none", rounds=1)
    assert r.heldout_value is None and r.train_value >= r.default_value
    r = trainer.tune(judgments, metric, DEFAULT, parse_key("sys:pearson"), cv="systems", rounds=1, samples=20)
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
