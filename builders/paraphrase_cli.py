"""``meteor-build`` commands for paraphrase tables: ``phrase-table``, ``pivot``, ``paraphrases``.

Thin wrappers: each calls one library function (:mod:`.bitext`, :mod:`.pivot`)
and turns its exceptions into a one-line error and exit code 1.  Registered on
the ``meteor-build`` app by :func:`register`.
"""

from __future__ import annotations

import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

import typer

from .bitext import BitextError, BitextOptions, BitextStats, PivotInput, build_phrase_table, paraphrases_from_bitexts
from .moses import PhraseTableError, write_phrase_table
from .pivot import (
    COMBINE_MODES,
    PivotError,
    PivotOptions,
    PivotStats,
    combine,
    pivot_pairs,
    threshold,
    write_meteor_paraphrases,
    write_parex_table,
)

_B = BitextOptions()
_P = PivotOptions()


def _fail(msg: str) -> typer.Exit:
    typer.echo(f"meteor-build: error: {msg}", err=True)
    return typer.Exit(1)


@contextmanager
def _errors() -> Iterator[None]:
    from .inputs import SourceError
    from .official import OfficialReleaseError

    try:
        yield
    except (BitextError, PivotError, PhraseTableError, SourceError, OfficialReleaseError, OSError) as exc:
        raise _fail(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise _fail(f"invalid UTF-8 ({exc})") from None


def _lang_file(spec: str, what: str) -> Tuple[str, str]:
    lang, sep, path = spec.partition("=")
    if not sep or not lang or not path:
        raise typer.BadParameter(f"expected LANG=FILE, got {spec!r}", param_hint=what)
    return lang, path


def _nonbreaking(lang: str, mode: str) -> Optional[Dict[str, bool]]:
    """Non-breaking prefixes for the normaliser: Meteor's list for the language (``official``) or none."""
    if mode == "none":
        return None
    from .official import read_nonbreaking_prefixes

    code = {"cs": "cz"}.get(lang, lang)
    try:
        return read_nonbreaking_prefixes(code)
    except Exception:  # no list for this language in the release
        return None


def _pivot_options(min_trans_prob: float, min_rel_freq: float, min_final_prob: float, symbols: Optional[str],
                   memory_mb: float, tmp_dir: Optional[Path]) -> PivotOptions:
    return PivotOptions(min_trans_prob=min_trans_prob, min_rel_freq=min_rel_freq, min_final_prob=min_final_prob,
                        symbols=_P.symbols if symbols is None else symbols, memory_mb=memory_mb,
                        tmp_dir=str(tmp_dir) if tmp_dir else None)


_MIN_TP = typer.Option(_P.min_trans_prob, "--min-trans-prob", help="Keep a pivot's p(e2|f)p(f|e1) when >= this (Parex minTP).")
_MIN_RF = typer.Option(_P.min_rel_freq, "--min-rel-freq", help="A word is common when its relative frequency is > this (Parex minRF).")
_MIN_FINAL = typer.Option(_P.min_final_prob, "--min-final-prob", help="Keep a pair when its probability is >= this (Parex minFinalP).")
_SYMBOLS = typer.Option(None, "--symbols", help="Characters that disqualify a phrase (default: ASCII punctuation, as Parex).")
_MEMORY = typer.Option(_P.memory_mb, "--memory-mb", help="In-memory chunk of each external sort, in MiB.")
_TMP = typer.Option(None, "--tmp-dir", help="Directory for temporary sort files.")
_PROGRESS = typer.Option(True, "--progress/--no-progress", help="Progress bars (only on a terminal).")
_NB = typer.Option("official", "--nonbreaking", help="Non-breaking prefixes for tokenising: 'official' (Meteor's list) or 'none'.")


def register(app: typer.Typer) -> None:
    """Add the paraphrase commands to the ``meteor-build`` app."""

    @app.command("phrase-table")
    def phrase_table_cmd(
        src: Path = typer.Option(..., "--src", help="Source side of the bitext (plain or gzip), e.g. the pivot language."),
        src_lang: str = typer.Option(..., "--src-lang", help="Language code of --src (for the normaliser)."),
        tgt: Path = typer.Option(..., "--tgt", help="Target side, line-aligned with --src."),
        tgt_lang: str = typer.Option(..., "--tgt-lang", help="Language code of --tgt."),
        out: Path = typer.Option(..., "--out", "-o", help="Moses phrase table to write (gzip when it ends in .gz)."),
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
        opts = BitextOptions(max_phrase_length=max_phrase_length, max_sentence_length=max_sentence_length,
                             memory_mb=memory_mb, limit=limit, tmp_dir=str(tmp_dir) if tmp_dir else None)
        st = BitextStats()
        t0 = time.perf_counter()
        show = progress and sys.stderr.isatty()
        tmp = out.with_name(out.name + ".tmp" + (".gz" if out.name.endswith(".gz") else ""))
        out.parent.mkdir(parents=True, exist_ok=True)
        with _errors():
            try:
                n = write_phrase_table(tmp, build_phrase_table(
                    src, tgt, src_lang, tgt_lang, options=opts, src_nonbreaking=_nonbreaking(src_lang, nonbreaking),
                    tgt_nonbreaking=_nonbreaking(tgt_lang, nonbreaking), stats=st, progress=show))
                tmp.replace(out)
            finally:
                tmp.unlink(missing_ok=True)
        skipped = st.skipped_empty + st.skipped_long
        typer.echo(f"{out}: {n} phrase pairs from {st.used} of {st.lines} sentence pairs "
                   f"({skipped} skipped: {st.skipped_empty} empty, {st.skipped_long} too long) "
                   f"in {time.perf_counter() - t0:.1f} s")

    @app.command("pivot")
    def pivot_cmd(
        phrase_table: List[Path] = typer.Option(..., "--phrase-table", "-t",
                                                help="Moses table, source = pivot F, target = E (repeat for several pivots)."),
        f_corpus: List[Path] = typer.Option(..., "--f-corpus", help="Pivot-language corpus for common words (one per table)."),
        e_corpus: Path = typer.Option(..., "--e-corpus", help="Corpus of the paraphrased language, for common words."),
        target: Path = typer.Option(..., "--target", help="Keep only phrases that occur in this (tokenised) text."),
        out: Path = typer.Option(..., "--out", "-o", help="Paraphrase table to write."),
        fmt: str = typer.Option("meteor", "--format", help="'meteor' (3-line groups, gzipped: Meteor's paraphrase file) or 'parex' (e1 ||| e2 ||| p)."),
        e_side: str = typer.Option("tgt", "--e-side", help="Which side of the tables is E: 'tgt' (Parex's convention) or 'src'."),
        combine_mode: str = typer.Option("sum", "--combine", help=f"Several tables: {' or '.join(COMBINE_MODES)} of their probabilities."),
        min_trans_prob: float = _MIN_TP,
        min_rel_freq: float = _MIN_RF,
        min_final_prob: float = _MIN_FINAL,
        symbols: Optional[str] = _SYMBOLS,
        memory_mb: float = _MEMORY,
        tmp_dir: Optional[Path] = _TMP,
        progress: bool = _PROGRESS,
    ) -> None:
        """Paraphrases by pivoting Moses phrase table(s), as Meteor's Parex does (streamed, external memory)."""
        if len(f_corpus) != len(phrase_table):
            raise typer.BadParameter("give one --f-corpus per --phrase-table", param_hint="--f-corpus")
        if fmt not in ("meteor", "parex"):
            raise typer.BadParameter("'meteor' or 'parex'", param_hint="--format")
        if combine_mode not in COMBINE_MODES:
            raise typer.BadParameter(" or ".join(COMBINE_MODES), param_hint="--combine")
        opts = _pivot_options(min_trans_prob, min_rel_freq, min_final_prob, symbols, memory_mb, tmp_dir)
        show = progress and sys.stderr.isatty()
        t0 = time.perf_counter()
        out.parent.mkdir(parents=True, exist_ok=True)
        with _errors():
            stats = [PivotStats() for _ in phrase_table]
            streams = [pivot_pairs(pt, fc, e_corpus, target, opts, stats=s, progress=show, e_side=e_side)
                       for pt, fc, s in zip(phrase_table, f_corpus, stats)]
            rows = threshold(streams[0] if len(streams) == 1 else combine(streams, combine_mode), opts.min_final_prob)
            n = (write_meteor_paraphrases if fmt == "meteor" else write_parex_table)(out, rows)
        if n == 0:
            typer.echo("meteor-build: warning: the paraphrase table is empty (see the filters' counts below)", err=True)
        for pt, s in zip(phrase_table, stats):
            typer.echo(f"{pt}: {json.dumps({k: v for k, v in s.as_dict().items() if k != 'sort_chunks'})}", err=True)
        typer.echo(f"{out}: {n} paraphrase pairs in {time.perf_counter() - t0:.1f} s")

    @app.command("paraphrases")
    def paraphrases_cmd(
        lang: str = typer.Option(..., "--lang", "-l", help="Language to paraphrase."),
        corpus: Path = typer.Option(..., "--corpus", help="Its side of the parallel corpus (plain or gzip)."),
        pivot: List[str] = typer.Option(..., "--pivot", help="LANG=FILE: a pivot language's side, line-aligned with --corpus (repeatable)."),
        out: Path = typer.Option(..., "--out", "-o", help="Bundle to write (atomically)."),
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
        common_words: str = typer.Option("corpus", "--common-words",
                                          help="Common words for the filter: 'corpus' (Parex: relative frequency in the corpora > --min-rel-freq) or 'meteor' (Meteor 1.5's function-word lists, from the jar)."),
        progress: bool = _PROGRESS,
    ) -> None:
        """Bitext(s) -> phrase tables -> pivoted, filtered paraphrase table -> bundle, in one command."""
        from .compose import Paraphrases, build_bundle
        from .inputs import file_source

        if combine_mode not in COMBINE_MODES:
            raise typer.BadParameter(" or ".join(COMBINE_MODES), param_hint="--combine")
        pivots = [PivotInput(*_lang_file(p, "--pivot")) for p in pivot]
        if lang in {p.lang for p in pivots}:
            raise typer.BadParameter(f"{lang} is the paraphrased language, not a pivot", param_hint="--pivot")
        bopts = BitextOptions(max_phrase_length=max_phrase_length, memory_mb=memory_mb, limit=limit,
                              tmp_dir=str(tmp_dir) if tmp_dir else None)
        popts = _pivot_options(min_trans_prob, min_rel_freq, min_final_prob, symbols, memory_mb, tmp_dir)
        show = progress and sys.stderr.isatty()
        t0 = time.perf_counter()
        report: Dict[str, object] = {}
        with _errors():
            nb = {code: _nonbreaking(code, nonbreaking) for code in [lang] + [p.lang for p in pivots]}
            if common_words not in ("corpus", "meteor"):
                raise typer.BadParameter("'corpus' or 'meteor'", param_hint="--common-words")
            cw = {c: _meteor_function_words(c) for c in nb} if common_words == "meteor" else None
            rows = paraphrases_from_bitexts(lang, corpus, pivots, work_dir, bitext_options=bopts, pivot_options=popts,
                                            combine_mode=combine_mode, nonbreaking=nb, reuse=reuse, progress=show,
                                            report=report, common_words=cw)
            if meteor_file is not None:
                meteor_file.parent.mkdir(parents=True, exist_ok=True)
                rows = _tee_meteor_file(rows, meteor_file)
            params = {
                "method": "bitext -> eflomal + grow-diag-final-and -> phrase tables -> Parex-style pivot",
                "pivots": [p.lang for p in pivots], "combine": combine_mode, "limit": limit,
                "max_phrase_length": max_phrase_length, "min_trans_prob": popts.min_trans_prob,
                "min_rel_freq": popts.min_rel_freq, "min_final_prob": popts.min_final_prob, "symbols": popts.symbols,
                "aligner": "eflomal " + _version("eflomal"), "common_words": common_words,
            }
            sources = [file_source(corpus, kind="parallel-corpus", description=f"{lang} side of the parallel corpus",
                                   licence="see the corpus", name=f"corpus.{lang}")]
            sources += [file_source(p.path, kind="parallel-corpus", description=f"{p.lang} side (pivot)",
                                    licence="see the corpus", name=f"corpus.{p.lang}") for p in pivots]
            result = build_bundle(lang, out, paraphrases=Paraphrases(rows, sources, params), base=base,
                                  name=name, version=version)
        for k, v in report.items():
            d = v.as_dict() if hasattr(v, "as_dict") else v
            typer.echo(f"{k}: {json.dumps(d, default=str)}", err=True)
        typer.echo(f"{result.summary()} [total {time.perf_counter() - t0:.1f} s]")


def _meteor_function_words(lang: str) -> set:
    """Meteor 1.5's function-word list for ``lang`` (``function/<language>.words`` in the jar)."""
    from .official import LANGUAGE_NAMES, OfficialReleaseError, read_jar_text

    name = LANGUAGE_NAMES.get({"cs": "cz"}.get(lang, lang))
    words = set(read_jar_text(f"function/{name}.words").split()) if name else set()
    if not words:
        raise OfficialReleaseError(f"Meteor 1.5 has no function-word list for {lang!r}: use --common-words corpus")
    return words


def _tee_meteor_file(rows, path: Path):
    """Pass rows through while writing them to Meteor's paraphrase file format."""
    import gzip

    with gzip.open(path, "wt", encoding="utf-8", newline="\n") as out:
        for e1, e2, p in rows:
            out.write(f"{p!r}\n{e1}\n{e2}\n")
            yield e1, e2, p


def _version(pkg: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(pkg)
    except PackageNotFoundError:
        return "?"
