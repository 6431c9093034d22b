"""Scratch files and directories that the next run removes once the process that made them is gone.

A run that needs a temporary file only while it runs (``meteor-jar -s/-d/-a``'s bundle of the
user's files, the word list ``meteor-build import-official`` hands its stemming worker) removes
it when it ends, but a process killed outright (SIGKILL, a crash, a power cut) cannot.  So the
file is named by its process, ``<prefix><pid>.<random><suffix>`` in the system's temporary
directory, and every new scratch of the same prefix first removes those whose process no longer
exists (:func:`remove_stale`) -- the idea of ``bundle install``'s ``.part`` files
(:func:`meteor_lite.resources.install.new_part_file`).

Whether the process is gone is asked twice: its id must name no process here, and the lock its
process holds on the entry while it lives (``fcntl.flock``; released by the kernel when the
process dies, however it dies) must be free, so that a temporary directory shared by several
machines or pid namespaces never loses a live run's files.  Only the user's own entries are
touched.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

__all__ = ["pid_alive", "remove_stale", "scratch_dir", "scratch_file", "release"]

#: Open descriptors holding the lock of this process's scratch entries (path -> fd).
_held: Dict[Path, int] = {}

#: The lock file inside a scratch directory.
_LOCK_NAME = ".lock"


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists on this machine (one of another user's counts)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, under another user
        return True
    return True


def _lock(fd: int) -> bool:
    """Take an exclusive lock on ``fd`` without waiting; True when taken (or locks are not available)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: the process id alone decides
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _lock_path(entry: Path) -> Path:
    return entry / _LOCK_NAME if entry.is_dir() and not entry.is_symlink() else entry


def _unheld(entry: Path) -> bool:
    """Whether no live process holds the lock of ``entry`` (an entry without its lock file counts as unheld)."""
    try:
        fd = os.open(_lock_path(entry), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        return _lock(fd)
    finally:
        os.close(fd)


def remove_stale(prefix: str, directory: Optional[Path] = None) -> List[Path]:
    """Remove this user's ``<prefix><pid>.*`` entries of ``directory`` (default: the temporary directory)
    whose process is gone; return them.  Best effort: an entry that cannot be removed stays."""
    d = Path(directory) if directory is not None else Path(tempfile.gettempdir())
    pattern = re.compile(rf"^{re.escape(prefix)}(\d+)\.")
    uid = os.getuid() if hasattr(os, "getuid") else None
    removed: List[Path] = []
    try:
        entries = list(d.iterdir())
    except OSError:
        return removed
    for entry in entries:
        m = pattern.match(entry.name)
        if m is None or int(m.group(1)) == os.getpid() or pid_alive(int(m.group(1))):
            continue
        try:
            if uid is not None and entry.lstat().st_uid != uid:
                continue
            if not _unheld(entry):
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed.append(entry)
        except OSError:
            pass
    return removed


def _hold(entry: Path) -> None:
    """Lock ``entry`` for the life of this process (its lock file for a directory); best effort (without the
    lock, the process id alone tells others whether it is stale)."""
    try:
        fd = os.open(_lock_path(entry), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return
    _lock(fd)
    _held[entry] = fd


def release(entry: Path) -> None:
    """Remove the scratch ``entry`` (file or directory) and drop its lock; nothing when it has gone already."""
    fd = _held.pop(entry, None)
    try:
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink()
    except OSError:
        pass
    if fd is not None:
        os.close(fd)


def scratch_dir(prefix: str, directory: Optional[Path] = None) -> Path:
    """A new private directory ``<prefix><pid>.<random>`` (stale ones of ``prefix`` removed first), removed at exit."""
    remove_stale(prefix, directory)
    d = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}.", dir=directory))
    _hold(d)
    atexit.register(release, d)
    return d


def scratch_file(prefix: str, suffix: str = "", directory: Optional[Path] = None) -> Tuple[int, Path]:
    """A new private file ``<prefix><pid>.<random><suffix>`` (stale ones of ``prefix`` removed first): an open
    descriptor and its path.  The caller removes it with :func:`release` (also done at exit)."""
    remove_stale(prefix, directory)
    fd, name = tempfile.mkstemp(prefix=f"{prefix}{os.getpid()}.", suffix=suffix, dir=directory)
    path = Path(name)
    _hold(path)
    atexit.register(release, path)
    return fd, path
