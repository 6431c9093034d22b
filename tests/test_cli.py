"""End-to-end tests of the meteor-lite command line, run in-process (Typer's CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from meteor_lite.cli import app
from tiny_bundles import make_tiny_bundle

runner = CliRunner()


@pytest.fixture()
def files(tmp_path: Path):
    bundle = make_tiny_bundle(tmp_path / "en.sqlite")
    hyp = tmp_path / "hyp.txt"
    ref = tmp_path / "ref.txt"
    ref2 = tmp_path / "ref2.txt"
    hyp.write_text("the big car is here\nwe get rid of it\n\n", encoding="utf-8")
    ref.write_text("the large automobile is here\nwe remove it\nsomething\n", encoding="utf-8")
    ref2.write_text("a big car is here\nwe get rid of it\nsomething\n", encoding="utf-8")
    return tmp_path, bundle, hyp, ref, ref2


def run(*args: str):
    return runner.invoke(app, list(args))


def test_text_report_layout(files) -> None:
    _, bundle, hyp, ref, _ = files
    r = run("score", str(hyp), str(ref), "--bundle", str(bundle), "--lower")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith("Meteor version: 1.5")
    seg = [l for l in lines if l.startswith("Segment ")]
    assert [l.split("\t")[0] for l in seg] == ["Segment 1 score:", "Segment 2 score:", "Segment 3 score:"]
    assert seg[2].split("\t")[1] == "0.0"  # empty hypothesis line
    assert any(l.startswith("Signature:      meteor-lite|lang:en|lower|") for l in lines)
    final = [l for l in lines if l.startswith("Final score:")]
    assert len(final) == 1 and 0.0 < float(final[0].split()[-1]) < 1.0
    assert "Stage      Content  Function    Total" in r.stdout


def test_json_and_quiet_agree(files) -> None:
    _, bundle, hyp, ref, ref2 = files
    j = run("score", str(hyp), str(ref), str(ref2), "--bundle", str(bundle), "--lower", "--format", "json")
    assert j.exit_code == 0, j.output
    data = json.loads(j.stdout)
    assert len(data["segments"]) == 3 and "stats" in data["segments"][0]
    assert data["segments"][1]["score"] == 1.0  # second reference stream is identical
    q = run("score", str(hyp), str(ref), str(ref2), "--bundle", str(bundle), "--lower", "-q")
    assert q.exit_code == 0
    assert float(q.stdout.strip()) == pytest.approx(data["score"], abs=0, rel=1e-15)


def test_interleaved_references(files, tmp_path: Path) -> None:
    _, bundle, hyp, ref, ref2 = files
    inter = tmp_path / "inter.txt"
    a = ref.read_text().splitlines()
    b = ref2.read_text().splitlines()
    inter.write_text("".join(f"{x}\n{y}\n" for x, y in zip(a, b)))
    one = run("score", str(hyp), str(inter), "-r", "2", "--bundle", str(bundle), "-q")
    two = run("score", str(hyp), str(ref), str(ref2), "--bundle", str(bundle), "-q")
    assert one.exit_code == 0 and one.stdout == two.stdout


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--lang", "xx-unknown"], "unknown language"),
        (["--lang", "de", "--task", "adq"], "no parameters"),
        (["--task", "bogus"], "unknown task"),
        (["--modules", "exact telepathy"], "unknown module"),
        (["--params", "0.5 x"], "--params"),
    ],
)
def test_bad_options(files, extra, needle) -> None:
    _, bundle, hyp, ref, _ = files
    r = run("score", str(hyp), str(ref), "--bundle", str(bundle), *extra)
    assert r.exit_code != 0
    assert needle in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_length_mismatch_names_file(files, tmp_path: Path) -> None:
    _, bundle, hyp, _, _ = files
    short = tmp_path / "short.txt"
    short.write_text("one line\n")
    r = run("score", str(hyp), str(short), "--bundle", str(bundle))
    assert r.exit_code == 1
    assert "short.txt: 1 lines, but the hypothesis file has 3" in r.stderr


def test_invalid_utf8_names_line(files, tmp_path: Path) -> None:
    _, bundle, _, ref, _ = files
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nalso fine\nbro\xffken\n")
    r = run("score", str(bad), str(ref), "--bundle", str(bundle))
    assert r.exit_code == 1
    assert "bad.txt:3: invalid UTF-8" in r.stderr


def test_bundle_errors(files, tmp_path: Path) -> None:
    _, _, hyp, ref, _ = files
    missing = run("score", str(hyp), str(ref), "--bundle", str(tmp_path / "nope.sqlite"))
    assert missing.exit_code == 1 and "bundle not found" in missing.stderr
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"\x00garbage" * 100)
    corrupt = run("score", str(hyp), str(ref), "--bundle", str(junk))
    assert corrupt.exit_code == 1 and "junk.sqlite" in corrupt.stderr


def test_bundle_info_and_verify(files) -> None:
    _, bundle, _, _, _ = files
    info = run("bundle", "info", str(bundle), "--json")
    assert info.exit_code == 0
    data = json.loads(info.stdout)
    assert data["counts"]["synsets"] == 6 and data["schema_version"] == 1
    ok = run("bundle", "verify", str(bundle))
    assert ok.exit_code == 0 and "ok" in ok.stdout


def test_modules_option_forms_agree(files) -> None:
    _, bundle, hyp, ref, _ = files
    joined = run("score", str(hyp), str(ref), "--bundle", str(bundle), "-q", "--modules", "exact synonym")
    repeated = run("score", str(hyp), str(ref), "--bundle", str(bundle), "-q", "-m", "exact", "-m", "synonym")
    only_exact = run("score", str(hyp), str(ref), "--bundle", str(bundle), "-q", "-m", "exact")
    assert joined.exit_code == repeated.exit_code == only_exact.exit_code == 0
    assert joined.stdout == repeated.stdout
    assert float(joined.stdout) > float(only_exact.stdout)  # the synonym module adds big~large, car~automobile


def test_bundle_by_name_on_search_path(files, monkeypatch) -> None:
    tmp, bundle, hyp, ref, _ = files
    monkeypatch.setenv("METEOR_LITE_BUNDLE_PATH", str(tmp))
    by_name = run("score", str(hyp), str(ref), "--bundle", "en", "-q")  # tmp/en.sqlite
    by_path = run("score", str(hyp), str(ref), "--bundle", str(bundle), "-q")
    assert by_name.exit_code == 0 and by_name.stdout == by_path.stdout
    missing = run("score", str(hyp), str(ref), "--bundle", "no-such-bundle")
    assert missing.exit_code == 1 and "bundle not found" in missing.stderr
