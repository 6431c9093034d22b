"""Exporting bundles to the file formats of the official Meteor 1.5: formats, round trip, CLI, the jar."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from meteor_lite.errors import MeteorLiteWarning
from meteor_lite.resources.bundle import Bundle
from meteor_lite_builders.bundle.writer import BundleWriter
from meteor_lite_builders.cli import app
from meteor_lite_builders.export.meteor_files import PLACEHOLDER_PROBABILITY, ExportError, export_bundle, meteor_language_name
from meteor_lite_builders.official.formats import iter_paraphrases, parse_exceptions, parse_function_words, parse_synsets
from tiny_bundles import make_empty_bundle, make_tiny_bundle

runner = CliRunner()
DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "meteor-example"


def _bundle(path: Path, keep_probabilities: bool = True) -> Path:
    """Synsets with several ids per word, exceptions with several forms, paraphrases out of key order."""
    with BundleWriter(path, language="en", name="exp", version="1.0.0", keep_probabilities=keep_probabilities) as w:
        w.add_function_words(["the", "of", ",", "’"])
        w.add_synsets([("car", 2958343), ("auto", 2958343), ("auto", 7), ("motor_car", 2958343), ("a", 123456789)])
        w.add_synonym_exceptions([("went", "go"), ("gone", "go"), ("mice", "mouse")])
        # table order: z-phrase first; probabilities as Meteor's tables write them
        w.add_paraphrases([("zeta", "x", 0.5), ("get rid of", "remove", 0.25), ("get rid of", "discard", 1e-05),
                           ("alpha", "beta", 227.93803293543937)])
    return path


def test_file_formats(tmp_path: Path) -> None:
    res = export_bundle(_bundle(tmp_path / "b.sqlite"), tmp_path / "out", show_progress=False)
    out = tmp_path / "out"
    assert res.language_name == "english"
    assert (out / "function.words").read_text(encoding="utf-8") == ",\nof\nthe\n’\n"
    assert (out / "english.synsets").read_text(encoding="utf-8") == (
        "a\n123456789\nauto\n00000007 02958343\ncar\n02958343\nmotor_car\n02958343\n"
    )
    assert (out / "english.exceptions").read_text(encoding="utf-8") == "go\ngone went\nmouse\nmice\n"
    assert (out / "english.relations").read_bytes() == b""
    with gzip.open(out / "paraphrase.gz", "rt", encoding="utf-8") as f:
        # schema 2: phrases in byte order, each phrase's paraphrases in table order, the stored probabilities
        assert f.read() == "227.93803293543937\nalpha\nbeta\n0.25\nget rid of\nremove\n1.0E-5\nget rid of\ndiscard\n0.5\nzeta\nx\n"
    manifest = json.loads((out / "export.json").read_text(encoding="utf-8"))
    assert manifest["paraphrase_probabilities"] == "stored"
    with Bundle.open(tmp_path / "b.sqlite") as b:
        assert manifest["exported_from"]["content_checksum"] == b.checksum
    assert manifest["files"]["paraphrase.gz"]["rows"] == 4
    assert res.jar_options() == ["-s", str(out / "function.words"), "-d", str(out), "-a", str(out / "paraphrase.gz")]
    assert not list(out.glob(".*.tmp"))


def test_without_probabilities_a_placeholder_and_a_warning(tmp_path: Path) -> None:
    b = _bundle(tmp_path / "b.sqlite", keep_probabilities=False)
    with pytest.warns(MeteorLiteWarning, match="stores no paraphrase probabilities.*gets 1.0 for every pair"):
        export_bundle(b, tmp_path / "out", show_progress=False)
    with gzip.open(tmp_path / "out" / "paraphrase.gz", "rt", encoding="utf-8") as f:
        assert f.read() == "1.0\nalpha\nbeta\n1.0\nget rid of\nremove\n1.0\nget rid of\ndiscard\n1.0\nzeta\nx\n"
    manifest = json.loads((tmp_path / "out" / "export.json").read_text(encoding="utf-8"))
    assert manifest["paraphrase_probabilities"] == f"placeholder {PLACEHOLDER_PROBABILITY!r}"


def test_round_trip_through_meteor_parsers(tmp_path: Path) -> None:
    """The exported files read back (with the importer's parsers of Meteor's formats) give the bundle's rows."""
    src = make_tiny_bundle(tmp_path / "tiny.sqlite")
    out = tmp_path / "out"
    with pytest.warns(MeteorLiteWarning, match="placeholder|gets 1.0"):
        export_bundle(src, out, show_progress=False)
    with closing(sqlite3.connect(f"{src.resolve().as_uri()}?mode=ro", uri=True)) as conn:
        fw = sorted(r[0] for r in conn.execute("SELECT word FROM function_words"))
        syn = sorted(conn.execute("SELECT word, synset FROM synsets").fetchall())
        exc = sorted(conn.execute("SELECT form, base FROM synonym_exceptions").fetchall())
    with Bundle.open(src) as b:
        para = [(ph, p, PLACEHOLDER_PROBABILITY) for ph, paras, _ in b.iter_paraphrases() for p in paras]
    assert sorted(parse_function_words((out / "function.words").read_text(encoding="utf-8"))) == fw
    assert sorted(parse_synsets((out / "english.synsets").read_text(encoding="utf-8"))) == syn
    assert sorted(parse_exceptions((out / "english.exceptions").read_text(encoding="utf-8"))) == exc
    with gzip.open(out / "paraphrase.gz", "rt", encoding="utf-8") as f:
        assert list(iter_paraphrases(f)) == para


def test_deterministic_bytes_and_options(tmp_path: Path) -> None:
    b = _bundle(tmp_path / "b.sqlite")
    one = export_bundle(b, tmp_path / "one", show_progress=False)
    two = export_bundle(b, tmp_path / "two", show_progress=False)
    assert [f.sha256 for f in one.files] == [f.sha256 for f in two.files]
    only = export_bundle(b, tmp_path / "fw", resources=["function_words"], show_progress=False)
    assert [f.name for f in only.files] == ["function.words"]
    named = export_bundle(b, tmp_path / "named", resources=["synonyms"], language_name="mine", show_progress=False)
    assert {f.name for f in named.files} == {"mine.synsets", "mine.exceptions", "mine.relations"}
    assert meteor_language_name("cs") == "czech" and meteor_language_name("el") == "el"


def test_empty_bundle_and_errors(tmp_path: Path) -> None:
    res = export_bundle(make_empty_bundle(tmp_path / "e.sqlite"), tmp_path / "out", show_progress=False)
    assert [f.name for f in res.files] == ["function.words"] and res.files[0].rows == 0
    with BundleWriter(tmp_path / "bad.sqlite", language="en", name="bad", version="1.0.0") as w:
        w.add_synsets([("two words", 1)])
    with pytest.raises(ExportError, match="two words"):
        export_bundle(tmp_path / "bad.sqlite", tmp_path / "bad", show_progress=False)
    assert not list((tmp_path / "bad").glob("*.synsets"))
    (tmp_path / "file").write_text("x")
    with pytest.raises(ExportError, match="not a directory"):
        export_bundle(tmp_path / "e.sqlite", tmp_path / "file", show_progress=False)


def test_cli_export(tmp_path: Path) -> None:
    src = make_tiny_bundle(tmp_path / "tiny.sqlite")
    r = runner.invoke(app, ["export", str(src), "--out", str(tmp_path / "out"), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "paraphrase.gz: 3 entries" in r.output and "-d " + str(tmp_path / "out") in r.output
    r = runner.invoke(app, ["export", str(src), "--out", str(tmp_path / "o2"), "--only", "paraphrases"])
    assert r.exit_code == 0 and not (tmp_path / "o2" / "english.synsets").exists()
    r = runner.invoke(app, ["export", str(tmp_path / "missing.sqlite"), "--out", str(tmp_path / "o3")])
    assert r.exit_code == 1 and "bundle not found" in r.output


def _jar():
    if shutil.which("java") is None:
        return None
    try:
        from meteor_lite_builders import jar as jar_api

        return jar_api.find_jar()
    except Exception:
        return None


@pytest.mark.slow
@pytest.mark.java
@pytest.mark.skipif(not (DATA / "system1.hyp").is_file(), reason="needs ../shared/data/meteor-example")
def test_jar_scores_exported_files_as_its_own(tmp_path: Path) -> None:
    """Meteor 1.5 with files exported from an import of its own release scores as with its own files.

    Import the English resources with the first 20,000 paraphrase pairs, export them, and run
    the jar on 300 segments of system1 twice: with its own synonyms and function words and the
    first 20,000 pairs of its table, and with the exported files.  (The full comparison, all
    5.27M pairs and 2,489 segments, is ``meteor-build check export``.)
    """
    from meteor_lite_builders import jar as jar_api
    from meteor_lite_builders.official.importer import build_official_bundle

    n_pairs, n_seg = 20_000, 300
    bundle = build_official_bundle("en", tmp_path / "en.sqlite", progress=False, max_paraphrases=n_pairs)
    with pytest.warns(MeteorLiteWarning, match="stores no paraphrase probabilities"):  # the jar does not score with them
        res = export_bundle(bundle, tmp_path / "exp", show_progress=False)
    own_table = tmp_path / "own-paraphrase.gz"
    with gzip.open(jar_api.paraphrase_file("en"), "rb") as f, gzip.open(own_table, "wb") as g:
        for _ in range(3 * n_pairs):
            g.write(f.readline())
    hyp, ref = tmp_path / "hyp", tmp_path / "ref"
    for name, dst in (("system1.hyp", hyp), ("reference", ref)):
        lines = (DATA / name).read_text(encoding="utf-8").split("\n")[:n_seg]
        dst.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def run(*opts: str) -> str:
        cmd = ["java", "-Xmx1G", "-Dfile.encoding=UTF-8", "-jar", str(_jar()), str(hyp), str(ref), "-l", "en", "-norm", *opts]
        proc = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8", timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc.stdout

    own = run("-a", str(own_table))
    exported = run(*res.jar_options())
    assert own.count("Segment ") == n_seg and "Final score:" in own
    assert exported == own
