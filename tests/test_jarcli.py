"""``meteor-jar`` against recorded outputs of the official Meteor 1.5 jar (no Java needed).

Fixtures under ``tests/fixtures/jar/`` (recorded with the jar, Java 17, by the JARFACTS runs):

* ``out/<case>/`` — ``_meta.json`` (arguments, stdin, exit code, files written), ``_stdout``,
  ``_stderr`` and written files (``*.trimmed``: head 50 + tail 25 lines) of one command line,
  with inputs in ``in/`` (first 20 lines of system1 and the reference);
* ``stdio_nolong.req.gz`` / ``.out.gz`` — 1,350 stdio requests (valid and malformed) and the jar's
  answers, byte for byte; ``fatal/`` — 13 requests the jar dies on;
* ``parity_ch.jsonl`` — ``-t util``, ``-t util -ch`` and ``-ch`` on 16 system1 segments;
* ``in/res/`` — resource files in the jar's formats (``-s``, ``-d``, ``-a``, ``-new``; cut down to the
  inputs' vocabulary), used by the ``out/res_*`` cases (``IN/`` in their arguments = ``in/``).

Java-marked tests run the jar itself (``pytest -m java``).
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from meteor_lite import Meteor
from meteor_lite.jarcli import main
from meteor_lite.jarcli.options import USAGE, UnknownOptionError, parse_args
from meteor_lite.jarcli.sgml import parse_sgml
from meteor_lite.jarcli.stdio import FatalRequest, iter_lines, scan_doubles, split_fields
from meteor_lite.jarcompat import java_double, java_trim
from meteor_lite.resources.locate import find_bundle

JAR = Path(__file__).resolve().parent / "fixtures" / "jar"
SHARED = Path(os.environ.get("METEOR_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
EXAMPLE = SHARED / "meteor-example"
CMD = [sys.executable, "-m", "meteor_lite.jarcli"]

needs_en = pytest.mark.skipif(find_bundle("en") is None, reason="no English bundle: run `make bundles`")


# ----------------------------------------------------------------------------- helpers


def _tok_equal(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= 1e-12


def _lines_equal(jar: str, ours: str) -> List[Tuple[int, str, str]]:
    """Differing lines (numbers within 1e-12); a ``.trimmed`` jar text is compared on its kept lines."""
    jl, ol = jar.split("\n"), ours.split("\n")
    marks = [i for i, line in enumerate(jl) if line.startswith("[... trimmed by JARFACTS")]
    if marks:
        head, tail = jl[: marks[0]], jl[marks[0] + 1 :]
        ol = ol[: len(head)] + ol[len(ol) - len(tail) :]
        jl = head + tail
    diffs = []
    for i, (a, b) in enumerate(zip(jl, ol)):
        ta, tb = re.split(r"(\s+)", a), re.split(r"(\s+)", b)
        if len(ta) != len(tb) or not all(_tok_equal(x, y) for x, y in zip(ta, tb)):
            diffs.append((i + 1, a, b))
    if len(jl) != len(ol):
        diffs.append((-1, f"{len(jl)} lines", f"{len(ol)} lines"))
    return diffs


def _args(meta: Dict[str, Any]) -> List[str]:
    out = []
    for a in meta["args"]:
        if a.startswith("/tmp/jarfacts/in/"):
            a = str(JAR / "in" / a.rsplit("/", 1)[1])
        elif a.startswith("IN/"):
            a = str(JAR / "in" / a[3:])
        elif a.startswith("/work/shared/data/"):
            if not SHARED.is_dir():
                pytest.skip("shared data not available")
            a = str(SHARED / a[len("/work/shared/data/") :])
        out.append(a)
    return out


def _find(d: Path, name: str) -> Path:
    return d / name if (d / name).exists() else d / f"{name}.trimmed"


CASES = sorted(p.name for p in (JAR / "out").iterdir()) if (JAR / "out").is_dir() else []


# ----------------------------------------------------------------------------- command line vs the jar


@needs_en
@pytest.mark.parametrize("case", CASES)
def test_command_line_case(case: str, tmp_path: Path) -> None:
    """Same stdout, stderr, exit code and files as the jar (numbers within 1e-12)."""
    d = JAR / "out" / case
    meta = json.loads((d / "_meta.json").read_text())
    stdin = (JAR / "in" / meta["stdin"][6:]).read_bytes() if meta["stdin"] else b""
    p = subprocess.run(CMD + _args(meta), input=stdin, capture_output=True, cwd=tmp_path)
    assert p.returncode == meta["rc"]
    assert sorted(os.listdir(tmp_path)) == meta["files_written"]
    for name, ours in (("_stdout", p.stdout), ("_stderr", p.stderr)):
        jar = _find(d, name).read_text(encoding="utf-8")
        assert not _lines_equal(jar, ours.decode("utf-8")), f"{case} {name}"
    for f in meta["files_written"]:
        jar = _find(d, f).read_text(encoding="utf-8")
        assert not _lines_equal(jar, (tmp_path / f).read_text(encoding="utf-8")), f"{case} {f}"


def test_usage_and_unknown_option(capsys: pytest.CaptureFixture[str]) -> None:
    """No arguments: the usage text on stderr, exit 2; an unknown option: one line, exit 1."""
    assert main([]) == 2
    assert capsys.readouterr().err == USAGE
    assert main(["a", "b", "-bogus"]) == 1
    assert capsys.readouterr().err == 'Unknown option "-bogus"\n'
    with pytest.raises(UnknownOptionError):
        parse_args(["a", "b", "--help"])
    opts = parse_args(["t", "r", "-l", "de", "-m", "exact stem", "-ch", "-vOut", "-f", "p"])
    assert (opts.lang, opts.modules, opts.char_based, opts.verbose_out, opts.prefix) == ("de", "exact stem", True, True, "p")


def test_modules_beyond_meteor_15_are_unknown_to_the_jar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``-m`` takes Meteor 1.5's four modules only, as the jar does (``Unknown module (near)``): a module that
    ``meteor-lite score`` has beyond them is refused on one line, exit 1; the jar's names in any case are taken."""
    from meteor_lite.align.modules import METEOR_MODULES, MODULES

    hyp, ref = tmp_path / "h", tmp_path / "r"
    hyp.write_text("a b c\n", encoding="utf-8")
    ref.write_text("a b c\n", encoding="utf-8")
    extra = [m for m in MODULES if m not in METEOR_MODULES]
    assert extra, "the registry has a module beyond Meteor 1.5's"
    for m in extra + ["syn"]:
        assert main([str(hyp), str(ref), "-l", "en", "-m", f"exact {m}"]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"Unknown module ({m})" in err
    assert main([str(hyp), str(ref), "-l", "en", "-m", "EXACT", "-q"]) == 0
    assert capsys.readouterr().out.strip() == "1.0"


def test_missing_resource_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Missing ``-s``/``-d``/``-a``/``-new`` files: the jar's message, on one line, exit 1."""
    for opt, text in (("-s", "No function word list"), ("-d", "Synonym dictionary could not be loaded"),
                      ("-a", "file not found"), ("-new", "file not found")):
        assert main(["t", "r", opt, str(tmp_path / "none")]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and text in err


def test_resource_files_without_the_languages_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """``-l de -a FILE`` with no German bundle: an error naming the function words the jar has built in
    (scoring on without them gave 0.267 where the jar gives 0.24753125), unless ``-s`` gives them (then the
    jar's score: ``java -jar meteor-1.5.jar h r -l de -a paraphrase-de.gz -s function.words -q``)."""
    import meteor_lite.jarcli.setup as setup

    monkeypatch.setattr(setup, "find_bundle", lambda lang: None)
    table = tmp_path / "paraphrase-de.gz"
    with gzip.open(table, "wt", encoding="utf-8") as f:
        f.write("0.5\nein haus\nein gebäude\n")
    (tmp_path / "h").write_text("das ist ein haus\n", encoding="utf-8")
    (tmp_path / "r").write_text("das ist ein gebäude\n", encoding="utf-8")
    args = [str(tmp_path / "h"), str(tmp_path / "r"), "-l", "de", "-a", str(table), "-q"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no bundle for German ('de'), whose function words the jar has built in" in err
    words = tmp_path / "function.words"
    words.write_text("das\nist\nein\n", encoding="utf-8")
    assert main([*args, "-s", str(words)]) == 0
    assert capsys.readouterr().out == "0.5789473684210527\n"  # the jar's output on these three files


# ----------------------------------------------------------------------------- -ch and -t util


def _ch_records() -> List[Dict[str, Any]]:
    path = JAR / "parity_ch.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


CH = _ch_records()


def _scorer(config: Dict[str, Any]) -> Meteor:
    return Meteor(quiet=True, **config)


@needs_en
@pytest.mark.parametrize("rec", [r for r in CH if r["kind"] == "segment"], ids=lambda r: r["id"])
def test_ch_segment(rec: Dict[str, Any]) -> None:
    """-t util (no -ch: the jar does not imply it), -t util -ch and -ch: statistics and score as the jar's."""
    seg = _scorer(rec["config"]).score_segment(rec["hyp"], rec["refs"])
    assert seg.stats.to_ss_line().split() == rec["expected_ss"].split()
    assert abs(seg.score - rec["expected_score"]) <= 1e-6


@needs_en
@pytest.mark.parametrize("rec", [r for r in CH if r["kind"] == "corpus"], ids=lambda r: r["set"])
def test_ch_corpus(rec: Dict[str, Any]) -> None:
    """The final score of each -ch / util subset equals the jar's."""
    by_id = {r["id"]: r for r in CH if r["kind"] == "segment"}
    segs = [by_id[i] for i in rec["ids"]]
    corpus = _scorer(rec["config"]).score_corpus([s["hyp"] for s in segs], [[s["refs"][0] for s in segs]])
    assert abs(corpus.score - rec["expected_final"]) <= 1e-6


def test_util_does_not_imply_ch() -> None:
    """resolve_config: util keeps word-based statistics unless char_based is asked for."""
    from meteor_lite.config import resolve_config

    assert not resolve_config("en", task="util").char_based
    assert resolve_config("en", task="util", char_based=True).eval_id().startswith("meteor-1.5-ch-en-")


# ----------------------------------------------------------------------------- -stdio


def test_protocol_helpers() -> None:
    """Java split semantics, readLine framing (lone CR), Scanner number forms."""
    assert split_fields("SCORE ||| a b |||") == ["SCORE ", " a b "]
    assert split_fields("") == [""]
    assert split_fields("a||||b") == ["a", "|b"]
    assert split_fields("|||") == [] and split_fields("||| a") == ["", " a"]
    assert java_trim("\t\x00 a b \n") == "a b" and java_trim("\u00a0a") == "\u00a0a"  # only chars <= U+0020
    assert list(iter_lines(io.BytesIO(b"a\rb\r\nc\n\rd"))) == ["a", "b", "c", "", "d"]
    nums = "6 6.0 6. .6e1 6e0 +6.0 0x1.8p2 6,000 NaN Infinity -Infinity " + "0 " * 12
    vals = scan_doubles(nums)
    assert vals[:8] == [6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6000.0] and math.isnan(vals[8])
    for bad in ("nan " + "0 " * 22, "6,0 " + "0 " * 22, "0 " * 22):
        with pytest.raises(FatalRequest):
            scan_doubles(bad)


def _serve(req: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(CMD + ["-", "-", "-stdio", "-l", "en", "-norm"], input=req, capture_output=True)


@needs_en
def test_stdio_transcript() -> None:
    """1,350 requests (valid and malformed, incl. CR framing and odd number forms): every answer byte for byte."""
    req = gzip.decompress((JAR / "stdio_nolong.req.gz").read_bytes())
    expected = gzip.decompress((JAR / "stdio_nolong.out.gz").read_bytes())
    p = _serve(req)
    assert p.returncode == 0 and p.stderr == b""
    assert p.stdout == expected


FATAL = sorted(p.stem for p in (JAR / "fatal").glob("*.req")) if (JAR / "fatal").is_dir() else []


@needs_en
@pytest.mark.parametrize("name", FATAL)
def test_stdio_fatal(name: str) -> None:
    """Bad stats: the jar's answers before the bad request, then exit 1 with one line on stderr."""
    d = JAR / "fatal"
    p = _serve((d / f"{name}.req").read_bytes())
    assert p.stdout == (d / f"{name}.out").read_bytes()
    assert p.returncode == int((d / f"{name}.rc").read_text()) == 1
    assert p.stderr.decode().startswith("meteor-jar: fatal: ") and p.stderr.count(b"\n") == 1


# ----------------------------------------------------------------------------- -sgml


def test_parse_sgml() -> None:
    """Set, system, document and segment ids of every <seg>."""
    text = (
        '<tstset setid="s1" srclang="any">\n<doc sysid="sys" docid="d/1" genre="news">\n<p>\n'
        '<seg id="2"> b c </seg>\n<seg id="10">x</seg>\n</p>\n</doc>\n</tstset>\n'
    )
    segs = parse_sgml(text)
    assert [(s.setid, s.sysid, s.docid, s.segid, s.text) for s in segs] == [
        ("s1", "sys", "d/1", "2", " b c "), ("s1", "sys", "d/1", "10", "x")]


@needs_en
@pytest.mark.skipif(not (EXAMPLE / "test.sgm").exists(), reason="shared data not available")
def test_sgml_example(tmp_path: Path) -> None:
    """The example SGML: the three .scr files equal the official ones to 1e-9 (same keys, same order)."""
    p = subprocess.run(CMD + [str(EXAMPLE / "test.sgm"), str(EXAMPLE / "ref.sgm"), "-l", "en", "-norm", "-sgml"],
                       capture_output=True, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "Final score:            0.299148440516935\n" in p.stdout.decode()
    for kind in ("seg", "doc", "sys"):
        ours = (tmp_path / f"meteor-{kind}.scr").read_text().splitlines()
        official = (EXAMPLE / f"meteor-{kind}.scr").read_text().splitlines()
        assert len(ours) == len(official)
        for a, b in zip(ours, official):
            ka, va = a.rsplit("\t", 1)
            kb, vb = b.rsplit("\t", 1)
            assert ka == kb and abs(float(va) - float(vb)) <= 1e-9


# ----------------------------------------------------------------------------- with Java


@pytest.mark.java
@needs_en
@pytest.mark.parametrize("extra", [["-vOut"], ["-q"], ["-ssOut"], ["-ch"], ["-t", "util"]])
def test_against_the_jar(extra: List[str], tmp_path: Path) -> None:
    """The jar itself and meteor-jar on the 20-line inputs (no paraphrase table: fast)."""
    from meteor_lite_builders import jar as jarmod

    java = shutil.which("java")
    assert java is not None
    args = [str(JAR / "in" / "s1.20.hyp"), str(JAR / "in" / "ref.20"), "-l", "en", "-norm",
            "-m", "exact stem synonym", *extra]
    j = subprocess.run([java, "-Xmx2G", "-jar", str(jarmod.find_jar()), *args], capture_output=True, cwd=tmp_path)
    ours = subprocess.run(CMD + args, capture_output=True, cwd=tmp_path)
    assert ours.returncode == j.returncode
    assert not _lines_equal(j.stdout.decode(), ours.stdout.decode())
    assert not _lines_equal(j.stderr.decode(), ours.stderr.decode())


# ----------------------------------------------------------------------------- meteor-lite align


@needs_en
@pytest.mark.parametrize("name, modules, lines, atype", [
    ("s1.20_exact-stem-synonym", "exact stem synonym", 20, "maxcov"),
    ("s1.20_default", None, 20, "maxcov"),
    ("s1.3_exact-paraphrase", "exact paraphrase", 3, "maxcov"),
    ("s1.20_maxacc", None, 20, "maxacc"),
    ("s1.20_exact-stem-synonym_maxacc", "exact stem synonym", 20, "maxacc"),
])
def test_align_matches_the_jar_matcher(name: str, modules: Optional[str], lines: int, atype: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``meteor-lite align`` prints what the jar's ``Matcher`` prints (``-t maxcov`` and ``-t maxacc``), byte for byte."""
    from meteor_lite.cli.align import run as align

    hyp, ref = tmp_path / "h", tmp_path / "r"
    hyp.write_text("".join((JAR / "in" / "s1.20.hyp").read_text().splitlines(True)[:lines]))
    ref.write_text("".join((JAR / "in" / "ref.20").read_text().splitlines(True)[:lines]))
    assert align([str(hyp), str(ref), "-t", atype] + (["-m", modules] if modules else [])) == 0
    assert capsys.readouterr().out == (JAR / "matcher" / f"{name}.out").read_text()


@needs_en
def test_align_json(capsys: pytest.CaptureFixture[str]) -> None:
    """JSON Lines: tokens, matches with module names and words, statistics."""
    from meteor_lite.cli.align import run as align

    assert align([str(JAR / "in" / "s1.20.hyp"), str(JAR / "in" / "ref.20"), "--norm", "--format", "json",
                  "-m", "exact stem synonym"]) == 0
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(recs) == 20 and recs[0]["segment"] == 1
    m = recs[0]["matches"][0]
    assert m["module"] == "exact" and m["hyp_words"] == m["ref_words"] == "barack"
    assert abs(recs[0]["score"] - 0.447752250844953) < 1e-12


# ----------------------------------------------------------------------------- -t with a bundle's tuned set


def test_tuned_set_of_the_bundle_as_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """``-t NAME`` of a tuned set the bundle carries (no jar has one): the header shows the set's values, which
    it can know only once the bundle is read, and the scores are the library's with that task."""
    from meteor_lite.config import TunedTask
    from meteor_lite_builders.tune.tasks import add_task
    from tiny_bundles import make_tiny_bundle

    bundle = make_tiny_bundle(tmp_path / "bundles" / "en.sqlite")
    add_task(bundle, TunedTask("tiny-tuned", 0.5, 1.0, 0.3, 0.6, ("exact", "synonym"), (1.0, 0.7), {}))
    monkeypatch.setenv("METEOR_LITE_BUNDLE_PATH", str(bundle.parent))
    hyp, ref = tmp_path / "h", tmp_path / "r"
    hyp.write_text("the big automobile is on the road\nmice ate it\n", encoding="utf-8")
    ref.write_text("the large car is on a road\nthe mouse ate it\n", encoding="utf-8")
    assert main([str(hyp), str(ref), "-l", "en", "-t", "tiny-tuned"]) == 0
    out = capsys.readouterr().out
    assert "Modules:        exact synonym\n" in out and "Weights:        1.0 0.7\n" in out
    assert "Parameters:     0.5 1.0 0.3 0.6\n" in out
    want = Meteor("en", task="tiny-tuned", bundle=bundle, quiet=True).score_corpus(
        ["the big automobile is on the road", "mice ate it"], [["the large car is on a road", "the mouse ate it"]])
    assert f"Final score:            {java_double(want.score)}\n" in out
    assert main([str(hyp), str(ref), "-l", "en", "-t", "no-such-set"]) == 1
    assert "unknown task 'no-such-set'" in capsys.readouterr().err


# ----------------------------------------------------------------------------- -a with very long phrases ----------


def test_paraphrase_table_of_long_phrases(tmp_path: Path) -> None:
    """A table of 1,000-word phrases (-a): every proper prefix is still flagged for the scorer's walk, but the
    prefixes are made and inserted one phrase at a time (the whole set of them once took 1.3 GB)."""
    import random
    import tracemalloc

    from meteor_lite.resources.bundle import Bundle
    from meteor_lite.resources.jarformat import write_jar_bundle

    rng = random.Random(26)
    phrases = [" ".join(f"w{rng.randrange(5000)}" for _ in range(1000)) for _ in range(30)]
    table = tmp_path / "long.para.gz"  # gzipped: the jar reads no other table (a plain one: ZipException)
    table.write_bytes(gzip.compress("".join(f"0.5\n{p}\n{p[::-1]}\n" for p in phrases).encode("utf-8")))
    tracemalloc.start()
    try:
        out = write_jar_bundle(tmp_path / "b.sqlite", language="en", paraphrase_file=table)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, f"peak {peak / 2**20:.1f} MiB (all prefixes at once: about 90 MiB)"
    half = " ".join(phrases[0].split()[:500])
    with Bundle.open(out) as bundle:
        found, prefixes = bundle.paraphrase_entries([phrases[0], half, phrases[0] + " x"])
        assert bundle.paraphrase_max_length() == 1000
    assert found == {phrases[0]: phrases[0][::-1]} and prefixes == {half}


def test_paraphrase_prefixes_by_order(tmp_path: Path) -> None:
    """meteor-jar's private bundle keeps no prefix rows: JarFilesBundle answers prefix queries from the order of the
    phrases (one range of the key per phrase), so the file holds only the phrases (a table of 200 phrases of 1,000
    words: 2 MB instead of 640 MB), and nothing is held in memory for them."""
    import sqlite3

    from meteor_lite.jarcli.setup import JarFilesBundle
    from meteor_lite.resources.jarformat import write_jar_bundle

    phrases = [" ".join(f"w{i}_{k}" for k in range(1000)) for i in range(3)] + ["a b", "a c", "a\x01", "ab c", "a!"]
    table = tmp_path / "t.para.gz"
    table.write_bytes(gzip.compress("".join(f"0.5\n{p}\n{p.upper()}\n" for p in phrases).encode("utf-8")))
    out = write_jar_bundle(tmp_path / "b.sqlite", language="en", paraphrase_file=table, prefix_rows=False)
    with sqlite3.connect(out) as conn:
        assert conn.execute("SELECT count(*), sum(prefix) FROM paraphrases").fetchone() == (8, 0)
    conn.close()
    bundle = JarFilesBundle.open(out)
    assert isinstance(bundle, JarFilesBundle)
    bundle.prefixes_by_order = True
    with bundle:
        half = " ".join(phrases[1].split()[:500])
        found, prefixes = bundle.paraphrase_entries([phrases[1], half, "a", "a b", "b", "ab", phrases[1] + " x", "w1"])
    assert found == {phrases[1]: phrases[1].upper(), "a b": "A B"} and prefixes == {half, "a", "ab"}


@needs_en
def test_paraphrase_file_scores_as_before(tmp_path: Path) -> None:
    """-a with a table whose phrases nest (a phrase, its prefixes, longer ones): the same statistics as the
    table put in a complete bundle (prefix rows) and scored through the library."""
    from meteor_lite.jarcli.options import parse_args
    from meteor_lite.jarcli.setup import build_scorer
    from meteor_lite.resources.bundle import Bundle
    from meteor_lite.resources.jarformat import write_jar_bundle

    table = tmp_path / "t.para.gz"
    rows = [("the cat", "a feline"), ("the cat sat", "the feline rested"), ("on the mat", "upon the rug"),
            ("sat on", "rested upon"), ("the big dog ran", "a large hound sprinted"), ("big dog", "large hound")]
    table.write_bytes(gzip.compress("".join(f"0.5\n{p}\n{q}\n" for p, q in rows).encode("utf-8")))
    hyps = ["the cat sat on the mat", "a big dog ran", "the feline rested upon the rug"]
    refs = ["a feline rested upon the rug", "the large hound sprinted", "the cat sat on the mat"]
    ours = build_scorer(parse_args(["h", "r", "-l", "en", "-m", "exact paraphrase", "-a", str(table)]))
    full = write_jar_bundle(tmp_path / "full.sqlite", language="en", base=find_bundle("en"), paraphrase_file=table)
    plain = Meteor("en", modules=["exact", "paraphrase"], bundle=Bundle.open(full), quiet=True)
    for h, r in zip(hyps, refs):
        assert ours.score_segment(h, [r]).stats == plain.score_segment(h, [r]).stats
    assert ours.score_segment(hyps[0], [refs[0]]).stats.to_ss_line() != "0"
