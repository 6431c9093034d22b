"""Writing a pack index (``meteor-build pack BUNDLE --index DIR``): a PEP 503 simple repository plus a JSON listing.

The layout is described in :mod:`meteor_lite.resources.index` (which reads it).  Adding a
pack writes its wheel into ``DIR/<project>/``, then rewrites the listing ``packs.json``
(an entry per wheel: bundle name, version, file, sha256, size, language, content checksum;
a pack of the same project and version replaces the old entry; entries whose wheel is gone
are dropped) and every ``index.html`` from it, each file atomically.  Any directory server
(``python -m http.server``, a static site, object storage) can then serve ``DIR`` to
``pip install --index-url URL meteor-lite-pack-de`` and ``meteor-lite bundle install de --index URL``.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

from meteor_lite.atomicfile import atomic_path
from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.index import INDEX_FORMAT, INDEX_JSON, project_name
from meteor_lite.resources.packs import pack_module_name

from .wheel import PackError, PackResult, write_pack

__all__ = ["IndexResult", "add_to_index", "write_index_pages"]


class IndexResult(NamedTuple):
    """What :func:`add_to_index` did."""

    pack: PackResult
    project: str
    entry: Dict[str, object]
    packs: int  # entries in the listing afterwards


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _write_text(path: Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def _read_listing(index: Path) -> List[Dict[str, object]]:
    path = index / INDEX_JSON
    if not path.is_file():
        return []
    try:
        listing = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise PackError(f"{path}: not a readable pack listing ({exc}); remove it to start a new index") from None
    if not isinstance(listing, dict) or listing.get("format") != INDEX_FORMAT or not isinstance(listing.get("packs"), list):
        raise PackError(f"{path}: not a pack listing of format {INDEX_FORMAT}")
    return [e for e in listing["packs"] if isinstance(e, dict)]


def write_index_pages(index: Path, entries: List[Dict[str, object]]) -> None:
    """``packs.json`` and the PEP 503 pages (``index.html`` at the root and in each project) from ``entries``."""
    entries = sorted(entries, key=lambda e: (str(e["project"]), str(e["version"])))
    _write_text(index / INDEX_JSON, json.dumps({"format": INDEX_FORMAT, "packs": entries}, indent=1, sort_keys=True) + "\n")
    head = '<!DOCTYPE html>\n<html>\n<head><meta name="pypi:repository-version" content="1.0"><title>{}</title></head>\n<body>\n'
    projects = sorted({str(e["project"]) for e in entries})
    links = "".join(f'<a href="{html.escape(p)}/">{html.escape(p)}</a><br>\n' for p in projects)
    _write_text(index / "index.html", head.format("meteor-lite resource packs") + links + "</body>\n</html>\n")
    for p in projects:
        files = [e for e in entries if e["project"] == p]
        links = "".join(
            f'<a href="{html.escape(Path(str(e["file"])).name)}#sha256={e["sha256"]}">{html.escape(Path(str(e["file"])).name)}</a><br>\n'
            for e in files
        )
        _write_text(index / p / "index.html", head.format(f"Links for {html.escape(p)}") + links + "</body>\n</html>\n")


def add_to_index(
    bundle: "os.PathLike[str] | str",
    index_dir: "os.PathLike[str] | str",
    *,
    name: Optional[str] = None,
    version: Optional[str] = None,
    verify: bool = True,
) -> IndexResult:
    """Write the pack of ``bundle`` into the index at ``index_dir`` and update its listing and pages."""
    index = Path(index_dir)
    entries = _read_listing(index)  # before writing anything: a broken listing stops here
    src = Path(bundle)
    bundle_name = name or (src.name[: -len(".sqlite")] if src.name.endswith(".sqlite") else src.stem)
    project = project_name(pack_module_name(bundle_name))
    res = write_pack(src, index / project, name=name, version=version, verify=verify)
    with Bundle.open(src) as b:
        language, checksum = b.language, b.checksum
    entry: Dict[str, object] = {
        "project": project,
        "bundle": res.name,
        "version": res.version,
        "file": f"{project}/{res.path.name}",
        "sha256": _sha256(res.path),
        "size": res.path.stat().st_size,
        "language": language,
        "content_checksum": checksum,
    }
    kept = [e for e in entries if not (e.get("project") == project and e.get("version") == res.version)]
    kept = [e for e in kept if (index / str(e.get("file", ""))).is_file()]
    kept.append(entry)
    write_index_pages(index, kept)
    return IndexResult(res, project, entry, len(kept))
