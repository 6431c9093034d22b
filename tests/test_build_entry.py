"""``meteor-build`` without the build extra: one line naming the extra, exit code 1, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_missing_build_extra_is_one_line(tmp_path: Path) -> None:
    # A module finder that refuses typer stands in for a plain install without the build extra.
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class _NoTyper:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'typer' or name.startswith('typer.'):\n"
        "            raise ModuleNotFoundError(f\"No module named '{name}'\", name=name)\n"
        "sys.meta_path.insert(0, _NoTyper())\n"
    )
    code = "from meteor_lite_builders.entry import main; main()"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    r = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        "meteor-build: error: the builders need the 'build' extra (module 'typer' is missing): pip install 'meteor-lite[build]'"
    ]


def test_with_the_extra_it_runs() -> None:
    r = subprocess.run([sys.executable, "-c", "from meteor_lite_builders.entry import main; main()", "--help"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "import-official" in r.stdout, r.stderr
