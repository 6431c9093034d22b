"""The capped readers of untrusted files (meteor_lite/cappedlines.py) and what keeps a paraphrase table's reading
bounded: the decompression cap of both table readers, the bundle writer's prefixes made without a set, the
checksum of a phrase with very many paraphrases a chunk at a time.  Reads no file of ../shared."""

from __future__ import annotations

import gzip
import hashlib
import io
import random
import sqlite3
from pathlib import Path
from typing import List, Set

import pytest

from meteor_lite.cappedlines import InflatedTooMuchError, LineTooLongError, capped_lines, gunzip_capped, line_content
from meteor_lite.resources import schema
from meteor_lite.resources.jarformat import JarFormatError, write_jar_bundle
from meteor_lite_builders.bundle.paralists import NewPrefixes


class Endless(io.RawIOBase):
    """An endless line of b'a's; counts what was read."""

    def __init__(self) -> None:
        self.given = 0

    def readable(self) -> bool:
        return True

    def readline(self, size: "int | None" = -1) -> bytes:
        n = 1 << 16 if size is None or size < 0 else size
        self.given += n
        return b"a" * n


# ----------------------------------------------------------------------------- capped_lines ----------


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r", ""])
def test_a_line_at_the_cap_is_read_one_over_is_refused(end: str) -> None:
    """The cap counts the line without its line end, whichever it is; the error names the file and the line."""
    ok = io.StringIO(f"ab{end or chr(10)}abc{end}", newline="")  # newline="": \n, \r\n and \r end a line
    assert [line_content(x) for x in capped_lines(ok, "t.txt", 3)] == ["ab", "abc"]
    bad = io.StringIO(f"ab\nabc{end or chr(10)}abcd{end}", newline="")
    with pytest.raises(LineTooLongError) as err:
        list(capped_lines(bad, "t.txt", 3, what="not a table"))
    assert str(err.value) == "t.txt:3: a line longer than 3 characters: not a table"
    assert (err.value.source, err.value.line) == ("t.txt", 3)


def test_bytes_are_counted_as_bytes_and_the_error_is_the_callers() -> None:
    lines = list(capped_lines(io.BytesIO(b"\xc3\xa9t\xc3\xa9\nx"), "b", 5))
    assert lines == [b"\xc3\xa9t\xc3\xa9\n", b"x"]
    with pytest.raises(JarFormatError, match=r"^b, line 1: a line longer than 4 bytes$"):
        list(capped_lines(io.BytesIO(b"\xc3\xa9t\xc3\xa9\n"), "b", 4, error=JarFormatError))


def test_an_endless_line_costs_the_cap_and_two() -> None:
    """Linear: one read of at most the cap and two more, never the line whole."""
    stream = Endless()
    with pytest.raises(LineTooLongError, match="endless:1: a line longer than 1,000 bytes"):
        list(capped_lines(stream, "endless", 1000))
    assert stream.given == 1002


# ----------------------------------------------------------------------------- gunzip_capped ----------


def test_the_decompression_cap_is_a_ratio_of_the_file_with_a_floor() -> None:
    text = b"".join(b"0.5\nline %d\nx\n" % i for i in range(20_000))  # compresses about 10 times
    packed = gzip.compress(text, mtime=0)
    assert gunzip_capped(io.BytesIO(packed), "t.gz", ratio=16, floor=0).read() == text  # 10x: under 16x
    assert gunzip_capped(io.BytesIO(packed), "t.gz", ratio=2, floor=len(text)).read() == text  # the floor
    cap = 2 * len(packed)
    reader = gunzip_capped(io.BytesIO(packed), "t.gz", ratio=2, floor=0, what="a bomb")
    with pytest.raises(InflatedTooMuchError) as err:
        reader.read()
    assert err.value.line == text[:cap].count(b"\n") + 1  # the line the cap falls on
    assert str(err.value) == (f"t.gz:{err.value.line}: the gzip file decompresses to more than {cap:,} bytes, the "
                              f"most read from a file of {len(packed):,} bytes (2 times its size, at least 0): a bomb")


def test_a_second_gzip_member_counts_too(tmp_path: Path) -> None:
    """A file of several members (gzip's concatenation) is read on to its end, within the same cap."""
    path = tmp_path / "two.gz"
    path.write_bytes(gzip.compress(b"a\n" * 1000, mtime=0) + gzip.compress(b"b\n" * 1000, mtime=0))
    with open(path, "rb") as raw:
        assert gunzip_capped(raw, str(path), ratio=1000, floor=0).read() == b"a\n" * 1000 + b"b\n" * 1000
    with open(path, "rb") as raw, pytest.raises(InflatedTooMuchError, match=r"two\.gz:1501: "):
        gunzip_capped(raw, str(path), ratio=1, floor=3000).read()


def test_meteor_jar_refuses_a_table_bomb_naming_file_and_line(tmp_path: Path) -> None:
    """-a with a table decompressing beyond the cap: JarFormatError with the file and the line, raised while
    reading (the jar's private bundle is a scratch file, removed with its directory)."""
    path = tmp_path / "bomb.gz"
    with gzip.open(path, "wb", compresslevel=9) as out:
        for _ in range(40):
            out.write(b"0.5\na\nb\n" * 131_072)  # 42 MB in about 40 KB
    with pytest.raises(JarFormatError) as err:
        write_jar_bundle(tmp_path / "b.sqlite", language="en", paraphrase_file=path, prefix_rows=False)
    assert err.value.source == str(path) and err.value.line == 32_000_000 // 8 * 3 + 1
    assert "decompresses to more than 32,000,000 bytes" in err.value.problem


def test_meteor_jar_groups_an_unsorted_table_in_file_order(tmp_path: Path) -> None:
    """The pairs staged on disk come back grouped by phrase, each phrase's paraphrases in file order, duplicates
    and all (the jar breaks ties by that order), whether the table is sorted or not."""
    rows = [("b x", "1"), ("a", "2"), ("b x", "3"), ("a", "4"), ("a", "2"), ("c", "5")]
    for name, table in (("unsorted", rows), ("sorted", sorted(rows, key=lambda r: r[0]))):
        path = tmp_path / f"{name}.gz"
        path.write_bytes(gzip.compress("".join(f"0.5\n{p}\n{q}\n" for p, q in table).encode()))
        out = write_jar_bundle(tmp_path / f"{name}.sqlite", language="en", paraphrase_file=path, prefix_rows=False)
        with sqlite3.connect(out) as conn:
            got = dict(conn.execute("SELECT phrase, paraphrases FROM paraphrases"))
        conn.close()
        want = {p: "\t".join(q for pp, q in table if pp == p) for p, _ in table}
        assert got == want, name


# ----------------------------------------------------------------------------- the writer's prefixes ----------


def _all_prefixes(phrases: List[str]) -> Set[str]:
    return {p[:i] for p in phrases for i, c in enumerate(p) if c == " "}


def test_new_prefixes_are_every_prefix_once() -> None:
    """In phrase order, the prefixes not shared with the phrase before are every proper prefix, each once, however
    the phrases are cut into calls (characters below the space, such as U+0001, sort between a word and its
    longer phrases)."""
    rnd = random.Random(5)
    words = ["a", "b", "ab", "a!", "a\x01", "é", "ü b"]
    for _ in range(500):
        phrases = sorted({" ".join(rnd.choice(words) for _ in range(rnd.randint(1, 5))) for _ in range(30)})
        cut = rnd.randint(0, len(phrases))
        made = NewPrefixes()
        got = list(made.of(phrases[:cut])) + list(made.of(phrases[cut:]))
        assert len(got) == len(set(got)) and set(got) == _all_prefixes(phrases), phrases


# ----------------------------------------------------------------------------- the checksum ----------


def test_a_phrase_with_many_paraphrases_is_checksummed_as_defined(tmp_path: Path) -> None:
    """Lists longer than the templates go a chunk at a time (plain, and with text JSON escapes): the same lines as
    the definition's, and the prefixes hashed in their own pass are those flagged."""
    conn = sqlite3.connect(tmp_path / "b.sqlite")
    conn.executescript(schema.SCHEMA_SQL)
    many = [f"p{i}" for i in range(300_000)]  # longer than one chunk of the joined list
    conn.executemany("INSERT INTO paraphrases VALUES (?, ?, ?)", [
        ("a", 1, "\t".join(many)), ('q "x"', 0, "\t".join(['y "z"'] * 1000)), ("a b", 0, "c"), ("z", 1, None)])
    expected: List[str] = []
    lines = schema._pair_lines(schema.paraphrase_lists(conn, with_probs=True), expected)
    want = hashlib.sha256("".join(line + "\n" for line in lines).encode("utf-8")).hexdigest()
    for batch in (1, 3, 1000):
        got = hashlib.sha256("".join(schema._pair_texts(conn, batch=batch)).encode("utf-8")).hexdigest()
        assert got == want, batch
        assert "".join(schema._prefix_texts(conn, batch=batch)) == "".join(f'["{p}"]\n' for p in expected)
    chunks = list(schema.list_chunks("\t".join(many), chars=1000))
    assert [p for c in chunks for p in c] == many and max(map(len, chunks)) < 300
    assert list(schema.list_chunks("")) == [[""]]
    conn.close()
