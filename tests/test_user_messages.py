"""What a new user meets on four paths: the sentences, the exit codes, no traceback.

* chosen modules whose resources no bundle has: one sentence (what each module needs, where it was looked for;
  the sentence is configure.py's, written on main at the same time);
* the chrF/BLEU baselines without sacreBLEU: one line naming the ``test`` extra;
* ``hf`` ``compute()`` with nothing queued: an error, as ``evaluate`` raises, not a score of 0.0;
* ``meteor-jar-stemmer --help``: the usage.
"""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import List, Tuple

import pytest

from meteor_lite import Meteor, hf
from meteor_lite.cli import run as cli_run
from meteor_lite.errors import InputError, MissingResourcesError
from meteor_lite.jarcli.stemmer import USAGE
from meteor_lite.jarcli.stemmer import main as stemmer_main
from meteor_lite.resources import locate
from tiny_bundles import make_empty_bundle, make_tiny_bundle


def invoke(args: List[str]) -> Tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_run(args)
    return code, out.getvalue(), err.getvalue()


def test_chosen_modules_a_bundle_lacks(tmp_path: Path) -> None:
    empty = make_empty_bundle(tmp_path / "empty.sqlite")
    with pytest.raises(MissingResourcesError) as exc:
        Meteor("en", modules=["exact", "synonym", "paraphrase"], weights=[1, 1, 1], bundle=empty)
    msg = str(exc.value)
    assert msg.startswith("module synonym (synonym sets) and paraphrase (a paraphrase table) need a table that bundle ")
    assert msg.endswith("empty.sqlite lacks: use a bundle that has it, or leave the module out")
    assert "none was found" not in msg and "that no bundle" not in msg


def test_chosen_modules_without_any_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No bundle for the language and no Snowball stemmer: one sentence saying so and what to do (it was
    'module(s) stem need resources that no bundle (none was found) lacks')."""
    hyp, ref = tmp_path / "h", tmp_path / "r"
    hyp.write_text("a b\n")
    ref.write_text("a c\n")
    # no bundle anywhere on the search path: neither the user directory nor the checkout's resources/bundles
    # (where `meteor-build recipe resources/recipes/ja.toml` puts one)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "no-user-dir"))
    monkeypatch.delenv("METEOR_LITE_BUNDLE_PATH", raising=False)
    monkeypatch.setattr(locate, "_checkout_dir", lambda: None)
    assert locate.find_bundle("ja") is None
    code, out, err = invoke(["score", str(hyp), str(ref), "--lang", "ja", "-m", "exact stem"])
    assert code == 1 and out == ""
    assert err == ("meteor-lite: error: module stem (a stemmer or stem map) needs a resource bundle, and none was found "
                   "for this language: install one (meteor-lite bundle install LANG) or leave the module out\n")


def test_baselines_without_sacrebleu_name_the_test_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from meteor_lite_builders.checks.research.mqm_sets import sacrebleu_metrics
    from meteor_lite_builders.errors import BuildError
    from meteor_lite_builders.tune.baselines import main

    monkeypatch.setitem(sys.modules, "sacrebleu", None)  # import sacrebleu -> ImportError, as when absent
    monkeypatch.setitem(sys.modules, "sacrebleu.metrics", None)
    judged = tmp_path / "j.tsv"
    judged.write_text("system\tseg_id\thyp\tref\tmqm\ns\t1\ta b\ta b\t0\n", encoding="utf-8")
    assert main([str(judged), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err == ("baselines: error: the chrF and BLEU baselines need sacrebleu, which is in the test extra: "
                   "pip install 'meteor-lite[test]'\n")
    assert not (tmp_path / "out").exists()
    with pytest.raises(BuildError, match=r"test extra: pip install 'meteor-lite\[test\]'"):
        sacrebleu_metrics()


def test_hf_compute_with_nothing_queued_is_an_error(tmp_path: Path) -> None:
    metric = hf.Meteor("en", bundle=make_tiny_bundle(tmp_path / "en.sqlite"))
    with pytest.raises(InputError, match=r"compute\(\) has nothing to score: no prediction was added"):
        metric.compute()
    with pytest.raises(ValueError, match="nothing to score"):  # InputError is a ValueError, as evaluate raises
        metric.compute(predictions=[], references=[])
    metric.add(prediction="the big car", reference="the big car")
    assert metric.compute()["meteor"] == 1.0
    with pytest.raises(InputError, match="nothing to score"):  # the queue was emptied by the last compute
        metric.compute()


@pytest.mark.parametrize("option", ["--help", "-h"])
def test_jar_stemmer_help(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert stemmer_main([option]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("usage: meteor-jar-stemmer LANG < in > out") and out.out.endswith(USAGE)
    assert out.err == "" and "No stemmer" not in out.out
