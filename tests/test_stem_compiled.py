"""The compiled English stemmer (``make accel``, meteor_lite/stemmers/_english.c) against the pure-Python one.

``snowballstemmer`` 2.2.0's pure-Python EnglishStemmer stays the reference (Meteor 1.5's jar gives its stems).
The compiled stemmer (Snowball 2.2.0's C output for the same ``english.sbl``) must give the same stem for
every word, through ``_english.stem``, ``_english.stem_words`` and :class:`Meteor15Stemmer`, on:

- every white-space token, as written and lower-cased, and every token of Meteor's ``-norm`` preparation, of
  ``../shared/data/meteor-example/{system1.hyp,system2.hyp,reference}``;
- every white-space token, as written and lower-cased, of the English sides (``hyp``, ``ref_A``, ``ref_B``)
  of ``../shared/data/wmt21/newstest2021.*-en.da.tsv.gz``;
- every lemma of WordNet's ``/usr/share/wordnet/index.{noun,verb,adj,adv}`` (Debian's ``wordnet-base``), whole
  and split at its underscores (skipped, saying so, where that package is not installed);
- hostile strings (empty, one and two letters, ``y``/``Y`` cases, apostrophes, digits, letters beyond ASCII,
  combining marks, NUL, very long words) and 20,000 seeded random strings over the letters the algorithm tests.

Words with a character beyond U+FFFF or a lone surrogate are declined by the compiled stemmer (None), and
:class:`Meteor15Stemmer` stems them in pure Python (as UTF-16 units, as the jar does).  The 1,000,000 English
words of the jar's recorded stems (``tests/fixtures/stems/en.txt.xz``) are checked by ``make stem-fixtures``
and, a part each run, by tests/test_stem_fixtures.py, on whichever stemmer is in use.
Where the extension has not been built, these tests skip saying so; ``make test`` builds it first.
"""

from __future__ import annotations

import csv
import gzip
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Iterable, List, Optional, Set

import pytest

from meteor_lite.stemmers import Meteor15Stemmer, compiled
from meteor_lite.stemmers.meteor15 import stemmer_class

try:
    from meteor_lite.stemmers import _english
except ImportError:  # pragma: no cover - depends on `make accel`
    _english = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(
    _english is None, reason="the compiled English stemmer is not built (make accel; `make test` builds it)"
)

ROOT = Path(__file__).resolve().parent.parent
WORDNET = Path("/usr/share/wordnet")

#: Strings that probe the edges: lengths, the prelude's y/Y and apostrophes, non-ASCII letters, odd characters.
HOSTILE: List[str] = [
    "", "a", "y", "Y", "s", "'", "''", "'''", "'s", "s'", "'s'", "y's", "ys", "yy", "YY", "Yy", "yY", "ay", "ya",
    "bY", "by", "sky", "skies", "Yes", "YES", "yes", "yyyy", "Yyyy", "ayay", "ayY", "sayying", "Ying", "yying",
    "dying", "lying", "tying", "news", "inning", "outing", "canning", "herring", "earring", "proceed", "exceed",
    "succeed", "andes", "atlas", "bias", "cosmos", "ugly", "early", "only", "singly", "gener", "commun", "arsen",
    "generate", "communism", "arsenal", "'tis", "o'clock", "rock'n'roll", "don't", "isn't", "dogs'", "dog's'",
    "1990s", "123", "3rd", "2nd", "a1b2", "ies", "sses", "ied", "eed", "eedly", "ingly", "edly", "ational",
    "tional", "alism", "aliti", "fulness", "ousness", "iveness", "biliti", "logi", "ogist", "ement", "ment", "ent",
    "café", "cafés", "naïve", "naïvely", "résumé", "résumés", "façade", "façades", "Ωmega", "straße", "ﬁnishing",
    "İstanbul", "ıing", "éé", "ée", "eé", "ÿes", "Ÿes", "ÿ", "Ÿ", "ye\u0301s", "runn\u0301ing", "e\u0308ing",
    "\u00a0ing", "\u200bing", "soft\u00adly", "\ufeffworking", "работающий", "日本語ing", "العربيةing", "\u0661\u0662ing",
    "a\x00b", "\x00", "ing\x00", "\x01ies", "\x7fly", "\u0085ness", "\u2028ment", "\ufffdly", "\uffffing", "\uffffy",
    "ab" * 5000 + "ational", "y" * 10000, "Y" * 10000, "'" * 1000, "é" * 3000 + "ing", "sses" * 2500,
]

#: Words the compiled stemmer declines: a character beyond U+FFFF, a lone surrogate.
DECLINED: List[str] = [
    "\U0001f600", "\U0001f600s", "running\U0001f600", "\U0001d518ing", "ab\U00020000ational", "\U0010ffffy",
    "\ud800", "\udfffing", "runn\udc80ing", "y\ud83d",
]


def _pure_stems(words: Iterable[str]) -> List[str]:
    stemmer = stemmer_class("english")()
    return [stemmer.stemWord(w) for w in words]


def _assert_same(words: List[str]) -> None:
    """The compiled stems of ``words`` (batch and one by one) are the pure-Python ones."""
    assert _english is not None
    pure = _pure_stems(words)
    batch = _english.stem_words(words)
    bad = [(w, p, c) for w, p, c in zip(words, pure, batch) if p != c]
    assert not bad, f"{len(bad)} of {len(words)} words differ, e.g. {bad[:10]}"
    assert [_english.stem(w) for w in words[::97]] == pure[::97]


def _tokens(lines: Iterable[str]) -> Set[str]:
    out: Set[str] = set()
    for line in lines:
        for w in line.split():
            out.add(w)
            out.add(w.lower())
    return out


def test_meteor_example_words(shared_data: Path) -> None:
    from meteor_lite import Meteor

    m = Meteor("en", norm=True, quiet=True)
    words: Set[str] = set()
    for name in ("system1.hyp", "system2.hyp", "reference"):
        lines = (shared_data / "meteor-example" / name).read_text(encoding="utf-8").splitlines()
        words |= _tokens(lines)
        words.update(w for line in lines for w in m.tokens(line))
    assert len(words) > 20_000
    _assert_same(sorted(words))


@pytest.mark.slow
def test_wmt21_english_sides(shared_data: Path) -> None:
    files = sorted((shared_data / "wmt21").glob("newstest2021.*-en.da.tsv.gz"))
    if not files:
        pytest.skip(f"{shared_data}/wmt21 has no newstest2021.*-en.da.tsv.gz")
    words: Set[str] = set()
    for path in files:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            rows = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
            words |= _tokens(row[c] or "" for row in rows for c in ("hyp", "ref_A", "ref_B"))
    assert len(words) > 50_000
    _assert_same(sorted(words))


@pytest.mark.slow
def test_wordnet_lemmas() -> None:
    index = [WORDNET / f"index.{pos}" for pos in ("noun", "verb", "adj", "adv")]
    if not all(p.is_file() for p in index):
        pytest.skip(f"no WordNet index files in {WORDNET} (Debian's wordnet-base): nothing to read here")
    words: Set[str] = set()
    for path in index:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith(" "):
                lemma = line.split(" ", 1)[0]
                words.add(lemma)
                words.update(lemma.split("_"))
    assert len(words) > 100_000
    _assert_same(sorted(words))


def test_hostile_strings() -> None:
    _assert_same(HOSTILE)


def test_random_strings() -> None:
    """Seeded random strings over the letters every rule tests (vowels, y/Y, w/x, the li-endings, apostrophes)."""
    rng = random.Random(2022)
    alphabet = "aeiouyYbcdglmnrstwxz'é"
    suffixes = ["", "s", "es", "ed", "ing", "ly", "ness", "ational", "iveness", "ement", "'s", "ies", "eed", "y"]
    words = [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9))) + rng.choice(suffixes) for _ in range(20_000)
    ]
    _assert_same(words)


def test_declined_words_are_stemmed_in_pure_python() -> None:
    assert _english is not None
    assert _english.stem_words(DECLINED) == [None] * len(DECLINED)
    assert all(_english.stem(w) is None for w in DECLINED)
    assert _english.stem_words(["running", "\U0001f600s", "dogs"]) == ["run", None, "dog"]
    stemmer = Meteor15Stemmer("english")
    pure = Meteor15Stemmer("english")
    old = compiled.english
    try:
        compiled.english = None
        expected = [pure(w) for w in DECLINED]
    finally:
        compiled.english = old
    assert [stemmer(w) for w in DECLINED] == expected == stemmer.stem_words(DECLINED)


def test_bad_arguments_raise() -> None:
    assert _english is not None
    with pytest.raises(TypeError, match="must be a str"):
        _english.stem(b"running")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be a str"):
        _english.stem_words(["running", None])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="sequence of str"):
        _english.stem_words(5)  # type: ignore[arg-type]
    assert _english.stem_words([]) == [] and _english.stem_words(("dogs", "cats")) == ["dog", "cat"]


def test_meteor15_stemmer_uses_it_unless_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: List[object] = []

    class Spy:
        SOURCE_SHA256 = ""
        MAX_BYTES = 0

        def stem(self, word: str) -> Optional[str]:
            calls.append(word)
            assert _english is not None
            return _english.stem(word)

        def stem_words(self, words: List[str]) -> List[Optional[str]]:
            calls.append(tuple(words))
            assert _english is not None
            return _english.stem_words(words)

    assert compiled.english is _english and "compiled" in compiled.description()
    english, danish = Meteor15Stemmer("english"), Meteor15Stemmer("danish")
    monkeypatch.setattr(compiled, "english", Spy())
    assert english("generously") == "generous" and english.stem_words(["dogs", "\U0001f600s"]) == ["dog", "\U0001f600s"]
    hest = stemmer_class("danish")().stemWord("hestene")
    assert danish("hestene") == hest and danish.stem_words(["hestene"]) == [hest]  # Danish is not compiled
    assert calls == ["generously", ("dogs", "\U0001f600s")]
    monkeypatch.setattr(compiled, "english", None)  # turned off: pure Python
    assert english("generously") == "generous" and english.stem_words(["dogs"]) == ["dog"]
    assert len(calls) == 2


def test_the_environment_turns_it_off() -> None:
    code = "from meteor_lite.stemmers import compiled; print(compiled.english is None, compiled.description())"
    for value, pure in (("1", "True"), ("yes", "True"), ("0", "False"), ("", "False")):
        env = {**os.environ, "METEOR_LITE_PURE": value}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.split()[0] == pure, f"METEOR_LITE_PURE={value!r}: {out.stdout}"
        assert ("METEOR_LITE_PURE is set" in out.stdout) == (pure == "True")


def test_a_module_built_from_other_sources_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkout updated since `make accel`: the old module is not used (a warning says to rebuild)."""
    from meteor_lite.errors import MeteorLiteWarning

    assert _english is not None and len(_english.SOURCE_SHA256) == 64
    assert compiled._load() is _english  # built from the sources beside it
    assert compiled.sources_digest(Path(compiled.__file__).parent) == _english.SOURCE_SHA256
    monkeypatch.setattr(compiled, "sources_digest", lambda root: "0" * 64)
    with pytest.warns(MeteorLiteWarning, match="built from other sources"):
        assert compiled._load() is None
    monkeypatch.setattr(compiled, "sources_digest", lambda root: None)  # no sources installed: nothing to compare
    assert compiled._load() is _english


def test_setup_py_compiles_the_listed_sources() -> None:
    """setup.py compiles the sources of english_sources.SOURCES (loaded by its path) and the digest it compiled
    into the built module is theirs; each exists."""
    from meteor_lite.stemmers import english_sources

    assert "english_sources.py" in (ROOT / "setup.py").read_text(encoding="utf-8")
    assert compiled.SOURCES is english_sources.SOURCES
    here = ROOT / "meteor_lite" / "stemmers"
    assert all((here / rel).is_file() for rel in compiled.SOURCES)
    assert compiled.sources_digest(here) is not None and compiled.sources_digest(ROOT) is None
    if _english is not None:
        assert _english.SOURCE_SHA256 == compiled.sources_digest(here)


def test_threads_stemming_at_once_get_the_same_stems() -> None:
    """Each call makes its own runtime environment: threads stemming together never share one."""
    from concurrent.futures import ThreadPoolExecutor

    assert _english is not None
    rng = random.Random(7)
    lists = [[w + rng.choice(["", "s", "ing", "ational", "ly"]) for w in HOSTILE[:-6]] for _ in range(8)]
    expected = [_pure_stems(ws) for ws in lists]
    stemmer = Meteor15Stemmer("english")
    with ThreadPoolExecutor(4) as pool:
        batches = list(pool.map(stemmer.stem_words, lists * 25))
        singles = list(pool.map(lambda ws: [stemmer(w) for w in ws], lists * 5))
    assert batches == expected * 25 and singles == expected * 5
