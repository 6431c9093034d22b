"""Where the checks read and write by default: the project tree and the shared data beside it."""

from __future__ import annotations

from pathlib import Path


def _project_root() -> Path:
    """The source tree holding ``pyproject.toml`` above this package (editable install), else the working directory."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").is_file() and (parent / "meteor_lite").is_dir():
            return parent
    return Path.cwd()


#: Project root (the checkout, for an editable install).
ROOT = _project_root()
#: The checks' output directory (gitignored).
BENCH_OUT = ROOT / "bench-out"
#: The jar results cache of :mod:`.parity.oracle`.
ORACLE_CACHE_DIR = BENCH_OUT / "oracle-cache"
#: The lock file that keeps our JVMs from running at the same time.
JAR_LOCK_PATH = ORACLE_CACHE_DIR / ".jar.lock"
#: The shared data (``../shared/data`` from the project root).
DEFAULT_DATA_DIR = ROOT.parent / "shared" / "data"
#: The test fixtures the checks regenerate.
FIXTURE_DIR = ROOT / "tests" / "fixtures"
