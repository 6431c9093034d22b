"""Case-aware scoring (``case_aware=True``, ``--case-aware``; signature ``norm-case`` / ``case``).

The rule (meteor_lite.config.CASE_RULE): no lower-casing; exact matches only identical words, the
stem, synonym and paraphrase modules compare lower-cased words, so a word differing only in case is
a stem match.  Meteor's own modes are untouched (the parity fixtures check them on both paths).
"""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path
from typing import List, Tuple

import pytest

from meteor_lite import Meteor, accel
from meteor_lite.config import CASE_RULE, NORM_LABELS, resolve_config
from meteor_lite.errors import ConfigError
from meteor_lite.text.normalize import java_lower, prepare


def _rows(path: Path, limit: int) -> List[Tuple[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [(r["hyp"], r["ref"]) for _, r in zip(range(limit), reader)]


def test_labels_and_refusals() -> None:
    assert resolve_config("de", norm=True, case_aware=True).norm_label == "norm-case"
    assert resolve_config("de", norm=True, no_punct=True, case_aware=True).norm_label == "norm-case-nopunct"
    assert resolve_config("de", case_aware=True).norm_label == "case"
    cfg = resolve_config("de", norm=True, case_aware=True)
    assert not cfg.lower and cfg.normalization == "norm_case" and "norm_case" in cfg.eval_id()
    assert resolve_config("de", norm=True).norm_label == "norm"  # Meteor's modes keep their names
    with pytest.raises(ConfigError, match="lower"):
        resolve_config("de", lower=True, case_aware=True)
    for label, (norm, lower, no_punct, case) in NORM_LABELS.items():
        c = resolve_config("en", norm=norm, lower=lower, no_punct=no_punct, case_aware=case)
        assert c.norm_label == label
    assert "stem" in CASE_RULE


def test_keep_case_is_norm_without_lowering(fixture_dir: Path) -> None:
    """On the jar's 1,245 recorded normaliser inputs: the case-aware tokens, lower-cased, are -norm's tokens."""
    n = 0
    for line in (fixture_dir / "normalizer.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        kw = dict(norm=True, keep_punct=rec["keep_punct"])
        kept = prepare(rec["input"], rec["lang"], lower=False, keep_case=True, **kw)  # type: ignore[arg-type]
        lowered = prepare(rec["input"], rec["lang"], lower=True, **kw)  # type: ignore[arg-type]
        assert [java_lower(t) for t in kept] == lowered, rec
        n += any(t != java_lower(t) for t in kept)
    assert n > 100  # the inputs do carry case


def test_case_error_costs_a_stem_match(bundle_dir: Path) -> None:
    """A hypothesis that lower-cases the reference's nouns: -norm cannot see it, norm-case scores it lower but
    well above zero (the words match as stems), and exact stays case-sensitive."""
    de = bundle_dir / "de.sqlite"
    if not de.is_file():
        pytest.skip(f"needs {de} (make bundles)")
    ref = "Der Patient hat eine Erkrankung des Herzens und erhielt eine Therapie."
    hyp = "Der patient hat eine erkrankung des herzens und erhielt eine therapie."
    mods = ["exact", "stem"]
    norm = Meteor("de", norm=True, modules=mods, bundle=de, quiet=True)
    case = Meteor("de", norm=True, case_aware=True, modules=mods, bundle=de, quiet=True)
    exact_only = Meteor("de", norm=True, case_aware=True, modules=["exact"], bundle=de, quiet=True)
    assert norm.score_segment(hyp, [ref]).score == 1.0
    s = case.score_segment(hyp, [ref])
    assert 0.5 < s.score < 1.0
    assert s.stats.test_content[1] == 4  # patient erkrankung herzens therapie: stem matches
    assert exact_only.score_segment(hyp, [ref]).score < s.score
    assert case.score_segment(ref, [ref]).score == 1.0
    assert "|norm-case|" in case.signature


def test_align_shows_case_errors_as_stem_matches(tmp_path: Path, en_bundle: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """`meteor-lite align --case-aware` (and `--task`) align as `score` does: a casing error is a stem match."""
    from meteor_lite.cli.align import run as align

    hyp, ref = tmp_path / "hyp", tmp_path / "ref"
    hyp.write_text("The Patient was Treated .\n", encoding="utf-8")
    ref.write_text("the patient was treated .\n", encoding="utf-8")

    def modules(*flags: str) -> List[str]:
        assert align([str(hyp), str(ref), "--norm", "--format", "json", "--bundle", str(en_bundle), *flags]) == 0
        return [m["module"] for m in json.loads(capsys.readouterr().out)["matches"]]

    assert modules("-m", "exact stem") == ["exact"] * 5
    assert modules("-m", "exact stem", "--case-aware") == ["stem", "stem", "exact", "stem", "exact"]
    assert modules("--task", "adq") == ["exact"] * 5  # Meteor's task: its modules, lower-cased


def test_synonyms_and_paraphrases_match_across_case(en_bundle: Path) -> None:
    """English with every module: a capitalised synonym / paraphrase still matches (lower-cased lookups)."""
    m = Meteor("en", norm=True, case_aware=True, bundle=en_bundle, quiet=True)
    low = Meteor("en", norm=True, bundle=en_bundle, quiet=True)
    for hyp, ref in [("The Automobile is red", "the car is red"), ("He Left Behind the bag", "he abandoned the bag")]:
        a, b = m.score_segment(hyp, [ref]), low.score_segment(hyp, [ref])
        assert sum(a.stats.test_content[2:]) + sum(a.stats.test_function[2:]) > 0, (hyp, a.stats)
        assert a.score <= b.score


def test_pure_and_compiled_agree(shared_data: Path, en_bundle: Path, bundle_dir: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Case-aware scores of real MQM segments (WMT23 en-de, biomedical de-en) are the same on both paths."""
    kernels = accel._load()
    if kernels is None:
        pytest.skip("the compiled kernels are not built (make accel; `make test` builds them)")
    sets = [("en", en_bundle, shared_data / "mqm" / "biomed2021.de-en.dev.mqm.tsv.gz", None)]
    de = bundle_dir / "de.sqlite"
    if de.is_file():
        sets.append(("de", de, shared_data / "mqm" / "generalMT2023.en-de.mqm.tsv.gz", ["exact", "stem"]))
    for lang, bundle, path, mods in sets:
        rows = _rows(path, 150)
        out = []
        for kern in (None, kernels):
            monkeypatch.setattr(accel, "compiled", kern)
            m = Meteor(lang, norm=True, case_aware=True, modules=mods, bundle=bundle, quiet=True)
            out.append([(s.score, s.stats.as_list() if hasattr(s.stats, "as_list") else repr(s.stats))
                        for s in m.score_corpus([h for h, _ in rows], [[r for _, r in rows]]).segments])
        assert out[0] == out[1]
        assert any(a != 1.0 for a, _ in out[0])
