"""setup.py: the wheel carries the compiled kernels when a compiler is there, and is pure Python (saying so) when not."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from typing import Dict, List

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _sources(work: Path) -> Path:
    src = work / "src"
    src.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md", "setup.py", "MANIFEST.in"):
        shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so")
    shutil.copytree(ROOT / "meteor_lite", src / "meteor_lite", ignore=ignore)
    shutil.copytree(ROOT / "builders", src / "builders", ignore=ignore)
    shutil.copytree(ROOT / "resources" / "recipes", src / "resources" / "recipes")  # the wheel's recipes.data package
    return src


def _wheel(src: Path, out: Path, env: Dict[str, str]) -> "tuple[subprocess.CompletedProcess[str], List[str]]":
    cmd = [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(out), str(src)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    if r.returncode != 0:
        return r, []
    (wheel,) = out.glob("meteor_lite-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        return r, zf.namelist()


@pytest.mark.slow
def test_wheel_compiles_the_kernels_or_falls_back_to_pure_python(tmp_path: Path) -> None:
    if shutil.which(sysconfig.get_config_var("CC").split()[0] or "cc") is None:
        pytest.skip("no C compiler here: the compiled wheel cannot be built")
    env = {k: v for k, v in os.environ.items() if k not in ("METEOR_LITE_ACCEL", "CC")}
    r, names = _wheel(_sources(tmp_path / "a"), tmp_path / "a" / "out", env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert any(n.startswith("meteor_lite/_accel.") and n.endswith((".so", ".pyd")) for n in names), names
    assert any(n.startswith("meteor_lite/stemmers/_english.") and n.endswith((".so", ".pyd")) for n in names), names
    from meteor_lite.accel import accel_sources
    from meteor_lite.stemmers.compiled import SOURCES  # the stale-build check needs the sources beside the module

    assert {f"meteor_lite/{p.relative_to(ROOT / 'meteor_lite')}" for p in accel_sources(ROOT / "meteor_lite")} <= set(names)

    assert {f"meteor_lite/stemmers/{rel}" for rel in SOURCES} <= set(names)
    assert {"meteor_lite/stemmers/snowball_c/LICENSE", "meteor_lite/stemmers/snowball_c/README.md"} <= set(names)
    # every package of builders/ but the maintainer's checks (which stay in the repository)
    packages = {str(p.parent.relative_to(ROOT / "builders")) for p in (ROOT / "builders").rglob("__init__.py")}
    shipped = {n[len("meteor_lite_builders/"):].rsplit("/", 1)[0] for n in names if n.startswith("meteor_lite_builders/") and "/" in n[len("meteor_lite_builders/"):]}
    checks = {p for p in packages if p == "checks" or p.startswith("checks/")}
    assert {"checks", "checks/parity", "checks/bench", "checks/research"} <= checks
    assert not any(n.startswith("meteor_lite_builders/checks/") for n in names)
    assert (packages - checks - {"."}) | {"recipes/data"} == shipped, (packages, shipped)

    r, names = _wheel(_sources(tmp_path / "b"), tmp_path / "b" / "out", {**env, "CC": "/bin/false"})
    assert r.returncode == 0, r.stderr[-2000:]
    assert "meteor_lite/meteor.py" in names and not any(n.endswith((".so", ".pyd")) for n in names)
    said = [ln for ln in (r.stdout + r.stderr).splitlines() if "compiled kernels not built" in ln]
    assert len(said) == 1 and "installing pure Python" in said[0], said
    said = [ln for ln in (r.stdout + r.stderr).splitlines() if "compiled English stemmer not built" in ln]
    assert len(said) == 1 and "installing pure Python" in said[0], said

    r, names = _wheel(_sources(tmp_path / "c"), tmp_path / "c" / "out", {**env, "CC": "/bin/false", "METEOR_LITE_ACCEL": "1"})
    assert r.returncode != 0 and names == []

    r, names = _wheel(_sources(tmp_path / "d"), tmp_path / "d" / "out", {**env, "METEOR_LITE_ACCEL": "0"})
    assert r.returncode == 0 and not any(n.endswith((".so", ".pyd")) for n in names)
    assert any(n.endswith("py3-none-any.whl") for n in os.listdir(tmp_path / "d" / "out"))
