"""Locate and read the resources shipped with the official Meteor 1.5 release.

The release is taken from the ``pycocoevalcap`` package (PyPI), which carries
``meteor-1.5.jar`` (function-word lists, WordNet synonym files, non-breaking
prefix lists inside) and ``data/paraphrase-en.gz``.  Nothing is downloaded.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Dict, List

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


class OfficialReleaseError(Exception):
    """The official Meteor release (pycocoevalcap) is not installed or is incomplete."""


def meteor_dir() -> Path:
    """Directory of pycocoevalcap's Meteor copy (holds the jar and ``data/``)."""
    import importlib.util

    spec = importlib.util.find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        raise OfficialReleaseError(
            "the official Meteor 1.5 release is read from the 'pycocoevalcap' package: "
            "install the build extra (pip install 'meteor-lite[build]')"
        )
    d = Path(list(spec.submodule_search_locations)[0]).resolve() / "meteor"
    if not (d / "meteor-1.5.jar").is_file():
        raise OfficialReleaseError(f"{d}: meteor-1.5.jar not found in pycocoevalcap")
    return d


def jar_path() -> Path:
    """Path of ``meteor-1.5.jar``."""
    return meteor_dir() / "meteor-1.5.jar"


def paraphrase_path(lang: str = "en") -> Path:
    """Path of the official paraphrase table for ``lang`` (only English ships in pycocoevalcap)."""
    p = meteor_dir() / "data" / f"paraphrase-{lang}.gz"
    if not p.is_file():
        raise OfficialReleaseError(f"{p}: no official paraphrase table for {lang!r} in pycocoevalcap")
    return p


def read_jar_text(member: str) -> str:
    """Text (UTF-8) of one file inside the jar, e.g. ``function/english.words``."""
    with zipfile.ZipFile(jar_path()) as z:
        try:
            return z.read(member).decode("utf-8")
        except KeyError:
            raise OfficialReleaseError(f"{jar_path()}: no member {member!r}") from None


def jar_members(prefix: str = "") -> List[str]:
    """Names of the jar's files under ``prefix``."""
    with zipfile.ZipFile(jar_path()) as z:
        return [n for n in z.namelist() if n.startswith(prefix) and not n.endswith("/")]


def read_nonbreaking_prefixes(lang: str) -> Dict[str, bool]:
    """Non-breaking prefixes for ``lang`` (short code): prefix -> numeric_only.

    Format as Meteor reads it: one prefix per line, first token; ``#`` starts a
    comment; a second token ``#NUMERIC_ONLY#`` marks a prefix that does not
    break only before a number.  Languages without a list give ``{}``.
    """
    name = LANGUAGE_NAMES[lang]
    member = f"nonbreaking/{name}.prefixes"
    if member not in jar_members("nonbreaking/"):
        return {}
    out: Dict[str, bool] = {}
    for line in read_jar_text(member).splitlines():
        toks = line.split()
        if not toks or toks[0].startswith("#"):
            continue
        out[toks[0]] = len(toks) > 1 and toks[1] == "#NUMERIC_ONLY#"
    return out
