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


@needs_release
@pytest.mark.slow
def test_install_en_equals_the_bundle_make_demo_builds(user_dir: Path, en_bundle: Path) -> None:
    r = run("bundle", "install", "en")
    assert r.exit_code == 0, r.stderr
    target = user_dir / "en.sqlite"
    assert r.stdout.startswith(f"installed {target} (en 1.5.0 @")
    assert "importing Meteor 1.5's English resources from pycocoevalcap" in r.stderr
    with Bundle.open(target) as mine, Bundle.open(en_bundle) as demo:
        assert mine.checksum == demo.checksum and mine.verify() == []
    assert find_bundle("en") == target  # the user directory comes before the checkout
    assert [p.name for p in user_dir.iterdir()] == ["en.sqlite"]  # nothing else left behind


@needs_release
def test_install_cz_needs_no_java(user_dir: Path, bundle_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import meteor_lite_builders.jar as jar

    def no_java() -> str:
        raise jar.JavaNotFoundError("java not found")

    monkeypatch.setattr(jar, "find_java", no_java)
    r = run("bundle", "install", "cz")
    assert r.exit_code == 0, r.stderr
    with Bundle.open(user_dir / "cz.sqlite") as b:
        assert b.language == "cz" and b.verify() == []
        if (bundle_dir / "cz.sqlite").is_file():
            with Bundle.open(bundle_dir / "cz.sqlite") as theirs:
                assert b.checksum == theirs.checksum


@needs_release
def test_without_java_the_stem_corrections_are_left_out(user_dir: Path, bundle_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No Java: the bundle installs without the corrections table, one line says so, and scores as make bundles' bundle."""
    import meteor_lite_builders.jar as jar
    from meteor_lite import Meteor

    def no_java() -> str:
        raise jar.JavaNotFoundError("java not found")

    monkeypatch.setattr(jar, "find_java", no_java)
    r = run("bundle", "install", "de")
    assert r.exit_code == 0, r.stderr
    assert "no Java: the German bundle leaves out the jar's stem-corrections table" in r.stdout + r.stderr
    with Bundle.open(user_dir / "de.sqlite") as b:
        assert b.verify() == [] and json.loads(b.meta["build_params"])["stem_corrections"] is None
    if not (bundle_dir / "de.sqlite").exists():
        pytest.fail("no resources/bundles/de.sqlite: run make bundles")
    hyps = ["Die Studienergebnisse zeigen Bedürfnisse", "Ereignisse der Studie", "100 Teilnehmer"]
    refs = ["Studienergebnissen zufolge bestehen Bedürfnissen", "die Ereignissen der Studien", "100 teilnehmende"]
    ours = Meteor("de", modules=["exact", "stem"], bundle=user_dir / "de.sqlite", quiet=True).score_corpus(hyps, [refs])
    made = Meteor("de", modules=["exact", "stem"], bundle=bundle_dir / "de.sqlite", quiet=True).score_corpus(hyps, [refs])
    assert [s.score for s in ours.segments] == [s.score for s in made.segments] and ours.score > 0


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
def test_snowball_stems_installs_without_java(user_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import meteor_lite_builders.jar as jar

    def no_java() -> str:
        raise jar.JavaNotFoundError("java not found")

    monkeypatch.setattr(jar, "find_java", no_java)
    r = run("bundle", "install", "de", "--snowball-stems")
    assert r.exit_code == 0, r.stderr
    with Bundle.open(user_dir / "de.sqlite") as b:
        assert b.language == "de" and b.verify() == []
        assert json.loads(b.meta["build_params"])["stem_corrections"] is None
