"""Declarative bundle recipes: which sources (with checksums and licences), which parameters, which version.

A *recipe* is a small TOML (or JSON) file, one per bundle, e.g.
``resources/recipes/de.toml``::

    format = "meteor-lite-recipe"
    format_version = 1

    [bundle]
    language = "de"
    name = "de-wordfreq"          # the bundle file is <name>.sqlite
    version = "1.0.0"

    [sources.wordfreq]
    kind = "wordfreq"
    file = "large_de.msgpack.gz"
    sha256 = "..."
    licence = "CC-BY-SA-4.0"

    [function_words]
    from = "wordfreq"

    [stems]
    from = ["wordfreq"]

:func:`load_recipe` reads and validates a recipe (unknown keys, missing values
and dangling source names are errors naming the recipe file);
:func:`check_sources` finds every source and verifies its SHA-256 (a missing
file or a checksum mismatch is an error naming the source and the file);
:func:`~.build.build_recipe` builds the bundle through the one pipeline
(:func:`~..bundle.pipeline.build_bundle`).  The recipe itself (its parsed content and
digest) is recorded in the bundle's ``build_params``, the sources in its
``sources`` table with the recipe's licences and machine-independent
locations, so building the same recipe on the same inputs gives the same
content checksum, wherever it runs.

Source kinds (``kind``) and their keys besides ``sha256``, ``licence``,
``description`` (optional) and ``required`` (optional, default true; a missing
source that is not required is skipped with a warning and the resources that
need it are built without it):

========================  ===================================================================
``wordfreq``              ``file``: the list inside the wordfreq package (``large_de.msgpack.gz``);
                          ``language``: wordfreq's code (default: the bundle language's)
``meteor-jar``            ``member``: a file inside Meteor 1.5's jar (pycocoevalcap), e.g.
                          ``nonbreaking/german.prefixes``
``corpus``                ``path``: monolingual text, one segment per line (plain/.gz/.xz/.bz2);
                          ``max_lines``: read only the first N lines
``prefixes``              ``path``: non-breaking prefixes, Moses/Meteor format
``paraphrase-table``      ``path``: Meteor's paraphrase format (groups of 3 lines prob/phrase/paraphrase)
``wordnet``               ``path``: a Princeton WordNet database directory; ``sha256`` is the digest of
                          its files (:func:`wordnet_digest`)
``lmf``                   ``path``: a WN-LMF XML file
``mythes``                ``path``: a MyThes thesaurus data file (``/usr/share/mythes/th_de_DE_v2.dat``)
``simplemma``             ``language``: simplemma's code (``bg``, ``hbs``, ``tl``); ``sha256`` is the digest
                          of its dictionary file (``simplemma/strategies/dictionaries/data/<code>.plzma``)
``lemma-file``            ``path``: a UTF-8 ``form<TAB>lemma`` list (``#`` lines and blank lines skipped)
``hunspell``              ``path``: a Hunspell ``.dic`` (the ``.aff`` beside it): forms expanded by its affix rules,
                          each with its root (a lemma map); ``sha256`` is :func:`~..lexical.hunspell.hunspell_digest`
========================  ===================================================================

A ``[stems]`` section takes ``from`` either lemma sources (``simplemma``, ``lemma-file``: a
*lemma map*, forms -> lemma) or vocabularies (``wordfreq``, ``corpus``, ``wordnet``, ``lmf``) that
the ``algorithm`` stems; ``stemmer = "PyStemmer==3.1.0"`` runs a Snowball 3 algorithm that the
scorer's snowballstemmer 2.2.0 lacks (``czech``, ``polish``, ``persian``, ...) over them.  Both are
*map-only* (see :mod:`~..lexical.lemmas`).  ``analyse = "wordfreq"`` (names of wordfreq or corpus
sources) makes a Hunspell lemma map from those sources' words, each analysed by the affix rules
(:func:`~..lexical.hunspell.analyse_hunspell`), instead of from every form the rules give: for a
dictionary whose expansion is too large to list (Korean).

Relative paths are relative to the recipe file's directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from meteor_lite.atomicfile import atomic_path

from ..errors import RecipeError

__all__ = [
    "RECIPE_FORMAT",
    "RECIPE_FORMAT_VERSION",
    "SOURCE_KINDS",
    "LEMMA_KINDS",
    "WORDNET_FILES",
    "RecipeSource",
    "Recipe",
    "load_recipe",
    "recipe_files",
    "write_recipe",
]

RECIPE_FORMAT = "meteor-lite-recipe"
RECIPE_FORMAT_VERSION = 1

#: Source kinds and the keys each one needs besides the common ones.
SOURCE_KINDS: Dict[str, Tuple[str, ...]] = {
    "wordfreq": ("file",),
    "meteor-jar": ("member",),
    "corpus": ("path",),
    "prefixes": ("path",),
    "paraphrase-table": ("path",),
    "wordnet": ("path",),
    "lmf": ("path",),
    "mythes": ("path",),
    "simplemma": ("language",),
    "lemma-file": ("path",),
    "hunspell": ("path",),
}
#: Source kinds whose [stems] map is a lemma dictionary (forms -> lemma), not a stemmer's output.
LEMMA_KINDS: Tuple[str, ...] = ("simplemma", "lemma-file", "hunspell")
_COMMON_SOURCE_KEYS = {"kind", "sha256", "licence", "description", "required"}
_OPTIONAL_SOURCE_KEYS = {"wordfreq": {"language"}, "corpus": {"max_lines"}}

#: Which source kinds each resource section may take ``from``.
_SECTION_KINDS: Dict[str, Tuple[str, ...]] = {
    "function_words": ("wordfreq", "corpus"),
    "stems": ("wordfreq", "corpus", "wordnet", "lmf", "mythes", *LEMMA_KINDS),
    "synonyms": ("wordnet", "lmf", "mythes"),
    "nonbreaking": ("meteor-jar", "prefixes"),
    "paraphrases": ("paraphrase-table", "mythes"),
}
#: Keys of each section (``from`` everywhere); value = type check and description.
_SECTION_KEYS: Dict[str, Dict[str, str]] = {
    "bundle": {"language": "str", "name": "str", "version": "str", "description": "str"},
    "function_words": {"from": "names", "threshold": "float"},
    "stems": {"from": "names", "algorithm": "str", "stemmer": "str", "wordfreq_top": "int", "min_count": "int",
              "analyse": "names"},
    "synonyms": {"from": "name", "ids": "str", "lexicons": "strs", "lmf_language": "str", "max_set_size": "int",
                 "inflections": "bool", "drop_function_words": "bool"},
    "nonbreaking": {"from": "name"},
    "paraphrases": {"from": "name", "max_pairs": "int", "max_set_size": "int"},
}
_TOP_KEYS = {"format", "format_version", "bundle", "sources", *_SECTION_KINDS}

#: The files of a WordNet database directory that the reader uses (``*.exc`` when present).
WORDNET_FILES: Tuple[str, ...] = (
    "adj.exc", "adv.exc", "data.adj", "data.adv", "data.noun", "data.verb", "noun.exc", "verb.exc",
)

_SEMVER = re.compile(r"^\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]+)?$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class RecipeSource:
    """One ``[sources.<name>]`` entry of a recipe."""

    name: str
    kind: str
    sha256: str
    licence: str
    description: str = ""
    required: bool = True
    file: str = ""  # wordfreq
    language: str = ""  # wordfreq, simplemma
    member: str = ""  # meteor-jar
    path: str = ""  # corpus, prefixes, paraphrase-table, wordnet, lmf, lemma-file (as written in the recipe)
    max_lines: Optional[int] = None  # corpus: read at most this many lines


@dataclass
class Recipe:
    """A parsed and validated recipe."""

    path: Path
    language: str
    name: str
    version: str
    description: str
    sources: Dict[str, RecipeSource]
    sections: Dict[str, Dict[str, Any]]
    content: Dict[str, Any]

    @property
    def digest(self) -> str:
        """SHA-256 of the recipe's content (canonical JSON): changes whenever the recipe means something else."""
        data = json.dumps(self.content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(data.encode("utf-8")).hexdigest()

    def resolve(self, src: RecipeSource) -> Path:
        """The file or directory of a path source (relative paths: from the recipe's directory)."""
        p = Path(os.path.expanduser(src.path))
        return p if p.is_absolute() else self.path.parent / p

    def uses(self, section: str) -> List[str]:
        """Source names a section takes ``from`` (empty when the section is absent)."""
        sec = self.sections.get(section)
        if sec is None:
            return []
        f = sec["from"]
        return [f] if isinstance(f, str) else list(f)


# -- reading ------------------------------------------------------------------------------


def _toml_loads(text: str, where: str) -> Dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        try:
            import tomli as tomllib  # type: ignore[import-not-found,no-redef]
        except ModuleNotFoundError:
            raise RecipeError(
                f"{where}: reading TOML recipes on Python < 3.11 needs the package 'tomli' "
                "(part of the build extra: pip install 'meteor-lite[build]'), or write the recipe as JSON"
            ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RecipeError(f"{where}: not valid TOML ({exc})") from None


def _check_type(where: str, key: str, value: Any, kind: str) -> Any:
    ok = {
        "str": isinstance(value, str) and value != "",
        "name": isinstance(value, str) and value != "",
        "names": (isinstance(value, str) and value != "")
        or (isinstance(value, list) and value and all(isinstance(v, str) and v for v in value)),
        "strs": isinstance(value, list) and all(isinstance(v, str) and v for v in value),
        "float": isinstance(value, (int, float)) and not isinstance(value, bool),
        "int": isinstance(value, int) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
    }[kind]
    if not ok:
        what = {
            "str": "a non-empty string",
            "name": "a source name",
            "names": "a source name or a list of source names",
            "strs": "a list of strings",
            "float": "a number",
            "int": "an integer",
            "bool": "true or false",
        }[kind]
        raise RecipeError(f"{where}: {key} must be {what} (got {value!r})")
    return value


def load_recipe(path: "os.PathLike[str] | str") -> Recipe:
    """Read and validate a recipe file (``.toml``, or ``.json``).

    Raises :class:`RecipeError` naming the file (and the key) for anything
    malformed: an unknown key or source kind, a missing value, a section taking
    ``from`` an undeclared source or one of the wrong kind, a source that no
    section uses.  Sources are not looked at here (see :func:`check_sources`).
    """
    p = Path(path)
    where = str(p)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecipeError(f"{where}: recipe not found") from None
    except UnicodeDecodeError as exc:
        raise RecipeError(f"{where}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise RecipeError(f"{where}: cannot read ({exc.strerror or exc})") from None
    if p.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecipeError(f"{where}: not valid JSON ({exc})") from None
    else:
        data = _toml_loads(text, where)
    if not isinstance(data, dict):
        raise RecipeError(f"{where}: a recipe is a table of keys")
    return _parse(p, data)



def _parse_header(where: str, data: Dict[str, Any]) -> None:
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise RecipeError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_TOP_KEYS))})")
    if data.get("format") != RECIPE_FORMAT:
        raise RecipeError(f"{where}: format must be {RECIPE_FORMAT!r} (got {data.get('format')!r})")
    if data.get("format_version") != RECIPE_FORMAT_VERSION:
        raise RecipeError(
            f"{where}: recipe format_version {data.get('format_version')!r} is not supported "
            f"(this meteor-lite reads format_version {RECIPE_FORMAT_VERSION})"
        )


def _parse_sections(where: str, data: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    sections: Dict[str, Dict[str, Any]] = {}
    for sec, keys in _SECTION_KEYS.items():
        if sec not in data:
            continue
        body = data[sec]
        if not isinstance(body, dict):
            raise RecipeError(f"{where}: [{sec}] must be a table")
        bad = sorted(set(body) - set(keys))
        if bad:
            raise RecipeError(f"{where}: [{sec}]: unknown key(s) {', '.join(bad)} (known: {', '.join(keys)})")
        for k, v in body.items():
            _check_type(f"{where}: [{sec}]", k, v, keys[k])
        if sec != "bundle" and "from" not in body:
            raise RecipeError(f"{where}: [{sec}]: 'from' is required (the source name(s) it is built from)")
        sections[sec] = dict(body)
    return sections


def _parse_bundle(where: str, sections: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
    b = sections.get("bundle")
    if b is None:
        raise RecipeError(f"{where}: the [bundle] table is required (language, version)")
    for k in ("language", "version"):
        if k not in b:
            raise RecipeError(f"{where}: [bundle]: {k!r} is required")
    if not _SEMVER.match(b["version"]):
        raise RecipeError(f"{where}: [bundle]: version must be a semantic version like 1.0.0 (got {b['version']!r})")
    name = b.get("name", b["language"])
    if not _NAME.match(name):
        raise RecipeError(f"{where}: [bundle]: name {name!r} must be a file-name-safe word (letters, digits, . _ -)")
    if not _NAME.match(b["language"]):
        raise RecipeError(f"{where}: [bundle]: language {b['language']!r} is not a language code")
    return b


def _parse_source(where: str, sname: str, body: Any) -> RecipeSource:
    swhere = f"{where}: [sources.{sname}]"
    if not isinstance(body, dict):
        raise RecipeError(f"{swhere}: must be a table")
    kind = body.get("kind")
    if kind not in SOURCE_KINDS:
        raise RecipeError(f"{swhere}: kind must be one of {', '.join(SOURCE_KINDS)} (got {kind!r})")
    allowed = _COMMON_SOURCE_KEYS | set(SOURCE_KINDS[kind]) | _OPTIONAL_SOURCE_KEYS.get(kind, set())
    bad = sorted(set(body) - allowed)
    if bad:
        raise RecipeError(f"{swhere}: unknown key(s) {', '.join(bad)} for kind {kind!r} (known: {', '.join(sorted(allowed))})")
    for k in SOURCE_KINDS[kind]:
        if k not in body:
            raise RecipeError(f"{swhere}: {k!r} is required for kind {kind!r}")
        _check_type(swhere, k, body[k], "str")
    if "licence" not in body:
        raise RecipeError(f"{swhere}: 'licence' is required (the licence the source is distributed under)")
    _check_type(swhere, "licence", body["licence"], "str")
    for k in ("description", "language"):
        if k in body:
            _check_type(swhere, k, body[k], "str")
    if "required" in body:
        _check_type(swhere, "required", body["required"], "bool")
    if "max_lines" in body and (_check_type(swhere, "max_lines", body["max_lines"], "int") < 1):
        raise RecipeError(f"{swhere}: max_lines must be at least 1")
    sha = body.get("sha256")
    if sha is not None and not (isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha)):
        raise RecipeError(f"{swhere}: sha256 must be 64 lowercase hex digits (got {sha!r})")
    return RecipeSource(
        name=sname,
        kind=kind,
        sha256=sha or "",
        licence=body["licence"],
        description=body.get("description", ""),
        required=body.get("required", True),
        file=body.get("file", ""),
        language=body.get("language", ""),
        member=body.get("member", ""),
        path=body.get("path", ""),
        max_lines=body.get("max_lines"),
    )


def _parse_sources(where: str, data: Dict[str, Any]) -> Dict[str, RecipeSource]:
    raw_sources = data.get("sources", {})
    if not isinstance(raw_sources, dict):
        raise RecipeError(f"{where}: [sources] must be a table of [sources.<name>] tables")
    return {sname: _parse_source(where, sname, body) for sname, body in raw_sources.items()}


def _check_uses(where: str, sections: Dict[str, Dict[str, Any]], sources: Dict[str, RecipeSource]) -> None:
    """Every section takes ``from`` declared sources of its kinds; every source is used."""
    used: Set[str] = set()
    for sec, kinds in _SECTION_KINDS.items():
        if sec not in sections:
            continue
        f = sections[sec]["from"]
        names = [f] if isinstance(f, str) else list(f)
        for n in names:
            if n not in sources:
                raise RecipeError(f"{where}: [{sec}]: from {n!r}: no such source (declare [sources.{n}])")
            if sources[n].kind not in kinds:
                raise RecipeError(
                    f"{where}: [{sec}]: source {n!r} is of kind {sources[n].kind!r}; {sec} is built from {', '.join(kinds)}"
                )
            used.add(n)

    def names_of(sec: str) -> List[str]:
        f = sections[sec]["from"] if sec in sections else []
        return [f] if isinstance(f, str) else list(f)

    kinds_used = {sources[n].kind for n in names_of("function_words")}
    if len(kinds_used) > 1 or (kinds_used == {"wordfreq"} and len(names_of("function_words")) > 1):
        raise RecipeError(f"{where}: [function_words]: from one wordfreq source or from corpus sources, not both")
    lexical = [n for n in names_of("stems") if sources[n].kind in ("wordnet", "lmf", "mythes")]
    if len(lexical) > 1:
        raise RecipeError(f"{where}: [stems]: at most one wordnet/lmf/mythes source")
    if lexical and lexical != names_of("synonyms"):
        raise RecipeError(f"{where}: [stems]: a wordnet/lmf/mythes vocabulary must be the source of [synonyms]")
    para = names_of("paraphrases")
    if para and sources[para[0]].kind == "mythes" and para != names_of("synonyms"):
        raise RecipeError(f"{where}: [paraphrases]: a mythes source must also be the source of [synonyms]")
    _check_stems(where, sections.get("stems"), [sources[n].kind for n in names_of("stems")])
    _check_analyse(where, sections.get("stems"), sources, names_of("stems"))
    unused = sorted(set(sources) - used)
    if unused:
        raise RecipeError(f"{where}: source(s) {', '.join(unused)} are declared but no section uses them")


def _check_analyse(where: str, sec: Optional[Dict[str, Any]], sources: Dict[str, RecipeSource], stem_names: List[str]) -> None:
    """[stems] analyse: only for a map from Hunspell sources alone, naming declared wordfreq or corpus sources."""
    if sec is None or "analyse" not in sec:
        return
    if not stem_names or any(sources[n].kind != "hunspell" for n in stem_names) or "algorithm" in sec:
        raise RecipeError(f"{where}: [stems]: analyse is for a lemma map from hunspell sources only")
    f = sec["analyse"]
    for n in [f] if isinstance(f, str) else list(f):
        if n not in sources or sources[n].kind not in ("wordfreq", "corpus"):
            raise RecipeError(f"{where}: [stems]: analyse {n!r}: not a declared wordfreq or corpus source")


_STEMMER_PIN = re.compile(r"^(snowballstemmer|PyStemmer==\d+(\.\d+)*)$")


def _check_stems(where: str, sec: Optional[Dict[str, Any]], kinds: List[str]) -> None:
    """[stems]: lemma sources alone (no algorithm, no stemmer), or vocabularies with a stemmer."""
    if sec is None:
        return
    lemma = [k for k in kinds if k in LEMMA_KINDS]
    if lemma and set(lemma) == {"hunspell"} and "algorithm" in sec:
        lemma = []  # a Hunspell dictionary as the vocabulary of a stemmer (its expanded forms)
    if lemma and len(lemma) != len(kinds):
        raise RecipeError(f"{where}: [stems]: from lemma sources ({', '.join(LEMMA_KINDS)}) or from vocabularies, not both")
    if lemma and any(k in sec for k in ("algorithm", "stemmer", "wordfreq_top", "min_count")):
        raise RecipeError(f"{where}: [stems]: a lemma map takes no algorithm, stemmer, wordfreq_top or min_count")
    stemmer = sec.get("stemmer")
    if stemmer is not None and not _STEMMER_PIN.match(stemmer):
        raise RecipeError(
            f"{where}: [stems]: stemmer must be 'snowballstemmer' or a pinned 'PyStemmer==<version>' (got {stemmer!r})"
        )
    if stemmer is not None and stemmer.startswith("PyStemmer") and "algorithm" not in sec:
        raise RecipeError(f"{where}: [stems]: stemmer {stemmer!r} needs an explicit algorithm")


def _parse(p: Path, data: Dict[str, Any]) -> Recipe:
    where = str(p)
    _parse_header(where, data)
    sections = _parse_sections(where, data)
    b = _parse_bundle(where, sections)
    sources = _parse_sources(where, data)
    _check_uses(where, sections, sources)
    if not any(sec in sections for sec in _SECTION_KINDS):
        raise RecipeError(f"{where}: nothing to build: add at least one of [{'], ['.join(_SECTION_KINDS)}]")
    if "synonyms" in sections:
        ids = sections["synonyms"].get("ids")
        kind = sources[sections["synonyms"]["from"]].kind
        allowed_ids = {"wordnet": ("offset", "pos-offset"), "mythes": ("ordinal",)}.get(kind, ("ordinal", "offset", "pos-offset"))
        if ids is not None and ids not in allowed_ids:
            raise RecipeError(f"{where}: [synonyms]: ids must be one of {', '.join(allowed_ids)} for a {kind} source")
        only = {"mythes": ("max_set_size", "inflections", "drop_function_words"), "lmf": ("lexicons", "lmf_language")}
        for k in ("max_set_size", "inflections", "drop_function_words", "lexicons", "lmf_language"):
            if k in sections["synonyms"] and k not in only.get(kind, ()):
                raise RecipeError(f"{where}: [synonyms]: {k!r} does not apply to a {kind} source")
        if sections["synonyms"].get("max_set_size", 2) < 2:
            raise RecipeError(f"{where}: [synonyms]: max_set_size must be at least 2")

    content = {k: data[k] for k in sorted(data)}
    return Recipe(
        path=p,
        language=b["language"],
        name=b.get("name", b["language"]),
        version=b["version"],
        description=b.get("description", ""),
        sources=sources,
        sections=sections,
        content=content,
    )


def recipe_files(paths: Sequence["os.PathLike[str] | str"]) -> List[Path]:
    """Recipe files named by ``paths``: files as given, directories expanded to their ``*.toml`` / ``*.json``."""
    out: List[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted([*p.glob("*.toml"), *p.glob("*.json")])
            if not found:
                raise RecipeError(f"{p}: no recipe (*.toml, *.json) in this directory")
            out.extend(found)
        else:
            out.append(p)
    return out



# -- writing a recipe ------------------------------------------------------------------------


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r} in a recipe")


def write_recipe(data: Mapping[str, Any], path: "os.PathLike[str] | str", *, header: str = "") -> Path:
    """Write a recipe (the structure :func:`load_recipe` reads) as TOML; return the path.

    ``header`` becomes comment lines at the top.  The result is read back and
    validated before it is put in place.
    """
    lines: List[str] = [f"# {h}".rstrip() for h in header.splitlines()]
    for k in ("format", "format_version"):
        lines.append(f"{k} = {_toml_value(data[k])}")

    def table(name: str, body: Mapping[str, Any]) -> None:
        lines.append("")
        lines.append(f"[{name}]")
        for k, v in body.items():
            key = k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)
            lines.append(f"{key} = {_toml_value(v)}")

    table("bundle", data["bundle"])
    for sname, body in data.get("sources", {}).items():
        key = sname if re.fullmatch(r"[A-Za-z0-9_-]+", sname) else json.dumps(sname)
        table(f"sources.{key}", body)
    for sec in _SECTION_KINDS:
        if sec in data:
            table(sec, data[sec])
    text = "\n".join(lines) + "\n"
    p = Path(path)
    _parse(p, _toml_loads(text, str(p)))  # never write a recipe that does not read back
    with atomic_path(p) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return p
