"""The file formats of the official Meteor 1.5 release, as the builders use them.

They have one strict parser (errors name the file and line), the scorer's
:mod:`meteor_lite.resources.jarformat`, which ``meteor-jar -s/-d/-a`` also reads with; this module
hands its functions on to the importer, the recipes and the pivot.

:func:`fast_paraphrase_batches` reads a large paraphrase table (English: 5.3 million
pairs) in blocks with a few bulk string operations per block instead of Python work
per line.  It is not a second definition of the format: a block it cannot vouch for
in bulk (any whitespace other than single spaces between tokens, an empty line, a
probability that is not plain ASCII digits, point, sign and exponent, the end of the
file inside an entry) goes to the strict parser, which gives the same rows or the
same error (file and line) as it would have over the whole file.
"""

from __future__ import annotations

import functools
import math
import sys
from itertools import repeat
from operator import itemgetter
from typing import Iterator, List, Optional, TextIO, Tuple

from meteor_lite.resources.jarformat import (
    MAX_PHRASE_CHARS,
    MAX_PHRASE_WORDS,
    PARAPHRASE_BATCH,
    JarFormatError,
    iter_paraphrase_batches,
    iter_paraphrases,
    parse_exceptions,
    parse_function_words,
    parse_synsets,
)

from ..bundle.paralists import ParaphraseColumns

__all__ = [
    "PARAPHRASE_BATCH",
    "parse_function_words",
    "parse_synsets",
    "parse_exceptions",
    "iter_paraphrase_batches",
    "iter_paraphrases",
    "fast_paraphrase_batches",
]

#: Characters read per block by :func:`fast_paraphrase_batches` (about 75,000 English pairs).
FAST_BLOCK_CHARS = 4_000_000
#: The longest line of a paraphrase table read (a phrase, a paraphrase, a probability): a longer one is refused
#: as soon as it is met, its text never held whole (a gzip bomb of one endless line).
MAX_LINE_CHARS = 1_000_000

#: Text the strict parser would change or refuse: two spaces, a space at either end of a line,
#: an empty line (the ends of a block are checked apart), and (:func:`_odd_spaces`) any other
#: character ``str.split()`` splits on.  Searched with ``str.find`` (a regular expression is 20x slower).
_NOT_CLEAN = ("  ", " \n", "\n ", "\n\n")


@functools.lru_cache(maxsize=None)
def _odd_spaces() -> Tuple[str, ...]:
    """Every character ``str.split()`` splits on but a space and ``\\n`` (tab, CR, NBSP, ...)."""
    return tuple(c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace() and c not in " \n")


def _clean_up_to(text: str, end: int) -> bool:
    """Whether every line of ``text[:end]`` (whole lines) is non-empty and in normal form (tokens joined by single spaces)."""
    if end < 0:  # no whole line
        return True
    if text[0] in " \n" or text[end - 1] in " \n":
        return False
    return all(text.find(s, 0, end) < 0 for s in (*_NOT_CLEAN, *_odd_spaces()))


def _clean_line(line: str) -> bool:
    return bool(line) and " ".join(line.split()) == line


def _bulk_pairs(lines: List[str]) -> Optional[ParaphraseColumns]:
    """The pairs of ``lines`` (whole entries, each line in normal form) when every probability is plain, else None.

    A probability is plain when ``float`` takes it, it is finite and all of them are
    ASCII without ``_`` (as the strict parser requires; its other lines are checked already).
    """
    probs = lines[0::3]
    joined = "".join(probs)
    if not joined.isascii() or "_" in joined:
        return None
    try:
        values = list(map(float, probs))
    except ValueError:
        return None
    if not all(map(math.isfinite, values)):
        return None
    phrases = lines[1::3]
    longest = max(map(len, phrases), default=0)
    if longest > MAX_PHRASE_CHARS or max(map(str.count, phrases, repeat(" ")), default=0) >= MAX_PHRASE_WORDS:
        return None  # the strict parser names the line of the phrase too long for a bundle
    return ParaphraseColumns(phrases, lines[2::3], values, normalised=True)


def _strict_pairs(lines: List[str], source: str, first_pair: int) -> ParaphraseColumns:
    """``lines`` through the strict parser, errors naming the line of the whole file (entry ``first_pair`` onwards)."""
    cols = ParaphraseColumns([], [], [])
    try:
        for batch in iter_paraphrase_batches(lines, source):
            cols.phrases.extend(map(itemgetter(0), batch))
            cols.paraphrases.extend(map(itemgetter(1), batch))
            cols.probabilities.extend(map(itemgetter(2), batch))
    except JarFormatError as exc:
        raise JarFormatError(exc.source, exc.line + 3 * first_pair, exc.problem) from None
    return cols


def fast_paraphrase_batches(
    text: TextIO, source: str = "<paraphrases>", *, limit: Optional[int] = None, block_chars: int = FAST_BLOCK_CHARS
) -> Iterator[ParaphraseColumns]:
    """The pairs of :func:`iter_paraphrase_batches` over the open text file ``text``, in batches (one per block read).

    Same pairs, same order, same errors (raised by the strict parser, naming
    ``source`` and the line).  ``text`` must translate line ends to ``\\n`` (a
    text file opened with ``newline=None``).  With ``limit`` (at most that many
    pairs, the rest of the file unread) the strict parser reads it all.
    """
    if limit is not None:
        for batch in iter_paraphrase_batches(text, source, limit=limit):
            yield ParaphraseColumns(*(list(c) for c in zip(*batch)))  # type: ignore[arg-type]
        return
    n = 0  # pairs yielded so far
    pending: List[str] = []  # whole lines of an entry not yet complete (at most 2)
    partial = ""  # the last, unfinished line of the text read so far
    pieces: List[str] = []  # the blocks of a line longer than a block, joined once its end (or the cap) is met
    held = 0
    while True:
        block = text.read(block_chars)
        if block and "\n" not in block:  # inside a long line: kept aside, not joined again per block (linear)
            pieces.append(block)
            held += len(block)
            if len(partial) + held > MAX_LINE_CHARS:
                raise JarFormatError(source, 3 * n + len(pending) + 1, f"a line longer than {MAX_LINE_CHARS:,} "
                                     "characters: not a paraphrase table")
            continue
        if pieces:
            block = "".join(pieces) + block
            pieces, held = [], 0
        buf = partial + block
        if block:
            clean = _clean_up_to(buf, buf.rfind("\n"))
            lines = buf.split("\n")
            partial = lines.pop()
            if max(map(len, lines), default=0) > MAX_LINE_CHARS or len(partial) > MAX_LINE_CHARS:
                at = next((i for i, ln in enumerate(lines) if len(ln) > MAX_LINE_CHARS), len(lines))
                raise JarFormatError(source, 3 * n + len(pending) + at + 1, f"a line longer than {MAX_LINE_CHARS:,} "
                                     "characters: not a paraphrase table")
        else:  # the end: a last line without a line break, if any
            lines = [partial] if partial else []
            clean = all(map(_clean_line, lines))
        clean = clean and all(map(_clean_line, pending))
        lines = pending + lines if pending else lines
        whole = len(lines) - len(lines) % 3 if block else len(lines)
        lines, pending = lines[:whole], lines[whole:]
        if lines:
            cols = _bulk_pairs(lines) if clean and len(lines) % 3 == 0 else None
            if cols is None:
                cols = _strict_pairs(lines, source, n)
            n += len(cols.phrases)
            yield cols
        if not block:
            return
