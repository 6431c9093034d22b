"""Candidate matches and the alignment search of Meteor 1.3+ (Denkowski & Lavie 2011, section 3).

All matches of all modules are collected first (each a phrase pair: a start
and length in the reference and in the hypothesis).  Matches that are the only
candidate for every word they cover are fixed; the rest are resolved by a
left-to-right beam search over reference positions that prefers, in order,
more covered words, fewer chunks, and a smaller distance between match
positions.

Meteor 1.5 specifics reproduced here so that scores agree with the official
release (each was checked against the jar):

* the search ranks partial alignments by covered words weighted 1 for exact
  matches and 1/2 for the other modules, each side rounded down to an integer
  when a match is added;
* a candidate's position distance is charged to the path that *skips* it
  (and to later siblings), not to the path that takes it;
* a reference identical to the hypothesis is matched by the first module only;
* words and stems are compared by their Java hash codes (``String.hashCode``),
  so the rare different words with equal hashes match as if identical;
* candidate order (module, then reference position, then hypothesis position;
  paraphrases in table order, reference-side phrases before hypothesis-side
  ones) decides ties, exactly as the official matcher orders them.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Dict, List, Optional, Sequence, Tuple

from .resources import Resources


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
        return (self.module, self.rstart, self.rlen, self.hstart, self.hlen)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Match(m{self.module} ref {self.rstart}+{self.rlen} ~ hyp {self.hstart}+{self.hlen})"


def _positions(words: Sequence) -> Dict[object, List[int]]:
    pos: Dict[object, List[int]] = {}
    for i, w in enumerate(words):
        pos.setdefault(w, []).append(i)
    return pos


_HASHES: Dict[str, int] = {}


def java_hash(word: str) -> int:
    """Java's ``String.hashCode()`` (over UTF-16 code units, as a signed 32-bit int).

    Meteor 1.5 compares words (and stems) by these hash codes, so two different
    words with the same hash match exactly; reproducing that keeps scores equal.
    """
    h = _HASHES.get(word)
    if h is None:
        data = word.encode("utf-16-be")
        acc = 0
        for k in range(0, len(data), 2):
            acc = (acc * 31 + (data[k] << 8 | data[k + 1])) & 0xFFFFFFFF
        h = acc - (1 << 32) if acc & 0x80000000 else acc
        if len(_HASHES) > 2_000_000:
            _HASHES.clear()
        _HASHES[word] = h
    return h


def collect_matches(
    hyp: Sequence[str], ref: Sequence[str], modules: Sequence[str], res: Resources
) -> List[List[Match]]:
    """All candidate matches, grouped by reference start position, in Meteor's order.

    Words and stems are compared by their Java hash codes, as Meteor 1.5 does.
    """
    n1, n2 = len(hyp), len(ref)
    cands: List[List[Match]] = [[] for _ in range(n2)]
    hk = [java_hash(w) for w in hyp]
    rk = [java_hash(w) for w in ref]
    used_modules = modules
    if n1 == n2 and hk == rk:
        used_modules = modules[:1]
    hpos = None
    for mi, mod in enumerate(used_modules):
        if mod == "exact":
            hpos = hpos or _positions(hk)
            for j, w in enumerate(rk):
                for i in hpos.get(w, ()):
                    cands[j].append(Match(mi, j, 1, i, 1, True))
        elif mod == "stem":
            sh = [java_hash(x) for x in res.stems(hyp)]
            sr = [java_hash(x) for x in res.stems(ref)]
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
        else:  # pragma: no cover - modules are validated by params.resolve
            raise ValueError(f"unknown module {mod!r}")
    return cands


def _phrases_at(words: Sequence[str], start: int, max_len: int, res: Resources):
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


def resolve(n1: int, n2: int, cands: List[List[Match]], beam: int) -> List[Match]:
    """Choose the alignment: fix unambiguous matches, then beam-search the rest.

    Returns the chosen matches ordered by reference position.
    """
    cov_h = [0] * n1
    cov_r = [0] * n2
    for lst in cands:
        for m in lst:
            for k in range(m.hstart, m.hstart + m.hlen):
                cov_h[k] += 1
            for k in range(m.rstart, m.rstart + m.rlen):
                cov_r[k] += 1
    fixed: Dict[int, Match] = {}
    used_h = 0
    used_r = 0
    for j, lst in enumerate(cands):
        if len(lst) != 1:
            continue
        m = lst[0]
        if all(cov_r[k] == 1 for k in range(m.rstart, m.rstart + m.rlen)) and all(
            cov_h[k] == 1 for k in range(m.hstart, m.hstart + m.hlen)
        ):
            fixed[j] = m
            used_h |= m.hmask
            used_r |= m.rmask

    if all(not lst or j in fixed for j, lst in enumerate(cands)):
        # Nothing left to choose: every candidate is fixed.
        return [fixed[j] for j in sorted(fixed)]

    # A path: (rank key, idx, last_end, used_h, used_r, chosen-chain, gain, chunks, distance).
    # The rank key orders by more weighted coverage, then fewer chunks, then less distance.
    S = _SHIFT
    paths: List[tuple] = [(0, 0, -1, used_h, used_r, None, 0, 0, 0)]
    for cur in range(n2):
        if len(paths) > 1:
            paths.sort(key=_FIRST)
        nxt: List[tuple] = []
        for path in paths[:beam]:
            _, idx, last, uh, ur, chosen, gain, ch, dist = path
            if (ur >> cur) & 1:
                if cur < idx:
                    nxt.append(path)
                    continue
                m = fixed.get(idx)
                if m is not None:
                    if last != -1 and m.hstart != last:
                        ch += 1
                    gain += m.gain
                    dist += m.dist
                    nxt.append(((-gain * S + ch) * S + dist, m.rstart + m.rlen, m.hstart + m.hlen, uh, ur, chosen, gain, ch, dist))
                continue
            for m in cands[cur]:
                if uh & m.hmask or ur & m.rmask:
                    continue
                nch = ch + 1 if (last != -1 and m.hstart != last) else ch
                ngain = gain + m.gain
                nxt.append(
                    ((-ngain * S + nch) * S + dist, m.rstart + m.rlen, m.hstart + m.hlen, uh | m.hmask, ur | m.rmask,
                     (m, chosen), ngain, nch, dist)
                )
                dist += m.dist  # charged to the paths that do not take m (see module docstring)
            if last != -1:
                ch += 1
            nxt.append(((-gain * S + ch) * S + dist, idx + 1, -1, uh, ur, chosen, gain, ch, dist))
        if not nxt:
            nxt.append(paths[0])
        paths = nxt
    if len(paths) > 1:
        paths.sort(key=_FIRST)
    final: List[tuple] = []
    for path in paths[:beam]:
        if path[2] != -1:  # close the open chunk
            gain, ch, dist = path[6], path[7] + 1, path[8]
            path = (_key(gain, ch, dist),) + path[1:7] + (ch, dist)
        final.append(path)
    final.sort(key=_FIRST)
    best = final[0]
    chosen_list: List[Match] = list(fixed.values())
    node = best[5]
    while node is not None:
        chosen_list.append(node[0])
        node = node[1]
    chosen_list.sort(key=lambda m: m.rstart)
    return chosen_list


_FIRST = itemgetter(0)
_SHIFT = 1 << 24


def _key(gain: int, chunks: int, dist: int) -> int:
    """One integer that sorts like (-gain, chunks, dist) for the sizes a segment can reach.

    (Inlined in the search loop for speed.)
    """
    return (-gain * _SHIFT + chunks) * _SHIFT + dist


def count_chunks(matches: Sequence[Match]) -> int:
    """Chunks of an alignment (matches ordered by reference position)."""
    chunks = 0
    pos = 0
    last = -1
    for m in matches:
        if m.rstart > pos and last != -1:
            chunks += 1  # a gap in the reference closes the chunk
            last = -1
        if last != -1 and m.hstart != last:
            chunks += 1
        pos = m.rstart + m.rlen
        last = m.hstart + m.hlen
    if last != -1:
        chunks += 1
    return chunks
