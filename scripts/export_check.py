#!/usr/bin/env python3
"""Show that a bundle exported with ``meteor-build export`` works in the official Meteor 1.5 jar.

1. Exports the bundle (default: ``resources/bundles/en.sqlite``, the import of the official release)
   with :func:`meteor_lite_builders.export.export_bundle`.
2. For the official English bundle, compares the exported files with the jar's own
   (``function/english.words``, ``synonym/english.synsets``/``.exceptions`` inside the jar,
   ``data/paraphrase-en.gz``): the same function words, the same words with the same synset ids and
   the same base forms with the same inflected forms (line by line, as sets), the same paraphrase
   table byte for byte once decompressed.
3. Scores ``HYP`` against ``REF`` with the jar twice: with its own resources
   (``-l en -norm``) and with the exported files (``-s DIR/function.words -d DIR -a DIR/paraphrase.gz``),
   and compares the two outputs: every segment score, the statistics block and the final score.

Exits 0 when everything is identical, 1 otherwise, 2 when Java or the jar is missing.

    .venv/bin/python scripts/export_check.py [--bundle resources/bundles/en.sqlite] [--out DIR]
        [--hyp ../shared/data/meteor-example/system1.hyp] [--ref ../shared/data/meteor-example/reference]
        [-- JAR OPTIONS (default: -l en -norm)]
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from oracle import DEFAULT_CACHE_DIR, OracleError, _run, find_jar, find_java, jar_command, parse_score_output  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"


def _pairs_file(lines: Sequence[str]) -> Dict[str, FrozenSet[str]]:
    """Meteor's alternating-lines files (key line, then a line of space-separated values) as key -> set."""
    if len(lines) % 2:
        raise ValueError("odd number of lines")
    return {lines[i]: frozenset(lines[i + 1].split()) for i in range(0, len(lines), 2)}


def compare_files(out: Path, jar: Path) -> List[Tuple[str, bool, str]]:
    """Exported English files vs the jar's own: (what, identical?, detail)."""
    res: List[Tuple[str, bool, str]] = []
    with zipfile.ZipFile(jar) as z:
        theirs_fw = set(z.read("function/english.words").decode("utf-8").split("\n")) - {""}
        theirs_syn = z.read("synonym/english.synsets").decode("utf-8").split("\n")[:-1]
        theirs_exc = z.read("synonym/english.exceptions").decode("utf-8").split("\n")[:-1]
    ours_fw = set((out / "function.words").read_text(encoding="utf-8").split("\n")) - {""}
    res.append(("function words (as a set)", ours_fw == theirs_fw, f"{len(ours_fw)} ours, {len(theirs_fw)} theirs"))
    for name, theirs in (("english.synsets", theirs_syn), ("english.exceptions", theirs_exc)):
        ours = (out / name).read_text(encoding="utf-8").split("\n")[:-1]
        same_lines = ours == theirs
        a, b = _pairs_file(ours), _pairs_file(theirs)
        res.append(
            (
                f"{name} (entries, values as sets)",
                a == b,
                f"{len(a)} entries; byte-identical: {same_lines}"
                + ("" if same_lines else f" (value order differs on {sum(1 for x, y in zip(ours, theirs) if x != y)} lines)"),
            )
        )
    official = jar.parent / "data" / "paraphrase-en.gz"
    t0 = time.perf_counter()
    with gzip.open(out / "paraphrase.gz", "rb") as f1, gzip.open(official, "rb") as f2:
        same = True
        size = 0
        while True:
            x, y = f1.read(1 << 20), f2.read(1 << 20)
            size += len(x)
            if x != y:
                same = False
                break
            if not x:
                break
    res.append(("paraphrase table (decompressed bytes)", same, f"{size / 1e6:.1f} MB compared in {time.perf_counter() - t0:.1f} s"))
    return res


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundle", type=Path, default=ROOT / "resources" / "bundles" / "en.sqlite")
    ap.add_argument("--out", type=Path, help="export directory (default: a temporary one)")
    ap.add_argument("--hyp", type=Path, default=DATA / "meteor-example" / "system1.hyp")
    ap.add_argument("--ref", type=Path, default=DATA / "meteor-example" / "reference")
    ap.add_argument("--no-file-comparison", action="store_true", help="skip step 2")
    ap.add_argument("jar_options", nargs="*", default=["-l", "en", "-norm"])
    args = ap.parse_args(argv)

    try:
        find_java()
        jar = find_jar()
    except OracleError as exc:
        print(f"export_check: {exc}", file=sys.stderr)
        return 2
    from meteor_lite_builders.export import export_bundle

    tmp = None
    out = args.out
    if out is None:
        tmp = tempfile.TemporaryDirectory(prefix="meteor-export-")
        out = Path(tmp.name)
    ok = True
    try:
        t0 = time.perf_counter()
        result = export_bundle(args.bundle, out, show_progress=sys.stderr.isatty())
        print(f"exported {args.bundle} to {out} in {time.perf_counter() - t0:.1f} s:")
        for f in result.files:
            print(f"  {f.name:22} {f.rows:>9,} entries  sha256 {f.sha256[:16]}")
        if not args.no_file_comparison and result.language_name == "english":
            print("exported files vs the jar's own:")
            for what, same, detail in compare_files(out, jar):
                ok &= same
                print(f"  {'same' if same else 'DIFFERENT':9} {what}: {detail}")

        lock = DEFAULT_CACHE_DIR / ".jar.lock"
        own_cmd = jar_command(args.hyp, args.ref, args.jar_options)
        exp_cmd = jar_command(args.hyp, args.ref, list(args.jar_options) + result.jar_options())
        print("jar, own resources:      " + " ".join(own_cmd[1:]))
        own_text, own_s = _run(own_cmd, lock)
        print("jar, exported resources: " + " ".join(exp_cmd[1:]))
        exp_text, exp_s = _run(exp_cmd, lock)
        own, exp = parse_score_output(own_text), parse_score_output(exp_text)
        n = len(own["segments"])
        differ = [i + 1 for i, (a, b) in enumerate(zip(own["segments"], exp["segments"])) if a != b]
        same_stats = own["stats"] == exp["stats"]
        same_output = own_text == exp_text
        print(f"  segments: {n} vs {len(exp['segments'])}; segment scores differing: {len(differ)}"
              + (f" (first: {differ[:5]})" if differ else ""))
        print(f"  statistics block identical: {same_stats}; whole output identical: {same_output}")
        print(f"  final score: own {own['final_text']}  exported {exp['final_text']}  ({own_s:.1f} s / {exp_s:.1f} s)")
        ok &= not differ and same_stats and len(own["segments"]) == len(exp["segments"]) and own["final_text"] == exp["final_text"]
        if not same_output:
            print("  (outputs differ outside the scores: header lines)")
    finally:
        if tmp is not None:
            tmp.cleanup()
    print("IDENTICAL" if ok else "DIFFERENT")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
