"""Reading the builders' input files: streamed text, provenance records, progress.

Shared by the resource builders (:mod:`.lexical`, :mod:`.synonyms`, :mod:`.paraphrases`,
:mod:`.official`, :mod:`.recipes`):

* :class:`Source` -- one input of a build, as recorded in a bundle's ``sources`` table;
* :func:`sha256_file` / :func:`file_source` -- a file's checksum and provenance record;
* :func:`iter_text_lines` -- lines of a plain, gzip, xz or bzip2 text file, streamed,
  strict UTF-8, with their line numbers (errors: :class:`~.errors.SourceError`,
  :class:`~.errors.MalformedSourceError`, naming the file and line);
* :func:`progress` / :func:`progress_iter` -- a tqdm bar shown only on an interactive terminal.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Dict, Iterable, Iterator, List, Optional, Tuple, TypeVar, cast

from .errors import MalformedSourceError, SourceError

__all__ = [
    "Source",
    "SourceError",
    "MalformedSourceError",
    "sha256_file",
    "unique_sources",
    "progress_iter",
    "open_binary",
    "iter_text_lines",
    "file_source",
    "progress",
    "missing_extra",
]

#: Magic numbers of the compressed formats :func:`open_binary` recognises.
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"\xfd7zXZ\x00", "xz"), (b"BZh", "bzip2"))


def sha256_file(path: "os.PathLike[str] | str", chunk: int = 1 << 20) -> str:
    """SHA-256 of a file's bytes, streamed."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class Source:
    """One input of a build: a row of the bundle's ``sources`` table (provenance)."""

    name: str
    kind: str
    description: str
    licence: str
    sha256: str
    location: str

    def record(self, writer: object) -> None:
        """Add this source to a :class:`~meteor_lite_builders.bundle.writer.BundleWriter`."""
        writer.add_source(  # type: ignore[attr-defined]
            self.name,
            kind=self.kind,
            description=self.description,
            licence=self.licence,
            sha256=self.sha256,
            location=self.location,
        )


def unique_sources(sources: Iterable[Source]) -> List[Source]:
    """``sources`` without repeated names (the first of each name is kept, in order)."""
    seen: Dict[str, Source] = {}
    for s in sources:
        seen.setdefault(s.name, s)
    return list(seen.values())


def file_source(
    path: "os.PathLike[str] | str",
    *,
    kind: str,
    description: str,
    licence: str,
    name: Optional[str] = None,
    location: Optional[str] = None,
) -> Source:
    """A :class:`Source` for a file: its SHA-256, its name and (default) the path as given."""
    p = Path(path)
    return Source(
        name=name or p.name,
        kind=kind,
        description=description,
        licence=licence,
        sha256=sha256_file(p),
        location=location if location is not None else str(path),
    )


def open_binary(path: "os.PathLike[str] | str") -> Tuple[IO[bytes], IO[bytes]]:
    """Open ``path`` for reading bytes, decompressing gzip, xz or bzip2 (by magic number).

    Returns ``(decompressed stream, raw file)``; the raw file's ``tell()`` gives
    progress in compressed bytes.  Close the first (it closes the second).
    Raises :class:`SourceError` when the file is missing or unreadable.
    """
    p = Path(path)
    if not p.exists():
        raise SourceError(f"{p}: file not found")
    if p.is_dir():
        raise SourceError(f"{p}: is a directory, not a file")
    try:
        raw = open(p, "rb")
    except OSError as exc:
        raise SourceError(f"{p}: cannot open ({exc.strerror or exc})") from None
    try:
        head = raw.read(6)
        raw.seek(0)
        kind = next((k for magic, k in _MAGIC if head.startswith(magic)), None)
        if kind == "gzip":
            return cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb")), raw
        if kind == "xz":
            return lzma.LZMAFile(raw, mode="rb"), raw
        if kind == "bzip2":
            return bz2.BZ2File(raw, mode="rb"), raw
        return raw, raw
    except BaseException:
        raw.close()
        raise


def iter_text_lines(
    path: "os.PathLike[str] | str", *, bar_desc: Optional[str] = None, show_progress: bool = True
) -> Iterator[Tuple[int, str]]:
    """Yield ``(line number, line)`` of a UTF-8 text file, streamed (plain, .gz, .xz or .bz2).

    Lines end at ``\\n``; the terminator and a preceding ``\\r`` are removed.
    Invalid UTF-8 raises :class:`MalformedSourceError` with the line number; a
    corrupt or truncated compressed file raises :class:`SourceError`.  With
    ``bar_desc`` a progress bar (compressed bytes read) is shown on a terminal.
    """
    stream, raw = open_binary(path)
    name = str(path)
    try:
        size = os.fstat(raw.fileno()).st_size
        with progress(show_progress and bar_desc is not None, total=size, unit="B", unit_scale=True, desc=bar_desc) as bar:
            pos = 0
            lineno = 0
            try:
                for lineno, data in enumerate(stream, 1):
                    try:
                        line = data.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        raise MalformedSourceError(name, lineno, f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
                    if line.endswith("\n"):
                        line = line[:-1]
                        if line.endswith("\r"):
                            line = line[:-1]
                    yield lineno, line
                    if lineno % 4096 == 0:
                        new = raw.tell()
                        bar.update(new - pos)
                        pos = new
            except (EOFError, zlib.error, lzma.LZMAError) as exc:
                raise SourceError(f"{name}: corrupt or truncated compressed file (after line {lineno}: {exc})") from None
            except OSError as exc:  # gzip.BadGzipFile, bz2's "Invalid data stream", or a read error
                what = "corrupt compressed file" if stream is not raw else "read error"
                raise SourceError(f"{name}: {what} (after line {lineno}: {exc})") from None
            bar.update(raw.tell() - pos)
    finally:
        stream.close()
        if raw is not stream:
            raw.close()


class _NoBar:
    """A stand-in for a tqdm bar that does nothing."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> "_NoBar":
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def progress(enabled: bool = True, **kwargs: Any) -> Any:
    """A tqdm progress bar on stderr, shown only when stderr is a terminal and ``enabled``.

    Falls back to a do-nothing bar when tqdm (``build`` extra) is not installed.
    """
    if not enabled or not sys.stderr.isatty():
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:  # progress is a nicety: build without it
        return _NoBar()
    return tqdm(leave=False, dynamic_ncols=True, file=sys.stderr, **kwargs)


T = TypeVar("T")


def progress_iter(iterable: Iterable[T], desc: str, enabled: bool, total: Optional[int] = None, unit: str = "it") -> Iterable[T]:
    """``iterable`` wrapped in a tqdm bar on stderr when ``enabled`` and stderr is a terminal, else as it is."""
    if not enabled or not sys.stderr.isatty():
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:  # progress is a nicety: build without it
        return iterable
    return tqdm(iterable, desc=desc, total=total, unit=unit, unit_scale=True, leave=False, file=sys.stderr)


def missing_extra(package: str, what: str) -> SourceError:
    """The error raised when an optional dependency of the ``build`` extra is missing."""
    return SourceError(
        f"{what} needs the Python package {package!r}, part of meteor-lite's 'build' extra: "
        "pip install 'meteor-lite[build]'"
    )
