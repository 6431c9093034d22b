"""Finding bundles: where they are looked up, in which order, and the bundle of a language (or of a name).

A bundle is looked up by name (``<name>.sqlite``; ``--lang X`` asks for ``X``), and
the first of these places that has it wins:

1. each directory in ``$METEOR_LITE_BUNDLE_PATH`` (``os.pathsep``-separated), in order;
2. the user bundle directory, ``$XDG_DATA_HOME/meteor-lite/bundles`` (default
   ``~/.local/share/meteor-lite/bundles``), where ``meteor-lite bundle install`` and
   the builders put bundles;
3. installed resource packs (wheels declaring the bundle in the ``meteor_lite.bundles``
   entry-point group, see :mod:`meteor_lite.resources.packs`);
4. ``resources/bundles`` of the source checkout this package runs from (only when it
   runs from a checkout, e.g. an editable install).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, NamedTuple, Optional

#: File name suffix of bundles on the search path (``<lang>.sqlite``, ``<name>.sqlite``).
BUNDLE_SUFFIX = ".sqlite"

ENV_BUNDLE_PATH = "METEOR_LITE_BUNDLE_PATH"

__all__ = [
    "BUNDLE_SUFFIX",
    "ENV_BUNDLE_PATH",
    "BundleLocation",
    "bundle_search_path",
    "checkout_root",
    "find_bundle",
    "list_bundles",
    "locate_bundles",
    "user_bundle_dir",
]


class BundleLocation(NamedTuple):
    """A bundle file found on the search path, and where it comes from."""

    name: str  # lookup name: the file name without ``.sqlite``
    path: Path
    origin: str  # "env", "user", "pack" or "checkout"
    dist: str = ""  # the pack's distribution name (origin "pack")

    def describe(self) -> str:
        """``env path``, ``user dir``, ``pack <dist>`` or ``checkout``."""
        return {"env": "env path", "user": "user dir", "checkout": "checkout"}.get(self.origin, f"pack {self.dist}")


def user_bundle_dir() -> Path:
    """``$XDG_DATA_HOME/meteor-lite/bundles`` (default ``~/.local/share/meteor-lite/bundles``)."""
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / "meteor-lite" / "bundles"


def checkout_root() -> Optional[Path]:
    """The source checkout this package runs from (it holds ``pyproject.toml`` and ``meteor_lite/``), or None."""
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "meteor_lite" / "resources" / "locate.py").is_file():
        return root
    return None


def _env_dirs() -> List[Path]:
    env = os.environ.get(ENV_BUNDLE_PATH)
    return [Path(d) for d in env.split(os.pathsep) if d] if env else []


def _checkout_dir() -> Optional[Path]:
    root = checkout_root()
    return root / "resources" / "bundles" if root is not None else None


def bundle_search_path() -> List[Path]:
    """The directories searched for ``<name>.sqlite``, in order (installed packs come before the checkout's)."""
    dirs = _env_dirs() + [user_bundle_dir()]
    checkout = _checkout_dir()
    if checkout is not None:
        dirs.append(checkout)
    return dirs


def find_bundle(language: str) -> Optional[Path]:
    """The first ``<language>.sqlite`` in the order of the module docstring, or None.

    Packs are only looked at when no directory before them holds the bundle.
    """
    for d in _env_dirs() + [user_bundle_dir()]:
        p = d / f"{language}{BUNDLE_SUFFIX}"
        if p.is_file():
            return p
    from .packs import pack_bundles

    for pack in pack_bundles():
        if pack.name == language:
            return pack.path
    checkout = _checkout_dir()
    if checkout is not None:
        p = checkout / f"{language}{BUNDLE_SUFFIX}"
        if p.is_file():
            return p
    return None


def locate_bundles() -> List[BundleLocation]:
    """Every bundle on the search path, in lookup order (for a name, the first one listed is used)."""
    from .packs import pack_bundles

    found: List[BundleLocation] = []
    for d in _env_dirs():
        found.extend(_dir_bundles(d, "env"))
    found.extend(_dir_bundles(user_bundle_dir(), "user"))
    found.extend(BundleLocation(p.name, p.path, "pack", p.dist) for p in pack_bundles())
    checkout = _checkout_dir()
    if checkout is not None:
        found.extend(_dir_bundles(checkout, "checkout"))
    return found


def _dir_bundles(d: Path, origin: str) -> List[BundleLocation]:
    if not d.is_dir():
        return []
    return [BundleLocation(p.name[: -len(BUNDLE_SUFFIX)], p, origin) for p in sorted(d.glob(f"*{BUNDLE_SUFFIX}"))]


def list_bundles() -> List[Path]:
    """Every bundle file on the search path, in lookup order."""
    return [loc.path for loc in locate_bundles()]
