"""``python -m meteor_lite.jarcli.stemmer``: the jar's ``Stemmer`` main class, output byte for byte.

Fixtures (tests/fixtures/jar/stemmer/): ``in.txt`` (tabs, a vertical tab, CRLF, lone CRs, a no-break
space, an empty line, a last line without newline, 30 lines of the example's text) and the jar's
output for it: ``java -cp meteor-1.5.jar Stemmer LANG < in.txt > LANG.out`` (Java 17, UTF-8 locale).
``odd/in.txt`` (the words where the jar's Snowball release differs from snowballstemmer 2.2.0: German
``-nisse``, Finnish ``-seen``, Hungarian ``ő``, Russian ``ё``, French ``ï``/``ë``, Portuguese ``õ``; numbers the
program leaves alone; characters beyond U+FFFF; control characters at the ends of a line (Java's trim);
malformed UTF-8, an encoded surrogate; Turkish and German case pairs) and the jar's output for it in all
15 stemmed languages, recorded the same way.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from meteor_lite.jarcli.stemmer import USAGE, input_lines, main, stem_line

FIX = Path(__file__).resolve().parent / "fixtures" / "jar" / "stemmer"


@pytest.mark.parametrize("lang", ["en", "fr", "de", "se"])
def test_same_bytes_as_the_jar(lang: str) -> None:
    """Every line as the jar writes it (no bundle needed)."""
    proc = subprocess.run([sys.executable, "-m", "meteor_lite.jarcli.stemmer", lang], input=(FIX / "in.txt").read_bytes(),
                          capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (FIX / f"{lang}.out").read_bytes()
    assert proc.stderr == b""


@pytest.mark.parametrize("lang", ["da", "de", "en", "es", "fi", "fr", "hu", "it", "nl", "no", "pt", "ro", "ru", "se", "tr"])
def test_odd_words_as_the_jar(lang: str, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    """The words where Snowball releases differ, numbers, astral characters, control characters, bad UTF-8: the jar's bytes."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((FIX / "odd" / "in.txt").read_bytes())))
    assert main([lang]) == 0
    assert capsysbinary.readouterr().out == (FIX / "odd" / f"{lang}.out").read_bytes()


def test_lines_and_tokens() -> None:
    """Line ends LF, CRLF, lone CR; tokens split at space, tab, CR, LF, FF only."""
    assert list(input_lines(io.BytesIO(b"a\r\nb\rc\n\nd\r"))) == ["a", "b", "c", "", "d"]
    assert list(input_lines(io.BytesIO(b"x\r\r\ny"))) == ["x", "", "y"]

    def upper(tokens: List[str]) -> List[str]:
        return [t.upper() for t in tokens]

    assert stem_line("  a\tb\x0bc \x0cd\u00a0e  ", upper) == "A B\x0bC D\u00a0E"
    assert stem_line("", upper) == ""


def test_usage_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    """Not one argument: the jar's usage on stderr, exit 1; a language without stemmer: one line, exit 1."""
    assert main([]) == 1
    assert capsys.readouterr().err == USAGE
    assert main(["en", "extra"]) == 1
    assert capsys.readouterr().err == USAGE
    assert main(["cz"]) == 1
    assert capsys.readouterr().err == "meteor-jar-stemmer: error: No stemmer for language (czech)\n"
    assert main(["xx"]) == 1
    assert "No stemmer for language (other)" in capsys.readouterr().err
