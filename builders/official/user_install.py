"""``meteor-lite bundle install LANG``: Meteor 1.5's resources, imported from the installed release, in one command.

The official release is the ``pycocoevalcap`` package (``pip install 'meteor-lite[official]'``);
:func:`install_official` imports the resources of one of its languages with the same
builder as ``meteor-build import-official`` (hence the same content checksum as the
bundle ``make demo`` / ``make bundles`` build) and writes ``<lang>.sqlite`` into the user
bundle directory, atomically, where the scorer finds it.

No language needs Java: the scorer stems with Meteor 1.5's own stemmers
(:mod:`meteor_lite.stemmers`), and the bundle is the one ``make bundles`` builds (the same
content checksum) whether Java is there or not.  ``stem_corrections`` adds, for the other
languages that have a Snowball stemmer, the jar's *stem corrections* table (the words where its
stems differ from ``snowballstemmer``'s, for other tools that stem with it; the scorer does not
read it): that needs Java and wordfreq, takes about half a minute, and gives another checksum.
"""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path
from typing import Callable, Optional

from meteor_lite.resources.locate import BUNDLE_SUFFIX, user_bundle_dir

from ..errors import ImportOfficialError
from .release import LANGUAGE_NAMES, package_version

__all__ = ["OFFICIAL_EXTRA", "install_official", "needs_java"]

#: What to install for the release.
OFFICIAL_EXTRA = "pip install 'meteor-lite[official]'"


def needs_java(lang: str) -> bool:
    """Whether the stem corrections of ``lang`` (``stem_corrections=True``) run Java: every Snowball language but English."""
    from .stems import snowball_language

    return lang != "en" and snowball_language(lang) is not None


def _check_release(lang: str) -> None:
    if lang not in LANGUAGE_NAMES:
        raise ImportOfficialError(
            f"{lang!r} is not a language of the official Meteor 1.5 release ({', '.join(LANGUAGE_NAMES)}): "
            "give a bundle file or URL, or a pack index with --index URL"
        )
    if importlib.util.find_spec("pycocoevalcap") is None:
        raise ImportOfficialError(
            f"the official Meteor 1.5 resources come from the 'pycocoevalcap' package, which is not installed: {OFFICIAL_EXTRA}"
        )


def _stems_choice(lang: str, stem_corrections: bool) -> str:
    """``jar`` (the stem corrections table, asked for; needs Java and wordfreq) or ``snowball`` (no table)."""
    if not stem_corrections or not needs_java(lang):
        return "snowball"
    from .. import jar as _jar

    name = LANGUAGE_NAMES[lang].capitalize()
    try:
        _jar.find_java()
    except _jar.JavaNotFoundError:
        raise ImportOfficialError(
            f"{name}'s stem corrections run Meteor 1.5's stemmer from the jar, and java was not found "
            "(the scorer does not need them: install without --stem-corrections)"
        ) from None
    if importlib.util.find_spec("wordfreq") is None:
        raise ImportOfficialError(f"{name}'s stem corrections check wordfreq's word lists, which are not installed: {OFFICIAL_EXTRA}")
    return "jar"


def _has_stem_corrections(path: Path) -> bool:
    """Whether ``path`` is a readable official import that holds the jar's stem corrections."""
    from meteor_lite.errors import BundleError
    from meteor_lite.resources.bundle import Bundle

    if not path.is_file():
        return False
    try:
        with Bundle.open(path) as b:
            return bool(b.build_params.get("stem_corrections"))
    except (BundleError, OSError):
        return False


def install_official(
    lang: str,
    *,
    dest_dir: "Optional[os.PathLike[str] | str]" = None,
    stem_corrections: bool = False,
    say: Callable[[str], None] = print,
    progress: bool = True,
    name: Optional[str] = None,
    force: bool = False,
    paraphrase_file: "Optional[os.PathLike[str] | str]" = None,
) -> Path:
    """Import Meteor 1.5's resources for ``lang`` into ``<dest_dir>/<name>.sqlite`` (default: the user bundle
    directory, ``name`` = ``lang``).

    ``say`` receives one line before and one after the import (what is read, where it
    goes, how long it took); ``progress`` shows the builder's bars on a terminal.
    ``paraphrase_file`` is a paraphrase table in Meteor's format (the full Meteor 1.5
    distribution's ``paraphrase-de.gz``, or one ``meteor-build paraphrases --meteor-file`` wrote):
    imported as the bundle's paraphrase table, its SHA-256 recorded in the bundle's sources
    (for English it replaces pycocoevalcap's table).
    A bundle already at the target is kept when the import gives the same content checksum,
    and replaced by another one only with ``force`` (:func:`~..bundle.place.build_into_place`).
    Raises :class:`~..errors.ImportOfficialError` (or another
    :class:`~..errors.BuildError`) saying what is missing; an interrupted or failed
    import leaves no file behind (an older bundle there is kept).
    """
    from ..bundle.place import build_into_place
    from .importer import build_official_bundle

    _check_release(lang)
    para = Path(paraphrase_file) if paraphrase_file is not None else None
    if para is not None and not para.is_file():
        raise ImportOfficialError(f"{para}: paraphrase table not found")
    stems = _stems_choice(lang, stem_corrections)
    dest = Path(dest_dir) if dest_dir is not None else user_bundle_dir()
    bundle = lang if name is None else name
    if bundle.endswith(BUNDLE_SUFFIX):
        bundle = bundle[: -len(BUNDLE_SUFFIX)]
    if not bundle or bundle.startswith(".") or "/" in bundle or os.sep in bundle:
        raise ImportOfficialError(f"invalid bundle name {bundle!r} (give one with --name)")
    target = dest / f"{bundle}{BUNDLE_SUFFIX}"
    lname = LANGUAGE_NAMES[lang].capitalize()
    how = {"en": " (5.3 million paraphrase pairs: 20 s to a minute)"}.get(lang, "") if para is None else ""
    if stems == "jar":
        how = " (Meteor 1.5's own stemmer runs with Java on 400,000 words: about half a minute)"
    table = f", with the paraphrase table {para.name}" if para is not None else ""
    say(f"importing Meteor 1.5's {lname} resources from pycocoevalcap {package_version('pycocoevalcap')}{table} into {target}{how}")
    if stems == "snowball" and not force and _has_stem_corrections(target):
        say(f"note: the {lname} bundle installed at {target} has the jar's stem-corrections table (earlier meteor-lite added "
            "it where Java was found; the scorer does not read it): --stem-corrections builds that bundle again, "
            "--force replaces it by the one without")
    start = time.monotonic()
    options: dict = {"stems": stems}
    if para is not None:
        options["paraphrase_file"] = para

    def build(part: Path) -> None:
        build_official_bundle(lang, part, progress=progress, **options)

    placed = build_into_place(target, build, force=force, what=f"the import of Meteor 1.5's {lname} resources{table}")
    if placed.outcome == "unchanged":
        say(f"{target}: the same bundle (@{placed.checksum[:8]}) was already installed: kept")
    say(f"imported in {time.monotonic() - start:.0f} s")
    return target
