"""Resource packs: ``meteor-build pack`` writes a wheel; installed in a fresh venv, the scorer finds its bundle.

The venv test builds the project wheel and a pack wheel of a tiny bundle, installs both with
``--no-index --no-deps`` into a new virtual environment outside the checkout (snowballstemmer is
made importable through a ``.pth`` file pointing at a directory with a link to this venv's copy:
no network), and runs ``meteor-lite score`` there from an empty directory with an empty home.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Dict, List

import pytest

from meteor_lite import Meteor
from meteor_lite.jarcompat import java_double
from meteor_lite_builders.packs import write_pack
from tiny_bundles import make_tiny_bundle

ROOT = Path(__file__).resolve().parent.parent
HYP = "the big car is here\nwe get rid of it\nmice are small\n"
REF = "the large automobile is here\nwe remove it\na mouse is small\n"


def test_pack_wheel_layout_record_and_determinism(tmp_path: Path) -> None:
    bundle = make_tiny_bundle(tmp_path / "en.sqlite")
    a = write_pack(bundle, tmp_path / "a")
    b = write_pack(bundle, tmp_path / "b")
    assert a.path.name == "meteor_lite_pack_en-0.0.1-py3-none-any.whl" and a.dist == "meteor_lite_pack_en"
    assert a.path.read_bytes() == b.path.read_bytes()  # deterministic
    with zipfile.ZipFile(a.path) as zf:
        names = zf.namelist()
        assert names[:2] == ["meteor_lite_pack_en/__init__.py", "meteor_lite_pack_en/en.sqlite"]
        info = "meteor_lite_pack_en-0.0.1.dist-info"
        assert names[2:] == [f"{info}/METADATA", f"{info}/WHEEL", f"{info}/entry_points.txt", f"{info}/RECORD"]
        assert all(i.date_time == (1980, 1, 1, 0, 0, 0) and i.compress_type == zipfile.ZIP_DEFLATED for i in zf.infolist())
        assert zf.read("meteor_lite_pack_en/en.sqlite") == bundle.read_bytes()
        assert zf.read(f"{info}/entry_points.txt").decode() == "[meteor_lite.bundles]\nen = meteor_lite_pack_en\n"
        meta = zf.read(f"{info}/METADATA").decode()
        assert "Name: meteor_lite_pack_en\nVersion: 0.0.1\n" in meta and "Requires-Dist" not in meta
        rows = list(csv.reader(io.StringIO(zf.read(f"{info}/RECORD").decode())))
        record: Dict[str, List[str]] = {r[0]: r[1:] for r in rows}
        assert set(record) == set(names) and record[f"{info}/RECORD"] == ["", ""]
        for name in names[:-1]:
            data = zf.read(name)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert record[name] == [f"sha256={digest}", str(len(data))], name


def test_pack_command(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from meteor_lite_builders.cli import app

    bundle = make_tiny_bundle(tmp_path / "de-extra.sqlite", language="de")
    r = CliRunner().invoke(app, ["pack", str(bundle), "--out", str(tmp_path / "w"), "--pack-version", "2.0"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "w" / "meteor_lite_pack_de_extra-2.0-py3-none-any.whl").is_file()
    assert "pip install" in r.stdout
    bad = CliRunner().invoke(app, ["pack", str(bundle), "--out", str(tmp_path / "w"), "--pack-version", "v 2"])
    assert bad.exit_code == 1 and "not a valid package version" in bad.output


def _run(cmd: List[str], **kw: object) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)  # type: ignore[call-overload]


def _project_wheel(out: Path, work: Path) -> Path:
    """The project's wheel, built offline from a copy of the sources (nothing is written into the checkout)."""
    src = work / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "meteor_lite", src / "meteor_lite", ignore=ignore)
    shutil.copytree(ROOT / "builders", src / "builders", ignore=ignore)
    shutil.copytree(ROOT / "resources" / "recipes", src / "resources" / "recipes")  # the wheel's recipes.data package
    r = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(out), str(src)])
    assert r.returncode == 0, r.stderr
    (wheel,) = out.glob("meteor_lite-*.whl")
    return wheel


def _venv(where: Path) -> Path:
    """A new venv without pip; snowballstemmer importable through a .pth (no network)."""
    r = _run([sys.executable, "-m", "venv", "--without-pip", str(where)])
    assert r.returncode == 0, r.stderr
    py = where / "bin" / "python"
    site = _run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    import snowballstemmer

    links = where.parent / "links"
    links.mkdir(exist_ok=True)
    link = links / "snowballstemmer"
    if not link.exists():
        link.symlink_to(Path(snowballstemmer.__file__).parent)
    (Path(site) / "outer-snowballstemmer.pth").write_text(f"{links}\n")
    return py


def _pip(py: Path, *args: str) -> None:
    r = _run([sys.executable, "-m", "pip", "--python", str(py), *args])
    assert r.returncode == 0, r.stderr


def test_pack_installed_in_a_fresh_venv_is_found(tmp_path_factory: pytest.TempPathFactory) -> None:
    work = tmp_path_factory.mktemp("packs")
    assert ROOT not in work.parents
    bundle = make_tiny_bundle(work / "en.sqlite")
    wheels = work / "wheels"
    pack = write_pack(bundle, wheels).path
    project = _project_wheel(wheels, work)
    py = _venv(work / "venv")
    _pip(py, "install", "--no-index", "--no-deps", "-q", str(project), str(pack))
    cwd, home = work / "cwd", work / "home"
    cwd.mkdir()
    home.mkdir()
    (cwd / "hyp.txt").write_text(HYP)
    (cwd / "ref.txt").write_text(REF)
    env = {k: v for k, v in os.environ.items() if k not in ("METEOR_LITE_BUNDLE_PATH", "XDG_DATA_HOME", "PYTHONPATH")}
    env["HOME"] = str(home)
    exe = str(py.parent / "meteor-lite")
    r = _run([exe, "score", "hyp.txt", "ref.txt", "--lang", "en", "-q"], cwd=cwd, env=env)
    assert r.returncode == 0, r.stderr
    expected = Meteor("en", bundle=bundle, quiet=True).score_corpus(HYP.splitlines(), [REF.splitlines()])
    assert r.stdout.strip() == java_double(expected.score)
    listed = _run([exe, "bundle", "list"], cwd=cwd, env=env)
    assert listed.stdout.startswith("* en ") and "[pack meteor_lite_pack_en]" in listed.stdout
    refused = _run([exe, "bundle", "remove", "en"], cwd=cwd, env=env)
    assert refused.returncode == 1 and "pip uninstall meteor_lite_pack_en" in refused.stderr
    timing = _run([str(py), "-X", "importtime", "-m", "meteor_lite.cli", "score", "hyp.txt", "ref.txt", "-q"], cwd=cwd, env=env)
    imported = {ln.split("|")[-1].strip() for ln in timing.stderr.splitlines() if ln.startswith("import time:")}
    unused = {"typer", "click", "rich", "meteor_lite_builders", "meteor_lite_pack_en", "shutil", "urllib.request", "zipfile"}
    assert not unused & imported, sorted(unused & imported)

    _pip(py, "uninstall", "-y", "-q", "meteor_lite_pack_en")
    gone = _run([exe, "score", "hyp.txt", "ref.txt", "--lang", "en"], cwd=cwd, env=env)
    assert gone.returncode == 1 and gone.stdout == ""
    assert gone.stderr.startswith("meteor-lite: error: no resource bundle found for English")
    assert "meteor-lite bundle install en" in gone.stderr and "make bundles" not in gone.stderr
