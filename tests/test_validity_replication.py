"""``meteor-build check validity``'s replication tally: how many new sets like the shared ones would show mqm at
least chrF, from each set's chance (the normal approximation of its paired bootstrap) and their Poisson-binomial
count.  A real set's chance: tests/test_validity_case_aware.py.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest

pytest.importorskip("sacrebleu")
pytest.importorskip("numpy")
validity = pytest.importorskip("meteor_lite_builders.checks.research.validity")


def _brute_force(chances: list) -> list:
    """The count's distribution by enumerating every outcome of the events."""
    dist = [0.0] * (len(chances) + 1)
    for outcome in itertools.product((False, True), repeat=len(chances)):
        p = 1.0
        for happened, c in zip(outcome, chances):
            p *= c if happened else 1.0 - c
        dist[sum(outcome)] += p
    return dist


def test_count_distribution_is_the_enumerated_one() -> None:
    rng = random.Random(3)
    for n in (0, 1, 4, 9):
        chances = [rng.random() for _ in range(n)]
        got = validity.count_distribution(chances)
        assert got == pytest.approx(_brute_force(chances), abs=1e-12)
        assert math.fsum(got) == pytest.approx(1.0)
    # eleven fair coins: at least 9 heads in 67 of 2048 outcomes
    fair = validity.count_distribution([0.5] * 11)
    assert math.fsum(fair[9:]) == pytest.approx(67 / 2048)


def test_replication_chance() -> None:
    chance = validity.replication_chance
    assert chance(0.0, 0.05) == pytest.approx(0.5)
    assert chance(0.03, 0.05) + chance(-0.03, 0.05) == pytest.approx(1.0)
    assert chance(0.01, 0.05) < chance(0.02, 0.05) < chance(0.02, 0.01)
    # the new estimate spreads sqrt(2) times the bootstrap's: 1.96 of its deviations above 0 is 97.5 %
    assert chance(1.96 * 0.05 * math.sqrt(2), 0.05) == pytest.approx(0.975, abs=1e-4)
    assert chance(0.01, 0.0) == 1.0 and chance(-0.01, 0.0) == 0.0


def _result(name: str, chance: float) -> "validity.SetResult":
    r = validity.SetResult(name, "en", 3, 100, "--norm")
    r.cv = {"default": 0.1, "mqm (cv)": 0.1, "chrF": 0.1}
    r.chance_at_least_chrf = chance
    return r


def test_tally_counts_each_kind_apart() -> None:
    bio = [_result(f"biomed2021.x{i}-en.dev", c) for i, c in enumerate((0.9, 0.6, 0.2))]
    general = [_result("wmt21.zh-en", 0.7), _result("ted2021.zh-en.dev", 0.4)]
    results = bio + general
    text = validity.replication_tally(results, validity.SET_KINDS[0])
    assert text.startswith("New biomedical pairs like these 3 ")
    assert "1.7 of them expected" in text  # 0.9 + 0.6 + 0.2
    all_three = 0.9 * 0.6 * 0.2
    assert f"3 {100 * all_three:.0f} %" in text and "wmt21" not in text
    text = validity.replication_tally(results, validity.SET_KINDS[1])
    assert text.startswith("New general-domain sets like these 2 ") and "1.1 of them expected" in text
    assert "biomed" not in text and f"2 {100 * 0.7 * 0.4:.0f} %" in text
    assert validity.replication_tally([], validity.SET_KINDS[1]) == ""
    assert "New biomedical pairs like these 3 " in validity.tallies(results)

