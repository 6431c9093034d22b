"""``meteor-build tune``: tune α, β, γ, δ and module weights on human judgments (see docs/meta-evaluation.md)."""

from __future__ import annotations

import sys
import time
from typing import Optional

import typer

from .errors import fail, library_errors


def _fmt(params: "list[float]") -> str:
    """Parameters as meteor-lite score options."""
    return f"-p '{' '.join(f'{v:g}' for v in params[:4])}' -w '{' '.join(f'{v:g}' for v in params[4:])}'"


def tune_cmd(
    judgments: str = typer.Argument(..., help="Human judgments TSV (e.g. ../shared/data/mqm/*.mqm.tsv.gz)."),
    scores: str = typer.Argument(..., help="Directory of <system>.json from 'meteor-lite score --format json' "
                                           "on the files 'meteor-lite correlate JUDGMENTS --split DIR' writes."),
    stat: str = typer.Option("seg:sys:pearson", "--statistic", "-s",
                             help="Statistic to maximise: seg:GROUPING:NAME or sys:NAME (as 'meteor-lite correlate' names them)."),
    cv: str = typer.Option("items", "--cv", help="Cross-validation: items (k folds of segments), systems (leave one out), none."),
    folds: int = typer.Option(5, "--folds", "-k", help="Folds for --cv items."),
    rounds: int = typer.Option(3, "--rounds", help="Refinement rounds of the grid search."),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="Bootstrap resamples for the intervals."),
    seed: int = typer.Option(0, "--seed", help="Seed for the folds and the bootstrap."),
    exclude_human: bool = typer.Option(False, "--exclude-human", help="Leave human translations out."),
    human_column: Optional[str] = typer.Option(None, "--human-column", help="Score column of JUDGMENTS."),
) -> None:
    """Tune Meteor's parameters to maximise a correlation with human judgments, with a held-out figure.

    Statistics are read once from the JSON (one module set); the search re-scores from them.
    A gain is claimed only when the paired bootstrap interval of (held-out tuned - default) lies above 0.
    """
    from meteor_lite.metaeval import read_judgments, read_metric
    from meteor_lite.metaeval.correlate import _stat_params, parse_key

    from ..tune.trainer import tune

    if cv not in ("items", "systems", "none"):
        raise fail("--cv must be items, systems or none")
    try:
        key = parse_key(stat)
    except ValueError as exc:
        raise fail(str(exc)) from None
    started = time.perf_counter()
    with library_errors():
        j = read_judgments(judgments, human_column)
        metric = read_metric(scores, j)
        params = _stat_params(metric.signature) if metric.stats else None
        if params is None:
            raise fail(f"{scores}: needs meteor-lite JSON with segment statistics and a signature")
        a, b, g, d, w = params
        evals = [0]

        def tick() -> None:
            """Count a candidate; show the count on a terminal."""
            evals[0] += 1
            if sys.stderr.isatty() and evals[0] % 20 == 0:
                sys.stderr.write(f"\r{evals[0]} candidates, {time.perf_counter() - started:.0f} s")

        r = tune(j, metric, [a, b, g, d, *w], key, cv=cv, folds=folds, rounds=rounds, samples=bootstrap,
                 seed=seed, include_human=not exclude_human, tick=tick)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    typer.echo(f"statistic {r.statistic}; default {_fmt(r.default)}: {r.default_value:.4f}")
    typer.echo(f"chosen (all data) {_fmt(r.chosen)}: {r.train_value:.4f} on the data it was tuned on")
    if r.heldout_value is not None:
        lo, hi = r.heldout_interval
        dlo, dhi = r.default_interval
        glo, ghi = r.gain_interval
        typer.echo(f"held-out ({cv} cross-validation): tuned {r.heldout_value:.4f} [{lo:.4f}, {hi:.4f}], "
                   f"default {r.default_value:.4f} [{dlo:.4f}, {dhi:.4f}], gain [{glo:+.4f}, {ghi:+.4f}]")
        verdict = "gain supported (interval above 0)" if r.gain_supported else "no gain supported: keep the default"
        typer.echo(verdict)
    typer.echo(f"{evals[0]} candidates in {time.perf_counter() - started:.1f} s")
