"""``meteor-build function-words``, ``stems``, ``bundle`` and ``compare-function-words``: resources from corpora, wordfreq and wordnets.

Every command writing a bundle takes ``--base BUNDLE`` to copy the resources it
does not build from an existing bundle (``--base`` may be ``--out`` itself: the
bundle is then updated in place, atomically).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import List, Optional

import typer

from ..bundle.inputs import BundleInputs
from . import options as o
from .errors import library_errors, out_file


def build_and_report(inputs: BundleInputs, out: Path, progress: bool) -> None:
    """Build the bundle ``inputs`` describe and print the one-line summary."""
    from ..bundle.inputs import build_from_inputs

    started = time.perf_counter()
    with library_errors():
        res = build_from_inputs(inputs, out, progress=progress)
    typer.echo(f"wrote {res.summary()}; {time.perf_counter() - started:.1f} s in all")


def function_words_cmd(
    lang: str = o.LANG,
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Bundle file to write (atomically).", callback=out_file),
    corpus: List[Path] = o.CORPUS,
    wordfreq: bool = typer.Option(False, "--wordfreq", help="Use wordfreq's frequency list instead of a corpus."),
    threshold: float = o.THRESHOLD,
    max_lines: Optional[int] = o.MAX_LINES,
    corpus_licence: Optional[str] = o.CORPUS_LICENCE,
    nonbreaking: str = o.NONBREAKING,
    print_words: bool = typer.Option(False, "--print", help="Print the words (with frequencies) to stdout."),
    base: Optional[Path] = o.BASE,
    name: Optional[str] = o.NAME,
    version: str = o.VERSION,
    progress: bool = o.PROGRESS,
) -> None:
    """Function words: tokens at relative frequency >= threshold (Denkowski & Lavie 2011).

    Tokens are the scorer's (Meteor's normaliser, lower-cased, punctuation kept).
    """
    if bool(corpus) == wordfreq:
        raise typer.BadParameter("give either --corpus FILE (repeatable) or --wordfreq", param_hint="--corpus")
    if out is None and not print_words:
        raise typer.BadParameter("give --out BUNDLE and/or --print", param_hint="--out")
    if not threshold > 0:
        raise typer.BadParameter("must be > 0", param_hint="--threshold")
    inputs = BundleInputs(
        lang, corpus=corpus, max_lines=max_lines, corpus_licence=corpus_licence, threshold=threshold,
        function_words="wordfreq" if wordfreq else "corpus", nonbreaking=nonbreaking, base=base, name=name, version=version,
    )
    if print_words:
        from ..bundle.inputs import function_words_for

        with library_errors():
            fw = function_words_for(inputs, show_progress=progress)
        assert fw is not None
        for w in fw.words:
            typer.echo(f"{w}\t{fw.frequencies[w]:.6g}")
        if out is None:
            return
    assert out is not None
    build_and_report(inputs, out, progress)


def stems_cmd(
    lang: str = o.LANG,
    out: Path = o.OUT,
    stemmer: Optional[str] = o.STEMMER,
    corpus: List[Path] = o.CORPUS,
    wordfreq: bool = typer.Option(False, "--wordfreq", help="Add the words of wordfreq's list to the vocabulary."),
    wordfreq_top: Optional[int] = o.WF_TOP,
    wordnet: Optional[Path] = o.WORDNET,
    lmf: Optional[Path] = o.LMF,
    lexicon: List[str] = o.LEXICON,
    lmf_language: Optional[str] = o.LMF_LANGUAGE,
    min_count: int = o.MIN_COUNT,
    max_lines: Optional[int] = o.MAX_LINES,
    corpus_licence: Optional[str] = o.CORPUS_LICENCE,
    nonbreaking: str = o.NONBREAKING,
    base: Optional[Path] = o.BASE,
    name: Optional[str] = o.NAME,
    version: str = o.VERSION,
    progress: bool = o.PROGRESS,
    lemmas: Optional[str] = typer.Option(
        None, "--lemmas",
        help="Write a lemma map (forms -> lemma) instead: 'simplemma' (its dictionary for --lang), 'simplemma:CODE', "
        "or a form<TAB>lemma file; map-only, for languages the scorer has no stemmer for.",
    ),
    lemma_licence: str = typer.Option("see the file", "--lemma-licence", help="Licence of the --lemmas file."),
) -> None:
    """Stem map: word -> Snowball stem over corpus / wordfreq / wordnet words; stemmer name and version recorded.

    Only the stem map (and non-breaking prefixes) is written; with --wordnet/--lmf
    their lemmas join the vocabulary but the synonym sets are not stored (use `bundle`).
    With --lemmas the map is a lemma dictionary's (no vocabulary option then).
    """
    if lemmas is not None:
        if corpus or wordfreq or wordnet is not None or lmf is not None or stemmer is not None:
            raise typer.BadParameter("--lemmas takes no vocabulary (--corpus, --wordfreq, --wordnet, --lmf) or --stemmer",
                                     param_hint="--lemmas")
        _lemma_bundle(lang, out, lemmas, lemma_licence, base=base, name=name, version=version, progress=progress)
        return
    o.check_one_wordnet(wordnet, lmf)
    stems_from = (["corpus"] if corpus else []) + (["wordfreq"] if wordfreq else [])
    stems_from += ["synonyms"] if (wordnet is not None or lmf is not None) else []
    if not stems_from:
        raise typer.BadParameter("give a vocabulary: --corpus, --wordfreq, --wordnet and/or --lmf", param_hint="--corpus")
    inputs = BundleInputs(
        lang, corpus=corpus, max_lines=max_lines, corpus_licence=corpus_licence, stems_from=stems_from, stemmer=stemmer,
        wordfreq_top=wordfreq_top, min_count=min_count, wordnet=wordnet, lmf=lmf, lexicons=lexicon,
        lmf_language=lmf_language, nonbreaking=nonbreaking, base=base, name=name, version=version, store_synonyms=False,
    )
    build_and_report(inputs, out, progress)


def _lemma_bundle(lang: str, out: Path, lemmas: str, licence: str, *, base: Optional[Path], name: Optional[str],
                  version: str, progress: bool) -> None:
    """``stems --lemmas``: a bundle whose stem map is a lemma map (:mod:`..lexical.lemmas`)."""
    from ..bundle.pipeline import build_bundle
    from ..bundle.spec import BundleSpec
    from ..lexical.lemmas import lemma_package, lemma_stem_map, load_lemmas

    started = time.perf_counter()
    with library_errors():
        simplemma = lemmas == "simplemma" or lemmas.startswith("simplemma:")
        if simplemma:
            pairs, src, label = load_lemmas(lemmas.partition(":")[2] or lang)
        else:
            pairs, src, label = load_lemmas(path=lemmas, licence=licence)
        package, pver = lemma_package(simplemma)
        sm = lemma_stem_map(pairs, lang, name=label, package=package, version=pver, sources=[src], show_progress=progress)
        spec = BundleSpec(language=lang, name=name, version=version, base=base, stems=sm)
        res = build_bundle(spec, out, progress=progress)
    typer.echo(f"wrote {res.summary()}; {time.perf_counter() - started:.1f} s in all")


def compare_function_words_cmd(
    lang: str = o.LANG,
    corpus: List[Path] = o.CORPUS,
    wordfreq: bool = typer.Option(False, "--wordfreq", help="Use wordfreq's list instead of a corpus."),
    threshold: float = o.THRESHOLD,
    max_lines: Optional[int] = o.MAX_LINES,
    nonbreaking: str = o.NONBREAKING,
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    progress: bool = o.PROGRESS,
) -> None:
    """Overlap of a built function-word list with Meteor 1.5's function/<language>.words."""
    from ..lexical.compare import format_function_word_comparison, function_word_report
    from ..official.release import LANGUAGE_NAMES, meteor_code

    if bool(corpus) == wordfreq:
        raise typer.BadParameter("give either --corpus FILE (repeatable) or --wordfreq", param_hint="--corpus")
    if meteor_code(lang) not in LANGUAGE_NAMES:
        raise typer.BadParameter(f"Meteor 1.5 has no function-word list for {lang!r}", param_hint="--lang")
    inputs = BundleInputs(lang, corpus=corpus, max_lines=max_lines, threshold=threshold, nonbreaking=nonbreaking,
                          function_words="wordfreq" if wordfreq else "corpus")
    with library_errors():
        report = function_word_report(inputs, show_progress=progress)
    typer.echo(json.dumps(report, indent=1, ensure_ascii=False) if as_json else format_function_word_comparison(report))
