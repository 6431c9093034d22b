"""Differential test of :mod:`meteor_lite.text.normalize` against the official Meteor 1.5 jar.

Every distinct hypothesis and reference line of the shared data is run through

1. the jar's normaliser (``edu.cmu.meteor.util.Normalizer LANG true|false``, one
   JVM per language and mode) and :func:`meteor_lite.text.normalize.normalize`;
2. the jar's scorer (``-m exact -writeAlignments``, the lines scored against
   themselves) with ``-lower``, ``-norm`` and ``-norm -noPunct``: the alignment
   file shows the words Meteor aligns, which are compared with
   :func:`meteor_lite.text.normalize.prepare` (this covers Java's lowercasing, the
   order of the pipeline and the tokeniser).

Lines are compared per language (English, German, French, Czech, Russian).
The Chinese/Japanese lines (``other``) only get the ``-lower`` check by
default, as Meteor has no ``-norm`` for them: its non-western rules are a
private routine of the jar.  ``--synthetic N`` (default 20000) adds N
constructed lines of tricky characters (Unicode spaces, control and format
characters, the edges of Meteor's letter ranges, Greek sigma contexts, ...)
checked with the English and French rules.  A differing line is printed with
both outputs.  The exit status is 1 if any line differs.

``--other-oracle-cp DIR --other-oracle-class NAME`` plugs in an out-of-tree
helper class (not part of this repository) that reads lines on stdin and prints
the jar's non-western normalisation, with the same protocol as the jar's
``Normalizer`` (argument ``true``/``false``); the ``other`` lines are then
compared too.

``--write-fixtures`` (re)writes ``tests/fixtures/normalizer.jsonl``: constructed
edge cases plus real lines chosen to exercise every rule, with the jar's output
as the expected value.  Entries for ``other`` are regenerated only with the
helper above and otherwise carried over from the existing file.

Usage::

    meteor-build check normalizer [--data ../shared/data] [--cap N]
    meteor-build check normalizer --write-fixtures
"""

from __future__ import annotations

import gzip
import json
import re
import tempfile
import time
import unicodedata
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from meteor_lite.text.normalize import normalize, prepare, tokenize

from ... import jar as jarmod
from ...jar import JarRunError
from ...official.release import read_nonbreaking_prefixes
from ..paths import DEFAULT_DATA_DIR, FIXTURE_DIR
from .oracle import JarLock

DEFAULT_DATA = DEFAULT_DATA_DIR
FIXTURES = FIXTURE_DIR / "normalizer.jsonl"
LANGS = ("en", "de", "fr", "cz", "ru")
#: Languages Meteor's scorer accepts with -norm (all of LANGS).
SCORER_LANGS = LANGS

# (relative path, columns or None for a plain text file)
Source = Tuple[str, Optional[Tuple[str, ...]]]
HYP_REFS = ("hyp", "ref_A", "ref_B")
SOURCES: Dict[str, List[Source]] = {
    "en": [
        ("meteor-example/system1.hyp", None),
        ("meteor-example/system2.hyp", None),
        ("meteor-example/reference", None),
        *[(f"wmt21/newstest2021.{s}-en.da.tsv.gz", HYP_REFS) for s in ("cs", "de", "ja", "ru", "zh")],
        ("mqm/ted2021.zh-en.dev.mqm.tsv.gz", ("hyp", "ref")),
    ],
    "de": [
        ("wmt21/newstest2021.en-de.systems.tsv.gz", HYP_REFS),
        ("wmt21/newstest2021.fr-de.systems.tsv.gz", HYP_REFS),
        ("mqm/generalMT2023.en-de.mqm.tsv.gz", ("hyp", "ref")),
        ("multi30k/train.de.gz", None),
    ],
    "fr": [
        ("wmt21/newstest2021.de-fr.systems.tsv.gz", HYP_REFS),
        ("multi30k/train.fr.gz", None),
    ],
    "cz": [
        ("wmt21/newstest2021.en-cs.systems.tsv.gz", HYP_REFS),
        ("multi30k/train.cs.gz", None),
    ],
    "ru": [("wmt21/newstest2021.en-ru.systems.tsv.gz", HYP_REFS)],
    "other": [
        ("wmt21/newstest2021.en-zh.systems.tsv.gz", HYP_REFS),
        ("wmt21/newstest2021.en-ja.systems.tsv.gz", HYP_REFS),
    ],
}


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def _read_text(path: Path) -> str:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        return fh.read()


def read_source(data: Path, source: Source) -> List[str]:
    """Lines of one data file (selected columns of a TSV, or every line of a text file)."""
    rel, cols = source
    rows = _read_text(data / rel).split("\n")
    if cols is None:
        return [r for r in rows if r]
    header = rows[0].split("\t")
    idx = [header.index(c) for c in cols]
    out: List[str] = []
    for row in rows[1:]:
        if not row:
            continue
        fields = row.split("\t")
        if len(fields) != len(header):
            raise ValueError(f"{rel}: a row has {len(fields)} fields, the header {len(header)}")
        out.extend(fields[i] for i in idx if fields[i])
    return out


def load_lines(data: Path, lang: str, cap: Optional[int]) -> List[str]:
    """Distinct lines for ``lang`` in first-seen order (at most ``cap`` per file).

    Lines holding a carriage return are left out: Java's line reader would cut them.
    """
    seen: Dict[str, None] = {}
    for source in SOURCES[lang]:
        taken = 0
        for line in read_source(data, source):
            if "\r" in line or line in seen:
                continue
            seen[line] = None
            taken += 1
            if cap is not None and taken >= cap:
                break
    return list(seen)


#: Pieces the synthetic lines are made of: every special character of the
#: rules, letters at the edges of Meteor's letter ranges, spaces Java treats
#: differently, and the contexts of Java's final-sigma rule.
SYNTHETIC_PIECES: Tuple[str, ...] = (
    "a", "Z", "é", "9", "0", " ", " ", "  ", ".", "..", "...", ",", "'", "''", "`", "\"", "-", "--",
    "\u2013", "\u2014", "\u2018", "\u2019", "\u201c", "\u201d", "\u2026", "%", "$", "(", ")", ":", "_",
    "\t", "\x0b", "\x0c", "\x01", "\xa0", "\u2000", "\u200a", "\u200b", "\u200d", "\u202f", "\u205f",
    "\u3000", "\u2028", "\xad", "\u0301", "\u0345", "\u02b0", "\xaa", "\u24d0", "\u2160", "\xb2",
    "\u3005", "\u30a2", "\u3042", "\u3099", "\u4e2d", "\u3002", "\uff0c", "\u060c", "\u066b",
    "\u0160", "\u017e", "\u0178", "\xd7", "\xf7", "\u017f", "\u0180", "\u0400", "\u04ff", "\u0527",
    "\u0528", "\ua640", "\ua66f", "\ua67e", "\ua698", "\u1d00", "\u1d7f", "\u1d80", "\u0130",
    "\u1e9e", "\u01c5", "\U0001f600", "\u03a3", "\u03a3", "\u03a3", "\u0391", "\u03c3", "\u03c2",
    "\u1fbc", "DOTMULTI", "U.S.", "e.g.", "Mr.", "No.", "it's", "l'", "1,000", "3.5", "A.", "x.",
)


def synthetic_lines(n: int, seed: int = 1) -> List[str]:
    """``n`` distinct pseudo-random lines built from :data:`SYNTHETIC_PIECES`, plus the edge cases."""
    import random

    rng = random.Random(seed)
    seen: Dict[str, None] = dict.fromkeys(x for x in EDGE_CASES if "\r" not in x and "\n" not in x)
    while len(seen) < n + len(EDGE_CASES):
        seen["".join(rng.choice(SYNTHETIC_PIECES) for _ in range(rng.randint(1, 12)))] = None
    return list(seen)


# ---------------------------------------------------------------------------
# The jar
# ---------------------------------------------------------------------------


def _java(main_class: Optional[str], args: Sequence[str], stdin: Optional[bytes] = None,
          cwd: Optional[str] = None, classpath: Sequence[str] = ()) -> str:
    """Run the jar's scorer (``main_class`` None) or one of its classes under the shared lock; its output."""
    with JarLock():
        if main_class is None:
            proc = jarmod.run_jar(args, stdin=stdin, cwd=cwd)
        else:
            proc = jarmod.run_jar_class(main_class, args, stdin=stdin, cwd=cwd, classpath=classpath)
    if proc.returncode != 0:
        raise JarRunError(f"{' '.join(proc.args)} failed:\n{proc.stderr[-3000:]}")
    return proc.stdout


def _line_protocol(main_class: str, args: Sequence[str], lines: Sequence[str], classpath: Sequence[str] = ()) -> List[str]:
    payload = ("\n".join(lines) + "\n").encode("utf-8") if lines else b""
    out = _java(main_class, args, payload, classpath=classpath).split("\n")
    if out and out[-1] == "":
        out.pop()
    if len(out) != len(lines):
        raise JarRunError(f"{[main_class, *args][-3:]}: {len(lines)} lines in, {len(out)} out")
    return out


def jar_normalize(lines: Sequence[str], lang: str, keep_punct: bool) -> List[str]:
    """The jar's ``Normalizer`` on ``lines`` (one JVM)."""
    return _line_protocol("edu.cmu.meteor.util.Normalizer", [lang, str(keep_punct).lower()], lines)


def helper_normalize(lines: Sequence[str], cp: str, cls: str, keep_punct: bool) -> List[str]:
    """An out-of-tree helper class exposing the jar's non-western normaliser."""
    return _line_protocol(cls, [str(keep_punct).lower()], lines, classpath=[cp])


def jar_words(lines: Sequence[str], lang: str, options: Sequence[str]) -> List[str]:
    """Words the jar's scorer aligns for each line (joined by one space).

    The lines are scored against themselves with the exact module only and
    ``-writeAlignments``; each alignment record repeats the test words.
    """
    with tempfile.TemporaryDirectory(prefix="normparity-") as tmp:
        f = Path(tmp) / "lines.txt"
        f.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
        _java(None, [str(f), str(f), "-l", lang, *options, "-m", "exact", "-writeAlignments", "-f", "out"], cwd=tmp)
        text = (Path(tmp) / "out-align.out").read_bytes().decode("utf-8")
    rows = text.split("\n")
    words: List[str] = []
    i = 0
    while i < len(rows):
        if rows[i].startswith("Alignment\t"):
            words.append(rows[i + 1])
            i += 3  # header, test words, reference words
            while i < len(rows) and rows[i] != "":
                i += 1
        i += 1
    if len(words) != len(lines):
        raise JarRunError(f"alignment file: {len(words)} records for {len(lines)} lines")
    return words


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------


def show(s: str) -> str:
    """``repr`` of a string, short enough to print."""
    r = repr(s)
    return r if len(r) <= 400 else r[:400] + "...'"


def compare(name: str, lines: Sequence[str], want: Sequence[str], got: Sequence[str], limit: int) -> int:
    """Print the differing lines; return how many differ."""
    bad = [(x, w, g) for x, w, g in zip(lines, want, got) if w != g]
    print(f"  {name:<28} lines {len(lines):>7}  mismatches {len(bad)}")
    for x, w, g in bad[:limit]:
        print(f"    input  {show(x)}\n    jar    {show(w)}\n    python {show(g)}")
    return len(bad)


Check = Tuple[str, Callable[[], List[str]], Callable[[], List[str]]]


def _ours_normalize(lines: Sequence[str], lang: str, keep_punct: bool,
                    nonbreaking: Optional[Dict[str, bool]]) -> List[str]:
    if nonbreaking is None:
        return [normalize(x, lang, keep_punct=keep_punct) for x in lines]
    return [normalize(x, lang, keep_punct=keep_punct, nonbreaking=nonbreaking) for x in lines]


def _ours_prepare(lines: Sequence[str], lang: str, norm: bool, keep_punct: bool, nonbreaking: Dict[str, bool]) -> List[str]:
    return [" ".join(prepare(x, lang, norm=norm, lower=True, keep_punct=keep_punct, nonbreaking=nonbreaking))
            for x in lines]


def _checks_for(lang: str, lines: List[str], args: "NormalizerOptions") -> List[Check]:
    """The comparisons of one group of lines: (name, the jar's outputs, ours)."""
    nbp: Dict[str, bool] = read_nonbreaking_prefixes(lang) if lang != "other" else {}
    checks: List[Check] = []
    if lang != "other":
        for kp in (True, False):
            checks.append((f"Normalizer keep_punct={kp}", partial(jar_normalize, lines, lang, kp),
                           partial(_ours_normalize, lines, lang, kp, nbp)))
    elif args.other_oracle_cp:
        for kp in (True, False):
            checks.append((f"non-western keep_punct={kp}",
                           partial(helper_normalize, lines, args.other_oracle_cp, args.other_oracle_class, kp),
                           partial(_ours_normalize, lines, "other", kp, None)))
    if not args.no_scorer:
        scorer_lang = lang if lang in SCORER_LANGS else "en"
        modes: List[List[str]] = [["-lower"]]
        if lang != "other":
            modes += [["-norm"], ["-norm", "-noPunct"]]
        for opts in modes:
            checks.append(("scorer " + " ".join(opts), partial(jar_words, lines, scorer_lang, opts),
                           partial(_ours_prepare, lines, lang, "-norm" in opts, "-noPunct" not in opts, nbp)))
    return checks


def run_parity(args: "NormalizerOptions") -> int:
    """Compare the jar and meteor-lite on every language; return the number of mismatches."""
    total_bad = 0
    total_lines = 0
    summary: List[Tuple[str, str, int, int]] = []
    groups: List[Tuple[str, str, List[str]]] = [(lang, lang, load_lines(args.data, lang, args.cap)) for lang in args.langs]
    if args.synthetic:
        syn = synthetic_lines(args.synthetic)
        groups += [("synthetic/en", "en", syn), ("synthetic/fr", "fr", syn), ("synthetic/other", "other", syn)]
    for label, lang, lines in groups:
        total_lines += len(lines)
        print(f"[{label}] {len(lines)} distinct lines")
        for name, jar_fn, py_fn in _checks_for(lang, lines, args):
            t0 = time.time()
            want = jar_fn()
            t1 = time.time()
            got = py_fn()
            t2 = time.time()
            n_bad = compare(name, lines, want, got, args.show)
            print(f"  {'':<28} (jar {t1 - t0:.1f}s, python {t2 - t1:.1f}s)")
            summary.append((label, name, len(lines), n_bad))
            total_bad += n_bad
    print("\nSummary (language, check, lines, mismatches):")
    for lang, name, n, bad in summary:
        print(f"  {lang:<16} {name:<28} {n:>7} {bad:>6}")
    print(f"lines compared: {total_lines}; total mismatches: {total_bad}")
    return total_bad


# ---------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------

#: Constructed edge cases (every language, both modes).
EDGE_CASES: Tuple[str, ...] = (
    "", " ", "   ", "\t", "\x0b", "a\x0bb", "a \x0b b", "\x0bx.\x0b", "x.\x0b", "x.\x01", "a\tb\fc",
    "\xa0", "a\xa0b", " \xa0a\xa0 ", "a\u2000b\u3000c\u202fd", "a\u200bb", "a\u2028b", "\x00a\x1f",
    "Hello...", "Wait.. what", "a....b", "....", ".", "..", "a.", "a. .", "x.. y", "1...2",
    "U.S.-based", "U.S. Army", "the U.S.", "e.g. this", "i.e. that", "Mr. Smith", "mr. smith",
    "No. 5", "No. five", "No. Five", "no. 5", "pp. 12", "Art. 3", "Dr.Smith", "St. Louis", "A. Smith",
    "z.B. so", "S.A. de C.V.", "c.-à-d. ceci", "ca. 5", "Nr. 5", "Z.", "z.", "1.", "1.5.", "3.14",
    "1,000.50", "1,2,3", "a,b,c", "a, b", ",", ",,", "1, 2", "1 ,2", "x.y.", "x.y. Z", "ABC.",
    "DOTMULTI", "DOTMULTIx", "DOTMULTI.", "DOTDOTMULTI", "x DOTMULTI.. y", "a DOTDOTMULTI.", "dotmulti",
    "it's", "It's 1990's", "'90s", "rock 'n' roll", "dogs' toys", "don't", "l'homme", "aujourd'hui",
    "qu'il", "jusqu'à", "''quoted''", "“q”", "‘s’", "`x`", "a--b", "a---b", "a–b", "a—b", "a-b",
    "-a", "a-", "1-2", "a.-b", "x -- y", "a'b'c", "' '", "'", "a' b", "a 'b", "5's", "5'x", "A'1",
    "1'A", "é'é", "ж'ж", "Москва, привет.", "Ёлка-палка", "Ǆ ǅ", "ŠŽšžŸ", "œ Œ ƒ", "x×y÷z",
    "Ā ſ ƀ", "ԧ Ԩ", "ꙮ ꙯ ꙾ ꚗ Ꚙ", "ᴀ ᵿ ᶀ", "你好，世界。", "日本語です。", "😀 a😀b", "a\u0301b",
    "ΑΣ. ΟΔΥΣΣΕΑΣ", "ß ẞ", "İstanbul", "٣,٤", "١.٢", "&quot; &amp;", "<b>", "a/b", "50%", "$5",
    "#1", "@x", "a_b", "a~b", "a|b", "¿Qué?", "¡Hola!", "«guillemets»", "„Zitat“", "‚x‘", "‹x›",
    "…", "a…b", "·", "approx. 5", "Jan. 1", "etc. and", "etc.", "etc. The", "Fil. X", "A.C. Milan",
    "é.ü. X", "Ж.Д. Дорога", "т.е. так", "ԧ.ԧ. X", "a.5", "v.2 and v. 3", "5.a", ".5", "$.50", "a\t.\tb",
)


def _edge_cases_for(lang: str) -> List[str]:
    """All edge cases for English and ``other``; for the other languages the ones
    about apostrophes and dots (which differ by language) and every fourth of the rest."""
    if lang in ("en", "other"):
        return list(EDGE_CASES)
    specific = [x for x in EDGE_CASES if "'" in x or "." in x]
    rest = [x for x in EDGE_CASES if x not in specific]
    return specific + rest[::4]


def _feature_tests(lang: str) -> List[Tuple[str, Callable[[str], bool]]]:
    """Predicates on raw lines; real lines matching each are put in the fixtures."""
    nbp = read_nonbreaking_prefixes(lang) if lang != "other" else {}
    prefixes = [p + "." for p in nbp]

    def has_token(pred: Callable[[str], bool]) -> Callable[[str], bool]:
        return lambda line: any(pred(t) for t in tokenize(line))

    return [
        ("multi-dot", lambda s: ".." in s),
        ("ellipsis", lambda s: "…" in s),
        ("comma between digits", lambda s: re.search("[0-9],[0-9]", s) is not None),
        ("comma", lambda s: "," in s),
        ("backtick/curly single quote", lambda s: any(c in s for c in "`‘’")),
        ("curly double quote", lambda s: "“" in s or "”" in s),
        ("two apostrophes", lambda s: "''" in s),
        ("straight double quote", lambda s: '"' in s),
        ("en dash", lambda s: "–" in s),
        ("double hyphen", lambda s: "--" in s),
        ("hyphenated", lambda s: any(a.isalnum() and b.isalnum() for a, b in zip(s, s[2:])) and "-" in s),
        ("apostrophe", lambda s: "'" in s),
        ("digit apostrophe s", lambda s: any(s[i].isdigit() and s[i + 1:i + 3] == "'s" for i in range(len(s) - 2))),
        ("abbreviation x.y.", has_token(lambda t: t.endswith(".") and "." in t[:-1] and any(c.isalpha() for c in t))),
        ("dot then lowercase", lambda s: any(t.endswith(".") and n[:1].islower() for t, n in zip(tokenize(s), tokenize(s)[1:]))),
        ("dot then digit", lambda s: any(t.endswith(".") and n[:1].isdigit() for t, n in zip(tokenize(s), tokenize(s)[1:]))),
        ("non-breaking prefix", lambda s: any(t in prefixes for t in tokenize(s))),
        ("final dot", lambda s: s.endswith(".")),
        ("percent/currency", lambda s: any(c in s for c in "%$€£")),
        ("parentheses/brackets", lambda s: any(c in s for c in "()[]{}")),
        ("slash/colon/semicolon", lambda s: any(c in s for c in "/:;")),
        ("question/exclamation", lambda s: "?" in s or "!" in s),
        ("guillemets", lambda s: "«" in s or "»" in s),
        ("low quotes", lambda s: "„" in s or "‚" in s),
        ("em dash", lambda s: "—" in s),
        ("non-breaking space", lambda s: "\xa0" in s or "\u202f" in s),
        ("other unicode space", lambda s: any(unicodedata.category(c) == "Zs" and c not in " \xa0\u202f" for c in s)),
        ("format char", lambda s: any(unicodedata.category(c) == "Cf" for c in s)),
        ("tab or control", lambda s: any(ord(c) < 32 for c in s)),
        ("Latin outside ALPHA", lambda s: any(unicodedata.category(c).startswith("L") and ord(c) > 0x17F
                                               and not (0x400 <= ord(c) <= 0x527) for c in s)),
        ("Cyrillic", lambda s: any(0x400 <= ord(c) <= 0x4FF for c in s)),
        ("CJK", lambda s: any(0x3000 <= ord(c) <= 0x9FFF or 0xFF00 <= ord(c) <= 0xFFEF for c in s)),
        ("Greek", lambda s: any(0x370 <= ord(c) <= 0x3FF for c in s)),
        ("emoji/astral", lambda s: any(ord(c) > 0xFFFF for c in s)),
        ("symbol", lambda s: any(unicodedata.category(c) in ("Sm", "So", "Sk") for c in s)),
        ("plain short", lambda s: len(s) < 40),
    ]


def _escape_json(obj: Dict[str, object]) -> str:
    """One JSON line; invisible or line-breaking characters are written as \\u escapes."""
    text = json.dumps(obj, ensure_ascii=False)
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn") or (cat == "Zs" and ch != " "):
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else json.dumps(ch)[1:-1])
        else:
            out.append(ch)
    return "".join(out)


def select_real_lines(lines: Sequence[str], lang: str, per_feature: int) -> List[str]:
    """A few short real lines for each feature of :func:`_feature_tests`."""
    chosen: Dict[str, None] = {}
    by_len = sorted((x for x in lines if len(x) <= 160), key=lambda x: (len(x), x))
    for _name, pred in _feature_tests(lang):
        hits = 0
        for x in by_len:
            if x in chosen:
                continue
            try:
                ok = pred(x)
            except ValueError:
                ok = False
            if ok:
                chosen[x] = None
                hits += 1
                if hits >= per_feature:
                    break
    return list(chosen)


def write_fixtures(args: "NormalizerOptions") -> None:
    """Write tests/fixtures/normalizer.jsonl with the jar's outputs as expected values."""
    records: List[Dict[str, object]] = []
    for lang in LANGS:
        real = select_real_lines(load_lines(args.data, lang, args.cap), lang, args.per_feature)
        inputs = list(dict.fromkeys(_edge_cases_for(lang) + real))
        for kp in (True, False):
            chosen = inputs if kp else inputs[::3]
            for x, y in zip(chosen, jar_normalize(chosen, lang, kp)):
                records.append({"lang": lang, "keep_punct": kp, "input": x, "expected": y})
        print(f"[{lang}] {len(inputs)} inputs")
    other: List[Dict[str, object]] = []
    if args.other_oracle_cp:
        real = select_real_lines(load_lines(args.data, "other", args.cap), "other", args.per_feature)
        inputs = list(dict.fromkeys(_edge_cases_for("other") + real))
        for kp in (True, False):
            chosen = inputs if kp else inputs[::2]
            for x, y in zip(chosen, helper_normalize(chosen, args.other_oracle_cp, args.other_oracle_class, kp)):
                other.append({"lang": "other", "keep_punct": kp, "input": x, "expected": y})
    elif FIXTURES.exists():
        for row in FIXTURES.read_text(encoding="utf-8").split("\n"):
            if row.strip():
                rec = json.loads(row)
                if rec["lang"] == "other":
                    other.append(rec)
    records.extend(other)
    FIXTURES.parent.mkdir(parents=True, exist_ok=True)
    FIXTURES.write_text("".join(_escape_json(r) + "\n" for r in records), encoding="utf-8")
    print(f"wrote {len(records)} fixtures ({len(other)} for 'other') to {FIXTURES}")


@dataclass
class NormalizerOptions:
    """The options of ``meteor-build check normalizer`` (see the module docstring)."""

    data: Path = DEFAULT_DATA
    langs: List[str] = field(default_factory=lambda: [*LANGS, "other"])
    cap: Optional[int] = None
    show: int = 10
    no_scorer: bool = False
    synthetic: int = 20000
    other_oracle_cp: Optional[str] = None
    other_oracle_class: str = "NonWestern"
    per_feature: int = 1


def run_normalizer_check(options: NormalizerOptions, write: bool = False) -> int:
    """Compare (exit status 1 on any mismatch), or with ``write`` rewrite the fixtures (0)."""
    if write:
        write_fixtures(options)
        return 0
    return 1 if run_parity(options) else 0
