"""Installing bundle files into the user bundle directory (``meteor-lite bundle install|remove``).

:func:`install_bundle` copies a bundle (plain, ``.xz``, or ``.zst`` when the
``zstandard`` module is importable) from a path or an ``http(s)``/``file`` URL into
:func:`~meteor_lite.resources.locate.user_bundle_dir`:

1. streamed (decompressed on the fly) into a hidden ``.part`` file in the target directory;
2. the downloaded bytes' SHA-256 checked against ``sha256`` when given, and the byte
   count against the server's ``Content-Length`` (a truncated transfer is an error);
3. the file opened as a bundle and its content checksum verified (:meth:`Bundle.verify`);
4. renamed into place (``os.replace``: atomic).  An existing bundle of the name is replaced when it has
   the same content checksum, or another one with ``force`` only (else :class:`InstallError` naming
   ``--force`` and ``--name``: a bundle is never replaced by another one silently).

Any failure raises :class:`InstallError` with a one-line message and leaves nothing behind.

A source is untrusted: it is read by the one bounded reader of :mod:`.fetch` (an overall deadline
covering connection, headers and body, ``deadline`` seconds, default :data:`DEFAULT_DEADLINE`; a stall
limit, ``stall``, default 15 s without a byte; a header deadline, ``header_deadline``, default 30 s; a
minimum rate, ``min_rate``, default 1,000 bytes a second over each ``rate_window`` of 30 s; a size cap on the bytes received and on the bytes
written, ``max_bytes``, default :data:`DEFAULT_MAX_BYTES`, a ``Content-Length`` above it refused before
any byte is read; redirects followed only to http(s)), and decompressed never more than about one MiB
of output at a time (an xz bomb cannot fill the memory).  The ``.part`` file is removed on any error,
on Ctrl-C and on SIGTERM; one of an install that was killed outright (SIGKILL, power loss) is named
after its process and removed by the next install into the directory once that process is gone.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, NamedTuple, Optional, Tuple, Type

from ..errors import BundleError
from ..scratch import pid_alive
from .bundle import Bundle
from .fetch import (
    DEFAULT_HEADER_DEADLINE,
    DEFAULT_MIN_RATE,
    DEFAULT_RATE_WINDOW,
    DEFAULT_STALL,
    Fetch,
    InstallError,
    interrupt_on_sigterm,
    is_url,
)
from .locate import BUNDLE_SUFFIX, find_bundle, user_bundle_dir
from .mapped import mapped_path

__all__ = ["DEFAULT_DEADLINE", "DEFAULT_MAX_BYTES", "InstallError", "Installed", "install_bundle", "remove_bundle",
           "remove_stale_parts", "new_part_file", "check_bounds", "bundle_name_from_source"]

_CHUNK = 1 << 20

#: Seconds a download may take in all (``install_bundle(deadline=...)``, ``--timeout``).
DEFAULT_DEADLINE = 3600.0

#: Most bytes a download may have, compressed or decompressed (``install_bundle(max_bytes=...)``,
#: ``--max-size``): 2 GB, beyond any bundle built so far (English, the largest: 113 MB).
DEFAULT_MAX_BYTES = 2_000_000_000

#: Input fed to the zstd decompressor at a time (it has no output bound: 1 KiB of zstd expands to ~32 MiB at most).
_ZST_PIECE = 1 << 10
_XZ_MAGIC = b"\xfd7zXZ\x00"
_ZST_MAGIC = b"\x28\xb5\x2f\xfd"


class Installed(NamedTuple):
    """What :func:`install_bundle` installed."""

    path: Path
    name: str  # the name it is installed as (``<name>.sqlite``)
    bundle_name: str  # the bundle's own name (its metadata)
    version: str
    checksum: str
    replaced: bool
    size: int


def _is_url(source: str) -> bool:
    return is_url(source)


def _url_path(url: str) -> str:
    """``url`` without its query (``?...``) and fragment (``#...``): what names the file."""
    return url.split("#", 1)[0].split("?", 1)[0]


def bundle_name_from_source(source: str) -> str:
    """The bundle name a source gives: its file name without ``.xz``/``.zst`` and ``.sqlite`` (``en.sqlite.xz`` -> ``en``)."""
    base = _url_path(source).rstrip("/").rsplit("/", 1)[-1] if _is_url(source) else Path(source).name
    for suffix in (".xz", ".zst", BUNDLE_SUFFIX):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return base


def _check_name(name: str) -> str:
    if name.endswith(BUNDLE_SUFFIX):
        name = name[: -len(BUNDLE_SUFFIX)]
    if not name or name.startswith(".") or "/" in name or os.sep in name or "\x00" in name:
        raise InstallError(f"invalid bundle name {name!r} (give one with --name)")
    return name


class _Decoder:
    """Decompresses a stream chunk by chunk: ``plain``, ``xz`` or ``zst``."""

    def __init__(self, kind: str, label: str):
        self.kind, self.label = kind, label
        self._obj: Any = None
        if kind == "xz":
            import lzma

            self._errors: Tuple[Type[BaseException], ...] = (lzma.LZMAError, EOFError)
            self._obj = lzma.LZMADecompressor()
        elif kind == "zst":
            zstandard = _zstandard(label)
            self._errors = (zstandard.ZstdError,)
            self._obj = zstandard.ZstdDecompressor().decompressobj()
        else:
            self._errors = ()

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decompressed bytes of ``data``, in pieces of about :data:`_CHUNK` at most (xz) or from
        :data:`_ZST_PIECE` input bytes at a time (zstd): never the whole expansion at once."""
        if self._obj is None:
            yield data
            return
        try:
            if self.kind == "xz":
                yield self._obj.decompress(data, max_length=_CHUNK)
                while not self._obj.needs_input and not self._obj.eof:
                    yield self._obj.decompress(b"", max_length=_CHUNK)
            else:
                for i in range(0, len(data), _ZST_PIECE):
                    yield bytes(self._obj.decompress(data[i : i + _ZST_PIECE]))
        except self._errors as exc:
            raise InstallError(f"{self.label}: not a valid {self.kind} stream ({exc})") from None

    def finish(self) -> None:
        """Raise when a compressed stream ended early (a truncated transfer)."""
        if self._obj is not None and getattr(self._obj, "eof", True) is False:
            raise InstallError(f"{self.label}: the {self.kind} stream ends early (truncated transfer)")


def _zstandard(label: str) -> Any:
    try:
        import zstandard  # type: ignore[import-not-found]
    except ImportError:
        raise InstallError(
            f"{label}: a .zst file needs the 'zstandard' module (pip install zstandard), which is not installed; "
            "or give the plain or .xz file"
        ) from None
    return zstandard


def _kind(source: str, head: bytes) -> str:
    name = (_url_path(source) if _is_url(source) else source).lower()
    if name.endswith(".xz") or head.startswith(_XZ_MAGIC):
        return "xz"
    if name.endswith(".zst") or head.startswith(_ZST_MAGIC):
        return "zst"
    return "plain"


def _copy(
    source: str,
    out: BinaryIO,
    progress: Optional[Callable[[int], None]],
    deadline: float = DEFAULT_DEADLINE,
    max_bytes: int = DEFAULT_MAX_BYTES,
    stall: float = DEFAULT_STALL,
    *,
    header_deadline: float = DEFAULT_HEADER_DEADLINE,
    min_rate: float = DEFAULT_MIN_RATE,
    rate_window: float = DEFAULT_RATE_WINDOW,
) -> str:
    """Stream ``source`` (a path or URL, read by :class:`~.fetch.Fetch`) into ``out`` (decompressed); return the
    SHA-256 of the bytes read.

    Raises :class:`InstallError` past ``deadline`` seconds, after ``stall`` seconds without data, or beyond
    ``max_bytes`` bytes (received, or written after decompression), or as ``header_deadline``, ``min_rate`` and
    ``rate_window`` say (:class:`~.fetch.Fetch`).
    """
    digest = hashlib.sha256()
    written = 0
    with Fetch(source, deadline=deadline, stall=stall, max_bytes=max_bytes, paths=True,
               header_deadline=header_deadline, min_rate=min_rate, rate_window=rate_window) as fetch:
        decoder: Optional[_Decoder] = None
        head = b""
        for chunk in fetch.chunks():
            digest.update(chunk)
            if decoder is None:  # enough of the start to recognise the format
                head += chunk
                if len(head) < len(_XZ_MAGIC):
                    continue
                decoder, chunk = _Decoder(_kind(source, head), fetch.label), head
            for piece in decoder.feed(chunk):
                written += len(piece)
                fetch.check(written)
                out.write(piece)
            if progress is not None:
                progress(fetch.received)
        if decoder is None:
            decoder = _Decoder(_kind(source, head), fetch.label)
            for piece in decoder.feed(head) if head else ():
                written += len(piece)
                fetch.check(written)
                out.write(piece)
        fetch.check(written)
    decoder.finish()
    return digest.hexdigest()


def _verify(tmp: Path, source: str) -> Tuple[str, str, str]:
    """Open ``tmp`` as a bundle and check its content checksum; return (name, version, checksum)."""
    try:
        with Bundle.open(tmp) as b:
            problems = b.verify()
            found = (b.meta.get("name", ""), b.version, b.checksum)
    except BundleError as exc:
        reason = str(exc).replace(str(tmp) + ": ", "").replace(str(tmp), source)  # the file the user named
        raise InstallError(f"{source}: not a usable bundle ({reason})") from None
    if problems:
        raise InstallError(f"{source}: bundle fails verification: {problems[0]}")
    return found


def _default_mode(path: Path) -> None:
    """Give a temporary file (created 0600) the mode a new file gets under the current umask."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(path, 0o666 & ~mask)


#: A ``.part`` file whose name carries no process id (older meteor-lite) is stale after this many seconds.
_UNNAMED_PART_STALE_AFTER = 24 * 3600


#: The install's process id in the name of a file made from a ``.part`` file's name (``..en.<pid>.<random>.part.
#: <pid2>.<random>.tmp``: the temporary file of the builder that writes the .part, or its SQLite side files).
_PART_INSIDE = re.compile(r"^\.+.*?\.(\d+)\.[A-Za-z0-9_]+\.part\.")


def remove_stale_parts(dest: Path) -> None:
    """Delete the ``.<name>.<pid>.<random>.part`` files of installs whose process is gone (killed outright), the
    files named after them (a builder's ``..<name>.<pid>.<random>.part.<pid>.<random>.tmp`` and its SQLite side
    files), and unnamed ones older than a day; best effort (an error leaves the file)."""
    import time

    try:
        parts = [p for p in dest.iterdir() if p.name.startswith(".") and (p.name.endswith(".part") or ".part." in p.name)]
    except OSError:
        return
    for p in parts:
        if not p.name.endswith(".part"):  # a file written beside a .part (a builder's .tmp, its SQLite journal)
            inner = _PART_INSIDE.match(p.name)
            try:
                if inner and int(inner.group(1)) != os.getpid() and not pid_alive(int(inner.group(1))):
                    p.unlink()
            except OSError:
                pass
            continue
        fields = p.name[1 : -len(".part")].rsplit(".", 2)
        try:
            if len(fields) == 3 and fields[1].isdigit():
                if int(fields[1]) != os.getpid() and not pid_alive(int(fields[1])):
                    p.unlink()
            elif time.time() - p.stat().st_mtime > _UNNAMED_PART_STALE_AFTER:
                p.unlink()
        except OSError:
            pass


def check_bounds(deadline: float, max_bytes: int) -> None:
    """Refuse a download deadline or size cap that is not positive (:class:`InstallError`)."""
    if not deadline > 0 or not max_bytes > 0:
        raise InstallError(f"the deadline and the size cap must be positive, got {deadline!r} s and {max_bytes!r} bytes")


def new_part_file(dest: Path, name: str) -> Tuple[int, Path]:
    """A new hidden ``.<name>.<pid>.<random>.part`` file in ``dest`` (open descriptor, path), named so that
    :func:`remove_stale_parts` removes it once this process is gone."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.{os.getpid()}.", suffix=".part", dir=dest)
    return fd, Path(tmp_name)


def install_bundle(
    source: str,
    *,
    sha256: Optional[str] = None,
    name: Optional[str] = None,
    dest_dir: "Optional[os.PathLike[str] | str]" = None,
    progress: Optional[Callable[[int], None]] = None,
    deadline: float = DEFAULT_DEADLINE,
    max_bytes: int = DEFAULT_MAX_BYTES,
    stall: float = DEFAULT_STALL,
    force: bool = False,
    header_deadline: float = DEFAULT_HEADER_DEADLINE,
    min_rate: float = DEFAULT_MIN_RATE,
    rate_window: float = DEFAULT_RATE_WINDOW,
) -> Installed:
    """Install the bundle at ``source`` (path or URL) as ``<dest_dir>/<name>.sqlite``; see the module docstring.

    ``deadline`` (seconds), ``stall`` (seconds without data) and ``max_bytes`` bound the download
    (:data:`DEFAULT_DEADLINE`, :data:`~.fetch.DEFAULT_STALL`, :data:`DEFAULT_MAX_BYTES`), as do
    ``header_deadline`` (seconds for the response headers), ``min_rate`` (bytes a second) and ``rate_window``
    (seconds over which the rate is averaged): see :mod:`~.fetch`.
    """
    check_bounds(deadline, max_bytes)
    if sha256 is not None:
        sha256 = sha256.strip().lower()
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise InstallError(f"--sha256 takes 64 hexadecimal digits, got {sha256!r}")
    name = _check_name(name if name is not None else bundle_name_from_source(source))
    dest = Path(dest_dir) if dest_dir is not None else user_bundle_dir()
    target = dest / f"{name}{BUNDLE_SUFFIX}"
    tmp: Optional[Path] = None
    with interrupt_on_sigterm():
        try:
            dest.mkdir(parents=True, exist_ok=True)
            remove_stale_parts(dest)
            fd, tmp = new_part_file(dest, name)
            with os.fdopen(fd, "wb") as out:
                digest = _copy(source, out, progress, deadline, max_bytes, stall, header_deadline=header_deadline,
                               min_rate=min_rate, rate_window=rate_window)
                out.flush()
                os.fsync(out.fileno())
            if sha256 is not None and digest != sha256:
                raise InstallError(f"{source}: sha256 mismatch: the file's is {digest}, expected {sha256}")
            bundle_name, version, checksum = _verify(tmp, source)
            size = tmp.stat().st_size
            replaced = target.exists()
            if replaced and not force:
                _refuse_other(target, checksum)
            _default_mode(tmp)
            os.replace(tmp, target)
            tmp = None
            from .integrity import remember

            remember(target, checksum)  # just verified: the first score need not verify it again
        except OSError as exc:
            raise InstallError(f"cannot install into {dest}: {exc.strerror or exc}") from None
        finally:
            if tmp is not None:
                tmp.unlink(missing_ok=True)
    return Installed(target, name, bundle_name or name, version, checksum, replaced, size)


def _refuse_other(target: Path, checksum: str) -> None:
    """Raise :class:`InstallError` when ``target`` holds a bundle whose content checksum is not ``checksum``."""
    try:
        with Bundle.open(target) as b:
            theirs = (b.meta.get("name", ""), b.version, b.checksum)
    except BundleError:
        theirs = ("unreadable", "?", "?")
    if theirs[2] != checksum:
        raise InstallError(
            f"{target} ({theirs[0]} {theirs[1]} @{theirs[2][:8]}) is already installed; the new bundle is "
            f"another one (@{checksum[:8]}): not replaced; give --force to replace it, or --name NAME to install beside it"
        )


def remove_bundle(name: str, *, dest_dir: "Optional[os.PathLike[str] | str]" = None) -> Path:
    """Delete ``<name>.sqlite`` (and its mapped look-up file) from the user bundle directory; return its path.

    A bundle that comes from an installed pack (or any place other than the user
    directory) is refused, saying how to remove it.
    """
    name = _check_name(name)
    dest = Path(dest_dir) if dest_dir is not None else user_bundle_dir()
    target = dest / f"{name}{BUNDLE_SUFFIX}"
    if target.is_file():
        try:
            target.unlink()
        except OSError as exc:
            raise InstallError(f"cannot remove {target}: {exc.strerror or exc}") from None
        mapped_path(target).unlink(missing_ok=True)  # its look-up file (resources/mapped.py), derived from it
        return target
    from .packs import pack_bundles

    for pack in pack_bundles():
        if pack.name == name:
            raise InstallError(
                f"bundle {name!r} comes from the installed pack {pack.dist}; remove it with: pip uninstall {pack.dist}"
            )
    elsewhere = find_bundle(name)
    if elsewhere is not None:
        raise InstallError(f"bundle {name!r} is not in the user bundle directory {dest}; it is {elsewhere} (not removed)")
    raise InstallError(f"no bundle {name!r} in the user bundle directory {dest}")
