"""``meteor-build check validity --case-aware``: the default configuration without lower-casing, beside the default.

Reads ``../shared/data/mqm/biomed2021.en-fr.dev.mqm.tsv.gz`` (77 segments, 4 systems).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from meteor_lite import Meteor
from meteor_lite.metaeval import read_judgments
from meteor_lite.metaeval.correlate import align, statistic
from meteor_lite.metaeval.data import MetricScores

pytest.importorskip("sacrebleu")
pytest.importorskip("numpy")
validity = pytest.importorskip("meteor_lite_builders.checks.research.validity")

SET = "biomed2021.en-fr.dev"


def test_case_aware_column_is_the_case_aware_default(shared_data: Path, bundle_dir: Path, tmp_path: Path) -> None:
    if not (bundle_dir / "fr.sqlite").is_file():
        pytest.skip("needs resources/bundles/fr.sqlite (make bundles)")
    d = tmp_path / "mqm"
    d.mkdir()
    (d / f"{SET}.mqm.tsv.gz").symlink_to(shared_data / "mqm" / f"{SET}.mqm.tsv.gz")
    (r,) = validity.validity(d, samples=20, seed=0, case_aware=True)
    col = validity.CASE_AWARE
    assert col in r.cv and "case-aware - default" in r.diff_interval and "case-aware - chrF" in r.diff_interval
    # the whole-set figure, made here from the scorer itself
    j = read_judgments(str(d / f"{SET}.mqm.tsv.gz"))
    m = Meteor("fr", norm=True, case_aware=True, modules=["exact", "stem"], quiet=True)
    scores = MetricScores("cased", {})
    for system, pairs in j.texts.items():
        for i, (h, ref) in zip(j.order[system], pairs):
            scores.segments[(system, j.items[i])] = m.score_segment(h, ref).score
    assert r.whole[col] == pytest.approx(statistic(align(j, scores), validity.SEG), abs=1e-12)
    lo, hi = r.diff_interval["case-aware - default"]
    assert lo <= hi
    assert "default --case-aware" in validity.format_table([r])
