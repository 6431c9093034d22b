"""Writing a resource pack: one bundle in a wheel, declared in the ``meteor_lite.bundles`` entry-point group.

The wheel (PEP 427) is written directly with :mod:`zipfile`, deterministically (fixed
timestamps and permissions, files in a fixed order, ``ZIP_DEFLATED`` level 9):

- ``meteor_lite_pack_<name>/__init__.py`` (a docstring) and ``meteor_lite_pack_<name>/<name>.sqlite``;
- ``<dist>-<version>.dist-info/``: ``METADATA``, ``WHEEL``, ``entry_points.txt``
  (``[meteor_lite.bundles]`` ``<name> = meteor_lite_pack_<name>``) and ``RECORD`` (sha256 of each file).

The pack has no dependencies (it is data); install it beside meteor-lite with pip.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Tuple

from meteor_lite import __version__
from meteor_lite.printable import is_one_line, one_line
from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.locate import BUNDLE_SUFFIX
from meteor_lite.resources.packs import ENTRY_POINT_GROUP, pack_module_name

from ..errors import BuildError

__all__ = ["PackError", "PackResult", "write_pack", "ZIP_DATE"]

#: Timestamp of every file in the wheel (the earliest a zip can hold): the same bundle gives the same wheel.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
_CHUNK = 1 << 20
_VERSION = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")


class PackError(BuildError):
    """A pack cannot be made (an unreadable or unverifiable bundle, an invalid name or version)."""


class PackResult(NamedTuple):
    """What :func:`write_pack` wrote."""

    path: Path
    dist: str
    name: str
    version: str
    bundle_size: int


def _b64(digest: bytes) -> str:
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _info(name: str) -> zipfile.ZipInfo:
    zi = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    zi.external_attr = 0o644 << 16
    zi.compress_type = zipfile.ZIP_DEFLATED
    # What ZipFile.open(zinfo, "w") compresses with (Python 3.13 also calls it compress_level).
    zi._compresslevel = 9  # type: ignore[attr-defined]
    return zi


def _add_bytes(zf: zipfile.ZipFile, arcname: str, data: bytes, record: List[str]) -> None:
    with zf.open(_info(arcname), "w") as f:
        f.write(data)
    record.append(f"{arcname},sha256={_b64(hashlib.sha256(data).digest())},{len(data)}")


def _add_file(zf: zipfile.ZipFile, arcname: str, src: Path, record: List[str]) -> int:
    digest = hashlib.sha256()
    size = 0
    with open(src, "rb") as inp, zf.open(_info(arcname), "w", force_zip64=True) as out:
        for chunk in iter(lambda: inp.read(_CHUNK), b""):
            digest.update(chunk)
            size += len(chunk)
            out.write(chunk)
    record.append(f"{arcname},sha256={_b64(digest.digest())},{size}")
    return size


def _metadata(dist: str, version: str, name: str, meta: Dict[str, str], licences: List[str], origin: str = "") -> str:
    """The wheel's METADATA; a value with a control character or line break is refused (:class:`PackError`)."""
    summary = f"meteor-lite resource pack: bundle {name} ({meta.get('language', '?')} {meta.get('version', '?')})"
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {dist}",
        f"Version: {version}",
        f"Summary: {summary}",
        "License: " + ("; ".join(licences) if licences else "see the bundle's provenance (meteor-lite bundle info)"),
        "Keywords: meteor-lite,meteor,resource-pack",
        "Description-Content-Type: text/plain",
    ]
    for line in lines:  # metadata is data: a newline in a value would add a header (a dependency, ...)
        if not is_one_line(line):
            field = line.split(":", 1)[0]
            raise PackError(
                f"{origin or name}: the wheel's {field} would hold a control character or line break "
                f"({one_line(line)}): fix the bundle's metadata or its sources' licences"
            )
    lines += [
        "",
        f"{one_line(summary)}.",
        "",
        f"Installed beside meteor-lite, the scorer finds the bundle as '{name}' (entry point group {ENTRY_POINT_GROUP}).",
        f"Content checksum: {one_line(meta.get('content_checksum', ''))}",
        f"Built with meteor-build (meteor-lite {__version__}).",
        "",
    ]
    return "\n".join(lines)


def _read_bundle(bundle: Path, verify: bool) -> Tuple[Dict[str, str], List[str]]:
    """The bundle's metadata and source licences (after checking its content checksum when ``verify``)."""
    with Bundle.open(bundle) as b:
        problems = b.verify() if verify else []
        meta = dict(b.meta)
        licences = sorted({s["licence"] for s in b.sources() if s.get("licence")})
    if problems:
        raise PackError(f"{bundle}: bundle fails verification: {problems[0]}")
    return meta, licences


def write_pack(
    bundle: "os.PathLike[str] | str",
    out_dir: "os.PathLike[str] | str",
    *,
    name: Optional[str] = None,
    version: Optional[str] = None,
    verify: bool = True,
) -> PackResult:
    """Write the pack wheel of ``bundle`` into ``out_dir`` (atomically); see the module docstring.

    ``name`` is the name the scorer finds the bundle by (default: the file name
    without ``.sqlite``, e.g. ``en``); ``version`` the pack's version (default: the bundle's).
    """
    src = Path(bundle)
    meta, licences = _read_bundle(src, verify)
    name = name or (src.name[: -len(BUNDLE_SUFFIX)] if src.name.endswith(BUNDLE_SUFFIX) else src.stem)
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise PackError(f"invalid bundle name {name!r} for a pack (letters, digits, '_', '.', '-')")
    version = version or meta.get("version", "")
    if not _VERSION.fullmatch(version):
        raise PackError(f"bundle version {version!r} is not a valid package version: give one with --pack-version")
    pkg = pack_module_name(name)
    info_dir = f"{pkg}-{version}.dist-info"
    metadata = _metadata(pkg, version, name, meta, licences, str(src))  # refused before anything is written
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{pkg}-{version}-py3-none-any.whl"
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=out)
    os.close(fd)
    try:
        record: List[str] = []
        with zipfile.ZipFile(tmp_name, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
            _add_bytes(zf, f"{pkg}/__init__.py",
                       f'"""meteor-lite resource pack: the bundle {name}{BUNDLE_SUFFIX} (data only; never imported by the scorer)."""\n'.encode(),
                       record)
            size = _add_file(zf, f"{pkg}/{name}{BUNDLE_SUFFIX}", src, record)
            _add_bytes(zf, f"{info_dir}/METADATA", metadata.encode(), record)
            wheel = f"Wheel-Version: 1.0\nGenerator: meteor-build (meteor-lite {__version__})\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
            _add_bytes(zf, f"{info_dir}/WHEEL", wheel.encode(), record)
            _add_bytes(zf, f"{info_dir}/entry_points.txt", f"[{ENTRY_POINT_GROUP}]\n{name} = {pkg}\n".encode(), record)
            record.append(f"{info_dir}/RECORD,,")
            with zf.open(_info(f"{info_dir}/RECORD"), "w") as f:
                f.write(("\n".join(record) + "\n").encode())
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp_name, 0o666 & ~mask)  # mkstemp creates 0600; a wheel is a plain file
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return PackResult(target, pkg, name, version, size)
