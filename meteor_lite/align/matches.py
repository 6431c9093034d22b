"""Candidate matches of the four matcher modules (exact, stem, synonym, paraphrase), in Meteor's order.

All matches of all modules are collected first, each a phrase pair: a start
and length in the reference and in the hypothesis.  Meteor 1.5 specifics kept
here (each checked against the official jar):

* a reference identical to the hypothesis is matched by the first module only;
* words and stems are compared by their Java hash codes (``String.hashCode``),
  so the rare different words with equal hashes match as if identical;
* candidate order (module, then reference position, then hypothesis position;
  paraphrases in table order, reference-side phrases before hypothesis-side
  ones) decides ties in the search, exactly as the official matcher orders them.
"""

from __future__ import annotations

from typing import Dict, Hashable, Iterator, List, Optional, Sequence, Tuple

from ..jarcompat import java_string_hash
from ..resources.lookups import Paraphrases, Resources

__all__ = ["Match", "collect_matches"]


class Match:
    """A candidate match: ``rlen`` reference words at ``rstart`` ~ ``hlen`` hypothesis words at ``hstart``."""

    __slots__ = ("module", "rstart", "rlen", "hstart", "hlen", "hmask", "rmask", "gain", "dist")

    def __init__(self, module: int, rstart: int, rlen: int, hstart: int, hlen: int, exact_kind: bool):
        self.module = module
        self.rstart = rstart
        self.rlen = rlen
        self.hstart = hstart
        self.hlen = hlen
        self.hmask = ((1 << hlen) - 1) << hstart
        self.rmask = ((1 << rlen) - 1) << rstart
        # Search weight: 1 per word for exact matches, 1/2 (rounded down per side) otherwise.
        self.gain = (hlen + rlen) if exact_kind else (hlen // 2 + rlen // 2)
        self.dist = abs(rstart - hstart)

    def as_tuple(self) -> Tuple[int, int, int, int, int]:
        """(module, rstart, rlen, hstart, hlen)."""
        return (self.module, self.rstart, self.rlen, self.hstart, self.hlen)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Match(m{self.module} ref {self.rstart}+{self.rlen} ~ hyp {self.hstart}+{self.hlen})"


def _positions(words: Sequence[Hashable]) -> Dict[Hashable, List[int]]:
    """Positions of each distinct item of ``words``."""
    pos: Dict[Hashable, List[int]] = {}
    for i, w in enumerate(words):
        pos.setdefault(w, []).append(i)
    return pos


def collect_matches(
    hyp: Sequence[str], ref: Sequence[str], modules: Sequence[str], res: Resources
) -> List[List[Match]]:
    """All candidate matches, grouped by reference start position, in Meteor's order.

    Words and stems are compared by their Java hash codes, as Meteor 1.5 does.
    """
    n1, n2 = len(hyp), len(ref)
    cands: List[List[Match]] = [[] for _ in range(n2)]
    hk = [java_string_hash(w) for w in hyp]
    rk = [java_string_hash(w) for w in ref]
    used_modules = modules
    if n1 == n2 and hk == rk:
        used_modules = modules[:1]
    hpos: Optional[Dict[Hashable, List[int]]] = None
    for mi, mod in enumerate(used_modules):
        if mod == "exact":
            hpos = hpos or _positions(hk)
            for j, w in enumerate(rk):
                for i in hpos.get(w, ()):
                    cands[j].append(Match(mi, j, 1, i, 1, True))
        elif mod == "stem":
            sh = [java_string_hash(x) for x in res.stems(hyp)]
            sr = [java_string_hash(x) for x in res.stems(ref)]
            spos = _positions(sh)
            for j, s in enumerate(sr):
                rw = rk[j]
                for i in spos.get(s, ()):
                    if hk[i] != rw:
                        cands[j].append(Match(mi, j, 1, i, 1, False))
        elif mod == "synonym":
            yh = res.synsets(hyp)
            yr = res.synsets(ref)
            for j, sj in enumerate(yr):
                if not sj:
                    continue
                rw = rk[j]
                for i, si in enumerate(yh):
                    if si and hk[i] != rw and not si.isdisjoint(sj):
                        cands[j].append(Match(mi, j, 1, i, 1, False))
        elif mod == "paraphrase":
            _paraphrase_matches(mi, hyp, ref, res, cands)
        else:  # pragma: no cover - modules are validated by config.resolve_config
            raise ValueError(f"unknown module {mod!r}")
    return cands


def _phrases_at(words: Sequence[str], start: int, max_len: int, res: Resources) -> Iterator[Tuple[int, Paraphrases]]:
    """(length, paraphrases) of the table phrases starting at ``start``, shortest first."""
    n = len(words)
    paras, prefix = res.paraphrase_cache
    for k in range(1, min(max_len, n - start) + 1):
        g = " ".join(words[start : start + k])
        found = paras.get(g)
        if found is None:
            found = res.phrase(g)
        if found:
            yield k, found
        if not prefix[g]:
            return


def _paraphrase_matches(mi: int, hyp: Sequence[str], ref: Sequence[str], res: Resources, cands: List[List[Match]]) -> None:
    """Add the paraphrase matches of module ``mi`` (both directions) to ``cands``."""
    max_len = res.paraphrase_max_len
    if max_len <= 0 or not hyp or not ref:
        return
    hyp_t = tuple(hyp)
    ref_t = tuple(ref)
    hpos = _positions(hyp)
    rpos = _positions(ref)
    # Reference phrases whose paraphrase occurs in the hypothesis.
    for j in range(len(ref)):
        for k, found in _phrases_at(ref, j, max_len, res):
            for para in found:
                pl = len(para)
                for i in hpos.get(para[0], ()):
                    if hyp_t[i : i + pl] == para:
                        cands[j].append(Match(mi, j, k, i, pl, False))
    # Hypothesis phrases whose paraphrase occurs in the reference.
    for i in range(len(hyp)):
        for k, found in _phrases_at(hyp, i, max_len, res):
            for para in found:
                pl = len(para)
                for j in rpos.get(para[0], ()):
                    if ref_t[j : j + pl] == para:
                        cands[j].append(Match(mi, j, pl, i, k, False))
