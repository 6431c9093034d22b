"""The ``meteor-lite`` command line: ``score`` and ``bundle info|verify|list``.

A thin layer over the library: each command calls one library function and
turns library exceptions into a one-line error and a non-zero exit code.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from . import __version__
from .bundle import Bundle, BundleError, bundle_search_path, list_bundles
from .meteor import Meteor
from .params import MODULES, TASKS, ConfigError
from .textio import InputError, read_lines, read_references

app = typer.Typer(add_completion=False, no_args_is_help=True, help="METEOR scoring that reproduces Meteor 1.5, in pure Python.")
bundle_app = typer.Typer(no_args_is_help=True, help="Inspect resource bundles.")
app.add_typer(bundle_app, name="bundle")

DEFAULT_BEAM = 40


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


def _fail(msg: str, code: int = 1) -> "typer.Exit":
    typer.echo(f"meteor-lite: error: {msg}", err=True)
    return typer.Exit(code)


def _floats(opt: str, value: Optional[str]) -> Optional[List[float]]:
    if value is None:
        return None
    try:
        return [float(x) for x in value.replace(",", " ").split()]
    except ValueError:
        raise _fail(f"{opt} takes numbers separated by spaces, got {value!r}", 2) from None


@app.command()
def score(
    hypothesis: Path = typer.Argument(..., help="Hypothesis file, one segment per line (UTF-8)."),
    references: List[Path] = typer.Argument(..., help="Reference file(s): one per reference set."),
    lang: str = typer.Option("en", "--lang", "-l", help="Language code (en cz de es fr ru da fi hu it nl no pt ro se tr ...)."),
    task: Optional[str] = typer.Option(None, "--task", "-t", help=f"Parameter preset: {', '.join(TASKS)} (default: the language's)."),
    params: Optional[str] = typer.Option(None, "--params", "-p", help="Custom 'alpha beta gamma delta'."),
    modules: Optional[List[str]] = typer.Option(
        None, "--modules", "-m", help=f"Matchers, in order, from: {' '.join(MODULES)} ('exact stem' or -m exact -m stem)."
    ),
    weights: Optional[str] = typer.Option(None, "--weights", "-w", help="One weight per module."),
    beam: int = typer.Option(DEFAULT_BEAM, "--beam", "-x", help="Alignment search beam size."),
    norm: bool = typer.Option(False, "--norm", help="Meteor's tokeniser and punctuation normaliser, then lower-case."),
    lower: bool = typer.Option(False, "--lower", help="Lower-case only."),
    no_punct: bool = typer.Option(False, "--no-punct", help="Drop punctuation (with --norm)."),
    refs_per_hyp: int = typer.Option(1, "--refs-per-hyp", "-r", help="References interleaved in one file, N lines per hypothesis."),
    bundle: Optional[Path] = typer.Option(None, "--bundle", help="Resource bundle (default: the language's bundle on the search path)."),
    fmt: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text: Meteor 1.5's report; json: every segment's statistics."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Segment scores to stderr, final score to stdout, nothing else."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Processes to score with (0: one per CPU, at most 4; results do not change)."),
) -> None:
    """Score a hypothesis file against one or more reference files."""
    try:
        hyps = read_lines(hypothesis)
        refs = read_references(references, len(hyps), refs_per_hyp)
        scorer = Meteor(
            lang,
            task=task,
            params=_floats("--params", params),
            modules=[m for group in modules for m in group.replace(",", " ").split()] if modules else None,
            weights=_floats("--weights", weights),
            beam=beam,
            norm=norm,
            lower=lower,
            no_punct=no_punct,
            bundle=bundle,
        )
        result = scorer.score_corpus(hyps, refs, jobs=jobs)
    except (InputError, ConfigError, BundleError, ValueError) as exc:
        raise _fail(str(exc)) from None
    except KeyboardInterrupt:
        raise _fail("interrupted", 130) from None
    from .report import java_double

    if quiet:
        for s in result.segments:
            typer.echo(java_double(s.score), err=True)
        typer.echo(java_double(result.score))
        return
    if fmt is OutputFormat.json:
        sys.stdout.write(result.format("json"))
        return
    sys.stdout.write(result.format("text"))


@bundle_app.command("info")
def bundle_info(
    path: Path = typer.Argument(..., help="Bundle file."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Language, versions, provenance, table counts and checksum of a bundle."""
    try:
        with Bundle.open(path) as b:
            info = b.info()
    except BundleError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(info, indent=1, ensure_ascii=False))
        return
    typer.echo(f"{info['path']}")
    for key in ("language", "name", "version", "schema_version", "created_by", "content_checksum"):
        typer.echo(f"  {key + ':':17} {info[key]}")
    if info["stemmer"]:
        st = info["stemmer"]
        typer.echo(f"  {'stemmer:':17} {st.get('package')} {st.get('version')} ({st.get('language')})")
    typer.echo("  counts:")
    for table, n in info["counts"].items():  # type: ignore[union-attr]
        typer.echo(f"    {table:22} {n}")
    typer.echo("  sources:")
    for s in info["sources"]:  # type: ignore[union-attr]
        typer.echo(f"    {s['name']}: {s['description']} [{s['licence']}] sha256:{s['sha256'][:12]}")


@bundle_app.command("verify")
def bundle_verify(path: Path = typer.Argument(..., help="Bundle file.")) -> None:
    """Check a bundle's integrity, schema and content checksum."""
    try:
        with Bundle.open(path) as b:
            problems = b.verify()
    except BundleError as exc:
        raise _fail(str(exc)) from None
    if problems:
        for p in problems:
            typer.echo(f"{path}: {p}", err=True)
        raise typer.Exit(1)
    typer.echo(f"{path}: ok")


@bundle_app.command("list")
def bundle_list() -> None:
    """Bundles the scorer can find, per language (the first one listed for a language is used)."""
    seen = set()
    for p in list_bundles():
        try:
            with Bundle.open(p) as b:
                lang, desc = b.language, f"{b.name} {b.version} @{b.checksum[:8]}"
        except BundleError as exc:
            typer.echo(f"  ?    {p}  (unreadable: {exc})")
            continue
        mark = "" if lang in seen else "*"
        seen.add(lang)
        typer.echo(f"{mark:1} {lang:4} {desc:28} {p}")
    if not seen:
        typer.echo("no bundles found; searched: " + ", ".join(str(d) for d in bundle_search_path()))


@app.callback(invoke_without_command=True)
def _root(version: bool = typer.Option(False, "--version", help="Print the version and exit.")) -> None:
    if version:
        typer.echo(f"meteor-lite {__version__}")
        raise typer.Exit(0)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
