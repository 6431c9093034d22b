"""The sources of a recipe: finding each one and verifying its SHA-256 (:func:`check_sources`)."""

from __future__ import annotations

import hashlib
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Optional, Tuple

from meteor_lite.errors import MeteorLiteWarning

from ..errors import MissingSourceError, OfficialReleaseError, RecipeError, SourceError
from ..sources import sha256_file
from .model import WORDNET_FILES, Recipe, RecipeSource

__all__ = ["wordnet_digest", "source_sha256", "CheckedSource", "check_sources"]


def _warn(message: str) -> None:
    warnings.warn(message, MeteorLiteWarning, stacklevel=3)


def wordnet_digest(directory: "os.PathLike[str] | str") -> str:
    """The checksum of a WordNet database directory, as recipes give it.

    SHA-256 of the lines ``<sha256>  <file>\\n`` (``sha256sum``'s output) for the
    files of :data:`WORDNET_FILES` present, in that (sorted) order; from a shell::

        cd /usr/share/wordnet && ls adj.exc adv.exc data.* noun.exc verb.exc 2>/dev/null | sort | xargs sha256sum | sha256sum
    """
    d = Path(directory)
    listing = "".join(f"{sha256_file(d / n)}  {n}\n" for n in WORDNET_FILES if (d / n).is_file())
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def _wordfreq_path(recipe: Recipe, src: RecipeSource) -> Path:
    from ..lexical.function_words import wordfreq_language, wordfreq_version

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
    if src.kind == "simplemma":
        from ..lexical.lemmas import simplemma_data_file

        try:
            path = simplemma_data_file(src.language)
        except (SourceError, MissingSourceError) as exc:
            raise MissingSourceError(f"{where}: {exc}") from None
        return sha256_file(path), str(path)
    if src.kind == "meteor-jar":
        from .. import jar as _jar

        try:
            jar = _jar.find_jar()
            data = _jar.read_jar_member(src.member, jar=jar)
        except OfficialReleaseError as exc:
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
    if src.kind == "hunspell":
        from ..lexical.hunspell import hunspell_digest, hunspell_files

        for f in hunspell_files(p):
            if not f.is_file():
                raise MissingSourceError(f"{where}: Hunspell file {f} not found (a dictionary is a .dic and the .aff beside it)")
        return hunspell_digest(p), str(p)
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
    reported through ``warn``, by default a :class:`~meteor_lite.errors.MeteorLiteWarning`).
    """
    out: Dict[str, CheckedSource] = {}
    for name, src in recipe.sources.items():
        try:
            actual, where = source_sha256(recipe, src)
        except MissingSourceError as exc:
            if src.required:
                raise
            (warn or _warn)(f"{exc}; it is optional (required = false): building without it")
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
