"""Compare meteor-lite's pivot with Meteor's official Parex on the same inputs.

Runs ``java -cp meteor-1.5.jar Parex F_CORPUS E_CORPUS PT TARGET OUTDIR MIN_TP MIN_RF``
and :func:`meteor_lite_builders.paraphrases.pivot.parex` with the same parameters (either engine:
``--engine duckdb`` or ``sort``), then
reports: pairs in both / only in one, pairs whose probabilities are bit-identical,
the largest relative difference, whether the line order is the same, and
whether the common-word lists agree.

Inputs are either given (``--phrase-table --f-corpus --e-corpus --target``) or
generated (``--generate N``: a random phrase table of about N lines with
common words, symbols, substrings and shared pivots, and matching corpora).

Note: Parex's 8th positional argument (documented as minFinalP) actually sets
the common-word threshold, and its final threshold is always 0.01; so this
check passes only minTP and minRF and compares at min_final_prob = 0.01.

Usage::

    meteor-build check parex --generate 20000 --seed 1
    meteor-build check parex --phrase-table pt.de-en.gz \\
        --f-corpus corpus.de --e-corpus corpus.en --target corpus.en
"""

from __future__ import annotations

import gzip
import json
import random
import resource
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ... import jar as jarmod
from ...paraphrases.pivot import PivotOptions, PivotStats, common_words, parex, read_parex_table, write_parex_table
from ..paths import BENCH_OUT

#: A (phrase, paraphrase, probability) triple.
Pair = Tuple[str, str, float]


class ParexCompareError(jarmod.JarError):
    """Parex failed, or the inputs are not what it reads."""


def generate(out: Path, n_lines: int, seed: int) -> Dict[str, str]:
    """Write a random phrase table and corpora into ``out``; return their paths."""
    rng = random.Random(seed)
    e_vocab = [f"e{i}" for i in range(3000 + n_lines // 4)] + ["the", "of", "a"]
    f_vocab = [f"f{i}" for i in range(3000 + n_lines // 4)] + ["der", "von", "ein"]
    sym = ["x,y", "z.", "(q)", "é", "naïve", "😀", "ｚ"]

    def phrase(vocab: Sequence[str], common: Sequence[str]) -> str:
        n = rng.choice([1, 1, 1, 2, 2, 3, 4])
        toks = [rng.choice(common) if rng.random() < 0.25 else rng.choice(vocab) for _ in range(n)]
        if rng.random() < 0.03:
            toks[rng.randrange(n)] = rng.choice(sym)
        return " ".join(toks)

    pivots = [phrase(f_vocab, ["der", "von", "ein"]) for _ in range(max(10, n_lines // 6))]
    lines: Set[Tuple[str, str]] = set()
    pt: List[str] = []
    e_phrases: List[str] = []
    while len(pt) < n_lines:
        f = rng.choice(pivots)
        if e_phrases and rng.random() < 0.3:
            e = rng.choice(e_phrases)
            if rng.random() < 0.3:  # a word-accumulation variant (substring filter)
                e = e + " " + rng.choice(e_vocab)
        else:
            e = phrase(e_vocab, ["the", "of", "a"])
        if (f, e) in lines:
            continue
        lines.add((f, e))
        e_phrases.append(e)
        # probabilities with awkward binary expansions, some tiny
        p1 = rng.choice([rng.random(), rng.random() ** 4, 1.0, 0.1, 0.3, 0.7])
        p2 = rng.choice([rng.random(), rng.random() ** 4, 1.0, 0.2, 0.01])
        pt.append(f"{f} ||| {e} ||| {p1!r} 0.5 {p2!r} 0.5 ||| 0-0 ||| 1 1 1")
    pt.sort(key=lambda ln: ln.split(" ||| ")[0])  # Moses tables are sorted by source phrase
    paths = {k: out / k for k in ("pt.gz", "f.txt", "e.txt", "target.txt")}
    with gzip.open(paths["pt.gz"], "wt", encoding="utf-8") as o:
        o.write("\n".join(pt) + "\n")
    # corpora: the phrases themselves (so common words are common) plus filler
    with open(paths["e.txt"], "w", encoding="utf-8") as o:
        for (_f, e) in lines:
            o.write(e + "\n")
        for _ in range(n_lines):
            o.write(" ".join(rng.choice(e_vocab) for _ in range(8)) + "\n")
    with open(paths["f.txt"], "w", encoding="utf-8") as o:
        for (f, _e) in lines:
            o.write(f + "\n")
        for _ in range(n_lines):
            o.write(" ".join(rng.choice(f_vocab) for _ in range(8)) + "\n")
    with open(paths["target.txt"], "w", encoding="utf-8") as o:
        for e in rng.sample(e_phrases, len(e_phrases) // 2):
            o.write(f"{rng.choice(e_vocab)} {e} {rng.choice(e_vocab)}\n")
    return {k: str(v) for k, v in paths.items()}


def plain_copy(path: str, run_dir: Path) -> str:
    """``path`` itself if it is plain text, else a decompressed copy in ``run_dir``."""
    with open(path, "rb") as f:
        if f.read(2) != b"\x1f\x8b":
            return path
    out = run_dir / (Path(path).name.replace(".gz", "") + ".plain")
    with gzip.open(path, "rb") as src, open(out, "wb") as dst:
        while True:
            block = src.read(1 << 20)
            if not block:
                break
            dst.write(block)
    return str(out)


def run_parex(f_corpus: str, e_corpus: str, pt: str, target: str, outdir: Path, opts: PivotOptions,
              heap: str) -> Dict[str, Any]:
    """Run the jar's ``Parex`` (positional arguments as documented above); its wall seconds and command."""
    args = [f_corpus, e_corpus, pt, target, str(outdir), repr(opts.min_trans_prob), repr(opts.min_rel_freq)]
    cmd = jarmod.jar_class_command("Parex", args, heap=heap)
    t0 = time.time()
    r = jarmod.run_jar_class("Parex", args, heap=heap)
    if r.returncode != 0 or not (outdir / "paraphrase.gz").exists():
        raise ParexCompareError(f"Parex failed ({r.returncode}): {r.stderr[-2000:]}")
    return {"seconds": round(time.time() - t0, 2), "cmd": " ".join(cmd)}


def compare(ours: Sequence[Pair], theirs: Sequence[Pair]) -> Dict[str, Any]:
    """Pairs in both / only one, bit-identical probabilities, largest relative difference, line order."""
    d_ours = {(a, b): p for a, b, p in ours}
    d_theirs = {(a, b): p for a, b, p in theirs}
    both = d_ours.keys() & d_theirs.keys()
    identical = sum(1 for k in both if d_ours[k] == d_theirs[k])
    max_rel = max((abs(d_ours[k] - d_theirs[k]) / abs(d_theirs[k]) for k in both if d_theirs[k]), default=0.0)
    return {
        "pairs_parex": len(d_theirs),
        "pairs_ours": len(d_ours),
        "in_both": len(both),
        "only_parex": len(d_theirs.keys() - d_ours.keys()),
        "only_ours": len(d_ours.keys() - d_theirs.keys()),
        "prob_bit_identical": identical,
        "max_relative_difference": max_rel,
        "same_line_order": [(a, b) for a, b, _ in ours] == [(a, b) for a, b, _ in theirs],
        "examples_only_parex": sorted(d_theirs.keys() - d_ours.keys())[:5],
        "examples_only_ours": sorted(d_ours.keys() - d_theirs.keys())[:5],
    }


@dataclass
class ParexInputs:
    """The inputs of one comparison: given files, or ``generate`` lines of random ones."""

    phrase_table: Optional[str] = None
    f_corpus: Optional[str] = None
    e_corpus: Optional[str] = None
    target: Optional[str] = None
    generate: Optional[int] = None
    seed: int = 1


def prepare_inputs(inputs: ParexInputs, run_dir: Path) -> Tuple[str, str, str, str]:
    """Phrase table, f corpus, e corpus, target corpus as Parex reads them (plain text corpora, gzipped table).

    Raises :class:`ValueError` (a usage error) when the inputs are incomplete or the table is not gzipped.
    """
    if inputs.generate:
        paths = generate(run_dir, inputs.generate, inputs.seed)
        return paths["pt.gz"], paths["f.txt"], paths["e.txt"], paths["target.txt"]
    if not (inputs.phrase_table and inputs.f_corpus and inputs.e_corpus and inputs.target):
        raise ValueError("give --generate N, or all of --phrase-table --f-corpus --e-corpus --target")
    pt = inputs.phrase_table
    # Parex reads its corpora as plain text: decompress gzip ones (the phrase table must be gzip)
    fc, ec, tc = (plain_copy(p, run_dir) for p in (inputs.f_corpus, inputs.e_corpus, inputs.target))
    with open(pt, "rb") as f:
        if f.read(2) != b"\x1f\x8b":
            raise ValueError("Parex reads the phrase table gzipped: give a .gz file")
    return pt, fc, ec, tc


def run_parex_compare(inputs: ParexInputs, opts: PivotOptions, heap: str = "8G",
                      work: Path = BENCH_OUT / "parex-compare", json_out: Optional[Path] = None) -> int:
    """Run Parex and :func:`parex` on the same inputs, print the JSON report; exit status 0 when they agree."""
    work.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=work))
    pt, fc, ec, tc = prepare_inputs(inputs, run_dir)
    parex_out = run_dir / "parex"
    jr = run_parex(fc, ec, pt, tc, parex_out, opts, heap)
    theirs = list(read_parex_table(parex_out / "paraphrase.gz"))

    stats = PivotStats()
    t0 = time.time()
    ours = list(parex(pt, fc, ec, tc, opts, stats=stats, progress=sys.stderr.isatty()))
    secs = time.time() - t0
    write_parex_table(run_dir / "ours.paraphrase.gz", ours)

    comparison = compare(ours, theirs)
    report = {
        "inputs": {"phrase_table": pt, "f_corpus": fc, "e_corpus": ec, "target": tc},
        "options": {"min_trans_prob": opts.min_trans_prob, "min_rel_freq": opts.min_rel_freq,
                    "min_final_prob": opts.min_final_prob, "memory_mb": opts.memory_mb, "engine": opts.engine},
        "parex": jr,
        "ours_seconds": round(secs, 2),
        "ours_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "stats": stats.as_dict(),
        "common_words_equal": {
            "e": set((parex_out / "parex.e").read_text(encoding="utf-8").split()) == common_words(ec, opts.min_rel_freq),
            "f": set((parex_out / "parex.f").read_text(encoding="utf-8").split()) == common_words(fc, opts.min_rel_freq),
        },
        "comparison": comparison,
    }
    text = json.dumps(report, indent=2, ensure_ascii=False, default=str)
    print(text)
    if json_out:
        Path(json_out).write_text(text + "\n", encoding="utf-8")
    ok = comparison["only_parex"] == 0 and comparison["only_ours"] == 0 and comparison["prob_bit_identical"] == comparison["in_both"]
    return 0 if ok else 1
