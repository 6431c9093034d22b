"""``meteor-lite align --type maxacc``: the jar aligner's maximum-accuracy alignment (meteor_lite/align/maxacc.py).

The byte-for-byte comparison with the jar's ``Matcher -t maxacc`` is in tests/test_jarcli.py (fixtures of
tests/fixtures/jar/matcher); the ``java`` test here runs the jar on more lines of the same files.  The
tests below check the rule itself on hand-made candidates and on a tiny bundle.
"""

from __future__ import annotations

import io
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import List, Tuple

import pytest

from meteor_lite import Meteor
from meteor_lite.align.matches import Match, collect_matches
from meteor_lite.align.maxacc import maxacc_alignment, maxacc_gains
from meteor_lite.align.search import search_alignment_pure
from meteor_lite.cli import run as cli_run
from tiny_bundles import make_tiny_bundle


def _tuples(matches: List[Match]) -> List[Tuple[int, int, int, int, int]]:
    return [m.as_tuple() for m in matches]


def test_one_word_matches_before_paraphrases() -> None:
    """A 2:2 paraphrase against a one-word synonym of the same words: maxcov takes the paraphrase (a one-word
    non-exact match adds nothing to its coverage), maxacc the synonym."""
    modules = ["synonym", "paraphrase"]

    def cands() -> List[List[Match]]:
        return [[Match(0, 0, 1, 1, 1, False), Match(1, 0, 2, 0, 2, False)], []]

    assert _tuples(search_alignment_pure(2, 2, cands(), 40)) == [(1, 0, 2, 0, 2)]
    assert _tuples(search_alignment_pure(2, 2, maxacc_gains(cands(), modules, 2, 2), 40)) == [(0, 0, 1, 1, 1)]


def test_paraphrase_where_no_one_word_match_competes() -> None:
    """A paraphrase over words no one-word match covers is taken, and the longer of two when nothing else differs."""
    modules = ["exact", "paraphrase"]
    cands = [[Match(0, 0, 1, 0, 1, True)], [Match(1, 1, 1, 1, 1, False), Match(1, 1, 2, 1, 3, False)], []]
    got = search_alignment_pure(4, 3, maxacc_gains(cands, modules, 4, 3), 40)
    assert _tuples(got) == [(0, 0, 1, 0, 1), (1, 1, 2, 1, 3)]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Meteor:
    return Meteor("en", bundle=make_tiny_bundle(tmp_path_factory.mktemp("b") / "en.sqlite"), quiet=True)


PAIRS = [
    ("the big car is here", "a large automobile is here"),
    ("we get rid of the mouse", "we remove the mice"),
    ("a lot of big mice of the car", "many large mice on a car of the"),
    ("the car the car the", "the the car car"),
]


@pytest.mark.parametrize("hyp, ref", PAIRS)
def test_exact_alone_gives_the_maxcov_alignment(tiny: Meteor, hyp: str, ref: str) -> None:
    """With the exact module only, both alignment types agree (as the jar's do)."""
    h, r = tiny.tokens(hyp), tiny.tokens(ref)
    maxcov = search_alignment_pure(len(h), len(r), collect_matches(h, r, ["exact"], tiny.resources), 40)
    maxacc, bounded = maxacc_alignment(h, r, ["exact"], tiny.resources, 40)
    assert _tuples(maxacc) == _tuples(maxcov) and not bounded


def test_align_command_maxacc(tiny: Meteor, tmp_path: Path) -> None:
    hyp, ref = tmp_path / "h", tmp_path / "r"
    hyp.write_text("the big car is here\n", encoding="utf-8")
    ref.write_text("a large automobile is here\n", encoding="utf-8")
    bundle = str(tiny.bundle.path) if tiny.bundle is not None else ""
    outs = {}
    for kind in ("maxcov", "maxacc"):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = cli_run(["align", str(hyp), str(ref), "--bundle", bundle, "-m", "exact synonym", "-t", kind])
        assert code == 0, err.getvalue()
        outs[kind] = out.getvalue().splitlines()[4:-1]
    # big~large and car~automobile are one-word synonyms: maxcov's coverage does not count them, maxacc's does
    assert "1:1\t\t\t1:1\t\t\t1\t\t1.0" in outs["maxacc"] and "2:1\t\t\t2:1\t\t\t1\t\t1.0" in outs["maxacc"]
    assert set(outs["maxcov"]) <= set(outs["maxacc"])


@pytest.mark.java
@pytest.mark.slow
def test_maxacc_equals_the_jar_on_200_example_lines(shared_data: Path, repo_root: Path, tmp_path: Path) -> None:
    """200 lines of the Meteor example files (all four English modules): the jar's Matcher -t maxacc output."""
    if not (repo_root / "resources" / "bundles" / "en.sqlite").is_file():
        pytest.skip("needs resources/bundles/en.sqlite (make bundles)")
    from meteor_lite_builders.jar import find_jar

    ex = shared_data / "meteor-example"
    hyp, ref = tmp_path / "h", tmp_path / "r"
    hyp.write_text("".join((ex / "system2.hyp").read_text(encoding="utf-8").splitlines(True)[:200]), encoding="utf-8")
    ref.write_text("".join((ex / "reference").read_text(encoding="utf-8").splitlines(True)[:200]), encoding="utf-8")
    jar = subprocess.run(["java", "-Xmx2G", "-cp", str(find_jar()), "Matcher", str(hyp), str(ref), "-l", "en",
                          "-t", "maxacc"], capture_output=True, check=True)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert cli_run(["align", str(hyp), str(ref), "-t", "maxacc"]) == 0
    assert out.getvalue() == jar.stdout.decode("utf-8")
