"""``meteor-lite bundle install LANG``: Meteor 1.5's resources imported from pycocoevalcap into the user bundle directory."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.locate import find_bundle
from test_cli import run

needs_release = pytest.mark.skipif(
    importlib.util.find_spec("pycocoevalcap") is None, reason="needs pycocoevalcap (the official or build extra)"
)


@pytest.fixture()
def no_java(monkeypatch: pytest.MonkeyPatch) -> None:
    """Java is not found (``find_java`` raises, as on a machine without it)."""
    import meteor_lite_builders.jar as jar

    def missing() -> str:
        raise jar.JavaNotFoundError("java not found")

    monkeypatch.setattr(jar, "find_java", missing)


@needs_release
def test_install_en_places_what_import_official_builds(user_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``bundle install en`` is ``meteor-build import-official --lang en`` (make demo's bundle) put in the user directory.

    Both run on the paraphrase table's first 20,000 pairs here (the whole table takes a minute);
    ``meteor-build check languages-from-wheel`` installs the whole of it from a wheel and shows make demo's
    checksum (docs/languages.md).
    """
    import functools

    from typer.testing import CliRunner

    import meteor_lite_builders.official.importer as importer
    from meteor_lite_builders.cli import app

    built = CliRunner().invoke(app, ["import-official", "--lang", "en", "--out", str(tmp_path / "en.sqlite"),
                                     "--max-paraphrases", "20000", "--no-progress"])
    assert built.exit_code == 0, built.output
    monkeypatch.setattr(importer, "build_official_bundle",
                        functools.partial(importer.build_official_bundle, max_paraphrases=20_000))
    r = run("bundle", "install", "en")
    assert r.exit_code == 0, r.stderr
    target = user_dir / "en.sqlite"
    assert r.stdout.startswith(f"installed {target} (en 1.5.0 @")
    assert "importing Meteor 1.5's English resources from pycocoevalcap" in r.stderr
    with Bundle.open(target) as mine, Bundle.open(tmp_path / "en.sqlite") as theirs:
        assert mine.checksum == theirs.checksum and mine.verify() == []
        assert mine.counts()["paraphrases"] == 20_000
    assert find_bundle("en") == target  # the user directory comes before the checkout
    assert [p.name for p in user_dir.iterdir()] == ["en.sqlite"]  # nothing else left behind


@needs_release
def test_install_cz_needs_no_java(user_dir: Path, bundle_dir: Path, no_java: None) -> None:
    r = run("bundle", "install", "cz")
    assert r.exit_code == 0, r.stderr
    with Bundle.open(user_dir / "cz.sqlite") as b:
        assert b.language == "cz" and b.verify() == []
        if (bundle_dir / "cz.sqlite").is_file():
            with Bundle.open(bundle_dir / "cz.sqlite") as theirs:
                assert b.checksum == theirs.checksum


@needs_release
def test_install_de_is_make_bundles_bundle_without_java(user_dir: Path, bundle_dir: Path, no_java: None) -> None:
    """No stem-corrections table by default: no Java needed, no line about it, make bundles' checksum."""
    r = run("bundle", "install", "de")
    assert r.exit_code == 0, r.stderr
    assert "Java" not in r.stdout + r.stderr and "stem-corrections" not in r.stdout + r.stderr
    if not (bundle_dir / "de.sqlite").exists():
        pytest.fail("no resources/bundles/de.sqlite: run make bundles")
    with Bundle.open(user_dir / "de.sqlite") as b, Bundle.open(bundle_dir / "de.sqlite") as made:
        assert b.verify() == [] and json.loads(b.meta["build_params"])["stem_corrections"] is None
        assert b.checksum == made.checksum


@needs_release
def test_stem_corrections_without_java_is_an_error(user_dir: Path, no_java: None) -> None:
    r = run("bundle", "install", "de", "--stem-corrections")
    assert r.exit_code == 1
    assert "German's stem corrections run Meteor 1.5's stemmer from the jar, and java was not found" in r.stderr
    assert not user_dir.exists() or list(user_dir.iterdir()) == []


def test_unknown_language_and_missing_release(user_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = run("bundle", "install", "xx")
    assert r.exit_code == 1 and "no official Meteor 1.5 language and no shipped recipe of that name" in r.stderr
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pycocoevalcap" else real(name, *a))
    r = run("bundle", "install", "en")
    assert r.exit_code == 1 and "pip install 'meteor-lite[official]'" in r.stderr


def test_info_and_verify_take_bundle_names(user_dir: Path, tiny_bundle: Path) -> None:
    user_dir.mkdir(parents=True)
    (user_dir / "tiny-x.sqlite").write_bytes(tiny_bundle.read_bytes())
    info = run("bundle", "info", "tiny-x")
    assert info.exit_code == 0 and info.stdout.startswith(str(user_dir / "tiny-x.sqlite"))
    ok = run("bundle", "verify", "tiny-x")
    assert ok.exit_code == 0 and ok.stdout.strip().endswith("tiny-x.sqlite: ok")
    missing = run("bundle", "verify", "no-such-bundle")
    assert missing.exit_code == 1 and "no bundle of that name on the search path" in missing.stderr


@needs_release
def test_the_old_snowball_stems_flag_is_still_accepted(user_dir: Path, no_java: None) -> None:
    r = run("bundle", "install", "da", "--snowball-stems")
    assert r.exit_code == 0, r.stderr
    with Bundle.open(user_dir / "da.sqlite") as b:
        assert b.language == "da" and b.verify() == []
        assert json.loads(b.meta["build_params"])["stem_corrections"] is None


@needs_release
@pytest.mark.java
def test_an_installed_bundle_with_stem_corrections_is_named(user_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A de bundle installed with the jar's table (earlier default where Java was found): kept, and a line says why."""
    import functools

    import meteor_lite_builders.official.importer as importer
    from meteor_lite_builders.official.stems import stem_corrections

    monkeypatch.setattr(importer, "stem_corrections", functools.partial(stem_corrections, size=2000))  # not 200,000
    first = run("bundle", "install", "de", "--stem-corrections")
    assert first.exit_code == 0, first.stderr
    with Bundle.open(user_dir / "de.sqlite") as b:
        with_table = b.checksum
        assert json.loads(b.meta["build_params"])["stem_corrections"]["words_checked"] > 3000
    again = run("bundle", "install", "de")
    assert again.exit_code == 1
    assert "has the jar's stem-corrections table" in again.stderr and "--force replaces it" in again.stderr
    with Bundle.open(user_dir / "de.sqlite") as b:
        assert b.checksum == with_table
    forced = run("bundle", "install", "de", "--force")
    assert forced.exit_code == 0, forced.stderr
    with Bundle.open(user_dir / "de.sqlite") as b:
        assert json.loads(b.meta["build_params"])["stem_corrections"] is None and b.checksum != with_table
