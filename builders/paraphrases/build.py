"""The paraphrase commands' library entry points: a phrase table file, a pivoted table file, a paraphrase bundle.

Each writes its output atomically (a temporary file moved into place, or the
bundle pipeline) and returns what the command reports.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from ..bundle.pipeline import build_bundle
from ..bundle.spec import BuildResult, BundleSpec, Paraphrases
from ..errors import InvalidParameterError
from ..official.release import meteor_function_words, package_version, tokenising_prefixes
from ..sources import file_source
from .bitext import BitextOptions, BitextStats, PivotInput, build_phrase_table, paraphrases_from_bitexts
from .moses import write_phrase_table
from .pivot import PivotOptions, PivotStats, combine, pivot_pairs, threshold, write_meteor_paraphrases, write_parex_table

__all__ = ["phrase_table_file", "pivot_file", "ParaphraseBundle", "paraphrase_bundle"]

Row = Tuple[str, str, float]


def phrase_table_file(src: Path, tgt: Path, src_lang: str, tgt_lang: str, out: Path, *, options: BitextOptions,
                      nonbreaking: str = "official", progress: bool = False) -> Tuple[int, BitextStats]:
    """Write the Moses phrase table of a bitext at ``out`` (atomically); return (pairs written, statistics)."""
    st = BitextStats()
    tmp = out.with_name(out.name + ".tmp" + (".gz" if out.name.endswith(".gz") else ""))
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        n = write_phrase_table(tmp, build_phrase_table(
            src, tgt, src_lang, tgt_lang, options=options, src_nonbreaking=tokenising_prefixes(src_lang, nonbreaking),
            tgt_nonbreaking=tokenising_prefixes(tgt_lang, nonbreaking), stats=st, progress=progress))
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return n, st


def pivot_file(phrase_tables: List[Path], f_corpora: List[Path], e_corpus: Path, target: Path, out: Path, *,
               options: PivotOptions, fmt: str = "meteor", e_side: str = "tgt", combine_mode: str = "sum",
               progress: bool = False) -> Tuple[int, List[PivotStats]]:
    """Pivot the phrase tables (one per pivot language) into a paraphrase table at ``out``; return (pairs, statistics)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    stats = [PivotStats() for _ in phrase_tables]
    streams = [pivot_pairs(pt, fc, e_corpus, target, options.shared_by(len(phrase_tables)), stats=s, progress=progress,
                           e_side=e_side)
               for pt, fc, s in zip(phrase_tables, f_corpora, stats)]
    rows = threshold(streams[0] if len(streams) == 1 else combine(streams, combine_mode), options.min_final_prob)
    n = (write_meteor_paraphrases if fmt == "meteor" else write_parex_table)(out, rows)
    return n, stats


def _tee_meteor_file(rows: Iterable[Row], path: Path) -> Iterator[Row]:
    """Pass rows through while writing them to Meteor's paraphrase file format."""
    with gzip.open(path, "wt", encoding="utf-8", newline="\n") as out:
        for e1, e2, p in rows:
            out.write(f"{p!r}\n{e1}\n{e2}\n")
            yield e1, e2, p


@dataclass
class ParaphraseBundle:
    """What ``meteor-build paraphrases`` builds: the paraphrased language, its corpus and the pivots."""

    lang: str
    corpus: Path
    pivots: List[PivotInput]
    work_dir: Path
    bitext_options: BitextOptions
    pivot_options: PivotOptions
    combine_mode: str = "sum"
    limit: Optional[int] = None
    nonbreaking: str = "official"
    common_words: str = "corpus"  # corpus | meteor
    reuse: bool = True
    meteor_file: Optional[Path] = None
    base: Optional[Path] = None
    name: Optional[str] = None
    version: str = "0.1.0"
    keep_probabilities: bool = False
    report: Dict[str, object] = field(default_factory=dict)


def _params(b: ParaphraseBundle) -> Dict[str, object]:
    popts = b.pivot_options
    return {
        "method": "bitext -> eflomal + grow-diag-final-and -> phrase tables -> Parex-style pivot",
        "pivots": [p.lang for p in b.pivots], "combine": b.combine_mode, "limit": b.limit,
        "max_phrase_length": b.bitext_options.max_phrase_length, "min_trans_prob": popts.min_trans_prob,
        "min_rel_freq": popts.min_rel_freq, "min_final_prob": popts.min_final_prob, "symbols": popts.symbols,
        "aligner": "eflomal " + package_version("eflomal", "?"), "common_words": b.common_words,
    }


def paraphrase_bundle(b: ParaphraseBundle, out: Path, *, progress: bool = False) -> BuildResult:
    """Bitext(s) -> phrase tables -> pivoted, filtered paraphrase table -> a bundle at ``out``.

    The statistics of every step go to ``b.report``.
    """
    # a language without prefixes maps to None (the normaliser's own default), as paraphrases_from_bitexts accepts
    nb: Dict[str, Any] = {code: tokenising_prefixes(code, b.nonbreaking) for code in [b.lang] + [p.lang for p in b.pivots]}
    if b.common_words not in ("corpus", "meteor"):
        raise InvalidParameterError(f"common words: 'corpus' or 'meteor', not {b.common_words!r}")
    cw = {c: meteor_function_words(c) for c in nb} if b.common_words == "meteor" else None
    rows: Iterable[Row] = paraphrases_from_bitexts(
        b.lang, b.corpus, b.pivots, b.work_dir, bitext_options=b.bitext_options, pivot_options=b.pivot_options,
        combine_mode=b.combine_mode, nonbreaking=nb, reuse=b.reuse, progress=progress, report=b.report, common_words=cw,
    )
    if b.meteor_file is not None:
        b.meteor_file.parent.mkdir(parents=True, exist_ok=True)
        rows = _tee_meteor_file(rows, b.meteor_file)
    sources = [file_source(b.corpus, kind="parallel-corpus", description=f"{b.lang} side of the parallel corpus",
                           licence="see the corpus", name=f"corpus.{b.lang}")]
    sources += [file_source(p.path, kind="parallel-corpus", description=f"{p.lang} side (pivot)",
                            licence="see the corpus", name=f"corpus.{p.lang}") for p in b.pivots]
    spec = BundleSpec(language=b.lang, paraphrases=Paraphrases(rows, sources, _params(b)), base=b.base,
                      name=b.name, version=b.version, keep_probabilities=b.keep_probabilities)
    return build_bundle(spec, out)
