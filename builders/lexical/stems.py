"""Stem maps: word -> stem over a vocabulary, made with a Snowball stemmer.

The scorer looks a word up in the bundle's stem map first and runs its own
stemmer only for words the map lacks, so a map built here keeps scores
reproducible whatever ``snowballstemmer`` is installed at run time; the bundle
records the stemmer's name and version (:meth:`BundleWriter.set_stemmer`) and
the scorer warns when the installed version differs.

The stemmer is always the pure-Python ``snowballstemmer`` class of the
algorithm (``snowballstemmer.stemmer()`` silently switches to PyStemmer, a
different Snowball release, when that is installed).

Vocabularies (sets of tokens as the scorer sees them, i.e. after
:func:`meteor_lite.text.normalize.prepare` with ``norm=True, lower=True``):

* :func:`corpus_vocabulary` -- the tokens of a corpus (:func:`.function_words.count_tokens`);
* :func:`wordfreq_vocabulary` -- the tokens of wordfreq's list for the language;
* :func:`lexicon_vocabulary` -- the one-word lemmas and exception forms of synonym sets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _pkg_version
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from meteor_lite.languages import LANGUAGE_ALIASES, LANGUAGES, SNOWBALL_BY_CODE
from meteor_lite.resources.stemming import snowball_classes
from meteor_lite.text.normalize import prepare

from ..errors import SourceError
from ..sources import Source, progress, unique_sources

__all__ = [
    "STEMMER_PACKAGE",
    "StemmerInfo",
    "StemMap",
    "snowball_algorithms",
    "snowball_algorithm",
    "make_stemmer",
    "make_stem_map",
    "corpus_vocabulary",
    "wordfreq_vocabulary",
    "lexicon_vocabulary",
    "VocabularyPart",
    "corpus_part",
    "wordfreq_part",
    "synonyms_part",
    "stem_map_from",
]

STEMMER_PACKAGE = "snowballstemmer"

#: ISO 639-1 codes (and other spellings) of the Snowball algorithms, beyond Meteor's languages:
#: the scorer's own table, so that stem maps and the scorer's fallback stemmer agree.
_SNOWBALL_BY_CODE: Dict[str, str] = {**SNOWBALL_BY_CODE, **{c: n for c, (_, n) in LANGUAGES.items() if n}}


@dataclass(frozen=True)
class StemmerInfo:
    """Which stemmer made a stem map (recorded in the bundle's ``stemmer`` meta key)."""

    algorithm: str
    package: str = STEMMER_PACKAGE
    version: str = ""


@dataclass
class StemMap:
    """``(word, stem)`` pairs sorted by word, with the stemmer and what the vocabulary came from."""

    pairs: Iterable[Tuple[str, str]]  # a list, or rows computed when the bundle is written
    stemmer: StemmerInfo
    sources: List[Source] = field(default_factory=list)
    params: Dict[str, object] = field(default_factory=dict)


def _pure_python_classes() -> Dict[str, type]:
    return snowball_classes()


def snowball_algorithms() -> List[str]:
    """Names of the pure-Python Snowball algorithms installed (e.g. ``english``, ``porter``)."""
    return sorted(_pure_python_classes())


def stemmer_version() -> str:
    """Installed ``snowballstemmer`` version."""
    try:
        return _pkg_version(STEMMER_PACKAGE)
    except PackageNotFoundError:  # pragma: no cover
        return "unknown"


def snowball_algorithm(lang: str) -> str:
    """The Snowball algorithm for a language code (or an algorithm name given as is).

    Meteor's languages use the scorer's own choice (:data:`meteor_lite.languages.LANGUAGES`),
    so the map and the scorer's fallback stemmer agree.  Raises
    :class:`SourceError` when there is none (give an algorithm explicitly then).
    """
    available = _pure_python_classes()
    if lang in available:
        return lang
    code = LANGUAGE_ALIASES.get(lang, lang)
    if code in LANGUAGES:
        name = LANGUAGES[code][1]
        if name is None or name not in available:
            raise SourceError(
                f"the scorer has no stemmer for language {lang!r}; pass a Snowball algorithm explicitly "
                f"(one of: {', '.join(sorted(available))})"
            )
        return name
    name = _SNOWBALL_BY_CODE.get(lang)
    if name is None or name not in available:
        raise SourceError(
            f"snowballstemmer {stemmer_version()} has no stemmer for {lang!r} "
            f"(algorithms: {', '.join(sorted(available))})"
        )
    return name


def make_stemmer(algorithm: str) -> Callable[[List[str]], List[str]]:
    """``stemWords`` of the pure-Python Snowball ``algorithm``."""
    classes = _pure_python_classes()
    if algorithm not in classes:
        raise SourceError(
            f"snowballstemmer {stemmer_version()} has no {algorithm!r} algorithm "
            f"(algorithms: {', '.join(sorted(classes))})"
        )
    return classes[algorithm]().stemWords


def make_stem_map(
    vocabulary: Iterable[str],
    algorithm: str,
    *,
    sources: Sequence[Source] = (),
    vocabulary_params: Optional[Mapping[str, object]] = None,
    show_progress: bool = True,
    chunk: int = 20_000,
) -> StemMap:
    """Stem every word of ``vocabulary`` (empty strings dropped) with Snowball ``algorithm``.

    Every word is kept, also those that are their own stem: the map pins the
    stems of the recorded stemmer version.
    """
    stem_words = make_stemmer(algorithm)
    words = sorted({w for w in vocabulary if w})
    pairs: List[Tuple[str, str]] = []
    with progress(show_progress and len(words) > chunk, total=len(words), unit="word", unit_scale=True, desc="stemming") as bar:
        for i in range(0, len(words), chunk):
            part = words[i : i + chunk]
            pairs.extend(zip(part, stem_words(part)))
            bar.update(len(part))
    info = StemmerInfo(algorithm=algorithm, package=STEMMER_PACKAGE, version=stemmer_version())
    params: Dict[str, object] = {
        "stemmer": {"algorithm": algorithm, "package": STEMMER_PACKAGE, "version": info.version},
        "words": len(pairs),
        "changed": sum(1 for w, s in pairs if w != s),
    }
    if vocabulary_params:
        params["vocabulary"] = dict(vocabulary_params)
    return StemMap(pairs=pairs, stemmer=info, sources=list(sources), params=params)


# -- vocabularies -----------------------------------------------------------------


def corpus_vocabulary(counts: "object", min_count: int = 1) -> Set[str]:
    """Tokens of a :class:`.function_words.TokenCounts` seen at least ``min_count`` times."""
    c = counts.counts  # type: ignore[attr-defined]
    return {w for w, n in c.items() if n >= min_count}


def wordfreq_vocabulary(
    lang: str,
    *,
    top_n: Optional[int] = None,
    nonbreaking: Optional[Mapping[str, bool]] = None,
    wordlist: str = "best",
    show_progress: bool = True,
) -> Tuple[Set[str], Source]:
    """Tokens (scorer tokenisation) of the ``top_n`` most frequent words of wordfreq's list (all if None)."""
    from .function_words import wordfreq_frequencies

    freqs, src = wordfreq_frequencies(lang, wordlist)
    items = sorted(freqs.items(), key=lambda wf: (-wf[1], wf[0]))
    if top_n is not None:
        items = items[:top_n]
    nb = dict(nonbreaking or {})
    vocab: Set[str] = set()
    with progress(show_progress, total=len(items), unit="word", unit_scale=True, desc="wordfreq vocabulary") as bar:
        for i, (word, _f) in enumerate(items, 1):
            vocab.update(prepare(word, lang, norm=True, lower=True, nonbreaking=nb))
            if i % 20_000 == 0:
                bar.update(20_000)
        bar.update(len(items) % 20_000)
    return vocab, src


def lexicon_vocabulary(synsets: Iterable[Tuple[str, int]], exceptions: Iterable[Tuple[str, str]] = ()) -> Set[str]:
    """One-token words of synonym sets (no ``_`` or space) and of their exception pairs."""
    vocab = {w for w, _ in synsets if "_" not in w and " " not in w}
    for form, base in exceptions:
        for w in (form, base):
            if "_" not in w and " " not in w:
                vocab.add(w)
    return vocab


# -- a stem map over several vocabularies ------------------------------------------


@dataclass
class VocabularyPart:
    """One part of a stem map's vocabulary: its words, its sources and its record (under ``key``)."""

    key: str  # "corpus" | "wordfreq" | "synonyms"
    words: Set[str]
    sources: List[Source]
    params: Dict[str, object]


def corpus_part(counts: "object", min_count: int = 1) -> VocabularyPart:
    """The corpus words seen at least ``min_count`` times (of a :class:`~.function_words.TokenCounts`)."""
    v = corpus_vocabulary(counts, min_count)
    return VocabularyPart(
        "corpus", v, list(counts.sources), {"min_count": min_count, "words": len(v), "lines": counts.lines}  # type: ignore[attr-defined]
    )


def wordfreq_part(
    lang: str, *, top_n: Optional[int] = None, nonbreaking: Optional[Mapping[str, bool]] = None, show_progress: bool = True
) -> VocabularyPart:
    """The tokens of wordfreq's ``top_n`` most frequent words (all if None)."""
    v, src = wordfreq_vocabulary(lang, top_n=top_n, nonbreaking=nonbreaking, show_progress=show_progress)
    return VocabularyPart("wordfreq", v, [src], {"top_n": top_n, "words": len(v)})


def synonyms_part(synonyms: "object") -> VocabularyPart:
    """The one-token words of a :class:`~..synonyms.wndb.Synonyms`' sets and exceptions."""
    v = lexicon_vocabulary(synonyms.synsets, synonyms.exceptions)  # type: ignore[attr-defined]
    params = {"words": len(v), "from": synonyms.params.get("source")}  # type: ignore[attr-defined]
    return VocabularyPart("synonyms", v, list(synonyms.sources), params)  # type: ignore[attr-defined]


def merge_parts(parts: Sequence[VocabularyPart]) -> Tuple[Set[str], List[Source], Dict[str, object]]:
    """The union of ``parts``: their words, their sources once each (in order), their records by key."""
    vocab: Set[str] = set()
    sources: List[Source] = []
    vparams: Dict[str, object] = {}
    for part in parts:
        vocab |= part.words
        sources += part.sources
        vparams[part.key] = part.params
    return vocab, unique_sources(sources), vparams


def stem_map_from(parts: Sequence[VocabularyPart], algorithm: str, *, show_progress: bool = True) -> StemMap:
    """The stem map over the union of ``parts`` (see :func:`merge_parts`)."""
    vocab, sources, vparams = merge_parts(parts)
    return make_stem_map(vocab, algorithm, sources=sources, vocabulary_params=vparams, show_progress=show_progress)
