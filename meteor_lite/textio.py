"""Reading hypothesis and reference files strictly (UTF-8, one segment per line)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Sequence


class InputError(ValueError):
    """An input file is missing, unreadable, not UTF-8, or of the wrong length."""


def read_lines(path: "os.PathLike[str] | str") -> List[str]:
    """Lines of a UTF-8 text file, split like Java's ``readLine`` (``\\n``, ``\\r\\n`` or ``\\r``).

    Invalid UTF-8 raises :class:`InputError` naming the file, line and byte.
    A final line terminator does not start an extra (empty) segment.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(f"{p}:{line}: invalid UTF-8 (byte 0x{data[exc.start]:02x} at column {col})") from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_references(paths: Sequence["os.PathLike[str] | str"], n_hyps: int, refs_per_hyp: int = 1) -> List[List[str]]:
    """Reference streams: one per file, or ``refs_per_hyp`` interleaved streams from one file.

    Raises :class:`InputError` when a file's line count does not fit ``n_hyps``.
    """
    if refs_per_hyp < 1:
        raise InputError(f"--refs-per-hyp must be at least 1, got {refs_per_hyp}")
    if refs_per_hyp > 1 and len(paths) != 1:
        raise InputError("--refs-per-hyp takes a single reference file (references interleaved, N lines per hypothesis)")
    streams: List[List[str]] = []
    for path in paths:
        lines = read_lines(path)
        if refs_per_hyp > 1:
            if len(lines) != n_hyps * refs_per_hyp:
                raise InputError(
                    f"{path}: {len(lines)} lines, but {n_hyps} hypotheses x {refs_per_hyp} references "
                    f"need {n_hyps * refs_per_hyp}"
                )
            streams.extend(lines[k::refs_per_hyp] for k in range(refs_per_hyp))
        else:
            if len(lines) != n_hyps:
                raise InputError(f"{path}: {len(lines)} lines, but the hypothesis file has {n_hyps}")
            streams.append(lines)
    return streams
