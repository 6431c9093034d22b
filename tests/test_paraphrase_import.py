"""``meteor-lite bundle install de --paraphrase FILE``: a paraphrase table in Meteor's format imported into the
official bundle scores as the official jar run with ``-a FILE``.

The expected scores are the jar's (``tests/fixtures/paraphrase_import_de.json``: a tiny German table, five
segment pairs, ``-l de -norm -a paraphrase-de.gz``); the ``java`` test re-runs the jar to keep the fixture true.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any, Dict

import pytest

from meteor_lite import Meteor
from meteor_lite.jarcompat import java_double
from meteor_lite.resources.bundle import Bundle
from test_cli import run

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "paraphrase_import_de.json"

needs_release = pytest.mark.skipif(
    importlib.util.find_spec("pycocoevalcap") is None, reason="needs pycocoevalcap (the official or build extra)"
)


@pytest.fixture()
def case(tmp_path: Path) -> Dict[str, Any]:
    """The fixture, with its table written as paraphrase-de.gz."""
    fx: Dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    table = tmp_path / "paraphrase-de.gz"
    with gzip.open(table, "wt", encoding="utf-8") as f:
        f.write("\n".join(fx["table"]) + "\n")
    fx["path"] = table
    return fx


@needs_release
def test_imported_table_scores_as_the_jar_with_it(case: Dict[str, Any], user_dir: Path) -> None:
    table: Path = case["path"]
    r = run("bundle", "install", "de", "--paraphrase", str(table), "--snowball-stems", "--name", "de-para")
    assert r.exit_code == 0, r.stderr
    path = user_dir / "de-para.sqlite"
    assert r.stdout.startswith(f"installed {path} (de 1.5.0 @")
    with Bundle.open(path) as b:
        assert b.verify() == [] and b.counts()["paraphrases"] > 0
        src = {s["name"]: s for s in b.sources()}["paraphrase-de.gz"]
        assert src["sha256"] == hashlib.sha256(table.read_bytes()).hexdigest()  # provenance: the file's checksum
        assert "given to the import" in src["description"]
    m = Meteor("de", norm=True, bundle=path, quiet=True)
    assert m.config.modules == ("exact", "stem", "paraphrase")
    got = m.score_corpus(case["hyps"], [case["refs"]])
    assert [java_double(s.score) for s in got.segments] == case["segments"]
    assert java_double(got.score) == case["final"]
    para = sum(s.stats.test_content[2] + s.stats.test_function[2] for s in got.segments)
    assert para == case["paraphrase_stage"][2] > 0  # the table's pairs were matched, as by the jar


@needs_release
def test_another_table_gives_another_checksum_and_is_not_put_in_silently(case: Dict[str, Any], user_dir: Path) -> None:
    assert run("bundle", "install", "de", "--snowball-stems").exit_code == 0
    with Bundle.open(user_dir / "de.sqlite") as b:
        plain = b.checksum
    r = run("bundle", "install", "de", "--paraphrase", str(case["path"]), "--snowball-stems")
    assert r.exit_code == 1 and "give --force to replace it, or --name NAME" in r.stderr
    forced = run("bundle", "install", "de", "--paraphrase", str(case["path"]), "--snowball-stems", "--force")
    assert forced.exit_code == 0, forced.stderr
    with Bundle.open(user_dir / "de.sqlite") as b:
        assert b.checksum != plain and b.counts()["paraphrases"] > 0
    assert sorted(p.name for p in user_dir.iterdir()) == ["de.sqlite"]


@needs_release
def test_a_malformed_table_names_file_and_line_and_installs_nothing(tmp_path: Path, user_dir: Path) -> None:
    bad = tmp_path / "paraphrase-de.gz"
    with gzip.open(bad, "wt", encoding="utf-8") as f:
        f.write("0.5\nauto\nwagen\nnot a number\nhaus\ngebäude\n")
    r = run("bundle", "install", "de", "--paraphrase", str(bad), "--snowball-stems")
    assert r.exit_code == 1 and str(bad) in r.stderr and "line 4" in r.stderr
    assert not user_dir.exists() or list(user_dir.iterdir()) == []
    missing = run("bundle", "install", "de", "--paraphrase", str(tmp_path / "none.gz"))
    assert missing.exit_code == 1 and "paraphrase table not found" in missing.stderr


@pytest.mark.java
def test_the_fixture_is_the_jars(case: Dict[str, Any], tmp_path: Path) -> None:
    """The expected scores are what the official jar prints with the table (-a)."""
    from meteor_lite_builders.checks.parity.jar_output import parse_score_output
    from meteor_lite_builders.jar import run_jar

    hyp, ref = tmp_path / "hyp", tmp_path / "ref"
    hyp.write_text("\n".join(case["hyps"]) + "\n", encoding="utf-8")
    ref.write_text("\n".join(case["refs"]) + "\n", encoding="utf-8")
    args = [str(hyp), str(ref), *case["jar_args"][:-1], str(case["path"])]
    out = parse_score_output(run_jar(args, check=True).stdout)
    assert out["segments"] == case["segments"] and out["final_text"] == case["final"]
