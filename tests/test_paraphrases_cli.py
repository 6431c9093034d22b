"""``meteor-build paraphrases``: option checks that run before any alignment (no eflomal needed)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from meteor_lite_builders.cli import app


def test_czech_is_cz_whichever_code_is_given(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b\n", encoding="utf-8")
    # cs and cz are one language: pivoting Czech through Czech is refused, whichever code each side uses
    for lang, pivot in (("cs", "cz"), ("cz", "cs"), ("cs", "cs")):
        r = CliRunner().invoke(app, ["paraphrases", "--lang", lang, "--corpus", str(corpus), "--pivot", f"{pivot}={corpus}",
                                     "-o", str(tmp_path / "o.sqlite")])
        assert r.exit_code == 2 and "cz is the paraphrased language" in r.output, r.output


def test_engine_must_be_known(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["paraphrases", "--lang", "en", "--corpus", str(corpus), "--pivot", f"de={corpus}",
                                 "-o", str(tmp_path / "o.sqlite"), "--engine", "hive"])
    assert r.exit_code == 2 and "--engine" in r.output, r.output
