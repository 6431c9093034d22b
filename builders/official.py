"""Locate and read the resources shipped with the official Meteor 1.5 release.

The release is taken from the ``pycocoevalcap`` package (PyPI), which carries
``meteor-1.5.jar`` (function-word lists, WordNet synonym files, non-breaking
prefix lists inside) and ``data/paraphrase-en.gz``.  Nothing is downloaded.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Dict, List, Optional

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


def read_jar_bytes(member: str, jar: "Optional[os.PathLike[str] | str]" = None) -> bytes:
    """Bytes of one file inside the jar (``jar`` defaults to :func:`jar_path`)."""
    path = Path(jar) if jar is not None else jar_path()
    try:
        with zipfile.ZipFile(path) as z:
            try:
                return z.read(member)
            except KeyError:
                raise OfficialReleaseError(f"{path}: no member {member!r}") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise OfficialReleaseError(f"{path}: cannot read the jar ({exc})") from None


def read_jar_text(member: str, jar: "Optional[os.PathLike[str] | str]" = None) -> str:
    """Text (UTF-8) of one file inside the jar, e.g. ``function/english.words``."""
    path = Path(jar) if jar is not None else jar_path()
    data = read_jar_bytes(member, jar=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OfficialReleaseError(f"{path}!{member}: not valid UTF-8 ({exc})") from None


def jar_members(prefix: str = "", jar: "Optional[os.PathLike[str] | str]" = None) -> List[str]:
    """Names of the jar's files under ``prefix``."""
    path = Path(jar) if jar is not None else jar_path()
    try:
        with zipfile.ZipFile(path) as z:
            return [n for n in z.namelist() if n.startswith(prefix) and not n.endswith("/")]
    except (zipfile.BadZipFile, OSError) as exc:
        raise OfficialReleaseError(f"{path}: cannot read the jar ({exc})") from None


def read_nonbreaking_prefixes(lang: str, jar: "Optional[os.PathLike[str] | str]" = None) -> Dict[str, bool]:
    """Non-breaking prefixes for ``lang`` (short code): prefix -> numeric_only.

    Format as Meteor reads it: one prefix per line, first token; ``#`` starts a
    comment; a second token ``#NUMERIC_ONLY#`` marks a prefix that does not
    break only before a number.  Languages without a list give ``{}``.
    ``jar`` defaults to :func:`jar_path`.
    """
    name = LANGUAGE_NAMES[lang]
    member = f"nonbreaking/{name}.prefixes"
    if member not in jar_members("nonbreaking/", jar=jar):
        return {}
    out: Dict[str, bool] = {}
    for line in read_jar_text(member, jar=jar).splitlines():
        toks = line.split()
        if not toks or toks[0].startswith("#"):
            continue
        out[toks[0]] = len(toks) > 1 and toks[1] == "#NUMERIC_ONLY#"
    return out
