"""Executors that cannot import meteor-lite: ``score_dataframe(...).collect()`` gives the same one-line
:class:`ConfigError` as ``corpus_score`` (a local Spark session whose workers run the system's Python)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="needs pyspark (the spark extra)")

BARE = shutil.which("python3", path="/usr/bin")

CHILD = r'''
import os, sys
os.environ["PYSPARK_PYTHON"] = sys.argv[1]
from pyspark.sql import SparkSession
from meteor_lite.spark import corpus_score, score_dataframe
s = (SparkSession.builder.master("local[1]").appName("bare executors").config("spark.ui.enabled", "false")
     .config("spark.ui.showConsoleProgress", "false").getOrCreate())
s.sparkContext.setLogLevel("OFF")
df = s.createDataFrame([("a b", "a b"), ("c", "d")], ["hyp", "ref"])
for name, f in (("corpus_score", lambda: corpus_score(df, bundle=sys.argv[2], modules=["exact"])),
                ("score_dataframe", lambda: score_dataframe(df, bundle=sys.argv[2], modules=["exact"]).collect())):
    try:
        f()
        print(name + "\tnone\t")
    except Exception as exc:
        print(name + "\t" + type(exc).__name__ + "\t" + str(exc).replace("\n", "\\n"))
s.stop()
'''


def _bare_python_lacks_meteor_lite() -> bool:
    if BARE is None:
        return False
    probe = subprocess.run([BARE, "-I", "-c", "import snowballstemmer, meteor_lite"], capture_output=True, cwd="/")
    return probe.returncode != 0


@pytest.mark.skipif(shutil.which("java") is None, reason="Spark needs java")
@pytest.mark.skipif(not _bare_python_lacks_meteor_lite(), reason="needs a system python3 without meteor-lite")
def test_score_dataframe_on_bare_executors_is_the_corpus_score_error(tmp_path: Path) -> None:
    from tiny_bundles import make_tiny_bundle

    bundle = make_tiny_bundle(tmp_path / "tiny.sqlite")
    out = subprocess.run([sys.executable, "-c", CHILD, str(BARE), str(bundle)], capture_output=True, text=True,
                         timeout=600, cwd=tmp_path)
    rows = dict(line.split("\t", 1) for line in out.stdout.splitlines() if "\t" in line)
    assert set(rows) == {"corpus_score", "score_dataframe"}, out.stdout + out.stderr[-3000:]
    assert rows["corpus_score"].startswith("ConfigError\ton an executor: its Python cannot import "), rows
    assert rows["score_dataframe"] == rows["corpus_score"]
    assert "\\n" not in rows["score_dataframe"]
