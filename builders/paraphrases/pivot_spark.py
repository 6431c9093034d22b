"""The pivot as Spark SQL: the same paraphrase table as :func:`.pivot.pivot_pairs` and the DuckDB engine, bit for bit.

:func:`pivot_pairs_spark` runs :mod:`.pivot_sql`'s plan on Apache Spark (the optional ``spark`` extra), so
that a phrase table of 10^8-10^9 lines pivots on a cluster::

    pt       = the lines of the table (plain text, gzip when the name ends in .gz, or Parquet with columns
               ln, line), each numbered in file order; parsed to (ln, f, e, p(f|e), p(e|f))
    entries  = the lines that pass the symbol and common-word filters
    hits     = the distinct E phrases of entries that occur as word n-grams of the target corpus
    contrib  = entries a JOIN entries b ON a.f = b.f AND a.ln <> b.ln, p = b.p(e|f) * a.p(f|e) >= minTP,
               flagged when one phrase is a run of whole words of the other
    pairs    = contrib (not flagged) GROUP BY (e1, e2): the contributions sorted by (ln2, ln1) and added
               left to right (Spark's ``aggregate`` over the sorted list), with e1's hit flag
               -> written as Parquet (the engine's work directory), read back
               ORDER BY the UTF-16 code units of (e1, e2) (Java's order)

Exactness (docs/paraphrases.md, tests/test_pivot_spark.py)
----------------------------------------------------------
* Each pair's sum adds its contributions in phrase-table order (``ln2``, then ``ln1``), one IEEE addition
  after another from 0.0, exactly as the sorter, the DuckDB engine and Parex do; a product is one IEEE
  multiplication in every engine.  Spark's ``aggregate`` is a sequential left fold, so the sum does not
  depend on partitions, executors or the shuffle.
* The order is Java's ``String.compareTo`` (UTF-16 code units): the sort key is the phrase encoded as
  UTF-16BE, compared as unsigned bytes.
* Numbers are parsed by Spark's cast (Java's ``Double.parseDouble``, correctly rounded as Python's
  ``float``); a score that is not a plain decimal number (or inf/nan) makes the line unreadable, and the
  table is then read with the sorter's parser, which raises the error naming the file and line (as the
  DuckDB engine does).
* Line numbers are ``monotonically_increasing_id()`` over one text file read in order: increasing in file
  order, which is all the sums and the join need (Parquet input carries its own ``ln`` column).
* Common words are counted in Python on the driver (:func:`.pivot.common_words`, the sorter's code).

Spark: a session that exists (``spark-submit``, a notebook) is used as it is; otherwise one is started with
``--master local[THREADS]`` and a driver memory of twice ``PivotOptions.memory_mb``, at least 1 GiB.  The pairs are written
as Parquet under ``PivotOptions.spark_dir`` (on a cluster: a directory of its shared storage, e.g.
``hdfs://`` or ``s3a://``; kept), else under a local temporary directory (removed).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from typing import Any, Iterator, Optional, Set, Tuple

from ..errors import PhraseTableError, PivotError
from .moses import TOKEN_DELIMITER_CLASS, open_text, parse_line, python_space_class

PivotOptions = Any  # .pivot.PivotOptions (not imported: the modules would import each other)
PivotStats = Any

__all__ = ["pivot_pairs_spark", "spark_session"]

#: a score Python's float() and Java's Double.parseDouble read alike
_NUMBER = r"\A[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))\z"


#: pairs per partition of the ordered output (what the driver fetches at a time)
ROWS_PER_FETCH = 200_000


def _require_pyspark() -> Any:
    try:
        import pyspark
    except ImportError:
        raise PivotError("the spark engine needs pyspark (pip install 'meteor-lite[spark]') and Java; "
                         "or use --engine duckdb") from None
    return pyspark


def spark_session(opts: PivotOptions) -> Any:
    """The running SparkSession, or a local one (``local[threads]``, driver memory 2 x memory_mb) started for the pivot.

    Settings given to ``spark-submit`` (or ``spark-defaults.conf``) win over these defaults.
    """
    _require_pyspark()
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    conf = SparkConf()  # what spark-submit passed
    b = SparkSession.builder.appName("meteor-build pivot")
    defaults = {
        "spark.master": f"local[{max(1, int(opts.threads))}]",
        # (Spark keeps 300 MiB of the heap for itself: below 1 GiB little is left for the pivot's data)
        "spark.driver.memory": f"{max(1024, int(2 * opts.memory_mb))}m",
        "spark.sql.shuffle.partitions": str(max(4, 4 * int(opts.threads))),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
    }
    if opts.tmp_dir:
        defaults["spark.local.dir"] = str(opts.tmp_dir)
    for key, value in defaults.items():
        if not conf.contains(key):
            b = b.config(key, value)
    try:
        return b.getOrCreate()
    except Exception as exc:  # no java, or the JVM did not start
        raise PivotError(f"could not start Spark ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}); "
                         "is Java (8, 11 or 17) installed? Or use --engine duckdb") from None


def _is_parquet(path: str) -> bool:
    return path.rstrip("/").endswith(".parquet")


def _local_gzip_name(path: str, work: str) -> str:
    """Spark decompresses by the name (.gz): a local gzip file named otherwise is linked under a .gz name in ``work``."""
    if "://" in path or path.endswith(".gz") or not os.path.isfile(path):
        return path
    with open(path, "rb") as fb:
        if fb.read(2) != b"\x1f\x8b":
            return path
    link = os.path.join(work, f"{uuid.uuid4().hex}.gz")
    os.symlink(os.path.abspath(path), link)
    return link


def _numbered_lines(spark: Any, path: str, work: str) -> Any:
    """DataFrame (ln, line): the file's lines numbered in file order (Parquet: its own ln and line columns)."""
    from pyspark.sql import functions as F

    if _is_parquet(path):
        df = spark.read.parquet(path)
        missing = {"ln", "line"} - set(df.columns)
        if missing:
            raise PivotError(f"{path}: a Parquet phrase table needs the columns ln (line number) and line; "
                             f"missing: {', '.join(sorted(missing))}")
        return df.select(F.col("ln").cast("long").alias("ln"), F.col("line").cast("string").alias("line"))
    if os.path.isdir(path):  # several text files: Spark reads their splits by size, not in file order
        raise PivotError(f"{path}: a directory; the spark engine reads one text file (or a Parquet table with ln, line)")
    return spark.read.text(_local_gzip_name(path, work)).select(
        F.monotonically_increasing_id().alias("ln"), F.col("value").alias("line"))


def _norm(col: Any) -> Any:
    """meteor_lite's norm_phrase: tokens split on " \\t\\n\\r\\f", joined by one space."""
    from pyspark.sql import functions as F

    tok = TOKEN_DELIMITER_CLASS
    slow = F.regexp_replace(F.regexp_replace(col, f"\\A{tok}+|{tok}+\\z", ""), f"{tok}+", " ")
    return F.when(col.rlike("[\\t\\n\\r\\f]|\\A | \\z|  "), slow).otherwise(col)


def _parsed_table(spark: Any, path: str, swap: bool, work: str) -> Any:
    """DataFrame (ln, f, e, pfe, pef, ok) of every non-blank line."""
    from pyspark.sql import functions as F

    raw = _numbered_lines(spark, path, work)
    raw = raw.where(F.col("line").isNotNull() & ~F.col("line").rlike(f"\\A{python_space_class()}*\\z"))
    fields = F.split(F.col("line"), " \\|\\|\\| ", -1)
    f_i, e_i = (1, 0) if swap else (0, 1)
    parsed = raw.select(
        "ln", F.size(fields).alias("nf"), _norm(fields.getItem(f_i)).alias("f"), _norm(fields.getItem(e_i)).alias("e"),
        F.filter(F.split(fields.getItem(2), f"{python_space_class()}+", -1), lambda t: t != "").alias("s"))
    parsed = parsed.withColumn("d", F.transform("s", lambda t: F.when(t.rlike(_NUMBER), t.cast("double"))))
    pfe, pef = (2, 0) if swap else (0, 2)
    ok = ((F.col("nf") >= 3) & (F.col("f") != "") & (F.col("e") != "") & (F.size("s") >= 3)
          & F.forall("d", lambda x: x.isNotNull()))
    return parsed.select("ln", "f", "e", F.col("d").getItem(pfe).alias("pfe"), F.col("d").getItem(pef).alias("pef"),
                         F.coalesce(ok, F.lit(False)).alias("ok"))


def _raise_first_bad_line(path: str, detail: str) -> None:
    """Read the table with the sorter's parser, which raises the error (file:line); else name the problem."""
    if not _is_parquet(path) and "://" not in path:
        with open_text(path) as f:
            for lineno, line in enumerate(f, 1):
                if line.strip():
                    parse_line(line, f"{path}:{lineno}")
    raise PhraseTableError(f"{path}: the spark engine cannot read this table ({detail}); use --engine sort")


def _symbol_test(col: Any, symbols: str) -> Any:
    from pyspark.sql import functions as F

    if not symbols:
        return F.lit(False)
    return col.rlike("[" + "".join(f"\\x{{{ord(c):x}}}" for c in sorted(set(symbols))) + "]")


def _common_test(col: Any, words: Set[str]) -> Any:
    """Every word of the (normalised) phrase is in ``words`` (Parex's common-word filter)."""
    from pyspark.sql import functions as F

    if not words:
        return F.lit(False)
    listed = sorted(words)
    return F.forall(F.split(col, " ", -1), lambda w: w.isin(listed))


def _entries(table: Any, symbols: str, common_f: Set[str], common_e: Set[str], st: PivotStats) -> Tuple[Any, int]:
    """The lines that pass the filters (f, ln, e, pfe, pef), cached; and the longest E phrase in words.

    The order of the tests (F symbols, F common, E symbols, E common) decides which counter a dropped
    line goes to, as in the sorter.
    """
    from pyspark.sql import functions as F

    f, e = F.col("f"), F.col("e")
    why = (F.when(_symbol_test(f, symbols), "symbols").when(_common_test(f, common_f), "common")
           .when(_symbol_test(e, symbols), "symbols").when(_common_test(e, common_e), "common"))
    classified = table.select("ln", "f", "e", "pfe", "pef", why.alias("why"))
    row = classified.agg(
        F.count(F.when(F.col("why") == "symbols", 1)), F.count(F.when(F.col("why") == "common", 1)),
        F.count(F.when(F.col("why").isNull(), 1)),
        F.max(F.when(F.col("why").isNull(), F.size(F.split(e, " ", -1))))).first()
    st.dropped_symbols, st.dropped_common, st.entries_kept = int(row[0]), int(row[1]), int(row[2])
    entries = classified.where(F.col("why").isNull()).select("f", "ln", "e", "pfe", "pef").cache()
    fan = entries.groupBy("f").count().agg(F.count("*"), F.max("count"), F.sum(F.col("count") * (F.col("count") - 1))).first()
    st.pivots, st.max_fanout, st.contributions = int(fan[0]), int(fan[1] or 0), int(fan[2] or 0)
    return entries, int(row[3] or 0)


def _target_hits(spark: Any, target: str, entries: Any, max_len: int, work: str) -> Any:
    """The distinct E phrases of ``entries`` that occur as word n-grams of the target corpus (column e)."""
    from pyspark.sql import functions as F

    toks = (spark.read.text(_local_gzip_name(target, work))
            .select(F.filter(F.split("value", f"{TOKEN_DELIMITER_CLASS}+", -1), lambda t: t != "").alias("w"))
            .where(F.size("w") > 0))
    if toks.limit(1).count() == 0:
        raise PivotError(f"{target}: the target corpus has no words")
    starts = toks.select("w", F.explode(F.sequence(F.lit(1), F.size("w"))).alias("i"))
    grams = (starts.select("w", "i", F.explode(F.sequence(F.lit(1), F.lit(max(1, max_len)))).alias("n"))
             .where(F.col("i") + F.col("n") - 1 <= F.size("w"))
             .select(F.array_join(F.slice("w", F.col("i"), F.col("n")), " ").alias("e")))
    wanted = entries.select("e").distinct()
    return grams.join(wanted, "e", "left_semi").distinct()


def _contributions(entries: Any, min_tp: float, st: PivotStats) -> Any:
    """Every pivot's product p(e2|f) p(f|e1) >= minTP: (e1, e2, ln2, ln1, p, sub)."""
    from pyspark.sql import functions as F

    a, b = entries.alias("a"), entries.alias("b")
    pairs = (a.join(b, (F.col("a.f") == F.col("b.f")) & (F.col("a.ln") != F.col("b.ln")))
             .select(F.col("a.e").alias("e1"), F.col("b.e").alias("e2"), F.col("b.ln").alias("ln2"),
                     F.col("a.ln").alias("ln1"), (F.col("b.pef") * F.col("a.pfe")).alias("p"))
             .where(F.col("p") >= F.lit(float(min_tp))))
    return pairs.withColumn("sub", F.expr("instr(concat(' ', e1, ' '), concat(' ', e2, ' ')) > 0 "
                                          "OR instr(concat(' ', e2, ' '), concat(' ', e1, ' ')) > 0"))


def _summed_pairs(contrib: Any, hits: Any) -> Any:
    """(e1, e2, p, hit): each kept pair's contributions added left to right in (ln2, ln1) order."""
    from pyspark.sql import functions as F

    grouped = (contrib.where(~F.col("sub"))
               .groupBy("e1", "e2")
               .agg(F.array_sort(F.collect_list(F.struct("ln2", "ln1", "p"))).alias("terms")))
    summed = grouped.select("e1", "e2", F.aggregate(F.col("terms"), F.lit(0.0).cast("double"), lambda acc, x: acc + x["p"]).alias("p"))
    flagged = hits.select(F.col("e").alias("e1"), F.lit(True).alias("hit"))
    return summed.join(flagged, "e1", "left").select("e1", "e2", "p", F.coalesce("hit", F.lit(False)).alias("hit"))


def _work_dirs(opts: PivotOptions) -> Tuple[str, str, Optional[str]]:
    """(local scratch directory, Parquet directory, directory to remove at the end or None)."""
    local = tempfile.mkdtemp(prefix="meteor-lite-spark-", dir=opts.tmp_dir)
    if getattr(opts, "spark_dir", None):
        return local, f"{str(opts.spark_dir).rstrip('/')}/meteor-pivot-{uuid.uuid4().hex}", None
    return local, os.path.join(local, "parquet"), local


def pivot_pairs_spark(
    phrase_table: "os.PathLike[str] | str",
    target_corpus: "os.PathLike[str] | str",
    options: PivotOptions,
    stats: PivotStats,
    common_e: Set[str],
    common_f: Set[str],
    swap: bool,
) -> Iterator[Tuple[str, str, float]]:
    """:func:`.pivot.pivot_pairs` on Spark (filters 1-5, sorted by Java's order of ``(e1, e2)``).

    Called by :func:`.pivot.pivot_pairs` when ``options.engine == "spark"``, with the common-word lists
    already computed.  Fills ``stats`` as the sorter does.
    """
    spark = spark_session(options)
    from pyspark.sql import functions as F

    pt, target = str(phrase_table), str(target_corpus)
    local, parquet, remove = _work_dirs(options)
    entries = None
    try:
        table = _parsed_table(spark, pt, swap, local).cache()
        n, bad = table.agg(F.count("*"), F.count(F.when(~F.col("ok"), 1))).first()
        if bad:
            table.unpersist()
            _raise_first_bad_line(pt, f"{bad} unreadable lines")
        if n == 0:
            raise PivotError(f"{pt}: the phrase table is empty")
        stats.pt_lines = int(n)
        entries, max_len = _entries(table, options.symbols, common_f, common_e, stats)
        hits = _target_hits(spark, target, entries, max_len, local)
        contrib = _contributions(entries, options.min_trans_prob, stats).cache()
        kept, sub = contrib.agg(F.count("*"), F.count(F.when(F.col("sub"), 1))).first()
        stats.dropped_min_trans = stats.contributions - int(kept)
        stats.dropped_substring = int(sub)
        _summed_pairs(contrib, hits).write.mode("overwrite").parquet(parquet)
        contrib.unpersist()
        entries.unpersist()
        table.unpersist()
        pairs = spark.read.parquet(parquet)
        summed, out = pairs.agg(F.count("*"), F.count(F.when(F.col("hit"), 1))).first()
        stats.pairs_summed, stats.pairs_out = int(summed), int(out)
        stats.dropped_target = stats.pairs_summed - stats.pairs_out
        # range partitions of a bounded size, each sorted, fetched in order: the driver never holds more than
        # one partition (a plain orderBy lets adaptive execution merge the output into one huge partition)
        parts = max(1, -(-stats.pairs_out // ROWS_PER_FETCH))
        keyed = pairs.where("hit").select("e1", "e2", "p", F.encode("e1", "UTF-16BE").alias("k1"),
                                          F.encode("e2", "UTF-16BE").alias("k2"))
        ordered = keyed.repartitionByRange(parts, "k1", "k2").sortWithinPartitions("k1", "k2")
        for row in ordered.toLocalIterator():
            yield (row[0], row[1], row[2])
    finally:
        if remove is not None:
            shutil.rmtree(remove, ignore_errors=True)
        else:
            shutil.rmtree(local, ignore_errors=True)
