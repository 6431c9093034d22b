"""A bundle from corpora, wordfreq and/or a wordnet (``meteor-build bundle``, ``function-words``, ``stems``, ``synonyms``).

:class:`BundleInputs` holds the command-line choices; :func:`inputs_spec` reads
the sources and builds each resource into a :class:`~.spec.BundleSpec`, which
:func:`build_from_inputs` hands to the one pipeline.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from meteor_lite.errors import MeteorLiteWarning

from ..errors import OfficialReleaseError
from ..lexical.function_words import FunctionWords, TokenCounts
from ..lexical.nonbreaking import NonbreakingPrefixes
from ..lexical.stems import StemMap, VocabularyPart
from ..synonyms.wndb import Synonyms
from .pipeline import build_bundle
from .spec import DEFAULT_VERSION, BuildResult, BundleSpec, Paraphrases

__all__ = ["BundleInputs", "resolve_nonbreaking", "function_words_of", "function_words_for", "inputs_spec", "build_from_inputs"]


@dataclass
class BundleInputs:
    """What to build a bundle from (the options of ``meteor-build bundle`` and its siblings).

    ``function_words``: ``corpus``, ``wordfreq`` or ``none``; ``stems_from``: any of
    ``corpus``, ``wordfreq``, ``synonyms`` (empty: no stem map); ``nonbreaking``:
    ``auto``, ``official``, ``none`` or a prefixes file.  With ``store_synonyms=False``
    a wordnet only feeds the stem vocabulary.
    """

    language: str
    corpus: List[Path] = field(default_factory=list)
    max_lines: Optional[int] = None
    corpus_licence: Optional[str] = None
    function_words: str = "none"
    threshold: float = 1e-3
    stems_from: List[str] = field(default_factory=list)
    stemmer: Optional[str] = None
    wordfreq_top: Optional[int] = None
    min_count: int = 1
    wordnet: Optional[Path] = None
    wordnet_ids: str = "offset"
    lmf: Optional[Path] = None
    lmf_ids: str = "ordinal"
    lexicons: List[str] = field(default_factory=list)
    lmf_language: Optional[str] = None
    thesaurus: Optional[Path] = None
    thesaurus_licence: str = "see the thesaurus' copyright file"
    max_set_size: int = 40
    thesaurus_paraphrases: bool = True
    nonbreaking: str = "auto"
    base: Optional[Path] = None
    name: Optional[str] = None
    version: str = DEFAULT_VERSION
    store_synonyms: bool = True


def resolve_nonbreaking(choice: str, lang: str) -> Optional[NonbreakingPrefixes]:
    """``auto`` | ``official`` | ``none`` | a prefixes file -> the prefixes (``auto``: a warning when the release is missing)."""
    from ..lexical.nonbreaking import read_nonbreaking_file
    from ..official.release import official_nonbreaking

    if choice == "none":
        return None
    if choice in ("auto", "official"):
        try:
            return official_nonbreaking(lang)
        except OfficialReleaseError as exc:
            if choice == "official":
                raise
            warnings.warn(f"no non-breaking prefixes ({exc})", MeteorLiteWarning, stacklevel=2)
            return None
    return read_nonbreaking_file(choice)


def function_words_of(
    inputs: BundleInputs, prefixes: Dict[str, bool], counts: Optional[TokenCounts] = None, show_progress: bool = True
) -> Optional[FunctionWords]:
    """The function words ``inputs`` ask for (from the corpus or wordfreq), or None."""
    from ..lexical.function_words import function_words_from_corpus, function_words_from_wordfreq

    if inputs.function_words == "corpus":
        return function_words_from_corpus(
            inputs.corpus, inputs.language, threshold=inputs.threshold, nonbreaking=prefixes, counts=counts,
            licence=inputs.corpus_licence, max_lines=inputs.max_lines, show_progress=show_progress,
        )
    if inputs.function_words == "wordfreq":
        return function_words_from_wordfreq(inputs.language, threshold=inputs.threshold, nonbreaking=prefixes,
                                            show_progress=show_progress)
    return None


def function_words_for(inputs: BundleInputs, *, show_progress: bool = True) -> Optional[FunctionWords]:
    """The function words ``inputs`` ask for, with their non-breaking prefixes resolved (for printing or comparing)."""
    nb = resolve_nonbreaking(inputs.nonbreaking, inputs.language)
    return function_words_of(inputs, nb.prefixes if nb is not None else {}, show_progress=show_progress)


def _thesaurus_resources(inputs: BundleInputs, prefixes: Dict[str, bool], fw: Optional[FunctionWords],
                         sm: Optional[StemMap], show_progress: bool) -> Tuple[Synonyms, Optional[Paraphrases]]:
    """Synonym sets (and paraphrases) from ``inputs.thesaurus``, without function words, with inflection links from
    the stem map built here or, failing that, the base bundle's (the recipe builder does the same)."""
    import sqlite3

    from ..paraphrases.thesaurus import thesaurus_pairs
    from ..synonyms.inflections import inflection_exceptions
    from ..synonyms.mythes import read_mythes

    assert inputs.thesaurus is not None
    t = read_mythes(inputs.thesaurus, inputs.language, nonbreaking=prefixes, licence=inputs.thesaurus_licence,
                    show_progress=show_progress)
    syn = t.synonyms(max_set_size=inputs.max_set_size)
    fwords = set(fw.words) if fw is not None else set()
    pairs: List[Tuple[str, str]] = list(sm.pairs) if sm is not None else []
    if inputs.base is not None and (not fwords or not pairs):
        with sqlite3.connect(f"{Path(inputs.base).resolve().as_uri()}?mode=ro", uri=True) as conn:
            if not fwords:
                fwords = {w for (w,) in conn.execute("SELECT word FROM function_words")}
            if not pairs:
                pairs = list(conn.execute("SELECT word, stem FROM stems"))
    if sm is not None:
        sm.pairs = pairs
    by_id: Dict[int, List[str]] = {}
    for w, i in syn.synsets:
        if w not in fwords:
            by_id.setdefault(i, []).append(w)
    syn.synsets = sorted((w, i) for i, ws in by_id.items() if len(ws) >= 2 for w in ws)
    exc, counts = inflection_exceptions(syn.words(), pairs, unlinked=fwords)
    syn.exceptions = exc
    syn.params.update({"function_words_dropped": len(fwords), "inflections": counts, "pairs": len(syn.synsets)})
    para = None
    if inputs.thesaurus_paraphrases:
        rows, pcounts = thesaurus_pairs(t, function_words=fwords, max_set_size=inputs.max_set_size)
        para = Paraphrases(rows=rows, sources=[t.source], params={"source": "mythes", **pcounts})
    return syn, para


def _synonyms(inputs: BundleInputs, show_progress: bool) -> Optional[Synonyms]:
    if inputs.wordnet is not None:
        from ..synonyms.wndb import read_wndb

        return read_wndb(inputs.wordnet, id_scheme=inputs.wordnet_ids, show_progress=show_progress)
    if inputs.lmf is not None:
        from ..synonyms.lmf import lmf_language_filter, read_lmf

        return read_lmf(
            inputs.lmf, lexicons=inputs.lexicons or None, id_scheme=inputs.lmf_ids, show_progress=show_progress,
            language=lmf_language_filter(inputs.language, inputs.lmf_language, inputs.lexicons),
        )
    return None


def _stems(inputs: BundleInputs, algorithm: str, counts: Optional[TokenCounts], syn: Optional[Synonyms],
           prefixes: Dict[str, bool], show_progress: bool) -> StemMap:
    from ..lexical.lemmas import SNOWBALL3_ONLY, pystemmer_map_from
    from ..lexical.stems import corpus_part, stem_map_from, synonyms_part, wordfreq_part

    parts: List[VocabularyPart] = []
    if "corpus" in inputs.stems_from:
        assert counts is not None
        parts.append(corpus_part(counts, inputs.min_count))
    if "wordfreq" in inputs.stems_from:
        parts.append(wordfreq_part(inputs.language, top_n=inputs.wordfreq_top, nonbreaking=prefixes, show_progress=show_progress))
    if "synonyms" in inputs.stems_from:
        assert syn is not None
        parts.append(synonyms_part(syn))
    if algorithm in SNOWBALL3_ONLY:  # a Snowball 3 algorithm the scorer's snowballstemmer lacks: map-only, PyStemmer's
        return pystemmer_map_from(parts, algorithm, inputs.language, show_progress=show_progress)
    return stem_map_from(parts, algorithm, show_progress=show_progress)


def inputs_spec(inputs: BundleInputs, *, show_progress: bool = True) -> BundleSpec:
    """Read the sources ``inputs`` name and build each resource: the :class:`~.spec.BundleSpec` of the bundle."""
    from ..lexical.function_words import count_tokens
    from ..lexical.stems import snowball_algorithm

    lang = inputs.language
    algorithm = (inputs.stemmer or snowball_algorithm(lang)) if inputs.stems_from else None  # fail before reading anything
    nb = resolve_nonbreaking(inputs.nonbreaking, lang)
    prefixes = nb.prefixes if nb is not None else {}
    counts = None
    if inputs.corpus and (inputs.function_words == "corpus" or "corpus" in inputs.stems_from):
        counts = count_tokens(inputs.corpus, lang, nonbreaking=prefixes, max_lines=inputs.max_lines, show_progress=show_progress)
    fw = function_words_of(inputs, prefixes, counts, show_progress)
    syn = _synonyms(inputs, show_progress)
    sm = _stems(inputs, algorithm, counts, syn, prefixes, show_progress) if algorithm is not None else None
    para = None
    if inputs.thesaurus is not None:
        syn, para = _thesaurus_resources(inputs, prefixes, fw, sm, show_progress)
    return BundleSpec(
        language=lang, name=inputs.name, version=inputs.version or DEFAULT_VERSION, base=inputs.base,
        function_words=fw, stems=sm, synonyms=syn if inputs.store_synonyms else None, nonbreaking=nb, paraphrases=para,
    )


def build_from_inputs(inputs: BundleInputs, out: "os.PathLike[str] | str", *, progress: bool = True) -> BuildResult:
    """Build the bundle ``inputs`` describe at ``out`` (atomically) through the one pipeline."""
    return build_bundle(inputs_spec(inputs, show_progress=progress), out, progress=progress)
