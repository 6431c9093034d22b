"""``Meteor(..., preload=True)``: the bundle's tables read into memory once (meteor_lite/resources/memory.py).

The scores must be those of the default scorer, which looks words up in the bundle as it meets them, on
real data with every English module and with the compiled kernels on and off; once the tables are held, a
new sentence makes no query of the bundle; only the tables the modules use are read.
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path
from typing import List, Tuple

import pytest

from meteor_lite import Meteor, accel
from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.memory import TablesInMemory

_HELD: List[Meteor] = []


def _held() -> Meteor:
    """One English scorer with its tables in memory, shared by the tests of this file (reading them takes a second)."""
    if not _HELD:
        _HELD.append(Meteor("en", norm=True, quiet=True, preload=True))
    return _HELD[0]


def _pairs(shared: Path) -> List[Tuple[str, str]]:
    """system2 of the official example against its reference, and 1,000 WMT21 de-en pairs (reference A)."""
    ex = shared / "meteor-example"
    hyps = (ex / "system2.hyp").read_text(encoding="utf-8").splitlines()
    refs = (ex / "reference").read_text(encoding="utf-8").splitlines()
    with gzip.open(shared / "wmt21" / "newstest2021.de-en.da.tsv.gz", "rt", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[:1000]
    return list(zip(hyps, refs)) + [(r["hyp"], r["ref_A"]) for r in rows]


@pytest.mark.parametrize("kernels", ["compiled", "pure"])
def test_preloaded_scores_are_the_default_ones(
    shared_data: Path, en_bundle: Path, kernels: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if kernels == "pure":
        monkeypatch.setattr(accel, "compiled", None)
    elif accel.compiled is None:
        pytest.skip("the compiled kernels are not built (make accel; `make test` builds them)")
    pairs = _pairs(shared_data)[: 1500 if kernels == "compiled" else 400]
    default = Meteor("en", norm=True, quiet=True)
    held = _held()
    assert held.resources.held_in_memory and not default.resources.held_in_memory
    for hyp, ref in pairs:  # one call per pair: each sentence new to the scorer, as a reward loop sends them
        a, b = default.score_segment(hyp, [ref]), held.score_segment(hyp, [ref])
        assert (a.score, a.stats.to_ss_line(), a.alignment) == (b.score, b.stats.to_ss_line(), b.alignment), (hyp, ref)
    assert held.score_pairs(pairs[:300]) == default.score_pairs(pairs[:300])


def test_the_compiled_walk_of_the_held_table_finds_the_bundle_walks_phrases(
    shared_data: Path, en_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """walk_held (the paraphrase table held in memory, one compiled call) against the walk that queries the
    bundle, and against the pure-Python walk over the held table: the same hits for every sentence."""
    if accel.compiled is None:
        pytest.skip("the compiled kernels are not built (make accel; `make test` builds them)")
    default = Meteor("en", norm=True, quiet=True)
    sentences = [default.tokens(t) for pair in _pairs(shared_data)[:1500] for t in pair]
    sentences += [["the", "united", "states"] * 30, [], ["a"], ["of", "the", "of", "the"]]
    want = default.resources._walk(sentences)
    held = _held().resources
    assert held._walk(sentences) == want
    assert sum(map(len, want)) > 10 * len(sentences)
    monkeypatch.setattr(accel, "compiled", None)
    assert held._walk(sentences[:200]) == want[:200]


def test_no_query_once_the_tables_are_held(en_bundle: Path) -> None:
    held = _held()
    assert held.bundle is not None
    queries: List[str] = []
    held.bundle._conn.set_trace_callback(queries.append)
    try:
        score = held.score_segment("Zebras juggled marmalade sleepily beside quarrelsome walruses.", ["Walruses argued while zebras juggled."])
    finally:
        held.bundle._conn.set_trace_callback(None)
    assert score.score > 0
    looked_up = [q for q in queries if " IN (" in q]
    assert looked_up == [], looked_up
    with pytest.MonkeyPatch.context() as env:
        env.setenv("METEOR_LITE_MAPPED", "0")  # a scorer that queries the bundle (no mapped table file)
        plain = Meteor("en", norm=True, quiet=True)
    assert plain.bundle is not None and not plain.resources.mapped
    plain.bundle._conn.set_trace_callback(queries.append)
    plain.score_segment("Zebras juggled marmalade sleepily beside quarrelsome walruses.", ["Walruses argued while zebras juggled."])
    assert any(" IN (" in q for q in queries), "the default scorer should query the bundle (the check above could not fail)"


def test_only_the_tables_of_the_modules_are_read(en_bundle: Path) -> None:
    m = Meteor("en", norm=True, quiet=True, modules=["exact", "stem"], preload=True)
    tables = m.resources._tables
    assert isinstance(tables, TablesInMemory)
    assert tables._stems == {} or m.resources.has_stem_map
    assert tables._synsets == {} and tables._entries == {} and tables._prefixes == set()
    full = _held().resources._tables
    assert isinstance(full, TablesInMemory)
    assert len(full._entries) > 400_000 and len(full._synsets) > 100_000 and len(full._exceptions) > 5_000


def test_memory_tables_answer_as_the_bundle(tiny_bundle: Path) -> None:
    """Every look-up of a small bundle, present and absent keys: the same answers from memory and from SQLite."""
    with Bundle.open(tiny_bundle) as b:
        mem = TablesInMemory(b)
        words = ["the", "car", "cars", "automobile", "ran", "nothing", "a"]
        assert mem.stems(words) == b.stems(words)
        assert mem.synsets(words) == b.synsets(words)
        assert mem.synonym_exceptions(words) == b.synonym_exceptions(words)
        phrases = sorted({p for p, _, _ in b.table_rows("paraphrases")} | {"no such phrase", "the"})
        assert mem.paraphrase_entries(phrases) == b.paraphrase_entries(phrases)
        assert mem.paraphrase_entries(phrases)[0], "the tiny bundle has paraphrases: the check above could not fail"
        with pytest.raises(ValueError, match="not a look-up table"):
            list(b.table_rows("meta"))


def test_preload_takes_a_bool_or_the_environment(tiny_bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(TypeError, match="preload takes True, False or None"):
        Meteor("en", bundle=tiny_bundle, preload="yes")  # type: ignore[arg-type]
    assert Meteor("en", bundle=tiny_bundle, quiet=True, preload=True).resources.held_in_memory
    monkeypatch.delenv("METEOR_LITE_PRELOAD", raising=False)
    assert not Meteor("en", bundle=tiny_bundle, quiet=True).resources.held_in_memory
    for value, held in (("1", True), ("yes", True), ("0", False), ("false", False), ("", False)):
        monkeypatch.setenv("METEOR_LITE_PRELOAD", value)
        assert Meteor("en", bundle=tiny_bundle, quiet=True).resources.held_in_memory is held, value
    monkeypatch.setenv("METEOR_LITE_PRELOAD", "1")
    assert not Meteor("en", bundle=tiny_bundle, quiet=True, preload=False).resources.held_in_memory


def test_a_stdio_server_with_the_tables_held_answers_as_without(shared_data: Path, en_bundle: Path) -> None:
    """``METEOR_LITE_PRELOAD=1 meteor-jar - - -stdio -l en -norm``: the same answers, SCORE and EVAL."""
    import os
    import subprocess
    import sys

    pairs = _pairs(shared_data)[:40]
    transcript = "".join(f"SCORE ||| {r} ||| {h}\n" for h, r in pairs if "|||" not in h + r)
    cmd = [sys.executable, "-m", "meteor_lite.jarcli", "-", "-", "-stdio", "-l", "en", "-norm"]
    answers = []
    for value in ("0", "1"):
        env = {**os.environ, "METEOR_LITE_PRELOAD": value}
        done = subprocess.run(cmd, input=transcript, capture_output=True, text=True, env=env, timeout=120, check=True)
        answers.append(done.stdout)
    assert answers[0] == answers[1] and answers[0].count("\n") == transcript.count("\n") > 30
