"""Every reference's sufficient statistics for a judgments file, in-process (``meteor_lite.Meteor``).

With several references, which one Meteor counts (the best-scoring one; the first of equal
scores) depends on α, β, γ, δ and the weights, so the trainer keeps each reference's
statistics and chooses per candidate.  Each hypothesis is scored against one reference at a
time: one-reference statistics are exactly that reference's alignment.  The alignment depends
on the modules, so there is one :class:`ModuleSet` per module list searched.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from meteor_lite import Meteor
from meteor_lite.config import resolve_config
from meteor_lite.metaeval.data import Judgments
from meteor_lite.stats import Stats

from ..errors import InvalidParameterError

__all__ = ["ModuleSet", "Cells", "parse_module_sets", "align_module_set"]

#: (system, item) -> the statistics of the hypothesis against each of its references, in column order.
Cells = Dict[Tuple[str, str], List[Stats]]


@dataclass
class ModuleSet:
    """One module list: its Meteor default parameters (the start of the search) and every cell's statistics."""

    modules: Tuple[str, ...]
    default: List[float]  # [alpha, beta, gamma, delta, w1..wn], as resolve_config gives them for these modules
    cells: Cells
    signature: str

    @property
    def name(self) -> str:
        """The modules joined by spaces (``exact stem``)."""
        return " ".join(self.modules)


def parse_module_sets(text: str) -> List[Tuple[str, ...]]:
    """``"exact; exact stem; ..."`` -> module lists (each checked by the scorer's own rules)."""
    sets: List[Tuple[str, ...]] = []
    for part in text.split(";"):
        mods = tuple(m.strip().lower() for m in part.split() if m.strip())
        if not mods:
            continue
        try:
            resolve_config("en", modules=list(mods))
        except Exception as exc:  # ConfigError: unknown or repeated module
            raise InvalidParameterError(f"--modules-search {part.strip()!r}: {exc}") from None
        if mods in sets:
            raise InvalidParameterError(f"--modules-search: {' '.join(mods)!r} given twice")
        sets.append(mods)
    if not sets:
        raise InvalidParameterError("--modules-search: no module list (separate lists with ';')")
    return sets


def align_module_set(
    judgments: Judgments,
    lang: str,
    modules: Optional[Sequence[str]],
    *,
    task: Optional[str] = None,
    bundle: "str | os.PathLike[str] | None" = None,
    norm: bool = True,
    lower: bool = False,
    no_punct: bool = False,
    case_aware: bool = False,
    tokenize: Optional[str] = None,
    tick: Callable[[int], None] = lambda n: None,
) -> ModuleSet:
    """Score every judged row against each of its references with ``modules`` (None: the language's default).

    ``tick(n)`` is called after each block of ``n`` alignments (progress).
    """
    if not judgments.refs:
        raise InvalidParameterError("the judgments file has no hyp / ref columns: nothing to align in-process")
    m = Meteor(lang, task=task, modules=list(modules) if modules is not None else None, bundle=bundle,
               norm=norm, lower=lower, no_punct=no_punct, case_aware=case_aware, tokenize=tokenize, quiet=True)
    cfg = m.config
    cells: Cells = {}
    for system, rows in judgments.refs.items():
        hyps = [h for h, _ in judgments.texts[system]]
        items = [judgments.items[i] for i in judgments.order[system]]
        for k in range(max((len(r) for r in rows), default=0)):
            idx = [i for i, r in enumerate(rows) if len(r) > k]
            scored = m.score_corpus([hyps[i] for i in idx], [[rows[i][k] for i in idx]], layout="streams")
            for i, seg in zip(idx, scored.segments):
                cells.setdefault((system, items[i]), []).append(seg.stats)
            tick(len(idx))
        missing = [items[i] for i, r in enumerate(rows) if not r]
        if missing:
            raise InvalidParameterError(f"system {system!r} segment {missing[0]!r} has no reference")
    default = [cfg.alpha, cfg.beta, cfg.gamma, cfg.delta, *cfg.weights]
    return ModuleSet(tuple(cfg.modules), default, cells, m.signature)
