"""The pivot as SQL on DuckDB: the same paraphrase table as :func:`.pivot.pivot_pairs`, bit for bit.

:func:`pivot_pairs_duckdb` reads the phrase table and the target corpus with
DuckDB's CSV reader (one column: the whole line, numbered ``WITH ORDINALITY``),
and expresses the pivot of :mod:`.pivot` in SQL::

    pt       = the lines, parsed: (ln, f, e, p(f|e), p(e|f)); bad lines are reported by the sorter's parser
    entries  = the lines that pass the symbol and common-word filters
    hits     = the distinct E phrases of entries that occur as word n-grams of the target corpus
    contrib  = entries a JOIN entries b ON a.f = b.f AND a.ln <> b.ln:
               (e1 = a.e, e2 = b.e, ln2 = b.ln, ln1 = a.ln, p = b.p(e|f) * a.p(f|e)) WHERE p >= minTP,
               flagged when one phrase is a run of whole words of the other
    stream   = contrib (not flagged) LEFT JOIN hits ORDER BY e1, e2 (Java's order), ln2, ln1

and the stream is summed pair by pair in Python (the sorter's last stage): each
pair's contributions are added one after the other in phrase-table order, and a
pair is kept when its e1 is a hit.  The heavy work -- parsing, filtering, the
self-join on the pivot phrase, the n-grams, the sort -- is DuckDB's, out of
core: its ``memory_limit`` is twice ``PivotOptions.memory_mb``, it spills to a
temporary directory (under ``PivotOptions.tmp_dir``), and uses
``PivotOptions.threads`` threads.

Exactness
---------
* Floating-point sums depend on the order of the terms.  Parex (and the
  sorter) add a pair's contributions in the order of the phrase-table lines of
  ``(f, e2)`` (then of ``(f, e1)``); the stream comes in exactly that order and
  Python adds it left to right.  (An ordered aggregate,
  ``list_reduce(list(p ORDER BY ln2, ln1), (x, y) -> x + y)``, computes the same
  sums inside DuckDB, but its per-group buffers do not spill: it ran out of
  memory at 3 M lines with a 512 MiB limit.)  Products are single IEEE
  multiplications either way, and DuckDB parses decimal text to the nearest
  double as Python's ``float`` does.  ``meteor-build check parex --engine duckdb``
  and ``tests/test_pivot_sql.py`` compare the engines (and Parex) bit for bit.
* DuckDB compares strings by UTF-8 bytes (code-point order); Java's
  ``String.compareTo`` order differs for characters above U+FFFF, which sort
  before U+E000..U+FFFF.  When such characters occur, the ORDER BY uses a key
  in which each U+E000..U+FFFF character is preceded by U+10FFFF (and U+10FFFF
  itself is followed by U+0001), so code-point order of the key is Java's order.
* Common words are counted in Python (:func:`.pivot.common_words`, the same
  code as the sorter); the SQL tests a phrase against them with one RE2
  alternation per side (a list lookup per word was 75 times slower).

Bad input: when the SQL finds a line it cannot read (fewer than three fields,
an empty phrase, a score that is not a number), the file is read again with
the sorter's parser, which raises its error naming the file and line.
Known difference: DuckDB also ends a line at a bare carriage return (``\\r``
not followed by ``\\n``); a table with one inside a line is refused with an
error that says so (the sorter reads it as a token separator).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from itertools import groupby
from typing import Any, Iterator, Set, Tuple

from ..errors import PhraseTableError, PivotError
from .moses import TOKEN_DELIMITER_CLASS, open_text, parse_line, python_space_class

# The options and statistics objects are :class:`.pivot.PivotOptions` and :class:`.pivot.PivotStats`; they are
# not imported here (not even for type checking), so that the two modules do not import each other.
PivotOptions = Any
PivotStats = Any

__all__ = ["pivot_pairs_duckdb"]

#: rows fetched from DuckDB at a time
BATCH = 20_000


def _require_duckdb() -> Any:
    try:
        import duckdb
    except ImportError:
        raise PivotError("the duckdb engine needs the duckdb package (pip install 'meteor-lite[build]'); "
                         "or use --engine sort") from None
    return duckdb


def _connect(opts: PivotOptions, work: str) -> Any:
    """An in-memory DuckDB database, out of core: memory_limit, temp_directory (in ``work``), threads.

    (In-memory tables spill to the temporary directory as the operators do; a
    database file would be slower: it compresses and checkpoints every table.)
    """
    duckdb = _require_duckdb()
    con = duckdb.connect(":memory:")
    limit_mb = max(64, int(2 * opts.memory_mb))
    con.execute(f"SET memory_limit = '{limit_mb}MB'")
    con.execute(f"SET temp_directory = '{_sql_str(os.path.join(work, 'spill'))}'")
    con.execute(f"SET threads = {max(1, int(opts.threads))}")
    con.execute("SET preserve_insertion_order = true")
    con.execute("SET enable_progress_bar = false")
    return con


def _sql_str(s: str) -> str:
    return s.replace("'", "''")


def _lines(path: "os.PathLike[str] | str") -> str:
    """A FROM clause: the file's lines as ``line`` (NULL when empty) numbered ``ordinality``; gzip by content."""
    with open(path, "rb") as fb:
        gz = fb.read(2) == b"\x1f\x8b"
    return (f"read_csv('{_sql_str(str(path))}', columns = {{'line': 'VARCHAR'}}, delim = '', quote = '', escape = '', "
            f"header = false, auto_detect = false, strict_mode = false, new_line = '\\n', "
            f"compression = '{'gzip' if gz else 'none'}') WITH ORDINALITY")


def _norm(expr: str) -> str:
    """SQL for meteor_lite's norm_phrase: tokens split on " \\t\\n\\r\\f", joined by one space (fast path: already so)."""
    tok = TOKEN_DELIMITER_CLASS
    slow = f"regexp_replace(regexp_replace({expr}, '^{tok}+|{tok}+$', '', 'g'), '{tok}+', ' ', 'g')"
    return f"CASE WHEN regexp_matches({expr}, '[\\t\\n\\r\\f]|^ | $|  ') THEN {slow} ELSE {expr} END"


def _py_split(expr: str) -> str:
    """SQL for Python's ``str.split()`` (any whitespace; fast path: single spaces only)."""
    word = f"[^{python_space_class()[1:-1]}]+"
    slow = f"list_filter(regexp_split_to_array({expr}, '{python_space_class()}+'), x -> x <> '')"
    return f"CASE WHEN regexp_full_match({expr}, '{word}(?: {word})*') THEN string_split({expr}, ' ') ELSE {slow} END"


def _load_table(con: Any, path: "os.PathLike[str] | str", swap: bool) -> None:
    """Table ``pt``: (ln, f, e, pfe = p(f|e), pef = p(e|f), ok) for every non-blank line."""
    f_col, e_col = ("fields[2]", "fields[1]") if swap else ("fields[1]", "fields[2]")
    pfe, pef = ("d[3]", "d[1]") if swap else ("d[1]", "d[3]")
    con.execute(f"""
        CREATE TABLE pt AS
        WITH raw AS (
            SELECT ordinality AS ln, string_split(line, ' ||| ') AS fields FROM {_lines(path)}
            WHERE line IS NOT NULL AND NOT regexp_full_match(line, '{python_space_class()}*')
        ), parsed AS (
            SELECT ln, len(fields) AS nf, {_norm(f_col)} AS f, {_norm(e_col)} AS e, {_py_split('fields[3]')} AS s
            FROM raw
        ), typed AS (SELECT ln, nf, f, e, s, TRY_CAST(s AS DOUBLE[]) AS d FROM parsed)
        SELECT ln, f, e, {pfe} AS pfe, {pef} AS pef,
               coalesce(nf >= 3 AND f <> '' AND e <> '' AND len(s) >= 3 AND list_count(d) = len(s), false) AS ok
        FROM typed
    """)


def _raise_first_bad_line(path: "os.PathLike[str] | str", detail: str) -> None:
    """Read the table with the sorter's parser, which raises the error (file:line); else name the DuckDB problem."""
    with open_text(path) as f:
        for lineno, line in enumerate(f, 1):
            if line.strip():
                parse_line(line, f"{path}:{lineno}")
    raise PhraseTableError(f"{path}: the duckdb engine cannot read this table ({detail}); "
                           "a bare carriage return inside a line? Use --engine sort")


def _read_table(con: Any, path: "os.PathLike[str] | str", swap: bool) -> int:
    """Load and check the phrase table; return its number of (non-blank) lines."""
    duckdb = _require_duckdb()
    try:
        _load_table(con, path, swap)
    except (duckdb.InvalidInputException, duckdb.ConversionException) as exc:  # e.g. invalid UTF-8
        _raise_first_bad_line(path, str(exc).splitlines()[0])
    n, bad = con.execute("SELECT count(*), count(*) FILTER (WHERE NOT ok) FROM pt").fetchone()  # ok is never NULL
    if bad:
        _raise_first_bad_line(path, f"{bad} unreadable lines")
    if n == 0:
        raise PivotError(f"{path}: the phrase table is empty")
    return int(n)


def _char_class(chars: str) -> str:
    """An RE2 character class of exactly these characters."""
    return "[" + "".join(f"\\x{{{ord(c):x}}}" for c in sorted(set(chars))) + "]"


def _symbol_test(col: str, symbols: str) -> str:
    """SQL: the phrase has one of ``symbols`` (Parex's symbol filter)."""
    return f"regexp_matches({col}, '{_char_class(symbols)}')" if symbols else "false"


def _common_test(col: str, words: Set[str]) -> str:
    """SQL: every word of the (normalised) phrase is in ``words`` (Parex's common-word filter), as one RE2 match."""
    if not words:
        return "false"
    alt = "(?:" + "|".join("".join(f"\\x{{{ord(c):x}}}" for c in w) for w in sorted(words)) + ")"
    return f"regexp_full_match({col}, '{alt}(?: {alt})*')"


def _filter_entries(con: Any, symbols: str, common_f: Set[str], common_e: Set[str], st: PivotStats) -> int:
    """Table ``entries`` (f, ln, e, pfe, pef): the lines that pass the filters; return the longest E phrase (words).

    The order of the tests (F symbols, F common, E symbols, E common) decides which
    counter a dropped line goes to, as in the sorter.
    """
    why = f"""CASE WHEN {_symbol_test('f', symbols)} THEN 'symbols' WHEN {_common_test('f', common_f)} THEN 'common'
                   WHEN {_symbol_test('e', symbols)} THEN 'symbols' WHEN {_common_test('e', common_e)} THEN 'common' END"""
    con.execute(f"CREATE TABLE classified AS SELECT ln, f, e, pfe, pef, {why} AS why FROM pt")
    con.execute("DROP TABLE pt")
    con.execute("CREATE TABLE entries AS SELECT f, ln, e, pfe, pef FROM classified WHERE why IS NULL")
    row = con.execute("""SELECT count(*) FILTER (WHERE why = 'symbols'), count(*) FILTER (WHERE why = 'common'),
                                count(*) FILTER (WHERE why IS NULL),
                                coalesce(max(length(e) - length(replace(e, ' ', '')) + 1) FILTER (WHERE why IS NULL), 0)
                         FROM classified""").fetchone()
    con.execute("DROP TABLE classified")
    st.dropped_symbols, st.dropped_common, st.entries_kept = int(row[0]), int(row[1]), int(row[2])
    fan = con.execute("SELECT count(*), coalesce(max(n), 0), coalesce(sum(n * (n - 1)), 0) "
                      "FROM (SELECT count(*) AS n FROM entries GROUP BY f)").fetchone()
    st.pivots, st.max_fanout, st.contributions = int(fan[0]), int(fan[1]), int(fan[2])
    return int(row[3])


def _target_hits(con: Any, target: "os.PathLike[str] | str", max_len: int) -> None:
    """Table ``hits`` (e): the distinct E phrases of ``entries`` that occur as word n-grams of the target corpus."""
    duckdb = _require_duckdb()
    try:
        con.execute(f"""CREATE TABLE toks AS SELECT w FROM (
                            SELECT list_filter(regexp_split_to_array(line, '{TOKEN_DELIMITER_CLASS}+'), t -> t <> '') AS w
                            FROM {_lines(target)} WHERE line IS NOT NULL) WHERE len(w) > 0""")
    except duckdb.InvalidInputException as exc:
        raise PivotError(f"{target}: DuckDB could not read the target corpus: {str(exc).splitlines()[0]}") from None
    if con.execute("SELECT count(*) FROM toks").fetchone()[0] == 0:
        raise PivotError(f"{target}: the target corpus has no words")
    con.execute(f"""CREATE TABLE hits AS
                    WITH ngrams AS (
                        SELECT array_to_string(w[i:i + n - 1], ' ') AS g
                        FROM (SELECT w, unnest(generate_series(1, len(w))) AS i FROM toks) AS starts,
                             range(1, {max(1, max_len)} + 1) AS lens(n)
                        WHERE i + n - 1 <= len(w))
                    SELECT DISTINCT g AS e FROM ngrams WHERE g IN (SELECT DISTINCT e FROM entries)""")
    con.execute("DROP TABLE toks")


def _contributions(con: Any, min_tp: float, st: PivotStats) -> None:
    """Table ``contrib`` (e1, e2, ln2, ln1, p, sub): every pivot's product p(e2|f) p(f|e1) >= minTP.

    ``sub``: one phrase is a run of whole words of the other (the pair is dropped).
    """
    con.execute("""CREATE TABLE contrib AS
                   SELECT e1, e2, ln2, ln1, p, (contains(' ' || e1 || ' ', ' ' || e2 || ' ')
                                                OR contains(' ' || e2 || ' ', ' ' || e1 || ' ')) AS sub
                   FROM (SELECT a.e AS e1, b.e AS e2, b.ln AS ln2, a.ln AS ln1, b.pef * a.pfe AS p
                         FROM entries AS a JOIN entries AS b ON a.f = b.f AND a.ln <> b.ln)
                   WHERE p >= $tp""", {"tp": min_tp})
    con.execute("DROP TABLE entries")
    kept, sub = con.execute("SELECT count(*), count(*) FILTER (WHERE sub) FROM contrib").fetchone()
    st.dropped_min_trans = st.contributions - int(kept)
    st.dropped_substring = int(sub)


def _java_order_key(col: str) -> str:
    """SQL key whose code-point order is Java's UTF-16 order (see the module docstring)."""
    top = "chr(1114111)"  # U+10FFFF
    return (f"regexp_replace(regexp_replace({col}, {top}, {top} || chr(1), 'g'), "
            f"'([\\x{{e000}}-\\x{{ffff}}])', {top} || '\\1', 'g')")


def _sorted_contributions(con: Any) -> Iterator[Tuple[str, str, float, bool]]:
    """The contributions of the kept pairs, ordered by (e1, e2) in Java's order, then by (ln2, ln1); with e1's hit flag."""
    wide = con.execute("SELECT count(*) FROM contrib WHERE regexp_matches(e1 || e2, '[\\x{e000}-\\x{10ffff}]')").fetchone()[0]
    order = f"{_java_order_key('c.e1')}, {_java_order_key('c.e2')}" if wide else "c.e1, c.e2"
    cur = con.execute(f"""SELECT c.e1, c.e2, c.p, h.e IS NOT NULL FROM contrib AS c LEFT JOIN hits AS h ON c.e1 = h.e
                          WHERE NOT c.sub ORDER BY {order}, c.ln2, c.ln1""")
    while True:
        rows = cur.fetchmany(BATCH)
        if not rows:
            return
        yield from rows


def _sum_in_order(rows: Iterator[Tuple[str, str, float, bool]], st: PivotStats) -> Iterator[Tuple[str, str, float]]:
    """Add each pair's contributions in the order given (phrase-table order): the sorter's stage 3."""
    for (e1, e2), grp in groupby(rows, key=lambda r: (r[0], r[1])):
        total = 0.0
        hit = False
        for r in grp:
            total += r[2]
            hit = r[3]
        st.pairs_summed += 1
        if not hit:
            st.dropped_target += 1
            continue
        st.pairs_out += 1
        yield (e1, e2, total)


def pivot_pairs_duckdb(
    phrase_table: "os.PathLike[str] | str",
    target_corpus: "os.PathLike[str] | str",
    options: PivotOptions,
    stats: PivotStats,
    common_e: Set[str],
    common_f: Set[str],
    swap: bool,
) -> Iterator[Tuple[str, str, float]]:
    """:func:`.pivot.pivot_pairs` with DuckDB (filters 1-5, sorted by Java's order of ``(e1, e2)``).

    Called by :func:`.pivot.pivot_pairs` when ``options.engine == "duckdb"``, with
    the common-word lists already computed.  Fills ``stats`` as the sorter does.
    """
    duckdb = _require_duckdb()
    work = tempfile.mkdtemp(prefix="meteor-lite-duckdb-", dir=options.tmp_dir)
    con = None
    try:
        con = _connect(options, work)
        stats.pt_lines = _read_table(con, phrase_table, swap)
        max_len = _filter_entries(con, options.symbols, common_f, common_e, stats)
        _target_hits(con, target_corpus, max_len)
        _contributions(con, options.min_trans_prob, stats)
        yield from _sum_in_order(_sorted_contributions(con), stats)
    except duckdb.OutOfMemoryException as exc:
        raise PivotError(f"{phrase_table}: DuckDB ran out of memory (memory_limit {2 * options.memory_mb:g} MiB): "
                         f"raise --memory-mb, or use --engine sort ({str(exc).splitlines()[0]})") from None
    except duckdb.IOException as exc:
        raise PivotError(f"{phrase_table}: DuckDB could not write its temporary files in {work} "
                         f"(disk full? see --tmp-dir): {str(exc).splitlines()[0]}") from None
    finally:
        if con is not None:
            con.close()
        shutil.rmtree(work, ignore_errors=True)
