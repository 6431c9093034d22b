"""Docs that run: every example of README.md and docs/*.md is run, its output compared, or marked with the reason it
cannot run here (tests/docs_examples.py has the convention; docs/contributing.md explains it).

Each page's examples run in order in one scratch directory of the page (``../shared/data`` there is the shared
data), with the environment's ``meteor-lite`` first on the ``PATH`` and a scratch home (the user bundle directory is
empty; the checkout's bundles of ``make bundles`` are found as an editable install finds them).  A failure names the
file and line of the example.  No path of a particular machine may appear in a document.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

from docs_examples import ROOT, Example, console_steps, documents, examples, output_matches

ALL = [ex for doc in documents() for ex in examples(doc)]
RUN = [ex for ex in ALL if ex.skip is None and ex.problem is None and ex.kind in ("sh", "console", "python", "pycon")]
SHARED = ROOT.parent / "shared"
TIMEOUT = 300

#: Paths of one machine (a maintainer's work tree, a home, a scratch folder under /tmp) that no document may name.
MACHINE_PATH = re.compile(r"(?<![\w.])(/work/|/root/|/home/\w|/Users/\w|/tmp/(?!meteor-lite-<uid>|meteor-lite-1000/|\.\.\.))")

_scratch: Dict[Path, Path] = {}


def _page_dir(ex: Example, factory: pytest.TempPathFactory) -> Path:
    """The page's scratch directory: ``work/`` with ``../shared`` beside it (the shared data)."""
    if ex.path not in _scratch:
        base = factory.mktemp("docs-" + ex.path.stem)
        (base / "work").mkdir()
        (base / "home").mkdir()
        if SHARED.is_dir():
            (base / "shared").symlink_to(SHARED)
        _scratch[ex.path] = base / "work"
    return _scratch[ex.path]


def _env(work: Path) -> Dict[str, str]:
    """A fresh user's environment, except for the key of the cache of verified bundles.

    The cache itself is the session's (``METEOR_LITE_CACHE_DIR``, tests/conftest.py); its lines are signed with the
    key of the test process, so that a bundle verified once in the session is not hashed again by every page (a
    user's key stays the same from run to run; a scratch home per page would give each page a new one).
    """
    from meteor_lite.resources.integrity import ENV_KEY_FILE, key_file

    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "METEOR_LITE_BUNDLE_PATH"))}
    env[ENV_KEY_FILE] = str(key_file())
    env["HOME"] = str(work.parent / "home")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = ""
    env.pop("METEOR_LITE_DEBUG", None)
    return env


def _need_data() -> None:
    if not (SHARED / "data" / "meteor-example").is_dir():
        pytest.skip(f"needs the shared data ({SHARED / 'data'})")


def _run_shell(script: str, work: Path, where: str) -> "subprocess.CompletedProcess[str]":
    try:
        return subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=work, env=_env(work), capture_output=True,
                              text=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{where}: still running after {TIMEOUT} s: mark it <!-- docs-check: skip REASON --> if it is long")


def _show(text: str, home: Path) -> str:
    return text.replace(str(home), "~")


@pytest.mark.parametrize("ex", RUN, ids=[ex.where for ex in RUN])
def test_example_runs(ex: Example, tmp_path_factory: pytest.TempPathFactory) -> None:
    _need_data()
    work = _page_dir(ex, tmp_path_factory)
    home = work.parent / "home"
    if ex.kind == "sh":
        r = _run_shell(ex.text, work, ex.where)
        assert r.returncode == 0, f"{ex.where}: exit {r.returncode}\n{ex.text}\nstdout: {r.stdout[-1500:]}\nstderr: {r.stderr[-1500:]}"
    elif ex.kind == "console":
        for n, (cmd, expected) in enumerate(console_steps(ex.text)):
            r = _run_shell(cmd, work, ex.where)
            out = _show(r.stdout + r.stderr if "2>&1" in cmd else r.stdout, home)
            assert r.returncode == 0, f"{ex.where}, command {n + 1}: exit {r.returncode}: {cmd}\n{r.stderr[-1500:]}"
            assert output_matches(expected, out), f"{ex.where}, command {n + 1}: {cmd}\nexpected:\n{expected}\ngot:\n{out}"
    elif ex.kind == "python":
        r = subprocess.run([sys.executable, "-c", ex.text], cwd=work, env=_env(work), capture_output=True, text=True,
                           timeout=TIMEOUT, check=False)
        assert r.returncode == 0, f"{ex.where}: exit {r.returncode}\n{r.stderr[-2000:]}"
    else:
        script = (f"import doctest, sys\nt = doctest.DocTestParser().get_doctest({ex.text!r}, {{}}, {ex.where!r}, {ex.where!r}, 0)\n"
                  f"r = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)\n"
                  f"r.run(t)\nsys.exit(1 if r.failures else 0)\n")
        r = subprocess.run([sys.executable, "-c", script], cwd=work, env=_env(work), capture_output=True, text=True,
                           timeout=TIMEOUT, check=False)
        assert r.returncode == 0, f"{ex.where}: the doctest failed\n{r.stdout[-3000:]}{r.stderr[-1000:]}"


def test_every_block_is_well_formed() -> None:
    """Every fence says what it is; every skip marker gives its reason."""
    bad = [f"{ex.where}: {ex.problem}" for ex in ALL if ex.problem]
    assert not bad, "\n".join(bad)


def test_no_document_names_a_path_of_one_machine() -> None:
    found: List[str] = []
    for doc in documents():
        for n, line in enumerate(doc.read_text(encoding="utf-8").split("\n"), 1):
            for m in MACHINE_PATH.finditer(line):
                found.append(f"{doc.relative_to(ROOT)}:{n}: {m.group(0)!r} in {line.strip()[:120]!r}")
    assert not found, "\n".join(found)


def test_readme_is_a_landing_page() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").split("\n")) <= 250


def test_readme_links_resolve() -> None:
    """The README's relative links name files of the checkout (the site's own links: mkdocs build --strict)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [t for t in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
               if not t.startswith(("http://", "https://")) and not (ROOT / t).exists()]
    assert not missing, missing


def test_the_check_reads_every_page() -> None:
    """A page added to docs/ is checked without being listed anywhere."""
    pages = {p.name for p in documents()}
    assert "README.md" in pages and {p.name for p in (ROOT / "docs").glob("*.md")} <= pages
    assert RUN, "no example runs"


def test_markers_and_output_matching() -> None:
    """The parts of the convention, on small inputs."""
    assert console_steps("$ echo a \\\n  b\na b\n$ true\n") == [("echo a \\\n  b", "a b"), ("true", "")]
    assert output_matches("x\n...\nFinal score: 0.3...\n", "x\ny\nz\nFinal score: 0.3204832379614146\n")
    assert not output_matches("Final score: 0.4\n", "Final score: 0.3204832379614146\n")
    assert output_matches("a\n...\nb\n", "a\nb\n")
    doc = ROOT / "docs" / "x.md"
    assert MACHINE_PATH.search("see /work/main/x") and MACHINE_PATH.search("/tmp/i14/a") and not MACHINE_PATH.search("a/tmp/x")
    assert doctest.ELLIPSIS and doc.suffix == ".md"
