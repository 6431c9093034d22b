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
    index: Optional[Path] = typer.Option(
        None, "--index", help="Write the pack into this pack index (a PEP 503 simple repository + packs.json) instead of --out."
    ),
) -> None:
    """Write a resource pack: meteor_lite_pack_<name>-<version>-py3-none-any.whl, holding the bundle.

    Install it with pip beside meteor-lite (pip install meteor_lite_pack_en-1.5.0-py3-none-any.whl);
    the scorer then finds the bundle by its name (entry point group meteor_lite.bundles) with no path.
    With --index DIR the wheel goes into a pack index that DIR (or a server of it) serves to
    pip install --index-url URL meteor-lite-pack-<name> and meteor-lite bundle install <name> --index URL.
    """
    from ..packs import add_to_index, write_pack

    path = _bundle_path(bundle)
    started = time.perf_counter()
    if index is not None:
        with library_errors():
            done = add_to_index(path, index, name=name, version=version, verify=verify)
        typer.echo(
            f"wrote {done.pack.path} ({int(str(done.entry['size'])) / 1e3:,.0f} kB) in {time.perf_counter() - started:.1f} s; "
            f"index {index} lists {done.packs} pack(s); install with: pip install --index-url {index.resolve().as_uri()} "
            f"{done.project}, or: meteor-lite bundle install {done.pack.name} --index {index}"
        )
        return
    with library_errors():
        res = write_pack(path, out, name=name, version=version, verify=verify)
    size = res.path.stat().st_size
    typer.echo(
        f"wrote {res.path} ({size / 1e6:.1f} MB; bundle {res.name} {res.bundle_size / 1e6:.1f} MB) "
        f"in {time.perf_counter() - started:.1f} s; install with: pip install {res.path}"
    )
