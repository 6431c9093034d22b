"""Per-segment statistics of a judgments file under one scorer configuration, aligned once and cached on disk.

α, β, γ, δ and the module weights do not change an alignment, so a parameter search aligns each file once per
(normalisation, module set) and re-scores from these statistics (:class:`~.universal.StatArrays`).  The cache
file is keyed by the judgments file's SHA-256, the scorer (its signature, or the bundle's checksum), the modules,
the meteor-lite version and the rows wanted: any change aligns again.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from meteor_lite import Meteor, __version__
from meteor_lite.metaeval import Judgments
from meteor_lite.metaeval.data import judgments_label
from meteor_lite.stats import SS_STAGES, Stats

from ..sources import sha256_file

__all__ = ["align_cached", "stat_values"]


def align_cached(j: Judgments, path: Path, lang: str, bundle: Optional[Path], modules: Tuple[str, ...], cache: Optional[Path],
                 progress: Callable[[str], None], meteor: Optional[Meteor] = None) -> Dict[Tuple[str, str], List[Stats]]:
    """First-reference statistics of every row of ``j`` that has a human score (cached on disk); ``meteor``: align
    with this scorer instead (its signature names its bundle and modules)."""
    wanted = [(name, j.items[i]) for s, name in enumerate(j.systems) for i, g in enumerate(j.gold[s]) if g is not None]
    which = meteor.signature if meteor is not None else sha256_file(str(bundle))
    fields: List[object] = [sha256_file(str(path)), which, list(modules), __version__, sorted(wanted)]
    if len(modules) > SS_STAGES:  # every module's numbers (a cache written before they were kept had 4 only)
        fields.append(f"stages:{len(modules)}")
    key = hashlib.sha256(json.dumps(fields).encode()).hexdigest()[:20]
    file = cache / f"{judgments_label(str(path))}.{'+'.join(modules)}.{key}.json.gz" if cache is not None else None
    if file is not None and file.is_file():
        with gzip.open(file, "rt", encoding="utf-8") as fh:
            data = json.load(fh)
        return {(s, i): [Stats.from_values(v, len(modules))] for s, i, v in data}
    progress(f"aligning {path.name} ({lang}, {' '.join(modules)}{', ' + meteor.signature.split('|')[2] if meteor else ''}, {len(wanted)} rows)")
    m = meteor if meteor is not None else Meteor(lang, modules=list(modules), bundle=bundle, norm=True, quiet=True)
    want = set(wanted)
    out: Dict[Tuple[str, str], List[Stats]] = {}
    for system, pairs in j.texts.items():
        idx = [n for n, i in enumerate(j.order[system]) if (system, j.items[i]) in want]
        if not idx:
            continue
        scored = m.score_corpus([pairs[n][0] for n in idx], [[pairs[n][1] for n in idx]], layout="streams")
        for n, seg in zip(idx, scored.segments):
            out[(system, j.items[j.order[system][n]])] = [seg.stats]
    if file is not None:
        file.parent.mkdir(parents=True, exist_ok=True)
        rows = [[s, i, stat_values(st[0])] for (s, i), st in out.items()]
        tmp = file.with_suffix(".tmp")
        with gzip.open(tmp, "wt", encoding="utf-8") as fh:
            json.dump(rows, fh)
        tmp.replace(file)
    return out


def stat_values(st: Stats) -> List[float]:
    """The numbers of a ``-ssOut`` line, in its order (:meth:`Stats.from_values` reads them back): its 23 for at most
    Meteor's four modules, and four more per module past them (``near`` after paraphrase), which the jar's line
    has no room for."""
    return st.values(max(SS_STAGES, len(st.test_content)))
