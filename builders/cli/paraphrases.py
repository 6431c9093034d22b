"""``meteor-build phrase-table``, ``pivot`` and ``paraphrases``: paraphrase tables from bitexts, as Meteor's Parex makes them."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import List, Optional, Tuple

import typer

from ..paraphrases.bitext import BitextOptions, PivotInput
from ..paraphrases.pivot import COMBINE_MODES, DEFAULT_ENGINE, ENGINES, PivotOptions
from .errors import library_errors, out_file

_B = BitextOptions()
_P = PivotOptions()


def _lang_file(spec: str, what: str) -> Tuple[str, str]:
    lang, sep, path = spec.partition("=")
    if not sep or not lang or not path:
        raise typer.BadParameter(f"expected LANG=FILE, got {spec!r}", param_hint=what)
    return lang, path


def _pivot_options(min_trans_prob: float, min_rel_freq: float, min_final_prob: float, symbols: Optional[str],
                   memory_mb: float, tmp_dir: Optional[Path], engine: str = DEFAULT_ENGINE, threads: int = 2,
                   spark_dir: Optional[str] = None) -> PivotOptions:
    if engine not in ENGINES:
        raise typer.BadParameter(" or ".join(ENGINES), param_hint="--engine")
    return PivotOptions(min_trans_prob=min_trans_prob, min_rel_freq=min_rel_freq, min_final_prob=min_final_prob,
                        symbols=_P.symbols if symbols is None else symbols, memory_mb=memory_mb,
                        tmp_dir=str(tmp_dir) if tmp_dir else None, engine=engine, threads=threads,
                        spark_dir=spark_dir)


_MIN_TP = typer.Option(_P.min_trans_prob, "--min-trans-prob", help="Keep a pivot's p(e2|f)p(f|e1) when >= this (Parex minTP).")
_MIN_RF = typer.Option(_P.min_rel_freq, "--min-rel-freq", help="A word is common when its relative frequency is > this (Parex minRF).")
_MIN_FINAL = typer.Option(_P.min_final_prob, "--min-final-prob", help="Keep a pair when its probability is >= this (Parex minFinalP).")
_SYMBOLS = typer.Option(None, "--symbols", help="Characters that disqualify a phrase (default: ASCII punctuation, as Parex).")
_MEMORY = typer.Option(_P.memory_mb, "--memory-mb",
                       help="Memory budget in MiB: each external sort's in-memory chunk (sort engine); "
                            "half of DuckDB's memory_limit (duckdb engine).")
_ENGINE = typer.Option(DEFAULT_ENGINE, "--engine",
                       help="Pivot engine: 'duckdb' (SQL, out of core; needs duckdb, in the build extra), 'sort' "
                            "(streaming external merge sorts, no dependency) or 'spark' (Spark SQL, for a cluster; "
                            "needs the spark extra and Java; docs/spark.md). Same output, bit for bit.")
_THREADS = typer.Option(2, "--threads", min=1, help="Threads of the duckdb engine (spark: of the local master it starts "
                                                    "when there is no spark-submit).")
_SPARK_DIR = typer.Option(None, "--spark-dir",
                          help="spark engine: directory for its Parquet results, on storage the cluster shares "
                               "(hdfs://, s3a://, a shared mount); kept. Default: a local temporary directory.")
_TMP = typer.Option(None, "--tmp-dir", help="Directory for temporary sort files.")
_PROGRESS = typer.Option(True, "--progress/--no-progress", help="Progress bars (only on a terminal).")
_NB = typer.Option("official", "--nonbreaking", help="Non-breaking prefixes for tokenising: 'official' (Meteor's list) or 'none'.")


def phrase_table_cmd(
    src: Path = typer.Option(..., "--src", help="Source side of the bitext (plain or gzip), e.g. the pivot language."),
    src_lang: str = typer.Option(..., "--src-lang", help="Language code of --src (for the normaliser)."),
    tgt: Path = typer.Option(..., "--tgt", help="Target side, line-aligned with --src."),
    tgt_lang: str = typer.Option(..., "--tgt-lang", help="Language code of --tgt."),
    out: Path = typer.Option(..., "--out", "-o", help="Moses phrase table to write (gzip when it ends in .gz).", callback=out_file),
    max_phrase_length: int = typer.Option(_B.max_phrase_length, "--max-phrase-length", min=1),
    max_sentence_length: int = typer.Option(_B.max_sentence_length, "--max-sentence-length", min=1,
                                            help="Skip sentence pairs with a longer side."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Use only the first N sentence pairs."),
    memory_mb: float = _MEMORY,
    tmp_dir: Optional[Path] = _TMP,
    nonbreaking: str = _NB,
    progress: bool = _PROGRESS,
) -> None:
    """A Moses phrase table from a sentence-aligned bitext (Meteor tokenisation, eflomal, grow-diag-final-and)."""
    from ..paraphrases.build import phrase_table_file

    opts = BitextOptions(max_phrase_length=max_phrase_length, max_sentence_length=max_sentence_length,
                         memory_mb=memory_mb, limit=limit, tmp_dir=str(tmp_dir) if tmp_dir else None)
    t0 = time.perf_counter()
    with library_errors():
        n, st = phrase_table_file(src, tgt, src_lang, tgt_lang, out, options=opts, nonbreaking=nonbreaking,
                                  progress=progress and sys.stderr.isatty())
    skipped = st.skipped_empty + st.skipped_long
    typer.echo(f"{out}: {n} phrase pairs from {st.used} of {st.lines} sentence pairs "
               f"({skipped} skipped: {st.skipped_empty} empty, {st.skipped_long} too long) "
               f"in {time.perf_counter() - t0:.1f} s")


def pivot_cmd(
    phrase_table: List[Path] = typer.Option(..., "--phrase-table", "-t",
                                            help="Moses table, source = pivot F, target = E (repeat for several pivots)."),
    f_corpus: List[Path] = typer.Option(..., "--f-corpus", help="Pivot-language corpus for common words (one per table)."),
    e_corpus: Path = typer.Option(..., "--e-corpus", help="Corpus of the paraphrased language, for common words."),
    target: Path = typer.Option(..., "--target", help="Keep only phrases that occur in this (tokenised) text."),
    out: Path = typer.Option(..., "--out", "-o", help="Paraphrase table to write.", callback=out_file),
    fmt: str = typer.Option("meteor", "--format", help="'meteor' (3-line groups, gzipped: Meteor's paraphrase file) or 'parex' (e1 ||| e2 ||| p)."),
    e_side: str = typer.Option("tgt", "--e-side", help="Which side of the tables is E: 'tgt' (Parex's convention) or 'src'."),
    combine_mode: str = typer.Option("sum", "--combine", help=f"Several tables: {' or '.join(COMBINE_MODES)} of their probabilities."),
    min_trans_prob: float = _MIN_TP,
    min_rel_freq: float = _MIN_RF,
    min_final_prob: float = _MIN_FINAL,
    symbols: Optional[str] = _SYMBOLS,
    memory_mb: float = _MEMORY,
    tmp_dir: Optional[Path] = _TMP,
    engine: str = _ENGINE,
    threads: int = _THREADS,
    spark_dir: Optional[str] = _SPARK_DIR,
    progress: bool = _PROGRESS,
) -> None:
    """Paraphrases by pivoting Moses phrase table(s), as Meteor's Parex does (streamed, external memory)."""
    from ..paraphrases.build import pivot_file

    if len(f_corpus) != len(phrase_table):
        raise typer.BadParameter("give one --f-corpus per --phrase-table", param_hint="--f-corpus")
    if fmt not in ("meteor", "parex"):
        raise typer.BadParameter("'meteor' or 'parex'", param_hint="--format")
    if combine_mode not in COMBINE_MODES:
        raise typer.BadParameter(" or ".join(COMBINE_MODES), param_hint="--combine")
    opts = _pivot_options(min_trans_prob, min_rel_freq, min_final_prob, symbols, memory_mb, tmp_dir, engine, threads,
                          spark_dir)
    t0 = time.perf_counter()
    with library_errors():
        n, stats = pivot_file(phrase_table, f_corpus, e_corpus, target, out, options=opts, fmt=fmt, e_side=e_side,
                              combine_mode=combine_mode, progress=progress and sys.stderr.isatty())
    if n == 0:
        typer.echo("meteor-build: warning: the paraphrase table is empty (see the filters' counts below)", err=True)
    for pt, s in zip(phrase_table, stats):
        typer.echo(f"{pt}: {json.dumps({k: v for k, v in s.as_dict().items() if k != 'sort_chunks'})}", err=True)
    typer.echo(f"{out}: {n} paraphrase pairs in {time.perf_counter() - t0:.1f} s")


def paraphrases_cmd(
    lang: str = typer.Option(..., "--lang", "-l", help="Language to paraphrase."),
    corpus: Path = typer.Option(..., "--corpus", help="Its side of the parallel corpus (plain or gzip)."),
    pivot: List[str] = typer.Option(..., "--pivot", help="LANG=FILE: a pivot language's side, line-aligned with --corpus (repeatable)."),
    out: Path = typer.Option(..., "--out", "-o", help="Bundle to write (atomically).", callback=out_file),
    base: Optional[Path] = typer.Option(None, "--base", help="Copy the other resources (function words, stems, synonyms, prefixes) from this bundle."),
    work_dir: Path = typer.Option(Path("build/paraphrases"), "--work-dir", help="Tokenised corpora and phrase tables (reused)."),
    meteor_file: Optional[Path] = typer.Option(None, "--meteor-file", help="Also write Meteor's paraphrase file (gzipped) here."),
    combine_mode: str = typer.Option("sum", "--combine", help=f"{' or '.join(COMBINE_MODES)} of the pivots' probabilities."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Use only the first N lines."),
    max_phrase_length: int = typer.Option(_B.max_phrase_length, "--max-phrase-length", min=1),
    reuse: bool = typer.Option(True, "--reuse/--rebuild", help="Reuse tokenised corpora and phrase tables in --work-dir."),
    name: Optional[str] = typer.Option(None, "--name", help="Bundle name (default: LANG)."),
    version: str = typer.Option("0.1.0", "--version", help="Bundle version."),
    min_trans_prob: float = _MIN_TP,
    min_rel_freq: float = _MIN_RF,
    min_final_prob: float = _MIN_FINAL,
    symbols: Optional[str] = _SYMBOLS,
    memory_mb: float = _MEMORY,
    tmp_dir: Optional[Path] = _TMP,
    nonbreaking: str = _NB,
    engine: str = _ENGINE,
    threads: int = _THREADS,
    spark_dir: Optional[str] = _SPARK_DIR,
    common_words: str = typer.Option("corpus", "--common-words",
                                      help="Common words for the filter: 'corpus' (Parex: relative frequency in the corpora > --min-rel-freq) or 'meteor' (Meteor 1.5's function-word lists, from the jar)."),
    progress: bool = _PROGRESS,
    keep_probabilities: bool = typer.Option(
        False, "--keep-probabilities",
        help="Also store the pairs' probabilities in the bundle (not used to score; for `export` and `check paraphrases precision`).",
    ),
) -> None:
    """Bitext(s) -> phrase tables -> pivoted, filtered paraphrase table -> bundle, in one command."""
    from meteor_lite.languages import canonical_language

    from ..paraphrases.build import ParaphraseBundle, paraphrase_bundle

    if combine_mode not in COMBINE_MODES:
        raise typer.BadParameter(" or ".join(COMBINE_MODES), param_hint="--combine")
    lang = canonical_language(lang)  # cs -> cz, as the official bundles name Czech
    pivots = [PivotInput(*_lang_file(p, "--pivot")) for p in pivot]
    if lang in {canonical_language(p.lang) for p in pivots}:
        raise typer.BadParameter(f"{lang} is the paraphrased language, not a pivot", param_hint="--pivot")
    if common_words not in ("corpus", "meteor"):
        raise typer.BadParameter("'corpus' or 'meteor'", param_hint="--common-words")
    bopts = BitextOptions(max_phrase_length=max_phrase_length, memory_mb=memory_mb, limit=limit,
                          tmp_dir=str(tmp_dir) if tmp_dir else None)
    job = ParaphraseBundle(
        lang, corpus, pivots, work_dir, bopts, _pivot_options(min_trans_prob, min_rel_freq, min_final_prob, symbols, memory_mb, tmp_dir, engine, threads,
                                                     spark_dir),
        combine_mode=combine_mode, limit=limit, nonbreaking=nonbreaking, common_words=common_words, reuse=reuse,
        meteor_file=meteor_file, base=base, name=name, version=version, keep_probabilities=keep_probabilities,
    )
    t0 = time.perf_counter()
    with library_errors():
        result = paraphrase_bundle(job, out, progress=progress and sys.stderr.isatty())
    for k, v in job.report.items():
        d = v.as_dict() if hasattr(v, "as_dict") else v
        typer.echo(f"{k}: {json.dumps(d, default=str)}", err=True)
    typer.echo(f"{result.summary()} [total {time.perf_counter() - t0:.1f} s]")
