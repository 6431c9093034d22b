"""Bundles installed as resource packs: wheels that declare them in the ``meteor_lite.bundles`` entry-point group.

A pack (``meteor-build pack BUNDLE``) is a wheel ``meteor_lite_pack_<name>``
holding one package of the same name with the bundle file ``<name>.sqlite`` in
it, and an entry point ``<name> = meteor_lite_pack_<name>`` in the group
:data:`ENTRY_POINT_GROUP`.  The entry-point name is the bundle's lookup name
(what ``--lang``/``--bundle`` ask for); its value names the package holding the
file ``<entry-point name>.sqlite``.

Packs are found from installed metadata only, the entry points :mod:`importlib.metadata`
reads (each distribution's ``entry_points.txt`` on ``sys.path``), read directly: importing
:mod:`importlib.metadata` alone costs more than the rest of a short scoring run.  The pack's
package is located beside its metadata (or with :func:`importlib.util.find_spec`) and
never imported, so a pack costs nothing until its bundle is opened.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterator, List, NamedTuple, Optional, Tuple

__all__ = ["ENTRY_POINT_GROUP", "PACK_PREFIX", "PackBundle", "pack_bundles", "pack_module_name"]

#: The entry-point group packs declare their bundles in.
ENTRY_POINT_GROUP = "meteor_lite.bundles"
#: Distribution and package name prefix of packs (``meteor_lite_pack_en``).
PACK_PREFIX = "meteor_lite_pack_"
_SUFFIX = ".sqlite"


class PackBundle(NamedTuple):
    """A bundle an installed pack provides."""

    name: str  # lookup name (``en``): the entry point's name
    path: Path  # the bundle file inside the installed package
    dist: str  # the distribution that declared it (``meteor_lite_pack_en``)


def pack_module_name(name: str) -> str:
    """The package (and distribution) name of the pack of bundle ``name``: ``de-wordfreq`` -> ``meteor_lite_pack_de_wordfreq``."""
    safe = "".join(c if c.isalnum() else "_" for c in name.lower())
    return PACK_PREFIX + safe


def _entry_points_txt(text: str) -> List[Tuple[str, str]]:
    """(name, value) of the :data:`ENTRY_POINT_GROUP` section of an ``entry_points.txt`` (INI format)."""
    found: List[Tuple[str, str]] = []
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == ENTRY_POINT_GROUP and "=" in line:
            name, value = line.split("=", 1)
            found.append((name.strip(), value.strip()))
    return found


def _distributions() -> Iterator[Tuple[Path, str]]:
    """(metadata directory, distribution name) of every distribution on ``sys.path``, first of a name only.

    The same directories :mod:`importlib.metadata` reads (``*.dist-info``, ``*.egg-info``),
    listed without importing it (its import alone costs tens of milliseconds).
    """
    seen = set()
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for n in sorted(names):
            if not n.endswith((".dist-info", ".egg-info")):
                continue
            dist = n.rsplit(".", 1)[0].split("-", 1)[0]
            key = dist.lower().replace("-", "_").replace(".", "_")
            if key not in seen:
                seen.add(key)
                yield Path(entry or ".") / n, dist


def _locate(meta_dir: Path, name: str, value: str) -> Optional[Path]:
    """The file ``<name>.sqlite`` of the package ``value`` names, without importing that package."""
    module = value.split(":", 1)[0].strip()
    filename = name + _SUFFIX
    candidate = meta_dir.parent.joinpath(*module.split("."), filename)
    if candidate.is_file():
        return candidate
    try:
        from importlib.util import find_spec

        spec = find_spec(module) if "." not in module else None
    except (ImportError, ValueError):
        spec = None
    for d in (spec.submodule_search_locations or []) if spec is not None else []:
        p = Path(d) / filename
        if p.is_file():
            return p
    return None


def pack_bundles() -> List[PackBundle]:
    """Every bundle the installed distributions declare in :data:`ENTRY_POINT_GROUP`, in ``sys.path`` order.

    A declared bundle whose file cannot be found is left out.
    """
    found: List[PackBundle] = []
    for meta_dir, dist in _distributions():
        try:
            text = (meta_dir / "entry_points.txt").read_text(encoding="utf-8")
        except OSError:
            continue
        if ENTRY_POINT_GROUP not in text:
            continue
        for name, value in _entry_points_txt(text):
            path = _locate(meta_dir, name, value)
            if path is not None:
                found.append(PackBundle(name, path, dist))
    return found
