"""The word lists of the stem check: a million or more distinct words per language, made the same way every time.

For each of the 15 languages Meteor 1.5 stems (:data:`STEM_LANGUAGES`), :func:`stem_check_words` gives,
in a fixed order and without repeats:

1. every word of wordfreq's largest list for the language (pinned wordfreq: the same list everywhere);
2. every white-space token of the named files of the shared data (:data:`SHARED_TEXT_FILES` and
   :data:`SHARED_TABLES`: ``meteor-example``, ``wmt21``, ``mqm``, ``multi30k``, all languages, as written and
   lower-cased: real text, other scripts included; a file added to ``../shared/data`` changes nothing);
3. generated forms, from a random generator seeded with the language's name: frequent words with one
   or two of the algorithm's own suffixes appended (every suffix of every ``among`` of the algorithm, so
   that every rule fires), two-word compounds, capitalised and upper-case forms, and odd Unicode (combining
   marks, characters beyond U+FFFF, no-break and zero-width spaces, soft hyphens, digits, other scripts);

at least :data:`GENERATED_WORDS` of them, and more until the list holds :data:`WORDS_PER_LANGUAGE` words.  No word contains a character that splits tokens or lines for
the jar's ``Stemmer`` program (space, tab, CR, LF, FF), begins or ends with a character up to U+0020
(Java's ``trim`` would drop it), or is a surrogate.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import itertools
import random
import re
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Sequence, Set, Tuple

__all__ = ["STEM_LANGUAGES", "WORDS_PER_LANGUAGE", "GENERATED_WORDS", "stem_check_words", "shared_tokens", "SHARED_TEXT_FILES", "SHARED_TABLES", "words_digest", "algorithm_suffixes", "usable"]

#: Meteor 1.5's stemmed languages: code -> (Snowball algorithm, wordfreq code).
STEM_LANGUAGES: Dict[str, Tuple[str, str]] = {
    "da": ("danish", "da"), "de": ("german", "de"), "en": ("english", "en"), "es": ("spanish", "es"),
    "fi": ("finnish", "fi"), "fr": ("french", "fr"), "hu": ("hungarian", "hu"), "it": ("italian", "it"),
    "nl": ("dutch", "nl"), "no": ("norwegian", "nb"), "pt": ("portuguese", "pt"), "ro": ("romanian", "ro"),
    "ru": ("russian", "ru"), "se": ("swedish", "sv"), "tr": ("turkish", "tr"),
}
#: Distinct words compared per language (at least).
WORDS_PER_LANGUAGE = 1_000_000
#: Generated forms among them (at least).
GENERATED_WORDS = 300_000

_BAD = re.compile(r"[ \t\n\r\f\ud800-\udfff]")
_ODD_INSERTS = (
    "\u0301", "\u0308", "\u0327", "\u00a0", "\u200b", "\u200d", "\u00ad", "\ufeff", "\U0001f600", "\U0001d518",
    "\U00020000", "\u0130", "\u0131", "\u00df", "\u1e9e", "\u0451", "\u0401", "\u00eb", "\u00ef", "\u0151", "\u0171",
    "\u00f5", "\u00fb", "\u0219", "\u021b", "\u015f", "\u0163", "\u011f", "\u0301\u0301", "0", "7", "-", "'",
    "\u2019", ".", "\u0661", "\u05d0", "\u4e00", "\x01", "\x7f", "\u0085", "\u2028", "\ufffd",
)


def usable(word: str) -> bool:
    """True when ``word`` goes through the jar's ``Stemmer`` program as one token, unchanged by ``trim``."""
    return bool(word) and _BAD.search(word) is None and word[0] > " " and word[-1] > " "


def algorithm_suffixes(algorithm: str) -> List[str]:
    """The strings of every ``among`` of Meteor 1.5's ``algorithm`` (non-empty, sorted)."""
    from meteor_lite.stemmers.meteor15 import stemmer_class

    cls = stemmer_class(algorithm)
    found: Set[str] = set()
    for name in dir(cls):
        table = getattr(cls, name)
        if name.startswith("a_") and isinstance(table, list):
            found.update(a.s for a in table if getattr(a, "s", ""))
    return sorted(found)


def _wordfreq_words(code: str) -> List[str]:
    import wordfreq

    size = "large" if code in wordfreq.available_languages("large") else "best"
    return list(wordfreq.iter_wordlist(code, size))


#: The shared data's text files whose tokens join every list (plain or gzipped, one segment a line), by name:
#: a new file in ``../shared/data`` changes no list (the fixtures record the lists' SHA-256).
SHARED_TEXT_FILES: Tuple[str, ...] = (
    "meteor-example/reference", "meteor-example/system1.hyp", "meteor-example/system2.hyp",
    "multi30k/test_2016_flickr.cs.gz", "multi30k/test_2016_flickr.de.gz", "multi30k/test_2016_flickr.en.gz",
    "multi30k/test_2016_flickr.fr.gz", "multi30k/train.cs.gz", "multi30k/train.de.gz", "multi30k/train.en.gz",
    "multi30k/train.fr.gz", "multi30k/val.cs.gz", "multi30k/val.de.gz", "multi30k/val.en.gz", "multi30k/val.fr.gz",
)
#: The shared data's tables (gzipped TSV with a header) whose text columns (:data:`TEXT_COLUMNS`) join every list.
SHARED_TABLES: Tuple[str, ...] = tuple(
    [f"wmt21/newstest2021.{lp}.da.tsv.gz" for lp in ("cs-en", "de-en")]
    + [f"wmt21/newstest2021.{lp}.systems.tsv.gz" for lp in ("de-fr", "en-cs", "en-de", "en-ja", "en-ru", "en-zh", "fr-de")]
    + [f"wmt21/newstest2021.{lp}.da.tsv.gz" for lp in ("ja-en", "ru-en", "zh-en")]
    + [f"mqm/biomed2021.{lp}.dev.mqm.tsv.gz" for lp in
       ("de-en", "en-de", "en-es", "en-fr", "en-ru", "en-zh", "es-en", "fr-en", "pt-en", "ru-en", "zh-en")]
    + ["mqm/generalMT2023.en-de.mqm.tsv.gz", "mqm/ted2021.zh-en.dev.mqm.tsv.gz"]
)
#: The columns of :data:`SHARED_TABLES` that hold text.
TEXT_COLUMNS = ("hyp", "ref", "ref_A", "ref_B")


def _read_text(path: Path) -> str:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: a file of the stem check's word lists is missing (the lists name their files)")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        return f.read()


def _table_text(text: str) -> str:
    """The text columns of a TSV table's rows, one cell a line, in row order."""
    lines = text.split("\n")
    header = lines[0].split("\t")
    text_cols = [i for i, name in enumerate(header) if name in TEXT_COLUMNS]
    cells: List[str] = []
    for line in lines[1:]:
        cols = line.split("\t")
        cells.extend(cols[i] for i in text_cols if i < len(cols))
    return "\n".join(cells)


@functools.lru_cache(maxsize=2)
def shared_tokens(data: Path) -> Tuple[str, ...]:
    """The distinct usable white-space tokens of the named shared files, each as written and lower-cased, in the
    order they first occur (:data:`SHARED_TEXT_FILES`, then :data:`SHARED_TABLES`).  The same for every language:
    made once per process."""
    # Each token is followed by its lower-cased form; a repeated token repeats both, so the first occurrences
    # are those of the distinct tokens (in order), each followed by its lower-cased form.
    distinct: Dict[str, None] = {}
    texts = [(name, False) for name in SHARED_TEXT_FILES] + [(name, True) for name in SHARED_TABLES]
    for name, is_table in texts:
        text = _read_text(data / name)
        distinct.update(dict.fromkeys((_table_text(text) if is_table else text).split()))
    forms = dict.fromkeys(itertools.chain.from_iterable((t, t.lower()) for t in distinct))
    return tuple(w for w in forms if usable(w))


def _generated(algorithm: str, base: Sequence[str], rng: random.Random) -> Iterator[str]:
    """Endless generated forms of the frequent words ``base`` (see the module's docstring).

    Each draw is written as ``random.Random.choice`` makes it (``seq[rng._randbelow(len(seq))]``;
    ``randrange(n)`` is ``_randbelow(n)``), without the method calls: the same words, a third faster.
    The fixtures' SHA-256 of the word lists checks that the words are the recorded ones.
    """
    suffixes = algorithm_suffixes(algorithm)
    below, uniform = rng._randbelow, rng.random  # type: ignore[attr-defined]
    n_base, n_suf, n_odd = len(base), len(suffixes), len(_ODD_INSERTS)
    while True:
        w = base[below(n_base)]
        kind = below(10)
        if kind <= 2:
            w += suffixes[below(n_suf)]
        elif kind == 3:
            w += suffixes[below(n_suf)] + suffixes[below(n_suf)]
        elif kind <= 5:
            w += base[below(n_base)] + (suffixes[below(n_suf)] if uniform() < 0.5 else "")
        elif kind == 6:
            w = (w + suffixes[below(n_suf)]).capitalize() if uniform() < 0.5 else (w + suffixes[below(n_suf)]).upper()
        elif kind == 7:
            at = below(len(w) + 1)
            w = w[:at] + _ODD_INSERTS[below(n_odd)] + w[at:] + suffixes[below(n_suf)]
        elif kind == 8:
            w = suffixes[below(n_suf)] + suffixes[below(n_suf)] + suffixes[below(n_suf)]
        else:
            w = "".join(_ODD_INSERTS[below(n_odd)] if uniform() < 0.2 else c for c in w) + suffixes[below(n_suf)]
        yield w


def stem_check_words(lang: str, data: Path, size: int = WORDS_PER_LANGUAGE, generated: int = GENERATED_WORDS) -> List[str]:
    """The check's words for Meteor language code ``lang`` (see the module's docstring)."""
    algorithm, code = STEM_LANGUAGES[lang]
    seen: Set[str] = set()
    words: List[str] = []

    def take(candidates: Iterable[str], limit: int) -> None:
        add, append, n = seen.add, words.append, len(words)
        for w in candidates:
            if n >= limit:
                return
            if w not in seen and usable(w):
                add(w)
                append(w)
                n += 1

    freq = _wordfreq_words(code)
    take(freq, len(freq))
    take(shared_tokens(data), 1 << 62)
    base = [w for w in freq[:20000] if usable(w)]
    take(_generated(algorithm, base, random.Random(f"meteor-lite stem check {algorithm}")), max(size, len(words) + generated))
    return words


def words_digest(words: Sequence[str]) -> str:
    """SHA-256 of the words, one per line (UTF-8): names the word list a fixture was recorded on."""
    h = hashlib.sha256()
    for w in words:
        h.update(w.encode("utf-8") + b"\n")
    return h.hexdigest()
