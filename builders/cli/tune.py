"""``meteor-build tune``: tune α, β, γ, δ, module weights and modules on human judgments (docs/meta-evaluation.md).

With ``--into BUNDLE --name NAME`` the chosen set is written into the bundle with its provenance
(``meteor-lite score --task NAME`` then uses it).
"""

from __future__ import annotations

import math
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import typer

from ..sources import sha256_file
from .errors import fail, library_errors

Cells = Dict[Tuple[str, str], list]


def _fmt(params: "list[float]") -> str:
    """Parameters as meteor-lite score options."""
    return f"-p '{' '.join(f'{v:g}' for v in params[:4])}' -w '{' '.join(f'{v:g}' for v in params[4:])}'"


def _ci(interval: Tuple[float, float], sign: str = "") -> str:
    return f"[{interval[0]:{sign}.4f}, {interval[1]:{sign}.4f}]"


class _Progress:
    """Counts alignments and candidates; shows them on a terminal."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.aligned = 0
        self.candidates = 0

    def align(self, n: int) -> None:
        self.aligned += n
        self._show()

    def tick(self) -> None:
        self.candidates += 1
        if self.candidates % 20 == 0:
            self._show()

    def _show(self) -> None:
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{self.aligned} alignments, {self.candidates} candidates, "
                             f"{time.perf_counter() - self.started:.0f} s")

    def done(self) -> None:
        if sys.stderr.isatty():
            sys.stderr.write("\n")


def tune_cmd(
    judgments: str = typer.Argument(..., help="Human judgments TSV with hyp and ref columns (e.g. ../shared/data/mqm/*.mqm.tsv.gz)."),
    scores: Optional[str] = typer.Argument(None, help="Optional: a directory of <system>.json from 'meteor-lite score --format json' "
                                                      "(one module set, best reference only). Default: align in-process."),
    lang: Optional[str] = typer.Option(None, "--lang", "-l", help="Language (default: the bundle's)."),
    bundle: Optional[str] = typer.Option(None, "--bundle", help="Bundle to align with (default: --into, else the language's)."),
    task: Optional[str] = typer.Option(None, "--task", "-t", help="Meteor task whose parameters are the untuned default and the start."),
    modules_search: Optional[str] = typer.Option(None, "--modules-search", "-M",
                                                 help="Module sets to search, ';'-separated, e.g. 'exact; exact stem; "
                                                      "exact stem synonym paraphrase' (default: the language's modules)."),
    baseline_modules: Optional[str] = typer.Option(None, "--baseline-modules",
                                                   help="Modules of the untuned baseline (default: the language's; "
                                                        "needed when the bundle lacks their resources)."),
    norm: bool = typer.Option(True, "--norm/--no-norm", help="Meteor's normaliser (with lower-casing), as 'meteor-lite score --norm'."),
    lower: bool = typer.Option(False, "--lower", help="Lower-case only (with --no-norm)."),
    tokenize: Optional[str] = typer.Option(None, "--tokenize", help="Tokeniser (as meteor-lite score)."),
    stat: str = typer.Option("seg:sys:pearson", "--statistic", "-s",
                             help="Statistic to maximise: seg:GROUPING:NAME or sys:NAME (as 'meteor-lite correlate' names them)."),
    cv: str = typer.Option("items", "--cv", help="Cross-validation: items (k folds of segments), systems (leave one out), none."),
    folds: int = typer.Option(5, "--folds", "-k", help="Folds for --cv items."),
    rounds: int = typer.Option(3, "--rounds", help="Refinement rounds of the grid search."),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="Bootstrap resamples for the intervals."),
    seed: int = typer.Option(0, "--seed", help="Seed for the folds and the bootstrap."),
    exclude_human: bool = typer.Option(False, "--exclude-human", help="Leave human translations out."),
    human_column: Optional[str] = typer.Option(None, "--human-column", help="Score column of JUDGMENTS."),
    into: Optional[str] = typer.Option(None, "--into", help="Write the chosen set into this bundle (atomically; checksum recomputed)."),
    name: Optional[str] = typer.Option(None, "--name", help="Name of the set written with --into ('meteor-lite score --task NAME')."),
    replace: bool = typer.Option(False, "--replace", help="With --into: replace a set of the same name."),
) -> None:
    """Tune Meteor's parameters (and modules) to maximise a correlation with human judgments, with a held-out figure.

    Each module set is aligned once (every reference of each segment kept); the search re-scores from
    statistics.  A gain is claimed only when the paired bootstrap interval of (held-out tuned - default)
    lies above 0.
    """
    from meteor_lite.metaeval import read_judgments
    from meteor_lite.metaeval.correlate import parse_key

    if cv not in ("items", "systems", "none"):
        raise fail("--cv must be items, systems or none")
    if (into is None) != (name is None):
        raise fail("--into and --name go together")
    if scores is not None and modules_search is not None:
        raise fail("--modules-search aligns in-process: give no SCORES directory with it")
    try:
        key = parse_key(stat)
    except ValueError as exc:
        raise fail(str(exc)) from None
    progress = _Progress()
    with library_errors():
        if name is not None:
            from meteor_lite.config import check_task_name

            check_task_name(name)
        j = read_judgments(judgments, human_column)
        if scores is not None:
            sets, baseline, signatures = _from_json(j, scores)
        else:
            sets, baseline, signatures = _align(j, lang, bundle or into, task, (modules_search, baseline_modules), norm, lower, tokenize,
                                              progress)
        from ..tune.trainer import tune_modules

        r = tune_modules(j, sets, baseline, key, cv=cv, folds=folds, rounds=rounds, samples=bootstrap, seed=seed,
                         include_human=not exclude_human, tick=progress.tick)
    progress.done()
    _print(r, cv, progress)
    if into is not None and name is not None:
        prov = _provenance(judgments, r, cv, folds, seed, bootstrap, not exclude_human, signatures[r.chosen])
        _write(into, name, r, prov, replace)


def _from_json(j: Any, scores: str) -> Tuple[list, tuple, List[str]]:
    """One module set read from meteor-lite JSON (its parameters are the default)."""
    from meteor_lite.metaeval import read_metric
    from meteor_lite.metaeval.correlate import _stat_params

    from ..tune.trainer import json_cells

    metric = read_metric(scores, j)
    params = _stat_params(metric.signature) if metric.stats else None
    if params is None:
        raise fail(f"{scores}: needs meteor-lite JSON with segment statistics and a signature")
    a, b, g, d, w = params
    default = [a, b, g, d, *w]
    modules = _signature_modules(metric.signature)
    cells = json_cells(metric)
    return [(modules, default, cells)], (default, cells, modules), [metric.signature]


def _signature_modules(signature: str) -> Tuple[str, ...]:
    """The modules a meteor-lite signature names (``mods:exact+stem+syn+para``)."""
    from meteor_lite.signature import MODULE_SIG

    back = {v: k for k, v in MODULE_SIG.items()}
    parts = dict(p.split(":", 1) for p in signature.split("|") if ":" in p)
    return tuple(back.get(m, m) for m in parts.get("mods", "").split("+") if m)


def _align(j: Any, lang: Optional[str], bundle: Optional[str], task: Optional[str],
           modules: Tuple[Optional[str], Optional[str]], norm: bool, lower: bool, tokenize: Optional[str],
           progress: _Progress) -> Tuple[list, tuple, List[str]]:
    """Align every module set (and the baseline's: the language's default set) in-process."""
    from meteor_lite.errors import MissingResourcesError

    from ..tune.alignment import align_module_set, parse_module_sets

    search, baseline = modules

    if lang is None:
        if bundle is None:
            raise fail("give --lang (or --bundle / --into, whose language is used)")
        from meteor_lite.resources.bundle import Bundle

        with Bundle.open(bundle) as b:
            lang = b.language
    lists: List[Optional[Tuple[str, ...]]] = list(parse_module_sets(search)) if search else [None]
    kw: Dict[str, Any] = dict(task=task, bundle=bundle, norm=norm, lower=lower, tokenize=tokenize, tick=progress.align)
    try:
        base = align_module_set(j, lang, parse_module_sets(baseline)[0] if baseline else None, **kw)
    except MissingResourcesError as exc:
        raise fail(f"the untuned baseline: {exc}; or give its modules with --baseline-modules") from None
    done = {base.modules: base}
    for mods in lists:
        if mods is not None and mods not in done:
            done[mods] = align_module_set(j, lang, mods, **kw)
    chosen = [done[m if m is not None else base.modules] for m in lists]
    sets = [(s.modules, s.default, s.cells) for s in chosen]
    return sets, (base.default, base.cells, base.modules), [s.signature for s in chosen]


def _print(r: Any, cv: str, progress: _Progress) -> None:
    """The figures: one line per module set, the set chosen, the held-out figure and the verdict."""
    o = r.overall
    typer.echo(f"statistic {o.statistic}; default ({' '.join(r.baseline)}) {_fmt(o.default)}: {o.default_value:.4f}")
    for i, (mods, rep) in enumerate(r.sets):
        line = f"{'*' if i == r.chosen else ' '} {' '.join(mods):32} default {rep.default_value:.4f}  tuned {rep.train_value:.4f} (training data)"
        if rep.heldout_value is not None:
            line += f"  held-out {rep.heldout_value:.4f} {_ci(rep.heldout_interval)}"
        typer.echo(line)
    typer.echo(f"chosen (all data): -m '{' '.join(r.modules)}' {_fmt(o.chosen)}: {o.train_value:.4f} on the data it was tuned on")
    if o.heldout_value is not None:
        typer.echo(f"held-out ({cv} cross-validation{', module set chosen in each fold' if len(r.sets) > 1 else ''}): "
                   f"tuned {o.heldout_value:.4f} {_ci(o.heldout_interval)}, default {o.default_value:.4f} "
                   f"{_ci(o.default_interval)}, gain {_ci(o.gain_interval, '+')}")
        typer.echo("gain supported (interval above 0)" if o.gain_supported else "no gain supported: keep the default")
    typer.echo(f"{progress.aligned} alignments, {progress.candidates} candidates in {time.perf_counter() - progress.started:.1f} s")


def _finite(x: float) -> Optional[float]:
    return None if x is None or math.isnan(x) else round(x, 6)


def _provenance(judgments: str, r: Any, cv: str, folds: int, seed: int, samples: int, include_human: bool,
                signature: str) -> Dict[str, Any]:
    """How the set was tuned: judgments, statistic, held-out figure and interval, date, version."""
    from meteor_lite import __version__

    o = r.overall
    pair: Callable[[Tuple[float, float]], List[Optional[float]]] = lambda t: [_finite(t[0]), _finite(t[1])]  # noqa: E731
    prov: Dict[str, Any] = {
        "judgments": [{"file": os.path.basename(judgments), "sha256": sha256_file(judgments)}],
        "statistic": o.statistic,
        "include_human": include_human,
        "modules_searched": [" ".join(m) for m, _ in r.sets],
        "train_value": _finite(o.train_value),
        "aligned_with": signature,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "meteor_lite_version": __version__,
    }
    if o.heldout_value is not None:
        prov["heldout"] = {
            "cv": cv if cv != "items" else f"items, {folds} folds", "seed": seed, "bootstrap": samples,
            "value": _finite(o.heldout_value), "interval": pair(o.heldout_interval),
            "default": f"-m '{' '.join(r.baseline)}' {_fmt(o.default)}",
            "default_value": _finite(o.default_value), "default_interval": pair(o.default_interval),
            "gain_interval": pair(o.gain_interval), "gain_supported": o.gain_supported,
        }
    return prov


def _write(into: str, name: str, r: Any, prov: Dict[str, Any], replace: bool) -> None:
    """Add the chosen set to the bundle ``into``."""
    from meteor_lite.config import TunedTask

    from ..tune.tasks import add_task

    p = r.overall.chosen
    task = TunedTask(name, p[0], p[1], p[2], p[3], tuple(r.modules), tuple(p[4:]), prov)
    with library_errors():
        checksum = add_task(into, task, replace=replace)
    typer.echo(f"wrote task {name}@{task.short_hash} into {into} (content checksum now {checksum[:12]}); "
               f"score with: meteor-lite score HYP REF --bundle {into} --task {name}")
    if not r.overall.gain_supported:
        typer.echo("note: its held-out gain is not supported by the interval (recorded in its provenance)")


def remove_task_cmd(
    bundle: Path = typer.Argument(..., help="The bundle holding the set (rewritten atomically, checksum recomputed)."),
    name: str = typer.Argument(..., help="The tuned set to remove ('meteor-lite bundle info' lists them)."),
) -> None:
    """Remove a tuned parameter set written by `tune --into` from a bundle."""
    from ..tune.tasks import remove_task

    with library_errors():
        checksum = remove_task(bundle, name)
    typer.echo(f"removed task {name} from {bundle} (content checksum now {checksum[:12]})")

