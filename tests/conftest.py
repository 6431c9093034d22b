"""Shared test fixtures and the ``java`` / ``slow`` markers.

Tiers (see the README's Tests section): plain tests need neither Java nor the
shared data; ``@pytest.mark.java`` tests run the official Meteor 1.5 jar and are
skipped, with the reason, when ``java`` or the jar (pycocoevalcap, build extra)
is missing; ``@pytest.mark.slow`` tests take more than a few seconds
(deselect them with ``-m "not slow"``).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from typing import Iterator, Optional

import pytest

#: The project root (the directory holding pyproject.toml).
ROOT = Path(__file__).resolve().parent.parent
#: The shared data beside the project (``../shared/data``); tests that need it skip when it is absent.
SHARED_DATA = ROOT.parent / "shared" / "data"
#: Where ``make bundles`` puts the bundles.
BUNDLE_DIR = ROOT / "resources" / "bundles"
#: Test fixtures checked into the repository.
FIXTURE_DIR = Path(__file__).resolve().parent / "fixtures"


def java_missing_reason() -> Optional[str]:
    """Why the jar cannot run here (no java, no pycocoevalcap), or None when it can."""
    if not (os.environ.get("METEOR_JAVA") or shutil.which("java")):
        return "needs java (the official Meteor 1.5 jar is a Java program); not found on PATH"
    if importlib.util.find_spec("pycocoevalcap") is None:
        return "needs the official Meteor 1.5 jar (pycocoevalcap, build extra), which is not installed"
    return None


#: The test files that take longest (tens of seconds each on two cores), longest first.  They are run before the
#: others, so that the workers of ``make test`` (pytest-xdist, one file to a worker) share out the short files at
#: the end instead of one worker finishing a long file alone.  Only the order of files changes.
LONG_FILES = (
    "test_stem_fixtures.py", "test_spark.py", "test_docs.py", "test_bad_inputs.py", "test_tune_shipped.py",
    "test_accel.py", "test_recipes.py", "test_official_install.py", "test_spark_executors.py",
)


def pytest_collection_modifyitems(items: "list[pytest.Item]") -> None:
    """Put the tests of :data:`LONG_FILES` first (a stable sort: every file keeps its own order)."""
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip ``java``-marked tests, saying why, where the jar cannot run."""
    if item.get_closest_marker("java") is not None:
        reason = java_missing_reason()
        if reason is not None:
            pytest.skip(reason)


@pytest.fixture(scope="session", autouse=True)
def _verified_bundle_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Keep the bundles the tests build out of the user's cache of verified bundles.

    The session gets its own cache (``METEOR_LITE_CACHE_DIR``), seeded with the user's
    entries for ``resources/bundles`` so that those are not verified again in every session.
    """
    if os.environ.get("METEOR_LITE_CACHE_DIR"):
        return
    from meteor_lite.resources.integrity import cache_file

    user = cache_file()
    session = tmp_path_factory.mktemp("meteor-lite-cache")
    try:
        lines = [line for line in user.read_text(encoding="utf-8").splitlines() if line.startswith(f"{BUNDLE_DIR}/")]
    except OSError:
        lines = []
    (session / user.name).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    os.environ["METEOR_LITE_CACHE_DIR"] = str(session)


@pytest.fixture(scope="session", autouse=True)
def _own_user_bundle_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Give the session (each ``pytest -n`` worker) its own empty user bundle directory.

    ``$XDG_DATA_HOME`` points into the session's temporary directory, so that no test reads the
    user's installed bundles or writes beside them, and parallel workers never share one.  Tests
    that need another one still set their own (``monkeypatch.setenv``).
    """
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("xdg-data"))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The project root."""
    return ROOT


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``; the test is skipped when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"needs the shared data ({SHARED_DATA})")
    return SHARED_DATA


@pytest.fixture(scope="session")
def bundle_dir() -> Path:
    """``resources/bundles`` (the bundles ``make bundles`` builds)."""
    return BUNDLE_DIR


@pytest.fixture(scope="session")
def fixture_dir() -> Path:
    """``tests/fixtures``."""
    return FIXTURE_DIR


@pytest.fixture()
def en_bundle() -> Path:
    """The default English bundle (``make bundles``); the test is skipped when it has not been built."""
    path = BUNDLE_DIR / "en.sqlite"
    if not path.is_file():
        pytest.skip(f"needs {path} (make bundles)")
    return path


@pytest.fixture()
def tiny_bundle(tmp_path: Path) -> Path:
    """A tiny English bundle: function words, a few synsets, one exception, three paraphrases."""
    from tiny_bundles import make_tiny_bundle

    return make_tiny_bundle(tmp_path / "tiny.sqlite")


@pytest.fixture()
def empty_bundle(tmp_path: Path) -> Path:
    """A bundle with no resources (no function words, as in the 2005 metric)."""
    from tiny_bundles import make_empty_bundle

    return make_empty_bundle(tmp_path / "empty.sqlite")


@pytest.fixture()
def shipped_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A scratch shipped-sets file the scorer reads instead of meteor_lite/tuned_tasks.json."""
    path = tmp_path / "tuned_tasks.json"
    from meteor_lite import tuned

    monkeypatch.setattr(tuned, "SHIPPED_FILE", path)
    tuned._cached.cache_clear()
    yield path
    tuned._cached.cache_clear()


@pytest.fixture()
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user bundle directory ($XDG_DATA_HOME/meteor-lite/bundles, not created) and no
    $METEOR_LITE_BUNDLE_PATH (tests/test_install.py has its own, which also hides packs and the checkout)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("METEOR_LITE_BUNDLE_PATH", raising=False)
    return tmp_path / "xdg" / "meteor-lite" / "bundles"
