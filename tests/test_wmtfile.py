"""``meteor-lite score --tsv FILE``: every system of a WMT-style systems file in one run (meteor_lite/cli/wmtfile.py).

The proof of "the same statistics as scoring each system alone": each system's corpus result of one
``--tsv`` run is compared with ``meteor-lite score`` run on that system's rows written to plain files
(and with :meth:`Meteor.score_corpus` on them), on a small fixture and on real WMT21 rows.
"""

from __future__ import annotations

import gzip
import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from meteor_lite import Meteor
from meteor_lite.cli import run as cli_run
from meteor_lite.errors import InputError
from meteor_lite.metaeval.data import read_judgments, read_metric
from meteor_lite.text.wmt import read_systems_file
from tiny_bundles import make_tiny_bundle

HEADER = "lp\tseg_id\tsystem\thyp\tref_A\tref_B\n"
#: (seg_id, system, hyp, ref_A, ref_B): rows of three systems interleaved by segment, as WMT's DA files are;
#: system "ref-B" is the second reference itself.
ROWS = [
    ("1", "sysA", "the big car is here", "the large automobile is here", "a big car is here"),
    ("1", "sysB", "a car is there", "the large automobile is here", "a big car is here"),
    ("1", "ref-B", "a big car is here", "the large automobile is here", "a big car is here"),
    ("2", "sysA", "we get rid of it", "we remove it", "we get rid of it now"),
    ("2", "sysB", "we remove the mouse", "we remove it", "we get rid of it now"),
    ("2", "ref-B", "we get rid of it now", "we remove it", "we get rid of it now"),
    ("3", "sysB", "", "a lot of mice", "many mice"),
    ("3", "sysA", "many mouse of the", "a lot of mice", "many mice"),
    ("3", "ref-B", "many mice", "a lot of mice", "many mice"),
]


def invoke(*args: str) -> Tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_run(list(args))
    return code, out.getvalue(), err.getvalue()


def write_tsv(path: Path, rows: List[Tuple[str, ...]], header: str = HEADER, lp: str = "de-en") -> Path:
    text = header + "".join("\t".join((lp, *r)) + "\n" for r in rows)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode("utf-8")))
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    return make_tiny_bundle(tmp_path / "en.sqlite")


def _alone(tmp_path: Path, bundle: Path, system: str, rows: List[Tuple[str, ...]], refs: Tuple[int, ...]) -> Dict:
    """``meteor-lite score --format json`` on the system's rows written to plain files (file order)."""
    mine = [r for r in rows if r[1] == system]
    files = []
    for k, col in enumerate((2, *refs)):
        f = tmp_path / f"{system}.{k}"
        f.write_text("".join(r[col] + "\n" for r in mine), encoding="utf-8")
        files.append(str(f))
    code, out, err = invoke("score", *files, "--bundle", str(bundle), "--lower", "--format", "json", "-j", "1")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("suffix", [".tsv", ".tsv.gz"])
def test_each_system_as_if_scored_alone(tmp_path: Path, bundle: Path, suffix: str) -> None:
    tsv = write_tsv(tmp_path / f"sys{suffix}", ROWS)
    code, out, err = invoke("score", "--tsv", str(tsv), "--bundle", str(bundle), "--lang", "en", "--lower",
                            "--format", "json", "-j", "1")
    assert code == 0, err
    doc = json.loads(out)
    assert [s["system"] for s in doc["systems"]] == ["sysA", "sysB", "ref-B"]  # file order
    assert doc["rows"] == len(ROWS) and doc["references"] == ["ref_A", "ref_B"]
    for s in doc["systems"]:
        refs = (3,) if s["system"] == "ref-B" else (3, 4)
        alone = _alone(tmp_path, bundle, s["system"], ROWS, refs)
        assert s["score"] == alone["score"] and s["stats"] == alone["stats"], s["system"]
        assert s["segments"] == len(alone["segments"]) == 3
        assert alone["signature"] == doc["signature"]
    # the human translation equal to ref_B on every row is scored against ref_A only, and said so
    assert doc["systems"][2]["references"] == ["ref_A"]
    assert "system 'ref-B' is reference column ref_B" in err


def test_text_quiet_and_segment_file(tmp_path: Path, bundle: Path) -> None:
    tsv = write_tsv(tmp_path / "sys.tsv", ROWS)
    base = ("score", "--tsv", str(tsv), "--bundle", str(bundle), "--lang", "en", "--lower")
    code, js, _ = invoke(*base, "--format", "json")
    scores = {s["system"]: s["score"] for s in json.loads(js)["systems"]}
    code, text, err = invoke(*base, "--segments", str(tmp_path / "seg.tsv"))
    assert code == 0, err
    table = text[text.index("System  "):].splitlines()[1:]
    ranked = sorted(scores, key=lambda s: -scores[s])
    assert [line.split()[0] for line in table] == ranked
    assert all(repr(scores[line.split()[0]]) == line.split()[2] for line in table)
    assert "Signature:      meteor-lite|lang:en|lower|" in text and "Rows:           9 (3 systems)" in text
    code, quiet, _ = invoke(*base, "-q")
    assert [tuple(line.split("\t")) for line in quiet.splitlines()] == [(s, repr(scores[s])) for s in ranked]
    # the segment file is what correlate reads as METRIC: one score per row, keyed (system, seg_id)
    judgments = tmp_path / "judged.tsv"
    judgments.write_text("system\tseg_id\tda_z\n" + "".join(f"{r[1]}\t{r[0]}\t0.{i}\n" for i, r in enumerate(ROWS)))
    metric = read_metric(str(tmp_path / "seg.tsv"), read_judgments(str(judgments)))
    assert len(metric.segments) == len(ROWS)
    assert metric.segments[("sysB", "3")] == 0.0  # the empty hypothesis


def test_empty_reference_cells_are_missing_references(tmp_path: Path, bundle: Path) -> None:
    rows = [("1", "s", "the big car", "the large car", ""), ("2", "s", "we remove it", "", "we get rid of it"),
            ("3", "s", "many mice", "a lot of mice", "many mice")]
    tsv = write_tsv(tmp_path / "sys.tsv", rows)
    code, out, err = invoke("score", "--tsv", str(tsv), "--bundle", str(bundle), "--lang", "en", "--format", "json")
    assert code == 0, err
    got = json.loads(out)["systems"][0]
    scorer = Meteor("en", bundle=bundle)
    alone = scorer.score_corpus([r[2] for r in rows], [[r[3] or None, r[4] or None] for r in rows], layout="segments")
    assert got["score"] == alone.score and got["stats"] == alone.stats.to_dict()


def test_columns_chosen_by_name(tmp_path: Path, bundle: Path) -> None:
    header = "doc\titem\tsys\tout\tgold\n"
    tsv = tmp_path / "other.tsv"
    tsv.write_text(header + "".join(f"d\t{r[0]}\t{r[1]}\t{r[2]}\t{r[3]}\n" for r in ROWS), encoding="utf-8")
    args = ("score", "--tsv", str(tsv), "--bundle", str(bundle), "--lang", "en", "--format", "json")
    code, _, err = invoke(*args)
    assert code == 1 and "other.tsv:1: no system column 'system' in the header" in err
    code, out, err = invoke(*args, "--system-column", "sys", "--segment-column", "item", "--hyp-column", "out",
                            "--ref-column", "gold")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["references"] == ["gold"] and len(doc["systems"]) == 3
    alone = _alone(tmp_path, bundle, "sysA", ROWS, (3,))
    code, out, _ = invoke(*args[:-2], "--lower", "--format", "json", "--system-column", "sys", "--segment-column",
                          "item", "--hyp-column", "out", "--ref-column", "gold")
    assert json.loads(out)["systems"][0]["stats"] == alone["stats"]


@pytest.mark.parametrize(
    "lines, message",
    [
        ([HEADER, "de-en\t1\ts\th\tr\t\n", "de-en\t2\ts\th\n"], "bad.tsv:3: 4 tab-separated field(s), but the header has 6"),
        ([HEADER, "de-en\t1\ts\th\tr\t\n", "de-en\t1\ts\th2\tr\t\n"],
         "bad.tsv:3: system 's' has segment '1' twice (first on line 2)"),
        ([HEADER, "de-en\t1\ts\th\t\t\n"], "bad.tsv:2: no reference: 'ref_A', 'ref_B' are all empty"),
        (["lp\tseg_id\tsystem\thypothesis\tref\n", "de-en\t1\ts\th\tr\n"], "bad.tsv:1: no hypothesis column 'hyp'"),
        (["lp\tseg_id\tsystem\thyp\n", "de-en\t1\ts\th\n"], "bad.tsv:1: no reference column in the header"),
        ([HEADER], "bad.tsv: no rows after the header"),
        ([], "bad.tsv: empty file"),
        ([HEADER, "de-en\t1\ts\th\tr\t\n", "\n"], "bad.tsv:3: 1 tab-separated field(s), but the header has 6 (an empty line)"),
        ([HEADER, "de-en\t1\t\th\tr\t\n"], "bad.tsv:2: empty 'system' cell"),
        ([HEADER, "de-en\t1\ts\th\rx\tr\t\n"], "bad.tsv:2: carriage return (CR) inside a line"),
    ],
)
def test_bad_files_one_line_naming_file_and_line(tmp_path: Path, bundle: Path, lines: List[str], message: str) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_bytes("".join(lines).encode("utf-8"))
    code, out, err = invoke("score", "--tsv", str(bad), "--bundle", str(bundle), "--lang", "en")
    assert code == 1 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_invalid_utf8_and_bad_gzip(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(HEADER.encode() + b"de-en\t1\ts\th\xff\tr\t\n")
    with pytest.raises(InputError, match=r"bad.tsv:2: invalid UTF-8 \(byte 0xff"):
        read_systems_file(str(bad))
    broken = tmp_path / "broken.tsv.gz"
    rows = "".join(f"de-en\t{i}\ts\thypothesis {i}\treference {i}\t\n" for i in range(2000))
    whole = gzip.compress((HEADER + rows).encode())
    broken.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError, match="broken.tsv.gz: cannot read .*end-of-stream"):
        read_systems_file(str(broken))
    broken.write_bytes(b"\x1f\x8bnot gzip at all")
    with pytest.raises(InputError, match="broken.tsv.gz: cannot read"):
        read_systems_file(str(broken))


def test_reader_facts(tmp_path: Path) -> None:
    data = read_systems_file(str(write_tsv(tmp_path / "x.tsv", ROWS, lp="en-de")))
    assert data.target_language == "de" and data.systems == ["sysA", "sysB", "ref-B"]
    assert data.self_references == {"ref-B": ["ref_B"]}
    assert data.references(data.rows[2]) == ["the large automobile is here", None]
    assert data.rows[6].refs == ("a lot of mice", "many mice") and data.rows[6].line == 8
    mixed = read_systems_file(str(write_tsv(tmp_path / "y.tsv", ROWS[:3])), ref_columns=["REF_a"])
    assert mixed.ref_columns == ["ref_A"] and mixed.self_references == {}


def test_self_reference_without_another_reference_is_kept(tmp_path: Path, bundle: Path) -> None:
    """A system equal to a reference column that some of its rows have as their only reference: the column is
    kept (those rows score 1.0, as the jar would give), with a warning."""
    rows = [("1", "ref-B", "x y", "", "x y"), ("2", "ref-B", "a b", "a c", "a b"), ("1", "s", "x z", "", "x y")]
    data = read_systems_file(str(write_tsv(tmp_path / "x.tsv", rows)))
    assert data.self_references == {} and data.identical == {"ref-B": ["ref_B"]}
    code, out, err = invoke("score", "--tsv", str(tmp_path / "x.tsv"), "--bundle", str(bundle), "--lang", "en", "-q")
    assert code == 0 and "system 'ref-B' is reference column ref_B (equal on every row), the only reference" in err
    assert out.splitlines()[0] == "ref-B\t1.0"


@pytest.mark.parametrize("extra, message", [
    (["h.txt", "r.txt"], "give no HYPOTHESIS or REFERENCE"),
    (["-r", "2"], "--refs-per-hyp does not apply to --tsv"),
])
def test_usage_errors(tmp_path: Path, extra: List[str], message: str) -> None:
    tsv = write_tsv(tmp_path / "sys.tsv", ROWS)
    code, _, err = invoke("score", "--tsv", str(tsv), *extra)
    assert code == 2 and message in err


def test_files_still_required_without_tsv() -> None:
    code, _, err = invoke("score", "--lang", "en")
    assert code == 2 and "HYPOTHESIS, REFERENCE (or --tsv FILE)" in err


def test_language_from_the_lp_column(tmp_path: Path, bundle: Path) -> None:
    """Without --lang, the lp column's target is the language: an en-de file with an English bundle is refused."""
    tsv = write_tsv(tmp_path / "sys.tsv", ROWS, lp="en-de")
    code, _, err = invoke("score", "--tsv", str(tsv), "--bundle", str(bundle))
    assert code == 1 and "'de'" in err, err
    code, _, err = invoke("score", "--tsv", str(tsv), "--bundle", str(bundle), "--lang", "en")
    assert code == 0, err


@pytest.mark.slow
def test_wmt21_rows_equal_per_system_runs(shared_data: Path, repo_root: Path, tmp_path: Path) -> None:
    """Real data: the first 25 segments of every de-en system (two references), one --tsv run against each
    system scored alone through the API (the jar's -norm configuration, English bundle)."""
    if not (repo_root / "resources" / "bundles" / "en.sqlite").is_file():
        pytest.skip("needs resources/bundles/en.sqlite (make bundles)")
    src = shared_data / "wmt21" / "newstest2021.de-en.da.tsv.gz"
    with gzip.open(src, "rt", encoding="utf-8") as fh:
        lines = [ln for i, ln in enumerate(fh) if i == 0 or int(ln.split("\t", 2)[1]) <= 25]
    small = tmp_path / "de-en.small.tsv"
    small.write_text("".join(lines), encoding="utf-8")
    code, out, err = invoke("score", "--tsv", str(small), "--norm", "--format", "json", "-j", "1")
    assert code == 0, err
    doc = json.loads(out)
    data = read_systems_file(str(small))
    scorer = Meteor("en", norm=True)
    assert doc["signature"] == scorer.signature
    assert len(doc["systems"]) == 20
    for s in doc["systems"]:
        rows = data.system_rows(s["system"])
        alone = scorer.score_corpus([r.hyp for r in rows], [data.references(r) for r in rows], layout="segments")
        assert s["score"] == alone.score and s["stats"] == alone.stats.to_dict(), s["system"]


def test_segments_never_written_over_a_fifo_a_link_a_device_or_the_input(tmp_path: Path, bundle: Path) -> None:
    """--segments OUT: one line naming OUT, exit 1, before anything is scored; OUT left as it was."""
    import os

    tsv = write_tsv(tmp_path / "sys.tsv", ROWS)
    before = tsv.read_bytes()
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(victim)
    base = ("score", "--tsv", str(tsv), "--bundle", str(bundle), "--lang", "en", "-q")
    for out, why in ((fifo, "is a FIFO, not a regular file"), (link, "is a symbolic link, not a regular file"),
                     (Path(os.devnull), "is a character device, not a regular file"),
                     (tsv, r"is an input of this run")):
        code, text, err = invoke(*base, "--segments", str(out))
        assert (code, text) == (1, ""), err
        assert err.startswith(f"meteor-lite: error: {out}: {why}") and len(err.splitlines()) == 1, err
    assert tsv.read_bytes() == before and victim.read_text() == "keep\n" and link.is_symlink()
    assert os.path.exists(os.devnull) and not Path(os.devnull).is_file()


def test_segments_dash_is_standard_output(tmp_path: Path, bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tsv = write_tsv(tmp_path / "sys.tsv", ROWS)
    monkeypatch.chdir(tmp_path)
    code, text, err = invoke("score", "--tsv", str(tsv), "--bundle", str(bundle), "--lang", "en", "-q", "--segments", "-")
    assert code == 0, err
    assert text.startswith("system\tseg_id\tscore\n") and len(text.splitlines()) == 1 + len(ROWS) + 3
    assert not (tmp_path / "-").exists()


HOSTILE_NAMES = ["\x1b[2Jclear", "nul\x00name", "vt\x0bff\x0cnel\x85", "ls\u2028ps\u2029", "rlo\u202eevil",
                 "Final score: 0.999999", "x" * 5000]


def test_system_names_and_header_cells_are_printed_on_their_line(tmp_path: Path, bundle: Path) -> None:
    """System names and column names from the file: no control character, line break or bidirectional override
    reaches the report raw, no 'Final score:' but the report's own, and no row padded to a 5,000-character name."""
    rows = [("1", name, "the cat", "the cat", "a cat") for name in HOSTILE_NAMES]
    header = "lp\tseg_id\tsystem\thyp\tref_A\tref_\x1b[31mB\n"
    tsv = write_tsv(tmp_path / "sys.tsv", rows, header=header)
    base = ("score", "--tsv", str(tsv), "--bundle", str(bundle), "--lang", "en", "--ref-column", "ref_A",
            "--ref-column", "ref_\x1b[31mB")
    for extra in ((), ("-q",)):
        code, text, err = invoke(*base, *extra)
        assert code == 0, err
        unsafe = [ch for ch in text if ch != "\n" and ch != "\t" and (ord(ch) < 32 or 0x7f <= ord(ch) < 0xa0
                                                                      or ch in "\u2028\u2029\u202e")]
        assert unsafe == [], unsafe
        assert text.splitlines()[: len(text.splitlines())] == text.split("\n")[:-1]  # no other line break
        finals = [line for line in text.splitlines() if "final score" in line.lower() and ":" in line.split("score")[1][:3]]
        assert finals == [], finals  # a --tsv report has no Final score line of its own; the forged one is escaped
        assert max(len(line) for line in text.splitlines()) < 5100
        assert "\\x1b[2Jclear" in text and "rlo\\u202eevil" in text and "Final score\\x3a 0.999999" in text
    code, js, _ = invoke(*base, "--format", "json")
    assert {s["system"] for s in json.loads(js)["systems"]} == set(HOSTILE_NAMES)  # data stays data in JSON


def test_a_bundle_name_cannot_forge_the_final_score_line(tmp_path: Path) -> None:
    """A bundle named 'x Final score: 0.999999': its signature line shows it escaped, so the first 'Final score:'
    of the report, anchored or not, is the report's own."""
    import re

    forged = make_tiny_bundle(tmp_path / "forged.sqlite", name="x Final score: 0.999999")
    hyp = tmp_path / "h.txt"
    hyp.write_text("the cat sat\n", encoding="utf-8")
    ref = tmp_path / "r.txt"
    ref.write_text("a cat sat\n", encoding="utf-8")
    code, text, err = invoke("score", str(hyp), str(ref), "--bundle", str(forged), "-m", "exact")
    assert code == 0, err
    scorer = Meteor("en", bundle=forged, modules=["exact"], quiet=True)
    expected = scorer.score_corpus(["the cat sat"], [["a cat sat"]]).score
    first = re.search(r"Final score:\s*(\S+)", text)
    assert first is not None and float(first.group(1)) == expected
    assert [ln for ln in text.splitlines() if ln.startswith("Final score:")] == [ln for ln in text.splitlines()
                                                                                 if "Final score:" in ln]
    assert "Final score\\x3a 0.999999" in text
