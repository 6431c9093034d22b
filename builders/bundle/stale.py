"""Temporary bundle files that a stopped build left behind, and how a later build removes them.

A bundle is written to a temporary file beside its destination and renamed at the end
(:class:`~meteor_lite_builders.bundle.writer.BundleWriter`).  An error, Ctrl-C or SIGTERM
removes that file; SIGKILL (or a power cut) cannot.  The temporary file is therefore named
``.<bundle name>.<pid>.<random>.tmp`` (:func:`temp_prefix`), so that the next build into the
same directory can tell a file of a dead process from one being written right now
(:func:`remove_stale_temps`): a file whose process no longer exists is removed, with its SQLite
side files (``-journal``, ``-wal``).  Files of the older naming (no process id) are removed once
they have not changed for :data:`UNNAMED_STALE_AFTER` seconds.

The process check is local: a directory shared by several machines may hold files of live
builds elsewhere, whose pids mean nothing here; those are kept only if a local process has
the same pid (harmless: they are removed once it has gone).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import List

from meteor_lite.scratch import pid_alive

__all__ = ["temp_prefix", "remove_stale_temps", "UNNAMED_STALE_AFTER"]

#: Seconds after which a temporary file without a process id in its name counts as stale.
UNNAMED_STALE_AFTER = 3600.0

_SIDE_SUFFIXES = ("", "-journal", "-wal", "-shm")


def temp_prefix(bundle: Path, pid: "int | None" = None) -> str:
    """The prefix of the temporary file for ``bundle`` (``.<name>.<pid>.``; give it to :func:`tempfile.mkstemp`)."""
    return f".{bundle.name}.{os.getpid() if pid is None else pid}."


def remove_stale_temps(bundle: Path, now: "float | None" = None) -> List[Path]:
    """Remove the temporary files of ``bundle`` left by dead processes; return the files removed.

    Matches ``.<name>.<pid>.<anything>.tmp`` (and, without a pid, ``.<name>.<anything>.tmp``
    unchanged for :data:`UNNAMED_STALE_AFTER` seconds) in the bundle's directory, with their
    SQLite side files.  Files of live processes, and the current process's own, are kept.
    """
    directory = bundle.parent if str(bundle.parent) else Path(".")
    if not directory.is_dir():
        return []
    pattern = re.compile(rf"^\.{re.escape(bundle.name)}\.(?:(\d+)\.)?[^/]*\.tmp$")
    now = time.time() if now is None else now
    removed: List[Path] = []
    for entry in directory.iterdir():
        m = pattern.match(entry.name)
        if m is None or not entry.is_file():
            continue
        if m.group(1) is not None:
            pid = int(m.group(1))
            if pid == os.getpid() or pid_alive(pid):
                continue
        else:
            try:
                if now - entry.stat().st_mtime < UNNAMED_STALE_AFTER:
                    continue
            except FileNotFoundError:
                continue
        for suffix in _SIDE_SUFFIXES:
            side = Path(f"{entry}{suffix}")
            try:
                side.unlink()
                removed.append(side)
            except FileNotFoundError:
                pass
    return sorted(removed)
