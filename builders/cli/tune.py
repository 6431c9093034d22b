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
    add: Optional[List[str]] = typer.Option(None, "--add", help="More judgments files (repeat): merged with JUDGMENTS into one grid, "
                                                              "systems and segments named FILE/... (a statistic by system "
                                                              "averages over every file's systems)."),
    norm_search: Optional[str] = typer.Option(None, "--norm-search", "-N",
                                              help="Normalisations to search, ';'-separated, e.g. 'norm; norm-case' "
                                                   "(signature labels: none lower norm norm-nopunct case norm-case "
                                                   "norm-case-nopunct); each is aligned with every module set. The "
                                                   "set chosen then carries its normalisation. Default: --norm/--no-norm."),
    norm: bool = typer.Option(True, "--norm/--no-norm", help="Meteor's normaliser (with lower-casing), as 'meteor-lite score --norm'."),
    lower: bool = typer.Option(False, "--lower", help="Lower-case only (with --no-norm)."),
    tokenize: Optional[str] = typer.Option(None, "--tokenize", help="Tokeniser (as meteor-lite score)."),
    stat: str = typer.Option("seg:sys:pearson", "--statistic", "-s",
                             help="Statistic to maximise: seg:GROUPING:NAME or sys:NAME (as 'meteor-lite correlate' names them)."),
    cv: str = typer.Option("items", "--cv", help="Cross-validation: items (k folds of segments), documents (k folds of whole "
                                                 "documents, from the doc column: held-out segments come from documents "
                                                 "the search never saw), systems (leave one out), none."),
    folds: int = typer.Option(5, "--folds", "-k", help="Folds for --cv items / documents."),
    heldout: str = typer.Option("pooled", "--heldout",
                                help="How --cv items / documents figures the held-out scores: pooled (every held-out cell in one grid) "
                                     "or per-fold (the statistic within each fold, whose cells share one parameter set, "
                                     "averaged over folds; the default's on the same items)."),
    rounds: int = typer.Option(3, "--rounds", help="Refinement rounds of the grid search."),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="Bootstrap resamples for the intervals."),
    seed: int = typer.Option(0, "--seed", help="Seed for the folds and the bootstrap."),
    exclude_human: bool = typer.Option(False, "--exclude-human", help="Leave human translations out."),
    human_column: Optional[str] = typer.Option(None, "--human-column", help="Score column of JUDGMENTS."),
    into: Optional[str] = typer.Option(None, "--into", help="Write the chosen set into this bundle (atomically; checksum recomputed)."),
    name: Optional[str] = typer.Option(None, "--name", help="Name of the set written with --into ('meteor-lite score --task NAME')."),
    into_scorer: Optional[str] = typer.Option(None, "--into-scorer",
                                              help="Write the chosen set, named so, into the sets shipped with the scorer "
                                                   "(meteor_lite/tuned_tasks.json of this checkout, or --shipped-file) "
                                                   "for the language: 'meteor-lite score --lang L --task NAME' then uses "
                                                   "it with any bundle of L, no bundle changed."),
    shipped_file: Optional[str] = typer.Option(None, "--shipped-file", help="With --into-scorer: the file to write "
                                                                            "(default: meteor_lite/tuned_tasks.json)."),
    replace: bool = typer.Option(False, "--replace", help="With --into / --into-scorer: replace a set of the same name."),
    fallback_default: bool = typer.Option(False, "--fallback-default",
                                          help="With --into / --into-scorer: unless the cross-validated gain is supported "
                                               "(its paired interval above 0), write the untuned default configuration "
                                               "(baseline modules, Meteor's parameters, its normalisation) instead; the "
                                               "provenance says so."),
) -> None:
    """Tune Meteor's parameters (and modules) to maximise a correlation with human judgments, with a held-out figure.

    Each module set is aligned once (every reference of each segment kept); the search re-scores from
    statistics.  A gain is claimed only when the paired bootstrap interval of (held-out tuned - default)
    lies above 0.
    """
    from meteor_lite.config import check_task_name
    from meteor_lite.metaeval.correlate import parse_key

    if cv not in ("items", "documents", "systems", "none"):
        raise fail("--cv must be items, documents, systems or none")
    if heldout not in ("pooled", "per-fold"):
        raise fail("--heldout must be pooled or per-fold")
    if (into is None) != (name is None):
        raise fail("--into and --name go together")
    if scores is not None and (modules_search is not None or norm_search is not None or add):
        raise fail("--modules-search, --norm-search and --add align in-process: give no SCORES directory with them")
    if fallback_default and into is None and into_scorer is None:
        raise fail("--fallback-default goes with --into or --into-scorer")
    if into_scorer is not None and cv == "none":
        raise fail("--into-scorer ships a set with its held-out figures: give --cv items, documents or systems")
    try:
        key = parse_key(stat)
    except ValueError as exc:
        raise fail(str(exc)) from None
    progress = _Progress()
    with library_errors():
        if name is not None:
            check_task_name(name)
        if into_scorer is not None:
            check_task_name(into_scorer)
            if lang is not None and not replace:  # before aligning and tuning, not after
                from meteor_lite.languages import canonical_language
                from meteor_lite.tuned import SHIPPED_FILE

                from ..tune.tasks import refuse_shipped

                refuse_shipped(shipped_file or str(SHIPPED_FILE), canonical_language(lang), into_scorer)
        files = [judgments, *(add or [])]
        j = _read_all(files, human_column)
        if scores is not None:
            sets, baseline, signatures = _from_json(j, scores)
            norms = [""]
            baseline_signature = signatures[0]
        else:
            norm_list = _parse_norms(norm_search) if norm_search else [_label(norm, lower)]
            sets, baseline, signatures, norms = _align(j, lang, bundle or into, task, (modules_search, baseline_modules),
                                                       (norm, lower, norm_list), tokenize, progress)
            baseline_signature = signatures[-1]
            signatures = signatures[:-1]
        from meteor_lite.metaeval.data import judgments_label

        from ..tune.trainer import part_figures, tune_modules

        r = tune_modules(j, sets, baseline, key, cv=cv, folds=folds, rounds=rounds, samples=bootstrap, seed=seed,
                         include_human=not exclude_human, tick=progress.tick, heldout=heldout)
        parts = [part_figures(r.overall, key, judgments_label(f), bootstrap, seed) for f in files] \
            if len(files) > 1 and cv != "none" else []
    progress.done()
    _print(r, cv, progress, norms if norm_search else None)
    for pf in parts:
        typer.echo(f"  {pf.label:32} {pf.systems:3} systems {pf.items:4} segments  held-out {pf.heldout:.4f} "
                   f"{_ci(pf.heldout_interval)}  default {pf.default:.4f} {_ci(pf.default_interval)}  gain {_ci(pf.gain_interval, '+')}")
    carried = norms[r.chosen] if norm_search else ""
    prov = _provenance(files, r, cv, folds, seed, bootstrap, not exclude_human, signatures[r.chosen], norms if norm_search else None,
                       parts, heldout)
    o = r.overall
    if fallback_default and o.heldout_value is not None and not o.gain_supported:
        carried = _label(norm, lower) if norm_search else ""
        r.overall.chosen, r.sets[r.chosen] = list(o.default), (tuple(r.baseline), r.sets[r.chosen][1])
        prov["fallback"] = (f"the cross-validated gain over the default is not supported (held-out {o.heldout_value:.4f}, "
                            f"default {o.default_value:.4f}, paired 95% interval of the gain [{o.gain_interval[0]:+.4f}, "
                            f"{o.gain_interval[1]:+.4f}]): this set is the untuned default configuration, whose figures "
                            "are the 'default' ones recorded here")
        prov["aligned_with"] = baseline_signature
        typer.echo(f"fallback: no supported gain (held-out {o.heldout_value:.4f}, default {o.default_value:.4f}): writing the default "
                   f"configuration (-m '{' '.join(r.baseline)}' {_fmt(o.default)}{' --' + carried if carried else ''})")
    if into is not None and name is not None:
        _write(into, name, r, prov, replace, carried)
    if into_scorer is not None:
        _write_shipped(shipped_file, into_scorer, r, prov, replace, carried, signatures[r.chosen])


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


def _read_all(files: List[str], human_column: Optional[str]) -> Any:
    """One judgments grid of ``files`` (merged, systems and items named FILE/..., when there are several)."""
    from meteor_lite.metaeval import read_judgments
    from meteor_lite.metaeval.data import judgments_label, merge_judgments

    labels = [judgments_label(f) for f in files]
    if len(set(labels)) != len(labels):
        raise fail(f"two judgments files have the same name: {', '.join(labels)}")
    return merge_judgments([(lab, read_judgments(f, human_column)) for lab, f in zip(labels, files)])


def _label(norm: bool, lower: bool) -> str:
    """The signature label of --norm / --lower."""
    return "norm" if norm else ("lower" if lower else "none")


def _parse_norms(text: str) -> List[str]:
    """``"norm; norm-case"`` -> labels of :data:`meteor_lite.config.NORM_LABELS`."""
    from meteor_lite.config import NORM_LABELS

    out: List[str] = []
    for part in text.split(";"):
        lab = part.strip().lower()
        if not lab:
            continue
        if lab not in NORM_LABELS:
            raise fail(f"--norm-search: unknown normalisation {lab!r} (choose from {', '.join(NORM_LABELS)})")
        if lab in out:
            raise fail(f"--norm-search: {lab!r} given twice")
        out.append(lab)
    if not out:
        raise fail("--norm-search: no normalisation (separate them with ';')")
    return out


def _align(j: Any, lang: Optional[str], bundle: Optional[str], task: Optional[str],
           modules: Tuple[Optional[str], Optional[str]], norms: Tuple[bool, bool, List[str]], tokenize: Optional[str],
           progress: _Progress) -> Tuple[list, tuple, List[str], List[str]]:
    """Align every (normalisation, module set) pair and the baseline (the language's default set, --norm/--no-norm)."""
    from meteor_lite.config import NORM_LABELS
    from meteor_lite.errors import MissingResourcesError

    from ..tune.alignment import align_module_set, parse_module_sets

    search, baseline = modules
    norm, lower, labels = norms

    if lang is None:
        if bundle is None:
            raise fail("give --lang (or --bundle / --into, whose language is used)")
        from meteor_lite.resources.bundle import Bundle

        with Bundle.open(bundle) as b:
            lang = b.language
    lists: List[Optional[Tuple[str, ...]]] = list(parse_module_sets(search)) if search else [None]
    kw: Dict[str, Any] = dict(task=task, bundle=bundle, tokenize=tokenize, tick=progress.align)
    try:
        base = align_module_set(j, lang, parse_module_sets(baseline)[0] if baseline else None, norm=norm, lower=lower, **kw)
    except MissingResourcesError as exc:
        raise fail(f"the untuned baseline: {exc}; or give its modules with --baseline-modules") from None
    done = {(_label(norm, lower), base.modules): base}
    chosen, norms_out = [], []
    for lab in labels:
        n, low, no_punct, case = NORM_LABELS[lab]
        for mods in lists:
            key = (lab, mods if mods is not None else base.modules)
            if key not in done:
                done[key] = align_module_set(j, lang, mods, norm=n, lower=low, no_punct=no_punct, case_aware=case, **kw)
            chosen.append(done[key])
            norms_out.append(lab)
    sets = [(s.modules, s.default, s.cells) for s in chosen]
    return sets, (base.default, base.cells, base.modules), [s.signature for s in chosen] + [base.signature], norms_out


def _print(r: Any, cv: str, progress: _Progress, norms: Optional[List[str]] = None) -> None:
    """The figures: one line per module set, the set chosen, the held-out figure and the verdict."""
    o = r.overall
    typer.echo(f"statistic {o.statistic}; default ({' '.join(r.baseline)}) {_fmt(o.default)}: {o.default_train_value:.4f} on all data")
    for i, (mods, rep) in enumerate(r.sets):
        shown = (f"[{norms[i]}] " if norms else "") + " ".join(mods)
        line = f"{'*' if i == r.chosen else ' '} {shown:32} default {rep.default_train_value:.4f}  tuned {rep.train_value:.4f} (all data)"
        if rep.heldout_value is not None:
            line += f"  held-out {rep.heldout_value:.4f} {_ci(rep.heldout_interval)}"
        typer.echo(line)
    how = f" --{norms[r.chosen]}" if norms else ""
    typer.echo(f"chosen (all data):{how} -m '{' '.join(r.modules)}' {_fmt(o.chosen)}: {o.train_value:.4f} on the data it was tuned on")
    if o.heldout_value is not None:
        typer.echo(f"held-out ({cv} cross-validation{', module set chosen in each fold' if len(r.sets) > 1 else ''}): "
                   f"tuned {o.heldout_value:.4f} {_ci(o.heldout_interval)}, default {o.default_value:.4f} "
                   f"{_ci(o.default_interval)}, gain {_ci(o.gain_interval, '+')}")
        typer.echo("gain supported (interval above 0)" if o.gain_supported else "no gain supported: keep the default")
    typer.echo(f"{progress.aligned} alignments, {progress.candidates} candidates in {time.perf_counter() - progress.started:.1f} s")


def _finite(x: float) -> Optional[float]:
    return None if x is None or math.isnan(x) else round(x, 6)


def _provenance(files: List[str], r: Any, cv: str, folds: int, seed: int, samples: int, include_human: bool,
                signature: str, norms: Optional[List[str]] = None, parts: Optional[list] = None,
                heldout: str = "pooled") -> Dict[str, Any]:
    """How the set was tuned: judgments, statistic, held-out figure and interval (and per file), date, version."""
    from meteor_lite import __version__

    from ..tune.trainer import COLUMN_CVS

    o = r.overall
    pair: Callable[[Tuple[float, float]], List[Optional[float]]] = lambda t: [_finite(t[0]), _finite(t[1])]  # noqa: E731
    prov: Dict[str, Any] = {
        "judgments": [{"file": os.path.basename(f), "sha256": sha256_file(f)} for f in files],
        "statistic": o.statistic,
        "include_human": include_human,
        "modules_searched": sorted({" ".join(m) for m, _ in r.sets}),
        "train_value": _finite(o.train_value),
        "aligned_with": signature,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "meteor_lite_version": __version__,
    }
    if o.heldout_value is not None:
        prov["heldout"] = {
            "cv": cv if cv not in COLUMN_CVS else f"{cv}, {folds} folds" + (", per-fold figures" if heldout == "per-fold" else ""),
            "seed": seed, "bootstrap": samples,
            "value": _finite(o.heldout_value), "interval": pair(o.heldout_interval),
            "default": f"-m '{' '.join(r.baseline)}' {_fmt(o.default)}",
            "default_value": _finite(o.default_value), "default_interval": pair(o.default_interval),
            "gain_interval": pair(o.gain_interval), "gain_supported": o.gain_supported,
        }
    if "heldout" in prov and cv in COLUMN_CVS and o.fold_choice:
        prov["heldout"]["folds"] = [
            {"norm": norms[i] if norms else "", "modules": list(r.sets[i][0]), "params": [round(v, 6) for v in params]}
            for i, params in zip(o.fold_choice, o.folds)
        ]
        prov["heldout"]["k"] = folds
    if norms:
        prov["norms_searched"] = sorted(set(norms))
    if parts:
        prov["heldout_by_file"] = {
            p.label: {"systems": p.systems, "segments": p.items, "value": _finite(p.heldout), "interval": pair(p.heldout_interval),
                      "default_value": _finite(p.default), "default_interval": pair(p.default_interval),
                      "gain_interval": pair(p.gain_interval)}
            for p in parts
        }
    return prov


def _write_shipped(path: Optional[str], name: str, r: Any, prov: Dict[str, Any], replace: bool, norm: str,
                   signature: str) -> None:
    """Add the chosen set to the sets shipped with the scorer (meteor_lite/tuned_tasks.json)."""
    from meteor_lite.config import TunedTask
    from meteor_lite.tuned import SHIPPED_FILE

    from ..tune.tasks import add_shipped

    lang = dict(p.split(":", 1) for p in signature.split("|") if ":" in p)["lang"]
    p = r.overall.chosen
    task = TunedTask(name, p[0], p[1], p[2], p[3], tuple(r.modules), tuple(p[4:]), prov, norm)
    target = path or str(SHIPPED_FILE)
    with library_errors():
        add_shipped(target, lang, task, replace=replace)
    typer.echo(f"wrote task {name}@{task.short_hash} for {lang!r} into {target}; "
               f"score with: meteor-lite score HYP REF --lang {lang} --task {name}")
    if not r.overall.gain_supported and "fallback" not in prov:
        typer.echo("note: its held-out gain is not supported by the interval (recorded in its provenance)")


def _write(into: str, name: str, r: Any, prov: Dict[str, Any], replace: bool, norm: str = "") -> None:
    """Add the chosen set to the bundle ``into``."""
    from meteor_lite.config import TunedTask

    from ..tune.tasks import add_task

    p = r.overall.chosen
    task = TunedTask(name, p[0], p[1], p[2], p[3], tuple(r.modules), tuple(p[4:]), prov, norm)
    with library_errors():
        checksum = add_task(into, task, replace=replace)
    typer.echo(f"wrote task {name}@{task.short_hash} into {into} (content checksum now {checksum[:12]}); "
               f"score with: meteor-lite score HYP REF --bundle {into} --task {name}")
    if not r.overall.gain_supported and "fallback" not in prov:
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

