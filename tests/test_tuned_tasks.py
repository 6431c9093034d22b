"""Tuned parameter sets carried by a bundle: written atomically, checksummed, chosen with --task, named in the signature."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from meteor_lite import Meteor
from meteor_lite.config import TunedTask, read_tuned_tasks, resolve_config
from meteor_lite.errors import ConfigError, MeteorLiteError
from meteor_lite.resources.bundle import Bundle

tasks = pytest.importorskip("meteor_lite_builders.tune.tasks")

HYP = "the big car sat on a mat"
REF = "a large automobile sat on the mat"
PROV = {"statistic": "seg:sys:pearson", "judgments": [{"file": "j.tsv", "sha256": "00"}], "heldout": {"value": 0.2}}


def _task(name: str = "mqm", provenance_date: str = "", **kw: object) -> TunedTask:
    values = dict(alpha=0.5, beta=1.5, gamma=0.4, delta=0.9, modules=("exact", "synonym"), weights=(1.0, 0.7))
    values.update(kw)
    prov = {**PROV, "date": provenance_date} if provenance_date else PROV
    return TunedTask(name, provenance=prov, **values)  # type: ignore[arg-type]


def test_add_task_recomputes_checksum_and_verifies(tiny_bundle: Path) -> None:
    before = Bundle.open(tiny_bundle)
    old = before.checksum
    before.close()
    new = tasks.add_task(tiny_bundle, _task())
    with Bundle.open(tiny_bundle) as b:
        assert b.checksum == new != old
        assert b.verify() == []  # the checksum covers the sets: recomputed truthfully
        stored = read_tuned_tasks(b.meta["tasks"])
    assert stored["mqm"] == _task() and stored["mqm"].provenance == PROV
    # a hand edit of the parameters is caught by the content checksum
    conn = sqlite3.connect(str(tiny_bundle))
    data = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'tasks'").fetchone()[0])
    data["mqm"]["alpha"] = 0.6
    conn.execute("UPDATE meta SET value = ? WHERE key = 'tasks'", (json.dumps(data),))
    conn.commit()
    conn.close()
    with Bundle.open(tiny_bundle) as b:
        assert any("checksum mismatch" in p for p in b.verify())


def test_the_date_of_a_run_is_outside_the_checksum(tiny_bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same set tuned on two days seals the same content checksum (run-time facts such as the date
    are kept under meta `tasks_run`, which the checksum leaves out); the date is still read back and shown, and
    an edit of the content (not of the date) is still caught."""
    from meteor_lite.cli import run

    monday = _task(provenance_date="2026-11-23T10:00:00Z")
    tuesday = _task(provenance_date="2026-11-24T18:30:00Z")
    first = tasks.add_task(tiny_bundle, monday)
    second = tasks.add_task(tiny_bundle, tuesday, replace=True)
    assert first == second
    assert tasks.bundle_tasks(tiny_bundle)["mqm"].provenance["date"] == "2026-11-24T18:30:00Z"
    with Bundle.open(tiny_bundle) as b:
        assert "date" not in json.loads(b.meta["tasks"])["mqm"]["provenance"]
        assert json.loads(b.meta["tasks_run"]) == {"mqm": {"date": "2026-11-24T18:30:00Z"}}
        assert b.verify() == []
    assert run(["bundle", "info", str(tiny_bundle)]) == 0
    assert "date: 2026-11-24T18:30:00Z" in capsys.readouterr().out
    # another parameter value is another checksum (the date alone is not)
    assert tasks.add_task(tiny_bundle, _task(alpha=0.6, provenance_date="2026-11-24T18:30:00Z"), replace=True) != first
    tasks.remove_task(tiny_bundle, "mqm")
    with Bundle.open(tiny_bundle) as b:
        assert "tasks_run" not in b.meta and "tasks" not in b.meta


def test_remove_task_restores_the_original_checksum(tiny_bundle: Path) -> None:
    with Bundle.open(tiny_bundle) as b:
        old = b.checksum
    tasks.add_task(tiny_bundle, _task())
    tasks.add_task(tiny_bundle, _task("other", alpha=0.7))
    assert sorted(tasks.bundle_tasks(tiny_bundle)) == ["mqm", "other"]
    tasks.remove_task(tiny_bundle, "other")
    assert tasks.remove_task(tiny_bundle, "mqm") == old


def test_cli_remove_task(tiny_bundle: Path) -> None:
    """`meteor-build remove-task BUNDLE NAME`: the set is gone and the checksum back; an unknown name exits 1."""
    from typer.testing import CliRunner

    from meteor_lite_builders.cli import app

    with Bundle.open(tiny_bundle) as b:
        old = b.checksum
    tasks.add_task(tiny_bundle, _task())
    r = CliRunner().invoke(app, ["remove-task", str(tiny_bundle), "mqm"])
    assert r.exit_code == 0 and f"removed task mqm from {tiny_bundle}" in r.output
    assert tasks.bundle_tasks(tiny_bundle) == {}
    with Bundle.open(tiny_bundle) as b:
        assert b.checksum == old and b.verify() == []
    r = CliRunner().invoke(app, ["remove-task", str(tiny_bundle), "mqm"])
    assert r.exit_code == 1 and "has no task 'mqm' (its tasks: none)" in r.output


def test_add_task_refuses(tiny_bundle: Path) -> None:
    tasks.add_task(tiny_bundle, _task())
    with pytest.raises(MeteorLiteError, match="already has a task 'mqm'"):
        tasks.add_task(tiny_bundle, _task(alpha=0.1))
    assert tasks.bundle_tasks(tiny_bundle)["mqm"].alpha == 0.5
    tasks.add_task(tiny_bundle, _task(alpha=0.1), replace=True)
    assert tasks.bundle_tasks(tiny_bundle)["mqm"].alpha == 0.1
    with pytest.raises(MeteorLiteError, match="Meteor 1.5's"):
        tasks.add_task(tiny_bundle, _task("rank"))
    with pytest.raises(MeteorLiteError, match="lower-case"):
        tasks.add_task(tiny_bundle, _task("a|b"))
    with pytest.raises(MeteorLiteError, match="alpha"):
        tasks.add_task(tiny_bundle, _task("bad", alpha=2.0))
    with pytest.raises(MeteorLiteError, match="no task 'nope'"):
        tasks.remove_task(tiny_bundle, "nope")


def test_damaged_bundle_is_not_given_a_new_checksum(tiny_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METEOR_LITE_CACHE_DIR", str(tmp_path / "cache"))  # nothing remembered as verified
    conn = sqlite3.connect(str(tiny_bundle))
    conn.execute("INSERT INTO function_words VALUES ('zzz')")
    conn.commit()
    conn.close()
    size = tiny_bundle.stat().st_size
    with pytest.raises(MeteorLiteError, match="damaged or was changed"):
        tasks.add_task(tiny_bundle, _task())
    assert tiny_bundle.stat().st_size == size and not list(tmp_path.glob(".tiny.sqlite.*.tmp"))


def test_score_with_task_and_signature(tiny_bundle: Path) -> None:
    task = _task()
    tasks.add_task(tiny_bundle, task)
    tuned = Meteor("en", task="mqm", bundle=str(tiny_bundle), quiet=True)
    explicit = Meteor("en", params=(0.5, 1.5, 0.4, 0.9), modules=["exact", "synonym"], weights=[1.0, 0.7],
                      bundle=str(tiny_bundle), quiet=True)
    assert tuned.score_segment(HYP, [REF]).score == explicit.score_segment(HYP, [REF]).score
    sig = tuned.signature
    assert f"|task:mqm@{task.short_hash}|" in sig and "|mods:exact+syn|w:1,0.7|a:0.5|b:1.5|g:0.4|d:0.9|" in sig
    assert tuned.config.task_description == "Tuned (mqm)"
    # the hash names the parameters: another set gives another hash, provenance does not count
    assert _task(alpha=0.6).short_hash != task.short_hash
    assert TunedTask("mqm", 0.5, 1.5, 0.4, 0.9, ("exact", "synonym"), (1.0, 0.7)).short_hash == task.short_hash


def test_meteor_names_win_and_unknown_tasks_are_named(tiny_bundle: Path) -> None:
    tasks.add_task(tiny_bundle, _task())
    tasks.add_task(tiny_bundle, _task("zh-en.v1"))
    rank = Meteor("en", task="rank", modules=["exact"], bundle=str(tiny_bundle), quiet=True)
    assert "|task:custom|" in rank.signature  # Meteor's own task, untouched by the bundle's sets
    with pytest.raises(ConfigError, match=r"unknown task 'nope' .*rank, adq.*tuned tasks of bundle .*: mqm, zh-en.v1"):
        Meteor("en", task="nope", bundle=str(tiny_bundle), quiet=True)
    with pytest.raises(ConfigError, match="fixes alpha beta gamma delta"):
        Meteor("en", task="mqm", params=(0.1, 1, 0.1, 0.1), bundle=str(tiny_bundle), quiet=True)


def test_unknown_task_without_tuned_sets(empty_bundle: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown task 'nope' .*carries no tuned tasks"):
        Meteor("en", task="nope", bundle=str(empty_bundle), modules=["exact"], quiet=True)
    pending = resolve_config("en", task="nope")
    assert pending.pending_task
    with pytest.raises(ConfigError, match="unknown task 'nope'"):
        pending.task_description  # noqa: B018 - the jar's header asks for it before any bundle is open


def test_module_without_resources(empty_bundle: Path) -> None:
    tasks.add_task(empty_bundle, _task())
    with pytest.raises(MeteorLiteError, match="synonym"):
        Meteor("en", task="mqm", bundle=str(empty_bundle), quiet=True)


def test_cli_score_task_and_bundle_info(tiny_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from meteor_lite.cli import run as main

    task = _task()
    tasks.add_task(tiny_bundle, task)
    (tmp_path / "h.txt").write_text(HYP + "\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text(REF + "\n", encoding="utf-8")
    code = main(["score", str(tmp_path / "h.txt"), str(tmp_path / "r.txt"), "--bundle", str(tiny_bundle),
                 "--task", "mqm", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and f"task:mqm@{task.short_hash}" in out["signature"]
    main(["bundle", "info", str(tiny_bundle)])
    text = capsys.readouterr().out
    assert f"mqm@{task.short_hash}: -p '0.5 1.5 0.4 0.9' -m 'exact synonym' -w '1 0.7'" in text
    assert "statistic: seg:sys:pearson" in text
    main(["bundle", "info", str(tiny_bundle), "--json"])
    info = json.loads(capsys.readouterr().out)
    assert info["tasks"]["mqm"]["hash"] == task.short_hash


def test_bad_tasks_json_is_named() -> None:
    with pytest.raises(ConfigError, match="not JSON"):
        read_tuned_tasks("{", "bundle x")
    with pytest.raises(ConfigError, match="bundle x: task 'a' has 1 weights for 2 modules"):
        read_tuned_tasks(json.dumps({"a": {"alpha": 0.5, "beta": 1, "gamma": 0.5, "delta": 0.5,
                                           "modules": ["exact", "stem"], "weights": [1]}}), "bundle x")


def test_note_when_normalised_otherwise_than_tuned(tiny_bundle: Path) -> None:
    prov = dict(PROV, aligned_with="meteor-lite|lang:en|norm|task:custom|mods:exact+syn")
    tasks.add_task(tiny_bundle, TunedTask("mqm", 0.5, 1.5, 0.4, 0.9, ("exact", "synonym"), (1.0, 0.7), prov))
    plain = Meteor("en", task="mqm", bundle=str(tiny_bundle), quiet=True)
    assert any("tuned on text normalised as 'norm'" in w and "'none'" in w for w in plain.warnings)
    normed = Meteor("en", task="mqm", bundle=str(tiny_bundle), norm=True, quiet=True)
    assert not any("normalised" in w for w in normed.warnings)
