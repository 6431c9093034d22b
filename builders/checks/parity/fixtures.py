"""Regenerate ``tests/fixtures/parity_*.jsonl``: expected outputs of the official jar.

For each *set* (one jar configuration) a pool of candidate segments is drawn
from the shared data, the jar scores the whole pool with ``-ssOut`` (cached),
and a seeded, reproducible selection keeps the hard ones (many paraphrase,
synonym or stem matches, long segments, many repeated words, fragmented
alignments, heavy punctuation or case) plus random ones and hand-written edge
cases.  The jar is then run on exactly the chosen subset, which gives each
segment's score (with ``-vOut``: precision, recall, fragmentation penalty), its
``-ssOut`` statistics and the corpus-level final score of the subset.

Record layout (one JSON object a line)::

    {"kind": "segment", "set", "id", "source", "tags", "config", "hyp", "refs",
     "expected_score", "expected_ss", "expected_precision", "expected_recall",
     "expected_frag_penalty"}          # null where the jar prints NaN
    {"kind": "corpus", "set", "config", "ids", "expected_final", "jar_eval_id",
     "jar_args"}

``config`` holds ``lang task params modules weights beam norm lower no_punct``
(and ``char_based``, only when true: the jar's ``-ch``) with the meaning of the
``meteor_lite.Meteor`` arguments (``null`` = the language default).  ``tests/fixtures/parity_index.json`` summarises the files.

Needs Java and the data under ``../shared/data``; jar results are cached
under ``bench-out/oracle-cache`` so a rerun is quick.

    meteor-build check fixtures [--data ../shared/data] [--seed N]   (make fixtures)
"""

from __future__ import annotations

import json
import logging
import random
import string
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ... import jar as jarmod
from ..paths import DEFAULT_DATA_DIR, FIXTURE_DIR
from ..shared_data import meteor_example, wmt21_rows
from .jar_output import parse_ss_line
from .oracle import OracleConfig, jar_digest, run_oracle

log = logging.getLogger(__name__)

DEFAULT_SEED = 1_505  # Meteor 1.5

# --------------------------------------------------------------------------- items and features


@dataclass
class Item:
    """One candidate segment: where it comes from, the hypothesis, its references."""

    source: str
    hyp: str
    refs: List[str]
    feats: Dict[str, float] = field(default_factory=dict)
    tags: List[str] = field(default_factory=list)


_PUNCT = set(string.punctuation) | set("“”‘’«»„–—…¿¡")


def text_features(it: Item) -> Dict[str, float]:
    """Features computed from the text alone (no jar)."""
    h = it.hyp.lower().split()
    ch = Counter(h)
    amb = 0.0
    rep = 0.0
    for r in it.refs:
        cr = Counter(r.lower().split())
        # Candidate exact matches between repeated words: what makes the beam search work hard.
        amb = max(amb, float(sum(ch[w] * cr[w] for w in ch if w in cr and (ch[w] > 1 or cr[w] > 1))))
        rep = max(rep, float(max(cr.values(), default=0)))
    rep = max(rep, float(max(ch.values(), default=0)))
    text = it.hyp + " ".join(it.refs)
    return {
        "ambiguity": amb,
        "repeat": rep,
        "punct": float(sum(c in _PUNCT for c in text)),
        "caps": float(sum(c.isupper() for c in text)),
        "chars": float(len(text)),
    }


def ss_features(line: str) -> Dict[str, float]:
    """Features computed from the jar's ``-ssOut`` line of the pool run."""
    v = parse_ss_line(line)
    matches = max(v[21], 1.0)
    return {
        "length": v[0] + v[1],
        "stem": sum(v[8:12]),
        "syn": sum(v[12:16]),
        "para": sum(v[16:20]),
        "para_func": v[18] + v[19],
        "frag": v[20] / matches if v[21] >= 6 else 0.0,
        "nonexact": sum(v[8:20]),
        "unmatched": (v[0] - v[21]) + (v[1] - v[22]),
    }


def featurise(items: List[Item], cfg: OracleConfig, n_refs: int) -> None:
    """Run the jar (``-ssOut`` only, cached) on the pool and attach all features."""
    streams = [[it.refs[k] for it in items] for k in range(n_refs)]
    res = run_oracle([it.hyp for it in items], streams, cfg, ss_only=True)
    assert res.ss_lines is not None
    for it, line in zip(items, res.ss_lines):
        it.feats = {**text_features(it), **ss_features(line)}


def select(items: List[Item], rng: random.Random, quotas: Dict[str, int], n_random: int,
           used: Set[Tuple[str, str]], widen: int = 4) -> List[Item]:
    """Pick ``quotas[f]`` items among the top ``widen * quota`` by feature ``f`` (seeded), then random ones.

    Items whose ``(source, hyp)`` is in ``used`` (already chosen by another set)
    are avoided so that the sets cover different segments.
    """
    chosen: List[Item] = []
    seen = set()

    def ok(it: Item) -> bool:
        k = (it.source, it.hyp)
        return k not in seen and k not in used

    for feat, k in quotas.items():
        cands = [it for it in items if ok(it) and it.feats.get(feat, 0) > 0]
        # Stable ordering: by feature (desc), ties broken by a seeded shuffle.
        rng.shuffle(cands)
        cands.sort(key=lambda it: -it.feats[feat])
        top = cands[: max(widen * k, k)]
        picked = rng.sample(top, min(k, len(top)))
        for it in picked:
            it.tags.append(f"top-{feat}")
            seen.add((it.source, it.hyp))
            chosen.append(it)
    rest = [it for it in items if ok(it)]
    for it in rng.sample(rest, min(n_random, len(rest))):
        it.tags.append("random")
        seen.add((it.source, it.hyp))
        chosen.append(it)
    used.update(seen)
    return chosen


# --------------------------------------------------------------------------- edge cases

#: Hand-written single-reference edge cases (hyp, ref, tag), all English.
EDGE_EN: List[Tuple[str, str, str]] = [
    ("", "The cat sat on the mat .", "empty-hyp"),
    ("The cat sat on the mat .", "", "empty-ref"),
    ("", "", "both-empty"),
    ("   ", "the cat", "whitespace-hyp"),
    ("The quick brown fox jumps over the lazy dog .", "The quick brown fox jumps over the lazy dog .", "identical"),
    ("the QUICK brown fox, jumps over the lazy dog!", "The quick brown fox jumps over the lazy dog.", "identical-after-norm"),
    (". , ! ?", ". , ! ?", "punct-only-identical"),
    ("...", "!!!", "punct-only-different"),
    ("- -- --- ; :", "the cat", "punct-only-vs-words"),
    ("the cat", ". , ;", "words-vs-punct-only"),
    ("the", "the", "single-function-word"),
    ("cat", "cat", "single-content-word"),
    ("cat", "dog", "single-word-nomatch"),
    ("of the and to a in", "the of a to and in", "function-words-only"),
    ("the the the the the the the the", "the cat and the dog and the bird and the fish", "repeated-function"),
    ("a b a b a b a b a b a b a b a b", "b a b a b a b a b a b a b a b a", "repeated-alternating"),
    ("one two three four five six seven eight nine ten",
     "ten nine eight seven six five four three two one", "reversed"),
    ("the dog runs quickly to the houses", "the dogs ran quick to the house", "stems"),
    ("the automobile is quick and large", "the car is fast and big", "synonyms"),
    ("he wanted to make sure that it works", "he wished to ensure it worked", "paraphrase"),
    ("in order to win the election , they campaigned", "to win the vote they ran a campaign", "paraphrase-multiword"),
    ("Mr. Smith went to Washington D.C. on Jan. 5th .", "Mr Smith travelled to Washington DC on 5 January", "abbreviations"),
    ("It's 3.5 million dollars , not 1,000,000 .", "it is 3.5m dollars, not one million", "numbers"),
    ("a well-known state-of-the-art method", "a well known state of the art method", "hyphens"),
    ("I don't think they'll come", "I do not think they will come", "contractions"),
    ("“Quoted” text — with dashes – and … ellipsis", "\"quoted\" text - with dashes - and ... ellipsis", "unicode-punct"),
    ("café naïve résumé Zürich", "cafe naive resume Zurich", "accents"),
    ("東京 is a big city", "Tokyo is a big city", "non-latin"),
    ("  leading and   trailing   spaces  ", "leading and trailing spaces", "whitespace-runs"),
    ("see http://example.com/a?b=c&d=e for details", "see http://example.com/a?b=c&d=e for more details", "url"),
    ("the the cat cat sat sat", "the cat sat", "duplicated-words"),
    ("cat", "the cat sat on the mat with another cat and a third cat", "short-hyp-long-ref"),
    ("the cat sat on the mat with another cat and a third cat", "cat", "long-hyp-short-ref"),
    ("New York City is large", "new york city is big", "case-and-synonym"),
    ("(parenthesised) [bracketed] {braced} <angled>", "parenthesised bracketed braced angled", "brackets"),
    # Words whose Java String.hashCode() collide: the jar matches them (observed, see the parity report).
    ("the matter is closed", "the Hütter is closed", "hash-collision-matter-hutter"),
    ("a grand hotel", "a Gmünd hotel", "hash-collision-grand-gmund"),
    ("32 people came", "1p people came", "hash-collision-32-1p"),
]

#: Edge cases per other language (hyp, ref, tag): hash collisions, stemmer-version words.
EDGE_LANG: Dict[str, List[Tuple[str, str, str]]] = {
    "fr": [
        ("il le fait", "il n'a fait", "hash-collision-le-n'"),
        ("je pense", "l'ami pense", "hash-collision-je-l'"),
        ("les discussions", "n'est discussion", "stem-hash-collision-les-n'"),
        ("ce n’est pas le cas", "ce n'est pas le cas", "curly-apostrophe"),
        ("l'homme qu'il a vu", "l' homme qu' il a vu", "elisions"),
    ],
    "de": [
        ("die Ergebnisse waren gut", "das Ergebnis war gut", "stemmer-nisse"),
        ("neue Erkenntnissen", "neue Erkenntnis", "stemmer-nissen"),
        ("Straße und Strasse", "Strasse und Straße", "eszett"),
        ("Häuser über Bäume", "Hauser uber Baume", "umlauts"),
    ],
    "ru": [
        ("её дом", "ее дом", "stemmer-yo"),
        ("всё хорошо", "все хорошо", "stemmer-yo-2"),
        ("он пришёл домой", "он пришел домой", "stemmer-yo-3"),
        ("ЁЛКА и Ёлка", "ёлка и елка", "yo-case"),
    ],
    "cz": [
        ("Příliš žluťoučký kůň", "příliš žluťoučký kůň úpěl", "diacritics"),
    ],
}

#: Case-sensitive collisions for the raw (no -norm, no -lower) English set.
EDGE_EN_RAW: List[Tuple[str, str, str]] = [
    ("Aa", "BB", "hash-collision-Aa-BB"),
    ("AaAa BBBB", "BBBB AaAa", "hash-collision-long"),
    ("The Cat sat", "the cat sat", "case-sensitive"),
    ("the cat sat .", "the cat sat.", "no-tokenisation"),
]

#: Edge cases for the two-reference set: (hyp, [ref1, ref2], tag).
EDGE_2REF: List[Tuple[str, List[str], str]] = [
    ("the cat sat on the mat", ["", "the cat sat on the mat"], "first-ref-empty"),
    ("the cat sat on the mat", ["a dog stood on a rug", "the cat sat on a mat"], "second-ref-better"),
    ("the cat sat on the mat", ["the cat sat on the mat", "the cat sat on the mat"], "identical-refs"),
    ("", ["the cat", "a dog"], "empty-hyp"),
    ("the cat", ["the cat sat", "the dog cat"], "tie-candidates"),
]


def edge_items(cases: Sequence[Tuple[str, str, str]]) -> List[Item]:
    """Items for single-reference edge cases."""
    return [Item(source=f"edge:{tag}", hyp=h, refs=[r], tags=["edge", tag]) for h, r, tag in cases]


# --------------------------------------------------------------------------- the sets


@dataclass
class SetSpec:
    """One fixture set: a jar configuration, its pool and how to choose from it."""

    name: str
    file: str
    config: OracleConfig
    pool: str
    quotas: Dict[str, int]
    n_random: int
    edges: List[Item] = field(default_factory=list)


def en_sets() -> List[SetSpec]:
    """English sets on the official example and WMT21 de-en."""
    en: Dict[str, Any] = {"lang": "en"}
    q_std = {"para": 8, "syn": 6, "stem": 6, "length": 4, "ambiguity": 4, "frag": 4, "para_func": 3}
    return [
        SetSpec("en-norm", "parity_en.jsonl", OracleConfig(norm=True, **en), "example",
                q_std, 25, edge_items(EDGE_EN)),
        SetSpec("deen-1ref", "parity_wmt.jsonl", OracleConfig(norm=True, **en), "deen1",
                {"para": 8, "syn": 5, "stem": 5, "length": 4, "ambiguity": 4, "frag": 3}, 16),
        SetSpec("deen-2ref", "parity_wmt.jsonl", OracleConfig(norm=True, **en), "deen2",
                {"para": 7, "syn": 4, "stem": 4, "length": 3, "ambiguity": 3, "frag": 3}, 11,
                [Item(f"edge:{t}", h, list(r), tags=["edge", t]) for h, r, t in EDGE_2REF]),
        # Task presets on system1 (-norm).
        *[SetSpec(f"task-{t}", "parity_tasks.jsonl", OracleConfig(norm=True, task=t, **en), "system1",
                  {"para": 4, "syn": 3, "stem": 3, "length": 2, "frag": 2}, 4) for t in ("adq", "hter", "li", "tune")],
        SetSpec("en-raw", "parity_options.jsonl", OracleConfig(**en), "example",
                {"caps": 3, "punct": 3, "para": 3}, 5, edge_items(EDGE_EN_RAW)),
        SetSpec("lower", "parity_options.jsonl", OracleConfig(lower=True, **en), "example",
                {"caps": 5, "punct": 5, "para": 5, "syn": 3, "length": 2}, 6,
                edge_items([c for c in EDGE_EN if c[2] in {
                    "identical-after-norm", "punct-only-identical", "abbreviations", "numbers",
                    "contractions", "unicode-punct", "case-and-synonym", "brackets", "url"}])),
        SetSpec("norm-nopunct", "parity_options.jsonl", OracleConfig(norm=True, no_punct=True, **en), "example",
                {"punct": 8, "para": 4, "syn": 2, "length": 2}, 5,
                edge_items([c for c in EDGE_EN if c[2] in {
                    "punct-only-identical", "punct-only-different", "punct-only-vs-words",
                    "words-vs-punct-only", "unicode-punct", "brackets", "numbers"}])),
        SetSpec("mod-exact", "parity_options.jsonl", OracleConfig(norm=True, modules=["exact"], **en), "example",
                {"ambiguity": 4, "frag": 3, "length": 2}, 4),
        SetSpec("mod-exact-stem", "parity_options.jsonl",
                OracleConfig(norm=True, modules=["exact", "stem"], **en), "example",
                {"stem": 7, "length": 1}, 4),
        SetSpec("mod-exact-synonym", "parity_options.jsonl",
                OracleConfig(norm=True, modules=["exact", "synonym"], **en), "example",
                {"syn": 10, "stem": 2}, 3),
        SetSpec("mod-exact-paraphrase", "parity_options.jsonl",
                OracleConfig(norm=True, modules=["exact", "paraphrase"], **en), "example",
                {"para": 10, "para_func": 3}, 2),
        SetSpec("mod-stem-syn-para-weights", "parity_options.jsonl",
                OracleConfig(norm=True, modules=["exact", "stem", "synonym", "paraphrase"],
                             weights=[1.0, 0.0, 0.5, 0.3], **en), "example",
                {"stem": 3, "syn": 3, "para": 4}, 2),
        SetSpec("params-custom", "parity_options.jsonl",
                OracleConfig(norm=True, params=[0.5, 1.0, 0.4, 0.5], **en), "example",
                {"para": 3, "frag": 3, "length": 2}, 4),
        SetSpec("params-extreme", "parity_options.jsonl",
                OracleConfig(norm=True, params=[1.0, 3.0, 1.0, 0.0], **en), "example",
                {"para": 3, "frag": 3}, 4),
        SetSpec("beam-5", "parity_options.jsonl", OracleConfig(norm=True, beam=5, **en), "example",
                {"ambiguity": 10, "para": 5, "length": 3}, 4),
        SetSpec("beam-1", "parity_options.jsonl", OracleConfig(norm=True, beam=1, **en), "example",
                {"ambiguity": 5, "para": 3}, 2),
    ]


#: Edge cases of :data:`EDGE_EN` also run with ``-ch`` (character counts of odd text).
EDGE_CH_TAGS = {"empty-hyp", "empty-ref", "both-empty", "identical", "punct-only-identical",
                "punct-only-different", "accents", "non-latin", "unicode-punct", "hyphens", "numbers"}


def util_ch_sets() -> List[SetSpec]:
    """``-t util`` and ``-ch`` on system1 (``-norm``); the jar's ``-t util`` does not imply ``-ch``.

    Run after :func:`en_sets` (they share its pool), so the older sets' choices do not move.
    """
    en: Dict[str, Any] = {"lang": "en", "norm": True}
    quotas = {"para": 4, "syn": 3, "stem": 3, "length": 2, "frag": 2}
    ch_edges = [c for c in EDGE_EN if c[2] in EDGE_CH_TAGS]
    return [
        SetSpec("task-util", "parity_tasks.jsonl", OracleConfig(task="util", **en), "system1", quotas, 4),
        SetSpec("task-util-ch", "parity_tasks.jsonl", OracleConfig(task="util", char_based=True, **en),
                "system1", quotas, 4, edge_items(ch_edges)),
        SetSpec("ch", "parity_tasks.jsonl", OracleConfig(char_based=True, **en), "system1",
                {**quotas, "punct": 2}, 4, edge_items(ch_edges)),
    ]


def other_lang_sets() -> List[SetSpec]:
    """Other target languages with the resources the jar ships (no paraphrase tables)."""
    specs = _other_lang_specs()
    for spec in specs:
        if spec.name.endswith("-exact-stem") or spec.name == "cz-exact":
            if not spec.name.startswith("de-lower"):
                spec.edges = edge_items(EDGE_LANG.get(spec.config.lang, []))
    return specs


def _other_lang_specs() -> List[SetSpec]:
    return [
        SetSpec("de-exact-stem", "parity_langs.jsonl",
                OracleConfig(lang="de", norm=True, modules=["exact", "stem"]), "en-de",
                {"stem": 6, "length": 3, "ambiguity": 2, "punct": 2}, 7),
        SetSpec("de-lower-exact-stem", "parity_langs.jsonl",
                OracleConfig(lang="de", lower=True, modules=["exact", "stem"]), "en-de",
                {"stem": 3, "caps": 2, "punct": 2}, 3),
        SetSpec("fr-exact-stem", "parity_langs.jsonl",
                OracleConfig(lang="fr", norm=True, modules=["exact", "stem"]), "de-fr",
                {"stem": 6, "length": 3, "ambiguity": 2, "punct": 2}, 7),
        SetSpec("cz-exact", "parity_langs.jsonl",
                OracleConfig(lang="cz", norm=True, modules=["exact"]), "en-cs",
                {"length": 4, "ambiguity": 3, "punct": 3, "frag": 3}, 7),
        SetSpec("ru-exact-stem", "parity_langs.jsonl",
                OracleConfig(lang="ru", norm=True, modules=["exact", "stem"]), "en-ru",
                {"stem": 6, "length": 3, "ambiguity": 2, "punct": 2}, 7),
    ]


# --------------------------------------------------------------------------- pools


def build_pools(data: Path, seed: int) -> Dict[str, Tuple[List[Item], OracleConfig, int]]:
    """Candidate pools with the configuration used to featurise them and their reference count."""
    sys1 = meteor_example(data, "system1.hyp")
    sys2 = meteor_example(data, "system2.hyp")
    ref = meteor_example(data, "reference")
    example = [Item(f"system1:{i}", h, [r]) for i, (h, r) in enumerate(zip(sys1, ref))]
    example += [Item(f"system2:{i}", h, [r]) for i, (h, r) in enumerate(zip(sys2, ref))]
    en_norm = OracleConfig(lang="en", norm=True)
    pools: Dict[str, Tuple[List[Item], OracleConfig, int]] = {
        "example": (example, en_norm, 1),
    }
    rows = [r for r in wmt21_rows(data, "de-en") if r["system"] != "ref-B"]
    pools["deen1"] = ([Item(f"de-en:{r['system']}:{r['seg_id']}", r["hyp"], [r["ref_A"]]) for r in rows],
                      en_norm, 1)
    rows2 = [r for r in rows if r["ref_B"]]
    pools["deen2"] = ([Item(f"de-en:{r['system']}:{r['seg_id']}", r["hyp"], [r["ref_A"], r["ref_B"]])
                       for r in rows2], en_norm, 2)
    lang_cfg = {"en-de": OracleConfig(lang="de", norm=True, modules=["exact", "stem"]),
                "de-fr": OracleConfig(lang="fr", norm=True, modules=["exact", "stem"]),
                "en-cs": OracleConfig(lang="cz", norm=True, modules=["exact"]),
                "en-ru": OracleConfig(lang="ru", norm=True, modules=["exact", "stem"])}
    for lp, cfg in lang_cfg.items():
        rows = wmt21_rows(data, lp)
        rng = random.Random(f"{seed}:pool:{lp}")
        rows = rng.sample(rows, min(3000, len(rows)))
        pools[lp] = ([Item(f"{lp}:{r['system']}:{r['seg_id']}", r["hyp"], [r["ref_A"]]) for r in rows], cfg, 1)
    return pools


# --------------------------------------------------------------------------- main


def _nan_to_none(text: str) -> Optional[float]:
    v = float(text)
    return None if v != v else v


def run_set(spec: SetSpec, chosen: List[Item]) -> List[Dict[str, Any]]:
    """Run the jar on exactly ``chosen`` and build the fixture records of the set."""
    n_refs = len(chosen[0].refs)
    if any(len(it.refs) != n_refs for it in chosen):
        raise ValueError(f"{spec.name}: mixed reference counts")
    streams = [[it.refs[k] for it in chosen] for k in range(n_refs)]
    res = run_oracle([it.hyp for it in chosen], streams, spec.config, with_ss=True)
    assert res.ss_lines is not None
    cfg = spec.config.to_dict()
    recs: List[Dict[str, Any]] = []
    ids: List[str] = []
    for i, it in enumerate(chosen):
        rid = f"{spec.name}/{it.source}"
        ids.append(rid)
        prf = res.segment_prf[i]
        recs.append({
            "kind": "segment",
            "set": spec.name,
            "id": rid,
            "source": it.source,
            "tags": it.tags,
            "config": cfg,
            "hyp": it.hyp,
            "refs": it.refs,
            "expected_score": res.segment_scores[i],
            "expected_ss": res.ss_lines[i],
            "expected_precision": _nan_to_none(prf[0]),
            "expected_recall": _nan_to_none(prf[1]),
            "expected_frag_penalty": _nan_to_none(prf[2]),
        })
    if len(set(ids)) != len(ids):
        raise ValueError(f"{spec.name}: duplicate ids")
    recs.append({
        "kind": "corpus",
        "set": spec.name,
        "config": cfg,
        "ids": ids,
        "expected_final": res.final_score,
        "jar_eval_id": res.header.get("Eval ID", ""),
        "jar_args": res.args + (["-r", str(n_refs)] if n_refs > 1 else []),
    })
    return recs


#: Label written as ``generator`` into ``parity_index.json``.
GENERATOR = "meteor-build check fixtures"


def _featurised_pools(data: Path, seed: int) -> Dict[str, List[Item]]:
    """The candidate pools, featurised with the jar, keyed as :class:`SetSpec` ``pool`` names them."""
    pools = build_pools(data, seed)
    for name, (items, cfg, n_refs) in pools.items():
        log.info("pool %s: %d segments, featurising with %s", name, len(items), " ".join(cfg.jar_args()))
        featurise(items, cfg, n_refs)
    system1 = [it for it in pools["example"][0] if it.source.startswith("system1:")]
    return {"example": pools["example"][0], "system1": system1, "deen1": pools["deen1"][0],
            "deen2": pools["deen2"][0], "en-de": pools["en-de"][0], "de-fr": pools["de-fr"][0],
            "en-cs": pools["en-cs"][0], "en-ru": pools["en-ru"][0]}


def build_sets(pool_of: Dict[str, List[Item]], seed: int, only: Optional[str] = None
               ) -> Tuple[Dict[str, List[Dict[str, Any]]], List[Dict[str, Any]]]:
    """Choose and run every set (or the comma-separated ``only``): records by file name, and the index rows."""
    specs = en_sets() + util_ch_sets() + other_lang_sets()
    if only:
        keep = set(only.split(","))
        specs = [s for s in specs if s.name in keep]
    by_file: Dict[str, List[Dict[str, Any]]] = {}
    used_by_pool: Dict[str, Set[Tuple[str, str]]] = {}
    summary: List[Dict[str, Any]] = []
    for spec in specs:
        rng = random.Random(f"{seed}:{spec.name}")
        # Sets on the same underlying data avoid reusing each other's segments.
        used = used_by_pool.setdefault("example" if spec.pool in ("example", "system1") else spec.pool, set())
        # Copy the items so that tags do not leak between sets.
        items = [Item(it.source, it.hyp, list(it.refs), dict(it.feats)) for it in pool_of[spec.pool]]
        chosen = select(items, rng, spec.quotas, spec.n_random, used)
        chosen += [Item(e.source, e.hyp, list(e.refs), tags=list(e.tags)) for e in spec.edges]
        recs = run_set(spec, chosen)
        by_file.setdefault(spec.file, []).extend(recs)
        n = len(recs) - 1
        summary.append({"set": spec.name, "file": spec.file, "segments": n,
                        "edge": sum(1 for it in chosen if "edge" in it.tags),
                        "config": spec.config.to_dict(), "jar_args": recs[-1]["jar_args"],
                        "expected_final": recs[-1]["expected_final"]})
        log.info("%-28s %4d segments  final %.6f", spec.name, n, recs[-1]["expected_final"])
    return by_file, summary


def write_fixtures(out: Path, by_file: Dict[str, List[Dict[str, Any]]], summary: List[Dict[str, Any]],
                   seed: int, jar: Path) -> None:
    """Write the ``parity_*.jsonl`` files (removing stale ones) and ``parity_index.json``."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("parity_*.jsonl"):
        if old.name not in by_file:
            old.unlink()
    for fname, recs in by_file.items():
        with open(out / fname, "w", encoding="utf-8") as f:
            for r in recs:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    index = {
        "generator": GENERATOR,
        "seed": seed,
        "oracle": "meteor-1.5.jar (pycocoevalcap)",
        "jar_sha256": jar_digest(jar),
        "segments": sum(s["segments"] for s in summary),
        "sets": summary,
    }
    (out / "parity_index.json").write_text(json.dumps(index, indent=1, ensure_ascii=False) + "\n",
                                           encoding="utf-8")


def run_fixtures(data: Path = DEFAULT_DATA_DIR, seed: int = DEFAULT_SEED, out: Path = FIXTURE_DIR,
                 only: Optional[str] = None) -> int:
    """Build every set and write the fixture files and their index (not with ``only``); the exit status."""
    t0 = time.perf_counter()
    try:
        jar = jarmod.find_jar()
        pool_of = _featurised_pools(data, seed)
    except (jarmod.JarError, FileNotFoundError) as e:
        log.error("error: %s", e)
        return 2
    by_file, summary = build_sets(pool_of, seed, only)
    total = sum(s["segments"] for s in summary)
    log.info("total %d segments in %d sets (%.0f s)", total, len(summary), time.perf_counter() - t0)
    if only:
        return 0
    write_fixtures(out, by_file, summary, seed, jar)
    return 0
