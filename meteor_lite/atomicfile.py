"""Writing a file so that readers see the old one or the whole new one, never a part (layer 0).

:func:`atomic_path` is the primitive (a temporary file renamed over the target).  :func:`output_file` is the one
writer of the files a user names on the command line (``score --tsv ... --segments OUT``, ``align --out``, ``report --html OUT``): ``-``
is standard output; anything else must be a regular file or a name that does not exist yet, never a device, a
FIFO, a symbolic link, a directory, nor one of the run's own inputs; it is written atomically, through a
temporary file created exclusively (``O_EXCL | O_NOFOLLOW``: a link planted at its name is not followed).
"""

from __future__ import annotations

import os
import stat
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterable, Iterator

from .errors import InputError

__all__ = ["atomic_path", "output_file", "OutputRefused", "temp_path"]


def temp_path(target: Path, suffix: str = ".tmp") -> Path:
    """The temporary name beside ``target`` that this thread writes it through: ``.<name>.<pid>.<thread><suffix>``.

    The process id comes first so that a later writer can tell a dead process's file from a live one's; the
    thread's id keeps two threads of one process that write the same target at once (a bundle's mapped tables,
    first used by two threads) from writing into one file."""
    return target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}{suffix}")


@contextmanager
def atomic_path(path: "os.PathLike[str] | str", suffix: str = ".tmp") -> Iterator[Path]:
    """A temporary path beside ``path`` to write the new file at: it replaces ``path`` (``os.replace``:
    atomic, the same directory) when the block ends, and is removed when the block raises.

    ``suffix`` ends the temporary name (e.g. ``.tmp.gz`` for a writer that compresses by
    extension); the name also holds the process and thread ids (:func:`temp_path`), so two writers never share one.
    The parent directory is created.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(target, suffix)
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class OutputRefused(InputError):
    """A named output that is not written: not a regular file, or one of the run's inputs (the message says which)."""


_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def check_output(path: str, inputs: Iterable[str] = ()) -> None:
    """Raise :class:`OutputRefused` unless ``path`` may be written by :func:`output_file` (``-`` always may)."""
    if path == "-":
        return
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputRefused(f"{path}: cannot write ({exc.strerror or exc})") from None
    for test, kind in _KINDS:
        if test(st.st_mode):
            raise OutputRefused(f"{path}: is {kind}, not a regular file: only regular files are written "
                                "(give a new file name, or '-' for standard output)")
    for name in inputs:
        if name == "-":
            continue
        try:
            other = os.stat(name)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            raise OutputRefused(f"{path}: is an input of this run ({name}): not overwritten")


@contextmanager
def output_file(path: str, inputs: Iterable[str] = (), encoding: str = "utf-8") -> Iterator[IO[str]]:
    """A text stream for the output file ``path``: standard output for ``-``; otherwise a new file, written whole
    or not at all (it replaces ``path`` when the block ends; nothing is left when it raises).

    Raises :class:`OutputRefused` when ``path`` is not a regular file (a device, a FIFO, a symbolic link, a
    directory) or is the same file as one of ``inputs``; :class:`OSError` when it cannot be written."""
    if path == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    check_output(path, inputs)
    target = Path(path)
    tmp = temp_path(target)
    tmp.unlink(missing_ok=True)  # ours from an earlier run of this pid, or planted: never followed
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="\n") as out:
            yield out
            out.flush()
        check_output(path, inputs)  # what it became meanwhile (a link made while writing) is not replaced either
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
