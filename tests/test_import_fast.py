"""The fast paths of the English import give what the strict ones give: the block reader of the
paraphrase table (same pairs, same errors), the writer's direct path for sorted pairs (same
bundle as the staged path) and the checksum lines built a phrase at a time (same bytes)."""

from __future__ import annotations

import hashlib
import io
import random
import sqlite3
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import pytest

from meteor_lite.resources import schema
from meteor_lite.resources.bundle import Bundle
from meteor_lite_builders.bundle.paralists import ParaphraseColumns
from meteor_lite_builders.bundle.writer import BundleWriter
from meteor_lite_builders.errors import InvalidParameterError, MalformedInputError
from meteor_lite_builders.official.formats import fast_paraphrase_batches, iter_paraphrase_batches

Pair = Tuple[str, str, float]

GOOD = "0.5\nget rid of\nremove\n0.25\nget rid of\neliminate\n1e-05\nremove\nget rid of\n.5\nx\n+1E+2\n"
ODD = [
    "0.5\nget  rid of\nremove\n",  # two spaces
    "0.5\n get rid of\nremove\n",  # leading space
    "0.5\nget rid of \nremove\n",  # trailing space
    "0.5\nget\trid of\nremove\n",  # TAB
    "0.5\nget rid\u00a0of\nremove\n",  # no-break space
    "0.5\nget rid of\nre move\u3000\n",  # ideographic space
    "0.5\r\nget rid of\r\nremove\r\n",  # CRLF
    "0.5\rget rid of\rremove\r",  # CR
    " 0.5 \nx\ny\n",  # spaces around a probability
    "0.5\nx\ny",  # no final line break
]
BAD = [
    "0.5\na\nb\nzero\nc\nd\n",
    "0.5\na\nb\n\nc\nd\n",
    "nan\na\nb\n",
    "1_0\na\nb\n",
    "\u0661\na\nb\n",
    "1e999\na\nb\n",
    "0.5\na\nb\n0.1\nc\n",
    "0.5\na\nb\n0.1\n",
    "0.5\na\nb\n0.1\nc\nd\n\n",
    "0.5\n  \nb\n",
    "0.5\na\n\t\n",
    "0.5\na\nb\n0.5\nc\n\n0.5\nd\ne\n",
]
BLOCKS = [1, 2, 3, 5, 8, 13, 64, 1 << 20]


def text_stream(text: str) -> io.TextIOWrapper:
    """The text as the importer reads it (UTF-8, universal newlines)."""
    return io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8", newline=None)


def strict_pairs(text: str, limit: Optional[int] = None) -> List[Pair]:
    return [p for batch in iter_paraphrase_batches(text_stream(text), "t.gz", limit=limit) for p in batch]


def fast_pairs(text: str, block: int, limit: Optional[int] = None) -> List[Pair]:
    pairs: List[Pair] = []
    for cols in fast_paraphrase_batches(text_stream(text), "t.gz", limit=limit, block_chars=block):
        assert len(cols.phrases) == len(cols.paraphrases) == len(cols.probabilities)
        pairs.extend(zip(cols.phrases, cols.paraphrases, cols.probabilities))
    return pairs


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("text", [GOOD, "", *ODD, GOOD + "".join(ODD[:6]) + GOOD])
def test_fast_reader_gives_the_strict_pairs(text: str, block: int) -> None:
    assert fast_pairs(text, block) == strict_pairs(text)


@pytest.mark.parametrize("limit", [0, 1, 3, 4])
def test_fast_reader_limit(limit: int) -> None:
    text = GOOD + "zero\n"  # after the limit: not read
    assert fast_pairs(text, 4, limit=limit) == strict_pairs(text, limit=limit)


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("text", BAD)
def test_fast_reader_gives_the_strict_errors(text: str, block: int) -> None:
    text = GOOD + text  # the error is not on the first entry
    with pytest.raises(MalformedInputError) as strict:
        strict_pairs(text)
    with pytest.raises(MalformedInputError) as fast:
        fast_pairs(text, block)
    assert (fast.value.source, fast.value.line, fast.value.problem) == (
        strict.value.source,
        strict.value.line,
        strict.value.problem,
    )


def test_fast_reader_vouches_only_for_clean_blocks() -> None:
    clean = list(fast_paraphrase_batches(text_stream(GOOD), "t.gz"))
    odd = list(fast_paraphrase_batches(text_stream(ODD[0]), "t.gz"))
    assert [c.normalised for c in clean] == [True] and [c.normalised for c in odd] == [False]


# -- the writer: sorted pairs written directly, others staged ---------------------------------

PAIRS: List[Pair] = [
    ("a", "one", 0.5),
    ("a", "un", 0.25),
    ("a b", "x y", 0.125),
    ("a b c", "z", 1.0),
    ("b", "bee", 0.5),
    ("b", "a", 0.75),
    ("b", "b b", 0.0625),
    ("c d e f", "g", 1e-05),
    ("é", "e", 0.5),
]


def contents(path: Path) -> Tuple[str, list, dict]:
    with Bundle.open(path) as b:
        conn = b._conn
        rows = conn.execute("SELECT * FROM paraphrases ORDER BY phrase").fetchall()
        probs = conn.execute("SELECT * FROM paraphrase_probs ORDER BY phrase").fetchall() if b.has_paraphrase_probabilities else []
        meta = {k: v for k, v in b.meta.items() if k not in ("built_at", "content_checksum")}
        return b.checksum, rows + probs, meta


def write(path: Path, batches: Sequence[object], keep: bool = False) -> Path:
    with BundleWriter(path, language="en", name="t", version="1", keep_probabilities=keep) as w:
        for batch in batches:
            w.add_paraphrases(batch)  # type: ignore[arg-type]
    return path


def as_columns(pairs: Sequence[Pair], normalised: bool = False) -> ParaphraseColumns:
    return ParaphraseColumns([p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs], normalised)


@pytest.mark.parametrize("keep", [False, True])
def test_sorted_and_staged_paths_write_the_same_bundle(tmp_path: Path, keep: bool) -> None:
    reference = contents(write(tmp_path / "ref.sqlite", [PAIRS], keep))
    assert reference[1][0] == ("a", 1, "one\tun") and reference[2]["paraphrase_max_length"] == "4"
    rng = random.Random(7)
    for i in range(12):
        cuts = sorted(rng.sample(range(1, len(PAIRS)), rng.randint(0, 4)))
        batches: List[List[Pair]] = [PAIRS[a:b] for a, b in zip([0, *cuts], [*cuts, len(PAIRS)])]
        cols = [as_columns(b, normalised=i % 2 == 0) for b in batches]
        assert contents(write(tmp_path / f"s{i}.sqlite", cols, keep)) == reference
        assert contents(write(tmp_path / f"r{i}.sqlite", batches, keep)) == reference
    for cut in range(len(PAIRS) + 1):  # sorted at first, then not: what was written moves to the staging table
        arrival = PAIRS[:cut] + PAIRS[cut:][::-1]
        by_phrase = sorted(arrival, key=lambda p: p[0])  # stable: each phrase's pairs in arrival order
        path = write(tmp_path / f"m{cut}.sqlite", [as_columns(arrival[:cut]), as_columns(arrival[cut:])], keep)
        assert contents(path) == contents(write(tmp_path / f"m{cut}-sorted.sqlite", [by_phrase], keep))
        expected: dict = {}
        for phrase, para, _ in arrival:
            expected.setdefault(phrase, []).append(para)
        with Bundle.open(path) as b:
            assert b.paraphrases(list(expected)) == expected


def test_sorted_then_unsorted_keeps_the_order_of_each_phrase(tmp_path: Path) -> None:
    batches = [[("a", "1", 0.1), ("b", "2", 0.2)], [("b", "3", 0.3), ("a", "4", 0.4)], [("c", "5", 0.5), ("a", "6", 0.6)]]
    with Bundle.open(write(tmp_path / "b.sqlite", [as_columns(b) for b in batches])) as b:
        assert b.paraphrases(["a", "b", "c"]) == {"a": ["1", "4", "6"], "b": ["2", "3"], "c": ["5"]}
        assert b.meta["paraphrase_pairs"] == "6"


@pytest.mark.parametrize("bad", ["", " x", "x ", "x  y", "x\ty", "x\ny", "x\ry"])
@pytest.mark.parametrize("where", ["phrase", "paraphrase"])
def test_sorted_path_refuses_bad_text(tmp_path: Path, bad: str, where: str) -> None:
    pair = (bad, "ok", 0.5) if where == "phrase" else ("m", bad, 0.5)
    pairs = sorted([("a", "b", 0.5), pair, ("z", "y", 0.5)])
    with pytest.raises(InvalidParameterError, match="not tokens joined by single spaces"):
        write(tmp_path / "b.sqlite", [as_columns(pairs)])
    assert not (tmp_path / "b.sqlite").exists()


# -- the checksum lines of the pairs --------------------------------------------------------


def test_pair_texts_are_the_definition(tmp_path: Path) -> None:
    awkward = ['quote " here', "back\\slash", "\x00\x1f\x7f", "émoji 😀", "x\u2028y", "plain words"]
    path = write(tmp_path / "b.sqlite", [as_columns(sorted((a, b, 0.5) for a in awkward for b in awkward))])
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE paraphrases SET phrase = 'tab\there' WHERE phrase = 'plain words'")  # only a checksum could tell
    expected: List[str] = []
    lines = schema._pair_lines(schema.paraphrase_lists(conn, with_probs=True), expected)
    want = hashlib.sha256("".join(line + "\n" for line in lines).encode("utf-8")).hexdigest()
    for batch in (1, 2, 3, 1000):
        prefixes: List[str] = []
        got = hashlib.sha256("".join(schema._pair_texts(conn, prefixes, batch=batch)).encode("utf-8")).hexdigest()
        assert (got, prefixes) == (want, expected)
    conn.close()


# -- stems of the words known early, computed by a worker process ----------------------------


def test_background_stems_are_the_in_process_stems(monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    from meteor_lite_builders.lexical.stems import make_stemmer
    from meteor_lite_builders.official.stems import BackgroundStems

    words = ["running", "cars", "generously", "flies", "é", "dying", "news", "naïve"]
    expected = dict(zip(words, make_stemmer("english")(words)))
    job = BackgroundStems("english", words)
    assert job._proc is not None  # a worker runs
    assert job.stems() == expected
    assert job._input is not None and not job._input.exists()
    job.close()  # twice is fine
    unused = BackgroundStems("english", words)  # never asked: stopped when closed
    proc = unused._proc
    unused.close()
    assert proc is not None and proc.poll() is not None

    def no_processes(*args: object, **kwargs: object) -> object:
        raise OSError("no processes here")

    monkeypatch.setattr(subprocess, "Popen", no_processes)
    assert BackgroundStems("english", words).stems() == expected  # stemmed in process


def test_background_stems_worker_failure_falls_back(tmp_path: Path) -> None:
    from meteor_lite_builders.official.stems import BackgroundStems

    job = BackgroundStems("no-such-algorithm", ["x"])  # the worker fails: so does the in-process run, clearly
    with pytest.raises(Exception, match="no-such-algorithm"):
        job.stems()


def test_import_with_and_without_background_stems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import meteor_lite_builders.official.importer as imp
    from test_import_official import GOOD, PARAPHRASES, make_gz, make_jar

    jar = make_jar(tmp_path / "meteor-1.5.jar", GOOD)
    para = make_gz(tmp_path / "paraphrase-en.gz", PARAPHRASES)
    sums = []
    for threshold in (1, 10**9):
        monkeypatch.setattr(imp, "BACKGROUND_STEM_WORDS", threshold)
        out = imp.build_official_bundle("en", tmp_path / f"{threshold}.sqlite", progress=False, jar=jar, paraphrase_file=para)
        with Bundle.open(out) as b:
            sums.append((b.checksum, b.stems(["car", "auto", "remove", "mice"])))
    assert sums[0] == sums[1] and sums[0][1]["remove"] == "remov"
