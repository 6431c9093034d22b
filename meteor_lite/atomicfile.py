"""Writing a file so that readers see the old one or the whole new one, never a part (layer 0)."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

__all__ = ["atomic_path"]


@contextmanager
def atomic_path(path: "os.PathLike[str] | str", suffix: str = ".tmp") -> Iterator[Path]:
    """A temporary path beside ``path`` to write the new file at: it replaces ``path`` (``os.replace``:
    atomic, the same directory) when the block ends, and is removed when the block raises.

    ``suffix`` ends the temporary name (e.g. ``.tmp.gz`` for a writer that compresses by
    extension); the name also holds the process id, so two processes never share one.
    The parent directory is created.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}{suffix}")
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
