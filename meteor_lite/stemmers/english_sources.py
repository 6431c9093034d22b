"""The compiled English stemmer's source files and their digest: one list for setup.py, which compiles the digest
into the module, and for :mod:`meteor_lite.stemmers.compiled`, which refuses a module built from other sources.

Standard library only: setup.py loads this file by its path, before meteor-lite is installed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Optional, Tuple

__all__ = ["SOURCES", "sources_digest"]

#: The sources of the extension, relative to meteor_lite/stemmers, in the order of their digest.
SOURCES: Tuple[str, ...] = (
    "_english.c",
    "snowball_c/english.c",
    "snowball_c/english.h",
    "snowball_c/runtime/api.c",
    "snowball_c/runtime/api.h",
    "snowball_c/runtime/header.h",
    "snowball_c/runtime/utilities.c",
)


def sources_digest(root: Path) -> Optional[str]:
    """SHA-256 of :data:`SOURCES` under ``root`` (each file's path, size and bytes), None if one is missing."""
    h = hashlib.sha256()
    try:
        for rel in SOURCES:
            data = (root / rel).read_bytes()
            h.update(f"{rel}\0{len(data)}\0".encode())
            h.update(data)
    except OSError:
        return None
    return h.hexdigest()
