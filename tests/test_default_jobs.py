"""``jobs=0`` starts one process per idle CPU (usable CPUs less the 1-minute load average), 1 to 4."""

from __future__ import annotations

import os

import pytest

from meteor_lite.parallel import MAX_DEFAULT_JOBS, default_jobs


@pytest.mark.parametrize(
    ("cpus", "load", "jobs"),
    [(2, 0.0, 2), (2, 0.6, 1), (2, 0.4, 2), (2, 4.4, 1), (8, 1.0, 4), (8, 5.2, 3), (1, 0.0, 1)],
)
def test_default_jobs_counts_idle_cpus(monkeypatch: pytest.MonkeyPatch, cpus: int, load: float, jobs: int) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cpus)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert default_jobs() == jobs <= MAX_DEFAULT_JOBS


def test_without_load_average_all_usable_cpus_count(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_load() -> tuple:
        raise OSError("no load average")

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    monkeypatch.setattr(os, "getloadavg", no_load)
    assert default_jobs() == 3
