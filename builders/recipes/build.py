"""Building the bundle a recipe describes: recipe -> :class:`~..bundle.spec.BundleSpec` -> the one pipeline."""

from __future__ import annotations

import dataclasses
import json
import os
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from meteor_lite.errors import BundleError, MeteorLiteWarning
from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.locate import BUNDLE_SUFFIX

from ..bundle.pipeline import build_bundle
from ..bundle.spec import BundleSpec, Paraphrases
from ..errors import RecipeError
from ..lexical.function_words import FunctionWords, TokenCounts
from ..lexical.nonbreaking import NonbreakingPrefixes
from ..lexical.stems import StemMap, VocabularyPart
from ..sources import Source
from ..synonyms.wndb import Synonyms
from .model import LEMMA_KINDS, Recipe, RecipeSource, load_recipe
from .sources import CheckedSource, check_sources

__all__ = ["RecipeBuild", "recipe_output", "is_up_to_date", "recipe_spec", "build_recipe"]

Warn = Callable[[str], None]


def _warn(message: str) -> None:
    warnings.warn(message, MeteorLiteWarning, stacklevel=3)


@dataclass
class RecipeBuild:
    """What :func:`build_recipe` did."""

    recipe: Path
    path: Path
    checksum: str
    counts: Dict[str, int]
    seconds: float
    skipped_sources: List[str] = field(default_factory=list)
    up_to_date: bool = False
    #: Nothing was built: every source of the recipe is optional and absent (e.g. a thesaurus not installed).
    nothing_available: bool = False

    def summary(self) -> str:
        """One line: bundle path, rows per table, checksum prefix, time."""
        if self.nothing_available:
            return (f"{self.path}: not built: every source of recipe {self.recipe.name} is optional and absent "
                    f"({', '.join(self.skipped_sources)})")
        if self.up_to_date:
            return f"{self.path}: up to date (recipe {self.recipe.name}, checksum {self.checksum[:12]})"
        counts = ", ".join(f"{t} {n:,}" for t, n in self.counts.items() if n)
        extra = f"; skipped optional source(s) {', '.join(self.skipped_sources)}" if self.skipped_sources else ""
        return f"{self.path}: {counts or 'no resources'} (checksum {self.checksum[:12]}, {self.seconds:.1f} s){extra}"


def recipe_output(recipe: Recipe, out_dir: "os.PathLike[str] | str") -> Path:
    """Where a build into ``out_dir`` writes the recipe's bundle: ``<out_dir>/<name>.sqlite``."""
    return Path(out_dir) / f"{recipe.name}{BUNDLE_SUFFIX}"


def _recipe_params(recipe: Recipe, skipped: Sequence[str]) -> Dict[str, Any]:
    return {
        "recipe": {
            "file": recipe.path.name,
            "digest": recipe.digest,
            "content": recipe.content,
            "skipped_sources": list(skipped),
        }
    }


def is_up_to_date(recipe: Recipe, out: "os.PathLike[str] | str") -> Optional[str]:
    """The checksum of the bundle at ``out`` when it was built from this very recipe (same digest), else None."""
    try:
        with Bundle.open(out) as b:
            params = json.loads(b.meta.get("build_params") or "{}")
            rec = params.get("recipe") if isinstance(params, dict) else None
            if isinstance(rec, dict) and rec.get("digest") == recipe.digest and not rec.get("skipped_sources") and not b.verify():
                return b.checksum
    except (BundleError, ValueError):
        return None
    return None


def _adopt(sources: Sequence[Source], rs: RecipeSource, location: Optional[str] = None) -> List[Source]:
    """The builder's source records with the recipe's licence, description and (portable) location."""
    single = len(sources) == 1  # a source of several files (a WordNet directory) keeps the per-file descriptions
    return [
        dataclasses.replace(
            s,
            licence=rs.licence,
            description=(rs.description if single and rs.description else s.description),
            location=location if location is not None else s.location,
        )
        for s in sources
    ]


class _RecipeInputs:
    """The available sources of a recipe and what is read from them once (prefixes, corpus counts)."""

    def __init__(self, recipe: Recipe, checked: Dict[str, CheckedSource], show_progress: bool):
        self.r, self.checked, self.show = recipe, checked, show_progress
        self.nb = self._nonbreaking()
        self.prefixes = self.nb.prefixes if self.nb is not None else {}
        self.counts = self._count_corpora()
        self._thesaurus: Optional[Any] = None

    def available(self, section: str) -> List[RecipeSource]:
        return [self.r.sources[n] for n in self.r.uses(section) if self.checked[n].found]

    def _nonbreaking(self) -> Optional[NonbreakingPrefixes]:
        """Non-breaking prefixes first: they tokenise corpora and word lists."""
        from .. import jar as _jar
        from ..lexical.nonbreaking import parse_prefixes, read_nonbreaking_file
        from ..official.release import jar_location

        nb_src = self.available("nonbreaking")
        if not nb_src:
            return None
        s = nb_src[0]
        if s.kind != "meteor-jar":
            nb = read_nonbreaking_file(self.r.resolve(s), licence=s.licence)
            nb.sources = _adopt(nb.sources, s, location=s.path)
            return nb
        prefixes = parse_prefixes(_jar.read_jar_text(s.member).splitlines())
        rec = Source(
            name=f"meteor-1.5-{Path(s.member).name}",
            kind="official-release",
            description=s.description or f"Meteor 1.5 non-breaking prefixes ({s.member} inside meteor-1.5.jar)",
            licence=s.licence,
            sha256=s.sha256,
            location=jar_location(s.member),
        )
        return NonbreakingPrefixes(prefixes, [rec], {"source": "meteor-1.5", "prefixes": len(prefixes)})

    def _count_corpora(self) -> Dict[str, TokenCounts]:
        """Corpora are read once: one count of every corpus source of [function_words] and [stems]."""
        from ..lexical.function_words import count_tokens

        corpus_srcs = {s.name: s for sec in ("function_words", "stems") for s in self.available(sec) if s.kind == "corpus"}
        counts: Dict[str, TokenCounts] = {}
        for cname in sorted(corpus_srcs):
            s = corpus_srcs[cname]
            c = count_tokens([self.r.resolve(s)], self.r.language, nonbreaking=self.prefixes, max_lines=s.max_lines,
                             show_progress=self.show)
            c.sources = _adopt(c.sources, s, location=s.path)
            counts[cname] = c
        return counts

    def merged(self, names: Sequence[str]) -> TokenCounts:
        """The counts of several corpora together."""
        total = TokenCounts(counts=Counter())
        for n in names:
            c = self.counts[n]
            total.counts.update(c.counts)
            total.tokens += c.tokens
            total.lines += c.lines
            total.sources.extend(c.sources)
        return total

    def function_words(self) -> Optional[FunctionWords]:
        from ..lexical.function_words import function_words_from_corpus, function_words_from_wordfreq

        fw_src = self.available("function_words")
        if not fw_src:
            return None
        threshold = float(self.r.sections["function_words"].get("threshold", 1e-3))
        lang = self.r.language
        if fw_src[0].kind == "wordfreq":
            fw = function_words_from_wordfreq(lang, threshold=threshold, nonbreaking=self.prefixes, show_progress=self.show)
            fw.sources = _adopt(fw.sources, fw_src[0])
            return fw
        names = [s.name for s in fw_src]
        return function_words_from_corpus(names, lang, threshold=threshold, counts=self.merged(names), nonbreaking=self.prefixes)

    def thesaurus(self, s: RecipeSource) -> Any:
        """The MyThes source, read once (synonym sets and paraphrases both come from it)."""
        from ..synonyms.mythes import read_mythes

        if self._thesaurus is None:
            self._thesaurus = read_mythes(self.r.resolve(s), self.r.language, nonbreaking=self.prefixes, licence=s.licence,
                                          location=s.path, description=s.description or None, show_progress=self.show)
        return self._thesaurus

    def synonyms(self) -> Optional[Synonyms]:
        from ..synonyms.lmf import lmf_language_filter, read_lmf
        from ..synonyms.mythes import DEFAULT_MAX_SET_SIZE
        from ..synonyms.wndb import read_wndb

        syn_src = self.available("synonyms")
        if not syn_src:
            return None
        s, sec = syn_src[0], self.r.sections["synonyms"]
        if s.kind == "mythes":
            syn = self.thesaurus(s).synonyms(max_set_size=int(sec.get("max_set_size", DEFAULT_MAX_SET_SIZE)))
        elif s.kind == "wordnet":
            syn = read_wndb(self.r.resolve(s), id_scheme=sec.get("ids", "offset"), location_prefix=s.path, show_progress=self.show)
        else:
            lexicons = sec.get("lexicons") or None
            syn = read_lmf(self.r.resolve(s), lexicons=lexicons, language=lmf_language_filter(self.r.language, sec.get("lmf_language"), lexicons),
                           id_scheme=sec.get("ids", "ordinal"), location=s.path, show_progress=self.show)
        syn.sources = _adopt(syn.sources, s)
        return syn

    def stems(self, syn: Optional[Synonyms], warn: Warn) -> Optional[StemMap]:
        from ..lexical.stems import corpus_part, snowball_algorithm, stem_map_from, synonyms_part, wordfreq_part

        r = self.r
        stem_src = self.available("stems")
        if "stems" in r.sections and not stem_src:
            warn(f"{r.path}: no source of [stems] is available: building without a stem map")
        if not stem_src:
            return None
        sec = r.sections["stems"]
        if stem_src[0].kind in LEMMA_KINDS and not (stem_src[0].kind == "hunspell" and "algorithm" in sec):
            return self.lemma_map(stem_src)
        stemmer = str(sec.get("stemmer", "snowballstemmer"))
        algorithm = sec.get("algorithm") or snowball_algorithm(r.language)
        parts: List[VocabularyPart] = []
        for s in stem_src:
            if s.kind == "wordfreq":
                part = wordfreq_part(r.language, top_n=sec.get("wordfreq_top"), nonbreaking=self.prefixes, show_progress=self.show)
                part.sources = _adopt(part.sources, s)
                parts.append(part)
            elif s.kind == "hunspell":  # a dictionary's expanded forms as the vocabulary
                from ..lexical.hunspell import hunspell_vocabulary

                words, vcounts = hunspell_vocabulary(r.resolve(s))
                _pairs, src, _label = self.hunspell_lemmas(s, counts=vcounts)
                parts.append(VocabularyPart("hunspell", words, [src], vcounts))
            elif s.kind != "corpus":  # all corpora together, below
                if syn is None:  # a wordnet/lmf only for the vocabulary (no [synonyms] section)
                    raise RecipeError(f"{r.path}: [stems]: a {s.kind} vocabulary needs the same source in [synonyms]")
                parts.append(synonyms_part(syn))
        corpora = [s.name for s in stem_src if s.kind == "corpus"]
        if corpora:
            parts.append(corpus_part(self.merged(corpora), int(sec.get("min_count", 1))))
        if stemmer.startswith("PyStemmer=="):
            from ..lexical.lemmas import pystemmer_map_from

            return pystemmer_map_from(parts, algorithm, r.language, version=stemmer.split("==", 1)[1],
                                      show_progress=self.show)
        return stem_map_from(parts, algorithm, show_progress=self.show)

    def lemma_map(self, stem_src: List[RecipeSource]) -> StemMap:
        """A map-only lemma map (forms -> lemma) from the recipe's simplemma / lemma-file sources."""
        from ..lexical.lemmas import lemma_package, lemma_stem_map, load_lemmas

        pairs: List[Tuple[str, str]] = []
        sources: List[Source] = []
        names: List[str] = []
        for s in stem_src:
            if s.kind == "simplemma":
                p, src, label = load_lemmas(s.language)
            elif s.kind == "hunspell":
                p, src, label = self.hunspell_lemmas(s, analyse=self.analysed_words())
            else:
                p, src, label = load_lemmas(path=self.r.resolve(s), licence=s.licence, location=s.path)
            pairs.extend(p)
            sources.extend(_adopt([src], s))
            names.append(label)
        package, version = lemma_package(all(s.kind == "simplemma" for s in stem_src))
        return lemma_stem_map(pairs, self.r.language, name="+".join(names), package=package, version=version,
                              sources=sources, nonbreaking=self.prefixes, show_progress=self.show)

    def analysed_words(self) -> Optional[Set[str]]:
        """The words [stems] ``analyse`` names (wordfreq's list, corpus words), or None when it is absent."""
        from ..lexical.stems import corpus_part, wordfreq_part

        f = self.r.sections["stems"].get("analyse")
        if f is None:
            return None
        words: Set[str] = set()
        for n in [f] if isinstance(f, str) else list(f):
            s = self.r.sources[n]
            if s.kind == "wordfreq":
                words |= wordfreq_part(self.r.language, nonbreaking=self.prefixes, show_progress=self.show).words
            else:
                words |= corpus_part(self.merged([n])).words
        return words

    def hunspell_lemmas(self, s: RecipeSource, counts: Optional[Dict[str, object]] = None,
                        analyse: Optional[Set[str]] = None) -> Tuple[List[Tuple[str, str]], Source, str]:
        """``(form, root)`` pairs of a Hunspell dictionary (none when ``counts`` of a vocabulary are given;
        the words of ``analyse`` analysed when given, else every form expanded), its source record and the
        map's stemmer name."""
        from ..lexical.hunspell import analyse_hunspell, expand_hunspell, hunspell_digest

        path = self.r.resolve(s)
        pairs: List[Tuple[str, str]] = []
        if counts is None and analyse is not None:
            pairs, analysed = analyse_hunspell(path, analyse)
            counts = {"analysed words": "the vocabulary's words analysed by the affix rules", **analysed}
        elif counts is None:
            pairs, expanded = expand_hunspell(path)
            counts = dict(expanded)
        name = Path(s.path).stem
        what = ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k}: {v}" for k, v in counts.items())
        src = Source(name=f"hunspell-{name}", kind="hunspell", licence=s.licence, sha256=hunspell_digest(path),
                     location=s.path, description=s.description or f"Hunspell dictionary {name} (.dic and .aff): {what}")
        return pairs, src, f"hunspell:{name}"

    def paraphrases(self, fw: Optional[FunctionWords]) -> Optional[Paraphrases]:
        from ..official.formats import iter_paraphrases
        from ..sources import file_source, iter_text_lines

        para_src = self.available("paraphrases")
        if not para_src:
            return None
        s = para_src[0]
        if s.kind == "mythes":
            from ..paraphrases.thesaurus import thesaurus_pairs
            from ..synonyms.mythes import DEFAULT_MAX_SET_SIZE

            size = int(self.r.sections["paraphrases"].get("max_set_size", DEFAULT_MAX_SET_SIZE))
            t = self.thesaurus(s)
            pairs, counts = thesaurus_pairs(t, function_words=set(fw.words) if fw is not None else set(), max_set_size=size)
            params: Dict[str, object] = {"source": "mythes", "max_set_size": size, "probability": "1.0 (none given)",
                                         "filters": "ASCII punctuation; function words only; one phrase inside the other",
                                         **counts}
            return Paraphrases(rows=pairs, sources=_adopt([t.source], s), params=params)
        path = self.r.resolve(s)
        limit = self.r.sections["paraphrases"].get("max_pairs")
        lines = (line for _n, line in iter_text_lines(path, bar_desc=f"reading {path.name}", show_progress=self.show))
        rows = iter_paraphrases(lines, str(path), limit=limit)
        rec = file_source(path, kind="paraphrase-table", licence=s.licence, location=s.path,
                          description=s.description or "paraphrase table in Meteor's format (probability, phrase, paraphrase)")
        return Paraphrases(rows=rows, sources=[rec], params={"source": "meteor-format file", "max_pairs": limit})


def _without_function_words(syn: Synonyms, fw: Set[str]) -> Synonyms:
    """``syn`` without the bundle's function words (a set left with fewer than 2 words goes)."""
    by_id: Dict[int, List[str]] = {}
    for w, i in syn.synsets:
        if w not in fw:
            by_id.setdefault(i, []).append(w)
    pairs = sorted((w, i) for i, ws in by_id.items() if len(ws) >= 2 for w in ws)
    params = {**syn.params, "function_words_dropped": len({w for w, _ in syn.synsets} & fw), "pairs": len(pairs),
              "words": len({w for w, _ in pairs}), "sets": len({i for _, i in pairs})}
    return dataclasses.replace(syn, synsets=pairs, params=params)


def _with_inflections(syn: Synonyms, sm: StemMap, fw: Set[str]) -> Synonyms:
    """``syn`` with morphological exceptions linking the stem map's words (not function words ``fw``) to
    synonym-set words of the same stem/lemma."""
    from ..synonyms.inflections import inflection_exceptions

    pairs = sm.pairs if isinstance(sm.pairs, list) else list(sm.pairs)
    sm.pairs = pairs
    exc, counts = inflection_exceptions(syn.words(), pairs, unlinked=fw)
    params = {**syn.params, "inflections": {"from": "the bundle's stem map (key: a word's stem or lemma)", **counts}}
    return dataclasses.replace(syn, exceptions=exc, params=params)


def recipe_spec(recipe: Recipe, checked: Dict[str, CheckedSource], *, show_progress: bool = True,
                warn: Optional[Warn] = None) -> BundleSpec:
    """The :class:`~..bundle.spec.BundleSpec` of a recipe whose sources were checked (:func:`~.sources.check_sources`)."""
    inputs = _RecipeInputs(recipe, checked, show_progress)
    fw = inputs.function_words()
    syn = inputs.synonyms()
    sm = inputs.stems(syn, warn or _warn)
    if syn is not None and syn.params.get("source") == "mythes":
        sec = recipe.sections["synonyms"]
        if fw is not None and sec.get("drop_function_words", True):
            syn = _without_function_words(syn, set(fw.words))
        if sm is not None and sec.get("inflections", True):
            syn = _with_inflections(syn, sm, set(fw.words) if fw is not None and sec.get("drop_function_words", True) else set())
    para = inputs.paraphrases(fw)
    if all(x is None for x in (fw, sm, syn, para, inputs.nb)):
        raise RecipeError(f"{recipe.path}: nothing to build: every source of the recipe is missing (optional and absent)")
    skipped = sorted(n for n, c in checked.items() if not c.found)
    return BundleSpec(
        language=recipe.language, name=recipe.name, version=recipe.version, description=recipe.description or None,
        function_words=fw, stems=sm, synonyms=syn, paraphrases=para, nonbreaking=inputs.nb,
        extra_params=_recipe_params(recipe, skipped),
    )


def build_recipe(
    recipe: "Recipe | os.PathLike[str] | str",
    out: "os.PathLike[str] | str | None" = None,
    *,
    out_dir: "os.PathLike[str] | str" = Path("resources") / "bundles",
    skip_up_to_date: bool = False,
    show_progress: bool = True,
    warn: Optional[Warn] = None,
) -> RecipeBuild:
    """Build the bundle a recipe describes; return what was written.

    ``out`` defaults to ``<out_dir>/<name>.sqlite``.  Sources are checked first
    (:func:`~.sources.check_sources`); then each section is built with the builders'
    library and the one pipeline writes the bundle atomically.
    With ``skip_up_to_date`` a bundle at ``out`` built from the same recipe
    (same digest, nothing skipped, intact) is left alone.  ``warn`` reports
    skipped sources (default: a :class:`~meteor_lite.errors.MeteorLiteWarning`).

    When every source of the recipe is optional and absent (a thesaurus not installed), nothing is
    written and the result says so (``nothing_available``).

    Raises :class:`~..errors.RecipeError` / :class:`~..errors.SourceError` (and
    :class:`~..errors.OfficialReleaseError` when the official release is
    needed and missing).
    """
    t0 = time.monotonic()
    r = recipe if isinstance(recipe, Recipe) else load_recipe(recipe)
    target = Path(out) if out is not None else recipe_output(r, out_dir)
    checked = check_sources(r, warn=warn)
    skipped = sorted(n for n, c in checked.items() if not c.found)
    if skipped and len(skipped) == len(checked):
        return RecipeBuild(r.path, target, "", {}, time.monotonic() - t0, skipped_sources=skipped, nothing_available=True)
    if skip_up_to_date and not skipped:
        done = is_up_to_date(r, target)
        if done is not None:
            return RecipeBuild(r.path, target, done, {}, time.monotonic() - t0, up_to_date=True)
    res = build_bundle(recipe_spec(r, checked, show_progress=show_progress, warn=warn), target, progress=show_progress)
    return RecipeBuild(r.path, res.path, res.checksum, res.counts, time.monotonic() - t0, skipped_sources=skipped)
