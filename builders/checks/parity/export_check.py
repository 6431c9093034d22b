"""Show that a bundle exported with ``meteor-build export`` works in the official Meteor 1.5 jar.

1. Exports the bundle (default: ``resources/bundles/en.sqlite``, the import of the official release)
   with :func:`meteor_lite_builders.export.meteor_files.export_bundle`.
2. For the official English bundle, compares the exported files with the jar's own
   (``function/english.words``, ``synonym/english.synsets``/``.exceptions`` inside the jar,
   ``data/paraphrase-en.gz``): the same function words, the same words with the same synset ids and
   the same base forms with the same inflected forms (line by line, as sets), the same paraphrase
   table byte for byte once decompressed (when the bundle stores the probabilities, see
   ``--keep-probabilities``; otherwise the same phrase and paraphrase lines, the probability lines
   holding the export's placeholder).
3. Scores ``HYP`` against ``REF`` with the jar twice: with its own resources
   (``-l en -norm``) and with the exported files (``-s DIR/function.words -d DIR -a DIR/paraphrase.gz``),
   and compares the two outputs: every segment score, the statistics block and the final score.

Exits 0 when everything is identical, 1 otherwise, 2 when Java or the jar is missing.

    meteor-build check export [--bundle resources/bundles/en.sqlite] [--out DIR]
        [--hyp ../shared/data/meteor-example/system1.hyp] [--ref ../shared/data/meteor-example/reference]
        [-- JAR OPTIONS (default: -l en -norm)]
"""

from __future__ import annotations

import gzip
import itertools
import json
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from ... import jar as jarmod
from ..paths import DEFAULT_DATA_DIR, JAR_LOCK_PATH, ROOT
from .jar_output import parse_score_output
from .oracle import run_scorer_locked

log = logging.getLogger(__name__)

DATA = DEFAULT_DATA_DIR
DEFAULT_BUNDLE = ROOT / "resources" / "bundles" / "en.sqlite"
DEFAULT_HYP = DATA / "meteor-example" / "system1.hyp"
DEFAULT_REF = DATA / "meteor-example" / "reference"
DEFAULT_JAR_OPTIONS = ("-l", "en", "-norm")


def _pairs_file(lines: Sequence[str]) -> Dict[str, FrozenSet[str]]:
    """Meteor's alternating-lines files (key line, then a line of space-separated values) as key -> set."""
    if len(lines) % 2:
        raise ValueError("odd number of lines")
    return {lines[i]: frozenset(lines[i + 1].split()) for i in range(0, len(lines), 2)}


def compare_files(out: Path, jar: Path) -> List[Tuple[str, bool, str]]:
    """Exported English files vs the jar's own: (what, identical?, detail)."""
    res: List[Tuple[str, bool, str]] = []
    theirs_fw = set(jarmod.read_jar_text("function/english.words", jar=jar).split("\n")) - {""}
    theirs_syn = jarmod.read_jar_text("synonym/english.synsets", jar=jar).split("\n")[:-1]
    theirs_exc = jarmod.read_jar_text("synonym/english.exceptions", jar=jar).split("\n")[:-1]
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
    res.append(_compare_paraphrases(out))
    return res


def _compare_paraphrases(out: Path) -> Tuple[str, bool, str]:
    """The exported ``paraphrase.gz`` vs the jar's: the decompressed bytes when the bundle stores the
    probabilities; otherwise every phrase and paraphrase line (the probability lines hold the placeholder)."""
    official = jarmod.paraphrase_file("en")
    manifest = json.loads((out / "export.json").read_text(encoding="utf-8"))
    stored = manifest.get("paraphrase_probabilities", "stored") == "stored"
    t0 = time.perf_counter()
    size = 0
    same = True
    with gzip.open(out / "paraphrase.gz", "rb") as f1, gzip.open(official, "rb") as f2:
        if stored:
            while True:
                x, y = f1.read(1 << 20), f2.read(1 << 20)
                size += len(x)
                if x != y:
                    same = False
                    break
                if not x:
                    break
        else:
            for i, (x, y) in enumerate(itertools.zip_longest(f1, f2)):
                size += len(x or b"")
                if x != y and (i % 3 or x is None or y is None):
                    same = False
                    break
    what = "paraphrase table (decompressed bytes)" if stored else (
        "paraphrase table (phrase and paraphrase lines; the bundle stores no probabilities: "
        f"{manifest.get('paraphrase_probabilities')})"
    )
    return what, same, f"{size / 1e6:.1f} MB compared in {time.perf_counter() - t0:.1f} s"


def _compare_scores(hyp: Path, ref: Path, jar_options: Sequence[str], exported: Sequence[str]) -> bool:
    """Step 3: the jar with its own resources and with the exported ones; True if the scores agree."""
    own_args = [str(hyp), str(ref), *jar_options]
    exp_args = [*own_args, *exported]
    print("jar, own resources:      " + " ".join(jarmod.jar_command(own_args)[1:]))
    own_text, own_s = run_scorer_locked(own_args, JAR_LOCK_PATH)
    print("jar, exported resources: " + " ".join(jarmod.jar_command(exp_args)[1:]))
    exp_text, exp_s = run_scorer_locked(exp_args, JAR_LOCK_PATH)
    own, exp = parse_score_output(own_text), parse_score_output(exp_text)
    n = len(own["segments"])
    differ = [i + 1 for i, (a, b) in enumerate(zip(own["segments"], exp["segments"])) if a != b]
    same_stats = own["stats"] == exp["stats"]
    same_output = own_text == exp_text
    print(f"  segments: {n} vs {len(exp['segments'])}; segment scores differing: {len(differ)}"
          + (f" (first: {differ[:5]})" if differ else ""))
    print(f"  statistics block identical: {same_stats}; whole output identical: {same_output}")
    print(f"  final score: own {own['final_text']}  exported {exp['final_text']}  ({own_s:.1f} s / {exp_s:.1f} s)")
    if not same_output:
        print("  (outputs differ outside the scores: header lines)")
    return not differ and same_stats and len(own["segments"]) == len(exp["segments"]) and own["final_text"] == exp["final_text"]


def run_export_check(bundle: Path = DEFAULT_BUNDLE, out: Optional[Path] = None, hyp: Path = DEFAULT_HYP,
                     ref: Path = DEFAULT_REF, jar_options: Sequence[str] = DEFAULT_JAR_OPTIONS,
                     file_comparison: bool = True) -> int:
    """Export ``bundle``, compare its files with the jar's, score with both; exit status 0 identical, 1 not, 2 no Java/jar."""
    try:
        jarmod.find_java()
        jar = jarmod.find_jar()
    except jarmod.JarError as exc:
        log.error("export_check: %s", exc)
        return 2
    from ...export.meteor_files import export_bundle

    tmp = None
    if out is None:
        tmp = tempfile.TemporaryDirectory(prefix="meteor-export-")
        out = Path(tmp.name)
    ok = True
    try:
        t0 = time.perf_counter()
        result = export_bundle(bundle, out, show_progress=sys.stderr.isatty())
        print(f"exported {bundle} to {out} in {time.perf_counter() - t0:.1f} s:")
        for f in result.files:
            print(f"  {f.name:22} {f.rows:>9,} entries  sha256 {f.sha256[:16]}")
        if file_comparison and result.language_name == "english":
            print("exported files vs the jar's own:")
            for what, same, detail in compare_files(out, jar):
                ok &= same
                print(f"  {'same' if same else 'DIFFERENT':9} {what}: {detail}")
        ok &= _compare_scores(hyp, ref, list(jar_options), result.jar_options())
    finally:
        if tmp is not None:
            tmp.cleanup()
    print("IDENTICAL" if ok else "DIFFERENT")
    return 0 if ok else 1
