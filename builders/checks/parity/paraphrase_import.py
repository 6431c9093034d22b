"""``meteor-build check paraphrase-import``: a paraphrase table imported with ``bundle install LANG --paraphrase FILE``
scores as the jar run with ``-a FILE``.

The official import of ``lang`` with the table (:func:`~meteor_lite_builders.official.user_install.install_official`, into a
scratch directory) is scored by meteor-lite with the language's default configuration (``--norm``; for
German: exact stem paraphrase, the Ranking parameters), and the jar is run on the same segments with
``-l LANG -norm -a FILE``; every segment score is compared as the jar prints it.  Inputs: the systems of a
WMT21 file (``newstest2021.en-de.systems.tsv.gz``) and/or an MQM file of ``../shared/data``, each optionally
cut to its first N segments.
"""

from __future__ import annotations

import logging
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from meteor_lite.jarcompat import java_double

__all__ = ["ImportComparison", "compare_import", "format_comparison"]

_LOG = logging.getLogger("meteor_lite_builders.checks")


@dataclass
class ImportComparison:
    """The segments of one input scored by both."""

    name: str
    segments: int = 0
    equal: int = 0
    paraphrase_matches: int = 0  # segments where the paraphrase stage matched a word (ours)
    differences: List[Tuple[int, str, str]] = field(default_factory=list)  # (segment, jar, ours)
    jar_final: str = ""
    ours_final: str = ""


def _segments(path: Path, limit: Optional[int]) -> Tuple[List[str], List[str]]:
    from ..shared_data import _tsv_rows

    rows = _tsv_rows(path, ("hyp", "ref") if "mqm" in path.name else ("hyp", "ref_A"))
    ref_key = "ref" if "mqm" in path.name else "ref_A"
    rows = [r for r in rows if r["hyp"].strip() and r[ref_key].strip()]
    if limit is not None:
        rows = rows[:limit]
    return [r["hyp"] for r in rows], [r[ref_key] for r in rows]


def compare_import(table: Path, inputs: Sequence[Path], *, lang: str = "de", limit: Optional[int] = None,
                   work: Optional[Path] = None) -> List[ImportComparison]:
    """Import ``lang`` with ``table``, score ``inputs`` with meteor-lite and the jar (``-a table``), compare."""
    from meteor_lite import Meteor

    from ...jar import find_java
    from ...official.user_install import install_official
    from .jar_output import parse_score_output
    from .oracle import run_scorer_locked, scorer_args

    find_java()
    work = work or Path(tempfile.mkdtemp(prefix="meteor-lite-para-import-"))
    bundle = install_official(lang, dest_dir=work, paraphrase_file=table, say=_LOG.info, progress=False, force=True)
    m = Meteor(lang, norm=True, bundle=bundle, quiet=True)
    _LOG.info(f"meteor-lite: {m.signature}")
    mods = list(m.config.modules)
    para = mods.index("paraphrase") if "paraphrase" in mods else None
    out: List[ImportComparison] = []
    for path in inputs:
        hyps, refs = _segments(path, limit)
        c = ImportComparison(path.name, len(hyps))
        hyp_file, ref_file = work / "hyp.txt", work / "ref.txt"
        hyp_file.write_text("\n".join(hyps) + "\n", encoding="utf-8")
        ref_file.write_text("\n".join(refs) + "\n", encoding="utf-8")
        text, secs = run_scorer_locked(scorer_args(hyp_file, ref_file, ["-l", lang, "-norm", "-a", str(table)]))
        jar = parse_score_output(text)
        _LOG.info(f"{path.name}: jar {secs:.1f} s, {len(hyps)} segments")
        ours = m.score_corpus(hyps, [refs])
        for i, (j, s) in enumerate(zip(jar["segments"], ours.segments), 1):
            mine = java_double(s.score)
            if mine == j:
                c.equal += 1
            else:
                c.differences.append((i, j, mine))
            if para is not None and s.stats.test_content[para] + s.stats.test_function[para] > 0:
                c.paraphrase_matches += 1
        c.jar_final, c.ours_final = jar["final_text"], java_double(ours.score)
        out.append(c)
    return out


def format_comparison(results: Sequence[ImportComparison]) -> str:
    """One line per input, then the first differences."""
    lines = []
    for c in results:
        lines.append(f"{c.name}: {c.equal} of {c.segments} segment scores equal the jar's "
                     f"({c.paraphrase_matches} segments with paraphrase matches); final: jar {c.jar_final}, "
                     f"meteor-lite {c.ours_final}")
        lines += [f"  segment {i}: jar {j}, meteor-lite {o}" for i, j, o in c.differences[:10]]
    return "\n".join(lines) + "\n"
