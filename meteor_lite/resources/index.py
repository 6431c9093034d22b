"""Pack indexes: resource packs served from a directory or a web server (``meteor-lite bundle install NAME --index URL``).

An index (``meteor-build pack BUNDLE --index DIR`` writes one) is a PEP 503 "simple"
repository, so that ``pip install --index-url URL meteor-lite-pack-de`` works, plus a
JSON listing, :data:`INDEX_JSON`, that this module reads::

    DIR/index.html                                    links to every project
    DIR/packs.json                                    {"format": 1, "packs": [entry, ...]}
    DIR/meteor-lite-pack-de/index.html                links to the project's wheels (#sha256=...)
    DIR/meteor-lite-pack-de/meteor_lite_pack_de-1.5.0-py3-none-any.whl

Each entry names the ``bundle`` (the name the scorer finds it by), the pack's ``version``,
the wheel's ``file`` (relative to the index), its ``sha256`` and ``size``, and the bundle's
``language`` and ``content_checksum``.  :func:`install_from_index` downloads the newest pack
of a bundle, checks the wheel's SHA-256 and the bundle's content checksum against the
listing, and installs the bundle into the user bundle directory with
:func:`~.install.install_bundle` (verified, atomic; nothing is left behind on failure).
The index may be a directory path, a ``file://`` URL or an ``http(s)://`` URL.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from ..printable import one_line
from .fetch import DEFAULT_STALL, Fetch, interrupt_on_sigterm
from .install import (
    DEFAULT_DEADLINE,
    DEFAULT_MAX_BYTES,
    Installed,
    InstallError,
    _copy,
    _is_url,
    check_bounds,
    install_bundle,
    new_part_file,
    remove_stale_parts,
)
from .locate import BUNDLE_SUFFIX, user_bundle_dir
from .packs import pack_module_name

__all__ = ["INDEX_JSON", "INDEX_FORMAT", "index_base", "read_index", "newest_entry", "install_from_index", "project_name",
           "check_entry", "MAX_LISTING_BYTES"]

#: The JSON listing of an index.
INDEX_JSON = "packs.json"
#: Version of the listing's layout.
INDEX_FORMAT = 1
#: Most bytes a pack listing may have (a listing of 1,000 packs is about 400 kB).
MAX_LISTING_BYTES = 8_000_000
#: Seconds reading a pack listing may take at most (less when the download's deadline is shorter).
LISTING_DEADLINE = 120.0

_FIELDS = ("project", "bundle", "version", "file", "sha256", "size", "language", "content_checksum")


def project_name(dist: str) -> str:
    """The PEP 503 normalised name of a distribution (``meteor_lite_pack_de`` -> ``meteor-lite-pack-de``)."""
    return re.sub(r"[-_.]+", "-", dist).lower()


def index_base(index: str) -> str:
    """The index as a URL ending with ``/`` (a directory path becomes a ``file://`` URL)."""
    base = index if _is_url(index) else Path(index).expanduser().resolve().as_uri()
    return base.rstrip("/") + "/"


def read_index(
    index: str, *, deadline: float = DEFAULT_DEADLINE, stall: float = DEFAULT_STALL, max_bytes: int = MAX_LISTING_BYTES
) -> List[Dict[str, object]]:
    """The checked entries of the index's :data:`INDEX_JSON` (raises :class:`InstallError` saying what is wrong).

    The listing is read by the bounded reader (:class:`~.fetch.Fetch`: ``deadline`` and ``stall`` in
    seconds, at most ``max_bytes`` bytes, default :data:`MAX_LISTING_BYTES`) and every entry's fields are
    checked (:func:`check_entry`) before any is used or printed.
    """
    url = index_base(index) + INDEX_JSON
    label = one_line(url)
    data = bytearray()
    with interrupt_on_sigterm(), Fetch(url, deadline=min(deadline, LISTING_DEADLINE), stall=stall, max_bytes=max_bytes,
                                       what="pack index", fix_size="no pack listing is this large",
                                       http_hint=" (not a pack index? meteor-build pack --index writes one)",
                                       fix_time="give more time with --timeout") as fetch:
        for chunk in fetch.chunks():
            data += chunk
    try:
        listing = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InstallError(f"{label}: not a valid pack listing (not UTF-8: byte {exc.start + 1})") from None
    except RecursionError:
        raise InstallError(f"{label}: not a valid pack listing (JSON nested too deeply)") from None
    except ValueError as exc:
        raise InstallError(f"{label}: not a valid pack listing ({one_line(exc)})") from None
    if not isinstance(listing, dict) or listing.get("format") != INDEX_FORMAT or not isinstance(listing.get("packs"), list):
        raise InstallError(f"{label}: not a pack listing of format {INDEX_FORMAT}")
    return [check_entry(e, f"{label}: entry {i}") for i, e in enumerate(listing["packs"], start=1)]


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}")
_HEX = re.compile(r"[0-9a-f]{8,128}")
_FILE = re.compile(r"[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]+){0,7}")


def check_entry(entry: object, where: str) -> Dict[str, object]:
    """``entry`` of a listing, each field of the type and form it must have (:class:`InstallError` naming ``where``
    and the field otherwise): names, version and language short and printable, ``file`` a relative path
    inside the index, ``sha256`` 64 hexadecimal digits, ``size`` a whole number of bytes."""
    if not isinstance(entry, dict):
        raise InstallError(f"{where}: not a JSON object")
    missing = [k for k in _FIELDS if k not in entry]
    if missing:
        raise InstallError(f"{where}: lacks {', '.join(missing)} (an entry has {', '.join(_FIELDS)})")

    def bad(key: str, want: str) -> InstallError:
        shown = one_line(repr(entry[key]))
        return InstallError(f"{where}: field {key!r} is not {want} (got {shown[:80]}{'...' if len(shown) > 80 else ''})")

    for key in ("project", "bundle", "version", "language"):
        if not isinstance(entry[key], str) or not _NAME.fullmatch(entry[key]):
            raise bad(key, "a short name (letters, digits, . _ + -; at most 100)")
    f = entry["file"]
    if not isinstance(f, str) or not _FILE.fullmatch(f) or any(part in (".", "..") for part in f.split("/")):
        raise bad("file", "a relative path inside the index")
    for key, n in (("sha256", 64), ("content_checksum", 0)):
        v = entry[key]
        if not isinstance(v, str) or not _HEX.fullmatch(v) or (n and len(v) != n):
            raise bad(key, f"{n or 'a string of'} lower-case hexadecimal digits")
    size = entry["size"]
    if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size < 10**13:
        raise bad("size", "a whole number of bytes")
    return entry


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.0f} kB"


def _version_key(version: str) -> Tuple[Tuple[int, ...], str]:
    nums = re.match(r"^\d+(\.\d+)*", version)
    return (tuple(int(p) for p in nums.group(0).split(".")) if nums else (), version)


def newest_entry(entries: List[Dict[str, object]], bundle: str, where: str) -> Dict[str, object]:
    """The entry of the newest pack of ``bundle`` (raises :class:`InstallError` listing what the index has)."""
    mine = [e for e in entries if e["bundle"] == bundle]
    if not mine:
        names = sorted({str(e["bundle"]) for e in entries})
        raise InstallError(f"{where}: no pack of bundle {bundle!r} in this index (it has: {', '.join(names) or 'none'})")
    return max(mine, key=lambda e: _version_key(str(e["version"])))


def install_from_index(
    bundle: str,
    index: str,
    *,
    name: Optional[str] = None,
    dest_dir: "Optional[os.PathLike[str] | str]" = None,
    say: Optional[Callable[[str], None]] = None,
    deadline: float = DEFAULT_DEADLINE,
    max_bytes: int = DEFAULT_MAX_BYTES,
    stall: float = DEFAULT_STALL,
    force: bool = False,
) -> Installed:
    """Install the newest pack of ``bundle`` in ``index`` into ``dest_dir`` (default: the user bundle directory).

    The bundle is installed as ``<name>.sqlite`` (default: ``bundle``).  ``deadline``, ``stall`` and
    ``max_bytes`` bound the listing, the download and the bundle unpacked from the wheel, as for
    :func:`~.install.install_bundle`.  The wheel's SHA-256, the bundle's content checksum and its language
    must be those the listing gives; every text of the listing is printed escaped (:func:`~..printable.one_line`).
    """
    check_bounds(deadline, max_bytes)
    base = index_base(index)
    entry = newest_entry(read_index(index, deadline=deadline, stall=stall), bundle, one_line(base))
    url = base + str(entry["file"])
    dest = Path(dest_dir) if dest_dir is not None else user_bundle_dir()
    if say is not None:
        say(f"downloading {one_line(url)} ({_size(int(str(entry['size'])))})")
    wheel: Optional[Path] = None
    sqlite: Optional[Path] = None
    with interrupt_on_sigterm():
        try:
            dest.mkdir(parents=True, exist_ok=True)
            remove_stale_parts(dest)
            fd, wheel = new_part_file(dest, f"{bundle}.whl")
            with os.fdopen(fd, "wb") as out:
                digest = _copy(url, out, None, deadline, max_bytes, stall)
            if digest != entry["sha256"]:
                raise InstallError(f"{one_line(url)}: sha256 mismatch: the file's is {digest}, the index lists "
                                   f"{entry['sha256']}")
            fd, sqlite = new_part_file(dest, f"{bundle}.sqlite")
            _unpack(wheel, fd, f"{pack_module_name(bundle)}/{bundle}{BUNDLE_SUFFIX}", one_line(url), bundle, max_bytes)
            wheel.unlink()
            wheel = None
            _check_against_entry(sqlite, entry, one_line(url))
            done = install_bundle(str(sqlite), name=name or bundle, dest_dir=dest, force=force)
        except OSError as exc:
            raise InstallError(f"cannot install into {dest}: {exc.strerror or exc}") from None
        finally:
            for p in (wheel, sqlite):
                if p is not None:
                    p.unlink(missing_ok=True)
    return done


def _unpack(wheel: Path, fd: int, member: str, label: str, bundle: str, max_bytes: int) -> None:
    """Write the wheel's ``member`` to the descriptor ``fd`` (at most ``max_bytes`` bytes)."""
    import zipfile
    import zlib

    try:
        with zipfile.ZipFile(wheel) as zf, zf.open(member) as inp, os.fdopen(fd, "wb") as out:
            unpacked = 0
            for chunk in iter(lambda: inp.read(1 << 20), b""):
                unpacked += len(chunk)
                if unpacked > max_bytes:
                    raise InstallError(f"{label}: the pack's bundle unpacks to more than {max_bytes:,} bytes (the size cap)")
                out.write(chunk)
    except (zipfile.BadZipFile, KeyError, EOFError, zlib.error, NotImplementedError, RuntimeError, ValueError) as exc:
        raise InstallError(f"{label}: not a resource pack of bundle {bundle!r} ({one_line(exc)})") from None


def _check_against_entry(sqlite: Path, entry: Dict[str, object], label: str) -> None:
    """The unpacked bundle's content checksum and language must be the listing's (:class:`InstallError`)."""
    from ..errors import BundleError
    from .bundle import Bundle

    try:
        with Bundle.open(sqlite) as b:
            checksum, language = b.checksum, b.language
    except BundleError as exc:
        raise InstallError(f"{label}: not a usable bundle ({str(exc).replace(str(sqlite) + ': ', '')})") from None
    if checksum != entry["content_checksum"]:
        raise InstallError(f"{label}: the bundle's content checksum is {one_line(checksum)}, the index lists "
                           f"{entry['content_checksum']}")
    if language != entry["language"]:
        raise InstallError(f"{label}: the index lists this pack as language {entry['language']!r}, but its bundle is "
                           f"for {one_line(language)!r}: not installed")
