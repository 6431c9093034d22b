"""``meteor-build check ...``: the maintainer checks against the official Meteor 1.5 jar.

Each command parses its options and calls one function of
:mod:`meteor_lite_builders.checks`; the exit status is the check's own (0 agreed,
1 disagreed, 2 could not run, e.g. no Java), and a library error that escapes
becomes a one-line message with exit status 1.  Progress goes to stderr, reports
to stdout.  Registered in :mod:`meteor_lite_builders.cli` by :func:`register` when this package is there: in a
checkout (``make install``), not in a wheel, which leaves ``builders/checks/`` out.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

from meteor_lite.errors import MeteorLiteError

from .paths import BENCH_OUT, DEFAULT_DATA_DIR, FIXTURE_DIR

app = typer.Typer(
    name="check",
    no_args_is_help=True,
    add_completion=False,
    help="Maintainer checks against the official Meteor 1.5 jar (need Java and the build extra; most read ../shared/data).",
)
paraphrases_app = typer.Typer(no_args_is_help=True, help="Evaluate a built paraphrase table (precision; MQM correlations).")
app.add_typer(paraphrases_app, name="paraphrases")

_LOGGER = "meteor_lite_builders.checks"


def register(parent: typer.Typer) -> None:
    """Add the ``check`` group to the ``meteor-build`` app."""
    parent.add_typer(app, name="check")


@app.callback()
def _setup() -> None:
    """Progress and errors of the checks go to stderr, one message a line."""
    logger = logging.getLogger(_LOGGER)
    if not any(getattr(h, "_meteor_check", False) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        handler._meteor_check = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


def _done(code: int) -> None:
    raise typer.Exit(code)


def _guard() -> "_ErrorGuard":
    return _ErrorGuard()


class _ErrorGuard:
    """Turns a library error into ``meteor-build: error: ...`` and exit status 1."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> None:
        if isinstance(exc, MeteorLiteError):
            typer.echo(f"meteor-build: error: {exc}", err=True)
            raise typer.Exit(1) from None


def _floats(text: Optional[str]) -> Optional[List[float]]:
    return None if text is None else [float(x) for x in text.split()]


@app.command("oracle")
def oracle_cmd(
    hyp: Path = typer.Argument(..., help="hypothesis file, one segment a line"),
    refs: List[Path] = typer.Argument(..., help="reference file(s), one stream each (parallel to HYP)"),
    lang: str = typer.Option("en", "--lang", "-l"),
    task: Optional[str] = typer.Option(None, "--task", "-t"),
    params: Optional[str] = typer.Option(None, "--params", "-p", help="'alpha beta gamma delta'"),
    modules: Optional[str] = typer.Option(None, "--modules", "-m", help="'exact stem synonym paraphrase'"),
    weights: Optional[str] = typer.Option(None, "--weights", "-w"),
    beam: int = typer.Option(40, "--beam", "-x"),
    norm: bool = typer.Option(False, "--norm"),
    lower: bool = typer.Option(False, "--lower"),
    no_punct: bool = typer.Option(False, "--no-punct"),
    char_based: bool = typer.Option(False, "--ch", help="the jar's -ch: character-based precision and recall"),
    no_ss: bool = typer.Option(False, "--no-ss", help="skip the -ssOut run"),
    no_cache: bool = typer.Option(False, "--no-cache"),
    as_json: bool = typer.Option(False, "--json", help="print the whole parsed result as JSON"),
) -> None:
    """Run the jar on files (cached) and print its segment scores and final score, or JSON."""
    from .parity import oracle
    from .shared_data import read_lines

    log = logging.getLogger(oracle.__name__)
    try:
        cfg = oracle.OracleConfig(lang=lang, task=task, params=_floats(params),
                                  modules=None if modules is None else modules.split(), weights=_floats(weights),
                                  beam=beam, norm=norm, lower=lower, no_punct=no_punct,
                                  char_based=char_based)
        res = oracle.run_oracle(read_lines(hyp), [read_lines(r) for r in refs], cfg, with_ss=not no_ss,
                                cache_dir=None if no_cache else oracle.DEFAULT_CACHE_DIR, verbose=True)
    except (MeteorLiteError, ValueError) as e:
        log.error("error: %s", e)
        _done(2)
    if as_json:
        typer.echo(json.dumps(res.to_json(), indent=1))
    else:
        typer.echo(oracle.oracle_report(res))
        log.info("(%s; jar args: %s)", "cached" if res.cached else "ran", " ".join(res.args))


@app.command("parity")
def parity_cmd(
    data: Path = typer.Option(DEFAULT_DATA_DIR, "--data", help="the shared data directory"),
    sets: Optional[str] = typer.Option(None, "--sets", help="comma-separated subset of the sets (see the module help)"),
    extra: bool = typer.Option(False, "--extra", help="also the other-language sets: WMT21 en-de, de-fr, fr-de, en-cs, en-ru; biomedical MQM en-de, en-es, en-fr, en-ru"),
    out: Path = typer.Option(BENCH_OUT, "--out"),
    tol: float = typer.Option(1e-6, "--tol"),
    threshold: float = typer.Option(0.99, "--threshold", help="minimum share within tolerance"),
    limit: Optional[int] = typer.Option(None, "--limit", help="first N segments of each set only (debugging)"),
) -> None:
    """meteor-lite vs the official jar on the shared data (make parity); exit 1 below the threshold."""
    from .parity import agreement

    try:
        chosen = agreement.choose_sets(sets, extra)
    except agreement.UnknownSetError as e:
        raise typer.BadParameter(str(e), param_hint="--sets") from None
    with _guard():
        _done(agreement.run_parity(chosen, data, out, tol, threshold, limit))


@app.command("fixtures")
def fixtures_cmd(
    data: Path = typer.Option(DEFAULT_DATA_DIR, "--data", help="shared data dir (../shared/data)"),
    seed: int = typer.Option(1_505, "--seed"),
    out: Path = typer.Option(FIXTURE_DIR, "--out"),
    only: Optional[str] = typer.Option(None, "--only", help="comma-separated set names (debugging; does not write files)"),
) -> None:
    """Regenerate tests/fixtures/parity_*.jsonl with the official jar (make fixtures)."""
    from .parity import fixtures

    with _guard():
        _done(fixtures.run_fixtures(data, seed, out, only))


def _progress(text: str) -> None:
    """A long check's progress line, on stderr at once."""
    print(text, file=sys.stderr, flush=True)


def _split_langs(values: Optional[List[str]]) -> Optional[List[str]]:
    if not values:
        return None
    return [x for v in values for x in v.replace(",", " ").split()]


@app.command("normalizer")
def normalizer_cmd(
    data: Path = typer.Option(DEFAULT_DATA_DIR, "--data", help="shared data directory"),
    langs: Optional[List[str]] = typer.Option(None, "--langs", help="languages (en de fr cz ru other; repeat or comma-separate)"),
    cap: Optional[int] = typer.Option(None, "--cap", help="at most N distinct lines per file"),
    show: int = typer.Option(10, "--show", help="mismatches to print per check"),
    no_scorer: bool = typer.Option(False, "--no-scorer", help="skip the scorer (-lower/-norm) checks"),
    synthetic: int = typer.Option(20000, "--synthetic", help="also compare N constructed lines of tricky characters (0: none)"),
    other_oracle_cp: Optional[str] = typer.Option(None, "--other-oracle-cp", help="classpath of an out-of-tree non-western helper"),
    other_oracle_class: str = typer.Option("NonWestern", "--other-oracle-class", help="its class name"),
    write_fixtures: bool = typer.Option(False, "--write-fixtures", help="rewrite tests/fixtures/normalizer.jsonl"),
    per_feature: int = typer.Option(1, "--per-feature", help="real lines per feature in the fixtures"),
) -> None:
    """The normaliser against the jar's (Normalizer class and scorer); exit 1 if any line differs."""
    from .parity import normalizer as np_

    chosen = _split_langs(langs)
    valid = [*np_.LANGS, "other"]
    if chosen is not None and any(x not in valid for x in chosen):
        raise typer.BadParameter(f"choose from {', '.join(valid)}", param_hint="--langs")
    opts = np_.NormalizerOptions(data=data, langs=chosen or valid, cap=cap, show=show, no_scorer=no_scorer,
                                 synthetic=synthetic, other_oracle_cp=other_oracle_cp,
                                 other_oracle_class=other_oracle_class, per_feature=per_feature)
    with _guard():
        _done(np_.run_normalizer_check(opts, write=write_fixtures))


@app.command("stems")
def stems_cmd(
    data: Path = typer.Option(DEFAULT_DATA_DIR, "--data", help="shared data directory"),
    langs: Optional[List[str]] = typer.Option(None, "--langs", help="languages (da de en es fi fr hu it nl no pt ro ru se tr; repeat or comma-separate)"),
    fixtures: bool = typer.Option(False, "--fixtures", help="compare with the recorded stems of tests/fixtures/stems instead of running the jar"),
    write_fixtures: bool = typer.Option(False, "--write-fixtures", help="record the jar's stems in tests/fixtures/stems"),
    jobs: int = typer.Option(2, "--jobs", "-j", help="languages checked at once"),
) -> None:
    """Meteor 1.5's stemmers against the jar's Stemmer program on a million words a language; exit 1 if any differs."""
    from .parity import stems as st
    from .parity.stem_words import STEM_LANGUAGES

    if fixtures and write_fixtures:
        raise typer.BadParameter("--write-fixtures runs the jar: leave out --fixtures", param_hint="--fixtures")
    chosen = _split_langs(langs) or list(STEM_LANGUAGES)
    with _guard():
        _done(st.run_stem_check(data, chosen, use_jar=not fixtures, write=write_fixtures, jobs=jobs))


@app.command("bench")
def bench_cmd(
    data: Path = typer.Option(DEFAULT_DATA_DIR, "--data"),
    only: str = typer.Option("system1,scaling,stdio,api,import,pivot", "--only",
                             help="sections to run, comma-separated: system1 scaling stdio api import pivot"),
    repeat: int = typer.Option(5, "--repeat", help="system1: runs of each program (medians)"),
    out: Path = typer.Option(BENCH_OUT, "--out"),
    hyp: str = typer.Option("system1.hyp", "--hyp", help="file under meteor-example/ (default system1.hyp)"),
    lengths: str = typer.Option("100,200,500,1000,2000,5000", "--lengths", help="scaling: segment lengths (tokens)"),
    max_tokens: int = typer.Option(5000, "--max-tokens", help="scaling: skip lengths above this"),
    segments: int = typer.Option(3, "--segments", help="scaling: segments per length (median)"),
    modules: str = typer.Option("exact-stem,full", "--scaling-modules", help="scaling: module sets (exact-stem, full)"),
    seed: int = typer.Option(13, "--seed", help="scaling: seed of the synthetic segments"),
    timeout: float = typer.Option(300.0, "--timeout", help="seconds one request may take (then reported as >T)"),
    requests: int = typer.Option(1000, "--requests", help="stdio/api: SCORE requests in the transcript"),
    transcript: str = typer.Option(
        "system1", "--transcript",
        help="stdio/api: system1 (new sentence pairs, the goal's), nbest (WMT21 de-en, 20 systems' outputs per "
        "reference in turn, as a tuning loop's n-best list) or mbr (the 20 outputs of a source each against each, "
        "whole groups of 400; the API also runs score_matrix on them)"),
    pivot_lines: int = typer.Option(1_000_000, "--pivot-lines", help="pivot: lines of the synthetic phrase table"),
    plot: Optional[Path] = typer.Option(None, "--plot", help="scaling plot (default docs/img/length-scaling.png)"),
    no_plot: bool = typer.Option(False, "--no-plot", help="do not draw the scaling plot"),
    jvm_lock: Optional[Path] = typer.Option(None, "--jvm-lock", help="lock file held while a JVM runs (default bench-out/oracle-cache/.jar.lock)"),
    no_time_bin: bool = typer.Option(False, "--no-time-bin", help="measure with os.wait4 even if /usr/bin/time exists"),
    strict: bool = typer.Option(False, "--strict", help="exit 1 if a goal is not met"),
) -> None:
    """meteor-lite beside the Meteor 1.5 jar in one table: system1, length scaling, stdio and API rates, import, pivot (make bench)."""
    from . import bench
    from .bench import options as bo
    from .bench.rates import TRANSCRIPTS

    try:
        opts = bench.BenchOptions(
            data=data, repeat=repeat, out=out, hyp=hyp, no_time_bin=no_time_bin, strict=strict,
            only=bo.parse_list(only, bo.SECTIONS, "section(s)"), lengths=bo.parse_lengths(lengths),
            max_tokens=max_tokens, scaling_segments=segments,
            scaling_modules=bo.parse_list(modules, tuple(bo.MODULE_SETS), "module set(s)"), timeout=timeout, seed=seed,
            requests=requests, transcript=transcript, pivot_lines=pivot_lines, plot=None if no_plot else (plot or bo.DEFAULT_PLOT),
            jvm_lock=jvm_lock or bo.JAR_LOCK_PATH)
        if min(repeat, segments, requests) < 1 or timeout <= 0:
            raise ValueError("--repeat, --segments and --requests must be at least 1, --timeout positive")
        if transcript not in TRANSCRIPTS:
            raise ValueError(f"unknown --transcript {transcript!r} (choose from {', '.join(TRANSCRIPTS)})")
    except ValueError as e:
        typer.echo(f"meteor-build check bench: error: {e}", err=True)
        raise typer.Exit(2) from None
    with _guard():
        _done(bench.run_bench(opts))


@app.command("export")
def export_cmd(
    bundle: Optional[Path] = typer.Option(None, "--bundle", help="bundle to export (default resources/bundles/en.sqlite)"),
    out: Optional[Path] = typer.Option(None, "--out", help="export directory (default: a temporary one)"),
    hyp: Optional[Path] = typer.Option(None, "--hyp", help="default ../shared/data/meteor-example/system1.hyp"),
    ref: Optional[Path] = typer.Option(None, "--ref", help="default ../shared/data/meteor-example/reference"),
    no_file_comparison: bool = typer.Option(False, "--no-file-comparison", help="skip comparing the files with the jar's"),
    jar_options: Optional[List[str]] = typer.Argument(None, help="jar options after -- (default: -l en -norm)"),
) -> None:
    """An exported bundle inside the official jar: same files, same scores (exit 1 if not, 2 without Java)."""
    from .parity import export_check as ec

    with _guard():
        _done(ec.run_export_check(bundle or ec.DEFAULT_BUNDLE, out, hyp or ec.DEFAULT_HYP, ref or ec.DEFAULT_REF,
                                  jar_options or ec.DEFAULT_JAR_OPTIONS, not no_file_comparison))


def _report(report: Any, json_out: Optional[Path]) -> None:
    text = json.dumps(report, indent=2, ensure_ascii=False, default=str)
    typer.echo(text)
    if json_out:
        Path(json_out).write_text(text + "\n", encoding="utf-8")


@paraphrases_app.command("precision")
def paraphrases_precision_cmd(
    table: str = typer.Argument(..., help="bundle (.sqlite) or Meteor paraphrase file"),
    official: Optional[str] = typer.Option(None, "--official", help="official paraphrase-en.gz (default: pycocoevalcap's)"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="also write the report here"),
) -> None:
    """Share of the table's pairs that Meteor 1.5's English table also holds."""
    from .research import paraphrase_eval

    with _guard():
        _report(paraphrase_eval.precision(table, official), json_out)


@paraphrases_app.command("mqm")
def paraphrases_mqm_cmd(
    lang: str = typer.Option(..., "--lang", help="en or de"),
    config: List[str] = typer.Option(..., "--config", help="NAME=BUNDLE[:MOD,MOD...]; the first is the baseline"),
    data: Path = typer.Option(DEFAULT_DATA_DIR / "mqm", "--data"),
    bootstrap: int = typer.Option(1000, "--bootstrap"),
    seed: int = typer.Option(1, "--seed"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="also write the report here"),
) -> None:
    """Correlation with expert MQM judgments of each configuration, with a paired bootstrap against the first."""
    from .research import paraphrase_eval

    if lang not in paraphrase_eval.MQM_FILES:
        raise typer.BadParameter(f"choose from {', '.join(sorted(paraphrase_eval.MQM_FILES))}", param_hint="--lang")
    with _guard():
        _report(paraphrase_eval.mqm(lang, config, data, bootstrap, seed), json_out)


@app.command("parex")
def parex_cmd(
    phrase_table: Optional[str] = typer.Option(None, "--phrase-table"),
    f_corpus: Optional[str] = typer.Option(None, "--f-corpus"),
    e_corpus: Optional[str] = typer.Option(None, "--e-corpus"),
    target: Optional[str] = typer.Option(None, "--target"),
    generate: Optional[int] = typer.Option(None, "--generate", help="generate a random phrase table of about N lines"),
    seed: int = typer.Option(1, "--seed"),
    min_trans_prob: float = typer.Option(0.001, "--min-trans-prob"),
    min_rel_freq: float = typer.Option(0.001, "--min-rel-freq"),
    memory_mb: float = typer.Option(256.0, "--memory-mb"),
    engine: str = typer.Option("duckdb", "--engine", help="meteor-lite's pivot engine: duckdb or sort"),
    heap: str = typer.Option("8G", "--heap", help="Java heap for Parex"),
    work: Path = typer.Option(BENCH_OUT / "parex-compare", "--work"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="write the report here too"),
) -> None:
    """meteor-lite's pivot vs Meteor's official Parex on the same inputs (exit 1 if they differ)."""
    from ..paraphrases.pivot import ENGINES, PivotOptions
    from .parity import parex_compare as pc

    if engine not in ENGINES:
        raise typer.BadParameter(" or ".join(ENGINES), param_hint="--engine")
    inputs = pc.ParexInputs(phrase_table, f_corpus, e_corpus, target, generate, seed)
    opts = PivotOptions(min_trans_prob=min_trans_prob, min_rel_freq=min_rel_freq, min_final_prob=0.01, memory_mb=memory_mb,
                        engine=engine)
    with _guard():
        try:
            code = pc.run_parex_compare(inputs, opts, heap, work, json_out)
        except ValueError as e:
            if isinstance(e, MeteorLiteError):
                raise
            raise typer.BadParameter(str(e)) from None
    _done(code)


@app.command("pivot-bench")
def pivot_bench_cmd(
    lines: int = typer.Option(1_000_000, "--lines", min=1, help="lines of the synthetic phrase table (written once)"),
    engine: List[str] = typer.Option(["duckdb", "sort"], "--engine", help="engine(s) to run (repeat); outputs compared"),
    seed: int = typer.Option(1, "--seed"),
    memory_mb: float = typer.Option(256.0, "--memory-mb"),
    threads: int = typer.Option(2, "--threads", min=1),
    work: Path = typer.Option(BENCH_OUT / "pivot-bench", "--work"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="write the report here too"),
) -> None:
    """The pivot on a synthetic Zipf phrase table: wall, CPU, peak memory per engine (exit 1 if outputs differ)."""
    from ..paraphrases.pivot import ENGINES
    from .bench import pivot as pb

    for e in engine:
        if e not in ENGINES:
            raise typer.BadParameter(" or ".join(ENGINES), param_hint="--engine")
    with _guard():
        try:
            code = pb.run_pivot_bench(lines, engine, seed=seed, memory_mb=memory_mb, threads=threads, work=work,
                                      json_out=json_out)
        except RuntimeError as e:  # the pivot failed: its log's tail
            typer.echo(f"meteor-build: error: {e}", err=True)
            raise typer.Exit(1) from None
    _done(code)


@app.command("spark-bench")
def spark_bench_cmd(
    data: Path = typer.Option(Path("../shared/data"), "--data", help="the shared data (wmt21/)"),
    segments: int = typer.Option(100_000, "--segments", min=1, help="WMT21 (hypothesis, reference) pairs to score"),
    lines: List[int] = typer.Option([1_000_000, 3_000_000], "--lines", help="synthetic pivot tables (repeat)"),
    skip_scoring: bool = typer.Option(False, "--skip-scoring"),
    skip_pivot: bool = typer.Option(False, "--skip-pivot"),
    work: Path = typer.Option(BENCH_OUT / "spark-bench", "--work"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="write the report here too"),
) -> None:
    """Spark local[1]/local[2] against meteor-lite score --jobs 1/2, and the pivot on Spark against DuckDB (docs/spark.md)."""
    from .bench import spark as sb

    with _guard():
        try:
            code = sb.run_spark_bench(data, segments, lines, skip_scoring=skip_scoring, skip_pivot=skip_pivot,
                                      work=work, json_out=json_out)
        except RuntimeError as e:
            typer.echo(f"meteor-build: error: {e}", err=True)
            raise typer.Exit(1) from None
    _done(code)


@app.command("write-recipes")
def write_recipes_cmd(
    out_dir: Optional[Path] = typer.Option(None, "--out-dir", help="default resources/recipes"),
    check: bool = typer.Option(False, "--check", help="only check that every eligible language has a recipe"),
    thesauri: bool = typer.Option(
        False, "--thesauri", help="only add the installed LibreOffice thesauri (mythes-*) to the recipes"
    ),
) -> None:
    """(Re)write the recipes of resources/recipes (after upgrading wordfreq or the official release)."""
    from ..recipes import regenerate

    with _guard():
        _done(regenerate.run(out_dir or regenerate.DEFAULT_OUT_DIR, check=check, thesauri_only=thesauri))




@app.command("validity")
def validity_cmd(
    data: List[Path] = typer.Option([DEFAULT_DATA_DIR / "mqm", DEFAULT_DATA_DIR / "wmt-mqm"], "--data",
                                    help="Directories of *.mqm.tsv.gz / *.esa.tsv.gz judgments (repeat; default "
                                         "../shared/data/mqm and ../shared/data/wmt-mqm)."),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="Bootstrap resamples of the segments for the intervals."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap."),
    plot_out: Optional[Path] = typer.Option(None, "--plot", help="Write the figure here (PNG; needs the bench extra's matplotlib), "
                                                                 "e.g. docs/img/validity.png."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write every figure here."),
    only: Optional[List[str]] = typer.Option(None, "--only", help="Score only this set (its file name without .tsv.gz and "
                                                                  ".mqm; repeat), e.g. to split the work between processes."),
    merge: Optional[List[Path]] = typer.Option(None, "--merge", help="Score nothing: report the sets of these --json files "
                                                                     "(repeat), sorted by name."),
    case_aware: bool = typer.Option(False, "--case-aware", help="Also the default configuration with --case-aware, "
                                                                "against the default (paired intervals)."),
) -> None:
    """meteor-lite (default and --task mqm) against chrF and sentence BLEU on every shared MQM set, with intervals.

    Needs sacrebleu (the test extra).  Prints one Markdown table (segment level, with 95% bootstrap
    intervals and the paired interval of default - chrF), the system-level table and the tallies.
    """
    from .research import validity

    with _guard():
        if merge:
            results = sorted((r for f in merge for r in validity.from_json(json.loads(f.read_text(encoding="utf-8")))),
                             key=lambda r: r.name)
        else:
            results = validity.validity(data, bootstrap, seed, progress=lambda s: print(f"scoring {s}", file=sys.stderr),
                                        only=only, case_aware=case_aware)
        print(validity.format_table(results))
        if json_out is not None:
            from meteor_lite.atomicfile import atomic_path

            with atomic_path(json_out) as tmp:
                tmp.write_text(json.dumps(validity.as_json(results), indent=1, allow_nan=False, default=str) + "\n",
                               encoding="utf-8")
        if plot_out is not None:
            validity.plot(results, plot_out)
            print(f"wrote {plot_out}", file=sys.stderr)


@app.command("perturbations")
def perturbations_cmd(
    data: Path = typer.Option(DEFAULT_DATA_DIR, "--data", help="The shared data directory (../shared/data): its wmt21, mqm "
                                                                "and wmt-mqm files give the references."),
    langs: str = typer.Option("", "--lang", help="Target languages (comma-separated; default: every one held)."),
    n: int = typer.Option(200, "-n", "--items", help="Good hypotheses sampled per language."),
    good: str = typer.Option("reference", "--good", help="The good hypothesis: the reference itself (reference) or a "
                                                         "system output the raters judged as good as any (system)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the sample and of the perturbations."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write every figure here."),
) -> None:
    """How often each configuration (and chrF, BLEU) scores a good hypothesis above its perturbed copies.

    Word order, deleted and duplicated words, casing, punctuation, numbers, negation, untranslated words,
    typos; per language, from the shared references.  Needs sacrebleu (the test extra).  Prints Markdown tables.
    """
    from .research import perturbations

    with _guard():
        results = perturbations.run(data, _split_langs([langs]) or [], n, seed, good, _progress)
        print(perturbations.format_report(results))
        if json_out is not None:
            json_out.write_text(json.dumps(perturbations.as_json(results), indent=1) + "\n", encoding="utf-8")


@app.command("dimension-gain")
def dimension_gain_cmd(
    dimension: str = typer.Option("near", "--dimension", help="The dimension of the mqm search: near (the near "
                                                             "module), case (case-aware scoring) or char "
                                                             "(precision and recall over characters, -ch)."),
    data: Optional[List[Path]] = typer.Option(None, "--data", help="Judgments directories (repeat; default "
                                                                    "../shared/data/mqm and ../shared/data/wmt-mqm)."),
    langs: str = typer.Option("en,de,ru,es,fr,zh", "--lang", help="Target languages (comma-separated)."),
    cache: Path = typer.Option(Path("build/tune-mqm/cache"), "--cache", help="make tune-mqm's statistics cache."),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="Bootstrap resamples of each set's segments."),
    suite_items: int = typer.Option(200, "--suite-items", help="Good hypotheses of the perturbation suite (0: none)."),
) -> None:
    """What one dimension of the mqm search (near, case, char) adds per judged set, held out, with paired intervals.

    Reads make tune-mqm's cache (about 2 minutes after it).  Needs numpy and sacrebleu (the test extra).
    Prints Markdown tables.
    """
    from .research import dimension_gain

    argv = ["--dimension", dimension, "--lang", langs, "--cache", str(cache), "--bootstrap", str(bootstrap),
            "--suite-items", str(suite_items)]
    for d in data or []:
        argv += ["--data", str(d)]
    raise typer.Exit(dimension_gain.main(argv))


@app.command("mqm-transfer")
def mqm_transfer_cmd(
    data: Path = typer.Option(DEFAULT_DATA_DIR / "mqm", "--data", help="Directory of *.mqm.tsv.gz judgments (../shared/data/mqm)."),
    rounds: int = typer.Option(2, "--rounds", help="Rounds of the pooled coordinate search (11 points per parameter, "
                                                   "the step shrinking threefold per round)."),
) -> None:
    """Meteor 1.5's task presets and a pooled leave-one-set-out search on every shared MQM set, beside chrF.

    Does a setting that beats the default on some sets carry over to the others?  Needs sacrebleu (the
    test extra).  Prints Markdown tables; about 2 minutes on the shared sets.
    """
    from .research import mqm_transfer

    with _guard():
        sets = mqm_transfer.load_sets(data, _progress)
        presets = mqm_transfer.preset_figures(sets)
        loso = mqm_transfer.leave_one_set_out(sets, rounds, _progress)
        print(mqm_transfer.format_report(sets, presets, loso))


@app.command("universal")
def universal_cmd(
    data: List[Path] = typer.Option([DEFAULT_DATA_DIR / "mqm", DEFAULT_DATA_DIR / "wmt-mqm"], "--data",
                                    help="Directories of *.mqm.tsv.gz / *.esa.tsv.gz judgments (repeat; default "
                                         "../shared/data/mqm and ../shared/data/wmt-mqm)."),
    bundles: Path = typer.Option(..., "--bundles", help="Directory of the recipe bundles (meteor-build recipe "
                                                        "resources/recipes/<lang>.toml --out-dir DIR) of every target language."),
    cache: Optional[Path] = typer.Option(None, "--cache", help="Keep each file's alignments here (per bundle, modules, version)."),
    max_segments: int = typer.Option(0, "--max-segments", help="Use a seeded sample of at most N segments of a larger file "
                                                               "(every system's rows of them); 0: every segment."),
    rounds: int = typer.Option(2, "--rounds", help="Rounds of the coordinate search."),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="Bootstrap resamples of the left-out set's segments."),
    seed: int = typer.Option(0, "--seed", help="Seed of the sample and the bootstrap."),
    write: bool = typer.Option(False, "--write", help="Ship the set tuned on every set as language '*', set 'default' "
                                                      "(meteor_lite/tuned_tasks.json, or --shipped-file)."),
    shipped_file: Optional[Path] = typer.Option(None, "--shipped-file", help="With --write: the file to write."),
    default_for: str = typer.Option("", "--default-for", help="Languages (comma-separated, e.g. es,fr,zh) whose sets are "
                                                              "also compared with their Meteor 1.5 configuration "
                                                              "(official bundles, make bundles)."),
) -> None:
    """One parameter set for every language, tuned pooled over the MQM sets of all languages, measured leave one set out.

    Needs numpy (the test extra).  Prints the set and a Markdown table: each set's held-out figure against
    exact + stem with Meteor's li parameters, with paired 95% bootstrap intervals.
    """
    from .research import universal

    with _guard():
        r = universal.run(data, bundles, cache, max_segments, rounds, bootstrap, seed, _progress,
                          _split_langs([default_for]) or [])
        print(universal.format_report(r))
        print(f"\n{sum(s.cells for s in r.sets)} judged rows in {len(r.sets)} sets; {r.seconds:.0f} s", file=sys.stderr)
        if write:
            h = universal.write_default(r, data, shipped_file)
            what = "the tuned set" if r.kept else "Meteor 1.5's li parameters (the tuned set is not kept)"
            print(f"wrote the universal set default@{h} (language '*', {what}) into "
                  f"{shipped_file or 'meteor_lite/tuned_tasks.json'}", file=sys.stderr)


@app.command("tune-mqm")
def tune_mqm_cmd(
    data: List[Path] = typer.Option([DEFAULT_DATA_DIR / "mqm", DEFAULT_DATA_DIR / "wmt-mqm"], "--data",
                                    help="Directories of *.mqm.tsv.gz / *.esa.tsv.gz judgments (repeat; default "
                                         "../shared/data/mqm and ../shared/data/wmt-mqm)."),
    langs: str = typer.Option("en,de,ru,es,fr,zh", "--lang", help="Target languages (comma-separated)."),
    cache: Optional[Path] = typer.Option(None, "--cache", help="Keep each file's statistics here (per configuration, "
                                                               "bundle, version)."),
    k: int = typer.Option(3, "-k", "--folds", help="Folds over documents (segments where a file has no documents)."),
    rounds: int = typer.Option(2, "--rounds", help="Rounds of the coordinate search."),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="Paired bootstrap resamples of each set's segments."),
    seed: int = typer.Option(0, "--seed", help="Seed of the folds and the bootstrap."),
    write: bool = typer.Option(False, "--write", help="Write each language's `mqm` set (tuned where the rule keeps it, "
                                                      "else the default) into meteor_lite/tuned_tasks.json (or --shipped-file)."),
    shipped_file: Optional[Path] = typer.Option(None, "--shipped-file", help="With --write: the file to write."),
) -> None:
    """Each target language's `mqm` set tuned on all of its judged sets, held out by folds and by leaving each set out.

    Needs numpy (the test extra).  Aligns each file once per normalisation and module set with the installed
    official bundle (cached with --cache), searches with numpy, prints a Markdown report per language.
    """
    import time

    from ..tune.tasks import add_shipped
    from .research import tune_mqm
    from .research.mqm_sets import mqm_files

    with _guard():
        files = mqm_files(list(data))
        t0 = time.perf_counter()
        for lang in _split_langs([langs]) or []:
            mine = [p for p, tgt in files if tgt == lang]
            if not mine:
                _progress(f"{lang}: no judgments file in {', '.join(map(str, data))}: skipped")
                continue
            r = tune_mqm.tune_language(lang, mine, cache, k, seed, rounds, bootstrap, _progress)
            print(tune_mqm.format_report(r) + "\n", flush=True)
            if write:
                from meteor_lite.tuned import SHIPPED_FILE

                task = tune_mqm.shipped_task(r)
                add_shipped(str(shipped_file or SHIPPED_FILE), lang, task, replace=True)
                _progress(f"wrote {lang} mqm@{task.short_hash} ({'tuned' if r.kept else 'the default'})")
        _progress(f"all languages: {time.perf_counter() - t0:.0f} s")


@app.command("thesaurus-effect")
def thesaurus_effect_cmd(
    judgments: Path = typer.Argument(..., help="MQM judgments TSV (.gz) with hyp and ref columns"),
    lang: str = typer.Option(..., "--lang", help="target language"),
    base: Path = typer.Option(..., "--base", help="the bundle without the thesaurus (exact + stem)"),
    bundle: Path = typer.Option(..., "--bundle", help="the bundle with thesaurus synonyms and paraphrases"),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="paired bootstrap resamples (0: none)"),
    seed: int = typer.Option(0, "--seed"),
    sample: int = typer.Option(0, "--sample", help="write this many random synonym matches (precision check)"),
    sample_out: Optional[Path] = typer.Option(None, "--sample-out", help="where --sample writes them (TSV)"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Segment-level Pearson (averaged over systems) with and without thesaurus synonyms/paraphrases, paired bootstrap."""
    from .research.thesaurus_effect import format_effect, run_effect

    if sample and sample_out is None:
        raise typer.BadParameter("--sample needs --sample-out FILE", param_hint="--sample")
    with _guard():
        rep = run_effect(str(judgments), lang, str(base), str(bundle), bootstrap=bootstrap, seed=seed, sample=sample,
                         sample_out=sample_out)
        typer.echo(json.dumps(rep, indent=1, ensure_ascii=False) if as_json else format_effect(rep))


@app.command("languages-from-wheel")
def languages_from_wheel_cmd(
    data: Path = typer.Option(DEFAULT_DATA_DIR, "--data", help="the shared data (../shared/data)"),
    venv: Optional[Path] = typer.Option(None, "--venv", help="reuse this venv (made, with the wheel, when it has no meteor-lite)"),
    wheel: Optional[Path] = typer.Option(None, "--wheel", help="the wheel to install (default: built from this checkout)"),
    lang: Optional[List[str]] = typer.Option(None, "--lang", help="only these languages (repeatable or comma-separated)"),
    work: Optional[Path] = typer.Option(None, "--work", help="scratch directory (default: a new temporary one)"),
    out: Optional[Path] = typer.Option(None, "--out", help="also write the Markdown table here (after each language)"),
) -> None:
    """bundle install L then score --lang L for every shipped language, from the wheel in a fresh venv: a Markdown table."""
    from .languages_from_wheel import format_table, run_languages

    with _guard():
        results = run_languages(data, venv=venv, wheel=wheel, langs=_split_langs(lang), work=work, out=out)
    typer.echo(format_table(results), nl=False)
    _done(0 if all(r.ok for r in results) else 1)


@app.command("paraphrase-import")
def paraphrase_import_cmd(
    table: Path = typer.Argument(..., help="paraphrase table in Meteor's format (paraphrase-de.gz)"),
    inputs: List[Path] = typer.Argument(..., help="WMT21 systems or MQM TSV files (.gz) with hyp and ref columns"),
    lang: str = typer.Option("de", "--lang", help="official Meteor 1.5 language of the table"),
    limit: Optional[int] = typer.Option(None, "--limit", help="only the first N segments of each input"),
) -> None:
    """bundle install LANG --paraphrase TABLE scores as the jar with -a TABLE: segment scores compared (needs Java)."""
    from .parity.paraphrase_import import compare_import, format_comparison

    with _guard():
        results = compare_import(table, inputs, lang=lang, limit=limit)
    typer.echo(format_comparison(results), nl=False)
    _done(0 if all(not c.differences for c in results) else 1)


@app.command("hunspell-effect")
def hunspell_effect_cmd(
    judgments: Path = typer.Argument(..., help="MQM judgments TSV (.gz) with hyp and ref columns"),
    lang: str = typer.Option(..., "--lang", help="target language"),
    base: Path = typer.Option(..., "--base", help="the bundle with the Snowball stem map (e.g. de-wordfreq.sqlite)"),
    dic: Path = typer.Option(..., "--dic", help="the Hunspell .dic (its .aff beside it)"),
    out_dir: Path = typer.Option(..., "--out-dir", help="where the Hunspell variants of the base bundle are written (reused)"),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="paired bootstrap resamples (0: none)"),
    seed: int = typer.Option(0, "--seed"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Exact + stem with the Snowball stem map vs Hunspell lemma maps: segment-level Pearson, paired bootstrap."""
    from .research.hunspell_effect import format_hunspell_effect, run_hunspell_effect

    with _guard():
        rep = run_hunspell_effect(str(judgments), lang, str(base), str(dic), out_dir, bootstrap=bootstrap, seed=seed)
        typer.echo(json.dumps(rep, indent=1, ensure_ascii=False) if as_json else format_hunspell_effect(rep))


@app.command("thesaurus-sample")
def thesaurus_sample_cmd(
    pairs: Path = typer.Argument(..., help="TSV (.gz) with hyp and ref (or ref_A) columns: MQM or WMT systems files"),
    lang: str = typer.Option(..., "--lang", help="target language"),
    bundle: Path = typer.Option(..., "--bundle", help="the bundle with thesaurus synonyms"),
    n: int = typer.Option(200, "--n", help="how many matches to draw"),
    seed: int = typer.Option(0, "--seed"),
    out: Path = typer.Option(..., "--out", help="TSV: hyp word, ref word, hyp, ref"),
) -> None:
    """Random synonym-stage matches (exact + stem + synonym, -norm) on real segments, for a precision check by hand."""
    from .research.thesaurus_effect import read_pairs, sample_synonym_matches, variants, write_sample

    with _guard():
        rows, total = sample_synonym_matches(read_pairs(str(pairs)), lang, variants(lang, str(bundle), str(bundle))[1], n, seed)
        write_sample(out, rows)
        typer.echo(f"{out}: {len(rows)} of {total} synonym matches")
