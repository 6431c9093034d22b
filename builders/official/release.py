"""What the official Meteor 1.5 release (from the ``pycocoevalcap`` package) holds, read through :mod:`..jar`.

The jar carries the function-word lists, WordNet synonym files and non-breaking
prefix lists; ``data/paraphrase-en.gz`` is the English paraphrase table.  Nothing
is downloaded.  Finding and reading the jar is :mod:`meteor_lite_builders.jar`'s job.
"""

from __future__ import annotations

import hashlib
import os
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _pkg_version
from pathlib import Path
from typing import Dict, Optional, Set

from ..errors import OfficialReleaseError
from ..lexical.nonbreaking import NonbreakingPrefixes, parse_prefixes
from ..sources import Source

__all__ = [
    "LANGUAGE_NAMES",
    "METEOR_LICENCE",
    "meteor_code",
    "package_version",
    "jar_location",
    "read_nonbreaking_prefixes",
    "official_nonbreaking",
    "meteor_function_words",
]

#: Meteor's long language names, keyed by the short codes meteor-lite uses.
LANGUAGE_NAMES: Dict[str, str] = {
    "en": "english",
    "cz": "czech",
    "de": "german",
    "es": "spanish",
    "fr": "french",
    "ru": "russian",
    "da": "danish",
    "fi": "finnish",
    "hu": "hungarian",
    "it": "italian",
    "nl": "dutch",
    "no": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "se": "swedish",
    "tr": "turkish",
}

#: Licence of Meteor 1.5 and its resource files.
METEOR_LICENCE = "LGPL-2.1"

#: ISO codes that Meteor spells otherwise.
_METEOR_CODES = {"cs": "cz", "sv": "se", "nb": "no"}


def meteor_code(lang: str) -> str:
    """Meteor's code for a language code (``cs`` -> ``cz``, ``sv`` -> ``se``, ``nb`` -> ``no``; others as given)."""
    return _METEOR_CODES.get(lang, lang)


def package_version(name: str, missing: str = "unknown") -> str:
    """The installed version of a package, or ``missing``."""
    try:
        return _pkg_version(name)
    except PackageNotFoundError:
        return missing


def jar_location(member: str = "") -> str:
    """Where a file of the release comes from, as recorded in a bundle (machine-independent)."""
    pkg = "pycocoevalcap"
    version = package_version(pkg, "")
    where = f"PyPI {pkg}=={version}" if version else f"PyPI {pkg}"
    return f"{where}: pycocoevalcap/meteor/meteor-1.5.jar" + (f"!{member}" if member else "")


def read_nonbreaking_prefixes(lang: str, jar: "Optional[os.PathLike[str] | str]" = None) -> Dict[str, bool]:
    """Non-breaking prefixes for ``lang`` (Meteor's short code): prefix -> numeric_only.

    Languages without a list give ``{}``.  ``jar`` defaults to pycocoevalcap's.
    """
    from .. import jar as _jar

    member = f"nonbreaking/{LANGUAGE_NAMES[lang]}.prefixes"
    if member not in _jar.jar_members("nonbreaking/", jar=jar):
        return {}
    return parse_prefixes(_jar.read_jar_text(member, jar=jar).splitlines())


def official_nonbreaking(lang: str) -> Optional[NonbreakingPrefixes]:
    """Meteor 1.5's non-breaking prefixes for ``lang`` from its jar (pycocoevalcap), or None.

    None when Meteor has no list for the language.  Raises
    :class:`~..errors.OfficialReleaseError` when the release is not installed.
    """
    from .. import jar as _jar

    code = meteor_code(lang)
    if code not in LANGUAGE_NAMES:
        return None
    prefixes = read_nonbreaking_prefixes(code)
    if not prefixes:
        return None
    member = f"nonbreaking/{LANGUAGE_NAMES[code]}.prefixes"
    src = Source(
        name=f"meteor-1.5-{Path(member).name}",
        kind="official-release",
        description=f"Meteor 1.5 non-breaking prefixes ({member} inside meteor-1.5.jar)",
        licence=METEOR_LICENCE,
        sha256=hashlib.sha256(_jar.read_jar_member(member)).hexdigest(),
        location=jar_location(member),
    )
    return NonbreakingPrefixes(prefixes=prefixes, sources=[src], params={"source": "meteor-1.5", "prefixes": len(prefixes)})


def tokenising_prefixes(lang: str, mode: str) -> Optional[Dict[str, bool]]:
    """Prefixes for tokenising a bitext side: Meteor's list for ``lang`` (``mode`` "official") or None ("none", or no list)."""
    if mode == "none":
        return None
    code = {"cs": "cz"}.get(lang, lang)
    try:
        return read_nonbreaking_prefixes(code)
    except (KeyError, OfficialReleaseError):  # no list for this language in the release
        return None


def meteor_function_words(lang: str) -> Set[str]:
    """Meteor 1.5's function-word list for ``lang`` (``function/<language>.words`` in the jar)."""
    from .. import jar as _jar

    name = LANGUAGE_NAMES.get({"cs": "cz"}.get(lang, lang))
    words = set(_jar.read_jar_text(f"function/{name}.words").split()) if name else set()
    if not words:
        raise OfficialReleaseError(f"Meteor 1.5 has no function-word list for {lang!r}: use --common-words corpus")
    return words
