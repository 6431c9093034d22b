"""A ``spark-submit`` script: score a table of hypotheses and references (Parquet, CSV, JSON) on a Spark cluster.

::

    spark-submit --master yarn "$(python -c 'import meteor_lite.spark.submit as s; print(s.__file__)')" \\
        hdfs:///data/pairs.parquet --lang en --norm --hyp-col hyp --ref-col ref --out hdfs:///data/scored.parquet

prints the corpus score (Meteor's number format) and the signature; with ``--out`` also writes the table
with the score columns of :func:`meteor_lite.spark.score_dataframe` as Parquet (scoring the rows a second
time).  Options as ``meteor-lite score``'s.  docs/spark.md has the set-up of the executors.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Dict, List, Optional

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="meteor_lite/spark/submit.py", description=__doc__.split("\n\n")[0])
    p.add_argument("input", help="table to score (Parquet directory or file; CSV or JSON with --input-format)")
    p.add_argument("--input-format", default="parquet", choices=("parquet", "csv", "json"))
    p.add_argument("--lang", "-l", default="en")
    p.add_argument("--hyp-col", default="hyp")
    p.add_argument("--ref-col", action="append", help="reference column (repeat for several; default: ref)")
    p.add_argument("--out", help="write the table with its score columns here (Parquet)")
    p.add_argument("--bundle", help="bundle path (on storage every node sees) or name (default: the language's)")
    p.add_argument("--ship-bundle", action="store_true", help="send the bundle file to the executors with the job")
    p.add_argument("--task", "-t")
    p.add_argument("--params", "-p", help="'alpha beta gamma delta'")
    p.add_argument("--modules", "-m", help="e.g. 'exact stem'")
    p.add_argument("--weights", "-w")
    p.add_argument("--beam", "-x", type=int, default=40)
    for flag in ("--norm", "--lower", "--no-punct", "--case-aware", "--ch"):
        p.add_argument(flag, action="store_true")
    p.add_argument("--tokenize")
    return p


def _options(a: argparse.Namespace) -> Dict[str, Any]:
    def floats(s: Optional[str]) -> Optional[List[float]]:
        return [float(x) for x in s.replace(",", " ").split()] if s else None

    return {"task": a.task, "params": floats(a.params), "weights": floats(a.weights),
            "modules": a.modules.replace(",", " ").split() if a.modules else None, "beam": a.beam, "norm": a.norm,
            "lower": a.lower, "no_punct": a.no_punct, "case_aware": a.case_aware, "char_based": a.ch,
            "tokenize": a.tokenize, "bundle": a.bundle}


def main(argv: Optional[List[str]] = None) -> int:
    """Run the job; return the exit code (1: a meteor-lite error, printed in one line)."""
    a = _parser().parse_args(argv)
    from pyspark.sql import SparkSession

    from meteor_lite.errors import MeteorLiteError
    from meteor_lite.jarcompat import java_double
    from meteor_lite.spark import corpus_score, score_dataframe  # absolute: spark-submit runs this file as a script

    spark = SparkSession.builder.appName("meteor-lite score").getOrCreate()
    reader = spark.read.option("header", "true") if a.input_format == "csv" else spark.read
    df = getattr(reader, a.input_format)(a.input)
    refs = a.ref_col or ["ref"]
    opts = _options(a)
    try:
        if a.out:
            score_dataframe(df, a.lang, hyp_col=a.hyp_col, ref_cols=refs, ship_bundle=a.ship_bundle, **opts) \
                .write.mode("overwrite").parquet(a.out)
        result = corpus_score(df, a.lang, hyp_col=a.hyp_col, ref_cols=refs, segments=False,
                              ship_bundle=a.ship_bundle, **opts)
    except MeteorLiteError as exc:
        print(f"meteor-lite: error: {exc}", file=sys.stderr)
        return 1
    print(f"Final score:            {java_double(result.score)}")
    print(f"Signature:              {result.signature}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
