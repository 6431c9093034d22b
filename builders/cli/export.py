"""``meteor-build export``: a bundle's resources in the file formats the official Meteor 1.5 jar reads."""

from __future__ import annotations

import time
from enum import Enum
from pathlib import Path
from typing import Any, Dict, List, Optional

import typer

from .errors import library_errors


class Only(str, Enum):
    """A resource ``export`` can write."""

    function_words = "function-words"
    synonyms = "synonyms"
    paraphrases = "paraphrases"


def export_cmd(
    bundle: Path = typer.Argument(..., help="Bundle file."),
    out: Path = typer.Option(..., "--out", "-o", help="Directory to write the files into (created if needed)."),
    only: List[Only] = typer.Option([], "--only", help="Export only these resources (repeatable; default: all)."),
    language_name: Optional[str] = typer.Option(
        None, "--language-name", help="Name of the synonym files (default: Meteor's name of the bundle's language, e.g. english)."
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Progress bars (only on a terminal)."),
) -> None:
    """Write a bundle's resources in the formats the official Meteor 1.5 jar reads.

    function.words (-s), <language>.synsets/.exceptions/.relations (-d DIR), paraphrase.gz (-a;
    also what -new DIR reads) and export.json (provenance and the jar options).
    """
    from ..export.meteor_files import export_bundle

    resources = [o.value.replace("-", "_") for o in only] or None
    started = time.perf_counter()
    with library_errors():
        kwargs: Dict[str, Any] = {"language_name": language_name, "show_progress": progress}
        if resources:
            kwargs["resources"] = resources
        res = export_bundle(bundle, out, **kwargs)
    for f in res.files:
        typer.echo(f"{out / f.name}: {f.rows:,} entries")
    typer.echo(f"exported in {time.perf_counter() - started:.1f} s; use with the jar:")
    typer.echo("  java -Xmx2G -jar meteor-1.5.jar HYP REF -l <lang> -norm " + " ".join(res.jar_options()))
