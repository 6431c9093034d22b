"""Moses-format phrase tables: reading and writing, streamed.

A Moses phrase table has one phrase pair per line::

    src ||| tgt ||| scores ||| alignment ||| counts

with ``scores`` = ``p(src|tgt) lex(src|tgt) p(tgt|src) lex(tgt|src)`` (Moses
may add a fifth, constant phrase penalty), ``alignment`` the word links
``i-j`` (source position ``i``, target position ``j``) and ``counts`` =
``count(tgt) count(src) count(src, tgt)``.  Only the first three fields are
required when reading.  Files may be plain text or gzip (by content, not name).

For paraphrasing a language E by pivoting through a language F, the table is
read with ``src`` = F (the pivot) and ``tgt`` = E, so ``scores[0]`` is
``p(f|e)`` and ``scores[2]`` is ``p(e|f)`` -- the columns Meteor's Parex uses
(established by running it).
"""

from __future__ import annotations

import gzip
import io
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import IO, Iterable, Iterator, List, Tuple

from meteor_lite.text.normalize import tokenize

from ..errors import PhraseTableError

SEP = " ||| "
#: the delimiters of :func:`norm_phrase` (Java's StringTokenizer: `` \t\n\r\f``) as a regular-expression
#: character class that RE2 (DuckDB) and Java (Spark) read alike, for the SQL engines of the pivot
TOKEN_DELIMITER_CLASS = r"[ \t\n\r\f]"


@dataclass(frozen=True)
class PhrasePair:
    """One line of a Moses phrase table."""

    src: str
    tgt: str
    scores: Tuple[float, ...]
    alignment: str = ""
    counts: str = ""

    @property
    def p_src_given_tgt(self) -> float:
        """``scores[0]``: phrase translation probability p(src|tgt)."""
        return self.scores[0]

    @property
    def p_tgt_given_src(self) -> float:
        """``scores[2]``: phrase translation probability p(tgt|src)."""
        return self.scores[2]


def open_text(path: "os.PathLike[str] | str", mode: str = "rt") -> IO[str]:
    """Open a text file that may be gzip-compressed (detected by its magic bytes), as UTF-8.

    Invalid UTF-8 raises :class:`UnicodeDecodeError` when read (never silently replaced).
    """
    if "w" in mode:
        if str(path).endswith(".gz"):
            return gzip.open(path, "wt", encoding="utf-8", compresslevel=6, newline="\n")
        return open(path, "w", encoding="utf-8", newline="\n")
    with open(path, "rb") as fb:
        magic = fb.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="\n")
    return open(path, "r", encoding="utf-8", newline="\n")


def norm_phrase(text: str) -> str:
    """A phrase with its whitespace collapsed (tokens split as Meteor splits them, joined by one space)."""
    return " ".join(tokenize(text))


def parse_line(line: str, where: str = "") -> PhrasePair:
    """Parse one phrase-table line; raise :class:`PhraseTableError` naming ``where`` if malformed."""
    fields = line.rstrip("\r\n").split(SEP)
    if len(fields) < 3:
        raise PhraseTableError(f"{where}: expected 'src ||| tgt ||| scores [||| alignment ||| counts]', got {line[:200]!r}")
    src, tgt = norm_phrase(fields[0]), norm_phrase(fields[1])
    if not src or not tgt:
        raise PhraseTableError(f"{where}: empty phrase in {line[:200]!r}")
    try:
        scores = tuple(float(x) for x in fields[2].split())
    except ValueError:
        raise PhraseTableError(f"{where}: scores are not numbers: {fields[2][:200]!r}") from None
    if len(scores) < 3:
        raise PhraseTableError(
            f"{where}: need at least 3 scores (p(src|tgt) lex(src|tgt) p(tgt|src) ...), got {len(scores)}"
        )
    return PhrasePair(src, tgt, scores, fields[3].strip() if len(fields) > 3 else "", fields[4].strip() if len(fields) > 4 else "")


def read_phrase_table(path: "os.PathLike[str] | str") -> Iterator[PhrasePair]:
    """Stream the pairs of a Moses phrase table (plain or gzip), in file order.

    Blank lines are skipped; a malformed line raises :class:`PhraseTableError`
    with the file name and line number.
    """
    with open_text(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            yield parse_line(line, f"{path}:{n}")


def format_float(x: float) -> str:
    """Shortest text that reads back as the same double (Python's ``repr``)."""
    return repr(float(x))


def format_pair(pair: PhrasePair) -> str:
    """One phrase-table line (with a trailing newline)."""
    scores = " ".join(format_float(s) for s in pair.scores)
    return f"{pair.src}{SEP}{pair.tgt}{SEP}{scores}{SEP}{pair.alignment}{SEP}{pair.counts}\n"


def write_phrase_table(path: "os.PathLike[str] | str", pairs: Iterable[PhrasePair]) -> int:
    """Write pairs as a Moses phrase table (gzip when ``path`` ends in ``.gz``); return the number written."""
    n = 0
    with open_text(path, "wt") as out:
        for p in pairs:
            out.write(format_pair(p))
            n += 1
    return n


def alignment_points(text: str) -> List[Tuple[int, int]]:
    """Parse ``"0-0 1-2"`` into ``[(0, 0), (1, 2)]``."""
    out = []
    for tok in text.split():
        i, _, j = tok.partition("-")
        out.append((int(i), int(j)))
    return out


def open_for_write(path: "os.PathLike[str] | str") -> IO[str]:
    """Open ``path`` for writing UTF-8 text (gzip when it ends in ``.gz``)."""
    return open_text(path, "wt")


@lru_cache(maxsize=None)
def python_space_class() -> str:
    """Every character :func:`parse_line` splits on (Python's ``str.split()`` white space) as a regular-expression
    character class that RE2 (DuckDB) and Java (Spark) read alike (``\\x{...}`` escapes)."""
    return "[" + "".join(f"\\x{{{c:x}}}" for c in range(0x110000) if chr(c).isspace()) + "]"


__all__ = [
    "TOKEN_DELIMITER_CLASS",
    "python_space_class",
    "PhrasePair",
    "PhraseTableError",
    "alignment_points",
    "format_float",
    "format_pair",
    "norm_phrase",
    "open_for_write",
    "open_text",
    "parse_line",
    "read_phrase_table",
    "write_phrase_table",
]

