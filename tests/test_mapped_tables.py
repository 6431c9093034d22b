"""The mapped table file beside a bundle (meteor_lite/resources/mapped.py): the same look-ups, walks and scores as
the bundle's SQLite queries, on real data, with the compiled reader and the pure-Python one; a file that does not
match its bundle, is cut short or is damaged is never trusted.

Reads ../shared/data/meteor-example/{system1.hyp,system2.hyp,reference} and
../shared/data/wmt21/newstest2021.de-en.da.tsv.gz (first 600 rows).
"""

from __future__ import annotations

import csv
import gzip
import os
import struct
import zlib
from pathlib import Path
from typing import List, Tuple

import pytest

from meteor_lite import Meteor, accel
from meteor_lite.resources import mapped
from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.lookups import morph_candidates
from meteor_lite.resources.mapped import MappedTables, mapped_path, open_mapped_tables, write_mapped_tables

KERNELS = ["compiled", "pure"]


@pytest.fixture()
def kernels_built() -> None:
    """Scorers map the file only with the compiled kernels."""
    if accel.compiled is None:
        pytest.skip("the compiled kernels are not built (make accel; `make test` builds them)")


def _use(kernels: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if kernels == "pure":
        monkeypatch.setattr(accel, "compiled", None)
    elif accel.compiled is None:
        pytest.skip("the compiled kernels are not built (make accel; `make test` builds them)")


def _pairs(shared: Path, wmt_rows: int = 600) -> List[Tuple[str, str]]:
    """system2 of the official example against its reference, then WMT21 de-en pairs (reference A)."""
    ex = shared / "meteor-example"
    hyps = (ex / "system2.hyp").read_text(encoding="utf-8").splitlines()
    refs = (ex / "reference").read_text(encoding="utf-8").splitlines()
    with gzip.open(shared / "wmt21" / "newstest2021.de-en.da.tsv.gz", "rt", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[:wmt_rows]
    return list(zip(hyps, refs)) + [(r["hyp"], r["ref_A"]) for r in rows]


def _queried(monkeypatch: pytest.MonkeyPatch) -> Meteor:
    """An English scorer that queries the bundle (no mapped file)."""
    with monkeypatch.context() as env:
        env.setenv(mapped.MAPPED_ENV, "0")
        sql = Meteor("en", norm=True, quiet=True)
    assert not sql.resources.mapped
    return sql


def _en_tables(en_bundle: Path) -> Tuple[Bundle, MappedTables]:
    bundle = Bundle.open(en_bundle)
    tables = open_mapped_tables(bundle)
    assert tables is not None, "the English bundle's directory is writable: its mapped file is built or read"
    return bundle, tables


@pytest.mark.parametrize("kernels", KERNELS)
def test_every_look_up_answers_as_the_bundle(
    shared_data: Path, en_bundle: Path, kernels: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stems, synsets, exception lists and paraphrase entries of every word and n-gram (up to 4) of real sentences,
    present and absent keys, and the base-form candidates the synonym look-up asks for."""
    _use(kernels, monkeypatch)
    bundle, tables = _en_tables(en_bundle)
    m = Meteor("en", norm=True, quiet=True)
    sentences = [m.tokens(s) for pair in _pairs(shared_data, 300 if kernels == "compiled" else 60) for s in pair]
    if kernels == "pure":
        sentences = sentences[:600]
    words = sorted({w for s in sentences for w in s})
    forms = sorted(set(words) | {c for w in words for c in morph_candidates(w)})
    grams = sorted({" ".join(s[i : i + n]) for s in sentences for n in range(1, 5) for i in range(len(s) - n + 1)})
    try:
        assert tables.stems(words) == bundle.stems(words)
        syn = tables.synsets(forms)
        assert syn == bundle.synsets(forms) and len(syn) > 1000
        exc = tables.synonym_exceptions(forms)
        assert exc == bundle.synonym_exceptions(forms) and exc, "no exception-list form met: the check could not fail"
        entries, begins = tables.paraphrase_entries(grams)
        assert (entries, begins) == bundle.paraphrase_entries(grams)
        assert len(entries) > 1000 and len(begins) > 1000
    finally:
        bundle.close()
        tables.close()


def test_the_compiled_walk_finds_the_bundle_walks_phrases(
    shared_data: Path, en_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mapped_walk`` over the file: each sentence's phrase hits, as the walk that queries the bundle finds them."""
    if accel.compiled is None:
        pytest.skip("the compiled kernels are not built (make accel; `make test` builds them)")
    sql = _queried(monkeypatch)
    sentences = [sql.tokens(s) for pair in _pairs(shared_data) for s in pair]
    bundle, tables = _en_tables(en_bundle)
    try:
        walked = tables.paraphrase_walk(accel.compiled, sentences, bundle.paraphrase_max_length())
    finally:
        bundle.close()
        tables.close()
    expected = sql.resources._walk(sentences)
    assert walked == expected
    assert sum(map(len, expected)) > 10 * len(sentences)


def test_the_entry_cache_gives_each_entry_once_and_empties_when_full(
    shared_data: Path, en_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compiled readers' cache of entries (``entry_cache``): the same hits as without a cache, each entry's
    text made once (the same object when it comes again), emptied past ``ENTRY_CACHE``; a bad cache is refused."""
    k = accel.compiled
    if k is None:
        pytest.skip("the compiled kernels are not built (make accel; `make test` builds them)")
    m = Meteor("en", norm=True, quiet=True)
    sentences = [m.tokens(s) for pair in _pairs(shared_data, 100) for s in pair]
    bundle, tables = _en_tables(en_bundle)
    try:
        max_len = bundle.paraphrase_max_length()
        off, nslots = tables._where["paraphrases"]
        args = (tables._data, tables._fd, off, nslots, sentences, max_len)
        plain = k.mapped_walk(*args)
        cache = k.entry_cache()
        first, again = k.mapped_walk(*args, cache), k.mapped_walk(*args, cache)
        assert first == plain == again and sum(map(len, plain)) > 1000
        assert all(a[2] is b[2] for x, y in zip(first, again) for a, b in zip(x, y)), "an entry read twice"
        texts = {id(e) for hits in first for _, _, e in hits}  # one-character texts are shared str objects
        assert k.entry_cache_len(cache) >= len(texts) > 100
        found, _ = k.mapped_find(tables._data, tables._fd, off, nslots, mapped.TABLES.index("paraphrases"),
                                 [" ".join(s[:1]) for s in sentences], cache)
        assert found and k.entry_cache_len(cache) >= len(texts)
        k.entry_cache_clear(cache)
        assert k.entry_cache_len(cache) == 0 and k.mapped_walk(*args, cache) == plain
        for bad in ({}, [], object(), k.entry_cache):
            with pytest.raises(TypeError):
                k.mapped_walk(*args, bad)
        monkeypatch.setattr(mapped, "ENTRY_CACHE", 50)
        tables.paraphrase_walk(k, sentences, max_len)
        assert k.entry_cache_len(tables._entry_table) > 50, "the walk fills the table's cache past its bound"
        tables.paraphrase_walk(k, sentences[:1], max_len)
        assert k.entry_cache_len(tables._entry_table) <= 50 + sum(map(len, plain[:1])), "not emptied when full"
    finally:
        bundle.close()
        tables.close()


def test_pack_words_walks_the_mapped_table_as_mapped_walk_does(shared_data: Path, en_bundle: Path) -> None:
    """A sentence packed with the mapped table to walk (``Resources.table_to_walk``) aligns as one packed from
    ``mapped_walk``'s hits, on real pairs; scoring then holds no walked hits; a bad table to walk is refused."""
    k = accel.compiled
    if k is None:
        pytest.skip("the compiled kernels are not built (make accel; `make test` builds them)")
    m = Meteor("en", norm=True, quiet=True)
    res = m.resources
    assert res.mapped, "the English bundle's directory is writable: its mapped file is built or read"
    pairs = [(m.tokens(h), m.tokens(r)) for h, r in _pairs(shared_data, 200)]
    sentences = [s for pair in pairs for s in pair]
    records = res.word_records([w for s in sentences for w in s], True, True)
    spec = res.table_to_walk(k)
    assert spec is not None
    walked = res._tables.paraphrase_walk(k, sentences, res.paraphrase_max_len)
    codes = (0, 1, 2, 3)
    compared = 0
    for (hyp, ref), (hh, rh) in zip(pairs, zip(walked[::2], walked[1::2])):
        a = [k.pack_words(s, records, spec, True, True, False, None)[0] for s in (hyp, ref)]
        b = [k.pack_words(s, records, hits, True, True, False, None)[0] for s, hits in ((hyp, hh), (ref, rh))]
        got = k.align_stats(a[0], a[1], codes, 40)
        assert got == k.align_stats(b[0], b[1], codes, 40), (hyp, ref)
        compared += got is not None and any(c[0] == 3 for c in got[-1])
    assert compared > 50, "too few pairs with a paraphrase match"
    m.score_corpus([" ".join(h) for h, _ in pairs], [[" ".join(r) for _, r in pairs]], jobs=1)
    assert not res._hits, "the corpus's phrases were walked and held for the block"
    for bad in (spec[:5], spec[:5] + (None,), spec[:5] + ({},), ("not a mapping",) + spec[1:]):
        with pytest.raises(TypeError):
            k.pack_words(pairs[0][0], records, bad, True, True, False, None)


def test_without_the_paraphrase_module_no_entry_is_read(shared_data: Path, en_bundle: Path) -> None:
    """Scoring without the paraphrase module neither walks the table nor makes its cache of entries."""
    if accel.compiled is None:
        pytest.skip("the compiled kernels are not built (make accel; `make test` builds them)")
    m = Meteor("en", norm=True, modules=["exact", "stem", "synonym"], quiet=True)
    assert m.resources.mapped
    pairs = _pairs(shared_data, 50)
    assert m.score_corpus([h for h, _ in pairs], [[r for _, r in pairs]], jobs=1).score > 0
    assert m.resources._tables._entry_table is None and not m.resources._hits


@pytest.mark.parametrize("kernels", KERNELS)
def test_scores_with_the_mapped_file_are_the_queried_ones(
    shared_data: Path, en_bundle: Path, kernels: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every English module, one call per pair (each sentence new to the scorer) and in one batch: the same scores,
    statistics and alignments as a scorer that queries the bundle."""
    if accel.compiled is None:
        pytest.skip("the compiled kernels are not built (make accel; `make test` builds them)")
    pairs = _pairs(shared_data)[: 1500 if kernels == "compiled" else 300]
    fast = Meteor("en", norm=True, quiet=True)  # mapped (only with the kernels); then read in pure Python if asked
    assert fast.resources.mapped
    sql = _queried(monkeypatch)
    _use(kernels, monkeypatch)
    for hyp, ref in pairs:
        a, b = sql.score_segment(hyp, [ref]), fast.score_segment(hyp, [ref])
        assert (a.score, a.stats.to_ss_line(), a.alignment) == (b.score, b.stats.to_ss_line(), b.alignment), (hyp, ref)
    assert fast.score_pairs(pairs[:300]) == sql.score_pairs(pairs[:300])


def test_system1_scores_the_documented_number_from_the_mapped_file(
    shared_data: Path, en_bundle: Path, kernels_built: None
) -> None:
    ex = shared_data / "meteor-example"
    hyps = (ex / "system1.hyp").read_text(encoding="utf-8").splitlines()
    refs = (ex / "reference").read_text(encoding="utf-8").splitlines()
    m = Meteor("en", norm=True, quiet=True)
    assert m.resources.mapped
    assert m.score_corpus(hyps, [refs], jobs=1).score == 0.3204832379614146


def _copy(src: Path, dst: Path) -> Path:
    dst.write_bytes(src.read_bytes())
    return dst


def test_the_file_is_written_once_and_bound_to_its_bundle(tiny_bundle: Path, kernels_built: None) -> None:
    """Written beside the bundle on first use, read afterwards; rewritten when the bundle file is another one, cut
    short or not a table file; no temporary file left behind."""
    side = mapped_path(tiny_bundle)
    assert side.name == "tiny.sqlite.tables" and not side.exists()
    m = Meteor("en", bundle=tiny_bundle, quiet=True)
    assert m.resources.mapped and side.is_file()
    first = side.stat()
    assert Meteor("en", bundle=tiny_bundle, quiet=True).resources.mapped
    assert side.stat().st_ino == first.st_ino, "a matching file is read, not written again"
    expected = m.score_segment("the car ran", ["an automobile was running"]).stats.to_ss_line()

    os.utime(tiny_bundle, ns=(first.st_mtime_ns, first.st_mtime_ns + 10**9))  # another bundle file, as far as it knows
    again = Meteor("en", bundle=tiny_bundle, quiet=True)
    assert again.resources.mapped and side.stat().st_ino != first.st_ino
    assert again.score_segment("the car ran", ["an automobile was running"]).stats.to_ss_line() == expected

    for damage in (lambda b: b[: len(b) // 2], lambda b: b"not a table file" + b[16:], lambda b: b""):
        side.write_bytes(damage(side.read_bytes()))
        with Bundle.open(tiny_bundle) as b:
            assert open_mapped_tables(b, build=False) is None
        m2 = Meteor("en", bundle=tiny_bundle, quiet=True)
        assert m2.resources.mapped
        assert m2.score_segment("the car ran", ["an automobile was running"]).stats.to_ss_line() == expected
    assert sorted(p.name for p in tiny_bundle.parent.iterdir()) == ["tiny.sqlite", "tiny.sqlite.tables"]


def test_no_file_where_none_may_be_written_and_the_scores_do_not_change(
    tiny_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernels_built: None
) -> None:
    expected = Meteor("en", bundle=tiny_bundle, quiet=True).score_segment("the car ran", ["an automobile ran"])
    monkeypatch.setenv(mapped.MAPPED_ENV, "0")
    other = _copy(tiny_bundle, tmp_path / "off.sqlite")
    m = Meteor("en", bundle=other, quiet=True)
    assert not m.resources.mapped and not mapped_path(other).exists()
    assert m.score_segment("the car ran", ["an automobile ran"]).stats == expected.stats
    monkeypatch.delenv(mapped.MAPPED_ENV)
    ro = tmp_path / "ro"
    ro.mkdir()
    locked = _copy(tiny_bundle, ro / "t.sqlite")
    real_access = os.access
    # a directory this user may not write (simulated: root may write anywhere, and tests may run as root)
    monkeypatch.setattr(mapped.os, "access", lambda p, mode: False if Path(p) == ro else real_access(p, mode))
    m = Meteor("en", bundle=locked, quiet=True)
    assert not m.resources.mapped and not mapped_path(locked).exists()
    assert m.score_segment("the car ran", ["an automobile ran"]).stats == expected.stats


def test_a_bundle_inside_an_installed_package_gets_no_file(
    tiny_bundle: Path, kernels_built: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resource pack's bundle (site-packages): a file written beside it would outlive ``pip uninstall``."""
    import sysconfig

    paths = dict(sysconfig.get_paths())
    paths["purelib"] = str(tiny_bundle.parent)
    monkeypatch.setattr(sysconfig, "get_paths", lambda *a, **k: paths)
    assert not Meteor("en", bundle=tiny_bundle, quiet=True).resources.mapped
    assert not mapped_path(tiny_bundle).exists()


def _damage_a_slot(tiny_bundle: Path) -> Path:
    """Write the tiny bundle's mapped file, then point the slot of "car" in its paraphrase table past the end."""
    side = mapped_path(tiny_bundle)
    with Bundle.open(tiny_bundle) as b:
        write_mapped_tables(b, side)
        good = open_mapped_tables(b, build=False)
        assert good is not None
        off, nslots = good._where["paraphrases"]
        good.close()
    data = bytearray(side.read_bytes())
    crc = zlib.crc32("car".encode("utf-8"))
    i = crc & (nslots - 1)
    while struct.unpack_from("<Q", data, off + 8 * i)[0] >> 32 not in (0, crc):
        i = (i + 1) & (nslots - 1)
    struct.pack_into("<Q", data, off + 8 * i, (crc << 32) | (len(data) - 1))
    side.write_bytes(bytes(data))
    return side


def test_a_file_changed_after_it_was_written_is_not_read_but_written_again(tiny_bundle: Path, kernels_built: None) -> None:
    """The header's checksum covers the content and the header's numbers: a damaged file is seen at its first use
    (then remembered by its identity, as bundles are) and replaced; the scores do not change."""
    expected = Meteor("en", bundle=tiny_bundle, quiet=True).score_segment("the car ran", ["an automobile ran"]).stats
    side = _damage_a_slot(tiny_bundle)
    with Bundle.open(tiny_bundle) as b:
        assert open_mapped_tables(b, build=False) is None
    m = Meteor("en", bundle=tiny_bundle, quiet=True)
    assert m.resources.mapped
    assert m.score_segment("the car ran", ["an automobile ran"]).stats == expected
    with Bundle.open(tiny_bundle) as b:
        again = open_mapped_tables(b, build=False)
        assert again is not None and again.paraphrase_entries(["car"]) == b.paraphrase_entries(["car"])
        again.close()
    data = bytearray(side.read_bytes())
    data[-1] ^= 1  # the last byte of a record: within bounds, only the checksum can see it
    side.write_bytes(bytes(data))
    with Bundle.open(tiny_bundle) as b:
        assert open_mapped_tables(b, build=False) is None


@pytest.mark.parametrize("kernels", KERNELS)
def test_a_damaged_record_is_an_error_never_a_read_outside_the_file(
    tiny_bundle: Path, kernels: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With verification off (``METEOR_LITE_VERIFY_BUNDLES=0``), a slot whose record offset points past the end:
    ValueError, from every look-up and the walk."""
    _use(kernels, monkeypatch)
    monkeypatch.setenv("METEOR_LITE_VERIFY_BUNDLES", "0")
    _damage_a_slot(tiny_bundle)
    with Bundle.open(tiny_bundle) as b:
        tables = open_mapped_tables(b, build=False)
        assert tables is not None, "the header still matches: only a record is damaged"
        with pytest.raises(ValueError, match="damaged"):
            tables.paraphrase_entries(["car"])
        if kernels == "compiled":
            with pytest.raises(ValueError, match="damaged"):
                tables.paraphrase_walk(accel.compiled, [["the", "car"]], 4)
            records: dict = {}
            accel.compiled.make_records(records, ["the", "car"], [1, 2], None, None, [True, False])
            with pytest.raises(ValueError, match="damaged"):  # the walk of a sentence as it is packed
                accel.compiled.pack_words(["the", "car"], records, tables.walk_spec(accel.compiled, 4), False, False)
        assert tables.paraphrase_entries(["no such phrase"]) == ({}, set())
        tables.close()


def test_the_compiled_synsets_with_base_forms_are_the_python_ones(
    shared_data: Path, en_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mapped_synsets`` (a word's synsets and its base forms', the exception lists first, then the first detachment
    rule with synsets) against :meth:`Resources.synsets` computed from the bundle's queries, on every word of real
    sentences and on made-up forms that exercise each rule, short words, ``-ss`` and characters beyond U+FFFF."""
    if accel.compiled is None:
        pytest.skip("the compiled kernels are not built (make accel; `make test` builds them)")
    sql = _queried(monkeypatch)
    fast = Meteor("en", norm=True, quiet=True)
    assert fast.resources.mapped
    words = sorted({w for pair in _pairs(shared_data, 600) for s in pair for w in sql.tokens(s)})
    made = ["geese", "ran", "boxes", "buzzes", "churches", "wishes", "firemen", "ponies", "glasses", "is", "as", "oxen",
            "happiest", "bigger", "cuter", "hoped", "walked", "making", "singing", "\U0001d400s", "\U0001d400ies", "ss",
            "s", "", "glass", "caresses", "classes", "runnings", "mice", "better", "worse", "taller"]
    listed = sorted(set(words + made))
    expected = sql.resources.synsets(listed)
    got = fast.resources.synsets(listed)
    assert got == expected
    with Bundle.open(en_bundle) as b:
        own = b.synsets(listed)
    with_bases = sum(1 for w, s in zip(listed, expected) if s and w not in own)
    assert with_bases > 50, "words whose synsets all come from a base form: the comparison could not fail"


def test_pure_python_queries_the_bundle(tiny_bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the compiled kernels no file is mapped (pure Python reads it no faster than SQLite's batches)."""
    monkeypatch.setattr(accel, "compiled", None)
    m = Meteor("en", bundle=tiny_bundle, quiet=True)
    assert not m.resources.mapped and m.resources.queries_bundle and not mapped_path(tiny_bundle).exists()


def _use_key(monkeypatch: pytest.MonkeyPatch, key_file: Path) -> None:
    """Sign with the key in ``key_file`` (made on first use) from now on."""
    from meteor_lite.resources import integrity

    monkeypatch.setenv(integrity.ENV_KEY_FILE, str(key_file))
    monkeypatch.setattr(integrity, "_keys", {})


def test_a_forged_file_consistent_with_the_bundle_is_not_trusted_but_written_again(
    tiny_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernels_built: None
) -> None:
    """Someone who can write the bundle's directory writes a table file with the scorer's own writer, from other
    tables, stamped with the real bundle's size, mtime, inode and checksum and with its own content checksum: its
    header does not carry this user's MAC, so it is never read; the next scorer writes the true file over it."""
    from tiny_bundles import BundleWriter

    forged_src = tmp_path / "forger" / "forged.sqlite"
    forged_src.parent.mkdir()
    with BundleWriter(forged_src, language="en", name="tiny", version="0.0.1") as w:
        w.add_function_words(["the", "a", "of", "on"])
        w.add_synsets([("car", 1), ("ran", 1), ("automobile", 1)])  # "ran" a synonym of "car": scores move
    side = mapped_path(tiny_bundle)
    with Bundle.open(tiny_bundle) as real, Bundle.open(forged_src) as forged:
        stamp = mapped._bundle_stamp(real)
        true_synsets = real.synsets(["car", "ran"])
        with monkeypatch.context() as forger:
            _use_key(forger, tmp_path / "forger" / "key")  # the forger's own key (it cannot read ours)
            forger.setattr(mapped, "_bundle_stamp", lambda b: stamp)
            write_mapped_tables(forged, side)
            control = open_mapped_tables(real, build=False)  # under the forger's key the file would be read...
            assert control is not None and control.synsets(["car", "ran"]) != true_synsets
            control.close()
    _use_key(monkeypatch, tmp_path / "user" / "key")
    forged_ino = side.stat().st_ino
    with Bundle.open(tiny_bundle) as real:
        assert open_mapped_tables(real, build=False) is None  # ...under ours it is not
    m = Meteor("en", bundle=tiny_bundle, quiet=True, modules=("exact", "synonym"))
    assert m.resources.mapped and side.stat().st_ino != forged_ino, "the forged file is replaced by a true one"
    with Bundle.open(tiny_bundle) as real:
        tables = open_mapped_tables(real, build=False)
        assert tables is not None and tables.synsets(["car", "ran"]) == true_synsets
        tables.close()
    with monkeypatch.context() as env:
        env.setenv(mapped.MAPPED_ENV, "0")
        queried = Meteor("en", bundle=tiny_bundle, quiet=True, modules=("exact", "synonym"))
    pair = ("the car ran", ["the ran car"])
    assert m.score_segment(*pair).stats == queried.score_segment(*pair).stats


def test_without_a_usable_key_no_file_is_written_or_trusted(
    tiny_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernels_built: None
) -> None:
    """A key file that others can read is not used (one warning naming it): nothing can vouch for a table file, so
    the bundle is queried, and no file is written; the scores do not change."""
    from meteor_lite.errors import MeteorLiteWarning

    expected = Meteor("en", bundle=tiny_bundle, quiet=True).score_segment("the car ran", ["an automobile ran"]).stats
    os.unlink(mapped_path(tiny_bundle))
    key = tmp_path / "open-key"
    key.write_text("ab" * 32 + "\n", encoding="ascii")
    key.chmod(0o644)
    _use_key(monkeypatch, key)
    with pytest.warns(MeteorLiteWarning, match="open-key: the key of the cache of verified bundles cannot be used"):
        m = Meteor("en", bundle=tiny_bundle, quiet=True)
    assert not m.resources.mapped and not mapped_path(tiny_bundle).exists()
    assert m.score_segment("the car ran", ["an automobile ran"]).stats == expected


def test_a_file_killed_writers_left_is_removed_by_the_next_writer(
    tiny_bundle: Path, monkeypatch: pytest.MonkeyPatch, kernels_built: None
) -> None:
    """A writer killed outright (SIGKILL) leaves its ``.x.tables.PID.THREAD.tmp``: the next one to write removes it (those
    of live processes stay)."""
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    side = mapped_path(tiny_bundle)
    left = side.with_name(f".{side.name}.{dead.pid}.tmp")
    live = side.with_name(f".{side.name}.{os.getppid()}.tmp")
    left.write_bytes(b"partial")
    live.write_bytes(b"partial")
    assert Meteor("en", bundle=tiny_bundle, quiet=True).resources.mapped
    assert not left.exists() and live.exists()


def test_the_first_write_is_announced_once(tiny_bundle: Path, monkeypatch: pytest.MonkeyPatch, kernels_built: None) -> None:
    """The file is about as large as the bundle: its first write says so (the command line's notice: one line on
    stderr), a later use of the same file says nothing.  (Only bundles of at least ``ANNOUNCE_SIZE`` bytes; here 0.)"""
    from meteor_lite.resources import integrity

    told: List[str] = []
    monkeypatch.setattr(mapped, "ANNOUNCE_SIZE", 0)
    integrity.set_notice(told.append)
    try:
        assert Meteor("en", bundle=tiny_bundle, quiet=True).resources.mapped
        assert Meteor("en", bundle=tiny_bundle, quiet=True).resources.mapped
    finally:
        integrity.set_notice(None)
    assert len(told) == 1 and told[0].startswith(f"writing {mapped_path(tiny_bundle)}: the bundle's look-up tables")
    assert f"{mapped.MAPPED_ENV}=0 turns it off" in told[0]


@pytest.mark.parametrize("kind", ["non-ascii", "directory", "short"])
def test_an_unusable_key_file_is_named_in_one_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """A key file with non-ASCII bytes (was: an 'ascii' codec error naming no file that stopped all scoring), a
    directory, a short file: one warning naming it, and verification goes on (every run)."""
    from meteor_lite.errors import MeteorLiteWarning
    from meteor_lite.resources import integrity

    key = tmp_path / "k"
    if kind == "directory":
        key.mkdir(mode=0o700)
    else:
        key.write_bytes(b"\xff" * 64 if kind == "non-ascii" else b"abc\n")
        key.chmod(0o600)
    _use_key(monkeypatch, key)
    with pytest.warns(MeteorLiteWarning, match=rf"^{key}: the key of the cache of verified bundles cannot be used"):
        assert integrity.sign("x", "y") is None
