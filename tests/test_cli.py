"""End-to-end tests of the meteor-lite command line, run in-process (``meteor_lite.cli.run`` with captured streams)."""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

from meteor_lite.cli import run as cli_run
from meteor_lite.resources.schema import SCHEMA_VERSION
from tiny_bundles import make_tiny_bundle


@dataclass
class Result:
    """What a command printed and its exit code."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def invoke(args: "list[str]", stdin: Optional[bytes] = None) -> Result:
    """Run ``meteor-lite ARGS`` in this process (standard input from ``stdin``)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli_run(args)
    finally:
        sys.stdin = saved
    return Result(code, out.getvalue(), err.getvalue())


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


def run(*args: str, stdin: Optional[bytes] = None) -> Result:
    return invoke(list(args), stdin)


def test_text_report_layout(files) -> None:
    _, bundle, hyp, ref, _ = files
    r = run("score", str(hyp), str(ref), "--bundle", str(bundle), "--lower")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith("Meteor version: 1.5")
    seg = [ln for ln in lines if ln.startswith("Segment ")]
    assert [ln.split("\t")[0] for ln in seg] == ["Segment 1 score:", "Segment 2 score:", "Segment 3 score:"]
    assert seg[2].split("\t")[1] == "0.0"  # empty hypothesis line
    assert any(ln.startswith("Signature:      meteor-lite|lang:en|lower|") for ln in lines)
    final = [ln for ln in lines if ln.startswith("Final score:")]
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
    assert data["counts"]["synsets"] == 6 and data["schema_version"] == SCHEMA_VERSION
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


# -- argparse command line: stdin, the module-list rule, usage errors, missing resources ------------------


def test_stdin_as_hypothesis_or_reference(files) -> None:
    _, bundle, hyp, ref, _ = files
    from_files = run("score", str(hyp), str(ref), "--bundle", str(bundle), "-q")
    hyp_stdin = run("score", "-", str(ref), "--bundle", str(bundle), "-q", stdin=hyp.read_bytes())
    ref_stdin = run("score", str(hyp), "-", "--bundle", str(bundle), "-q", stdin=ref.read_bytes())
    assert from_files.exit_code == hyp_stdin.exit_code == ref_stdin.exit_code == 0
    assert from_files.stdout == hyp_stdin.stdout == ref_stdin.stdout
    both = run("score", "-", "-", "--bundle", str(bundle), stdin=b"x\n")
    assert both.exit_code == 2 and "standard input (-) can be read only once" in both.stderr
    bad = run("score", "-", str(ref), "--bundle", str(bundle), stdin=b"a\n\xff\nb\n")
    assert bad.exit_code == 1 and "<stdin>:2: invalid UTF-8" in bad.stderr


def test_unquoted_module_list_is_refused(files) -> None:
    _, bundle, hyp, ref, _ = files
    r = run("score", "-m", "exact", "synonym", str(hyp), str(ref), "--bundle", str(bundle))
    assert r.exit_code == 2
    assert "quote the list" in r.stderr and "-m 'exact synonym'" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    # options may follow the files (argparse's intermixed parsing), and a module-named file is ./NAME
    after = run("score", str(hyp), str(ref), "-m", "exact synonym", "--bundle", str(bundle), "-q")
    before = run("score", "-m", "exact synonym", "--bundle", str(bundle), "-q", str(hyp), str(ref))
    assert after.exit_code == before.exit_code == 0 and after.stdout == before.stdout


def test_usage_errors_are_one_line_exit_2(files) -> None:
    _, bundle, hyp, ref, _ = files
    for args in (["score"], ["score", str(hyp), str(ref), "--no-such-option"], ["score", str(hyp), str(ref), "--beam", "x"],
                 ["frobnicate"], ["bundle"], ["score", str(hyp), str(ref), "--format", "xml"]):
        r = run(*args)
        assert r.exit_code == 2, args
        assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("meteor-lite: error: "), (args, r.stderr)
    out = run("--version").stdout
    assert out.startswith("meteor-lite ") and ("pure Python" in out or "compiled kernels" in out)
    assert run("--help").exit_code == 0 and "score" in run("--help").stdout
    assert run("score", "--help").exit_code == 0 and "--modules" in run("score", "--help").stdout


@pytest.fixture()
def no_bundles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty search path: no env path, an empty user directory, no checkout bundles, no packs."""
    import meteor_lite.resources.locate as locate
    import meteor_lite.resources.packs as packs

    monkeypatch.delenv("METEOR_LITE_BUNDLE_PATH", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(locate, "_checkout_dir", lambda: None)
    monkeypatch.setattr(packs, "pack_bundles", lambda: [])
    return tmp_path


def test_missing_resources_stop_scoring(files, no_bundles: Path) -> None:
    _, _, hyp, ref, _ = files
    r = run("score", str(hyp), str(ref), "--lang", "en")
    assert r.exit_code == 1 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1
    msg = r.stderr
    assert "no resource bundle found for English" in msg
    assert "pip install 'meteor-lite[official]'; meteor-lite bundle install en (no Java" in msg and "--index URL" in msg
    assert len(msg) < 320, msg
    de = run("score", str(hyp), str(ref), "--lang", "de")
    assert de.exit_code == 1 and "German" in de.stderr and "bundle install de (no Java needed" in de.stderr
    assert "--modules 'exact stem'" in de.stderr and len(de.stderr) < 320, de.stderr


def test_bundle_lacking_default_resources_scores_with_a_warning(files, tmp_path: Path) -> None:
    _, _, hyp, ref, _ = files
    from tiny_bundles import make_empty_bundle

    bare = make_empty_bundle(tmp_path / "bare.sqlite")
    r = run("score", str(hyp), str(ref), "--bundle", str(bare))
    assert r.exit_code == 0, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "include synonym paraphrase" in lines[0] and "bare.sqlite lacks" in lines[0], r.stderr
    assert "scoring with exact stem" in lines[0] and "--strict-modules" in lines[0]
    assert "Modules:        exact stem\n" in r.stdout and "|mods:exact+stem|" in r.stdout
    strict = run("score", str(hyp), str(ref), "--bundle", str(bare), "--strict-modules")
    assert strict.exit_code == 1 and "synonym sets, a paraphrase table" in strict.stderr and "bare.sqlite lacks" in strict.stderr
    reduced = run("score", str(hyp), str(ref), "--bundle", str(bare), "-m", "exact stem")
    assert reduced.exit_code == 0 and reduced.stderr == ""
    assert "Modules:        exact stem\n" in reduced.stdout and "|mods:exact+stem|" in reduced.stdout
    assert reduced.stdout.startswith("Meteor version: 1.5 (meteor-lite)")
    # the numbers are those of the reduced modules asked for, with the language's weights for them
    assert r.stdout.split("Final score:")[1] == reduced.stdout.split("Final score:")[1]


def test_explicit_modules_without_bundle_say_so(files, no_bundles: Path) -> None:
    _, _, hyp, ref, _ = files
    r = run("score", str(hyp), str(ref), "--lang", "en", "-m", "exact stem")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0].startswith("Meteor version: none") and "not Meteor 1.5" in lines[0]
    assert any(ln.startswith("Signature:") and "|mods:exact+stem|" in ln and "|res:none|" in ln for ln in lines)
    assert "Modules:        exact stem" in lines
    assert "no bundle found for language 'en'" in r.stderr


def test_bundle_list_origins_and_choice(files, no_bundles: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tmp, bundle, _, _, _ = files
    env_dir = tmp / "envdir"
    make_tiny_bundle(env_dir / "en.sqlite")
    user = no_bundles / "xdg" / "meteor-lite" / "bundles"
    make_tiny_bundle(user / "en.sqlite")
    make_tiny_bundle(user / "en-extra.sqlite")
    monkeypatch.setenv("METEOR_LITE_BUNDLE_PATH", str(env_dir))
    r = run("bundle", "list")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0].startswith("* en ") and lines[0].endswith("[env path]") and str(env_dir) in lines[0]
    user_en = [ln for ln in lines if ln.endswith("[user dir]") and "en.sqlite" in ln and "en-extra" not in ln]
    assert len(user_en) == 1 and not user_en[0].startswith("*")
    extra = [ln for ln in lines if "en-extra.sqlite" in ln]
    assert len(extra) == 1 and not extra[0].startswith("*")  # a bundle of language en not named en.sqlite
