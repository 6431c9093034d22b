"""The resource file formats of Meteor 1.5 (the jar's own files), parsed strictly.

This is the one parser of these formats: ``meteor-jar -s/-d/-a`` reads them directly and the
builders (``meteor-build import-official``) build bundles from them.  Errors name the file and line.

``function/<language>.words``
    one function word per line; the whole line is the word, empty lines are skipped.
``synonym/english.synsets``
    alternating lines: a word, then its space-separated synset ids (integers).
``synonym/english.exceptions``
    alternating lines: a base form, then its space-separated inflected forms;
    stored as ``(form, base)`` pairs.
``paraphrase-en.gz``
    groups of three lines: probability, phrase, paraphrase.  Tokens are separated
    by whitespace and stored joined by single spaces; the file order is kept
    (it breaks ties in the alignment search exactly as Meteor does).

Malformed input raises :class:`JarFormatError` naming the file and line.
"""

from __future__ import annotations

import io
import math
import re
import sqlite3
import warnings
import zlib
from itertools import groupby, islice, zip_longest
from operator import itemgetter, le
from pathlib import Path
from typing import BinaryIO, Dict, Iterable, Iterator, List, Optional, TextIO, Tuple

from ..cappedlines import capped_lines, gunzip_capped
from ..errors import InputError, MeteorLiteWarning
from .schema import FORMAT_NAME, SCHEMA_SQL, SCHEMA_VERSION

__all__ = [
    "JarFormatError",
    "PARAPHRASE_BATCH",
    "parse_function_words",
    "parse_synsets",
    "parse_exceptions",
    "iter_paraphrase_batches",
    "iter_paraphrases",
    "write_jar_bundle",
    "JAR_MAX_PHRASE_WORDS",
    "MAX_PHRASE_WORDS",
    "MAX_PHRASE_CHARS",
    "MAX_LINE_CHARS",
    "MAX_TABLE_INFLATION",
    "TABLE_INFLATION_FLOOR",
    "bounded_lines",
    "open_table_gzip",
]

#: The most words of a phrase ``meteor-jar -a`` reads: Meteor 1.5 builds its paraphrase transducer by a
#: recursion one level per word, and dies of a ``StackOverflowError`` (Java's default stack) on a phrase of about
#: 5,000 words (4,000 load; 5,000 distinct words, 5,500 repeated ones do not).  A longer phrase is refused.
JAR_MAX_PHRASE_WORDS = 4_000

#: The most words and characters of a phrase a bundle is built with (``bundle install LANG --paraphrase``,
#: ``meteor-build``).  A phrase of n words has n - 1 proper prefixes, each a row of the bundle: the caps keep them
#: within 8,000 characters a phrase (Meteor's own tables have phrases of at most 7 words).
MAX_PHRASE_WORDS = 20
MAX_PHRASE_CHARS = 400

class JarFormatError(InputError):
    """A resource file in Meteor's formats is malformed.

    :attr:`source` names the file (``jar!member`` for files inside the jar), :attr:`line` is the
    1-based line where the problem was found, :attr:`problem` says what.
    """

    def __init__(self, source: str, line: int, problem: str):
        self.source = source
        self.line = line
        self.problem = problem
        super().__init__(f"{source}, line {line}: {problem}")


MalformedInputError = JarFormatError  # the name the parsers below use

#: Pairs per batch while parsing a paraphrase table (one ``executemany``-sized insert).
PARAPHRASE_BATCH = 100_000


def _split_lines(text: str) -> List[str]:
    """Split on line terminators only (\\n, \\r\\n, \\r), as a Java line reader does.

    A final terminator does not start an extra (empty) line.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _parse_int_tokens(line: str, source: str, lineno: int, what: str) -> List[int]:
    out: List[int] = []
    for tok in line.split():
        if not (tok.isascii() and tok.isdigit()):
            raise MalformedInputError(source, lineno, f"{what} {tok!r} is not a non-negative integer")
        out.append(int(tok))
    return out


def parse_function_words(text: str, source: str = "<function words>") -> List[str]:
    """Function words of a ``function/*.words`` file: each non-empty line, kept as it is."""
    return [line for line in _split_lines(text) if line.strip()]


def _pairs_of_lines(text: str, source: str, first: str, second: str) -> Iterator[Tuple[int, str, str]]:
    """Yield ``(line number of the first line, first line, second line)`` of an alternating-line file.

    Problems are reported in file order; the first line of a pair must be one token.
    """
    lines = _split_lines(text)
    for i in range(0, len(lines) - 1, 2):
        key, values = lines[i], lines[i + 1]
        tokens = key.split()
        if not tokens:
            raise MalformedInputError(source, i + 1, f"empty {first} line")
        if len(tokens) > 1:
            raise MalformedInputError(source, i + 1, f"{first} line {key!r} holds more than one token")
        if not values.strip():
            raise MalformedInputError(source, i + 2, f"{first} {key!r} has an empty {second} line")
        yield i + 1, tokens[0], values
    if len(lines) % 2:
        raise MalformedInputError(
            source,
            len(lines),
            f"odd number of lines ({len(lines)}): {first} {lines[-1]!r} has no {second} line",
        )


def parse_synsets(text: str, source: str = "<synsets>") -> List[Tuple[str, int]]:
    """``(word, synset id)`` pairs of ``synonym/english.synsets`` (file order, duplicates kept)."""
    out: List[Tuple[str, int]] = []
    for lineno, word, ids in _pairs_of_lines(text, source, "word", "synset-id"):
        out.extend((word, s) for s in _parse_int_tokens(ids, source, lineno + 1, "synset id"))
    return out


def parse_exceptions(text: str, source: str = "<exceptions>") -> List[Tuple[str, str]]:
    """``(inflected form, base form)`` pairs of ``synonym/english.exceptions`` (file order)."""
    out: List[Tuple[str, str]] = []
    for _lineno, base, forms in _pairs_of_lines(text, source, "base form", "inflected-forms"):
        out.extend((form, base) for form in forms.split())
    return out


#: A probability line: a decimal number (ASCII digits, optional sign, fraction and exponent).
_NUMBER_LINE = re.compile(r"\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*", re.ASCII)


def _bad_probability(line: str, source: str, lineno: int) -> MalformedInputError:
    if _NUMBER_LINE.fullmatch(line):
        problem = f"probability {line.strip()!r} is out of range"
    else:
        problem = f"probability {line.strip()!r} is not a number"
    return MalformedInputError(source, lineno, problem)


def iter_paraphrase_batches(
    lines: Iterable[str],
    source: str = "<paraphrases>",
    *,
    limit: Optional[int] = None,
    batch_size: int = PARAPHRASE_BATCH,
) -> Iterator[List[Tuple[str, str, float]]]:
    """Parse a paraphrase table in batches of ``(phrase, paraphrase, probability)``, in file order.

    ``lines`` are the file's lines, with or without their line terminators (an
    open text file will do).  Phrases are normalised to their whitespace-separated
    tokens joined by single spaces.  At most ``limit`` pairs are read (the rest of
    the file is not checked).  Raises :class:`MalformedInputError` naming
    ``source`` and the line.
    """
    batch: List[Tuple[str, str, float]] = []
    append = batch.append
    n = 0
    prev_raw: Optional[str] = None
    phrase = ""
    it = iter(lines)
    isfinite = math.isfinite
    for prob_line, raw, para_raw in zip_longest(it, it, it):
        if limit is not None and n >= limit:
            break
        lineno = 3 * n + 1
        if para_raw is None:
            got = 1 if raw is None else 2
            raise MalformedInputError(
                source, lineno + got - 1, f"file ends inside an entry ({got} of 3 lines: probability, phrase, paraphrase)"
            )
        try:
            # float() also takes "1_0", "nan", "inf" and non-ASCII digits: the format does not.
            prob = float(prob_line)
            if not isfinite(prob) or "_" in prob_line or not prob_line.isascii():
                raise ValueError
        except ValueError:
            raise _bad_probability(prob_line, source, lineno) from None
        if raw != prev_raw:  # the table is grouped by phrase: normalise each phrase once
            phrase = " ".join(raw.split())
            prev_raw = raw
            if not phrase:
                raise MalformedInputError(source, lineno + 1, "empty phrase")
            if len(phrase) > MAX_PHRASE_CHARS or phrase.count(" ") >= MAX_PHRASE_WORDS:
                raise MalformedInputError(source, lineno + 1, _long_phrase(phrase))
        para = " ".join(para_raw.split())
        if not para:
            raise MalformedInputError(source, lineno + 2, "empty paraphrase")
        append((phrase, para, prob))
        n += 1
        if len(batch) >= batch_size:
            yield batch
            batch = []
            append = batch.append
    if batch:
        yield batch


def _long_phrase(phrase: str) -> str:
    """The problem of a phrase over :data:`MAX_PHRASE_WORDS` or :data:`MAX_PHRASE_CHARS`."""
    return (f"a phrase of {phrase.count(' ') + 1:,} words and {len(phrase):,} characters, more than a bundle takes "
            f"({MAX_PHRASE_WORDS:,} words, {MAX_PHRASE_CHARS:,} characters: each of its prefixes is a row)")


def iter_paraphrases(
    lines: Iterable[str], source: str = "<paraphrases>", *, limit: Optional[int] = None
) -> Iterator[Tuple[str, str, float]]:
    """Parse a paraphrase table into ``(phrase, paraphrase, probability)`` triples, in file order."""
    for batch in iter_paraphrase_batches(lines, source, limit=limit):
        yield from batch


# --------------------------------------------------------------------------- a bundle from the jar's files

#: Files of a synonym directory (``-d``), as in the jar's ``synonym/``: ``<language>.synsets`` and ``.exceptions``.
SYNONYM_FILES = ("synsets", "exceptions")


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None


#: The longest line of a paraphrase table read: a longer one is refused when met, never held whole.
MAX_LINE_CHARS = 1_000_000

#: A gzipped paraphrase table is read up to this many times its own size decompressed (and at least
#: :data:`TABLE_INFLATION_FLOOR` bytes); more is refused as a decompression bomb.  Meteor 1.5's English table
#: decompresses 4.4 times (61.8 MB to 272 MB), its pairs written back from a bundle without probabilities
#: (``meteor-build export``: every probability 1.0) 7.3 times; gzip reaches about 1,000 times on repeated text.
MAX_TABLE_INFLATION = 16
#: The decompressed size a gzipped paraphrase table of any size may have (a small table may compress better).
TABLE_INFLATION_FLOOR = 32_000_000

#: What the errors of the capped readers add: the file is not what it was given as.
_NOT_A_TABLE = "not a paraphrase table"


def bounded_lines(f: "TextIO", source: str, limit: int = MAX_LINE_CHARS) -> Iterator[str]:
    """The lines of the open text file ``f`` (:func:`meteor_lite.cappedlines.capped_lines`): a line of more than
    ``limit`` characters is a :class:`JarFormatError` naming ``source`` and the line, raised once ``limit + 2``
    characters of it are read (a gzip bomb of one endless line costs one line)."""
    return capped_lines(f, source, limit, what=_NOT_A_TABLE, error=MalformedInputError)


def open_table_gzip(raw: BinaryIO, source: str) -> "io.BufferedReader":
    """The decompressed bytes of the gzipped paraphrase table open as ``raw``, at most
    :data:`MAX_TABLE_INFLATION` times the file's size (at least :data:`TABLE_INFLATION_FLOOR` bytes): past that a
    read raises :class:`JarFormatError` naming ``source`` and the line the cap falls on."""
    return gunzip_capped(raw, source, ratio=MAX_TABLE_INFLATION, floor=TABLE_INFLATION_FLOOR,
                         what=f"a decompression bomb, {_NOT_A_TABLE}", error=MalformedInputError)


def _jar_pairs(lines: Iterable[str], source: str) -> Iterator[Tuple[str, str]]:
    """``(phrase, paraphrase)`` of a table as the jar reads it for ``-a``: the probability line of an entry is not
    read at all (``NaN``, ``Infinity``, ``1e400``, ``abc``, a byte order mark: the jar scores with them), and an
    entry whose phrase or paraphrase is empty is skipped (it can match nothing).  A file ending inside an entry
    is a :class:`JarFormatError`, as in :func:`iter_paraphrase_batches`."""
    it = iter(lines)
    for n, (_, raw, para_raw) in enumerate(zip_longest(it, it, it)):
        if para_raw is None:
            got = 1 if raw is None else 2
            raise MalformedInputError(
                source, 3 * n + got, f"file ends inside an entry ({got} of 3 lines: probability, phrase, paraphrase)")
        phrase, para = " ".join(raw.split()), " ".join(para_raw.split())
        words = phrase.count(" ") + 1
        if words > JAR_MAX_PHRASE_WORDS:
            raise MalformedInputError(
                source, 3 * n + 2, f"a phrase of {words:,} words, more than {JAR_MAX_PHRASE_WORDS:,}: Meteor 1.5 dies "
                "loading it (StackOverflowError from about 5,000 words)")
        if phrase and para:
            yield phrase, para


#: Pairs of one phrase joined into one row of the staging table at most (a phrase with millions of paraphrases
#: is held a chunk at a time).
_RUN_PAIRS = 10_000


def _jar_runs(pairs: Iterable[Tuple[str, str]]) -> Iterator[Tuple[str, str]]:
    """``(phrase, its consecutive paraphrases joined by TAB)``: the pairs of one phrase in a row, at most
    :data:`_RUN_PAIRS` of them a run."""
    phrase: Optional[str] = None
    paras: List[str] = []
    for ph, para in pairs:
        if ph != phrase or len(paras) >= _RUN_PAIRS:
            if paras:
                yield phrase, "\t".join(paras)  # type: ignore[misc]
            phrase, paras = ph, []
        paras.append(para)
    if paras:
        yield phrase, "\t".join(paras)  # type: ignore[misc]


def _stage_table(conn: sqlite3.Connection, path: Path) -> bool:
    """Read the (gzipped) table at ``path`` into the temporary table ``_runs`` (rowid: file order) as
    :func:`_jar_runs`; return whether the runs came in phrase order (the jar's own tables, sorted)."""
    try:
        with open(path, "rb") as raw:
            gz = raw.read(2) == b"\x1f\x8b"
            if not gz:
                warnings.warn(f"{path}: not in gzip format: scored without this paraphrase table, as Meteor 1.5 "
                              "does (it reads a table gzipped only: java.util.zip.ZipException); gzip it to use it",
                              MeteorLiteWarning, stacklevel=3)
                return True
            raw.seek(0)
            with io.TextIOWrapper(open_table_gzip(raw, str(path)), encoding="utf-8") as f:
                runs = _jar_runs(_jar_pairs(bounded_lines(f, str(path)), str(path)))
                ordered = True
                last = ""
                insert = "INSERT INTO temp._runs (phrase, joined) VALUES (?, ?)"
                while True:
                    batch = list(islice(runs, 1_000))
                    if not batch:
                        return ordered
                    if ordered:
                        keys = [last, *map(itemgetter(0), batch)]
                        ordered = all(map(le, keys, islice(keys, 1, None)))
                        last = keys[-1]
                    conn.executemany(insert, batch)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, EOFError, zlib.error) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None


def _paraphrase_rows(conn: sqlite3.Connection, path: Path) -> Iterator[Tuple[str, str]]:
    """``(phrase, joined paraphrases)`` per phrase of a (gzipped) table, in phrase order: file order within a
    phrase.  The pairs are staged in a temporary table (on disk), never held in memory together."""
    conn.execute("CREATE TEMP TABLE _runs (phrase TEXT NOT NULL, joined TEXT NOT NULL)")
    try:
        ordered = _stage_table(conn, path)
        cur = conn.execute(f"SELECT phrase, joined FROM temp._runs ORDER BY {'rowid' if ordered else 'phrase, rowid'}")
        for phrase, runs in groupby(cur, key=itemgetter(0)):
            chunks: List[str] = []
            pieces: List[str] = []
            for _, joined in runs:
                pieces.append(joined)
                if len(pieces) >= _RUN_PAIRS:  # a phrase found in many places: joined a chunk at a time (linear)
                    chunks.append("\t".join(pieces))
                    pieces = []
            yield phrase, "\t".join(chunks + pieces)
    finally:
        conn.execute("DROP TABLE temp._runs")


_SPACE = re.compile(" ")


def _copy_table(conn: sqlite3.Connection, table: str) -> None:
    conn.execute(f"INSERT INTO main.{table} SELECT * FROM base.{table}")


def write_jar_bundle(
    out: Path,
    *,
    language: str,
    base: Optional[Path] = None,
    function_words: Optional[Path] = None,
    synonym_dir: Optional[Path] = None,
    synonym_language: str = "english",
    paraphrase_file: Optional[Path] = None,
    prefix_rows: bool = True,
) -> Path:
    """Write a bundle (schema of :mod:`.schema`) from resource files in Meteor 1.5's formats.

    Resources not given are copied from the bundle ``base`` (when there is one):
    ``function_words`` (``-s``: one word a line), ``synonym_dir`` (``-d``: ``<synonym_language>.synsets``
    and ``.exceptions``), ``paraphrase_file`` (``-a``: probability/phrase/paraphrase triples, gzipped or
    not).  Stems and non-breaking prefixes always come from ``base``.  For scoring, not distribution:
    no sources are recorded and no content checksum is written.

    ``prefix_rows=False``: the proper prefixes of the paraphrase table's phrases are not written as rows (a
    phrase of n words has n - 1 of them, together of about n * n / 2 words: a table of 1,000-word phrases would
    take gigabytes), for a reader that answers "does this begin a phrase?" itself from the phrases' order
    (:class:`meteor_lite.jarcli.setup.JarFilesBundle`).  The file alone is then incomplete.

    The table is read within caps (:func:`bounded_lines`, :func:`open_table_gzip`) and its pairs are staged on
    disk, so memory does not grow with its size.
    """
    conn = sqlite3.connect(str(out))
    try:
        # a private file written once and read after: no rollback journal, no waiting for the disk
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA page_size = 65536")  # long phrases (and prefixes) fit in a page
        conn.executescript(SCHEMA_SQL)
        meta: Dict[str, str] = {}
        if base is not None:
            conn.execute("ATTACH DATABASE ? AS base", (f"{base.resolve().as_uri()}?mode=ro",))
            meta = dict(conn.execute("SELECT key, value FROM base.meta"))
            for table, given in (("stems", None), ("nonbreaking_prefixes", None), ("function_words", function_words),
                                 ("synsets", synonym_dir), ("synonym_exceptions", synonym_dir),
                                 ("paraphrases", paraphrase_file)):
                if given is None:
                    _copy_table(conn, table)
        meta.pop("content_checksum", None)
        meta.update({"format": FORMAT_NAME, "schema_version": str(SCHEMA_VERSION), "language": language,
                     "name": f"{language}-jar-files", "description": "resources read from Meteor 1.5 files"})
        _fill(conn, meta, function_words, synonym_dir, synonym_language, paraphrase_file, prefix_rows)
        conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", sorted(meta.items()))
        conn.commit()
    finally:
        conn.close()
    return out


def _fill(
    conn: sqlite3.Connection, meta: Dict[str, str], function_words: Optional[Path], synonym_dir: Optional[Path],
    synonym_language: str, paraphrase_file: Optional[Path], prefix_rows: bool = True,
) -> None:
    """Insert the resources read from the jar's files."""
    if function_words is not None:
        words = parse_function_words(_read_text(function_words), str(function_words))
        conn.executemany("INSERT OR IGNORE INTO function_words (word) VALUES (?)", ((w,) for w in words))
    if synonym_dir is not None:
        syn, exc = (synonym_dir / f"{synonym_language}.{kind}" for kind in SYNONYM_FILES)
        conn.executemany("INSERT OR IGNORE INTO synsets (word, synset) VALUES (?, ?)",
                         parse_synsets(_read_text(syn), str(syn)))
        conn.executemany("INSERT OR IGNORE INTO synonym_exceptions (form, base) VALUES (?, ?)",
                         parse_exceptions(_read_text(exc), str(exc)))
    if paraphrase_file is not None:
        _insert_paraphrases(conn, meta, paraphrase_file, prefix_rows)


def _insert_paraphrases(conn: sqlite3.Connection, meta: Dict[str, str], path: Path, prefix_rows: bool = True) -> None:
    """The table's phrases, and (``prefix_rows``) every phrase's proper prefixes flagged as such (what the
    scorer's walk needs; see :func:`write_jar_bundle`).

    A phrase of n words has n - 1 prefixes, so a table of very long phrases has a great many prefix rows:
    each is cut from its phrase (no joins) and inserted as it is made, never held in memory with the rest.
    """
    longest = pairs = 0
    rows: List[Tuple[str, str]] = []
    insert = ("INSERT INTO paraphrases (phrase, prefix, paraphrases) VALUES (?, 0, ?) "
              "ON CONFLICT (phrase) DO UPDATE SET paraphrases = excluded.paraphrases")
    for phrase, joined in _paraphrase_rows(conn, path):
        rows.append((phrase, joined))
        pairs += joined.count("\t") + 1
        longest = max(longest, phrase.count(" ") + 1)
        if prefix_rows:
            conn.executemany(insert, rows)
            rows = []
            conn.executemany(
                "INSERT INTO paraphrases (phrase, prefix, paraphrases) VALUES (?, 1, NULL) "
                "ON CONFLICT (phrase) DO UPDATE SET prefix = 1",
                ((phrase[: m.start()],) for m in _SPACE.finditer(phrase)))
        elif len(rows) >= 1_000:
            conn.executemany(insert, rows)
            rows = []
    conn.executemany(insert, rows)
    meta.update({"paraphrase_max_length": str(longest), "paraphrase_pairs": str(pairs),
                 "paraphrase_probabilities": "dropped"})
