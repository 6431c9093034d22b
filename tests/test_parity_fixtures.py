"""Agreement with the official Meteor 1.5 on recorded outputs (no Java needed).

``tests/fixtures/parity_*.jsonl`` hold what the official jar printed for a few
hundred varied segments under many configurations (written by
``make fixtures``, i.e. ``meteor-build check fixtures``).  Every segment must get the jar's score within
1e-6 and exactly its sufficient statistics; every per-configuration subset must
get the jar's final (corpus) score within 1e-6.

The bundles are needed (``make bundles``): a missing one is a failure with
that instruction, never a skip, so that CI cannot pass without checking parity.
Segments and corpora are scored on both paths: in pure Python and with the
compiled kernels (``make accel``; ``make test`` builds them, elsewhere those cases skip saying so).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from meteor_lite import Meteor, accel
from meteor_lite.resources.locate import find_bundle

FIXTURE_DIR = Path(__file__).resolve().parent / "fixtures"
TOL = 1e-6


def _load() -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    segments: List[Dict[str, Any]] = []
    corpora: List[Dict[str, Any]] = []
    for path in sorted(FIXTURE_DIR.glob("parity_*.jsonl")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                rec = json.loads(line)
                (segments if rec["kind"] == "segment" else corpora).append(rec)
    return segments, corpora


SEGMENTS, CORPORA = _load()
BY_ID = {r["id"]: r for r in SEGMENTS}
_SCORERS: Dict[str, Meteor] = {}


def scorer(config: Dict[str, Any]) -> Meteor:
    """One :class:`Meteor` per fixture configuration (built once per session)."""
    key = json.dumps(config, sort_keys=True)
    if key not in _SCORERS:
        lang = config["lang"]
        if find_bundle(lang) is None:
            pytest.fail(
                f"no bundle for language {lang!r} on the bundle search path: run `make bundles` "
                "(it imports the official Meteor 1.5 resources into resources/bundles/) before the tests",
                pytrace=False,
            )
        _SCORERS[key] = Meteor(quiet=True, **config)
    return _SCORERS[key]


@pytest.fixture(params=["pure", "compiled"])
def search_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test in pure Python, then with the compiled kernels."""
    if request.param == "pure":
        monkeypatch.setattr(accel, "compiled", None)
    elif accel.compiled is None:
        pytest.skip("the compiled kernels are not built or are turned off (make accel; METEOR_LITE_PURE)")
    return str(request.param)


def ss_numbers(line: str) -> List[float]:
    """The 23 numbers of an ``-ssOut`` line."""
    parts = line.split()
    assert len(parts) == 23, f"expected 23 numbers, got {len(parts)}: {line!r}"
    return [float(p) for p in parts]


def test_fixtures_present() -> None:
    """The fixture files exist and are consistent (guards against an empty parametrisation)."""
    assert len(SEGMENTS) >= 300, f"only {len(SEGMENTS)} fixture segments under {FIXTURE_DIR}"
    assert len(BY_ID) == len(SEGMENTS), "duplicate fixture ids"
    assert CORPORA, "no corpus records"
    for c in CORPORA:
        assert c["ids"] and all(i in BY_ID for i in c["ids"]), f"corpus {c['set']} names unknown ids"
        assert all(BY_ID[i]["config"] == c["config"] for i in c["ids"])
    for r in SEGMENTS:
        ss_numbers(r["expected_ss"])


@pytest.mark.parametrize("rec", SEGMENTS, ids=[r["id"] for r in SEGMENTS])
def test_segment(rec: Dict[str, Any], search_path: str) -> None:
    """Score and sufficient statistics of one segment equal the jar's."""
    m = scorer(rec["config"])
    seg = m.score_segment(rec["hyp"], rec["refs"])
    ours = seg.stats.to_ss_line()
    detail = (
        f"\n  hyp:  {rec['hyp']!r}\n  refs: {rec['refs']!r}"
        f"\n  jar ss:  {rec['expected_ss']}\n  our ss:  {ours}"
        f"\n  jar score {rec['expected_score']!r}, ours {seg.score!r}"
    )
    assert ss_numbers(ours) == ss_numbers(rec["expected_ss"]), "sufficient statistics differ" + detail
    assert abs(seg.score - rec["expected_score"]) <= TOL, "score differs" + detail


@pytest.mark.parametrize("rec", SEGMENTS, ids=[r["id"] for r in SEGMENTS])
def test_segment_prf(rec: Dict[str, Any]) -> None:
    """Precision, recall and fragmentation penalty as the jar's ``-vOut`` prints them (NaN where undefined)."""
    m = scorer(rec["config"])
    seg = m.score_segment(rec["hyp"], rec["refs"])
    for name, ours in (("precision", seg.precision), ("recall", seg.recall),
                       ("frag_penalty", seg.frag_penalty)):
        exp = rec[f"expected_{name}"]
        if exp is None:
            assert math.isnan(ours), f"{name}: the jar prints NaN, ours {ours!r}"
        else:
            assert abs(ours - exp) <= TOL, f"{name}: jar {exp!r}, ours {ours!r}"


@pytest.mark.parametrize("rec", CORPORA, ids=[c["set"] for c in CORPORA])
def test_corpus(rec: Dict[str, Any], search_path: str) -> None:
    """The final score over a configuration's subset equals the jar's on exactly that subset."""
    m = scorer(rec["config"])
    segs = [BY_ID[i] for i in rec["ids"]]
    n_refs = len(segs[0]["refs"])
    assert all(len(s["refs"]) == n_refs for s in segs)
    hyps = [s["hyp"] for s in segs]
    streams = [[s["refs"][k] for s in segs] for k in range(n_refs)]
    corpus = m.score_corpus(hyps, streams, layout="streams")
    assert len(corpus.segments) == len(segs)
    assert abs(corpus.score - rec["expected_final"]) <= TOL, (
        f"{rec['set']} ({' '.join(rec['jar_args'])}): jar {rec['expected_final']!r}, ours {corpus.score!r}"
    )
