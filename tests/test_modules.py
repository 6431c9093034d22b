"""The matcher modules' registry (meteor_lite/align/modules.py) and the near-miss module (meteor_lite/align/near.py).

Every registered module is compared on both paths (pure Python and the compiled pair kernel) on real pairs of
../shared/data (meteor-example/system1.hyp, system2.hyp, reference; wmt21/newstest2021.de-en.da.tsv.gz), alone and
after the exact module; the generated C header is checked to be the committed one.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import List, Tuple

import pytest

from meteor_lite import Meteor, accel
from meteor_lite.align import modules as registry
from meteor_lite.align.budget import count_candidates
from meteor_lite.align.matches import collect_matches
from meteor_lite.align.maxacc import maxacc_gains
from meteor_lite.align.near import edit_distance, near_words
from meteor_lite.config import resolve_config
from meteor_lite.languages import LANGUAGES, MODULE_SHORT, MODULES, TASKS, default_modules, preset
from meteor_lite.scoring import _align_sides, _pair_stats, prepare_side
from meteor_lite.signature import MODULE_SIG
from test_accel import _segments

NAMES = [m.name for m in registry.REGISTRY]


def test_the_committed_header_is_the_generated_one() -> None:
    header = Path(registry.__file__).parent.parent / "_accel_modules.h"
    assert header.read_text(encoding="utf-8") == registry.c_header(), "run make modules-header (or make accel)"


def test_the_header_writer_leaves_an_unchanged_header_alone(tmp_path: Path) -> None:
    """``make modules-header`` rewrites the header only when it changes (atomically, so that a build reading it
    never sees a half-written one)."""
    header = tmp_path / "h.h"
    assert registry.main(["--c-header", str(header)]) == 0
    assert header.read_text(encoding="utf-8") == registry.c_header()
    before = header.stat()
    assert registry.main(["--c-header", str(header)]) == 0
    after = header.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    header.write_text("stale\n", encoding="utf-8")
    assert registry.main(["--c-header", str(header)]) == 0
    assert header.read_text(encoding="utf-8") == registry.c_header()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.h"]  # no temporary file left


def test_records_are_consistent() -> None:
    assert MODULES == tuple(NAMES)
    assert [m.code for m in registry.REGISTRY] == list(range(len(NAMES)))
    assert len({m.sig for m in registry.REGISTRY}) == len(NAMES) == len({m.short for m in registry.REGISTRY})
    assert len({m.c_name for m in registry.REGISTRY}) == len(NAMES)
    for m in registry.REGISTRY:
        assert callable(m.candidate_function()) and callable(m.count_function())
        assert m.needs is None or m.needs in registry.RESOURCES
    # the names every other table reads from the registry
    assert MODULE_SIG == {m.name: m.sig for m in registry.REGISTRY}
    assert MODULE_SHORT == {m.name: m.short for m in registry.REGISTRY}


def test_meteor_modules_keep_the_jars_names_order_and_li_weights() -> None:
    """Meteor 1.5's four modules (its -m names, Eval ID abbreviations, order) and its li preset's weights."""
    assert registry.METEOR_MODULES == ("exact", "stem", "synonym", "paraphrase")
    assert [MODULE_SHORT[m] for m in registry.METEOR_MODULES] == ["ex", "st", "sy", "pa"]
    li = preset("other", "li")[1]
    assert tuple(registry.module(m).li_weight for m in registry.METEOR_MODULES) == li


def test_unknown_modules_are_an_error_not_a_silent_default() -> None:
    with pytest.raises(KeyError, match="unknown module 'typo'"):
        registry.module("typo")
    with pytest.raises(KeyError, match="unknown module"):
        maxacc_gains([[]], ["typo"], 1, 1)
    with pytest.raises(KeyError, match="unknown resource"):
        registry.modules_needing(["exact"], "stems")


def test_near_is_never_in_meteors_configurations() -> None:
    for lang in LANGUAGES:
        for task in TASKS:
            try:
                mods = default_modules(lang, task)
            except Exception:  # pragma: no cover - every pair has a module list
                continue
            assert "near" not in mods
    assert not registry.module("near").default and not registry.module("near").meteor
    assert registry.module("near").li_weight < registry.module("stem").li_weight


def _osa(a: str, b: str) -> int:
    """The optimal string alignment distance, the full table (no cut-off), written out independently."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def test_edit_distance_is_the_optimal_string_alignment_distance() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        a = "".join(rng.choice("abcé") for _ in range(rng.randint(0, 9)))
        b = "".join(rng.choice("abcé") for _ in range(rng.randint(0, 9)))
        limit = rng.randint(0, 5)
        full = _osa(a, b)
        assert edit_distance(a, b, limit) == (full if full <= limit else limit + 1), (a, b, limit)


@pytest.mark.parametrize(
    "a, b, near",
    [
        ("1,000", "1000", True),            # a number written differently: one deletion in five characters
        ("colour", "color", True),
        ("recieve", "receive", True),       # two letters swapped: one edit
        ("Tschaikowsky", "Tchaikovsky", True),  # 3 edits, 12 characters
        ("cat", "cut", False),              # shorter than four characters
        ("walked", "walking", False),       # three edits in seven characters
        ("house", "mouse", True),           # the rule is about characters, not meaning
        ("houses", "house", True),
    ],
)
def test_near_words(a: str, b: str, near: bool) -> None:
    assert near_words(a, b) is near
    assert near_words(b, a) is near


@pytest.fixture(scope="module")
def real_pairs(shared_data: Path) -> List[Tuple[str, str]]:
    """600 real (hypothesis, reference) pairs: system1, system2 and WMT21 de-en against both references."""
    return [(h, r) for h, refs in _segments(shared_data, 100) for r in refs]


def _pure_python(m: Meteor, hyp: List[str], ref: List[str], monkeypatch: pytest.MonkeyPatch) -> Tuple[str, list]:
    with monkeypatch.context() as patch:
        patch.setattr(accel, "compiled", None)
        h, r = prepare_side(hyp, m.config, m.resources), prepare_side(ref, m.config, m.resources)
        st, matches, bounded = _align_sides(h, r, m.config, m.resources)
    assert not bounded
    return st.to_ss_line(), [x.as_tuple() for x in matches]


@pytest.mark.skipif(accel.compiled is None,
                    reason="the compiled kernels are not built or are turned off (make accel; METEOR_LITE_PURE)")
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("after_exact", [False, True], ids=["alone", "after-exact"])
def test_every_module_agrees_on_both_paths(
    name: str, after_exact: bool, real_pairs: List[Tuple[str, str]], en_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each registered module: the pure-Python path and the compiled pair kernel give the same statistics and
    alignment on every pair (and so does the Python path with the per-function kernels), and the module matches
    words (of its own) on the real pairs."""
    mods = ["exact", name] if after_exact and name != "exact" else [name]
    m = Meteor("en", norm=True, modules=mods, weights=[1.0] * len(mods), quiet=True)
    pairs = [(m.tokens(h), m.tokens(r)) for h, r in real_pairs]
    m.prefetch([s for pair in pairs for s in pair])
    own = len(mods) - 1
    matched = 0
    for hyp, ref in pairs:
        want = _pure_python(m, hyp, ref, monkeypatch)
        h, r = prepare_side(hyp, m.config, m.resources), prepare_side(ref, m.config, m.resources)
        assert h[5] is not None and r[5] is not None
        st, chosen, _ = _pair_stats(h, r, m.config, m.resources)
        assert (st.to_ss_line(), list(chosen)) == want, (name, hyp, ref)
        # the Python path with the per-function kernels (synonym_pairs, phrase_matches, word_matches; near: Python)
        st2, matches2, _ = _align_sides(h[:5] + (None,), r[:5] + (None,), m.config, m.resources)
        assert (st2.to_ss_line(), [x.as_tuple() for x in matches2]) == want, (name, hyp, ref)
        matched += sum(t[2] for t in want[1] if t[0] == own)
    assert matched > 0


@pytest.mark.parametrize("name", NAMES)
def test_every_modules_budget_count_is_its_candidates(
    name: str, real_pairs: List[Tuple[str, str]], en_bundle: Path
) -> None:
    """The bounded mode's count of each module (far from its limit) is never below the number of candidates it finds
    (synonyms and paraphrases are counted by a quick upper bound when it is small), and is that number for the
    modules counted exactly."""
    m = Meteor("en", norm=True, modules=["exact", name] if name != "exact" else ["exact"], quiet=True)
    mods = m.config.modules
    for h, r in real_pairs[:200]:
        hyp, ref = m.tokens(h), m.tokens(r)
        found = sum(len(c) for c in collect_matches(hyp, ref, mods, m.resources))
        counted = count_candidates(hyp, ref, mods, m.resources, 10**9)
        assert counted == found if name in ("exact", "stem", "near") else counted >= found, (name, hyp, ref)


def test_near_in_the_signature_and_off_by_default(en_bundle: Path) -> None:
    m = Meteor("en", norm=True, modules=["exact", "stem", "near"], weights=[1.0, 0.6, 0.3], quiet=True)
    assert "|mods:exact+stem+near|w:1,0.6,0.3|" in m.signature
    assert "near" not in Meteor("en", norm=True, quiet=True).config.modules
    assert "near" not in resolve_config("de").modules
    hyp, ref = "the colour of the recieved numbers : 1,000", "the color of the received numbers : 1000"
    with_near = m.score_segment(hyp, [ref])
    without = Meteor("en", norm=True, modules=["exact", "stem"], weights=[1.0, 0.6], quiet=True).score_segment(hyp, [ref])
    assert with_near.score > without.score


@pytest.mark.skipif(accel.compiled is None,
                    reason="the compiled kernels are not built or are turned off (make accel; METEOR_LITE_PURE)")
def test_near_in_the_pair_kernel_on_every_kind_of_string(en_bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pair kernel's near matcher against the pure-Python one on random words mixing one-, two- and four-byte
    characters (each storage kind of Python's strings), case kept: the same statistics and alignment."""
    rng = random.Random(8)
    alphabet = "abcdeé1ßΩ😀"
    words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9))) for _ in range(400)]

    def edited(w: str) -> str:  # one insertion, deletion, substitution or swap of neighbours
        i = rng.randrange(len(w))
        return rng.choice([w[:i] + rng.choice(alphabet) + w[i:], w[:i] + w[i + 1:], w[:i] + rng.choice(alphabet) + w[i + 1:],
                           w[:i] + w[i + 1:i + 2] + w[i:i + 1] + w[i + 2:]])

    m = Meteor("en", modules=["near"], weights=[1.0], quiet=True)
    found = 0
    for _ in range(150):
        hyp_words = [rng.choice(words) for _ in range(20)]
        ref_words = [edited(w) if rng.random() < 0.5 else rng.choice(words) for w in hyp_words]
        rng.shuffle(ref_words)
        hyp, ref = m.tokens(" ".join(hyp_words)), m.tokens(" ".join(ref_words))
        want = _pure_python(m, hyp, ref, monkeypatch)
        h, r = prepare_side(hyp, m.config, m.resources), prepare_side(ref, m.config, m.resources)
        assert h[5] is not None and r[5] is not None
        st, chosen, _ = _pair_stats(h, r, m.config, m.resources)
        assert (st.to_ss_line(), list(chosen)) == want, (hyp, ref)
        found += sum(t[2] for t in want[1])
    assert found > 100
