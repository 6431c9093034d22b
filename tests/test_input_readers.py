"""The input formats of the command line (meteor_lite/cli/readers.py): every registered reader on real data.

Files read, from ``../shared/data``: ``meteor-example/system1.hyp`` and ``meteor-example/reference`` (plain
files), the header and first :data:`TSV_ROWS` rows of ``wmt21/newstest2021.de-en.da.tsv.gz`` (a WMT systems file,
copied gzipped to a temporary folder) and ``meteor-example/test.sgm`` with
``meteor-example/ref.sgm`` (SGML).  Each reader must yield ``(hyp, refs)`` segments that agree with the file as
read here independently, name its format, and the text report must show that name.
"""

from __future__ import annotations

import argparse
import gzip
import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import pytest

from meteor_lite.cli.readers import READERS, PlainReader, SgmlReader, TsvReader, chosen_reader, reader_class
from meteor_lite.cli.scorer_options import ScorerOptions
from meteor_lite.errors import ConfigError, InputError

PLAIN_HYP = "meteor-example/system1.hyp"
PLAIN_REF = "meteor-example/reference"
TSV = "wmt21/newstest2021.de-en.da.tsv.gz"
TSV_ROWS = 60
SGML_TEST = "meteor-example/test.sgm"
SGML_REF = "meteor-example/ref.sgm"


def _plain(data: Path, folder: Path) -> Tuple[argparse.Namespace, List[str]]:
    hyps = (data / PLAIN_HYP).read_text(encoding="utf-8").splitlines()
    return argparse.Namespace(hypothesis=str(data / PLAIN_HYP), references=[str(data / PLAIN_REF)], refs_per_hyp=1), hyps


def _tsv_sample(data: Path, folder: Path) -> Tuple[Path, List[str]]:
    """The sample systems file (header and :data:`TSV_ROWS` rows) and its hypotheses."""
    with gzip.open(data / TSV, "rt", encoding="utf-8", newline="\n") as f:
        lines = [next(f).rstrip("\n") for _ in range(TSV_ROWS + 1)]
    path = folder / "sample.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8", newline="\n") as out:
        out.write("\n".join(lines) + "\n")
    hyp = lines[0].split("\t").index("hyp")
    return path, [line.split("\t")[hyp] for line in lines[1:]]


def _tsv(data: Path, folder: Path) -> Tuple[argparse.Namespace, List[str]]:
    path, hyps = _tsv_sample(data, folder)
    return argparse.Namespace(tsv=str(path)), hyps


def _sgml(data: Path, folder: Path) -> Tuple[argparse.Namespace, List[str]]:
    """The SGML sample and its test segments in Meteor 1.5's order: by document id, then segment number."""
    text = (data / SGML_TEST).read_text(encoding="utf-8")
    found = []
    for doc in re.finditer(r'<doc[^>]*docid="([^"]*)"[^>]*>(.*?)</doc>', text, re.S):
        for seg in re.finditer(r'<seg[^>]*id="?(\d+)"?[^>]*>(.*?)</seg>', doc.group(2)):
            found.append((doc.group(1), int(seg.group(1)), seg.group(2)))
    hyps = [h.replace("&quot;", '"').replace("&apos;", "'").replace("&lt;", "<").replace("&gt;", ">")
            .replace("&amp;", "&") for _, _, h in sorted(found, key=lambda f: (f[0], f[1]))]
    return argparse.Namespace(sgml=[str(data / SGML_TEST), str(data / SGML_REF)]), hyps


#: Per registered reader: the command line naming its sample, and the hypotheses of the sample read here.
SAMPLES: Dict[str, Callable[[Path, Path], Tuple[argparse.Namespace, List[str]]]] = {"plain": _plain, "tsv": _tsv, "sgml": _sgml}


def test_every_reader_has_a_sample() -> None:
    assert set(SAMPLES) == set(READERS), "a reader was registered without a sample here (or a sample left behind)"


@pytest.mark.parametrize("name", sorted(READERS))
def test_reader_yields_segments_and_names_its_format(name: str, shared_data: Path, tmp_path: Path) -> None:
    cls = READERS[name]
    assert cls.name == name and reader_class(name) is cls
    assert cls.format_name and "\n" not in cls.format_name
    args, hyps = SAMPLES[name](shared_data, tmp_path)
    assert chosen_reader(args) is cls
    with cls.from_args(args) as reader:
        segments = list(reader.segments())
    assert [h for h, _ in segments] == hyps
    for hyp, refs in segments:
        assert isinstance(hyp, str)
        assert any(isinstance(r, str) and r for r in refs)
        assert all(r is None or isinstance(r, str) for r in refs)


@pytest.mark.parametrize("name", sorted(READERS))
def test_the_report_shows_the_readers_format(name: str, shared_data: Path, tiny_bundle: Path, tmp_path: Path) -> None:
    """The text report of ``meteor-lite score`` (its one path for every reader) names the reader's format."""
    from meteor_lite.cli.score import score

    cls = READERS[name]
    args, _ = SAMPLES[name](shared_data, tmp_path)
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        score(lambda: cls.from_args(args), ScorerOptions(lang="en", bundle=str(tiny_bundle), jobs=1))
    formats = [line for line in out.getvalue().splitlines() if line.startswith("Format:")]
    assert formats == [f"Format:         {cls.format_name}"]


def test_score_tsv_report_names_the_tsv_format(shared_data: Path, tiny_bundle: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """``score --tsv`` (one score per system) names the format of the reader it reads with."""
    from meteor_lite.cli import run

    path, _ = _tsv_sample(shared_data, tmp_path)
    assert run(["score", "--tsv", str(path), "--lang", "en", "--bundle", str(tiny_bundle), "-j", "1"]) == 0
    assert f"Format:         {TsvReader.format_name}" in capsys.readouterr().out.splitlines()


def test_plain_files_are_the_default_reader() -> None:
    assert chosen_reader(argparse.Namespace(hypothesis="h", references=["r"], tsv=None)) is PlainReader


def test_an_unknown_format_names_the_registered_ones() -> None:
    with pytest.raises(ConfigError, match=r"no input format 'xml' \(formats: plain, tsv, sgml\)"):
        reader_class("xml")


def test_sgml_test_segment_without_reference_names_its_line(tmp_path: Path) -> None:
    test = tmp_path / "test.sgm"
    ref = tmp_path / "ref.sgm"
    test.write_text('<tstset setid="s">\n<doc sysid="a" docid="d1">\n<seg id="1"> one </seg>\n<seg id="2"> two </seg>\n'
                    "</doc>\n</tstset>\n", encoding="utf-8")
    ref.write_text('<refset setid="s">\n<doc sysid="ref" docid="d1">\n<seg id="1"> one </seg>\n</doc>\n</refset>\n',
                   encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{re.escape(str(test))}:4: segment 2 of document d1 has no reference"):
        SgmlReader(str(test), str(ref))


def test_malformed_sgml_is_an_input_error_naming_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sgm"
    bad.write_text('<tstset setid="s">\n<doc sysid="a" docid="d1">\n<seg id="1"> one </seg> <seg id="2"> two </seg>\n',
                   encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{re.escape(str(bad))}:3: two <seg> on one line"):
        SgmlReader(str(bad), str(bad))



def _sgml_files(tmp_path: Path, test_docs: str) -> Tuple[Path, Path]:
    test, ref = tmp_path / "test.sgm", tmp_path / "ref.sgm"
    test.write_text(f'<tstset setid="s">\n{test_docs}</tstset>\n', encoding="utf-8")
    ref.write_text('<refset setid="s">\n<doc sysid="ref" docid="d1">\n<seg id="1"> the cat sat </seg>\n'
                   '<seg id="2"> a dog ran </seg>\n<seg id="3"> birds sing </seg>\n</doc>\n</refset>\n', encoding="utf-8")
    return test, ref


def test_sgml_reference_segment_the_test_lacks_is_scored_empty(tmp_path: Path, tiny_bundle: Path) -> None:
    """As Meteor 1.5's -sgml: a segment of the system's document that it leaves out is scored as an empty
    hypothesis, with a warning, so the corpus score is that of the three segments, not of the two given."""
    from meteor_lite import Meteor
    from meteor_lite.errors import MeteorLiteWarning

    test, ref = _sgml_files(tmp_path, '<doc sysid="a" docid="d1">\n<seg id="3"> birds sing </seg>\n'
                                      '<seg id="1"> the cat sat </seg>\n</doc>\n')
    with pytest.warns(MeteorLiteWarning, match=r"no data for system \[a\] on segment \[s\]\[d1\]\[2\] - scoring empty"):
        segments = list(SgmlReader(str(test), str(ref)).segments())
    assert segments == [(" the cat sat ", [" the cat sat "]), ("", [" a dog ran "]), (" birds sing ", [" birds sing "])]
    m = Meteor("en", bundle=str(tiny_bundle), quiet=True)
    three = m.score_corpus([h for h, _ in segments], [[r[0] for _, r in segments]]).score
    two = m.score_corpus([" the cat sat ", " birds sing "], [[" the cat sat ", " birds sing "]]).score
    assert three < two == 1.0


def test_sgml_of_several_systems_is_refused(tmp_path: Path) -> None:
    test, ref = _sgml_files(tmp_path, '<doc sysid="a" docid="d1">\n<seg id="1"> the cat </seg>\n</doc>\n'
                                      '<doc sysid="b" docid="d1">\n<seg id="1"> a cat </seg>\n</doc>\n')
    with pytest.raises(InputError, match=r"2 systems \(s/a, s/b\): meteor-lite score scores one; meteor-jar .* -sgml"):
        SgmlReader(str(test), str(ref))


def test_score_sgml_on_the_command_line(shared_data: Path, tiny_bundle: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """``score --sgml TEST REFERENCE`` scores the SGML sets (the report names the format); beside files or --tsv it
    is a usage error."""
    from meteor_lite.cli import run

    test, ref = str(shared_data / SGML_TEST), str(shared_data / SGML_REF)
    assert run(["score", "--sgml", test, ref, "--lang", "en", "--bundle", str(tiny_bundle), "-j", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert f"Format:         {SgmlReader.format_name}" in out and any(line.startswith("Final score:") for line in out)
    for extra in (["h.txt"], ["--tsv", "x.tsv"]):
        assert run(["score", "--sgml", test, ref, *extra]) == 2
        assert "--sgml" in capsys.readouterr().err
