"""``meteor-build pack``: a bundle as a pip-installable resource pack (a wheel)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer

from .errors import fail, library_errors


def _bundle_path(bundle: str) -> Path:
    """A bundle file, or the bundle of that name on the scorer's search path (``en``)."""
    p = Path(bundle)
    if p.exists() or "/" in bundle:
        return p
    from meteor_lite.resources.locate import find_bundle

    found = find_bundle(bundle)
    if found is None:
        raise fail(f"{bundle}: no such file, and no bundle of that name on the search path (meteor-lite bundle list)")
    return found


def pack_cmd(
    bundle: str = typer.Argument(..., help="Bundle file, or the name of a bundle on the search path (e.g. en)."),
    out: Path = typer.Option(Path("."), "--out", "-o", help="Directory to write the wheel into.", show_default=True),
    name: Optional[str] = typer.Option(
        None, "--name", help="Name the scorer finds the bundle by (default: the file name without .sqlite, e.g. en)."
    ),
    version: Optional[str] = typer.Option(None, "--pack-version", help="Version of the pack (default: the bundle's)."),
    verify: bool = typer.Option(True, "--verify/--no-verify", help="Check the bundle's content checksum first."),
) -> None:
    """Write a resource pack: meteor_lite_pack_<name>-<version>-py3-none-any.whl, holding the bundle.

    Install it with pip beside meteor-lite (pip install meteor_lite_pack_en-1.5.0-py3-none-any.whl);
    the scorer then finds the bundle by its name (entry point group meteor_lite.bundles) with no path.
    """
    from ..packs import write_pack

    path = _bundle_path(bundle)
    started = time.perf_counter()
    with library_errors():
        res = write_pack(path, out, name=name, version=version, verify=verify)
    size = res.path.stat().st_size
    typer.echo(
        f"wrote {res.path} ({size / 1e6:.1f} MB; bundle {res.name} {res.bundle_size / 1e6:.1f} MB) "
        f"in {time.perf_counter() - started:.1f} s; install with: pip install {res.path}"
    )
