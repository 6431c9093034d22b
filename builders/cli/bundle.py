"""``meteor-build bundle``: a bundle from a corpus, wordfreq and/or a wordnet."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from ..bundle.inputs import BundleInputs
from . import options as o
from .errors import fail
from .lexical import build_and_report


def _stem_vocabulary(stems_from: List[o.StemVocabulary], corpus: List[Path], wordfreq: bool, has_syn: bool) -> List[str]:
    """``--stems-from`` checked against the sources given (default: every source given)."""
    if stems_from:
        chosen = [s.value for s in stems_from]
    else:
        chosen = (["corpus"] if corpus else []) + (["wordfreq"] if wordfreq else []) + (["synonyms"] if has_syn else [])
    need = {"corpus": bool(corpus), "wordfreq": True, "synonyms": has_syn}
    for s in chosen:
        if not need[s]:
            raise typer.BadParameter(f"stem vocabulary {s!r} needs its source option", param_hint="--stems-from")
    return chosen


def _check_stemmer(lang: str) -> None:
    """Stop with one line saying what to do when ``lang`` has no Snowball stemmer for the stem map."""
    from ..errors import SourceError
    from ..lexical.stems import snowball_algorithm

    try:
        snowball_algorithm(lang)
    except SourceError as exc:
        raise fail(
            f"{exc}: build without a stem map (--no-stems), name an algorithm (--stemmer NAME), or make a lemma map "
            f"with meteor-build stems --lang {lang} --lemmas simplemma (or --lemmas FORM_LEMMA_FILE) and add it with "
            f"--base; meteor-lite bundle install {lang} builds the shipped recipe's bundle when there is one"
        ) from None


def bundle_cmd(
    lang: str = o.LANG,
    out: Path = o.OUT,
    corpus: List[Path] = o.CORPUS,
    wordfreq: bool = typer.Option(
        False, "--wordfreq", help="Use wordfreq's list: for function words when no corpus is given, and as stem vocabulary."
    ),
    function_words: Optional[o.FunctionWordsFrom] = typer.Option(
        None, "--function-words", help="Where function words come from (default: corpus if given, else wordfreq if --wordfreq)."
    ),
    threshold: float = o.THRESHOLD,
    stems: bool = typer.Option(True, "--stems/--no-stems", help="Build a stem map."),
    stems_from: List[o.StemVocabulary] = typer.Option(
        [], "--stems-from", help="Stem-map vocabulary (repeatable; default: every source given)."
    ),
    stemmer: Optional[str] = o.STEMMER,
    wordfreq_top: Optional[int] = o.WF_TOP,
    min_count: int = o.MIN_COUNT,
    wordnet: Optional[Path] = o.WORDNET,
    wordnet_ids: o.WordnetIds = o.WORDNET_IDS,
    lmf: Optional[Path] = o.LMF,
    lmf_ids: o.LmfIds = o.LMF_IDS,
    lexicon: List[str] = o.LEXICON,
    lmf_language: Optional[str] = o.LMF_LANGUAGE,
    max_lines: Optional[int] = o.MAX_LINES,
    corpus_licence: Optional[str] = o.CORPUS_LICENCE,
    nonbreaking: str = o.NONBREAKING,
    base: Optional[Path] = o.BASE,
    name: Optional[str] = o.NAME,
    version: str = o.VERSION,
    progress: bool = o.PROGRESS,
) -> None:
    """A bundle from a corpus, wordfreq and/or a wordnet: function words, stem map, synonyms, prefixes."""
    o.check_one_wordnet(wordnet, lmf)
    fw = function_words.value if function_words is not None else ("corpus" if corpus else ("wordfreq" if wordfreq else "none"))
    if fw == "corpus" and not corpus:
        raise typer.BadParameter("function words from a corpus need --corpus", param_hint="--function-words")
    chosen = _stem_vocabulary(stems_from, corpus, wordfreq, wordnet is not None or lmf is not None)
    if stems and chosen and stemmer is None:
        _check_stemmer(lang)
    inputs = BundleInputs(
        lang, corpus=corpus, max_lines=max_lines, corpus_licence=corpus_licence, function_words=fw, threshold=threshold,
        stems_from=chosen if stems else [], stemmer=stemmer, wordfreq_top=wordfreq_top, min_count=min_count,
        wordnet=wordnet, wordnet_ids=wordnet_ids.value, lmf=lmf, lmf_ids=lmf_ids.value, lexicons=lexicon,
        lmf_language=lmf_language, nonbreaking=nonbreaking, base=base, name=name, version=version,
    )
    build_and_report(inputs, out, progress)
