"""The public scoring API: :class:`Meteor`, :class:`SegmentScore`, :class:`CorpusScore`."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple, Union

from . import __version__
from .align import Match, collect_matches, count_chunks, resolve
from .bundle import Bundle, BundleError, find_bundle
from .params import LANGUAGES, ConfigError, MeteorConfig
from .params import resolve as resolve_config
from .resources import Resources, snowball_algorithm_for, snowball_classes, warn
from .stats import Metrics, Stats, compute

MODULE_SIG = {"exact": "exact", "stem": "stem", "synonym": "syn", "paraphrase": "para"}


@dataclass
class SegmentScore:
    """The score of one hypothesis against its best reference, with its statistics."""

    score: float
    precision: float
    recall: float
    f1: float
    fmean: float
    frag_penalty: float
    stats: Stats
    ref_index: int = 0
    alignment: List[Tuple[int, int, int, int, int]] = field(default_factory=list, repr=False)

    def to_dict(self) -> Dict[str, object]:
        """JSON-ready dict (statistics included; NaN written as null)."""
        return {
            "score": self.score,
            "precision": _finite(self.precision),
            "recall": _finite(self.recall),
            "fmean": _finite(self.fmean),
            "frag_penalty": _finite(self.frag_penalty),
            "ref_index": self.ref_index,
            "stats": self.stats.to_dict(),
        }


@dataclass
class CorpusScore:
    """A corpus score from summed sufficient statistics, with every segment's score."""

    score: float
    metrics: Metrics
    stats: Stats
    segments: List[SegmentScore]
    config: MeteorConfig
    signature: str

    def to_dict(self) -> Dict[str, object]:
        """JSON-ready dict: corpus metrics, statistics, signature and all segments."""
        m = self.metrics
        return {
            "score": self.score,
            "precision": _finite(m.precision),
            "recall": _finite(m.recall),
            "f1": _finite(m.f1),
            "fmean": _finite(m.fmean),
            "frag_penalty": _finite(m.frag_penalty),
            "stats": self.stats.to_dict(),
            "signature": self.signature,
            "segments": [s.to_dict() for s in self.segments],
        }

    def to_json(self, **kw: object) -> str:
        return json.dumps(self.to_dict(), **kw)  # type: ignore[arg-type]

    def format(self, fmt: str = "text") -> str:
        """Format as Meteor 1.5's text report (``text``) or JSON (``json``)."""
        if fmt == "json":
            return self.to_json(indent=1) + "\n"
        from .report import text_report

        return text_report(self)


def _finite(x: float) -> Optional[float]:
    return None if x != x else x


class Meteor:
    """A configured METEOR scorer.

    >>> m = Meteor("en", norm=True)                                  # doctest: +SKIP
    >>> m.score_segment("the cat sat", ["a cat sat down"]).score     # doctest: +SKIP

    Parameters mirror Meteor 1.5's options: ``task`` (rank, adq, hter, li,
    tune, util, universal; default: the language's), ``params`` (alpha beta
    gamma delta), ``modules`` (exact stem synonym paraphrase), ``weights``
    (one per module), ``beam`` (search beam, default 40), ``norm`` (Meteor's
    tokeniser and punctuation normaliser, with lower-casing), ``lower``
    (lower-case only), ``no_punct`` (drop punctuation; with ``norm``) and
    ``bundle`` (a bundle path, or the name of a bundle on the search path such as
    ``de-wordfreq``; default: the language's bundle on the search
    path, see :func:`meteor_lite.bundle.bundle_search_path`).

    Resources a module needs but the bundle lacks: if the module was asked for
    explicitly, :class:`ConfigError`; if it came from the language default, it
    is dropped with a warning (as if Meteor had been run with ``-m`` without it).
    """

    def __init__(
        self,
        lang: str = "en",
        *,
        task: Optional[str] = None,
        params: Optional[Sequence[float]] = None,
        modules: Optional[Sequence[str]] = None,
        weights: Optional[Sequence[float]] = None,
        beam: int = 40,
        norm: bool = False,
        lower: bool = False,
        no_punct: bool = False,
        bundle: Union[str, "os.PathLike[str]", Bundle, None] = None,
        quiet: bool = False,
    ):
        cfg = resolve_config(
            lang, task=task, params=params, modules=modules, weights=weights, beam=beam,
            norm=norm, lower=lower, no_punct=no_punct,
        )
        self.warnings: List[str] = list(cfg.warnings)
        if isinstance(bundle, Bundle):
            self.bundle: Optional[Bundle] = bundle
        elif bundle is not None:
            named = find_bundle(str(bundle)) if not Path(bundle).exists() and os.sep not in str(bundle) else None
            self.bundle = Bundle.open(named if named is not None else bundle)
        else:
            path = find_bundle(cfg.lang)
            self.bundle = Bundle.open(path) if path is not None else None
            if self.bundle is None:
                self.warnings.append(
                    f"no bundle found for language {cfg.lang!r}: no function words"
                    + (", no non-breaking prefixes" if norm else "")
                    + " (run `make bundles` or pass --bundle)"
                )
        if cfg.lang not in LANGUAGES and (self.bundle is None or self.bundle.language != cfg.lang):
            raise ConfigError(
                f"unknown language {lang!r}: not a Meteor 1.5 language, and no bundle for it was found "
                "(build one with meteor-build, or see `meteor-lite bundle list`)"
            )
        if self.bundle is not None and self.bundle.language and self.bundle.language != cfg.lang:
            self.warnings.append(f"bundle {self.bundle.path} is for language {self.bundle.language!r}, not {cfg.lang!r}")
        # The stemmer recorded with the bundle's stem map, else the language's own.
        recorded = (self.bundle.stemmer or {}).get("language") if self.bundle is not None else None
        stemmer_name = recorded if recorded in snowball_classes() else snowball_algorithm_for(cfg.lang)
        self.resources = Resources(self.bundle, stemmer_name)
        self._check_stemmer_version()
        cfg = self._fit_modules(cfg, explicit=modules is not None)
        self.config = cfg
        if not quiet:
            for w in self.warnings:
                warn(w)

    # -- configuration checks ------------------------------------------------------
    def _fit_modules(self, cfg: MeteorConfig, explicit: bool) -> MeteorConfig:
        res = self.resources
        available = {
            "exact": True,
            "stem": res.can_stem,
            "synonym": res.has_synonyms,
            "paraphrase": res.has_paraphrases,
        }
        missing = [m for m in cfg.modules if not available[m]]
        if not missing:
            return cfg
        where = f"bundle {self.bundle.path}" if self.bundle is not None else "no bundle"
        if explicit:
            raise ConfigError(f"module(s) {', '.join(missing)} need resources that {where} lacks")
        keep = [i for i, m in enumerate(cfg.modules) if available[m]]
        self.warnings.append(f"{where} has no resources for module(s) {', '.join(missing)}: scoring without them")
        return dataclasses.replace(
            cfg, modules=tuple(cfg.modules[i] for i in keep), weights=tuple(cfg.weights[i] for i in keep)
        )

    def _check_stemmer_version(self) -> None:
        if self.bundle is None or self.bundle.stemmer is None:
            return
        rec = self.bundle.stemmer
        try:
            from importlib.metadata import version

            installed = version(rec.get("package", "snowballstemmer"))
        except Exception:  # pragma: no cover - metadata missing
            return
        if rec.get("version") and installed != rec["version"]:
            self.warnings.append(
                f"bundle stem map was built with {rec.get('package')} {rec['version']}, "
                f"{installed} is installed: words outside the map may stem differently"
            )

    # -- text preparation ------------------------------------------------------------
    def tokens(self, line: str) -> List[str]:
        """Tokens of ``line`` as Meteor sees them after normalisation / lower-casing."""
        from .normalize import prepare

        cfg = self.config
        return prepare(
            line, cfg.lang, norm=cfg.norm, lower=cfg.lower, keep_punct=not cfg.no_punct,
            nonbreaking=self.resources.nonbreaking,
        )

    # -- scoring ---------------------------------------------------------------------
    def _align_stats(self, hyp: List[str], ref: List[str]) -> Tuple[Stats, List[Match]]:
        cfg = self.config
        cands = collect_matches(hyp, ref, cfg.modules, self.resources)
        matches = resolve(len(hyp), len(ref), cands, cfg.beam)
        from .normalize import java_lower

        fw = self.resources.function_words
        func_h = [java_lower(w) in fw for w in hyp]
        func_r = [java_lower(w) in fw for w in ref]
        n = len(cfg.modules)
        tc = [0.0] * n
        tf = [0.0] * n
        rc = [0.0] * n
        rf = [0.0] * n
        if cfg.char_based:
            hl = [_jlen(w) for w in hyp]
            rl = [_jlen(w) for w in ref]
        else:
            hl = [1] * len(hyp)
            rl = [1] * len(ref)
        for m in matches:
            for k in range(m.hstart, m.hstart + m.hlen):
                if func_h[k]:
                    tf[m.module] += hl[k]
                else:
                    tc[m.module] += hl[k]
            for k in range(m.rstart, m.rstart + m.rlen):
                if func_r[k]:
                    rf[m.module] += rl[k]
                else:
                    rc[m.module] += rl[k]
        st = Stats(
            test_length=float(sum(hl)),
            ref_length=float(sum(rl)),
            test_function_words=float(sum(h for h, f in zip(hl, func_h) if f)),
            ref_function_words=float(sum(r for r, f in zip(rl, func_r) if f)),
            test_content=tc,
            ref_content=rc,
            test_function=tf,
            ref_function=rf,
            chunks=float(count_chunks(matches)),
            test_word_matches=float(sum(m.hlen for m in matches)),
            ref_word_matches=float(sum(m.rlen for m in matches)),
        )
        return st, matches

    def _metrics(self, st: Stats) -> Metrics:
        c = self.config
        return compute(st, c.alpha, c.beta, c.gamma, c.delta, c.weights)

    def score_tokens(self, hyp: List[str], refs: Sequence[List[str]]) -> SegmentScore:
        """Score pre-tokenised text (no normalisation applied)."""
        if not refs:
            raise ValueError("at least one reference is needed")
        best: Optional[SegmentScore] = None
        for k, ref in enumerate(refs):
            st, matches = self._align_stats(hyp, ref)
            m = self._metrics(st)
            if best is None or m.score > best.score:
                best = SegmentScore(
                    m.score, m.precision, m.recall, m.f1, m.fmean, m.frag_penalty, st, k,
                    [x.as_tuple() for x in matches],
                )
        assert best is not None
        return best

    def score_segment(self, hyp: str, refs: Union[str, Sequence[str]]) -> SegmentScore:
        """Score one hypothesis against one or more references (the best reference wins, as in Meteor)."""
        if isinstance(refs, str):
            refs = [refs]
        h = self.tokens(hyp)
        rs = [self.tokens(r) for r in refs]
        self.prefetch([h] + rs)
        return self.score_tokens(h, rs)

    def score_corpus(
        self, hyps: Sequence[str], refs: Sequence[Sequence[str]], *, jobs: int = 1
    ) -> CorpusScore:
        """Score a corpus: ``refs`` is a list of reference streams, each as long as ``hyps``.

        The corpus score comes from the summed sufficient statistics of the
        segments (as Meteor's ``Final score``), not from averaging segment scores.
        ``jobs`` > 1 scores shards of the corpus in that many processes (``0``: one
        per CPU, at most 4); results are identical whatever the number of jobs.
        """
        if not refs:
            raise ValueError("at least one reference stream is needed")
        for k, stream in enumerate(refs):
            if len(stream) != len(hyps):
                raise ValueError(f"reference stream {k + 1} has {len(stream)} lines, the hypotheses {len(hyps)}")
        if jobs == 0:
            jobs = min(os.cpu_count() or 1, 4)
        n = len(hyps)
        if jobs > 1 and n >= 2 * _MIN_SHARD and "fork" in _mp_start_methods():
            segs = self._score_parallel(hyps, refs, jobs)
        else:
            segs = self._score_range(hyps, refs, 0, n)
        return self.aggregate(segs)

    def _score_range(self, hyps: Sequence[str], refs: Sequence[Sequence[str]], start: int, end: int) -> List[SegmentScore]:
        segs: List[SegmentScore] = []
        block = 512
        for b in range(start, end, block):
            e = min(b + block, end)
            toks_h = [self.tokens(h) for h in hyps[b:e]]
            toks_r = [[self.tokens(stream[i]) for stream in refs] for i in range(b, e)]
            self.prefetch(toks_h + [r for rs in toks_r for r in rs])
            segs.extend(self.score_tokens(h, rs) for h, rs in zip(toks_h, toks_r))
        return segs

    def _score_parallel(self, hyps: Sequence[str], refs: Sequence[Sequence[str]], jobs: int) -> List[SegmentScore]:
        import multiprocessing

        global _WORK
        n = len(hyps)
        shards = max(jobs * 4, 1)
        size = max(_MIN_SHARD, -(-n // shards))
        bounds = [(b, min(b + size, n)) for b in range(0, n, size)]
        _WORK = (self, hyps, refs)
        try:
            ctx = multiprocessing.get_context("fork")
            with ctx.Pool(jobs, initializer=_worker_init) as pool:
                parts = pool.map(_worker_score, bounds, chunksize=1)
        finally:
            _WORK = None
        return [s for part in parts for s in part]

    def _reopen(self) -> None:
        """Give this (forked) process its own connection to the bundle."""
        if self.bundle is not None:
            fresh = Bundle.open(self.bundle.path)
            self.bundle = fresh
            self.resources.bundle = fresh

    def prefetch(self, sentences: Sequence[Sequence[str]]) -> None:
        """Look up the resources of many tokenised sentences at once (fewer, larger queries)."""
        mods = self.config.modules
        res = self.resources
        if "stem" in mods or "synonym" in mods:
            vocab = sorted({w for s in sentences for w in s})
            if "stem" in mods:
                res.stems(vocab)
            if "synonym" in mods:
                res.synsets(vocab)
        if "paraphrase" in mods:
            res.paraphrase_table(sentences)

    def aggregate(self, segments: List[SegmentScore]) -> CorpusScore:
        """Corpus score of already scored segments."""
        total = Stats()
        for s in segments:
            total.add(s.stats)
        n = len(self.config.modules)
        for lst in (total.test_content, total.ref_content, total.test_function, total.ref_function):
            while len(lst) < n:
                lst.append(0.0)
        m = self._metrics(total)
        return CorpusScore(m.score, m, total, segments, self.config, self.signature)

    # -- reproducibility ----------------------------------------------------------
    @property
    def signature(self) -> str:
        """Everything that changes the number, in one line (sacreBLEU-style)."""
        c = self.config
        from .report import java_double

        def num(x: float) -> str:
            s = java_double(x)
            return s[:-2] if s.endswith(".0") else s

        norm = "norm-nopunct" if (c.norm and c.no_punct) else "norm" if c.norm else "lower" if c.lower else "none"
        if self.bundle is not None:
            res = f"{self.bundle.name}-{self.bundle.version}@{(self.bundle.checksum or 'nochecksum')[:8]}"
        else:
            res = "none"
        parts = [
            "meteor-lite",
            f"lang:{c.lang}",
            norm,
            f"task:{'custom' if c.custom else c.task}",
            "mods:" + "+".join(MODULE_SIG[m] for m in c.modules),
            "w:" + ",".join(num(w) for w in c.weights),
            f"a:{num(c.alpha)}",
            f"b:{num(c.beta)}",
            f"g:{num(c.gamma)}",
            f"d:{num(c.delta)}",
            f"beam:{c.beam}",
            f"res:{res}",
            f"v:{__version__}",
        ]
        return "|".join(parts)


_MIN_SHARD = 64
_WORK: Optional[Tuple["Meteor", Sequence[str], Sequence[Sequence[str]]]] = None


def _mp_start_methods() -> List[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()


def _worker_init() -> None:
    assert _WORK is not None
    _WORK[0]._reopen()


def _worker_score(bounds: Tuple[int, int]) -> List[SegmentScore]:
    assert _WORK is not None
    scorer, hyps, refs = _WORK
    return scorer._score_range(hyps, refs, bounds[0], bounds[1])


def _jlen(w: str) -> int:
    """Java String.length(): UTF-16 code units."""
    return len(w.encode("utf-16-le")) // 2


__all__ = ["Meteor", "SegmentScore", "CorpusScore", "ConfigError", "BundleError"]
