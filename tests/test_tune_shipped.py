"""Tuned `mqm` sets shipped with the scorer, the tuner's merged files and normalisation search, the validity report."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import warnings
from pathlib import Path

import pytest

from meteor_lite import Meteor, tuned
from meteor_lite.config import NORM_LABELS, TunedTask
from meteor_lite.errors import ConfigError, InputError
from meteor_lite.metaeval.data import merge_judgments, read_judgments

typer_testing = pytest.importorskip("typer.testing")

#: The languages whose `mqm` set ships (docs/meta-evaluation.md, "Tuned mqm sets").
SHIPPED = ("en", "de", "es", "fr", "ru", "zh")


def test_doc_local_segment_ids(shared_data: Path) -> None:
    """The biomedical sets number segments within documents: items become DOC:SEG_ID, one per row and system."""
    path = shared_data / "mqm" / "biomed2021.en-de.dev.mqm.tsv.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [line.rstrip("\n").split("\t") for line in fh][1:]
    j = read_judgments(str(path))
    assert all(":" in i for i in j.items)
    assert sum(g is not None for row in j.gold for g in row) == len(rows)
    assert len(j.items) == len({(r[1], r[2]) for r in rows})
    ted = read_judgments(str(shared_data / "mqm" / "ted2021.zh-en.dev.mqm.tsv.gz"))
    assert not any(":" in i for i in ted.items)  # unique ids stay as they are


def test_merge_judgments(tmp_path: Path) -> None:
    a = tmp_path / "a.tsv"
    b = tmp_path / "b.tsv"
    a.write_text("system\tseg_id\tmqm\thyp\tref\nS\t1\t-1\th\tr\nrefA\t1\t0\th\tr\nS\t2\t0\th2\tr2\n", encoding="utf-8")
    b.write_text("system\tseg_id\tmqm\thyp\tref\nS\t1\t-5\tx\ty\n", encoding="utf-8")
    m = merge_judgments([("a", read_judgments(str(a))), ("b", read_judgments(str(b)))])
    assert m.systems == ["a/S", "a/refA", "b/S"] and m.items == ["a/1", "a/2", "b/1"]
    assert m.gold == [[-1.0, 0.0, None], [0.0, None, None], [None, None, -5.0]]
    assert m.human_systems == {"a/refA"} and m.order["b/S"] == [2] and m.texts["b/S"] == [("x", "y")]


def test_tune_norm_search_into_scorer_then_score(tmp_path: Path, shared_data: Path, bundle_dir: Path,
                                                 shipped_file: Path) -> None:
    """Two real en-de MQM files merged, 'norm; norm-case' searched, the set shipped into a scratch file; then
    `--task mqm` scores with the set's normalisation and no other option."""
    from meteor_lite_builders.cli import app

    if not (bundle_dir / "de.sqlite").is_file():
        pytest.skip(f"needs {bundle_dir / 'de.sqlite'} (make bundles)")
    mqm = shared_data / "mqm"
    args = ["tune", str(mqm / "biomed2021.en-de.dev.mqm.tsv.gz"), "--add", str(mqm / "generalMT2023.en-de.mqm.tsv.gz"),
            "--lang", "de", "-N", "norm; norm-case", "-M", "exact stem", "--baseline-modules", "exact stem",
            "-k", "2", "--rounds", "1", "--bootstrap", "20", "--into-scorer", "mqm", "--shipped-file", str(shipped_file)]
    res = typer_testing.CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "[norm] exact stem" in res.output and "[norm-case] exact stem" in res.output
    assert "biomed2021.en-de.dev" in res.output and "generalMT2023.en-de" in res.output
    data = json.loads(shipped_file.read_text(encoding="utf-8"))
    entry = data["languages"]["de"]["mqm"]
    assert entry["norm"] in ("norm", "norm-case") and entry["modules"] == ["exact", "stem"]
    prov = entry["provenance"]
    assert set(prov["heldout_by_file"]) == {"biomed2021.en-de.dev", "generalMT2023.en-de"}
    assert prov["norms_searched"] == ["norm", "norm-case"] and len(prov["judgments"]) == 2
    assert prov["judgments"][1]["sha256"] == hashlib.sha256((mqm / "generalMT2023.en-de.mqm.tsv.gz").read_bytes()).hexdigest()
    m = Meteor("de", task="mqm", quiet=True)
    assert m.config.norm_label == entry["norm"] and m.config.modules == ("exact", "stem")
    task = TunedTask.from_dict("mqm", entry)
    assert f"|{entry['norm']}|task:mqm@{task.short_hash}|" in m.signature
    other = "lower"
    m2 = Meteor("de", task="mqm", lower=True, quiet=True)  # an explicit normalisation wins, with a note
    assert m2.config.norm_label == other and any("was tuned on text normalised as" in w for w in m2.warnings)
    with pytest.raises(ConfigError, match="tuned sets shipped for de: mqm"):
        Meteor("de", task="nope", quiet=True)
    again = typer_testing.CliRunner().invoke(app, args)
    assert again.exit_code == 1 and "already ships a task 'mqm'" in again.output
    assert "exact stem" not in again.output  # refused before aligning and tuning anything


def test_fallback_default(tmp_path: Path, shared_data: Path, bundle_dir: Path, shipped_file: Path) -> None:
    """On 111 Spanish segments, exact-only tuning holds out worse than Meteor's exact+stem default: the default
    configuration is shipped, and the provenance says so."""
    from meteor_lite_builders.cli import app

    if not (bundle_dir / "es.sqlite").is_file():
        pytest.skip(f"needs {bundle_dir / 'es.sqlite'} (make bundles)")
    args = ["tune", str(shared_data / "mqm" / "biomed2021.en-es.dev.mqm.tsv.gz"), "--lang", "es", "-N", "norm",
            "-M", "exact", "--baseline-modules", "exact stem", "-k", "5", "--rounds", "2", "--bootstrap", "50",
            "--into-scorer", "mqm", "--shipped-file", str(shipped_file), "--fallback-default"]
    res = typer_testing.CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    entry = json.loads(shipped_file.read_text(encoding="utf-8"))["languages"]["es"]["mqm"]
    assert "fallback" in entry["provenance"] and "fallback:" in res.output
    m = Meteor("es", norm=True, modules=["exact", "stem"], quiet=True)
    c = m.config
    assert entry["modules"] == ["exact", "stem"] and entry["norm"] == "norm"
    assert [entry[k] for k in ("alpha", "beta", "gamma", "delta")] == [c.alpha, c.beta, c.gamma, c.delta]
    assert entry["weights"] == list(c.weights)


def test_shipped_sets(shared_data: Path, bundle_dir: Path) -> None:
    """The committed sets: one `mqm` per target language, readable, with held-out figures per file measured on
    the shared data as it is (checksums), a normalisation, and scoring with them works where the bundle is built."""
    sets = tuned.read_shipped(tuned.SHIPPED_FILE)
    assert sorted(k for k in sets if k != tuned.UNIVERSAL_LANGUAGE) == sorted(SHIPPED)
    universal = sets[tuned.UNIVERSAL_LANGUAGE][tuned.UNIVERSAL_SET]
    assert universal.modules == ("exact", "stem", "synonym", "paraphrase") and tuned.universal_set() == universal
    for figures in universal.provenance["heldout"]["by_set"].values():
        lo, hi = figures["gain_interval"]
        assert lo <= hi and figures["verdict"] == ("better" if lo > 0 else "worse" if hi < 0 else "no difference shown")
    for lang in SHIPPED:
        task = sets[lang]["mqm"]
        prov = task.provenance
        assert task.norm in NORM_LABELS
        assert prov["heldout"]["value"] is not None and prov["statistic"] == "seg:sys:pearson"
        for j in prov["judgments"]:
            path = next(p for p in (shared_data / "mqm" / j["file"], shared_data / "wmt-mqm" / j["file"]) if p.is_file())
            assert hashlib.sha256(path.read_bytes()).hexdigest() == j["sha256"], path
        for part in prov.get("heldout_by_file", {}).values():
            assert -1 <= part["value"] <= 1 and part["interval"][0] <= part["interval"][1]
        if (bundle_dir / f"{lang}.sqlite").is_file():
            m = Meteor(lang, task="mqm", quiet=True)
            assert m.config.norm_label == task.norm and m.signature.split("|")[2] == task.norm
            assert 0.0 <= m.score_segment("The Patient was treated.", ["the patient was treated ."]).score <= 1.0


def test_validity_report(tmp_path: Path, shared_data: Path, bundle_dir: Path) -> None:
    """One small set: figures are Pearson values inside their intervals; the mqm set's held-out scores, rebuilt from
    its recorded folds, give the figure the tuner recorded; the table and tallies name the set."""
    pytest.importorskip("sacrebleu")
    from meteor_lite_builders.checks.research import validity

    if not (bundle_dir / "es.sqlite").is_file():
        pytest.skip(f"needs {bundle_dir / 'es.sqlite'} (make bundles)")
    d = tmp_path / "mqm"
    d.mkdir()
    (d / "biomed2021.en-es.dev.mqm.tsv.gz").symlink_to(shared_data / "mqm" / "biomed2021.en-es.dev.mqm.tsv.gz")
    (r,) = validity.validity(d, samples=30, seed=0)
    assert r.lang == "es" and r.systems == 3 and r.segments == 111
    for name in ("default", "mqm (cv)", "chrF", "BLEU"):
        lo, hi = r.cv_interval[name]
        value = r.cv[name]
        assert value is not None and -1 <= lo <= hi <= 1, (name, value, lo, hi)
    assert r.recorded is not None and abs((r.cv["mqm (cv)"] or 0.0) - r.recorded) <= 5e-7  # recorded to 6 decimals
    assert r.whole["chrF"] is not None and r.sys["default"] is not None
    table = validity.format_table([r])
    assert "| biomed2021.en-es.dev | es | 3 | 111 |" in table and "At least chrF's figure" in table


def test_validity_rebuilds_tuned_heldout_scores(tmp_path: Path, shared_data: Path, bundle_dir: Path) -> None:
    """A shipped set that was kept (not a fallback, as Russian's): its recorded folds over every file it was
    tuned on are rebuilt, and its smallest file's segments, each scored by its fold's normalisation, modules and
    parameters, give the held-out figure the tuner recorded for that file."""
    pytest.importorskip("sacrebleu")
    from meteor_lite_builders.checks.research import validity

    kept = [lang for lang in SHIPPED if not tuned.shipped_tasks(lang)["mqm"].provenance.get("fallback")]
    if not kept:
        pytest.skip("every shipped mqm set is the default configuration: nothing tuned to rebuild")
    lang = kept[0]
    if not (bundle_dir / f"{lang}.sqlite").is_file():
        pytest.skip(f"needs {bundle_dir / f'{lang}.sqlite'} (make bundles)")
    task = tuned.shipped_tasks(lang)["mqm"]
    d = tmp_path / "mqm"
    d.mkdir()
    sizes = {}
    for f in task.provenance["judgments"]:
        src = next(p for p in (shared_data / "mqm" / f["file"], shared_data / "wmt-mqm" / f["file"]) if p.is_file())
        (d / f["file"]).symlink_to(src)
        sizes[f["file"]] = src.stat().st_size
    smallest = min(sizes, key=lambda f: sizes[f]).split(".mqm.tsv.gz")[0]
    (r,) = validity.validity(d, samples=5, seed=0, only=[smallest])
    assert r.name == smallest and r.mqm_note == "" and r.recorded is not None and r.protocol == "folds"
    assert abs((r.cv["mqm (cv)"] or 0.0) - r.recorded) <= 5e-7
    assert abs((r.cv["default"] or 0.0) - task.provenance["heldout_by_file"][smallest]["default_value"]) <= 5e-7


def test_bundle_info_lists_shipped_sets(bundle_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`meteor-lite bundle info` of a German bundle lists the German sets meteor-lite ships, with their figures."""
    from meteor_lite.cli import run

    de = bundle_dir / "de.sqlite"
    if not de.is_file():
        pytest.skip(f"needs {de} (make bundles)")
    assert run(["bundle", "info", str(de)]) == 0
    out = capsys.readouterr().out
    task = tuned.shipped_tasks("de")["mqm"]
    assert "tuned sets shipped with meteor-lite for de" in out and f"mqm@{task.short_hash}: --{task.norm} " in out
    assert "heldout:" in out and "judgments:" in out
    assert run(["bundle", "info", str(de), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["shipped_tasks"]["mqm"]["hash"] == task.short_hash and info["tasks"] == {}


def test_validity_without_the_sets_files(tmp_path: Path, shared_data: Path, en_bundle: Path) -> None:
    """An English file alone: the English set's folds span ten files, so its cv column is left out with a note
    (never a figure from another partition); the other metrics are figured on the whole set, with intervals."""
    pytest.importorskip("sacrebleu")
    from meteor_lite_builders.checks.research import validity

    d = tmp_path / "mqm"
    d.mkdir()
    (d / "biomed2021.pt-en.dev.mqm.tsv.gz").symlink_to(shared_data / "mqm" / "biomed2021.pt-en.dev.mqm.tsv.gz")
    (r,) = validity.validity(d, samples=5, seed=0)
    assert "cannot be rebuilt" in r.mqm_note and "mqm (cv)" not in r.cv and r.protocol == "whole"
    lo, hi = r.cv_interval["default"]
    assert r.cv["default"] == pytest.approx(r.whole["default"], abs=1e-9) and lo <= r.cv["default"] <= hi
    assert r.whole["default"] is not None and r.whole["chrF"] is not None
    assert "cannot be rebuilt" in validity.format_table([r])


def test_adapters_score_a_tuned_set_with_its_normalisation(shipped_file: Path, en_bundle: Path) -> None:
    """hf and sacreBLEU-style adapters default to the jar's -norm, but a tuned set that carries its normalisation
    is scored as tuned (as `meteor-lite score --task mqm`); an explicit norm, or another text option, still wins."""
    from meteor_lite import hf
    from meteor_lite.metrics import METEOR
    from meteor_lite_builders.tune.tasks import add_shipped

    prov = {"statistic": "seg:sys:pearson", "judgments": [], "heldout": {"value": 0.2}}
    add_shipped(shipped_file, "en", TunedTask("cased", 0.5, 1.5, 0.4, 0.9, ("exact",), (1.0,), prov, norm="norm-case"))
    # a set that carries no normalisation, tuned on -norm text (sets written before sets carried one)
    old_prov = dict(prov, aligned_with="meteor-lite|lang:en|norm|task:custom|mods:exact")
    add_shipped(shipped_file, "en", TunedTask("plain", 0.5, 1.5, 0.4, 0.9, ("exact",), (1.0,), old_prov))
    tuned._cached.cache_clear()
    hyp, ref = "The Patient was treated.", "the patient was treated ."

    def label(scorer: Meteor) -> str:
        return scorer.signature.split("|")[2]

    assert label(hf.Meteor(task="cased", bundle=str(en_bundle)).scorer) == "norm-case"
    assert label(METEOR(task="cased", bundle=str(en_bundle)).scorer) == "norm-case"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scored with -norm, as tuned: no note about a 'none' scoring that never runs
        assert label(hf.Meteor(task="plain", bundle=str(en_bundle)).scorer) == "norm"  # carries none: the jar's -norm
    assert label(hf.Meteor(task="rank", bundle=str(en_bundle)).scorer) == "norm"
    assert label(hf.Meteor(bundle=str(en_bundle)).scorer) == "norm"
    with pytest.warns(UserWarning, match="tuned on text normalised as 'norm-case'"):
        assert label(hf.Meteor(task="cased", norm=True, bundle=str(en_bundle)).scorer) == "norm"
    # norm=False is passed on: Meteor itself then gives the set its normalisation (none was chosen)
    assert label(METEOR(task="cased", norm=False, bundle=str(en_bundle)).scorer) == "norm-case"
    # another text option chosen: the adapter's -norm stands, as before (lower-casing is part of it)
    assert label(hf.Meteor(task="cased", lower=True, quiet=True, bundle=str(en_bundle)).scorer) == "norm"
    cased = hf.compute(predictions=[hyp], references=[ref], task="cased", bundle=str(en_bundle))
    direct = Meteor("en", task="cased", bundle=str(en_bundle), quiet=True).score_segment(hyp, [ref])
    assert cased["scores"] == [direct.score] and direct.score < Meteor("en", task="cased", norm=True,
                                                                         bundle=str(en_bundle), quiet=True).score_segment(hyp, [ref]).score


def test_a_set_over_characters_scores_as_ch(shipped_file: Path, en_bundle: Path) -> None:
    """A shipped set that carries unit "char" scores with Meteor's -ch (every matched word weighing its length): the
    same numbers as its options given by hand with --ch, "ch" in the signature, --ch in bundle info's line; its hash
    covers the unit, and a set of words keeps the hash it had before sets carried one; an unknown unit is refused."""
    from meteor_lite.cli.bundles import _task_line
    from meteor_lite.errors import ConfigError
    from meteor_lite_builders.tune.tasks import add_shipped

    prov = {"statistic": "seg:sys:pearson", "judgments": [], "heldout": {"value": 0.2}}
    chars = TunedTask("chars", 0.7, 1.0, 0.5, 0.6, ("exact", "stem"), (1.0, 0.6), prov, norm="norm", unit="char")
    words = TunedTask("chars", 0.7, 1.0, 0.5, 0.6, ("exact", "stem"), (1.0, 0.6), prov, norm="norm")
    assert chars.short_hash != words.short_hash and "unit" not in words.params_dict()
    add_shipped(shipped_file, "en", chars)
    tuned._cached.cache_clear()
    hyp, ref = "the patients were treated with antibiotics", "patients received antibiotic treatment"
    by_task = Meteor("en", task="chars", bundle=str(en_bundle), quiet=True)
    by_hand = Meteor("en", norm=True, char_based=True, params=[0.7, 1.0, 0.5, 0.6], modules=["exact", "stem"],
                     weights=[1.0, 0.6], bundle=str(en_bundle), quiet=True)
    words_hand = Meteor("en", norm=True, params=[0.7, 1.0, 0.5, 0.6], modules=["exact", "stem"], weights=[1.0, 0.6],
                        bundle=str(en_bundle), quiet=True)
    got = by_task.score_segment(hyp, [ref]).score
    assert got == by_hand.score_segment(hyp, [ref]).score != words_hand.score_segment(hyp, [ref]).score
    assert "|ch|" in by_task.signature and f"task:chars@{chars.short_hash}" in by_task.signature
    assert _task_line(chars).startswith("--ch -p '0.7 1 0.5 0.6'") and "--ch" not in _task_line(words)
    with pytest.raises(ConfigError, match="unknown unit 'syllable'"):
        TunedTask.from_dict("chars", dict(chars.to_dict(), unit="syllable"))
    assert TunedTask.from_dict("chars", chars.to_dict()).unit == "char"


def test_judgments_keep_each_segments_document(shared_data: Path, tmp_path: Path) -> None:
    """The doc column gives each item its document (biomedical DOC:SEG_ID items, and TED's talk-wide ids); merged
    files prefix both; a segment in two documents is an error naming the file and line."""
    bio = read_judgments(str(shared_data / "mqm" / "biomed2021.en-de.dev.mqm.tsv.gz"))
    assert set(bio.docs) == set(bio.items) and all(bio.docs[i] == i.rsplit(":", 1)[0] for i in bio.items)
    ted = read_judgments(str(shared_data / "mqm" / "ted2021.zh-en.dev.mqm.tsv.gz"))
    assert set(ted.docs) == set(ted.items) and len(set(ted.docs.values())) == 2  # talks 2 and 7
    merged = merge_judgments([("b", bio), ("t", ted)])
    assert merged.docs[f"t/{ted.items[0]}"] == f"t/{ted.docs[ted.items[0]]}" and len(merged.docs) == len(merged.items)
    bad = tmp_path / "bad.tsv"
    bad.write_text("system\tdoc\tseg_id\tmqm\nA\td1\t1\t-1\nB\td2\t1\t0\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.tsv:3: segment '1' is in document 'd2' here and in 'd1'"):
        read_judgments(str(bad))


def test_document_folds_keep_documents_whole() -> None:
    """Every document's segments fall in one fold; folds cover every item once, are balanced by segments, depend on
    the seed only; missing documents and fewer documents than folds are refused."""
    from meteor_lite_builders.errors import InvalidParameterError
    from meteor_lite_builders.tune.trainer import column_folds, document_folds

    sizes = [7, 1, 3, 3, 2, 5, 4, 1, 6, 2]
    items = [f"d{d}:{s}" for d, n in enumerate(sizes) for s in range(n)]
    docs = {i: i.split(":")[0] for i in items}
    folds = document_folds(items, docs, 3, seed=0)
    assert sorted(c for f in folds for c in f) == list(range(len(items)))
    for f in folds:
        assert all(docs[items[c]] not in {docs[items[o]] for g in folds if g is not f for o in g} for c in f)
    assert max(map(len, folds)) - min(map(len, folds)) <= max(sizes)
    assert document_folds(items, docs, 3, seed=0) == folds and column_folds("documents", items, docs, 3, 0) == folds
    assert any(document_folds(items, docs, 3, seed=s) != folds for s in range(1, 6))
    # a segment without a document is a document of its own; a file without any folds by segment
    extra = document_folds([*items, "x"], docs, 3, 0)
    assert sorted(c for f in extra for c in f) == list(range(len(items) + 1))
    bare = [str(n) for n in range(9)]
    assert sorted(map(len, document_folds(bare, {}, 3, 0))) == [3, 3, 3]
    with pytest.raises(InvalidParameterError, match="10 documents, fewer than the 11 folds"):
        document_folds(items, docs, 11, 0)


def test_tune_by_documents_and_validity_rebuilds_it(tmp_path: Path, shared_data: Path, bundle_dir: Path,
                                                    shipped_file: Path) -> None:
    """`tune --cv documents` on a real set records document folds; the validity report rebuilds them (each held-out
    segment scored by the configuration of its document's fold) and gets the figure the tuner recorded."""
    pytest.importorskip("sacrebleu")
    from meteor_lite_builders.checks.research import validity
    from meteor_lite_builders.cli import app

    if not (bundle_dir / "de.sqlite").is_file():
        pytest.skip(f"needs {bundle_dir / 'de.sqlite'} (make bundles)")
    name = "biomed2021.en-de.dev.mqm.tsv.gz"
    args = ["tune", str(shared_data / "mqm" / name), "--lang", "de", "-N", "norm; norm-case", "-M", "exact stem",
            "--baseline-modules", "exact stem", "--cv", "documents", "-k", "3", "--heldout", "per-fold", "--rounds", "1",
            "--bootstrap", "20", "--into-scorer", "mqm", "--shipped-file", str(shipped_file)]
    res = typer_testing.CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "held-out (documents cross-validation" in res.output
    # each module set's line puts the tuned figure beside the default's on the same (all) data: the search starts
    # at the default and only climbs (per-fold held-out figures are on the verdict line, not here)
    pairs = re.findall(r"default (-?[0-9.]+)  tuned (-?[0-9.]+) \(all data\)", res.output)
    assert len(pairs) == 2 and all(float(t) >= float(d) for d, t in pairs), res.output
    held = json.loads(shipped_file.read_text(encoding="utf-8"))["languages"]["de"]["mqm"]["provenance"]["heldout"]
    assert held["cv"] == "documents, 3 folds, per-fold figures" and held["k"] == 3 and len(held["folds"]) == 3
    tuned._cached.cache_clear()
    d = tmp_path / "mqm"
    d.mkdir()
    (d / name).symlink_to(shared_data / "mqm" / name)
    (r,) = validity.validity(d, samples=5, seed=0)
    assert r.mqm_note == "" and r.recorded == held["value"]
    assert abs((r.cv["mqm (cv)"] or 0.0) - held["value"]) <= 5e-7
    j = read_judgments(str(shared_data / "mqm" / name))
    folds = validity._recorded_folds("de", d)[0]
    assert folds is not None
    by_doc: dict = {}
    for item, f in folds.by_file["biomed2021.en-de.dev"].items():
        by_doc.setdefault(j.docs[item], set()).add(f)
    assert all(len(fs) == 1 for fs in by_doc.values()) and len(by_doc) >= 3
