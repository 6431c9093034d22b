"""Lemma maps as stem maps: form -> lemma over the scorer's tokens, and Snowball 3 stemmers as maps.

Two kinds of *map-only* stem maps for languages the scorer has no stemmer for:

* a lemma dictionary turned into a stem map (:func:`lemma_stem_map`): simplemma's dictionary of a
  language (:func:`simplemma_pairs`, the ``lemmas`` extra) or any ``form<TAB>lemma`` file
  (:func:`read_lemma_file`).  Two words match at the stem stage when they have the same lemma;
* a Snowball algorithm that the scorer's pinned ``snowballstemmer`` (2.2.0) lacks -- Czech, Persian,
  Polish, Estonian, Esperanto, Sesotho -- run through PyStemmer 3.x over the recipe's vocabulary
  (:func:`pystemmer_stem_map`).

**One stemmer per bundle.** The bundle records the map's stemmer (``stemmer`` meta key) under a name
the scorer's ``snowballstemmer`` does not have (``simplemma:bg``, ``lemma-file:<name>``, or the
3.x algorithm ``czech``), so the scorer uses only the map (``configure.stemmer_name`` falls back to
the language's own Snowball stemmer, and there is none for these languages): a word outside the map
is its own stem.  :func:`check_map_only` refuses to build such a map for a language the scorer *can*
stem (``en``, ``de``, ... ``lt``, ``sr``), where words outside the map would be stemmed by another
stemmer; PyStemmer is refused for the algorithms that ``snowballstemmer`` 2.2.0 has, so no
language's stems depend on which Snowball release is installed.

Forms and lemmas go through :func:`meteor_lite.text.normalize.prepare` (``norm=True, lower=True``,
the language's tokeniser), as the scorer prepares a segment; a pair is kept when both sides are one
token and differ.  When several dictionary forms become the same token (``US`` and ``us``), the
entry whose form already was that token wins, then the alphabetically first lemma.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from meteor_lite.languages import canonical_language, default_tokenizer
from meteor_lite.resources.stemming import snowball_algorithm_for, snowball_classes
from meteor_lite.text.normalize import prepare

from ..errors import MalformedSourceError, MissingSourceError, SourceError
from ..sources import Source, progress, sha256_file
from .stems import StemMap, StemmerInfo, VocabularyPart, merge_parts

__all__ = [
    "SIMPLEMMA_PACKAGE",
    "load_lemmas",
    "lemma_package",
    "SIMPLEMMA_LICENCE",
    "PYSTEMMER_PACKAGE",
    "SNOWBALL3_ONLY",
    "pystemmer_map_from",
    "check_map_only",
    "simplemma_data_file",
    "simplemma_version",
    "simplemma_pairs",
    "read_lemma_file",
    "lemma_stem_map",
    "normalised_pairs",
    "pystemmer_version",
    "pystemmer_stem_map",
]

SIMPLEMMA_PACKAGE = "simplemma"
PYSTEMMER_PACKAGE = "PyStemmer"
#: What simplemma's README says of its data (the code is MIT): recorded with every simplemma source.
SIMPLEMMA_LICENCE = (
    "MIT (simplemma code); lemma data under mixed licences: lemmatization-lists by Michal Mechura (ODbL-1.0), "
    "Wiktionary via Kaikki (CC-BY-SA), FreeLing, spaCy lookups data, UniMorph, Wikinflection (CC-BY-4.0) "
    "(see simplemma's README, 'Credits and licenses')"
)
#: Snowball algorithms of Snowball 3.x (PyStemmer 3) that snowballstemmer 2.2.0 does not have.
SNOWBALL3_ONLY: Tuple[str, ...] = ("czech", "esperanto", "estonian", "persian", "polish", "sesotho")
_EXTRA = "pip install 'meteor-lite[lemmas]'"


def check_map_only(lang: str, what: str) -> None:
    """Raise :class:`SourceError` when the scorer stems ``lang`` itself (a map-only map would mix two stemmers)."""
    own = snowball_algorithm_for(canonical_language(lang))
    if own is not None:
        raise SourceError(
            f"{what}: the scorer stems language {lang!r} with Snowball {own!r} (snowballstemmer), so words outside "
            f"the map would be stemmed another way: use the {own!r} stem map for {lang!r} instead"
        )


# -- simplemma ---------------------------------------------------------------------------------


def simplemma_version() -> str:
    """The installed simplemma version; :class:`MissingSourceError` when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(SIMPLEMMA_PACKAGE)
    except PackageNotFoundError:
        raise MissingSourceError(f"simplemma is not installed ({_EXTRA})") from None


def simplemma_data_file(code: str) -> Path:
    """The file of simplemma's dictionary for ``code`` (``bg``, ``hbs``, ...): what a recipe's sha256 pins."""
    simplemma_version()
    from simplemma.strategies.dictionaries import dictionary_factory as df

    path = Path(df.DATA_FOLDER) / f"{code}.plzma"
    if not path.is_file():
        have = sorted(p.stem for p in Path(df.DATA_FOLDER).glob("*.plzma"))
        raise MissingSourceError(
            f"simplemma {simplemma_version()} has no dictionary for {code!r} (it has: {', '.join(have)})"
        )
    return path


def simplemma_pairs(code: str) -> Tuple[List[Tuple[str, str]], Source]:
    """``(form, lemma)`` pairs of simplemma's dictionary for ``code``, and the :class:`Source` describing it."""
    path = simplemma_data_file(code)
    from simplemma.strategies.dictionaries.dictionary_factory import DefaultDictionaryFactory

    try:
        d = DefaultDictionaryFactory().get_dictionary(code)
        pairs = list(d.items())
    except (ValueError, OSError, EOFError) as exc:
        raise MalformedSourceError(str(path), 0, f"cannot read simplemma's dictionary ({exc})") from None
    ver = simplemma_version()
    src = Source(
        name=f"simplemma-{code}",
        kind="lemma-dictionary",
        description=f"simplemma {ver} dictionary {path.name} ({code}, {len(pairs)} forms)",
        licence=SIMPLEMMA_LICENCE,
        sha256=sha256_file(path),
        location=f"simplemma=={ver}:simplemma/strategies/dictionaries/data/{path.name}",
    )
    return pairs, src


# -- form<TAB>lemma files -----------------------------------------------------------------------


def read_lemma_file(path: "Path | str", *, licence: str = "see the file", location: Optional[str] = None) -> Tuple[List[Tuple[str, str]], Source]:
    """``(form, lemma)`` pairs of a UTF-8 ``form<TAB>lemma`` file (blank lines and ``#`` lines skipped).

    Raises :class:`MalformedSourceError` naming the file and line of a line that is not two
    non-empty tab-separated fields, or of bytes that are not UTF-8.
    """
    p = Path(path)
    pairs: List[Tuple[str, str]] = []
    try:
        with p.open("rb") as f:
            for n, raw in enumerate(f, 1):
                try:
                    line = raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    raise MalformedSourceError(str(p), n, f"not valid UTF-8 ({exc.reason})") from None
                if not line.strip() or line.startswith("#"):
                    continue
                fields = line.split("\t")
                if len(fields) != 2 or not fields[0].strip() or not fields[1].strip():
                    raise MalformedSourceError(str(p), n, f"expected 'form<TAB>lemma', got {line[:60]!r}")
                pairs.append((fields[0].strip(), fields[1].strip()))
    except FileNotFoundError:
        raise MissingSourceError(f"{p}: lemma file not found") from None
    except OSError as exc:
        raise SourceError(f"{p}: cannot read ({exc.strerror or exc})") from None
    src = Source(name=f"lemmas-{p.name}", kind="lemma-file", description=f"form<TAB>lemma list {p.name} ({len(pairs)} pairs)",
                 licence=licence, sha256=sha256_file(p), location=location if location is not None else str(p))
    return pairs, src


# -- the map ------------------------------------------------------------------------------------


def _one_token(word: str, lang: str, tok: str, nb: Mapping[str, bool]) -> Optional[str]:
    toks = prepare(word, lang, norm=True, lower=True, nonbreaking=nb, tokenizer=tok)
    return toks[0] if len(toks) == 1 else None


def _normalised_pairs(pairs: Iterable[Tuple[str, str]], lang: str, nb: Mapping[str, bool], show: bool) -> Tuple[Dict[str, str], int]:
    """token -> lemma token (see the module's rule for clashes) and the number of pairs left out."""
    tok = default_tokenizer(lang)
    best: Dict[str, Tuple[bool, str]] = {}  # token -> (its form was not that token, lemma)
    dropped = 0
    items = list(pairs)
    with progress(show and len(items) > 50_000, total=len(items), unit="form", unit_scale=True, desc="lemmas") as bar:
        for i, (form, lemma) in enumerate(items, 1):
            f, lem = _one_token(form, lang, tok, nb), _one_token(lemma, lang, tok, nb)
            if i % 50_000 == 0:
                bar.update(50_000)
            if f is None or lem is None:
                dropped += 1
                continue
            key = (f != form, lem)
            if f not in best or key < best[f]:
                best[f] = key
        bar.update(len(items) % 50_000)
    return {f: lem for f, (_k, lem) in best.items()}, dropped


#: ``(form, lemma)`` pairs as the scorer's tokens: token -> lemma token, and the number of pairs left out.
normalised_pairs = _normalised_pairs


def lemma_stem_map(
    pairs: Iterable[Tuple[str, str]],
    lang: str,
    *,
    name: str,
    package: str,
    version: str,
    sources: Sequence[Source] = (),
    nonbreaking: Optional[Mapping[str, bool]] = None,
    show_progress: bool = True,
) -> StemMap:
    """A map-only stem map from ``(form, lemma)`` pairs: token -> lemma token (identities left out).

    ``name`` is recorded as the stemmer (``simplemma:bg``); it must not be a Snowball algorithm the
    scorer has.  Raises :class:`SourceError` for a language the scorer stems itself (:func:`check_map_only`).
    """
    check_map_only(lang, f"lemma map {name!r}")
    if name in snowball_classes():
        raise SourceError(f"lemma map name {name!r} is a Snowball algorithm of the scorer: choose another name")
    table, dropped = _normalised_pairs(pairs, lang, dict(nonbreaking or {}), show_progress)
    out = sorted((f, lem) for f, lem in table.items() if f != lem)
    params: Dict[str, object] = {
        "stemmer": {"algorithm": name, "package": package, "version": version, "map_only": True},
        "words": len(out),
        "changed": len(out),
        "lemmas": {"forms": len(table), "dropped_not_one_token": dropped, "identities_left_out": len(table) - len(out),
                   "clash_rule": "the form already equal to the token, then the first lemma"},
    }
    return StemMap(pairs=out, stemmer=StemmerInfo(algorithm=name, package=package, version=version),
                   sources=list(sources), params=params)


# -- Snowball 3 through PyStemmer ------------------------------------------------------------------


def pystemmer_version() -> str:
    """The installed PyStemmer version; :class:`MissingSourceError` when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(PYSTEMMER_PACKAGE)
    except PackageNotFoundError:
        raise MissingSourceError(f"PyStemmer is not installed ({_EXTRA})") from None


def pystemmer_stem_map(
    vocabulary: Set[str],
    algorithm: str,
    lang: str,
    *,
    version: Optional[str] = None,
    sources: Sequence[Source] = (),
    vocabulary_params: Optional[Mapping[str, object]] = None,
    show_progress: bool = True,
) -> StemMap:
    """A map-only stem map of every word of ``vocabulary`` with PyStemmer's (Snowball 3) ``algorithm``.

    Only the algorithms of :data:`SNOWBALL3_ONLY`; ``version`` (when given) must be the
    installed PyStemmer's.  Every word is kept, also those that are their own stem.
    """
    if algorithm not in SNOWBALL3_ONLY:
        raise SourceError(
            f"PyStemmer is used only for the Snowball algorithms snowballstemmer 2.2.0 lacks "
            f"({', '.join(SNOWBALL3_ONLY)}), not {algorithm!r}: its stems would differ from the scorer's"
        )
    check_map_only(lang, f"PyStemmer {algorithm!r} stem map")
    installed = pystemmer_version()
    if version is not None and version != installed:
        raise MissingSourceError(f"the recipe pins PyStemmer {version}, but {installed} is installed (pip install PyStemmer=={version})")
    import Stemmer  # PyStemmer (no type stubs)

    stem_words = Stemmer.Stemmer(algorithm).stemWords
    words = sorted(w for w in vocabulary if w)
    pairs: List[Tuple[str, str]] = []
    with progress(show_progress and len(words) > 20_000, total=len(words), unit="word", unit_scale=True, desc="stemming") as bar:
        for i in range(0, len(words), 20_000):
            part = words[i : i + 20_000]
            pairs.extend(zip(part, stem_words(part)))
            bar.update(len(part))
    params: Dict[str, object] = {
        "stemmer": {"algorithm": algorithm, "package": PYSTEMMER_PACKAGE, "version": installed, "map_only": True},
        "words": len(pairs),
        "changed": sum(1 for w, s in pairs if w != s),
    }
    if vocabulary_params:
        params["vocabulary"] = dict(vocabulary_params)
    return StemMap(pairs=pairs, stemmer=StemmerInfo(algorithm=algorithm, package=PYSTEMMER_PACKAGE, version=installed),
                   sources=list(sources), params=params)



def pystemmer_map_from(
    parts: Sequence[VocabularyPart], algorithm: str, lang: str, *, version: Optional[str] = None,
    show_progress: bool = True,
) -> StemMap:
    """:func:`pystemmer_stem_map` over the union of ``parts`` (see :func:`~.stems.merge_parts`)."""
    vocab, sources, vparams = merge_parts(parts)
    return pystemmer_stem_map(vocab, algorithm, lang, version=version, sources=sources,
                              vocabulary_params=vparams, show_progress=show_progress)

def load_lemmas(
    simplemma_code: Optional[str] = None, path: "Path | str | None" = None, *, licence: str = "see the file",
    location: Optional[str] = None,
) -> Tuple[List[Tuple[str, str]], Source, str]:
    """``(pairs, source, stemmer name)`` of simplemma's dictionary for ``simplemma_code``, else of the lemma
    file at ``path`` (:func:`simplemma_pairs`, :func:`read_lemma_file`).  The name is the one the lemma map
    records: ``simplemma:<code>``, or ``lemma-file:<first 12 hex digits of the file's sha256>``."""
    if simplemma_code is not None:
        pairs, src = simplemma_pairs(simplemma_code)
        return pairs, src, f"simplemma:{simplemma_code}"
    if path is None:
        raise ValueError("load_lemmas needs a simplemma language code or a lemma file")
    pairs, src = read_lemma_file(path, licence=licence, location=location)
    return pairs, src, f"lemma-file:{src.sha256[:12]}"


def lemma_package(simplemma_only: bool) -> Tuple[str, str]:
    """The package and version a lemma map records: simplemma's, or the builders' for lemma files."""
    return (SIMPLEMMA_PACKAGE, simplemma_version()) if simplemma_only else ("meteor-lite-builders", "lemma-file")
