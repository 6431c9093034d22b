"""Scoring one segment: align the hypothesis with each reference, count the statistics, keep the best."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import accel
from .align.bounded import BOUNDED_CAP, SMALL_SEGMENT, bounded_alignment, work_limit
from .align.budget import count_candidates
from .align.matches import Match, collect_matches
from .align.modules import REGISTRY, modules_needing
from .align.search import count_chunks, search_alignment
from .config import MeteorConfig
from .jarcompat import java_length
from .resources.lookups import Resources
from .scores import SegmentScore
from .stats import Metrics, Stats, compute
from .text.normalize import java_lower

__all__ = ["align_segment", "alignment_stats", "best_reference", "best_of", "config_metrics", "pair_kernel", "prepare_side", "Side"]


def config_metrics(config: MeteorConfig, st: Stats) -> Metrics:
    """The formula applied to ``st`` with the parameters and weights of ``config``."""
    return compute(st, config.alpha, config.beta, config.gamma, config.delta, config.weights)


def align_segment(
    hyp: List[str], ref: List[str], config: MeteorConfig, resources: Resources
) -> Tuple[Stats, List[Match], bool]:
    """Align two token lists and count Meteor's sufficient statistics of the alignment.

    The third result is True when the segment was aligned in bounded mode
    (:mod:`meteor_lite.align.bounded`: too many candidates for the beam search).
    """
    h, r = (prepare_side(w, config, resources, packed=False) for w in (hyp, ref))
    return _align_sides(h, r, config, resources)


#: One sentence as the statistics read it: its words, each word's function-word flag and length
#: (1, or its Java length with ``char_based``), the sums of the lengths (all words, function words), and
#: the sentence packed for the compiled pair kernel (``_accel.pack_words``; None when it does not run).
Side = Tuple[List[str], List[bool], List[int], float, float, Optional[object]]
#: What the compiled pair kernel counts of a pair (``_accel.align_stats``): content and function units matched per
#: module on each side, chunks, words matched on each side, and the chosen (module, rstart, rlen, hstart, hlen).
KernelCounts = Tuple[List[float], List[float], List[float], List[float], float, float, float, List[Tuple[int, int, int, int, int]]]

#: The module codes of the compiled pair kernel (``_accel.align_stats``): the registry's.
_MODULE_CODES = {m.name: m.code for m in REGISTRY}
#: The codes of each module list seen (a handful per process).
_CODES_OF: Dict[Tuple[str, ...], Tuple[int, ...]] = {}


def module_codes(modules: Sequence[str]) -> Tuple[int, ...]:
    """The kernel's codes of ``modules``, in their order."""
    key = tuple(modules)
    codes = _CODES_OF.get(key)
    if codes is None:
        codes = _CODES_OF[key] = tuple(_MODULE_CODES[m] for m in key)
    return codes


def pair_kernel(config: MeteorConfig) -> Optional[accel.Kernels]:
    """The compiled kernels when they score the pairs of ``config`` (sentences packed from their words' records,
    :meth:`Resources.word_records`), else None: pure Python, or a case-aware mode."""
    kernels = accel.compiled
    return kernels if kernels is not None and not config.case_aware else None


def prepare_side(words: List[str], config: MeteorConfig, resources: Resources, *, packed: bool = True) -> Side:
    """The function-word flags and unit lengths of ``words`` (computed once per sentence, not per pair), and with
    ``packed`` the sentence packed for the compiled pair kernel (left out by the callers that align with
    :func:`_align_sides`, and None when that kernel does not run: pure Python, the case-aware modes)."""
    kernels = pair_kernel(config) if packed else None
    if kernels is not None:
        return _packed_side(words, config, resources, kernels)
    lengths = [java_length(w) for w in words] if config.char_based else [1] * len(words)
    func = resources.function_flags(words)
    return words, func, lengths, float(sum(lengths)), float(sum(n for n, f in zip(lengths, func) if f)), None


def _packed_side(words: List[str], config: MeteorConfig, resources: Resources, kernels: accel.Kernels) -> Side:
    """:func:`prepare_side` with the kernel view, in one call of ``_accel.pack_words`` from the words' records
    (:meth:`Resources.word_records`: Java hashes of the word and of its stem, synsets, function-word flag,
    length; made once per word) and the sentence's paraphrase-table phrases: what
    :func:`~meteor_lite.align.matches.collect_matches` would look up per pair."""
    mods = config.modules
    stem, synonym = modules_needing(mods, "stem"), modules_needing(mods, "synonyms")
    hits: Union[None, List[Tuple[int, int, str]], Tuple[Any, ...]] = None
    if modules_needing(mods, "paraphrases"):
        hits = [] if resources.paraphrase_max_len <= 0 else resources.table_to_walk(kernels) or resources.phrase_hits(words)
    records = resources.records_for(stem, synonym)
    parsed = resources.parsed_entries(kernels) if hits else None
    got = kernels.pack_words(words, records, hits, stem, synonym, config.char_based, parsed)
    while isinstance(got, list):  # words seen for the first time (no prefetch, or records emptied when full)
        records = resources.word_records(got, stem, synonym)
        got = kernels.pack_words(words, records, hits, stem, synonym, config.char_based, parsed)
    view, func, lengths, total, func_total = got
    return words, func, lengths, total, func_total, view


def _align_sides(h: Side, r: Side, config: MeteorConfig, resources: Resources) -> Tuple[Stats, List[Match], bool]:
    """:func:`align_segment` of two prepared sides."""
    matches, bounded = _align(h[0], r[0], config, resources)
    return _side_stats(h, r, matches, config), matches, bounded


def _pair_stats(
    h: Side, r: Side, config: MeteorConfig, resources: Resources
) -> Tuple[Stats, List[Tuple[int, int, int, int, int]], bool]:
    """The statistics, the chosen matches as (module, rstart, rlen, hstart, hlen) and the bounded flag of two
    prepared sides: in one call of the compiled pair kernel when both have a kernel view and the pair is in
    its range (no bounded mode, within the search's limits), else by :func:`_align_sides`."""
    kernels = accel.compiled
    if kernels is not None and kernel_pair(h, r):
        got = kernels.align_stats(h[5], r[5], module_codes(config.modules), config.beam)
        if got is not None:
            return counted_stats(h, r, got), got[7], False
    st, matches, bounded = _align_sides(h, r, config, resources)
    return st, [x.as_tuple() for x in matches], bounded


def kernel_pair(h: Side, r: Side) -> bool:
    """Whether the compiled pair kernel takes the pair of prepared sides: both packed, and small enough for the
    search (a larger pair may need bounded mode, which the Python path decides)."""
    return h[5] is not None and r[5] is not None and len(h[0]) * len(r[0]) <= SMALL_SEGMENT


def counted_stats(h: Side, r: Side, got: KernelCounts) -> Stats:
    """The statistics of a pair from the pair kernel's counts (``align_stats``) and its prepared sides' lengths."""
    tc, rc, tf, rf, chunks, twm, rwm, _ = got
    return Stats(h[3], r[3], h[4], r[4], tc, rc, tf, rf, chunks, twm, rwm)


def alignment_stats(hyp: List[str], ref: List[str], matches: Sequence[Match], config: MeteorConfig,
                    resources: Resources) -> Stats:
    """Meteor's sufficient statistics of an alignment (``matches``: the chosen matches) of two token lists."""
    h, r = (prepare_side(w, config, resources, packed=False) for w in (hyp, ref))
    return _side_stats(h, r, matches, config)


def _side_stats(h: Side, r: Side, matches: Sequence[Match], config: MeteorConfig) -> Stats:
    """:func:`alignment_stats` of two prepared sides."""
    _, func_h, hl, h_total, h_func, _ = h
    _, func_r, rl, r_total, r_func, _ = r
    n = len(config.modules)
    tc, tf = _stage_counts(matches, func_h, hl, n, hyp_side=True)
    rc, rf = _stage_counts(matches, func_r, rl, n, hyp_side=False)
    return Stats(
        test_length=h_total,
        ref_length=r_total,
        test_function_words=h_func,
        ref_function_words=r_func,
        test_content=tc,
        ref_content=rc,
        test_function=tf,
        ref_function=rf,
        chunks=float(count_chunks(matches)),
        test_word_matches=float(sum([m.hlen for m in matches])),
        ref_word_matches=float(sum([m.rlen for m in matches])),
    )


def _align(hyp: List[str], ref: List[str], config: MeteorConfig, resources: Resources) -> Tuple[List[Match], bool]:
    """The chosen matches: the beam search's, or bounded mode's above the work limit (flagged True)."""
    limit = work_limit(config.beam)
    folded = ([java_lower(w) for w in hyp], [java_lower(w) for w in ref]) if config.case_aware else None
    if len(hyp) * len(ref) > SMALL_SEGMENT and count_candidates(hyp, ref, config.modules, resources, limit, folded) > limit:
        cands = collect_matches(hyp, ref, config.modules, resources, cap=BOUNDED_CAP, folded=folded)
        return bounded_alignment(len(hyp), len(ref), cands), True
    cands = collect_matches(hyp, ref, config.modules, resources, folded=folded)
    return search_alignment(len(hyp), len(ref), cands, config.beam), False


def _stage_counts(
    matches: Sequence[Match], func: List[bool], lengths: List[int], n: int, *, hyp_side: bool
) -> Tuple[List[float], List[float]]:
    """Matched content and function units per module, on the hypothesis or the reference side."""
    content = [0.0] * n
    function = [0.0] * n
    for m in matches:
        start, length = (m.hstart, m.hlen) if hyp_side else (m.rstart, m.rlen)
        if length == 1:  # most matches: one word
            if func[start]:
                function[m.module] += lengths[start]
            else:
                content[m.module] += lengths[start]
            continue
        for k in range(start, start + length):
            if func[k]:
                function[m.module] += lengths[k]
            else:
                content[m.module] += lengths[k]
    return content, function


def best_reference(hyp: List[str], refs: Sequence[List[str]], config: MeteorConfig, resources: Resources) -> SegmentScore:
    """Score ``hyp`` against each reference; the first best-scoring one wins, as in Meteor.

    The result is flagged ``bounded`` when any reference was aligned in bounded mode.
    """
    side = prepare_side(hyp, config, resources)
    return best_of(side, [prepare_side(r, config, resources) for r in refs], config, resources)


def best_of(
    hyp: Side, refs: Sequence[Side], config: MeteorConfig, resources: Resources,
    counted: Optional[Sequence[Optional[KernelCounts]]] = None,
) -> SegmentScore:
    """:func:`best_reference` of prepared sides (each sentence's flags computed once by :func:`prepare_side`).

    ``counted``: per reference, the pair kernel's counts when they were computed already (``_accel.align_many``
    in another thread, :mod:`meteor_lite.pairwise`), else None: that pair is aligned here.
    """
    if not refs:
        raise ValueError("at least one reference is needed")
    best: Optional[SegmentScore] = None
    any_bounded = False
    for k, ref in enumerate(refs):
        got = counted[k] if counted is not None else None
        if got is not None:
            st, chosen, bounded = counted_stats(hyp, ref, got), got[7], False
        else:
            st, chosen, bounded = _pair_stats(hyp, ref, config, resources)
        any_bounded = any_bounded or bounded
        m = config_metrics(config, st)
        if best is None or m.score > best.score:
            best = SegmentScore(m.score, m.precision, m.recall, m.f1, m.fmean, m.frag_penalty, st, k, chosen)
    assert best is not None
    best.bounded = any_bounded  # a bounded reference may have lost to the one that won
    return best
