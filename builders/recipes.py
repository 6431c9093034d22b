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
:func:`build_recipe` builds the bundle with the builders' library
(:func:`~.compose.build_bundle`).  The recipe itself (its parsed content and
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
========================  ===================================================================

Relative paths are relative to the recipe file's directory.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from meteor_lite.bundle import BUNDLE_SUFFIX, Bundle, BundleError

from .bundle_writer import sha256_file
from .inputs import Source, SourceError

__all__ = [
    "RECIPE_FORMAT",
    "RECIPE_FORMAT_VERSION",
    "SOURCE_KINDS",
    "RecipeError",
    "MissingSourceError",
    "RecipeSource",
    "Recipe",
    "CheckedSource",
    "RecipeBuild",
    "load_recipe",
    "recipe_files",
    "check_sources",
    "build_recipe",
    "recipe_output",
    "is_up_to_date",
    "wordnet_digest",
    "WORDNET_FILES",
    "source_sha256",
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
}
_COMMON_SOURCE_KEYS = {"kind", "sha256", "licence", "description", "required"}
_OPTIONAL_SOURCE_KEYS = {"wordfreq": {"language"}, "corpus": {"max_lines"}}

#: Which source kinds each resource section may take ``from``.
_SECTION_KINDS: Dict[str, Tuple[str, ...]] = {
    "function_words": ("wordfreq", "corpus"),
    "stems": ("wordfreq", "corpus", "wordnet", "lmf"),
    "synonyms": ("wordnet", "lmf"),
    "nonbreaking": ("meteor-jar", "prefixes"),
    "paraphrases": ("paraphrase-table",),
}
#: Keys of each section (``from`` everywhere); value = type check and description.
_SECTION_KEYS: Dict[str, Dict[str, str]] = {
    "bundle": {"language": "str", "name": "str", "version": "str", "description": "str"},
    "function_words": {"from": "names", "threshold": "float"},
    "stems": {"from": "names", "algorithm": "str", "wordfreq_top": "int", "min_count": "int"},
    "synonyms": {"from": "name", "ids": "str", "lexicons": "strs", "lmf_language": "str"},
    "nonbreaking": {"from": "name"},
    "paraphrases": {"from": "name", "max_pairs": "int"},
}
_TOP_KEYS = {"format", "format_version", "bundle", "sources", *_SECTION_KINDS}

#: The files of a WordNet database directory that the reader uses (``*.exc`` when present).
WORDNET_FILES: Tuple[str, ...] = (
    "adj.exc", "adv.exc", "data.adj", "data.adv", "data.noun", "data.verb", "noun.exc", "verb.exc",
)

_SEMVER = re.compile(r"^\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]+)?$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class RecipeError(SourceError):
    """A recipe is malformed, or one of its sources is missing or does not match its checksum."""


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
    language: str = ""  # wordfreq
    member: str = ""  # meteor-jar
    path: str = ""  # corpus, prefixes, paraphrase-table, wordnet, lmf (as written in the recipe)
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
        import tomllib  # type: ignore[import-not-found]
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


def _parse(p: Path, data: Dict[str, Any]) -> Recipe:
    where = str(p)
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

    raw_sources = data.get("sources", {})
    if not isinstance(raw_sources, dict):
        raise RecipeError(f"{where}: [sources] must be a table of [sources.<name>] tables")
    sources: Dict[str, RecipeSource] = {}
    for sname, body in raw_sources.items():
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
        sources[sname] = RecipeSource(
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
    lexical = [n for n in names_of("stems") if sources[n].kind in ("wordnet", "lmf")]
    if len(lexical) > 1:
        raise RecipeError(f"{where}: [stems]: at most one wordnet/lmf source")
    if lexical and lexical != names_of("synonyms"):
        raise RecipeError(f"{where}: [stems]: a wordnet/lmf vocabulary must be the source of [synonyms]")
    unused = sorted(set(sources) - used)
    if unused:
        raise RecipeError(f"{where}: source(s) {', '.join(unused)} are declared but no section uses them")
    if not any(sec in sections for sec in _SECTION_KINDS):
        raise RecipeError(f"{where}: nothing to build: add at least one of [{'], ['.join(_SECTION_KINDS)}]")
    if "synonyms" in sections:
        ids = sections["synonyms"].get("ids")
        kind = sources[sections["synonyms"]["from"]].kind
        allowed_ids = ("offset", "pos-offset") if kind == "wordnet" else ("ordinal", "offset", "pos-offset")
        if ids is not None and ids not in allowed_ids:
            raise RecipeError(f"{where}: [synonyms]: ids must be one of {', '.join(allowed_ids)} for a {kind} source")

    content = {k: data[k] for k in sorted(data)}
    return Recipe(
        path=p,
        language=b["language"],
        name=name,
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


# -- sources --------------------------------------------------------------------------------


def wordnet_digest(directory: "os.PathLike[str] | str") -> str:
    """The checksum of a WordNet database directory, as recipes give it.

    SHA-256 of the lines ``<sha256>  <file>\\n`` (``sha256sum``'s output) for the
    files of :data:`WORDNET_FILES` present, in that (sorted) order; from a shell::

        cd /usr/share/wordnet && ls adj.exc adv.exc data.* noun.exc verb.exc 2>/dev/null | sort | xargs sha256sum | sha256sum
    """
    d = Path(directory)
    listing = "".join(f"{sha256_file(d / n)}  {n}\n" for n in WORDNET_FILES if (d / n).is_file())
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


class MissingSourceError(RecipeError):
    """A source of a recipe cannot be found (file, directory, package, wordfreq list or jar member)."""


def _wordfreq_path(recipe: Recipe, src: RecipeSource) -> Path:
    from .function_words import wordfreq_language, wordfreq_version

    where = f"{recipe.path}: source {src.name!r}"
    try:
        code = wordfreq_language(recipe.language)
    except SourceError as exc:  # wordfreq not installed, or no list for the language
        raise MissingSourceError(f"{where}: {exc}") from None
    if src.language and src.language != code:
        raise RecipeError(
            f"{where}: language {src.language!r}, but the builders read wordfreq's list for the bundle's "
            f"language {recipe.language!r}, which is {code!r}"
        )
    import wordfreq

    path = Path(wordfreq.available_languages(wordlist="best")[code])
    if path.name != src.file:
        raise MissingSourceError(
            f"{where}: wordfreq {wordfreq_version()} has {path.name} for {code!r}, not {src.file} "
            "(the recipe was written for another wordfreq release)"
        )
    return path


def source_sha256(recipe: Recipe, src: RecipeSource) -> Tuple[str, str]:
    """``(actual sha256, where)`` of a source, ``where`` naming the file read.

    Raises :class:`MissingSourceError` when the source cannot be found and
    :class:`RecipeError` when it is there but unusable.
    """
    where = f"{recipe.path}: source {src.name!r}"
    if src.kind == "wordfreq":
        path = _wordfreq_path(recipe, src)
        return sha256_file(path), str(path)
    if src.kind == "meteor-jar":
        from . import official

        try:
            jar = official.jar_path()
            data = official.read_jar_bytes(src.member, jar=jar)
        except official.OfficialReleaseError as exc:
            raise MissingSourceError(f"{where}: {exc}") from None
        return hashlib.sha256(data).hexdigest(), f"{jar}!{src.member}"
    p = recipe.resolve(src)
    looked = f" (looked for {p})" if str(p) != src.path else ""
    if src.kind == "wordnet":
        if not p.is_dir():
            raise MissingSourceError(f"{where}: WordNet directory {src.path} not found{looked}")
        missing = [n for n in ("data.adj", "data.adv", "data.noun", "data.verb") if not (p / n).is_file()]
        if missing:
            raise RecipeError(f"{where}: {p} lacks {', '.join(missing)}: not a WordNet database directory")
        return wordnet_digest(p), str(p)
    if not p.exists():
        raise MissingSourceError(f"{where}: file {src.path} not found{looked}")
    if not p.is_file():
        raise RecipeError(f"{where}: {p} is not a file")
    try:
        return sha256_file(p), str(p)
    except OSError as exc:
        raise RecipeError(f"{where}: cannot read {p} ({exc.strerror or exc})") from None


@dataclass(frozen=True)
class CheckedSource:
    """The outcome of checking one source: found (checksum verified) or skipped (optional and missing)."""

    source: RecipeSource
    where: str
    found: bool
    problem: str = ""


def check_sources(recipe: Recipe, *, warn: Optional[Callable[[str], None]] = None) -> Dict[str, CheckedSource]:
    """Find every source of ``recipe`` and verify its SHA-256.

    A missing required source or a checksum that does not match raises
    :class:`RecipeError` naming the recipe, the source and the file; a source
    without ``sha256`` raises one that gives the value to add.  A missing
    source with ``required = false`` is returned with ``found=False`` (and
    reported through ``warn``).
    """
    out: Dict[str, CheckedSource] = {}
    for name, src in recipe.sources.items():
        try:
            actual, where = source_sha256(recipe, src)
        except MissingSourceError as exc:
            if src.required:
                raise
            if warn is not None:
                warn(f"{exc}; it is optional (required = false): building without it")
            out[name] = CheckedSource(src, "", False, str(exc))
            continue
        if not src.sha256:
            raise RecipeError(
                f"{recipe.path}: source {name!r} ({where}) has no sha256 in the recipe; "
                f"its sha256 is {actual}: add  sha256 = \"{actual}\"  to [sources.{name}]"
            )
        if actual != src.sha256:
            raise RecipeError(
                f"{recipe.path}: source {name!r}: checksum mismatch for {where}: sha256 is {actual}, "
                f"the recipe expects {src.sha256}"
            )
        out[name] = CheckedSource(src, where, True)
    return out


# -- building --------------------------------------------------------------------------------


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

    def summary(self) -> str:
        """One line: bundle path, rows per table, checksum prefix, time."""
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


def _jar_location(member: str) -> str:
    try:
        from importlib.metadata import version

        pkg = f"pycocoevalcap=={version('pycocoevalcap')}"
    except Exception:  # pragma: no cover - metadata missing
        pkg = "pycocoevalcap"
    return f"PyPI {pkg}: pycocoevalcap/meteor/meteor-1.5.jar!{member}"


def _parse_prefixes(text: str) -> Dict[str, bool]:
    out: Dict[str, bool] = {}
    for line in text.splitlines():
        toks = line.split()
        if not toks or toks[0].startswith("#"):
            continue
        out[toks[0]] = len(toks) > 1 and toks[1] == "#NUMERIC_ONLY#"
    return out


def build_recipe(
    recipe: "Recipe | os.PathLike[str] | str",
    out: "os.PathLike[str] | str | None" = None,
    *,
    out_dir: "os.PathLike[str] | str" = Path("resources") / "bundles",
    skip_up_to_date: bool = False,
    show_progress: bool = True,
    warn: Optional[Callable[[str], None]] = None,
) -> RecipeBuild:
    """Build the bundle a recipe describes; return what was written.

    ``out`` defaults to ``<out_dir>/<name>.sqlite``.  Sources are checked first
    (:func:`check_sources`); then each section is built with the builders'
    library and :func:`~.compose.build_bundle` writes the bundle atomically.
    With ``skip_up_to_date`` a bundle at ``out`` built from the same recipe
    (same digest, nothing skipped, intact) is left alone.

    Raises :class:`RecipeError` / :class:`~.inputs.SourceError` (and
    :class:`~.official.OfficialReleaseError` when the official release is
    needed and missing).
    """
    from .compose import NonbreakingPrefixes, Paraphrases, build_bundle
    from .inputs import file_source, iter_text_lines

    t0 = time.monotonic()
    r = recipe if isinstance(recipe, Recipe) else load_recipe(recipe)
    target = Path(out) if out is not None else recipe_output(r, out_dir)
    checked = check_sources(r, warn=warn)
    skipped = sorted(n for n, c in checked.items() if not c.found)
    if skip_up_to_date and not skipped:
        done = is_up_to_date(r, target)
        if done is not None:
            return RecipeBuild(r.path, target, done, {}, time.monotonic() - t0, up_to_date=True)

    def available(section: str) -> List[RecipeSource]:
        return [r.sources[n] for n in r.uses(section) if checked[n].found]

    lang = r.language

    # non-breaking prefixes first: they tokenise corpora and word lists
    nb: Optional[NonbreakingPrefixes] = None
    nb_src = available("nonbreaking")
    if nb_src:
        s = nb_src[0]
        if s.kind == "meteor-jar":
            from . import official

            prefixes = _parse_prefixes(official.read_jar_text(s.member))
            rec = Source(
                name=f"meteor-1.5-{Path(s.member).name}",
                kind="official-release",
                description=s.description or f"Meteor 1.5 non-breaking prefixes ({s.member} inside meteor-1.5.jar)",
                licence=s.licence,
                sha256=s.sha256,
                location=_jar_location(s.member),
            )
            nb = NonbreakingPrefixes(prefixes, [rec], {"source": "meteor-1.5", "prefixes": len(prefixes)})
        else:
            from .compose import read_nonbreaking_file

            nb = read_nonbreaking_file(r.resolve(s), licence=s.licence)
            nb.sources = _adopt(nb.sources, s, location=s.path)
    prefixes_map = nb.prefixes if nb is not None else {}

    # corpora are read once: one count of every corpus source of [function_words] and [stems]
    from .function_words import TokenCounts, count_tokens

    corpus_srcs = {s.name: s for sec in ("function_words", "stems") for s in available(sec) if s.kind == "corpus"}
    counts: Dict[str, TokenCounts] = {}
    for cname in sorted(corpus_srcs):
        s = corpus_srcs[cname]
        c = count_tokens([r.resolve(s)], lang, nonbreaking=prefixes_map, max_lines=s.max_lines, show_progress=show_progress)
        c.sources = _adopt(c.sources, s, location=s.path)
        counts[cname] = c

    def merged(names: Sequence[str]) -> TokenCounts:
        """The counts of several corpora together."""
        total = TokenCounts(counts=Counter())
        for n in names:
            c = counts[n]
            total.counts.update(c.counts)
            total.tokens += c.tokens
            total.lines += c.lines
            total.sources.extend(c.sources)
        return total

    fw = None
    fw_src = available("function_words")
    if fw_src:
        sec = r.sections["function_words"]
        threshold = float(sec.get("threshold", 1e-3))
        if fw_src[0].kind == "wordfreq":
            from .function_words import function_words_from_wordfreq

            fw = function_words_from_wordfreq(lang, threshold=threshold, nonbreaking=prefixes_map, show_progress=show_progress)
            fw.sources = _adopt(fw.sources, fw_src[0])
        else:
            from .function_words import function_words_from_corpus

            names = [s.name for s in fw_src]
            fw = function_words_from_corpus(names, lang, threshold=threshold, counts=merged(names), nonbreaking=prefixes_map)

    syn = None
    syn_src = available("synonyms")
    if syn_src:
        s = syn_src[0]
        sec = r.sections["synonyms"]
        if s.kind == "wordnet":
            from .wordnet import read_wndb

            syn = read_wndb(r.resolve(s), id_scheme=sec.get("ids", "offset"), location_prefix=s.path, show_progress=show_progress)
        else:
            from .lmf import read_lmf

            lexicons = sec.get("lexicons") or None
            lmf_language = sec.get("lmf_language")
            if lmf_language is None and not lexicons:
                lmf_language = {"cz": "cs", "se": "sv", "no": "nb"}.get(lang, lang)
            elif lmf_language == "any":
                lmf_language = None
            syn = read_lmf(r.resolve(s), lexicons=lexicons, language=lmf_language, id_scheme=sec.get("ids", "ordinal"),
                           location=s.path, show_progress=show_progress)
        syn.sources = _adopt(syn.sources, s)

    sm = None
    stem_src = available("stems")
    if "stems" in r.sections and not stem_src and warn is not None:
        warn(f"{r.path}: no source of [stems] is available: building without a stem map")
    if stem_src:
        from .stems import (
            corpus_vocabulary,
            lexicon_vocabulary,
            make_stem_map,
            snowball_algorithm,
            wordfreq_vocabulary,
        )

        sec = r.sections["stems"]
        algorithm = sec.get("algorithm") or snowball_algorithm(lang)
        vocab: Set[str] = set()
        vsources: List[Source] = []
        vparams: Dict[str, object] = {}
        for s in stem_src:
            if s.kind == "wordfreq":
                v, wsrc = wordfreq_vocabulary(lang, top_n=sec.get("wordfreq_top"), nonbreaking=prefixes_map,
                                              show_progress=show_progress)
                vsources += _adopt([wsrc], s)
                vparams["wordfreq"] = {"top_n": sec.get("wordfreq_top"), "words": len(v)}
            elif s.kind == "corpus":
                continue  # all corpora together, below
            else:
                if syn is None:  # a wordnet/lmf only for the vocabulary (no [synonyms] section)
                    raise RecipeError(f"{r.path}: [stems]: a {s.kind} vocabulary needs the same source in [synonyms]")
                v = lexicon_vocabulary(syn.synsets, syn.exceptions)
                vsources += syn.sources
                vparams["synonyms"] = {"words": len(v), "from": syn.params.get("source")}
            vocab |= v
        corpora = [s.name for s in stem_src if s.kind == "corpus"]
        if corpora:
            min_count = int(sec.get("min_count", 1))
            c = merged(corpora)
            v = corpus_vocabulary(c, min_count)
            vocab |= v
            vsources += c.sources
            vparams["corpus"] = {"min_count": min_count, "words": len(v), "lines": c.lines}
        seen: Dict[str, Source] = {}
        for x in vsources:
            seen.setdefault(x.name, x)
        sm = make_stem_map(vocab, algorithm, sources=list(seen.values()), vocabulary_params=vparams,
                           show_progress=show_progress)

    para = None
    para_src = available("paraphrases")
    if para_src:
        from .import_official import iter_paraphrases

        s = para_src[0]
        path = r.resolve(s)
        limit = r.sections["paraphrases"].get("max_pairs")
        rows = iter_paraphrases((line for _n, line in iter_text_lines(path, bar_desc=f"reading {path.name}",
                                                                       show_progress=show_progress)),
                                str(path), limit=limit)
        rec = file_source(path, kind="paraphrase-table", licence=s.licence, location=s.path,
                          description=s.description or "paraphrase table in Meteor's format (probability, phrase, paraphrase)")
        para = Paraphrases(rows=rows, sources=[rec], params={"source": "meteor-format file", "max_pairs": limit})

    if all(x is None for x in (fw, sm, syn, para, nb)):
        raise RecipeError(f"{r.path}: nothing to build: every source of the recipe is missing (optional and absent)")
    res = build_bundle(
        lang,
        target,
        function_words=fw,
        stems=sm,
        synonyms=syn,
        paraphrases=para,
        nonbreaking=nb,
        name=r.name,
        version=r.version,
        description=r.description or None,
        extra_params=_recipe_params(r, skipped),
        show_progress=show_progress,
    )
    return RecipeBuild(r.path, res.path, res.checksum, res.counts, time.monotonic() - t0, skipped_sources=skipped)


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
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, p)
    return p
