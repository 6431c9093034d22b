"""Numbers in ``-stdio`` EVAL/SING requests: which forms the jar reads, which it dies on.

The jar reads each statistic with ``java.util.Scanner.nextDouble`` (here in an English locale): the
token must be a decimal number (ASCII or other scripts' digits, ``,`` grouping by three, an exponent),
a hexadecimal literal with a ``.`` *and* a binary exponent, or ``NaN`` / ``Infinity``, each with an
optional sign; anything else kills the process.  ``tests/fixtures/jar/eval_numbers.json`` holds the
jar's outcome for every token of :data:`TOKENS` (each put as the first of 23 statistics of an EVAL
line): its two answer lines, or ``"fatal"``.  The Java-free test checks meteor-jar against that
fixture; the ``java`` test checks the fixture against the jar.  Regenerate the fixture with
``.venv/bin/python tests/test_jar_numbers.py --write`` (needs Java).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Union

import pytest

from meteor_lite.resources.locate import find_bundle

needs_en = pytest.mark.skipif(find_bundle("en") is None, reason="no English bundle: run `make bundles`")

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "jar" / "eval_numbers.json"

#: The other 22 statistics of the EVAL line (a real SCORE answer, its first number taken out).
REST = "6.0 3.0 3.0 3.0 3.0 1.0 1.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 2.0 4.0 4.0"

#: Forms of a number (mostly of 6, so that an accepted form gives the same score as "6").
TOKENS: List[str] = [
    "6", "6.0", "+6", "-6", "6.", ".6", "06", "+.5", "-.5e1",
    "6e0", "6E0", "0.6e1", "6e+0", "60e-1", "1e400", "1e-400", "6e", "e6", "--6", "6e0.5",
    "6d", "6f", "6D", "6F", "6.0d",
    "NaN", "nan", "+NaN", "Infinity", "+Infinity", "-Infinity", "inf",
    "0x6", "0x6.0", "0x1.8p2", "0x1p3", "0x1.8", "0X1.8P2", "0x.Cp3", "0x",
    "6_0", "1_000", "6,000", "60,00", "6,0", "1,000,000",
    "\u0666", "\u06f6", "\uff16", "\U0001d7d4", "\u096c", "\u0666.\u0660", "6\u066b0", "\u0666e0", "\uff16e\uff10",
    "\u0661\u066c\u0660\u0660\u0660", "\u0661,\u0660\u0660\u0660",
    " 6 ", "\t6", "6\u00a0", "\u20036", "\u30006", "\u00856", "6\u001c", "6\u2007", "\u202f6",
]

Outcome = Union[List[str], str]  # the answer lines, or "fatal"


def request(token: str) -> str:
    """The EVAL line with ``token`` as its first statistic."""
    return f"EVAL ||| {token} {REST}"


def outcomes(cmd: Sequence[str], tokens: Sequence[str]) -> Dict[str, Outcome]:
    """Each token's outcome under the ``-stdio`` server ``cmd``: one process answers tokens until one kills it,
    then the next process starts after that token."""
    out: Dict[str, Outcome] = {}
    left = list(tokens)
    while left:
        data = "".join(request(t) + "\n" for t in left).encode("utf-8")
        proc = subprocess.run(list(cmd), input=data, capture_output=True, timeout=300)
        lines = proc.stdout.decode("utf-8").splitlines()
        answered = len(lines) // 2
        for i in range(answered):
            out[left[i]] = lines[2 * i: 2 * i + 2]
        if proc.returncode == 0:
            assert answered == len(left), proc.stderr
            break
        out[left[answered]] = "fatal"
        left = left[answered + 1:]
    return out


def jar_command() -> List[str]:
    """The jar's -stdio server (English, -norm)."""
    from meteor_lite_builders import jar as jarmod

    java = shutil.which("java")
    assert java is not None
    return [java, "-Xmx2G", "-jar", str(jarmod.find_jar()), "-", "-", "-stdio", "-l", "en", "-norm"]


OURS = [sys.executable, "-m", "meteor_lite.jarcli", "-", "-", "-stdio", "-l", "en", "-norm"]


def _fixture() -> Dict[str, Outcome]:
    data: Dict[str, Outcome] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


def test_fixture_covers_the_tokens() -> None:
    """Every token has a recorded outcome, and both kinds occur."""
    data = _fixture()
    assert sorted(data) == sorted(TOKENS)
    assert "fatal" in data.values() and any(v != "fatal" for v in data.values())


@needs_en
def test_meteor_jar_reads_numbers_as_the_jar() -> None:
    """meteor-jar's -stdio server answers the forms the jar answers, with the same scores, and dies where the
    jar dies (in this process: one scorer, each request answered or fatal)."""
    from meteor_lite.jarcli.options import parse_args
    from meteor_lite.jarcli.setup import build_scorer
    from meteor_lite.jarcli.stdio import FatalRequest, StdioServer

    server = StdioServer(build_scorer(parse_args(OURS[3:])))
    expected = _fixture()
    for token in TOKENS:
        answers: List[str] = []
        try:
            server.answer(request(token), answers.append)
            got: Outcome = answers
        except FatalRequest:
            got = "fatal"
        assert got == expected[token], f"{token!r}: {got} (the jar: {expected[token]})"


@needs_en
def test_fatal_number_ends_the_process() -> None:
    """As a process: answers before the bad number, then a one-line fatal message and exit 1."""
    data = (request("6") + "\n" + request("0x1p3") + "\n" + request("6") + "\n").encode()
    proc = subprocess.run(OURS, input=data, capture_output=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stdout.decode().splitlines() == _fixture()["6"]
    assert proc.stderr.decode() == "meteor-jar: fatal: not a number in Meteor stats: '0x1p3'\n"


@pytest.mark.java
@pytest.mark.slow
def test_fixture_is_the_jars() -> None:
    """The fixture is what the jar does: one jar process per token it dies on, about 40 (1-3 minutes)."""
    assert outcomes(jar_command(), TOKENS) == _fixture()


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        FIXTURE.write_text(json.dumps(outcomes(jar_command(), TOKENS), ensure_ascii=False, indent=1) + "\n",
                           encoding="utf-8")
        print(f"wrote {FIXTURE}")
