"""The options of ``meteor-build check bench`` and the sections it can run."""

from __future__ import annotations

import contextlib
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional, Tuple

from ..parity.oracle import JarLock
from ..paths import BENCH_OUT, DEFAULT_DATA_DIR, JAR_LOCK_PATH, ROOT

#: Every section, in the order they run (``--only`` picks some).
SECTIONS = ("system1", "scaling", "stdio", "api", "import", "pivot")
#: Segment lengths of the length-scaling section (tokens).
DEFAULT_LENGTHS = (100, 200, 500, 1000, 2000, 5000)
#: Module sets of the length-scaling section: name -> the jar's module arguments.
MODULE_SETS = {"exact-stem": ("-m", "exact stem"), "full": ()}
#: Where the length-scaling plot goes.
DEFAULT_PLOT = ROOT / "docs" / "img" / "length-scaling.png"


class BenchError(RuntimeError):
    """The benchmark cannot run (missing data, program or Java) or a run failed."""


@dataclass
class BenchOptions:
    """The options of ``meteor-build check bench`` (``only``: names of :data:`SECTIONS`, see :func:`parse_list`)."""

    data: Path = DEFAULT_DATA_DIR
    repeat: int = 5
    out: Path = BENCH_OUT
    hyp: str = "system1.hyp"
    no_time_bin: bool = False
    strict: bool = False
    only: Tuple[str, ...] = SECTIONS
    lengths: Tuple[int, ...] = DEFAULT_LENGTHS
    max_tokens: int = 5000
    scaling_segments: int = 3
    scaling_modules: Tuple[str, ...] = ("exact-stem", "full")
    timeout: float = 300.0
    seed: int = 13
    requests: int = 1000
    transcript: str = "system1"
    pivot_lines: int = 1_000_000
    plot: Optional[Path] = DEFAULT_PLOT
    jvm_lock: Optional[Path] = JAR_LOCK_PATH


def parse_list(text: str, allowed: Tuple[str, ...], what: str) -> Tuple[str, ...]:
    """A comma-separated list of names from ``allowed`` (:class:`ValueError` naming the unknown ones)."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in allowed]
    if unknown or not names:
        raise ValueError(f"unknown {what}: {', '.join(unknown) or '(none given)'} (choose from {', '.join(allowed)})")
    return names


def parse_lengths(text: str) -> Tuple[int, ...]:
    """``100,200,500`` -> (100, 200, 500) (:class:`ValueError` unless positive integers)."""
    try:
        values = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise ValueError(f"--lengths: not a list of integers: {text!r}") from None
    if not values or min(values) < 1:
        raise ValueError(f"--lengths: give positive token counts, got {text!r}")
    return tuple(sorted(set(values)))


def console_script(name: str) -> str:
    """Path of one of the project's console scripts beside this Python (:class:`BenchError` if not installed)."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if not found:
        raise BenchError(f"the {name} command is not installed (make install)")
    return found


@contextlib.contextmanager
def jvm_lock(a: BenchOptions) -> Iterator[None]:
    """Hold the JVM lock (``--jvm-lock``) while a jar runs, so that no other JVM of ours disturbs it."""
    if a.jvm_lock is None:
        yield
        return
    with JarLock(a.jvm_lock):
        yield
