"""The compiled ``-norm`` preparation (``prepare_western`` in meteor_lite/_accel.c) against the pure-Python one.

For a line of a western language with Meteor's white-space tokeniser,
:func:`meteor_lite.text.normalize.prepare` hands the whole preparation (normalisation,
lower-casing, tokenising) to the compiled twin.  The pure-Python code stays the
reference: the twin must give exactly its tokens, for the English, French and generic
apostrophe rules, with and without ``-noPunct``, lower-cased or not, with the English
bundle's non-breaking prefixes, on

* every line of the official example (``meteor-example``: system1, system2, reference
  and the SGML files, tags and all), always;
* a seeded sample of the lines of the other shared sets (WMT21 outputs and references,
  the MQM and WMT MQM sets, the biomedical sets, Multi30k), each skipped with its reason
  when absent, and one part in 32 of all their lines, drawn at random per run (32 runs cover
  every line; ``METEOR_LITE_NORM_PART=k`` repeats part k);
* 20,000 random strings over a hostile alphabet (DOTMULTI fragments, abbreviations,
  non-breaking prefixes before numbers and words, runs of dots, commas between digits,
  quotes, control characters at the ends; half of them with non-ASCII letters, quotes,
  dashes, spaces, astral characters and a lone surrogate).

The one line the twin leaves to Python (None) is one to lower-case that holds a capital
sigma (Java lower-cases it by word boundaries), and ``prepare`` must use the twin exactly
for the languages and tokeniser in its range.
"""

from __future__ import annotations

import functools
import gzip
import os
import random
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

import pytest

from meteor_lite import Meteor, accel
from meteor_lite.text.normalize import _LOWER_TABLE, java_lower, normalize, prepare, tokenize

try:
    from meteor_lite import _accel
except ImportError:  # pragma: no cover - depends on `make accel`
    _accel = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(
    _accel is None, reason="the compiled kernels are not built (make accel; `make test` builds them)"
)

#: language -> the twin's apostrophe rule (English, French, the generic split of every apostrophe).
LANGS = {"en": 0, "fr": 1, "de": 2}
EXAMPLE_FILES = ("system1.hyp", "system2.hyp", "reference", "test.sgm", "ref.sgm")
#: Text columns of the shared TSV sets (those a file lacks are ignored).
TEXT_COLUMNS = ("hyp", "ref", "ref_A", "ref_B", "ref_b", "ref_c", "src", "source")
#: Java's lower case of a capital sigma depends on word boundaries: the twin leaves such lines to Python.
SIGMA = "\u03a3"
#: Rows drawn from each other shared file in the default (fast) run.
SAMPLE_PER_FILE = 20
#: Every line of the other shared sets is compared in PARTS parts, one per run (about a minute for all of them);
#: ``METEOR_LITE_NORM_PART=k`` chooses part k.
PARTS = 32
PART_ENV = "METEOR_LITE_NORM_PART"


@functools.lru_cache(maxsize=None)
def english_prefixes() -> Dict[str, bool]:
    """The English bundle's non-breaking prefixes (prefix -> numeric only), as the scorer reads them."""
    return Meteor("en", norm=True, quiet=True).resources.nonbreaking


@pytest.fixture()
def prefixes(en_bundle: Path) -> Dict[str, bool]:
    """:func:`english_prefixes` (the test is skipped without the English bundle)."""
    table = english_prefixes()
    assert any(table.values()) and not all(table.values()), "expected both kinds of prefix in the English bundle"
    return table


def pure_tokens(line: str, lang: str, keep_punct: bool, nonbreaking: Dict[str, bool]) -> Tuple[List[str], List[str]]:
    """The pure-Python tokens of ``prepare(norm=True)``, lower-cased and case kept (its two casing branches)."""
    text = normalize(line, lang, keep_punct=keep_punct, nonbreaking=nonbreaking)
    return tokenize(java_lower(text)), tokenize(text)


def has_apostrophe(line: str) -> bool:
    """Whether the line has a character the apostrophe rules read (', or ` U+2018 U+2019, which become ')."""
    return "'" in line or "`" in line or "\u2018" in line or "\u2019" in line


def assert_same(
    lines: List[str], nonbreaking: Dict[str, bool], source: str, rng: Optional[random.Random] = None
) -> int:
    """Every line of ``lines`` through both paths, for every language rule, -noPunct and casing.

    The languages differ only in their apostrophe rule, so for a line without an apostrophe the
    pure-Python tokens of English stand for all three (:func:`test_languages_differ_only_on_apostrophes`
    checks that); the compiled twin still runs with each rule.  With ``rng``, each line is checked
    with one language drawn at random (for the random strings).
    The twin must decline (None) exactly the lines it is to lower-case that hold a capital sigma.
    Returns how many lines were compared.
    """
    assert _accel is not None
    compared = 0
    for line in lines:
        if SIGMA in line:
            assert _accel.prepare_western(line, 0, True, True, nonbreaking, _LOWER_TABLE) is None, (source, line)
            cased = _accel.prepare_western(line, 0, True, False, nonbreaking, _LOWER_TABLE)
            assert cased == pure_tokens(line, "en", True, nonbreaking)[1], (source, line)
            continue
        compared += 1
        langs = list(LANGS.items()) if rng is None else [rng.choice(list(LANGS.items()))]
        for keep_punct in (True, False):
            english: Optional[Tuple[List[str], List[str]]] = None
            for lang, mode in langs:
                if has_apostrophe(line) or english is None:
                    pure = pure_tokens(line, lang, keep_punct, nonbreaking)
                    english = english or pure
                lowered, cased = pure if has_apostrophe(line) else english
                got_lower = _accel.prepare_western(line, mode, keep_punct, True, nonbreaking, _LOWER_TABLE)
                got_cased = _accel.prepare_western(line, mode, keep_punct, False, nonbreaking, _LOWER_TABLE)
                where = f"{source}: lang={lang} keep_punct={keep_punct} line={line!r}"
                assert got_lower == lowered, where + " (lower-cased)"
                assert got_cased == cased, where + " (case kept)"
    return compared


def example_lines(shared_data: Path) -> List[str]:
    """Every distinct line of the official example's files (a missing one fails: they are always used)."""
    lines: List[str] = []
    for name in EXAMPLE_FILES:
        lines.extend((shared_data / "meteor-example" / name).read_text(encoding="utf-8").splitlines())
    return list(dict.fromkeys(lines))


def row_texts(header: List[str], rows: List[str]) -> Iterator[str]:
    """The non-empty text cells (:data:`TEXT_COLUMNS`) of tab-separated rows."""
    columns = [k for k, name in enumerate(header) if name in TEXT_COLUMNS]
    for row in rows:
        cells = row.split("\t")
        for k in columns:
            if k < len(cells) and cells[k]:
                yield cells[k]


def shared_files(shared_data: Path) -> List[Path]:
    """The shared text sets besides the official example (WMT21, MQM, WMT MQM, biomedical, Multi30k)."""
    files = sorted((shared_data / "wmt21").glob("*.tsv.gz"))
    files += sorted((shared_data / "wmt-mqm").glob("*.tsv.gz"))
    files += sorted((shared_data / "mqm").glob("*.tsv.gz"))  # the TED, WMT23 and biomedical (biomed2021.*) sets
    files += sorted((shared_data / "multi30k").glob("*.gz"))
    return files


def file_lines(path: Path, rng: Optional[random.Random] = None) -> List[str]:
    """Distinct text lines of one shared file (a gzipped TSV with a header, or plain text), in first-seen order.

    With ``rng``, those of :data:`SAMPLE_PER_FILE` random rows only.
    """
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
        rows = [row for row in f.read().split("\n") if row]
    header: Optional[List[str]] = None
    if path.name.endswith(".tsv.gz"):
        header, rows = rows[0].split("\t"), rows[1:]
    if rng is not None:
        rows = rng.sample(rows, min(SAMPLE_PER_FILE, len(rows)))
    texts = row_texts(header, rows) if header is not None else iter(rows)
    return list(dict.fromkeys(texts))


def test_example_lines_identical(shared_data: Path, prefixes: Dict[str, bool]) -> None:
    """Every line of meteor-example (hypotheses, reference, SGML files): the same tokens on both paths."""
    lines = example_lines(shared_data)
    compared = assert_same(lines, prefixes, "meteor-example")
    assert compared > 9000, f"only {compared} lines compared"


def test_languages_differ_only_on_apostrophes(shared_data: Path, prefixes: Dict[str, bool]) -> None:
    """The pure-Python rules of en, fr and de agree on lines without an apostrophe (what assert_same relies on)."""
    rng = random.Random(3)
    lines = [x for x in example_lines(shared_data) if not has_apostrophe(x)][:400]
    lines += [x for x in (random_line(rng, prefix_pieces(prefixes)) for _ in range(2000)) if not has_apostrophe(x)]
    assert len(lines) > 1000
    for line in lines:
        for keep_punct in (True, False):
            english = pure_tokens(line, "en", keep_punct, prefixes)
            assert pure_tokens(line, "fr", keep_punct, prefixes) == english, line
            assert pure_tokens(line, "de", keep_punct, prefixes) == english, line


def test_example_lines_without_prefixes(shared_data: Path) -> None:
    """The same without any non-breaking prefix (an empty list; a bundle without the table)."""
    lines = example_lines(shared_data)[:1500]
    assert assert_same(lines, {}, "meteor-example, no prefixes") > 1400


def test_shared_sets_sample(shared_data: Path, prefixes: Dict[str, bool]) -> None:
    """A seeded sample of every other shared text set (those present): the same tokens on both paths."""
    files = shared_files(shared_data)
    if not files:
        pytest.skip(f"no WMT21 / MQM / Multi30k files under {shared_data}")
    rng = random.Random(34)
    compared = 0
    for path in files:
        compared += assert_same(file_lines(path, rng), prefixes, path.name)
    assert compared > 1000, f"only {compared} lines compared"


def test_shared_sets_one_part_of_every_line(shared_data: Path, prefixes: Dict[str, bool]) -> None:
    """One part in :data:`PARTS` of every distinct line of every other shared text set present (drawn at random per
    run, ``METEOR_LITE_NORM_PART=k`` repeats part k; ``PARTS`` runs cover every line): the same tokens on both paths."""
    files = shared_files(shared_data)
    if not files:
        pytest.skip(f"no WMT21 / MQM / Multi30k files under {shared_data}")
    chosen = os.environ.get(PART_ENV)
    part = int(chosen) % PARTS if chosen else random.randrange(PARTS)
    compared = 0
    for path in files:
        lines = file_lines(path)
        compared += assert_same(lines[part::PARTS], prefixes, f"{path.name} (part {part} of {PARTS}: {PART_ENV}={part})")
    assert compared > 5000, f"only {compared} lines compared"


# ---------------------------------------------------------------------------
# Random strings
# ---------------------------------------------------------------------------

#: Pieces random strings are made of: the characters and fragments each rule looks at.
PIECES = (
    list("aAzZsStTnNlL019.,'`-\" \t")
    + ["\x00", "\x01", "\x0b", "\x0c", "\r", "\n", "\x1f", "\x7f", "!", "?", "(", ")", ";", ":", "&", "$", "%", "/", "_"]
    + ["DOTMULTI", "DOT", "MULTI", "DOTDOTMULTI", "DOTMULTI.", "dotmulti", "..", "...", "....", ". .", "..a"]
    + ["U.S.", "U.S", "e.g.", "i.e.", "a.m.", "3.5", "1.", "1,000", "1,5", "a,b", ",,", ", ,", "''", "``", "--", "---"]
    + ["'s", "n't", "'ll", "l'", "1990's", "'90", "x'", "'x", "' '", "-x", "x-", "a-b", ".-a", "1-2"]
    + ["word", "Word", "WORD", "the", "end.", "End.", "A.", "a.", "Z."]
)
#: Non-ASCII pieces: letters inside and just outside the rules' letter class, the quotes, dash and spaces they
#: rewrite, characters Java lower-cases differently (U+0130 to two characters), astral characters, a lone surrogate.
UNICODE_PIECES = [
    "\u00e9", "\u00c9", "\u00df", "\u00d7", "\u00f7", "\u0178", "\u017e", "\u017f", "\u0130", "\u0131", "\u0416",
    "\u0436", "\u0527", "\u0528", "\u1d00", "\ua641", "\ua66f", "\u01c4", "\u216b", "\uff21", "\u03c3", "\u03c2", "\u03a3", "\u039f\u03a3.",
    "\u2018", "\u2019", "\u201c", "\u201d", "\u2013", "\u2014", "\u00a0", "\u2000", "\u2009", "\u200a", "\u200b",
    "\u202f", "\u205f", "\u3000", "\u2028", "\u0085", "\u060c", "\u4e2d", "\U0001f600", "\U00010400", "\ud800",
    "caf\u00e9.", "\u00c9t\u00e9.", "l\u2019\u00e9t\u00e9", "\u2018\u2019", "\u2013-", "\u201c\u201d", "\u00e9'\u00e9",
    "\u00e9,\u00e9", "\u00e9-\u00e9", "\u00c9.\u00c9.",
]


def random_line(rng: random.Random, prefix_pieces: List[str]) -> str:
    """A line of 0-24 random pieces (sometimes padded with control characters and spaces)."""
    pool = PIECES + prefix_pieces + (UNICODE_PIECES if rng.random() < 0.5 else [])
    parts = [rng.choice(pool) for _ in range(rng.randrange(25))]
    sep = rng.choice(("", " ", " ", "  ", "\t"))
    line = sep.join(parts)
    if rng.random() < 0.2:
        line = "".join(rng.choice(" \t\x00\x0b\x1f") for _ in range(rng.randrange(4))) + line
    if rng.random() < 0.2:
        line += "".join(rng.choice(" \t\r\x0c\x0b\x20") for _ in range(rng.randrange(4)))
    return line


def prefix_pieces(prefixes: Dict[str, bool]) -> List[str]:
    """Non-breaking prefixes with their dot before numbers, lower- and upper-case words and the end."""
    rng = random.Random(7)
    names = sorted(prefixes)
    chosen = rng.sample(names, min(12, len(names))) + [p for p in ("Mr", "No", "Nos", "Art", "pp", "e.g") if p in prefixes]
    out = []
    for p in chosen:
        out += [f"{p}.", f"{p}. 5", f"{p}. word", f"{p}. Word", f"{p}.5", f" {p}. ", f"{p.lower()}.", f"{p.upper()}."]
    return out


def test_random_strings_identical(prefixes: Dict[str, bool]) -> None:
    """14,000 seeded random strings, half of them with non-ASCII pieces (one language rule each, both -noPunct
    settings and casings): the same tokens on both paths."""
    rng = random.Random(2026)
    extra = prefix_pieces(prefixes)
    lines = [random_line(rng, extra) for _ in range(14_000)]
    assert assert_same(lines, prefixes, "random", rng) == sum(SIGMA not in x for x in lines)
    assert sum(not x.isascii() for x in lines) > 4000


def test_random_strings_other_prefixes() -> None:
    """6,000 random strings with a made-up prefix table (a None value, and prefixes that are digits or contain dots)."""
    table: Dict[str, bool] = {"Mr": False, "No": True, "A": False, "1": True, "U.S": False, "e.g": True, "x": None}  # type: ignore[dict-item]
    rng = random.Random(11)
    extra = ["Mr.", "No. 3", "No. x", "A. b", "1. 2", "1. x", "x. Y", "x. 1", "U.S. A"]
    lines = [random_line(rng, extra) for _ in range(6_000)]
    assert assert_same(lines, table, "random, made-up prefixes", rng) == sum(SIGMA not in x for x in lines)


@pytest.mark.parametrize(
    "line",
    [
        "a,b,c", "1,a,2", "a,1,b", ",,,", "a-b-c", "a--b", "''quoted''", "'''", "DOTMULTI", "xDOTMULTI..y",
        "DOTDOTMULTI.", "DOTMULTI.DOTMULTI..", "...", ". . .", "U.S.A. is", "Mr. Smith", "No. 5", "No. five",
        "end.", "\x00\x01 a \x0b b \x1f", "", " ", "\t\t", "it's 90's l'a 'tis '", "A.b. c", "e.g. that",
        "\u00a0\u2000 a\u3000\u3000b \u202f", "\u0130stanbul \u00c9T\u00c9", "\u2018quoted\u2019 \u201cx\u201d a\u2013\u2013b",
        "\U0001f600. \ud800,", "\u03c3\u03c2 \u0416\u0436.",
    ],
)
def test_edge_cases(line: str, prefixes: Dict[str, bool]) -> None:
    """Hand-picked lines around each rule's boundary."""
    assert assert_same([line], prefixes, "edge case") == 1


# ---------------------------------------------------------------------------
# The hook in prepare()
# ---------------------------------------------------------------------------


class CountingKernels:
    """The compiled kernels, counting the calls of prepare_western."""

    def __init__(self, kernels: object) -> None:
        self.kernels = kernels
        self.calls = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.kernels, name)

    def prepare_western(self, *args: object) -> Optional[List[str]]:
        self.calls += 1
        return self.kernels.prepare_western(*args)  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize(
    ("lang", "tokenizer", "line", "used"),
    [
        ("en", None, "Mr. Smith's car isn't U.S.-made, is it?", True),
        ("English", None, "He said ``no'' -- twice...", True),
        ("fr", None, "L'homme qu'il a vu.", True),
        ("cs", None, "It's 1,000.5 km.", True),
        ("de", "meteor", "Das ist's, Nr. 5.", True),
        ("en", None, "caf\u00e9 \u201cquoted\u201d \u0130.", True),
        ("en", None, "\u03a3\u039f\u03a3 signal", True),  # declined when lower-casing (the capital sigma): pure Python
        ("zh", None, "It's a test.", False),  # not western
        ("other", None, "It's a test.", False),
        ("en", "cjk", "It's a test.", False),  # another tokeniser
    ],
)
@pytest.mark.parametrize("keep_case", [False, True])
def test_prepare_uses_the_twin_in_its_range(
    monkeypatch: pytest.MonkeyPatch, lang: str, tokenizer: Optional[str], line: str, used: bool, keep_case: bool
) -> None:
    """prepare() calls the twin exactly for western languages with Meteor's tokeniser; the same tokens."""
    nonbreaking = {"Mr": False, "Nr": True}
    kwargs = dict(norm=True, lower=True, nonbreaking=nonbreaking, tokenizer=tokenizer, keep_case=keep_case)
    monkeypatch.setattr(accel, "compiled", None)
    try:
        expected = prepare(line, lang, **kwargs)  # type: ignore[arg-type]
    except Exception as exc:  # a tokeniser whose package is not installed
        pytest.skip(f"the pure path cannot run here: {exc}")
    counting = CountingKernels(_accel)
    monkeypatch.setattr(accel, "compiled", counting)
    assert prepare(line, lang, **kwargs) == expected  # type: ignore[arg-type]
    assert counting.calls == (1 if used else 0)


def test_prepare_without_norm_never_uses_the_twin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without -norm (trim, lower-case, split) the twin is not called."""
    counting = CountingKernels(_accel)
    monkeypatch.setattr(accel, "compiled", counting)
    assert prepare("  It's A test. ", "en", norm=False, lower=True) == ["it's", "a", "test."]
    assert counting.calls == 0
