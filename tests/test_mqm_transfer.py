"""``meteor-build check mqm-transfer``: Meteor's presets and the pooled leave-one-set-out search on MQM sets."""

from __future__ import annotations

import gzip
import math
from pathlib import Path
from typing import List

import pytest

from meteor_lite import Meteor
from meteor_lite.config import resolve_config
from meteor_lite.metaeval import read_judgments
from meteor_lite.metaeval.correlate import align, statistic
from meteor_lite.metaeval.data import MetricScores

pytest.importorskip("sacrebleu")
from meteor_lite_builders.checks.research import mqm_transfer  # noqa: E402  (needs sacrebleu's presence checked first)

#: Three small English sets (2 to 4 systems, 95 to 118 segments).
FILES = ("biomed2021.fr-en.dev.mqm.tsv.gz", "biomed2021.pt-en.dev.mqm.tsv.gz", "biomed2021.ru-en.dev.mqm.tsv.gz")


@pytest.fixture(scope="module")
def english_sets(shared_data: Path, bundle_dir: Path) -> List[mqm_transfer.SetGrids]:
    if not (bundle_dir / "en.sqlite").is_file():
        pytest.skip(f"needs {bundle_dir / 'en.sqlite'} (make bundles)")
    return mqm_transfer.load_sets(shared_data / "mqm", files=[shared_data / "mqm" / f for f in FILES])


def test_presets_are_meteors_tasks_for_the_language() -> None:
    """Each language gets the tasks Meteor 1.5 defines for it, with the parameters `--task` resolves; a language
    outside Meteor's has one preset, li."""
    en = mqm_transfer._presets("en", ("exact", "stem", "synonym", "paraphrase"))
    assert list(en) == ["rank", "adq", "hter", "util", "li", "tune"]
    cfg = resolve_config("en", task="hter")
    assert en["hter"] == [cfg.alpha, cfg.beta, cfg.gamma, cfg.delta, *cfg.weights]
    de = mqm_transfer._presets("de", ("exact", "stem"))
    assert "adq" not in de and "hter" not in de and de["rank"][:4] == [0.95, 1.0, 0.55, 0.55] and len(de["rank"]) == 6
    assert list(mqm_transfer._presets("zh", ("exact",))) == ["li"]


def test_preset_figure_is_the_scorers(english_sets: List[mqm_transfer.SetGrids], shared_data: Path) -> None:
    """Re-scoring from statistics gives the figure of scoring the file with `Meteor(task=...)` itself."""
    figures = mqm_transfer.preset_figures(english_sets)
    s = english_sets[1]
    j = read_judgments(str(shared_data / "mqm" / FILES[1]))
    for task, case in (("rank", False), ("hter", True)):
        m = Meteor("en", task=task, norm=True, case_aware=case, quiet=True)
        scores = MetricScores(task, {})
        for system, pairs in j.texts.items():
            corpus = m.score_corpus([h for h, _ in pairs], [[r for _, r in pairs]])
            for i, seg in zip(j.order[system], corpus.segments):
                scores.segments[(system, j.items[i])] = seg.score
        direct = statistic(align(j, scores), mqm_transfer.SEG)
        assert figures[s.name][(task, "norm-case" if case else "norm")] == pytest.approx(direct, abs=1e-12)
    assert s.default_figure == s.figure("norm", s.default) == figures[s.name][("rank", "norm")]
    assert -1.0 <= s.chrf <= 1.0


def _flipped(src: Path, dst: Path) -> Path:
    """A copy of an MQM file with every MQM score negated (the same texts, the opposite judgments)."""
    with gzip.open(src, "rt", encoding="utf-8") as f:
        lines = f.read().split("\n")
    col = lines[0].split("\t").index("mqm")
    out = [lines[0]]
    for line in lines[1:]:
        if line:
            cells = line.split("\t")
            cells[col] = repr(-float(cells[col]))
            line = "\t".join(cells)
        out.append(line)
    with gzip.open(dst, "wt", encoding="utf-8") as f:
        f.write("\n".join(out))
    return dst


def test_left_out_set_never_informs_its_own_parameters(english_sets: List[mqm_transfer.SetGrids],
                                                       shared_data: Path, tmp_path: Path) -> None:
    """The parameters scored on a left-out set come from the other sets only: negating its judgments leaves them
    as they were and negates its held-out figure; the table and tallies name every set."""
    loso = mqm_transfer.leave_one_set_out(english_sets, rounds=1)
    assert [r.name for r in loso] == [s.name for s in english_sets]
    flipped_dir = tmp_path / "mqm"
    flipped_dir.mkdir()
    flipped = _flipped(shared_data / "mqm" / FILES[0], flipped_dir / FILES[0])
    other = mqm_transfer.load_sets(flipped_dir, files=[flipped])[0]
    again = mqm_transfer.leave_one_set_out([other, *english_sets[1:]], rounds=1)
    assert again[0].abgd == loso[0].abgd and again[0].norm == loso[0].norm
    assert again[0].heldout == pytest.approx(-loso[0].heldout, abs=1e-12)
    assert again[1].abgd != loso[1].abgd or again[1].train != loso[1].train  # the flipped set trains the others
    for r in loso:
        assert r.train > -1 and not math.isnan(r.heldout)
    report = mqm_transfer.format_report(english_sets, mqm_transfer.preset_figures(english_sets), loso)
    for s, r in zip(english_sets, loso):
        assert f"| {s.name} | en | {s.chrf:.3f} |" in report and f"| {s.name} | {r.norm} |" in report
    assert "Left-out sets at least the default:" in report


def test_one_set_cannot_be_left_out(english_sets: List[mqm_transfer.SetGrids]) -> None:
    from meteor_lite_builders.errors import BuildError

    with pytest.raises(BuildError, match="at least two MQM sets"):
        mqm_transfer.leave_one_set_out(english_sets[:1])
