"""Bundle.reading: one read transaction around a block of lookups, ended when the last block ends.

Scoring wraps its lookups in it (fewer lock and journal system calls per query); it must never leave
a transaction open behind a call (a writer of the bundle would wait for it), must nest, and must hold
when threads share one bundle.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import List

from meteor_lite import Meteor
from meteor_lite.resources.bundle import Bundle


def _writer_can_lock(path: Path) -> bool:
    """Whether another connection gets the bundle's write lock at once (no reader holds the file)."""
    conn = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()


def test_reading_nests_and_ends_its_transaction(tiny_bundle: Path) -> None:
    b = Bundle.open(tiny_bundle)
    try:
        assert not b._conn.in_transaction
        with b.reading():
            assert b._conn.in_transaction
            assert b.stems(["cats"]) is not None
            with b.reading():
                b.synsets(["cat"])
            assert b._conn.in_transaction, "the inner block ended the outer block's transaction"
            assert not _writer_can_lock(tiny_bundle), "the block holds no read lock"
        assert not b._conn.in_transaction
        assert _writer_can_lock(tiny_bundle)
    finally:
        b.close()


def test_reading_ends_after_an_error(tiny_bundle: Path) -> None:
    b = Bundle.open(tiny_bundle)
    try:
        try:
            with b.reading():
                b.stems(["cats"])
                raise KeyError("boom")
        except KeyError:
            pass
        assert not b._conn.in_transaction
    finally:
        b.close()


def test_scoring_leaves_no_transaction_open(tiny_bundle: Path) -> None:
    m = Meteor("en", bundle=tiny_bundle, modules=["exact", "stem", "synonym", "paraphrase"], quiet=True)
    m.score_segment("the cats sat", ["a cat sat down"])
    m.score_pairs([("the cats sat", "a cat sat"), ("dogs ran", "the dog runs")])
    m.score_matrix(["the cats sat"], ["a cat sat", "a dog"])
    m.score_corpus(["the cats sat", "dogs ran"], [["a cat sat", "the dog runs"]])
    assert m.bundle is not None and not m.bundle._conn.in_transaction
    assert _writer_can_lock(tiny_bundle)


def test_threads_sharing_a_bundle(tiny_bundle: Path) -> None:
    """Two scorers on one Bundle object in two threads: blocks overlap, the transaction ends with the last."""
    b = Bundle.open(tiny_bundle)
    errors: List[BaseException] = []
    scores: List[List[float]] = [[], []]

    def run(k: int) -> None:
        try:
            m = Meteor("en", bundle=b, modules=["exact", "stem", "synonym", "paraphrase"], quiet=True)
            for i in range(200):
                scores[k].append(m.score_segment(f"the cats sat {i}", [f"a cat sat {i % 7}"]).score)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert not errors, errors
        assert scores[0] == scores[1] and len(scores[0]) == 200
        assert not b._conn.in_transaction
    finally:
        b.close()
