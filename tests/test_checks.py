"""The maintainer checks (meteor_lite_builders.checks, ``meteor-build check``) and the jar module.

Everything here runs without Java except the tests marked ``java``.
"""

from __future__ import annotations

import json
import math
import os
import random
import stat
import zipfile
from pathlib import Path
from typing import List

import pytest
from typer.testing import CliRunner

from meteor_lite.errors import MeteorLiteError
from meteor_lite_builders import jar
from meteor_lite_builders.checks import shared_data
from meteor_lite_builders.checks.cli import app as check_app
from meteor_lite_builders.checks.parity import agreement as parity
from meteor_lite_builders.checks.parity import jar_output, oracle, parex_compare
from meteor_lite_builders.checks.parity.fixtures import Item, select, ss_features, text_features
from meteor_lite_builders.checks.research import paraphrase_eval
from meteor_lite_builders.errors import OfficialReleaseError

runner = CliRunner()

SCORE_OUTPUT = """Meteor version: 1.5

Eval ID:        meteor-1.5-wo-en-norm-0.85_0.2_0.6_0.75-ex_st_sy_pa-1.0_0.6_0.8_0.6
Language:       English
Format:         plaintext
Task:           Ranking

Segment 1 score:\t0.5\t0.6\t0.1\t0.25
Segment 2 score:\tNaN\tNaN\t0.0\t0.0

System level statistics:

           Test Matches                  Reference Matches
Stage      Content  Function    Total    Content  Function    Total
1                3         1        4          3         1        4
Total            3         1        4          3         1        4

Test words:             7
Reference words:        8
Chunks:                 2
Precision:              0.5714285714285714
Recall:                 0.5
f1:                     0.5333333333333333
fMean:                  0.5095541401273885
Fragmentation penalty:  0.1
Final score:            0.4586
"""
SS_LINE = " ".join(["1"] * 23)


# -- jar.py -----------------------------------------------------------------------------------


def _fake_jar(path: Path, members: dict) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def test_jar_errors_are_official_release_errors() -> None:
    for cls in (jar.JarError, jar.JarNotFoundError, jar.JavaNotFoundError, jar.JarRunError):
        assert issubclass(cls, OfficialReleaseError) and issubclass(cls, MeteorLiteError)


def test_find_jar_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jar.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(jar.JarNotFoundError, match=r"install the build extra \(pip install 'meteor-lite\[build\]'\)"):
        jar.find_jar()


def test_find_java(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METEOR_JAVA", "/opt/my/java")
    assert jar.find_java() == "/opt/my/java"
    monkeypatch.delenv("METEOR_JAVA")
    monkeypatch.setattr(jar.shutil, "which", lambda name: None)
    with pytest.raises(jar.JavaNotFoundError, match="java not found on PATH"):
        jar.find_java()


def test_read_members(tmp_path: Path) -> None:
    j = _fake_jar(tmp_path / "m.jar", {"function/english.words": "the\na\n", "bad.txt": b"\xff", "dir/": ""})
    assert jar.read_jar_member("function/english.words", jar=j) == b"the\na\n"
    assert jar.read_jar_text("function/english.words", jar=j) == "the\na\n"
    assert jar.jar_members("function/", jar=j) == ["function/english.words"]
    with pytest.raises(jar.JarError, match="no member 'nope'"):
        jar.read_jar_member("nope", jar=j)
    with pytest.raises(jar.JarError, match="not valid UTF-8"):
        jar.read_jar_text("bad.txt", jar=j)
    (tmp_path / "broken.jar").write_bytes(b"not a zip")
    with pytest.raises(jar.JarError, match="cannot read the jar"):
        jar.jar_members(jar=tmp_path / "broken.jar")


def test_default_jar_is_looked_up_at_call_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    j = _fake_jar(tmp_path / "m.jar", {"x.txt": "x"})
    monkeypatch.setattr(jar, "find_jar", lambda: j)
    assert jar.read_jar_text("x.txt") == "x"


def _fake_java(tmp_path: Path) -> str:
    """A 'java' that prints its arguments (one a line), then its stdin upper-cased; exit 3 on 'fail'."""
    script = tmp_path / "java"
    script.write_text(
        "#!/bin/sh\nfor a in \"$@\"; do echo \"arg:$a\"; done\n"
        "case \"$*\" in *fail*) echo 'it broke' >&2; exit 3;; esac\ntr a-z A-Z\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_commands_and_runs_with_a_fake_java(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METEOR_JAVA", _fake_java(tmp_path))
    j = tmp_path / "meteor-1.5.jar"
    cmd = jar.jar_command(["h.txt", "r.txt", "-l", "en"], jar=j)
    assert cmd[1:] == ["-Xmx2G", *jar.JAVA_OPTIONS, "-jar", str(j), "h.txt", "r.txt", "-l", "en"]
    cls = jar.jar_class_command("Stemmer", ["german"], heap=None, jar=j, classpath=["extra"])
    assert cls[1:] == [*jar.JAVA_OPTIONS, "-cp", f"{j}{os.pathsep}extra", "Stemmer", "german"]
    proc = jar.run_jar_class("Stemmer", ["german"], stdin="häuser\r\nx\n", jar=j)
    assert proc.returncode == 0
    assert proc.stdout.endswith("HäUSER\r\nX\n")  # UTF-8 both ways, no newline translation
    bad = jar.run_jar(["fail"], jar=j)
    assert bad.returncode == 3 and "it broke" in bad.stderr
    with pytest.raises(jar.JarRunError, match="jar exited with 3"):
        jar.run_jar(["fail"], jar=j, check=True)


# -- parsing the jar's output ----------------------------------------------------------------


def test_parse_score_output() -> None:
    p = jar_output.parse_score_output(SCORE_OUTPUT)
    assert p["segments"] == ["0.25", "0.0"]
    assert p["verbose"] == [["0.5", "0.6", "0.1"], ["NaN", "NaN", "0.0"]]
    assert p["final_text"] == "0.4586"
    assert p["header"]["Task"] == "Ranking" and p["header"]["Language"] == "English"
    assert p["stats"]["stages"] == {"1": [3, 1, 4, 3, 1, 4], "total": [3, 1, 4, 3, 1, 4]}
    assert p["stats"]["test_words"] == 7 and p["stats"]["chunks"] == 2 and p["stats"]["frag_penalty"] == 0.1


def test_parse_errors() -> None:
    with pytest.raises(jar_output.JarOutputError, match="no 'Final score:' line"):
        jar_output.parse_score_output("Segment 1 score:\t0.5\n")
    with pytest.raises(jar_output.JarOutputError, match="missing or out-of-order"):
        jar_output.parse_score_output("Segment 2 score:\t0.5\nSystem level statistics:\nFinal score: 0.5\n")
    with pytest.raises(jar_output.JarOutputError, match="expected 23 numbers"):
        jar_output.parse_ss_output("1 2 3\n")
    assert jar_output.parse_ss_output(f"\n{SS_LINE}\n") == [SS_LINE]
    fields = jar_output.ss_fields(" ".join(str(i) for i in range(23)))
    assert fields["tst_len"] == 0 and fields["stages"][1] == [8, 9, 10, 11] and fields["ref_matches"] == 22


# -- the oracle --------------------------------------------------------------------------------


def test_oracle_config_args() -> None:
    c = oracle.OracleConfig(lang="de", task="hter", params=[0.5, 1, 0.4, 0.5], modules=["exact", "stem"],
                            weights=[1.0, 0.5], beam=5, norm=True, lower=True, no_punct=True)
    assert c.jar_args() == ["-l", "de", "-t", "hter", "-p", "0.5 1 0.4 0.5", "-m", "exact stem", "-w", "1 0.5",
                            "-x", "5", "-norm", "-lower", "-noPunct"]
    assert oracle.OracleConfig.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    assert c.meteor_kwargs()["params"] == (0.5, 1.0, 0.4, 0.5)
    assert oracle.OracleConfig().jar_args() == ["-l", "en"]
    with pytest.raises(ValueError):
        oracle.OracleConfig(params=[1, 2])


def test_oracle_config_char_based() -> None:
    plain = oracle.OracleConfig(task="util", norm=True)
    assert "char_based" not in plain.to_dict() and "char_based" not in plain.meteor_kwargs()
    ch = oracle.OracleConfig(task="util", norm=True, char_based=True)
    assert ch.jar_args() == ["-l", "en", "-t", "util", "-norm", "-ch"]
    assert ch.to_dict()["char_based"] is True and ch.meteor_kwargs()["char_based"] is True
    assert oracle.OracleConfig.from_dict(json.loads(json.dumps(ch.to_dict()))) == ch
    assert oracle.OracleConfig.from_dict(plain.to_dict()) == plain


def test_oracle_rejects_line_breaks_and_ragged_streams() -> None:
    with pytest.raises(ValueError, match="line break"):
        oracle.run_oracle(["a\rb"], [["x"]], oracle.OracleConfig())
    with pytest.raises(ValueError, match="reference stream 0 has 2 segments"):
        oracle.run_oracle(["a"], [["x", "y"]], oracle.OracleConfig())


def test_oracle_answers_from_its_cache_without_java(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _fake_jar(tmp_path / "meteor-1.5.jar", {"x": "x"})
    monkeypatch.setattr(jar, "find_jar", lambda: fake)
    monkeypatch.setattr(jar, "find_java", lambda: pytest.fail("java must not run on a cache hit"))
    cfg = oracle.OracleConfig(norm=True)
    hyps, refs = ["the cat"], [["a cat"]]
    key = oracle.cache_key(hyps, refs, cfg.jar_args() + ["mode=both"], fake, True)
    rec = oracle.OracleResult(args=cfg.jar_args(), n_refs=1, segment_scores=[0.25], segment_score_text=["0.25"],
                              final_score=0.25, final_text="0.25", stats={}, header={}, ss_lines=[SS_LINE]).to_json()
    rec["format"] = oracle.CACHE_FORMAT
    (tmp_path / "cache" / key[:2]).mkdir(parents=True)
    (tmp_path / "cache" / key[:2] / f"{key}.json").write_text(json.dumps(rec), encoding="utf-8")
    res = oracle.run_oracle(hyps, refs, cfg, cache_dir=tmp_path / "cache")
    assert res.cached and res.segment_scores == [0.25] and res.ss_lines == [SS_LINE]
    assert oracle.oracle_report(res) == f"Segment 1 score:\t0.25\t{SS_LINE}\nFinal score:\t0.25"


def test_oracle_command_passes_ch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _fake_jar(tmp_path / "meteor-1.5.jar", {"x": "x"})
    monkeypatch.setattr(jar, "find_jar", lambda: fake)
    monkeypatch.setattr(jar, "find_java", lambda: pytest.fail("java must not run on a cache hit"))
    monkeypatch.setattr(oracle, "DEFAULT_CACHE_DIR", tmp_path / "cache")
    cfg = oracle.OracleConfig(norm=True, char_based=True)
    key = oracle.cache_key(["the cat"], [["a cat"]], cfg.jar_args() + ["mode=both"], fake, True)
    rec = oracle.OracleResult(args=cfg.jar_args(), n_refs=1, segment_scores=[0.5], segment_score_text=["0.5"],
                              final_score=0.5, final_text="0.5", stats={}, header={}, ss_lines=[SS_LINE]).to_json()
    (tmp_path / "cache" / key[:2]).mkdir(parents=True)
    (tmp_path / "cache" / key[:2] / f"{key}.json").write_text(json.dumps(rec), encoding="utf-8")
    (tmp_path / "h.txt").write_text("the cat\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("a cat\n", encoding="utf-8")
    r = runner.invoke(check_app, ["oracle", str(tmp_path / "h.txt"), str(tmp_path / "r.txt"), "--norm", "--ch"])
    assert r.exit_code == 0, r.output
    assert "Final score:\t0.5" in r.output and "-norm -ch" in r.output


def test_read_lines_and_wmt_rows(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes("a\r\nb\u2028c\n\n".encode("utf-8"))
    assert shared_data.read_lines(tmp_path / "f.txt") == ["a", "b\u2028c", ""]
    with pytest.raises(FileNotFoundError, match="no WMT21 file for xx-yy"):
        shared_data.wmt21_rows(tmp_path, "xx-yy")


# -- parity, fixtures, paraphrase checks -------------------------------------------------------


def test_parity_sets() -> None:
    assert [s.name for s in parity.choose_sets(None, False)][:4] == ["system1", "system2", "deen-1ref", "deen-2ref"]
    assert "en-ru" in [s.name for s in parity.choose_sets(None, True)]
    assert [s.name for s in parity.choose_sets("en-cs,system1", False)] == ["system1", "en-cs"]
    with pytest.raises(parity.UnknownSetError, match="unknown set"):
        parity.choose_sets("system9", False)
    by_name = {s.name: s.config for s in parity.choose_sets(None, False)}
    assert by_name["system1-util"].jar_args() == ["-l", "en", "-t", "util", "-norm"]
    assert by_name["system1-util-ch"].jar_args() == ["-l", "en", "-t", "util", "-norm", "-ch"]
    assert by_name["system1-ch"].jar_args() == ["-l", "en", "-norm", "-ch"]


def test_util_and_ch_fixture_sets_come_after_the_english_ones() -> None:
    # The selection avoids segments already chosen on the same pool, so new sets must be built last
    # for the older sets' records to keep their bytes.
    from meteor_lite_builders.checks.parity import fixtures

    new = fixtures.util_ch_sets()
    assert [s.name for s in new] == ["task-util", "task-util-ch", "ch"]
    assert {s.file for s in new} == {"parity_tasks.jsonl"} and {s.pool for s in new} == {"system1"}
    assert [s.config.char_based for s in new] == [False, True, True]
    assert not {s.name for s in new} & {s.name for s in fixtures.en_sets() + fixtures.other_lang_sets()}


def test_parity_table() -> None:
    row = {"set": "system1", "segments": 10, "share_within_tol": 1.0, "share_ss_identical": 0.9,
           "max_abs_diff": 0.0, "jar_final": 0.5, "our_final": 0.5, "seconds_ours": 1.25}
    lines = parity.format_table([row], 1e-6).split("\n")
    assert lines[0].startswith("set ") and "score<=1e-06" in lines[0] and set(lines[1]) == {"-"}
    assert lines[2].split() == ["system1", "10", "100.00%", "90.00%", "0", "0.5", "0.5", "1.2"]


def test_fixture_selection_is_seeded() -> None:
    def pool() -> List[Item]:
        items = [Item(f"s:{i}", f"w{i} the the", ["the w"]) for i in range(40)]
        for i, it in enumerate(items):
            it.feats = {**text_features(it), **ss_features(" ".join(["1"] * 20 + ["2", str(i % 7 + 6), "8"]))}
        return items

    a = select(pool(), random.Random("1:x"), {"frag": 3}, 4, set())
    b = select(pool(), random.Random("1:x"), {"frag": 3}, 4, set())
    assert [it.source for it in a] == [it.source for it in b] and len(a) == 7
    assert sum("top-frag" in it.tags for it in a) == 3 and sum("random" in it.tags for it in a) == 4
    used = {(it.source, it.hyp) for it in a}
    c = select(pool(), random.Random("1:x"), {"frag": 3}, 4, set(used))
    assert not used & {(it.source, it.hyp) for it in c}


def test_correlations() -> None:
    assert paraphrase_eval.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert paraphrase_eval.pearson([1, 1], [1, 2]) is None
    assert paraphrase_eval.kendall_tau_b([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert paraphrase_eval.mean([None, 1.0, 3.0]) == 2.0 and paraphrase_eval.mean([None]) is None
    assert paraphrase_eval.parse_config("a=x.sqlite:exact,stem") == ("a", "x.sqlite", ["exact", "stem"])
    assert paraphrase_eval.parse_config("b=y.sqlite") == ("b", "y.sqlite", None)


def test_parex_comparison() -> None:
    ours = [("a", "b", 0.5), ("a", "c", 0.25)]
    theirs = [("a", "b", 0.5), ("a", "d", 0.1)]
    c = parex_compare.compare(ours, theirs)
    assert (c["in_both"], c["only_ours"], c["only_parex"], c["prob_bit_identical"]) == (1, 1, 1, 1)
    assert c["max_relative_difference"] == 0.0 and not c["same_line_order"]
    with pytest.raises(ValueError, match="give --generate N"):
        parex_compare.prepare_inputs(parex_compare.ParexInputs(phrase_table="pt.gz"), Path("."))


# -- the command line --------------------------------------------------------------------------


def test_check_commands_are_listed() -> None:
    r = runner.invoke(check_app, ["--help"])
    assert r.exit_code == 0
    for name in ("oracle", "parity", "fixtures", "normalizer", "bench", "export", "paraphrases", "parex", "write-recipes"):
        assert name in r.output


def test_check_usage_errors(tmp_path: Path) -> None:
    r = runner.invoke(check_app, ["parity", "--sets", "system9"])
    assert r.exit_code == 2 and "unknown set(s): system9" in r.output
    r = runner.invoke(check_app, ["normalizer", "--langs", "xx"])
    assert r.exit_code == 2
    r = runner.invoke(check_app, ["parex", "--phrase-table", "pt.gz", "--work", str(tmp_path)])
    assert r.exit_code == 2 and "give --generate N" in r.output


def test_meteor_build_has_the_check_group() -> None:
    from meteor_lite_builders.cli import app

    r = runner.invoke(app, ["check", "--help"])
    assert r.exit_code == 0 and "parity" in r.output


# -- with the real jar -----------------------------------------------------------------------


@pytest.mark.java
def test_jar_stemmer_runs() -> None:
    proc = jar.run_jar_class("Stemmer", ["english"], stdin="running\ncats\n", heap=None, check=True)
    assert proc.stdout.split("\n")[:2] == ["run", "cat"]


@pytest.mark.slow
@pytest.mark.java
def test_oracle_agrees_with_meteor_lite_on_a_few_segments(tmp_path: Path, en_bundle: Path) -> None:
    from meteor_lite import Meteor

    hyps = ["the cat sat on the mat", "a quick brown fox", ""]
    refs = [["the cat is on the mat", "the quick brown fox jumps", "nothing"]]
    res = oracle.run_oracle(hyps, refs, oracle.OracleConfig(lang="en", norm=True), cache_dir=tmp_path)
    assert not res.cached and res.ss_lines is not None and len(res.segment_scores) == 3
    again = oracle.run_oracle(hyps, refs, oracle.OracleConfig(lang="en", norm=True), cache_dir=tmp_path)
    assert again.cached and again.segment_scores == res.segment_scores
    corpus = Meteor("en", norm=True, bundle=en_bundle, quiet=True).score_corpus(hyps, refs, layout="streams")
    for seg, want in zip(corpus.segments, res.segment_scores):
        assert math.isclose(seg.score, want, abs_tol=1e-6)
    assert math.isclose(corpus.score, res.final_score, abs_tol=1e-6)
