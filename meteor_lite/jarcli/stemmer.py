"""The jar's standalone stemmer: ``python -m meteor_lite.jarcli.stemmer LANG < in > out``.

Replaces ``java -cp meteor-1.5.jar Stemmer LANG < in > out`` (established by running the jar):
each input line (read as UTF-8, a malformed sequence becoming U+FFFD as Java counts them; a line ends
at ``\\n``, ``\\r\\n`` or a lone ``\\r``) is split at spaces, tabs, form feeds, every token is stemmed by
Meteor 1.5's own Snowball stemmer for the language (:mod:`meteor_lite.stemmers`), except a token made only
of digits and ``, . -`` (the program leaves numbers alone; the scorer stems them), case and
punctuation untouched; the stems are joined by single spaces and the line is trimmed as Java's
``String.trim`` does (characters up to U+0020 at both ends), one output line per input line (a final
line without a newline gets one).  Without exactly one argument the jar's usage text goes to stderr
(exit 1); ``-h`` or ``--help`` prints it on stdout (exit 0).  ``LANG`` is a Meteor language code or long name with a stemmer (``en``, ``english``,
``sv``/``se``, ...); any other is a one-line error (exit 1) where the jar prints a stack trace.
Needs no bundle.  Byte-identical to the jar (Java 17, UTF-8 locale) on more than a million words per
language and on the example files (``meteor-build check stems``).
"""

from __future__ import annotations

import re
import sys
from typing import IO, Callable, Iterator, List, Optional

from ..errors import MeteorLiteError
from ..jarcompat import java_trim, java_utf8_decode, java_utf8_encode
from ..stemmers import is_jar_number

__all__ = ["main", "stem_line", "input_lines", "USAGE"]

PROG = "meteor-jar-stemmer"
USAGE = ("Snowball stem some text in a supported language\n"
         "Languages: en ar da de es fi fr hu it nl no pt ro ru se tr\n"
         "Usage: Stemmer lang < in > out\n")

#: Arguments that ask for the usage text (on stdout, exit 0); the jar would take them for a language.
HELP_OPTIONS = ("-h", "--help")

_DELIMS = re.compile(r"[ \t\n\r\f]+")


def stem_line(line: str, stems: Callable[[List[str]], List[str]]) -> str:
    """One output line: the tokens of ``line`` (split at space, tab, CR, LF, FF) stemmed, joined by spaces, trimmed."""
    tokens = [t for t in _DELIMS.split(line) if t]
    return java_trim(" ".join(stems(tokens)))


def input_lines(stream: IO[bytes]) -> Iterator[str]:
    """Lines of a byte stream as the jar reads them (ends: LF, CRLF, lone CR; UTF-8, malformed bytes U+FFFD)."""
    for raw in stream:
        text = java_utf8_decode(raw)
        if text.endswith("\n"):
            text = text[:-1]
        if text.endswith("\r"):  # the CR of CRLF, or a lone CR ending the input
            text = text[:-1]
        yield from text.split("\r")


class StemFn:
    """Stems of a token list as the jar's ``Stemmer`` program gives them for one language."""

    def __init__(self, lang: str):
        from ..languages import LANGUAGES, language_alias
        from ..resources.stemming import meteor15_stemmer_name, stem_function

        code = language_alias(lang)
        stem = stem_function(meteor15_stemmer_name(code))
        if stem is None:
            name = LANGUAGES[code][0] if code in LANGUAGES else "other"
            raise MeteorLiteError(f"No stemmer for language ({name})" if code else "Unknown language ()")
        self.stem = stem

    def __call__(self, tokens: List[str]) -> List[str]:
        stem = self.stem
        return [t if is_jar_number(t) else stem(t) for t in tokens]


def main(argv: Optional[List[str]] = None) -> int:
    """Run the stemmer on stdin; the exit code."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 1 and args[0] in HELP_OPTIONS:
        sys.stdout.write(f"usage: {PROG} LANG < in > out   (the Meteor 1.5 jar's Stemmer program)\n" + USAGE)
        return 0
    if len(args) != 1:
        sys.stderr.write(USAGE)
        return 1
    try:
        stems = StemFn(args[0])
    except MeteorLiteError as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        return 1
    out = sys.stdout.buffer
    for line in input_lines(sys.stdin.buffer):
        out.write(java_utf8_encode(stem_line(line, stems) + "\n"))
    out.flush()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
