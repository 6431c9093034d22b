"""Writing a new recipe for a language from the sources given (``meteor-build new-recipe``): checksums filled in."""

from __future__ import annotations

import hashlib
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from meteor_lite.errors import MeteorLiteWarning

from ..errors import OfficialReleaseError, RecipeError
from ..sources import sha256_file
from .model import RECIPE_FORMAT, RECIPE_FORMAT_VERSION, write_recipe
from .sources import wordnet_digest

__all__ = ["NewRecipe", "new_recipe_data", "write_new_recipe"]


@dataclass
class NewRecipe:
    """The options of ``meteor-build new-recipe``: the bundle and the sources it is made from."""

    lang: str
    out: Path
    name: Optional[str] = None
    version: str = "1.0.0"
    description: Optional[str] = None
    wordfreq: bool = False
    corpus: List[Path] = field(default_factory=list)
    corpus_licence: str = "see the corpus"
    fw_from: str = "none"  # wordfreq | corpus | none
    threshold: float = 1e-3
    stems: bool = True
    stemmer: Optional[str] = None
    wordfreq_top: Optional[int] = None
    wordnet: Optional[Path] = None
    lmf: Optional[Path] = None
    synonym_licence: Optional[str] = None
    paraphrases: Optional[Path] = None
    paraphrase_licence: str = "see the table's sources"
    prefixes: str = "auto"  # auto | none | a prefixes file
    optional: List[str] = field(default_factory=list)
    lemmas: Optional[str] = None  # simplemma | simplemma:<code> | a form<TAB>lemma file: a lemma map instead of stems
    lemma_licence: str = "see the file"


def _rel(path: Path, base: Path) -> str:
    """``path`` as written in a recipe at ``base``: relative to the recipe's directory when possible."""
    try:
        return os.path.relpath(path.resolve(), base.resolve())
    except ValueError:  # another drive (Windows)
        return str(path.resolve())


def _need_file(p: Path, what: str) -> None:
    if not p.is_file():
        raise RecipeError(f"{what} {p}: file not found")


def _file_sources(o: NewRecipe, sources: Dict[str, Dict[str, Any]]) -> List[str]:
    """Add the wordfreq and corpus sources; return the corpus source names."""
    base = o.out.parent
    if o.wordfreq:
        from ..lexical.function_words import WORDFREQ_LICENCE, wordfreq_frequencies, wordfreq_language

        code = wordfreq_language(o.lang)
        _freqs, src = wordfreq_frequencies(o.lang)
        sources["wordfreq"] = {
            "kind": "wordfreq", "language": code, "file": src.name.removeprefix("wordfreq-"), "sha256": src.sha256,
            "licence": WORDFREQ_LICENCE, "description": src.description.split(";")[0],
        }
    corpus_names: List[str] = []
    for i, c in enumerate(o.corpus, 1):
        _need_file(c, "corpus")
        n = f"corpus-{i}" if len(o.corpus) > 1 else "corpus"
        corpus_names.append(n)
        sources[n] = {"kind": "corpus", "path": _rel(c, base), "sha256": sha256_file(c), "licence": o.corpus_licence,
                      "description": f"monolingual corpus ({o.lang}): {c.name}"}
    return corpus_names


def _lexicon_sources(o: NewRecipe, sources: Dict[str, Dict[str, Any]]) -> Optional[str]:
    """Add the wordnet / LMF and paraphrase-table sources; return the synonyms' source name."""
    base = o.out.parent
    syn_name = None
    if o.wordnet is not None:
        from ..synonyms.wndb import WORDNET_LICENCE

        if not (o.wordnet / "data.noun").is_file():
            raise RecipeError(f"{o.wordnet}: not a WordNet database directory (no data.noun)")
        syn_name = "wordnet"
        path = str(o.wordnet.resolve()) if o.wordnet.is_absolute() else _rel(o.wordnet, base)
        sources["wordnet"] = {"kind": "wordnet", "path": path, "sha256": wordnet_digest(o.wordnet),
                              "licence": o.synonym_licence or WORDNET_LICENCE,
                              "description": "Princeton WordNet database (data.*, *.exc)"}
    elif o.lmf is not None:
        _need_file(o.lmf, "LMF file")
        syn_name = "lmf"
        sources["lmf"] = {"kind": "lmf", "path": _rel(o.lmf, base), "sha256": sha256_file(o.lmf),
                          "licence": o.synonym_licence or "see the lexicon's license attribute",
                          "description": f"WN-LMF wordnet {o.lmf.name}"}
    if o.paraphrases is not None:
        p = o.paraphrases
        _need_file(p, "paraphrase table")
        sources["paraphrases"] = {"kind": "paraphrase-table", "path": _rel(p, base), "sha256": sha256_file(p),
                                  "licence": o.paraphrase_licence, "description": f"paraphrase table {p.name} (Meteor format)"}
    return syn_name


def _prefix_source(o: NewRecipe, sources: Dict[str, Dict[str, Any]]) -> None:
    if o.prefixes == "auto":
        from meteor_lite.languages import canonical_language

        from .. import jar as _jar
        from ..official.release import LANGUAGE_NAMES, METEOR_LICENCE

        code = canonical_language(o.lang)
        member = f"nonbreaking/{LANGUAGE_NAMES[code]}.prefixes" if code in LANGUAGE_NAMES else None
        try:
            if member is not None and member in _jar.jar_members("nonbreaking/"):
                sources["prefixes"] = {"kind": "meteor-jar", "member": member,
                                       "sha256": hashlib.sha256(_jar.read_jar_member(member)).hexdigest(), "licence": METEOR_LICENCE,
                                       "description": f"Meteor 1.5 non-breaking prefixes ({member} inside meteor-1.5.jar)"}
        except OfficialReleaseError as exc:
            warnings.warn(f"no non-breaking prefixes: {exc}", MeteorLiteWarning, stacklevel=2)
    elif o.prefixes != "none":
        p = Path(o.prefixes)
        _need_file(p, "prefixes file")
        sources["prefixes"] = {"kind": "prefixes", "path": _rel(p, o.out.parent), "sha256": sha256_file(p),
                               "licence": "see the file", "description": f"non-breaking prefixes {p.name}"}


def _stems_section(o: NewRecipe, vocab: List[str]) -> Dict[str, Any]:
    """[stems] over ``vocab``; a Snowball 3 algorithm snowballstemmer 2.2.0 lacks runs through the installed PyStemmer."""
    from ..lexical.lemmas import SNOWBALL3_ONLY, pystemmer_version
    from ..lexical.stems import snowball_algorithm

    algorithm = o.stemmer or snowball_algorithm(o.lang)
    sec: Dict[str, Any] = {"from": vocab, "algorithm": algorithm}
    if algorithm in SNOWBALL3_ONLY:
        sec["stemmer"] = f"PyStemmer=={pystemmer_version()}"
    if o.wordfreq_top is not None:
        sec["wordfreq_top"] = o.wordfreq_top
    return sec


def _lemma_source(o: NewRecipe, sources: Dict[str, Dict[str, Any]]) -> None:
    """Add the ``lemmas`` source of ``o.lemmas`` (simplemma's dictionary, or a form<TAB>lemma file)."""
    if o.lemmas is None:
        return
    if o.lemmas == "simplemma" or o.lemmas.startswith("simplemma:"):
        from ..lexical.lemmas import SIMPLEMMA_LICENCE, simplemma_data_file, simplemma_version

        code = o.lemmas.partition(":")[2] or o.lang
        path = simplemma_data_file(code)
        sources["lemmas"] = {"kind": "simplemma", "language": code, "sha256": sha256_file(path), "licence": SIMPLEMMA_LICENCE,
                             "description": f"simplemma {simplemma_version()} lemma dictionary {path.name}"}
        return
    p = Path(o.lemmas)
    _need_file(p, "lemma file")
    sources["lemmas"] = {"kind": "lemma-file", "path": _rel(p, o.out.parent), "sha256": sha256_file(p),
                         "licence": o.lemma_licence, "description": f"form<TAB>lemma list {p.name}"}


def _sections(o: NewRecipe, data: Dict[str, Any], corpus_names: List[str], syn_name: Optional[str]) -> None:
    sources = data["sources"]
    if o.fw_from == "wordfreq":
        data["function_words"] = {"from": "wordfreq", "threshold": o.threshold}
    elif o.fw_from == "corpus":
        data["function_words"] = {"from": corpus_names, "threshold": o.threshold}
    vocab = (["wordfreq"] if o.wordfreq else []) + corpus_names + ([syn_name] if syn_name else [])
    if o.lemmas is not None:
        data["stems"] = {"from": "lemmas"}
    elif o.stems and vocab:
        data["stems"] = _stems_section(o, vocab)
    if syn_name:
        data["synonyms"] = {"from": syn_name}
    if o.paraphrases is not None:
        data["paraphrases"] = {"from": "paraphrases"}
    if "prefixes" in sources:
        data["nonbreaking"] = {"from": "prefixes"}


def new_recipe_data(o: NewRecipe) -> Dict[str, Any]:
    """The recipe structure for :func:`~.model.write_recipe` (sources found and checksummed now)."""
    sources: Dict[str, Dict[str, Any]] = {}
    corpus_names = _file_sources(o, sources)
    syn_name = _lexicon_sources(o, sources)
    _prefix_source(o, sources)
    _lemma_source(o, sources)
    for n in o.optional:
        if n not in sources:
            raise RecipeError(f"--optional {n}: no such source (sources: {', '.join(sources)})")
        sources[n]["required"] = False
    if not sources:
        raise RecipeError("no source given: --wordfreq, --corpus, --wordnet, --lmf and/or --paraphrases")
    bundle: Dict[str, Any] = {"language": o.lang, "name": o.name or o.lang, "version": o.version}
    if o.description:
        bundle["description"] = o.description
    data: Dict[str, Any] = {"bundle": bundle, "sources": sources}
    _sections(o, data, corpus_names, syn_name)
    return data


def write_new_recipe(o: NewRecipe) -> Dict[str, Any]:
    """Write the recipe ``o`` describes at ``o.out`` (read back and validated first); return its structure."""
    data = new_recipe_data(o)
    data["format"], data["format_version"] = RECIPE_FORMAT, RECIPE_FORMAT_VERSION
    header = (
        f"meteor-lite bundle recipe for {o.lang!r}: build with  meteor-build recipe {o.out}\n"
        "Written by meteor-build new-recipe; sha256 values pin the exact inputs."
    )
    write_recipe(data, o.out, header=header)
    return data
