"""Putting a freshly built bundle in place without replacing another one silently (``meteor-lite bundle install``).

:func:`build_into_place` builds into a hidden ``.part`` file beside the target (named so that
:func:`meteor_lite.resources.install.remove_stale_parts` removes it if the process is killed), then:
the same content checksum as the bundle already there keeps that one (``unchanged``); another
checksum replaces it only with ``force`` (else :class:`~..errors.BuildError` naming ``--force`` and
``--name``); no bundle there: the new one is renamed into place (atomic).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from meteor_lite.errors import BundleError
from meteor_lite.resources.bundle import Bundle

from ..errors import BuildError

__all__ = ["ExistingBundle", "Placed", "existing_bundle", "refuse_replacing", "build_into_place"]


@dataclass(frozen=True)
class ExistingBundle:
    """A bundle already at an install target."""

    path: Path
    name: str
    version: str
    checksum: str

    def describe(self) -> str:
        """``path (name version @checksum8)``."""
        return f"{self.path} ({self.name} {self.version} @{self.checksum[:8]})"


@dataclass(frozen=True)
class Placed:
    """What :func:`build_into_place` did: ``installed``, ``replaced`` or ``unchanged`` (the same bundle was there)."""

    path: Path
    outcome: str
    checksum: str


def existing_bundle(target: Path) -> Optional[ExistingBundle]:
    """The bundle at ``target``, or None when there is no file (an unreadable file is described as such)."""
    if not target.exists():
        return None
    try:
        with Bundle.open(target) as b:
            return ExistingBundle(target, str(b.meta.get("name") or b.language), b.version, b.checksum)
    except BundleError:
        return ExistingBundle(target, "unreadable", "?", "?")


def refuse_replacing(found: ExistingBundle, what: str) -> BuildError:
    """The error of an install that would replace ``found`` with another bundle without ``force``."""
    return BuildError(f"{found.describe()} is already installed and {what} gives another bundle: not replaced; "
                      "give --force to replace it, or --name NAME to install beside it")


def build_into_place(target: Path, build: Callable[[Path], None], *, force: bool = False, what: str = "this install") -> Placed:
    """Run ``build(part)`` (it writes a bundle at ``part``), then put it at ``target`` as the module docstring says.

    ``what`` names the install in the refusal.  After any error or interruption nothing but the bundle
    that was there before is left.
    """
    from meteor_lite.resources.install import new_part_file, remove_stale_parts
    from meteor_lite.resources.integrity import remember

    dest = target.parent
    dest.mkdir(parents=True, exist_ok=True)
    remove_stale_parts(dest)
    fd, part = new_part_file(dest, target.name[: -len(".sqlite")] if target.name.endswith(".sqlite") else target.name)
    os.close(fd)
    try:
        build(part)
        with Bundle.open(part) as b:
            checksum = b.checksum
        found = existing_bundle(target)
        if found is not None and found.checksum == checksum:
            return Placed(target, "unchanged", checksum)
        if found is not None and not force:
            raise refuse_replacing(found, what)
        os.replace(part, target)
        remember(target, checksum)
        return Placed(target, "replaced" if found is not None else "installed", checksum)
    finally:
        part.unlink(missing_ok=True)
