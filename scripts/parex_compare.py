#!/usr/bin/env python3
"""Compare meteor-lite's pivot with Meteor's official Parex on the same inputs.

Runs ``java -cp meteor-1.5.jar Parex F_CORPUS E_CORPUS PT TARGET OUTDIR MIN_TP MIN_RF``
and :func:`meteor_lite_builders.pivot.parex` with the same parameters, then
reports: pairs in both / only in one, pairs whose probabilities are bit-identical,
the largest relative difference, whether the line order is the same, and
whether the common-word lists agree.

Inputs are either given (``--phrase-table --f-corpus --e-corpus --target``) or
generated (``--generate N``: a random phrase table of about N lines with
common words, symbols, substrings and shared pivots, and matching corpora).

Note: Parex's 8th positional argument (documented as minFinalP) actually sets
the common-word threshold, and its final threshold is always 0.01; so this
script passes only minTP and minRF and compares at min_final_prob = 0.01.

Usage::

    .venv/bin/python scripts/parex_compare.py --generate 20000 --seed 1
    .venv/bin/python scripts/parex_compare.py --phrase-table pt.de-en.gz \\
        --f-corpus corpus.de --e-corpus corpus.en --target corpus.en
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from meteor_lite_builders.official import jar_path  # noqa: E402
from meteor_lite_builders.pivot import (  # noqa: E402
    PivotOptions,
    PivotStats,
    common_words,
    parex,
    read_parex_table,
    write_parex_table,
)


def generate(out: Path, n_lines: int, seed: int) -> dict:
    """Write a random phrase table and corpora into ``out``; return their paths."""
    rng = random.Random(seed)
    e_vocab = [f"e{i}" for i in range(3000 + n_lines // 4)] + ["the", "of", "a"]
    f_vocab = [f"f{i}" for i in range(3000 + n_lines // 4)] + ["der", "von", "ein"]
    sym = ["x,y", "z.", "(q)", "é", "naïve", "😀", "ｚ"]

    def phrase(vocab, common):
        n = rng.choice([1, 1, 1, 2, 2, 3, 4])
        toks = [rng.choice(common) if rng.random() < 0.25 else rng.choice(vocab) for _ in range(n)]
        if rng.random() < 0.03:
            toks[rng.randrange(n)] = rng.choice(sym)
        return " ".join(toks)

    pivots = [phrase(f_vocab, ["der", "von", "ein"]) for _ in range(max(10, n_lines // 6))]
    lines = set()
    pt = []
    e_phrases = []
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
    pt.sort(key=lambda l: l.split(" ||| ")[0])  # Moses tables are sorted by source phrase
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


def run_parex(f_corpus, e_corpus, pt, target, outdir: Path, opts: PivotOptions, heap: str) -> dict:
    cmd = ["java", f"-Xmx{heap}", "-cp", str(jar_path()), "Parex", f_corpus, e_corpus, pt, target, str(outdir),
           repr(opts.min_trans_prob), repr(opts.min_rel_freq)]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 or not (outdir / "paraphrase.gz").exists():
        raise SystemExit(f"Parex failed ({r.returncode}): {r.stderr[-2000:]}")
    return {"seconds": round(time.time() - t0, 2), "cmd": " ".join(cmd)}


def compare(ours, theirs) -> dict:
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--phrase-table")
    ap.add_argument("--f-corpus")
    ap.add_argument("--e-corpus")
    ap.add_argument("--target")
    ap.add_argument("--generate", type=int, help="generate a random phrase table of about N lines")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-trans-prob", type=float, default=0.001)
    ap.add_argument("--min-rel-freq", type=float, default=0.001)
    ap.add_argument("--memory-mb", type=float, default=256.0)
    ap.add_argument("--heap", default="8G", help="Java heap for Parex")
    ap.add_argument("--work", default=str(ROOT / "bench-out" / "parex-compare"))
    ap.add_argument("--json", help="write the report here too")
    args = ap.parse_args(argv)

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=work))
    if args.generate:
        paths = generate(run_dir, args.generate, args.seed)
        pt, fc, ec, tc = paths["pt.gz"], paths["f.txt"], paths["e.txt"], paths["target.txt"]
    else:
        if not all([args.phrase_table, args.f_corpus, args.e_corpus, args.target]):
            ap.error("give --generate N, or all of --phrase-table --f-corpus --e-corpus --target")
        pt, fc, ec, tc = args.phrase_table, args.f_corpus, args.e_corpus, args.target
        # Parex reads its corpora as plain text: decompress gzip ones (the phrase table must be gzip)
        fc, ec, tc = (plain_copy(p, run_dir) for p in (fc, ec, tc))
        if not open(pt, "rb").read(2) == b"\x1f\x8b":
            ap.error("Parex reads the phrase table gzipped: give a .gz file")
    opts = PivotOptions(min_trans_prob=args.min_trans_prob, min_rel_freq=args.min_rel_freq,
                        min_final_prob=0.01, memory_mb=args.memory_mb)

    parex_out = run_dir / "parex"
    jr = run_parex(fc, ec, pt, tc, parex_out, opts, args.heap)
    theirs = list(read_parex_table(parex_out / "paraphrase.gz"))

    stats = PivotStats()
    t0 = time.time()
    ours = list(parex(pt, fc, ec, tc, opts, stats=stats, progress=sys.stderr.isatty()))
    secs = time.time() - t0
    write_parex_table(run_dir / "ours.paraphrase.gz", ours)

    report = {
        "inputs": {"phrase_table": pt, "f_corpus": fc, "e_corpus": ec, "target": tc},
        "options": {"min_trans_prob": opts.min_trans_prob, "min_rel_freq": opts.min_rel_freq,
                    "min_final_prob": opts.min_final_prob, "memory_mb": opts.memory_mb},
        "parex": jr,
        "ours_seconds": round(secs, 2),
        "ours_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "stats": stats.as_dict(),
        "common_words_equal": {
            "e": set((parex_out / "parex.e").read_text(encoding="utf-8").split()) == common_words(ec, opts.min_rel_freq),
            "f": set((parex_out / "parex.f").read_text(encoding="utf-8").split()) == common_words(fc, opts.min_rel_freq),
        },
        "comparison": compare(ours, theirs),
    }
    text = json.dumps(report, indent=2, ensure_ascii=False, default=str)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    c = report["comparison"]
    ok = c["only_parex"] == 0 and c["only_ours"] == 0 and c["prob_bit_identical"] == c["in_both"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
