"""The Python drop-ins (meteor_lite.coco, .hf, .metrics) and the reference layouts of ``score_corpus``.

Expected numbers come from the official jar through pycocoevalcap's own ``Meteor``
class, recorded in ``tests/fixtures/coco_expected.json`` (no Java needed here).
Regenerate that file with Java present (the command is also in its ``header``)::

    .venv/bin/python tests/test_dropin.py --write-fixture

The ``java``-marked test runs pycocoevalcap's ``Meteor`` (the jar) and the drop-in
on 200 COCO-style "images" built from the shared WMT21 data and compares every number.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from meteor_lite import InputError, Meteor
from meteor_lite.resources.locate import find_bundle

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "coco_expected.json"
WMT_DE_EN = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "wmt21" / "newstest2021.de-en.da.tsv.gz"
GUIDE_HYP = "It is a guide to action which ensures that the military always obeys the commands of the party"
GUIDE_REF = "It is a guide to action that ensures that the military will forever heed Party commands"
#: What the official jar gives for the example of huggingface/evaluate#115 (-l en -norm).
GUIDE_JAR = 0.44736091739438233
TOL = 1e-9

Gts = Dict[Any, List[str]]
Res = Dict[Any, List[str]]


# -- inputs ---------------------------------------------------------------------------


def coco_from_wmt(path: Path, n_images: int, seed: int = 11) -> Tuple[Gts, Res]:
    """COCO-style input from WMT21 de-en: one "image" per segment, 1 to 6 "captions" each.

    The hypothesis is one system's output; the references are ref_A, ref_B and
    other systems' outputs for the same segment, 1 to 6 of them (varying).
    """
    by_seg: Dict[str, List[List[str]]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        next(f)
        for line in f:
            row = line.rstrip("\n").split("\t")
            by_seg.setdefault(row[1], []).append(row)
    rng = random.Random(seed)
    gts: Gts = {}
    res: Res = {}
    for seg in sorted(by_seg, key=int)[:n_images]:
        rows = by_seg[seg]
        pool = [rows[0][4]] + ([rows[0][5]] if rows[0][5] else []) + [r[3] for r in rows[2:]]
        gts[f"img{seg}"] = pool[: rng.randint(1, 6)]
        res[f"img{seg}"] = [rows[1][3]]
    return gts, res


def edge_cases() -> Tuple[Gts, Res]:
    """Inputs where pycocoevalcap's line building matters (``|||``, spacing, empty captions)."""
    gts: Gts = {
        "z-last-key-first": ["a man rides a horse on the beach", "a person riding a horse"],
        "pipes-in-hyp": ["a man riding a horse", "two dogs play"],
        "pipes-in-ref": ["a dog ||| runs in the park", "the cat sleeps"],
        "no-refs": [],
        "empty-hyp": ["a woman sings on stage"],
        "empty-ref": ["", "children playing football in a field"],
        "perfect": ["a red car parked on the street"],
        "unicode": ["ein Mann fährt Fahrrad", "the café is open"],
        "spaces": ["  a  group of   people  ", "people stand together"],
        "control-chars": ["\x01the bird flies\x01"],
        "3": ["numbers 12 and 3.5 , punctuation !", "The U.S. economy grew 3% in Q3."],
    }
    res: Res = {
        "z-last-key-first": ["a man riding a horse on a beach"],
        "pipes-in-hyp": ["a man |||riding  a   horse ||||| x"],
        "pipes-in-ref": ["a dog runs"],
        "no-refs": ["something"],
        "empty-hyp": [""],
        "empty-ref": ["kids play soccer"],
        "perfect": ["a red car parked on the street"],
        "unicode": ["a man rides a bike in the café"],
        "spaces": ["a group  of people"],
        "control-chars": ["the bird flies"],
        "3": ["The US economy grew 3 % in Q3 ."],
    }
    return gts, res


def five_by_five(reference: List[str], system: List[str]) -> Tuple[List[str], List[List[str]]]:
    """5 hypotheses with 5 references each: the shape that used to be silently transposed."""
    return system[:5], [reference[5 * i : 5 * i + 5] for i in range(5)]


# -- running pycocoevalcap's own Meteor (the jar) --------------------------------------------


def run_pycocoevalcap(gts: Gts, res: Res) -> Tuple[float, List[float]]:
    """pycocoevalcap's ``Meteor().compute_score`` (spawns the official jar; needs Java)."""
    from pycocoevalcap.meteor.meteor import Meteor as CocoMeteor

    m = CocoMeteor()
    try:
        return m.compute_score(gts, res)
    finally:
        m.meteor_p.stdin.close()
        m.meteor_p.kill()
        m.meteor_p.wait()


def write_fixture() -> None:
    """Record the jar's answers (through pycocoevalcap) for the fixture's inputs."""
    wmt_gts, wmt_res = coco_from_wmt(WMT_DE_EN, 25)
    edge_gts, edge_res = edge_cases()
    gts, res = {**edge_gts, **wmt_gts}, {**edge_res, **wmt_res}
    example = WMT_DE_EN.parent.parent / "meteor-example"
    ref_lines = (example / "reference").read_text(encoding="utf-8").splitlines()
    sys_lines = (example / "system1.hyp").read_text(encoding="utf-8").splitlines()
    hyps, refs = five_by_five(ref_lines, sys_lines)
    cases: Dict[str, Dict[str, Any]] = {"coco": {"gts": gts, "res": res}, "five_by_five": {
        "gts": {str(i): refs[i] for i in range(5)}, "res": {str(i): [hyps[i]] for i in range(5)}}}
    for case in cases.values():
        case["score"], case["scores"] = run_pycocoevalcap(case["gts"], case["res"])
    guide_score, _ = run_pycocoevalcap({"0": [GUIDE_REF]}, {"0": [GUIDE_HYP]})
    doc = {
        "header": {
            "what": "pycocoevalcap.meteor.meteor.Meteor().compute_score(gts, res) with the official Meteor 1.5 jar "
            "(java -jar -Xmx2G meteor-1.5.jar - - -stdio -l en -norm), recorded for tests/test_dropin.py",
            "command": ".venv/bin/python tests/test_dropin.py --write-fixture  (needs Java and ../shared/data)",
            "inputs": "coco: tests/test_dropin.py edge_cases() + coco_from_wmt(wmt21 de-en, 25 images); "
            "five_by_five: meteor-example system1 lines 1-5, reference lines 1-25 (5 per image)",
        },
        "guide": {"hyp": GUIDE_HYP, "ref": GUIDE_REF, "score": guide_score},
        **cases,
    }
    FIXTURE.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE}")


# -- tests without Java ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def expected() -> Dict[str, Any]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def english() -> None:
    if find_bundle("en") is None:
        pytest.fail("no English bundle on the bundle search path: run `make bundles` before the tests", pytrace=False)


@pytest.fixture(scope="module")
def coco_meteor(english: None) -> Any:
    from meteor_lite.coco import Meteor as CocoMeteor

    return CocoMeteor()


def test_coco_drop_in_equals_pycocoevalcap(expected: Dict[str, Any], coco_meteor: Any) -> None:
    case = expected["coco"]
    score, scores = coco_meteor.compute_score(case["gts"], case["res"])
    assert coco_meteor.method() == "METEOR"
    assert isinstance(score, float) and all(isinstance(s, float) for s in scores)
    assert len(scores) == len(case["scores"])
    assert score == pytest.approx(case["score"], abs=TOL)
    for img, got, want in zip(case["gts"], scores, case["scores"]):
        assert got == pytest.approx(want, abs=TOL), img


def test_coco_order_follows_gts_keys(expected: Dict[str, Any], coco_meteor: Any) -> None:
    case = expected["coco"]
    keys = list(case["gts"])[::-1]
    gts = {k: case["gts"][k] for k in keys}
    res = {k: case["res"][k] for k in sorted(keys)}  # res order does not matter, as in pycocoevalcap
    _, scores = coco_meteor.compute_score(gts, res)
    assert scores == pytest.approx(case["scores"][::-1], abs=TOL)


def test_coco_rejects_what_pycocoevalcap_asserts(coco_meteor: Any) -> None:
    from meteor_lite.coco import CocoInputError

    with pytest.raises(AssertionError, match="same image ids"):
        coco_meteor.compute_score({1: ["a"]}, {2: ["a"]})
    with pytest.raises(CocoInputError, match="exactly one hypothesis"):
        coco_meteor.compute_score({1: ["a"]}, {1: ["a", "b"]})
    with pytest.raises(InputError, match="line break"):
        coco_meteor.compute_score({1: ["a\nb"]}, {1: ["a"]})
    with pytest.raises(InputError, match="no images"):
        coco_meteor.compute_score({}, {})
    with pytest.raises(TypeError, match="must be strings"):
        coco_meteor.compute_score({1: ["a"]}, {1: [None]})


def test_coco_single_score(expected: Dict[str, Any], coco_meteor: Any) -> None:
    assert expected["guide"]["score"] == GUIDE_JAR
    assert coco_meteor._score(GUIDE_HYP, [GUIDE_REF]) == pytest.approx(GUIDE_JAR, abs=TOL)


def test_jar_fields() -> None:
    from meteor_lite.coco import jar_fields

    assert jar_fields("a  b ||| c", ["x ||| y", ""]) == ("a b c", ["x", "y", ""])
    assert jar_fields("", []) == ("", [""])
    assert jar_fields("\x01h\x01", [" r "]) == ("h", ["r"])


def test_hf_compute(english: None) -> None:
    from meteor_lite import hf

    out = hf.compute(predictions=[GUIDE_HYP], references=[GUIDE_REF])
    assert out["meteor"] == pytest.approx(GUIDE_JAR, abs=TOL) and out["scores"] == [out["meteor"]]
    assert out["signature"].startswith("meteor-lite|lang:en|norm|")
    again = hf.compute(predictions=[GUIDE_HYP], references=[[GUIDE_REF, "something else entirely"]])
    assert again["meteor"] == out["meteor"]  # the best reference counts
    metric = hf.load()
    metric.add(prediction=GUIDE_HYP, reference=GUIDE_REF)
    metric.add_batch(predictions=[GUIDE_HYP], references=[[GUIDE_REF]])
    assert metric.compute()["scores"] == pytest.approx([GUIDE_JAR, GUIDE_JAR], abs=TOL)
    named = hf.load("meteor")  # evaluate.load("meteor")'s idiom: the English metric
    assert named is metric and named.scorer.config.lang == "en"
    assert named.compute(predictions=[GUIDE_HYP], references=[GUIDE_REF])["meteor"] == out["meteor"]
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        hf.compute(predictions=[GUIDE_HYP, GUIDE_HYP], references=[GUIDE_REF])


def test_hf_matches_pycocoevalcap(expected: Dict[str, Any], english: None) -> None:
    from meteor_lite import hf

    case = expected["coco"]
    wmt = [k for k in case["gts"] if k.startswith("img")]  # plain captions: no pycocoevalcap line-building effects
    scores = dict(zip(case["gts"], case["scores"]))
    out = hf.compute(predictions=[case["res"][k][0] for k in wmt], references=[case["gts"][k] for k in wmt])
    assert out["scores"] == pytest.approx([scores[k] for k in wmt], abs=TOL)


def test_sacrebleu_style_metric(english: None) -> None:
    from meteor_lite.metrics import METEOR

    metric = METEOR()
    s = metric.sentence_score(GUIDE_HYP, [GUIDE_REF])
    assert s.score == pytest.approx(GUIDE_JAR, abs=TOL) and s.name == "METEOR"
    assert str(s).startswith("METEOR = 0.4474 (P ") and s.format(score_only=True) == "0.4474"
    c = metric.corpus_score([GUIDE_HYP, "a cat"], [[GUIDE_REF, None], [None, "the cat"]])
    assert [seg.score for seg in c.result.segments][0] == pytest.approx(GUIDE_JAR, abs=TOL)
    assert [seg.ref_index for seg in c.result.segments] == [0, 1]
    assert str(metric.get_signature()) == metric.scorer.signature
    with pytest.raises(InputError, match="reference stream 1 has 1 lines, the hypotheses 2"):
        metric.corpus_score([GUIDE_HYP, "a cat"], [[GUIDE_REF]])


# -- reference layouts of Meteor.score_corpus ------------------------------------------------------


def test_five_by_five_is_never_transposed(expected: Dict[str, Any], english: None) -> None:
    case = expected["five_by_five"]
    hyps = [case["res"][k][0] for k in case["gts"]]
    refs = [case["gts"][k] for k in case["gts"]]
    m = Meteor("en", norm=True, quiet=True)
    with pytest.raises(InputError, match="ambiguous.*layout='streams' or layout='segments'"):
        m.score_corpus(hyps, refs)
    per_image = m.score_corpus(hyps, refs, layout="segments")
    assert per_image.score == pytest.approx(case["score"], abs=TOL)
    assert [s.score for s in per_image.segments] == pytest.approx(case["scores"], abs=TOL)
    streams = m.score_corpus(hyps, [list(x) for x in zip(*refs)], layout="streams")
    assert streams.score == per_image.score  # the same corpus, given as streams
    assert m.score_corpus(hyps, refs, layout="streams").score != pytest.approx(case["score"], abs=1e-3)


def test_layout_rules(tiny_bundle: Path) -> None:
    m = Meteor("en", bundle=tiny_bundle, quiet=True)
    hyps = ["the cat", "a dog", "big car"]
    streams: List[List[Optional[str]]] = [["the cat", "one dog", "large car"], ["a cat", "a dog", None]]
    by_stream = m.score_corpus(hyps, streams)  # 2 streams of 3: unambiguous
    per_seg = [[s[i] for s in streams] for i in range(3)]
    assert m.score_corpus(hyps, per_seg, layout="segments").score == by_stream.score
    ragged = [["the cat"], ["a dog", "one dog", "dogs"], ["large car", "a car"]]
    with pytest.raises(InputError, match="pass layout='segments'"):
        m.score_corpus(hyps, ragged)  # one list per hypothesis, not all 3 long: never guessed
    assert len(m.score_corpus(hyps, ragged, layout="segments").segments) == 3
    with pytest.raises(InputError, match=r"refs has 2 lists for 3 hypotheses and refs\[0\] has 2 entries: accepted are"):
        m.score_corpus(hyps, [["a", "b"], ["c", "d"]])
    with pytest.raises(InputError, match="layout='segments' needs one list of references per hypothesis"):
        m.score_corpus(hyps, ragged[:2], layout="segments")
    with pytest.raises(InputError, match="hypothesis 2 has no reference"):
        m.score_corpus(hyps, [["a"], ["b"], [None, None]], layout="segments")
    assert m.score_corpus(["x"], [["x"]]).score == 1.0  # one hypothesis: both readings agree


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: m.score_corpus("the cat", [["the cat"]]), "hyps must be a list of hypothesis strings, not a string"),
        (lambda m: m.score_corpus(["the cat", None], [["a", "b"]]), r"hyps\[1\] is None"),
        (lambda m: m.score_corpus(["the cat"], "the cat"), "refs must be a list of reference lists, not a string"),
        (lambda m: m.score_corpus(["the cat"], ["the cat"]), r"refs\[0\] is a string.*pass \[refs\]"),
        (lambda m: m.score_corpus(["the cat"], [[3]]), r"refs\[0\]\[0\] is int"),
        (lambda m: m.score_corpus(["the cat"], [["the cat"]], jobs="2"), "jobs takes an int"),
        (lambda m: m.score_segment(None, ["the cat"]), "hyp must be a string"),
        (lambda m: m.score_segment("the cat", [None]), "has no reference"),
        (lambda m: m.score_corpus(["a"], [["a"]], layout="rows"), "layout must be 'streams' or 'segments'"),
    ],
)
def test_wrong_inputs_name_the_argument(tiny_bundle: Path, call: Any, message: str) -> None:
    m = Meteor("en", bundle=tiny_bundle, quiet=True)
    with pytest.raises((TypeError, ValueError), match=message):
        call(m)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(params="0.85 0.2 0.6 0.75"), "params must be four numbers"),
        (dict(params=("0.85", 0.2, 0.6, 0.75)), r"params\[0\] is str"),
        (dict(modules="exact"), "modules must be a list of module names"),
        (dict(weights=1.0), "weights must be one number per module"),
        (dict(beam="5"), "beam takes an int"),
        (dict(lang=None), "lang must be a language code"),
    ],
)
def test_wrong_option_types(tiny_bundle: Path, kwargs: Dict[str, Any], message: str) -> None:
    with pytest.raises(TypeError, match=message):
        Meteor(bundle=tiny_bundle, quiet=True, **kwargs)


# -- with the jar ------------------------------------------------------------------------------


@pytest.mark.java
@pytest.mark.slow
def test_coco_drop_in_equals_the_jar_on_wmt(english: None) -> None:
    if not WMT_DE_EN.is_file():
        pytest.skip(f"needs the shared data ({WMT_DE_EN})")
    from meteor_lite.coco import Meteor as CocoMeteor

    gts, res = coco_from_wmt(WMT_DE_EN, 200)
    assert {len(v) for v in gts.values()} == set(range(1, 7))
    want_score, want_scores = run_pycocoevalcap(gts, res)
    score, scores = CocoMeteor().compute_score(gts, res)
    assert abs(score - want_score) <= TOL
    assert len(scores) == len(want_scores) == 200
    assert max(abs(a - b) for a, b in zip(scores, want_scores)) <= TOL


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-fixture"]:
        write_fixture()
    else:
        sys.exit("usage: python tests/test_dropin.py --write-fixture")


def test_coco_has_the_methods_of_the_objects_it_replaces(coco_meteor: Any) -> None:
    """pycocoevalcap's and nlg-eval's Meteor: ``_stat`` (the jar's SCORE answer), ``close`` (nlg-eval's functional
    API calls it; twice is harmless, and the object scores again after it), context management, a safe ``__del__``."""
    from meteor_lite.coco import Meteor as CocoMeteor

    stats = coco_meteor._stat(GUIDE_HYP, [GUIDE_REF])
    assert stats == Meteor("en", norm=True).score_segment(GUIDE_HYP, [GUIDE_REF]).stats.to_ss_line()
    assert len(stats.split()) == 23
    with CocoMeteor() as m:
        first = m.compute_score({1: [GUIDE_REF]}, {1: [GUIDE_HYP]})
    m.close()
    m.close()
    assert "scorer" not in vars(m)
    assert m.compute_score({1: [GUIDE_REF]}, {1: [GUIDE_HYP]}) == first
    assert first[0] == pytest.approx(GUIDE_JAR, abs=TOL)
    m.__del__()
    m.__del__()
    with pytest.raises(AttributeError, match="no attribute 'lock_'"):
        m.lock_  # noqa: B018 - an unknown attribute is still an AttributeError


def _nltk_style_score(stats: List[float], p: float, r: float, alpha: float, beta: float, gamma: float) -> float:
    """Meteor's score from a segment's precision and recall and its chunks and matches (stats 20, 21, 22), with the
    formula NLTK and evaluate document: fmean = P R / (alpha P + (1 - alpha) R), penalty = gamma frag ** beta."""
    matches = (stats[21] + stats[22]) / 2
    if p == 0 or r == 0 or matches == 0:
        return 0.0
    fmean = p * r / (alpha * p + (1 - alpha) * r)
    return fmean * (1 - gamma * (stats[20] / matches) ** beta)


def test_hf_takes_evaluates_alpha_beta_gamma(english: None) -> None:
    """evaluate's alpha, beta and gamma are Meteor's first three parameters; delta stays the language's (0.75)."""
    from meteor_lite import hf

    hyp, ref = "the cat sat on the mat today", "a cat was sitting on the mat"
    for a, b, g in ((0.9, 3.0, 0.5), (0.5, 1.0, 0.0), (0.85, 0.2, 0.6)):
        # precision and recall do not depend on alpha, beta, gamma (the module weights stay en's: 1.0 0.6 0.8 0.6)
        seg = Meteor("en", norm=True).score_segment(hyp, [ref])
        stats = [float(x) for x in seg.stats.to_ss_line().split()]
        got = hf.compute(predictions=[hyp], references=[ref], alpha=a, beta=b, gamma=g)["scores"][0]
        assert got == pytest.approx(_nltk_style_score(stats, seg.precision, seg.recall, a, b, g), abs=1e-12)
    default = hf.compute(predictions=[hyp], references=[ref])["meteor"]
    assert hf.compute(predictions=[hyp], references=[ref], alpha=0.85)["meteor"] == default  # en's own alpha
    with pytest.raises(TypeError, match="not both"):
        hf.compute(predictions=[hyp], references=[ref], alpha=0.9, params=[0.9, 3, 0.5, 0.75])


class _FakeMetric:
    """Enough of ``evaluate.Metric`` to run the metric script's ``_compute`` (evaluate itself is no test dependency)."""


def test_the_evaluate_metric_script(tmp_path: Path, english: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """``hf.evaluate_metric_path()`` writes the script ``evaluate.load(PATH)`` reads; run here with stand-ins for
    ``evaluate`` and ``datasets`` (neither is a test dependency: evaluate.load itself is not exercised), its
    ``_compute`` gives hf.compute's numbers."""
    import importlib.util
    import types

    from meteor_lite import hf

    folder = Path(hf.evaluate_metric_path(str(tmp_path)))
    script = folder / "meteor_lite.py"
    assert folder.name == "meteor_lite" and script.read_text(encoding="utf-8") == hf.EVALUATE_SCRIPT
    evaluate = types.ModuleType("evaluate")
    evaluate.Metric = _FakeMetric  # type: ignore[attr-defined]
    evaluate.MetricInfo = lambda **kw: kw  # type: ignore[attr-defined]
    datasets = types.ModuleType("datasets")
    datasets.Features = dict  # type: ignore[attr-defined]
    datasets.Value = lambda *a, **kw: ("Value", a)  # type: ignore[attr-defined]
    datasets.Sequence = lambda *a, **kw: ("Sequence", a)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "evaluate", evaluate)
    monkeypatch.setitem(sys.modules, "datasets", datasets)
    spec = importlib.util.spec_from_file_location("meteor_lite_metric_script", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    metric = module.MeteorLite()
    assert "predictions" in metric._info()["features"][0]
    got = metric._compute(predictions=[GUIDE_HYP], references=[[GUIDE_REF]])
    assert got["meteor"] == pytest.approx(GUIDE_JAR, abs=TOL) and got["scores"] == [got["meteor"]]
    tuned = metric._compute(predictions=[GUIDE_HYP], references=[GUIDE_REF], alpha=0.9, beta=3, gamma=0.5)
    assert tuned == {k: v for k, v in hf.compute(predictions=[GUIDE_HYP], references=[GUIDE_REF], alpha=0.9, beta=3,
                                                 gamma=0.5).items() if k != "signature"}
    assert hf.evaluate_metric_path(str(tmp_path)) == str(folder)  # the same text: left as it is


@pytest.mark.java
@pytest.mark.slow
def test_hf_alpha_beta_gamma_equal_the_jars_parameters(tmp_path: Path, english: None) -> None:
    """alpha=0.9, beta=3, gamma=0.5 (evaluate's defaults) score as the jar's -p '0.9 3 0.5 0.75' with en's weights
    (-w '1.0 0.6 0.8 0.6'), on the first 20 lines of ../shared/data/meteor-example/system1.hyp and reference."""
    import subprocess

    import pycocoevalcap.meteor.meteor as coco

    example = Path(__file__).resolve().parents[2] / "shared" / "data" / "meteor-example"
    if not (example / "system1.hyp").is_file():
        pytest.skip(f"needs the shared data ({example})")
    from meteor_lite import hf

    hyps = (example / "system1.hyp").read_text(encoding="utf-8").splitlines()[:20]
    refs = (example / "reference").read_text(encoding="utf-8").splitlines()[:20]
    (tmp_path / "h").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    (tmp_path / "r").write_text("\n".join(refs) + "\n", encoding="utf-8")
    jar = Path(coco.__file__).parent / "meteor-1.5.jar"
    out = subprocess.run(["java", "-Xmx2G", "-jar", str(jar), str(tmp_path / "h"), str(tmp_path / "r"), "-l", "en", "-norm",
                          "-p", "0.9 3 0.5 0.75", "-w", "1.0 0.6 0.8 0.6", "-q"], capture_output=True, text=True, check=True)
    got = hf.compute(predictions=hyps, references=refs, alpha=0.9, beta=3, gamma=0.5)
    assert got["meteor"] == pytest.approx(float(out.stdout), abs=1e-15)
    assert got["scores"] == pytest.approx([float(x) for x in out.stderr.split()], abs=1e-15)
