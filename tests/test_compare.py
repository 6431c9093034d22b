"""Paired significance (``meteor-lite compare``, :mod:`meteor_lite.compare.significance`) and the HTML report's page.

The statistics are checked against independent computations: the tests' own loops over full
:class:`~meteor_lite.stats.Stats` objects, summed with :meth:`Stats.add` and scored with
:func:`meteor_lite.stats.compute` (not the module's linear sums, tables or complex pairs), on the same random
draws; and approximate randomization against the exact permutation test on a small corpus.

Reads ../shared/data/wmt21/newstest2021.de-en.da.tsv.gz (the first 40 segments of three systems).
"""

from __future__ import annotations

import gzip
import json
import math
import random
from html.parser import HTMLParser
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import pytest

from meteor_lite.cli import run
from meteor_lite.compare import significance as sig
from meteor_lite.resources.locate import find_bundle
from meteor_lite.stats import Stats, compute

needs_en = pytest.mark.skipif(find_bundle("en") is None, reason="no English bundle: run `make bundles`")
SYSTEMS = ("HuaweiTSC", "NVIDIA-NeMo", "Online-A")
FORMULA = sig.Formula(0.85, 0.2, 0.6, 0.75, (1.0, 0.6, 0.8, 0.6))  # Meteor 1.5's English ranking parameters


def _stats(rng: random.Random) -> Stats:
    """A plausible segment: 4 modules, matches within the lengths, chunks within the matches."""
    tl, rl = rng.randint(1, 40), rng.randint(1, 40)
    m = rng.randint(0, min(tl, rl))
    split = [rng.randint(0, m) for _ in range(3)]
    content = sorted(split)
    per = [content[0], content[1] - content[0], content[2] - content[1], m - content[2]]
    fw = [rng.randint(0, x) for x in per]
    tc = [float(x - f) for x, f in zip(per, fw)]
    tf = [float(f) for f in fw]
    chunks = float(rng.randint(1, m)) if m else 0.0
    return Stats(float(tl), float(rl), float(rng.randint(0, tl)), float(rng.randint(0, rl)), tc, list(tc), tf,
                 list(tf), chunks, float(m), float(m))


def _perfect(n: int) -> Stats:
    return Stats(float(n), float(n), 0.0, 0.0, [float(n), 0.0, 0.0, 0.0], [float(n), 0.0, 0.0, 0.0], [0.0] * 4,
                 [0.0] * 4, 1.0, float(n), float(n))


def _reference_score(segments: Sequence[Stats], f: sig.Formula = FORMULA) -> float:
    """The corpus score as the scorer computes it: Stats.add in order, then compute()."""
    total = Stats()
    for s in segments:
        total.add(s)
    for lst in (total.test_content, total.ref_content, total.test_function, total.ref_function):
        while len(lst) < len(f.weights):
            lst.append(0.0)
    return compute(total, f.alpha, f.beta, f.gamma, f.delta, f.weights).score


def _systems(n: int, seed: int, k: int = 2) -> Dict[str, List[Stats]]:
    rng = random.Random(seed)
    out = {f"s{j}": [_stats(rng) for _ in range(n)] for j in range(k)}
    out["s0"][3] = _perfect(7)  # a perfect segment adds no chunk
    return out


def test_linear_sums_give_the_corpus_score() -> None:
    rng = random.Random(5)
    for n in (1, 2, 5, 60):
        segs = [_stats(rng) for _ in range(n)]
        sums = [math.fsum(c) for c in zip(*(sig.linear_stats(s, FORMULA) for s in segs))]
        assert sig.corpus_score(sums, FORMULA) == pytest.approx(_reference_score(segs), abs=1e-12)
    for segs in ([_perfect(5)], [_perfect(5), _perfect(3)], [Stats(3.0, 4.0, 0.0, 0.0, [0.0] * 4, [0.0] * 4,
                                                                     [0.0] * 4, [0.0] * 4, 0.0, 0.0, 0.0)]):
        sums = [math.fsum(c) for c in zip(*(sig.linear_stats(s, FORMULA) for s in segs))]
        assert sig.corpus_score(sums, FORMULA) == _reference_score(segs)


def test_interval_ranks_and_p_value() -> None:
    scores = [float(x) for x in range(1000)]
    random.Random(1).shuffle(scores)
    mean, lo, hi = sig.interval(scores)
    assert (mean, lo, hi) == (499.5, 25.0, 974.0)  # ranks 1000 // 40 = 25 and 1000 - 25 - 1
    assert sig.p_value([0.1, 0.2, 0.3, 0.4], 0.25) == 3 / 5  # (2 larger + 1) / (4 + 1)
    assert sig.p_value([0.25, 0.25, 0.1], 0.25) == 3 / 4  # equal counts (Riezler & Maxwell's "at least")


def _naive_ar(systems: Dict[str, List[Stats]], a: str, b: str, trials: int, seed: int) -> float:
    """Approximate randomization the long way: swap each segment's Stats objects where the mask says, score both."""
    observed = abs(_reference_score(systems[b]) - _reference_score(systems[a]))
    larger = 0
    n = len(systems[a])
    for mask in sig.ar_masks(n, trials, seed):
        xs, ys = [], []
        for i in range(n):
            if (mask >> i) & 1:
                xs.append(systems[b][i])
                ys.append(systems[a][i])
            else:
                xs.append(systems[a][i])
                ys.append(systems[b][i])
        if abs(_reference_score(xs) - _reference_score(ys)) >= observed - sig.TIE:
            larger += 1
    return (larger + 1) / (trials + 1)


def _naive_bootstrap(systems: Dict[str, List[Stats]], a: str, b: str, resamples: int,
                     seed: int) -> Tuple[float, float, float, float]:
    """The paired bootstrap the long way: mean, interval bounds of ``b`` and its p-value against ``a``."""
    n = len(systems[a])
    sa, sb = [], []
    for idx in sig.bootstrap_indices(n, resamples, seed):
        sa.append(_reference_score([systems[a][i] for i in idx]))
        sb.append(_reference_score([systems[b][i] for i in idx]))
    observed = abs(_reference_score(systems[b]) - _reference_score(systems[a]))
    diffs = [abs(y - x) for x, y in zip(sa, sb)]
    centre = sum(diffs) / len(diffs)
    larger = 0
    for d in diffs:
        if d - centre >= observed - sig.TIE:
            larger += 1
    ranked = sorted(sb)
    cut = resamples // 40
    return sum(sb) / len(sb), ranked[cut], ranked[resamples - 1 - cut], (larger + 1) / (resamples + 1)


@pytest.mark.parametrize("n,seed", [(37, 1), (64, 2), (9, 3)])
def test_ar_matches_the_long_way(n: int, seed: int) -> None:
    systems = _systems(n, seed)
    paired = sig.PairedSystems(FORMULA, systems)
    got = sig.approximate_randomization(paired, "s0", "s1", trials=400, seed=seed)
    assert got.p_value == _naive_ar(systems, "s0", "s1", 400, seed)


def test_ar_against_the_exact_permutation_test() -> None:
    """10 segments: all 1024 swaps enumerated; AR's 10,000 trials estimate the same tail probability."""
    rng = random.Random(11)
    systems = {"a": [_stats(rng) for _ in range(10)], "b": [_stats(rng) for _ in range(10)]}
    observed = abs(_reference_score(systems["b"]) - _reference_score(systems["a"]))
    larger = 0
    for mask in range(1 << 10):
        xs = [systems["b" if (mask >> i) & 1 else "a"][i] for i in range(10)]
        ys = [systems["a" if (mask >> i) & 1 else "b"][i] for i in range(10)]
        larger += abs(_reference_score(xs) - _reference_score(ys)) >= observed - sig.TIE
    exact = larger / 1024
    assert 0.02 < exact < 0.98  # a case where the test has something to estimate
    got = sig.approximate_randomization(sig.PairedSystems(FORMULA, systems), "a", "b", trials=10000).p_value
    assert abs(got - exact) < 4 * math.sqrt(exact * (1 - exact) / 10000) + 1e-4


@pytest.mark.parametrize("n,seed", [(30, 4), (50, 5)])
def test_bootstrap_matches_the_long_way(n: int, seed: int) -> None:
    systems = _systems(n, seed)
    paired = sig.PairedSystems(FORMULA, systems)
    scores = sig.bootstrap_scores(paired, ["s0", "s1"], resamples=200, seed=seed)
    observed = paired.score("s1") - paired.score("s0")
    got = sig.paired_bootstrap(scores["s0"], scores["s1"], observed)
    mean, lo, hi, p = _naive_bootstrap(systems, "s0", "s1", 200, seed)
    assert (got.mean, got.lower, got.upper) == pytest.approx((mean, lo, hi), abs=1e-12)
    assert got.p_value == p
    assert got.lower <= got.mean <= got.upper


def test_identical_systems_are_not_significant_and_jobs_do_not_change_results() -> None:
    systems = _systems(40, 7, k=3)
    systems["same"] = list(systems["s0"])
    paired = sig.PairedSystems(FORMULA, systems)
    base, one = sig.compare_all(paired, "s0", ["s1", "s2", "same"], resamples=100, trials=300, jobs=1)
    _, two = sig.compare_all(paired, "s0", ["s1", "s2", "same"], resamples=100, trials=300, jobs=2)
    assert one == two
    same = one[2]
    assert same.delta == 0.0 and same.ar is not None and same.ar.p_value == 1.0
    assert same.bootstrap is not None and same.bootstrap.p_value == 1.0 and not same.bootstrap.significant
    assert base is not None and base.p_value == 1.0


def test_a_clearly_better_system_is_significant() -> None:
    rng = random.Random(9)
    worse = [_stats(rng) for _ in range(80)]
    better = [Stats(s.test_length, s.ref_length, s.test_function_words, s.ref_function_words,
                    [min(s.test_length, s.ref_length) - s.test_function_words if min(s.test_length, s.ref_length) > s.test_function_words else 0.0, 0.0, 0.0, 0.0],
                    [min(s.test_length, s.ref_length) - s.test_function_words if min(s.test_length, s.ref_length) > s.test_function_words else 0.0, 0.0, 0.0, 0.0],
                    [0.0] * 4, [0.0] * 4, 1.0, 0.0, 0.0) for s in worse]
    for b in better:
        b.test_word_matches = b.ref_word_matches = sum(b.test_content)
        b.chunks = 1.0 if b.test_word_matches else 0.0
    paired = sig.PairedSystems(FORMULA, {"worse": worse, "better": better})
    _, (row,) = sig.compare_all(paired, "worse", ["better"], resamples=200, trials=500)
    assert row.delta > 0.05
    assert row.bootstrap is not None and row.bootstrap.significant and row.bootstrap.delta_lower > 0
    assert row.ar is not None and row.ar.significant


# -- the command line ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_tsv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 40 segments of three systems of the de-en DA file (../shared/data/wmt21)."""
    src = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "wmt21" / "newstest2021.de-en.da.tsv.gz"
    if not src.is_file():
        pytest.skip(f"needs the shared data ({src.name})")
    out = tmp_path_factory.mktemp("cmp") / "small.tsv"
    with gzip.open(src, "rt", encoding="utf-8") as f:
        header = f.readline()
        cols = header.rstrip("\n").split("\t")
        lines = [ln for ln in f if ln.split("\t")[cols.index("system")] in SYSTEMS
                 and int(ln.split("\t")[cols.index("seg_id")]) <= 40]
    out.write_text(header + "".join(lines), encoding="utf-8")
    return out


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> Tuple[int, str, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@needs_en
def test_compare_json_against_score_tsv(small_tsv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "compare", "--tsv", str(small_tsv), "--baseline", "Online-A", "-j", "1",
                        "--paired-bs-n", "200", "--paired-ar-n", "300", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    code, scored, _ = _run(capsys, "score", "--tsv", str(small_tsv), "-j", "1", "--format", "json")
    assert code == 0
    exact = {s["system"]: s["score"] for s in json.loads(scored)["systems"]}
    assert doc["baseline"]["system"] == "Online-A" and doc["baseline"]["score"] == exact["Online-A"]
    assert [s["system"] for s in doc["systems"]] == ["HuaweiTSC", "NVIDIA-NeMo"]
    for s in doc["systems"]:
        assert s["score"] == exact[s["system"]]  # bit for bit: the same pass as score --tsv
        assert s["delta"] == pytest.approx(exact[s["system"]] - exact["Online-A"], abs=1e-12)
        b = s["bootstrap"]
        assert b["lower"] <= b["mean"] <= b["upper"] and 0 < b["p_value"] <= 1 and b["resamples"] == 200
        assert b["significant"] == (b["p_value"] <= 0.05)
        assert 0 < s["ar"]["p_value"] <= 1 and s["ar"]["trials"] == 300
    assert doc["segments"] == 40 and doc["seed"] == 12345


@needs_en
def test_files_and_tsv_agree(small_tsv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [ln.split("\t") for ln in small_tsv.read_text(encoding="utf-8").splitlines()[1:]]
    files = []
    for system in ("Online-A", "HuaweiTSC"):
        p = tmp_path / f"{system}.txt"
        p.write_text("".join(r[3] + "\n" for r in rows if r[2] == system), encoding="utf-8")
        files.append(str(p))
    refs = []
    for k, col in ((4, "a"), (5, "b")):
        p = tmp_path / f"ref_{col}.txt"
        p.write_text("".join(r[k] + "\n" for r in rows if r[2] == "Online-A"), encoding="utf-8")
        refs.append(str(p))
    opts = ["-j", "1", "--paired-bs-n", "100", "--paired-ar-n", "200", "--format", "json"]
    _, by_files, _ = _run(capsys, "compare", *files, "--refs", *refs, "--names", "Online-A", "HuaweiTSC", *opts)
    _, by_tsv, _ = _run(capsys, "compare", "--tsv", str(small_tsv), "--baseline", "Online-A", "--systems",
                        "HuaweiTSC", *opts)
    a, b = json.loads(by_files), json.loads(by_tsv)
    assert [s.pop("references") for s in a["systems"]] == [refs]
    assert [s.pop("references") for s in b["systems"]] == [["ref_A", "ref_B"]]
    assert a["systems"] == b["systems"] and a["baseline"]["score"] == b["baseline"]["score"]


@needs_en
def test_compare_text_table(small_tsv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "compare", "--tsv", str(small_tsv), "-j", "1", "--paired-bs-n", "100",
                        "--paired-ar-n", "0")
    assert code == 0
    lines = out.splitlines()
    assert "Baseline:   HuaweiTSC" in lines
    head = next(ln for ln in lines if ln.startswith("System"))
    assert "BS p" in head and "AR p" not in head
    assert any(ln.startswith("HuaweiTSC (baseline)") for ln in lines)
    assert sum(ln.startswith(("NVIDIA-NeMo ", "Online-A ")) for ln in lines) == 2


@needs_en
def test_compare_errors(small_tsv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "compare", "--tsv", str(small_tsv), "--baseline", "nobody")
    assert code == 1 and "no system 'nobody'" in err
    text = small_tsv.read_text(encoding="utf-8").splitlines(keepends=True)
    drop = next(k for k, ln in enumerate(text) if "\tOnline-A\t" in ln)
    gap = tmp_path / "gap.tsv"
    gap.write_text("".join(text[:drop] + text[drop + 1 :]), encoding="utf-8")
    code, _, err = _run(capsys, "compare", "--tsv", str(gap), "--baseline", "HuaweiTSC")
    assert code == 1 and "system 'Online-A' lacks segment" in err
    code, _, err = _run(capsys, "compare", "only-one.txt", "--refs", "r.txt")
    assert code == 2 and "at least one SYSTEM" in err


# -- the page (structure; tests/test_report_browser.py opens it in a browser) -----------------------------------------


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: List[Tuple[str, Dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, "str | None"]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


@needs_en
def test_report_page(small_tsv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "r.html"
    code, _, _ = _run(capsys, "report", "--tsv", str(small_tsv), "--baseline", "Online-A", "-j", "1",
                      "--paired-bs-n", "100", "--paired-ar-n", "200", "--examples", "2", "--html", str(page))
    assert code == 0
    text = page.read_text(encoding="utf-8")
    parser = _Tags()
    parser.feed(text)
    ids = {a.get("id") for _, a in parser.tags}
    for needed in ("verdict", "scores-table", "interval-plot", "differences-plot", "modules-plot", "modules-table",
                   "buckets-table", "examples"):
        assert needed in ids, needed
    assert not [t for t, _ in parser.tags if t in ("script", "link", "img", "iframe", "object")]
    assert "http:" not in text and "https:" not in text and "url(" not in text
    systems = [a["data-system"] for t, a in parser.tags if t == "tr" and "system" in a.get("class", "").split()]
    assert sorted(systems) == ["HuaweiTSC", "NVIDIA-NeMo"]
    examples = [a for t, a in parser.tags if t == "div" and a.get("class") == "example"]
    assert len(examples) == 4  # 2 per system
    assert len([a for t, a in parser.tags if t == "section" and "segment" in a.get("class", "").split()]) == 8
    # the examples are the segments where the system's score is farthest from the baseline's, by the segment
    # scores of 'score --tsv --segments'
    seg_file = tmp_path / "segs.tsv"
    code, _, _ = _run(capsys, "score", "--tsv", str(small_tsv), "-j", "1", "-q", "--segments", str(seg_file))
    assert code == 0
    scores: Dict[Tuple[str, str], float] = {}
    for line in seg_file.read_text(encoding="utf-8").splitlines()[1:]:
        system, seg_id, score = line.split("\t")
        scores[(system, seg_id)] = float(score)
    shown: Dict[str, List[str]] = {}
    current = ""
    for t, a in parser.tags:
        if t == "details" and "system" in a.get("class", "").split():
            current = a["data-system"]
        elif t == "div" and a.get("class") == "example":
            shown.setdefault(current, []).append(a["data-segment"])
    assert sorted(shown) == ["HuaweiTSC", "NVIDIA-NeMo"]
    for system, segs in shown.items():
        gaps = sorted((abs(scores[(system, str(i))] - scores[("Online-A", str(i))]) for i in range(1, 41)), reverse=True)
        assert [abs(scores[(system, s)] - scores[("Online-A", s)]) for s in segs] == pytest.approx(gaps[:2], abs=1e-9)


def test_report_writes_only_regular_files(small_tsv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``report --html OUT`` goes through the one output writer: a symbolic link, a FIFO or the run's own input is
    refused (one line, exit 1, before any scoring) and left as it was."""
    import os

    victim = tmp_path / "victim"
    victim.write_text("keep\n", encoding="utf-8")
    link = tmp_path / "link.html"
    link.symlink_to(victim)
    fifo = tmp_path / "fifo.html"
    os.mkfifo(fifo)
    before = small_tsv.read_bytes()
    for out in (link, fifo, small_tsv):
        code, _, err = _run(capsys, "report", "--tsv", str(small_tsv), "--html", str(out), "--modules", "exact")
        assert code == 1 and err.count("\n") == 1 and str(out) in err, err
    assert victim.read_text(encoding="utf-8") == "keep\n" and link.is_symlink()
    assert fifo.is_fifo() and small_tsv.read_bytes() == before
