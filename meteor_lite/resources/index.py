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

__all__ = ["INDEX_JSON", "INDEX_FORMAT", "index_base", "read_index", "newest_entry", "install_from_index", "project_name"]

#: The JSON listing of an index.
INDEX_JSON = "packs.json"
#: Version of the listing's layout.
INDEX_FORMAT = 1
_FIELDS = ("project", "bundle", "version", "file", "sha256", "size", "language", "content_checksum")


def project_name(dist: str) -> str:
    """The PEP 503 normalised name of a distribution (``meteor_lite_pack_de`` -> ``meteor-lite-pack-de``)."""
    return re.sub(r"[-_.]+", "-", dist).lower()


def index_base(index: str) -> str:
    """The index as a URL ending with ``/`` (a directory path becomes a ``file://`` URL)."""
    base = index if _is_url(index) else Path(index).expanduser().resolve().as_uri()
    return base.rstrip("/") + "/"


def read_index(index: str) -> List[Dict[str, object]]:
    """The entries of the index's :data:`INDEX_JSON` (raises :class:`InstallError` saying what is wrong)."""
    import urllib.error
    import urllib.request

    url = index_base(index) + INDEX_JSON
    try:
        with urllib.request.urlopen(url, timeout=60) as resp:  # noqa: S310 - the user names the index
            data = resp.read()
    except urllib.error.HTTPError as exc:
        raise InstallError(f"{url}: HTTP {exc.code} {exc.reason} (not a pack index? meteor-build pack --index writes one)") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise InstallError(f"{url}: cannot read the pack index ({reason})") from None
    try:
        listing = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InstallError(f"{url}: not a valid pack listing ({exc})") from None
    if not isinstance(listing, dict) or listing.get("format") != INDEX_FORMAT or not isinstance(listing.get("packs"), list):
        raise InstallError(f"{url}: not a pack listing of format {INDEX_FORMAT}")
    entries = listing["packs"]
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or any(k not in e for k in _FIELDS):
            raise InstallError(f"{url}: entry {i + 1} lacks one of {', '.join(_FIELDS)}")
    return entries


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
    force: bool = False,
) -> Installed:
    """Install the newest pack of ``bundle`` in ``index`` into ``dest_dir`` (default: the user bundle directory).

    The bundle is installed as ``<name>.sqlite`` (default: ``bundle``).  ``deadline`` and ``max_bytes``
    bound the download and the bundle unpacked from the wheel, as for :func:`~.install.install_bundle`.
    """
    import zipfile

    check_bounds(deadline, max_bytes)

    base = index_base(index)
    entry = newest_entry(read_index(index), bundle, base)
    url = base + str(entry["file"])
    dest = Path(dest_dir) if dest_dir is not None else user_bundle_dir()
    if say is not None:
        say(f"downloading {url} ({_size(int(str(entry['size'])))})")
    wheel: Optional[Path] = None
    sqlite: Optional[Path] = None
    try:
        dest.mkdir(parents=True, exist_ok=True)
        remove_stale_parts(dest)
        fd, wheel = new_part_file(dest, f"{bundle}.whl")
        with os.fdopen(fd, "wb") as out:
            digest = _copy(url, out, None, deadline, max_bytes)
        if digest != entry["sha256"]:
            raise InstallError(f"{url}: sha256 mismatch: the file's is {digest}, the index lists {entry['sha256']}")
        member = f"{pack_module_name(bundle)}/{bundle}{BUNDLE_SUFFIX}"
        fd, sqlite = new_part_file(dest, f"{bundle}.sqlite")
        try:
            with zipfile.ZipFile(wheel) as zf, zf.open(member) as inp, os.fdopen(fd, "wb") as out:
                unpacked = 0
                for chunk in iter(lambda: inp.read(1 << 20), b""):
                    unpacked += len(chunk)
                    if unpacked > max_bytes:
                        raise InstallError(f"{url}: the pack's bundle unpacks to more than {max_bytes:,} bytes (the size cap)")
                    out.write(chunk)
        except (zipfile.BadZipFile, KeyError, EOFError) as exc:
            raise InstallError(f"{url}: not a resource pack of bundle {bundle!r} ({exc})") from None
        wheel.unlink()
        wheel = None
        from ..errors import BundleError
        from .bundle import Bundle

        try:
            with Bundle.open(sqlite) as b:
                checksum = b.checksum
        except BundleError as exc:
            raise InstallError(f"{url}: not a usable bundle ({str(exc).replace(str(sqlite) + ': ', '')})") from None
        if checksum != entry["content_checksum"]:
            raise InstallError(f"{url}: the bundle's content checksum is {checksum}, the index lists {entry['content_checksum']}")
        done = install_bundle(str(sqlite), name=name or bundle, dest_dir=dest, force=force)
    except OSError as exc:
        raise InstallError(f"cannot install into {dest}: {exc.strerror or exc}") from None
    finally:
        for p in (wheel, sqlite):
            if p is not None:
                p.unlink(missing_ok=True)
    return done
