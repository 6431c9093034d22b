"""``meteor-build check validity`` on one real set: the ``--case-aware`` column (the default configuration without
lower-casing, beside the default) and each set's chance of showing mqm at least chrF on a new set like it.

Reads ``../shared/data/mqm/biomed2021.en-fr.dev.mqm.tsv.gz`` (77 segments, 4 systems).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Tuple

import pytest

from meteor_lite import Meteor
from meteor_lite.metaeval import read_judgments
from meteor_lite.metaeval.correlate import align, statistic
from meteor_lite.metaeval.data import MetricScores

pytest.importorskip("sacrebleu")
pytest.importorskip("numpy")
validity = pytest.importorskip("meteor_lite_builders.checks.research.validity")

SET = "biomed2021.en-fr.dev"


@pytest.fixture(scope="module")
def one_set(shared_data: Path, bundle_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Tuple[Any, Path]:
    """The set's validity result (with the case-aware column, 40 resamples) and the directory it was read from."""
    if not (bundle_dir / "fr.sqlite").is_file():
        pytest.skip("needs resources/bundles/fr.sqlite (make bundles)")
    d = tmp_path_factory.mktemp("mqm")
    (d / f"{SET}.mqm.tsv.gz").symlink_to(shared_data / "mqm" / f"{SET}.mqm.tsv.gz")
    (r,) = validity.validity(d, samples=40, seed=0, case_aware=True)
    return r, d


def test_case_aware_column_is_the_case_aware_default(one_set: Tuple[Any, Path]) -> None:
    r, d = one_set
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


def test_each_set_gets_its_chance(one_set: Tuple[Any, Path]) -> None:
    r, _ = one_set
    assert r.chance_at_least_chrf is not None and 0.0 < r.chance_at_least_chrf < 1.0
    # on the side of one half its point difference is on
    assert (r.chance_at_least_chrf >= 0.5) == (r.cv["mqm (cv)"] >= r.cv["chrF"])
    # the chance comes from the paired interval's spread: a 95 % interval about 3.92 deviations wide
    lo, hi = r.diff_interval["mqm - chrF"]
    rough = validity.replication_chance(r.cv["mqm (cv)"] - r.cv["chrF"], (hi - lo) / 3.92)
    assert r.chance_at_least_chrf == pytest.approx(rough, abs=0.15)
    # read back from the JSON that `--json` writes and `--merge` reads
    (back,) = validity.from_json(validity.as_json([r]))
    assert back.chance_at_least_chrf == r.chance_at_least_chrf
    assert f"{SET} {100 * r.chance_at_least_chrf:.0f} %" in validity.format_table([r])
