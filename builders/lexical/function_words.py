"""Function-word lists, from a monolingual corpus or from ``wordfreq``'s frequency lists.

Meteor 1.3 (Denkowski & Lavie 2011) calls a word a *function word* when its
relative frequency in a large monolingual corpus is at least ``1e-3``; the
scorer weighs matches of function and content words differently (δ).  Here a
"word" is a token exactly as the scorer sees it: each line goes through the
scorer's own normaliser, :func:`meteor_lite.text.normalize.prepare` with
``norm=True, lower=True`` and the language's non-breaking prefixes, so
punctuation tokens, split clitics (``'s``, ``n't``) and Meteor's bracket tokens
count like any other token (Meteor's own lists contain them too).

Two sources:

* :func:`function_words_from_corpus` -- plain text or ``.gz``/``.xz``/``.bz2``,
  one segment per line, streamed (memory grows with the vocabulary, not the corpus);
* :func:`function_words_from_wordfreq` -- ``wordfreq``'s list for the language
  (about 40 languages; ``build`` extra).  Each listed word is tokenised by the
  scorer's normaliser and its frequency added to each of its tokens; a token is a
  function word when that sum reaches the threshold.  wordfreq's lists hold no
  punctuation, so the result has none.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _pkg_version
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from meteor_lite.languages import default_tokenizer
from meteor_lite.text.normalize import prepare

from ..errors import InvalidParameterError, MalformedSourceError, SourceError
from ..sources import Source, file_source, iter_text_lines, missing_extra, progress

__all__ = [
    "DEFAULT_THRESHOLD",
    "WORDFREQ_LICENCE",
    "TokenCounts",
    "FunctionWords",
    "count_tokens",
    "select_function_words",
    "function_words_from_corpus",
    "function_words_from_wordfreq",
    "wordfreq_language",
    "wordfreq_frequencies",
    "project_frequencies",
]

#: Relative frequency at or above which a word is a function word (Denkowski & Lavie 2011).
DEFAULT_THRESHOLD = 1e-3

#: Licence of wordfreq's data files (the code is Apache-2.0 / MIT depending on version).
WORDFREQ_LICENCE = "CC-BY-SA-4.0 (wordfreq data files; sources listed in wordfreq's NOTICE)"

#: meteor-lite language codes that wordfreq spells differently.
#: Serbian (``sr``) reads wordfreq's Serbo-Croatian list (``sh``, Latin script).
_WORDFREQ_CODES: Dict[str, str] = {
    "cz": "cs", "se": "sv", "no": "nb", "czech": "cs", "swedish": "sv",
    # wordfreq's Serbo-Croatian list (Latin script) serves Serbian, Croatian and Bosnian; Filipino is ISO 639-1 tl
    "sr": "sh", "hr": "sh", "bs": "sh", "tl": "fil",
}

#: What the normaliser is called with, recorded in the bundle's build parameters.
NORMALISER = "meteor_lite.normalize.prepare(norm=True, lower=True, keep_punct=True)"


def _tokenizer_param(lang: str) -> Dict[str, object]:
    """``{"tokenizer": NAME}`` when the language's tokeniser is not Meteor's white-space split, else nothing
    (so the parameters, and checksums, of the bundles of every other language stay as they were)."""
    name = default_tokenizer(lang)
    return {} if name == "meteor" else {"tokenizer": name}


@dataclass
class TokenCounts:
    """Token counts of a corpus, tokenised as the scorer tokenises."""

    counts: Counter
    tokens: int = 0
    lines: int = 0
    sources: List[Source] = field(default_factory=list)

    def frequencies(self) -> Dict[str, float]:
        """Relative frequency of each token (count / all tokens)."""
        n = self.tokens
        return {w: c / n for w, c in self.counts.items()} if n else {}


@dataclass
class FunctionWords:
    """A function-word list with what it was made from.

    ``words`` are ordered by decreasing relative frequency (then by word);
    ``frequencies`` holds the relative frequency of each of them.
    """

    words: List[str]
    frequencies: Dict[str, float]
    sources: List[Source]
    params: Dict[str, object]


def count_tokens(
    paths: Sequence["os.PathLike[str] | str"],
    lang: str,
    *,
    nonbreaking: Optional[Mapping[str, bool]] = None,
    max_lines: Optional[int] = None,
    show_progress: bool = True,
) -> TokenCounts:
    """Count the tokens of the corpus files ``paths`` (one segment per line), streamed.

    Lines are tokenised with :func:`meteor_lite.text.normalize.prepare` (``norm=True,
    lower=True``, ``nonbreaking`` prefixes).  ``max_lines`` stops after that many
    lines in all.  Raises :class:`SourceError` for a missing file and
    :class:`MalformedSourceError` (file and line) for invalid UTF-8.
    """
    if not paths:
        raise SourceError("no corpus file given")
    counts: Counter = Counter()
    total = 0
    lines = 0
    sources: List[Source] = []
    nb = dict(nonbreaking or {})
    for path in paths:
        name = Path(path).name
        for _lineno, line in iter_text_lines(path, bar_desc=f"counting {name}", show_progress=show_progress):
            if max_lines is not None and lines >= max_lines:
                break
            toks = prepare(line, lang, norm=True, lower=True, nonbreaking=nb)
            counts.update(toks)
            total += len(toks)
            lines += 1
        sources.append(
            file_source(path, kind="corpus", description=f"monolingual corpus ({lang}), one segment per line", licence="see the corpus")
        )
    return TokenCounts(counts=counts, tokens=total, lines=lines, sources=sources)


def select_function_words(frequencies: Mapping[str, float], threshold: float = DEFAULT_THRESHOLD) -> List[str]:
    """Words whose relative frequency is ``>= threshold``, most frequent first (ties by word)."""
    if not threshold > 0:
        raise InvalidParameterError(f"threshold must be > 0 (got {threshold})")
    chosen = [(f, w) for w, f in frequencies.items() if f >= threshold and w]
    chosen.sort(key=lambda fw: (-fw[0], fw[1]))
    return [w for _, w in chosen]


def function_words_from_corpus(
    paths: Sequence["os.PathLike[str] | str"],
    lang: str,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    nonbreaking: Optional[Mapping[str, bool]] = None,
    counts: Optional[TokenCounts] = None,
    licence: Optional[str] = None,
    max_lines: Optional[int] = None,
    show_progress: bool = True,
) -> FunctionWords:
    """Function words of a monolingual corpus: tokens at relative frequency ``>= threshold``.

    ``counts`` reuses a :func:`count_tokens` result (e.g. shared with the stem
    map's vocabulary) instead of reading ``paths`` again.  ``licence`` is
    recorded for the corpus sources.  Raises :class:`SourceError` when the
    corpus holds no token.
    """
    if not threshold > 0:
        raise SourceError(f"threshold must be > 0 (got {threshold})")
    tc = counts if counts is not None else count_tokens(
        paths, lang, nonbreaking=nonbreaking, max_lines=max_lines, show_progress=show_progress
    )
    if tc.tokens == 0:
        raise MalformedSourceError(", ".join(map(str, paths)) or "<corpus>", 0, "the corpus holds no tokens")
    freqs = tc.frequencies()
    words = select_function_words(freqs, threshold)
    sources = [_with_licence(s, licence) for s in tc.sources]
    params: Dict[str, object] = {
        "source": "corpus",
        "threshold": threshold,
        "tokens": tc.tokens,
        "lines": tc.lines,
        "types": len(tc.counts),
        "normaliser": NORMALISER,
        "nonbreaking_prefixes": len(nonbreaking or {}),
        "words": len(words),
        **_tokenizer_param(lang),
    }
    if max_lines is not None:
        params["max_lines"] = max_lines
    return FunctionWords(words=words, frequencies={w: freqs[w] for w in words}, sources=sources, params=params)


def _with_licence(src: Source, licence: Optional[str]) -> Source:
    if licence is None:
        return src
    return Source(src.name, src.kind, src.description, licence, src.sha256, src.location)


# -- wordfreq ---------------------------------------------------------------------


def _wordfreq():
    try:
        import wordfreq
    except ImportError:
        raise missing_extra("wordfreq", "building from wordfreq's frequency lists") from None
    return wordfreq


def wordfreq_version() -> str:
    """Installed wordfreq version (the bundle records it)."""
    try:
        return _pkg_version("wordfreq")
    except PackageNotFoundError:  # pragma: no cover - imported but no metadata
        return "unknown"


def wordfreq_language(lang: str) -> str:
    """wordfreq's code for meteor-lite language ``lang`` (e.g. ``cz`` -> ``cs``, ``se`` -> ``sv``).

    Raises :class:`SourceError` listing wordfreq's languages when it has no list for ``lang``.
    """
    wf = _wordfreq()
    code = _WORDFREQ_CODES.get(lang, lang)
    available = wf.available_languages(wordlist="best")
    if code not in available:
        raise SourceError(
            f"wordfreq {wordfreq_version()} has no frequency list for {lang!r}; "
            f"it has: {', '.join(sorted(available))}"
        )
    return code


#: wordfreq stores numbers of two or more digits with every digit replaced by 0
#: ("0000" stands for all 4-digit numbers): such keys are not words.
_SMASHED_NUMBER = re.compile(r"\d\d")


def wordfreq_frequencies(lang: str, wordlist: str = "best") -> Tuple[Dict[str, float], Source]:
    """wordfreq's word -> frequency table for ``lang`` and the :class:`Source` describing it.

    Keys holding a run of two or more digits are left out: wordfreq lists
    numbers with their digits replaced by ``0`` (one key for all numbers of a
    length), which are not words.
    """
    wf = _wordfreq()
    code = wordfreq_language(lang)
    path = Path(wf.available_languages(wordlist=wordlist)[code])
    freqs = {w: f for w, f in wf.get_frequency_dict(code, wordlist=wordlist).items() if not _SMASHED_NUMBER.search(w)}
    version = wordfreq_version()
    src = file_source(
        path,
        kind="wordfreq",
        name=f"wordfreq-{path.name}",
        description=(
            f"wordfreq {version} frequency list {path.name} ({code}, wordlist={wordlist!r}, "
            f"{len(freqs)} words); word frequencies per token of wordfreq's tokeniser"
        ),
        licence=WORDFREQ_LICENCE,
        location=f"PyPI wordfreq=={version}: wordfreq/data/{path.name}",
    )
    return freqs, src


def project_frequencies(
    frequencies: Mapping[str, float],
    lang: str,
    *,
    nonbreaking: Optional[Mapping[str, bool]] = None,
    show_progress: bool = True,
) -> Dict[str, float]:
    """Re-tokenise a frequency list with the scorer's normaliser.

    Each entry ``word -> f`` adds ``f`` to every token of ``prepare(word)``
    (twice if the token occurs twice), so e.g. English ``don't`` (0.0025)
    contributes to ``don`` and ``'t``.  No renormalisation.
    """
    nb = dict(nonbreaking or {})
    out: Dict[str, float] = {}
    items = list(frequencies.items())
    with progress(show_progress, total=len(items), unit="word", unit_scale=True, desc="tokenising wordfreq list") as bar:
        for i, (word, f) in enumerate(items, 1):
            for tok in prepare(word, lang, norm=True, lower=True, nonbreaking=nb):
                out[tok] = out.get(tok, 0.0) + f
            if i % 20_000 == 0:
                bar.update(20_000)
        bar.update(len(items) % 20_000)
    return out


def function_words_from_wordfreq(
    lang: str,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    nonbreaking: Optional[Mapping[str, bool]] = None,
    wordlist: str = "best",
    show_progress: bool = True,
) -> FunctionWords:
    """Function words from wordfreq's list for ``lang``: tokens whose frequency is ``>= threshold``.

    The list is re-tokenised with the scorer's normaliser
    (:func:`project_frequencies`).  Needs the ``build`` extra (``wordfreq``).
    """
    if not threshold > 0:
        raise SourceError(f"threshold must be > 0 (got {threshold})")
    freqs, src = wordfreq_frequencies(lang, wordlist)
    projected = project_frequencies(freqs, lang, nonbreaking=nonbreaking, show_progress=show_progress)
    words = select_function_words(projected, threshold)
    params: Dict[str, object] = {
        "source": "wordfreq",
        "wordfreq": {"version": wordfreq_version(), "language": wordfreq_language(lang), "wordlist": wordlist},
        "threshold": threshold,
        "normaliser": NORMALISER,
        "nonbreaking_prefixes": len(nonbreaking or {}),
        "words": len(words),
        **_tokenizer_param(lang),
    }
    return FunctionWords(words=words, frequencies={w: projected[w] for w in words}, sources=[src], params=params)
