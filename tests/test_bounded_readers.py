"""Readers of untrusted files stop at a line cap as they read, never holding the long line whole, and read it in
linear time: the paraphrase-table readers (the builders' block reader, ``meteor-jar -a``'s line reader)."""

from __future__ import annotations

import io

import pytest

from meteor_lite.resources.jarformat import JarFormatError, bounded_lines
from meteor_lite_builders.official.formats import MAX_LINE_CHARS, fast_paraphrase_batches


class Endless(io.TextIOBase):
    """An endless line of 'a's; counts what was read."""

    def __init__(self) -> None:
        self.given = 0

    def readable(self) -> bool:
        return True

    def read(self, n: "int | None" = -1) -> str:
        n = 1 << 16 if n is None or n < 0 else n
        self.given += n
        return "a" * n

    def readline(self, limit: "int | None" = -1) -> str:  # type: ignore[override]
        return self.read(limit)


def test_the_block_reader_stops_an_endless_line_at_the_cap() -> None:
    stream = Endless()
    with pytest.raises(JarFormatError, match="line 1: a line longer than 1,000,000 characters"):
        list(fast_paraphrase_batches(stream, "bomb", block_chars=1 << 16))
    assert stream.given <= MAX_LINE_CHARS + (1 << 16) * 2


def test_the_block_reader_reads_lines_across_blocks_as_before() -> None:
    table = "0.5\nthe cat\na cat\n0.25\nthe dog\na dog\n"
    for block in (1, 3, 7, 1000):
        got = [(p, q) for cols in fast_paraphrase_batches(io.StringIO(table), "t", block_chars=block)
               for p, q in zip(cols.phrases, cols.paraphrases)]
        assert got == [("the cat", "a cat"), ("the dog", "a dog")], block


def test_the_line_reader_stops_an_endless_line_at_the_cap() -> None:
    stream = Endless()
    with pytest.raises(JarFormatError, match="bomb, line 1: a line longer than 10 characters"):
        list(bounded_lines(stream, "bomb", limit=10))
    assert stream.given == 12  # the cap and two more (a line end of two characters)
    assert list(bounded_lines(io.StringIO("a\nbb\n"), "t", limit=3)) == ["a\n", "bb\n"]
    assert list(bounded_lines(io.StringIO("abc\r\nabc"), "t", limit=3)) == ["abc\r\n", "abc"]
