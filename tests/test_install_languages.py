"""Every shipped recipe's language by name (``bundle install LANG``, ``bundle available``), names
(``--name``, ``--force``, ``bundle list``), ``meteor-build bundle`` without a stemmer, and an older setuptools."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
from typer.testing import CliRunner

import meteor_lite_builders.recipes.shipped as shipped
from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.install import InstallError, install_bundle
from meteor_lite_builders.cli import app
from meteor_lite_builders.errors import BuildError
from meteor_lite_builders.recipes.model import load_recipe
from test_cli import run
from tiny_bundles import make_empty_bundle, make_tiny_bundle

ROOT = Path(__file__).resolve().parents[1]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _tiny_recipe(d: Path) -> Path:
    """A recipe of language xx: a lemma map from a file, and an optional thesaurus that is not installed."""
    d.mkdir(parents=True, exist_ok=True)
    lemmas = d / "lemmas.tsv"
    lemmas.write_text("cats\tcat\nran\trun\nrunning\trun\n", encoding="utf-8")
    sha = hashlib.sha256(lemmas.read_bytes()).hexdigest()
    recipe = d / "xx.toml"
    recipe.write_text(f'''format = "meteor-lite-recipe"
format_version = 1

[bundle]
language = "xx"
name = "xx"
version = "1.0.0"

[sources.lemmas]
kind = "lemma-file"
path = "lemmas.tsv"
sha256 = "{sha}"
licence = "CC0-1.0"

[sources.thesaurus]
kind = "mythes"
path = "{d / "absent" / "th_ca_ES_v3.dat"}"
sha256 = "{"0" * 64}"
licence = "LGPL-3+"
required = false

[stems]
from = "lemmas"

[synonyms]
from = "thesaurus"
''', encoding="utf-8")
    return recipe


@pytest.fixture()
def tiny_shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shipped recipes replaced by the tiny recipe's directory."""
    recipe = _tiny_recipe(tmp_path / "recipes")
    monkeypatch.setattr(shipped, "PACKAGED_RECIPES", recipe.parent)
    return recipe


# -- the recipes ship in the package ---------------------------------------------------------------------------


def test_pyproject_installs_resources_recipes_as_package_data() -> None:
    """One copy: the wheel's meteor_lite_builders/recipes/data/*.toml is resources/recipes, where shipped.py looks."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert cfg["package-dir"]["meteor_lite_builders.recipes.data"] == "resources/recipes"
    assert "meteor_lite_builders.recipes.data" in cfg["packages"]
    assert cfg["package-data"]["meteor_lite_builders.recipes.data"] == ["*.toml"]
    assert cfg["package-dir"]["meteor_lite_builders"] == "builders"
    assert shipped.PACKAGED_RECIPES == ROOT / "builders" / "recipes" / "data"  # as installed: <package>/recipes/data
    assert not shipped.PACKAGED_RECIPES.exists()  # no second copy in the checkout
    assert shipped.shipped_recipes_dir() == ROOT / "resources" / "recipes"


def test_every_shipped_language_is_found_by_name() -> None:
    recipes = shipped.shipped_recipes()
    assert len(recipes) == 71 and len({r.language for r in recipes}) == 71
    assert shipped.find_shipped_recipe("ca").name == "ca"  # type: ignore[union-attr]
    assert shipped.find_shipped_recipe("de-wordfreq").language == "de"  # type: ignore[union-attr]
    assert shipped.find_shipped_recipe("cs").name == "cz-wordfreq"  # type: ignore[union-attr]  # an alias
    assert shipped.find_shipped_recipe("xx-none") is None


def test_every_system_source_says_which_package_gives_it() -> None:
    """Each MyThes, Hunspell or WordNet file a shipped recipe names has its Debian package (for the absent line)."""
    for r in shipped.shipped_recipes():
        for s in r.sources.values():
            if s.kind in ("mythes", "hunspell", "wordnet"):
                assert shipped._how_to_get(r, s).startswith("apt-get install "), (r.path.name, s.name)
            if s.kind == "simplemma":
                assert shipped._how_to_get(r, s) == "pip install 'meteor-lite[build,lemmas]'"


# -- building a recipe into the user directory ------------------------------------------------------------------


def test_install_recipe_says_what_an_absent_source_would_add(tmp_path: Path) -> None:
    recipe = load_recipe(_tiny_recipe(tmp_path / "r"))
    c = shipped.describe_recipe(recipe)
    assert c.resources == ["stems"] and c.buildable
    said: List[str] = []
    path, built = shipped.install_recipe(recipe, dest_dir=tmp_path / "u", say=said.append, progress=False)
    assert built and path == tmp_path / "u" / "xx.sqlite"
    absent = [ln for ln in said if "is not installed" in ln]
    assert absent == [f"xx: optional source thesaurus ({tmp_path / 'r' / 'absent' / 'th_ca_ES_v3.dat'}) is not installed; "
                      "it would add synonyms: apt-get install mythes-ca"]
    with Bundle.open(path) as b:
        assert b.verify() == [] and b.counts()["stems"] == 3
    assert sorted(p.name for p in (tmp_path / "u").iterdir()) == ["xx.sqlite"]  # no .part left


def test_install_recipe_never_replaces_another_bundle_silently(tmp_path: Path) -> None:
    recipe = load_recipe(_tiny_recipe(tmp_path / "r"))
    dest = tmp_path / "u"
    path, _ = shipped.install_recipe(recipe, dest_dir=dest, say=lambda _: None, progress=False)
    with Bundle.open(path) as b:
        first = b.checksum
    said: List[str] = []
    _, built = shipped.install_recipe(recipe, dest_dir=dest, say=said.append, progress=False)
    assert not built and any("already built from recipe xx.toml with the sources present now (without thesaurus): kept"
                             in ln for ln in said)  # the same recipe, the same sources: decided without building
    make_tiny_bundle(path)
    with Bundle.open(path) as b:
        other = b.checksum
    with pytest.raises(BuildError, match=r"already installed .*not replaced, nothing built; give --force to replace it, "
                                         r"or --name NAME"):
        shipped.install_recipe(recipe, dest_dir=dest, say=lambda _: None, progress=False)
    with Bundle.open(path) as b:
        assert b.checksum == other  # kept
    beside, _ = shipped.install_recipe(recipe, dest_dir=dest, name="xx-two", say=lambda _: None, progress=False)
    assert beside == dest / "xx-two.sqlite"
    shipped.install_recipe(recipe, dest_dir=dest, force=True, say=lambda _: None, progress=False)
    with Bundle.open(path) as b:
        assert b.checksum == first
    assert sorted(p.name for p in dest.iterdir()) == ["xx-two.sqlite", "xx.sqlite"]


class _BuildCalls:
    """``build_recipe`` replaced by a counter in front of the real one."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import meteor_lite_builders.recipes.build as build

        self.calls = 0
        real = build.build_recipe

        def counted(*args: object, **kwargs: object) -> object:
            self.calls += 1
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(build, "build_recipe", counted)


def test_install_recipe_refuses_a_bundle_of_another_origin_before_building(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the bundle at the target was not built from this recipe, the refusal comes before any build."""
    recipe = load_recipe(_tiny_recipe(tmp_path / "r"))
    dest = tmp_path / "u"
    dest.mkdir()
    make_tiny_bundle(dest / "xx.sqlite", "xx")  # no recipe record
    other_file = tmp_path / "o" / "yy.toml"  # the same text under another recipe's name, built into xx.sqlite
    other_file.parent.mkdir()
    other_file.write_text(recipe.path.read_text(encoding="utf-8").replace('"lemmas.tsv"', f'"{tmp_path / "r" / "lemmas.tsv"}"'),
                          encoding="utf-8")
    shipped.install_recipe(load_recipe(other_file), dest_dir=dest, name="yy-as-xx", say=lambda _: None, progress=False)
    calls = _BuildCalls(monkeypatch)
    for origin in ("not built from a recipe", "built from recipe yy.toml"):
        if origin != "not built from a recipe":
            (dest / "yy-as-xx.sqlite").replace(dest / "xx.sqlite")
        with Bundle.open(dest / "xx.sqlite") as b:
            before = b.checksum
        said: List[str] = []
        with pytest.raises(BuildError) as err:
            shipped.install_recipe(recipe, dest_dir=dest, say=said.append, progress=False)
        assert f"({origin}, not from recipe xx.toml): not replaced, nothing built; give --force to replace it, or " \
               "--name NAME to install beside it" in str(err.value)
        assert calls.calls == 0 and not any(ln.startswith("building ") for ln in said)
        with Bundle.open(dest / "xx.sqlite") as b:
            assert b.checksum == before
    assert sorted(p.name for p in dest.iterdir()) == ["xx.sqlite"]  # no .part either
    shipped.install_recipe(recipe, dest_dir=dest, force=True, say=lambda _: None, progress=False)
    assert calls.calls == 1


def test_install_recipe_builds_first_only_when_the_build_decides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This recipe's bundle from another version of it: said, built, then compared (refused without --force)."""
    recipe_file = _tiny_recipe(tmp_path / "r")
    dest = tmp_path / "u"
    shipped.install_recipe(load_recipe(recipe_file), dest_dir=dest, say=lambda _: None, progress=False)
    calls = _BuildCalls(monkeypatch)
    kept: List[str] = []
    _, built = shipped.install_recipe(load_recipe(recipe_file), dest_dir=dest, say=kept.append, progress=False)
    assert not built and calls.calls == 0 and any(ln.endswith(": kept (--force rebuilds it)") for ln in kept)
    recipe_file.write_text(recipe_file.read_text(encoding="utf-8").replace('version = "1.0.0"', 'version = "1.0.1"'),
                           encoding="utf-8")
    said: List[str] = []
    with pytest.raises(BuildError, match=r"already installed and recipe xx.toml gives another bundle: not replaced"):
        shipped.install_recipe(load_recipe(recipe_file), dest_dir=dest, say=said.append, progress=False)
    assert calls.calls == 1
    assert any("was built from recipe xx.toml as another version (this one is 1.0.1): building first to compare" in ln
               for ln in said), said
    with Bundle.open(dest / "xx.sqlite") as b:
        assert b.version == "1.0.0"


def test_install_recipe_with_a_source_installed_since_builds_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This recipe's bundle built while an optional source was absent, the source present now: said, built, compared."""
    recipe_file = _tiny_recipe(tmp_path / "r")
    more = b"mice\tmouse\n"
    text = recipe_file.read_text(encoding="utf-8").replace('[stems]\nfrom = "lemmas"', '[stems]\nfrom = ["lemmas", "more"]')
    text = text.replace("[stems]", f'''[sources.more]
kind = "lemma-file"
path = "more.tsv"
sha256 = "{hashlib.sha256(more).hexdigest()}"
licence = "CC0-1.0"
required = false

[stems]''', 1)
    recipe_file.write_text(text, encoding="utf-8")
    dest = tmp_path / "u"
    shipped.install_recipe(load_recipe(recipe_file), dest_dir=dest, say=lambda _: None, progress=False)
    with Bundle.open(dest / "xx.sqlite") as b:
        assert b.counts()["stems"] == 3
    (tmp_path / "r" / "more.tsv").write_bytes(more)
    calls = _BuildCalls(monkeypatch)
    said: List[str] = []
    with pytest.raises(BuildError, match=r"gives another bundle: not replaced; give --force"):
        shipped.install_recipe(load_recipe(recipe_file), dest_dir=dest, say=said.append, progress=False)
    assert calls.calls == 1
    assert any("was built from recipe xx.toml with other sources: building first to compare" in ln for ln in said), said
    _, built = shipped.install_recipe(load_recipe(recipe_file), dest_dir=dest, force=True, say=lambda _: None, progress=False)
    with Bundle.open(dest / "xx.sqlite") as b:
        assert built and b.counts()["stems"] == 4


def test_a_missing_extra_is_one_line_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in ("wordfreq", "simplemma") else real(name, *a))
    ca = shipped.find_shipped_recipe("ca")
    assert ca is not None
    assert shipped.missing_extra_line(ca) == ("building the ca bundle from its recipe needs wordfreq (not installed): "
                                              "pip install 'meteor-lite[build]'")
    bg = shipped.find_shipped_recipe("bg")
    assert bg is not None and shipped.missing_extra_line(bg) == (
        "building the bg bundle from its recipe needs wordfreq, simplemma (not installed): pip install 'meteor-lite[build,lemmas]'")
    with pytest.raises(BuildError, match=r"\[build,lemmas\]"):
        shipped.install_recipe(bg, dest_dir=tmp_path, say=lambda _: None)
    assert not tmp_path.joinpath("bg.sqlite").exists()


def test_cli_install_and_available(tiny_shipped: Path, user_dir: Path) -> None:
    r = run("bundle", "install", "xx")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith(f"installed {user_dir / 'xx.sqlite'} (xx 1.0.0 @")
    assert "it would add synonyms: apt-get install mythes-ca" in r.stderr
    assert "building xx 1.0.0 (stems) from recipe xx.toml" in r.stderr
    again = run("bundle", "install", "xx")
    assert again.exit_code == 0 and again.stdout.startswith("kept ")  # built from the same recipe: not rebuilt
    avail = run("bundle", "available")
    assert avail.exit_code == 0, avail.stderr
    line = [ln for ln in avail.stdout.splitlines() if ln.startswith("xx ")]
    assert len(line) == 1 and "recipe xx.toml 1.0.0" in line[0]
    assert line[0].endswith(" exact stem; without th_ca_ES_v3.dat (apt-get install mythes-ca): no synonyms")
    assert any(ln.startswith("en ") and "Meteor 1.5" in ln for ln in avail.stdout.splitlines())
    unknown = run("bundle", "install", "qq")
    assert unknown.exit_code == 1 and "no official Meteor 1.5 language and no shipped recipe" in unknown.stderr
    assert "meteor-lite bundle available" in unknown.stderr
    para = run("bundle", "install", "xx", "--paraphrase", str(tiny_shipped))
    assert para.exit_code == 1 and "--paraphrase FILE goes with the official Meteor 1.5 languages" in para.stderr


def test_cli_refuses_another_bundle_before_building(tiny_shipped: Path, user_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``bundle install xx`` over a bundle not built from recipe xx.toml: one line naming --force and --name, exit 1,
    no build; ``--name`` installs beside it."""
    user_dir.mkdir(parents=True, exist_ok=True)
    make_tiny_bundle(user_dir / "xx.sqlite", "xx")
    calls = _BuildCalls(monkeypatch)
    r = run("bundle", "install", "xx")
    assert r.exit_code == 1 and calls.calls == 0
    assert "(not built from a recipe, not from recipe xx.toml): not replaced, nothing built; give --force" in r.stderr
    assert "building " not in r.stderr
    beside = run("bundle", "install", "xx", "--name", "xx-recipe")
    assert beside.exit_code == 0, beside.stderr
    assert beside.stdout.startswith(f"installed {user_dir / 'xx-recipe.sqlite'} (xx 1.0.0 @") and calls.calls == 1


# -- names ------------------------------------------------------------------------------------------------------


def test_bundle_list_first_column_is_the_bundle_name(user_dir: Path, tmp_path: Path) -> None:
    make_tiny_bundle(user_dir / "en-syn.sqlite")
    listed = run("bundle", "list")
    line = [ln for ln in listed.stdout.splitlines() if "en-syn.sqlite" in ln]
    assert len(line) == 1 and line[0].split()[0] == "en-syn" and line[0].split()[1] == "en"
    hyp, ref = tmp_path / "h", tmp_path / "r"
    hyp.write_text("the car is big\n")
    ref.write_text("the automobile is large\n")
    scored = run("score", str(hyp), str(ref), "--lang", "en", "--bundle", "en-syn", "-m", "exact synonym", "-q")
    exact = run("score", str(hyp), str(ref), "--lang", "en", "--bundle", "en-syn", "-m", "exact", "-q")
    assert scored.exit_code == 0 and exact.exit_code == 0, scored.stderr + exact.stderr
    assert float(scored.stdout) > float(exact.stdout)  # the bundle's synonyms matched


def test_install_file_refuses_another_bundle_without_force(user_dir: Path, tmp_path: Path) -> None:
    a = make_tiny_bundle(tmp_path / "a" / "en.sqlite")
    b = make_empty_bundle(tmp_path / "b" / "en.sqlite")
    assert run("bundle", "install", str(a)).exit_code == 0
    same = run("bundle", "install", str(a))
    assert same.exit_code == 0  # the same content again
    r = run("bundle", "install", str(b))
    assert r.exit_code == 1 and "not replaced; give --force to replace it, or --name NAME to install beside it" in r.stderr
    with Bundle.open(user_dir / "en.sqlite") as x, Bundle.open(a) as y:
        assert x.checksum == y.checksum
    with pytest.raises(InstallError, match="--force"):
        install_bundle(str(b), dest_dir=user_dir)
    forced = run("bundle", "install", str(b), "--force")
    assert forced.exit_code == 0 and forced.stdout.startswith("replaced ")
    assert sorted(p.name for p in user_dir.iterdir()) == ["en.sqlite"]


# -- meteor-build bundle without a Snowball stemmer; an older setuptools -------------------------------------------


def test_bundle_without_a_stemmer_says_no_stems(tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["bundle", "--lang", "zh", "--wordfreq", "--function-words", "wordfreq", "--out",
                                 str(tmp_path / "zh.sqlite")])
    assert r.exit_code == 1
    err = r.stderr if hasattr(r, "stderr") else r.output
    assert "has no stemmer for 'zh'" in err and "--no-stems" in err and "--lemmas simplemma" in err
    assert "Traceback" not in r.output and not (tmp_path / "zh.sqlite").exists()


def test_an_older_setuptools_is_one_line() -> None:
    code = ("import setuptools, runpy; setuptools.__version__ = '65.5.0'; "
            "runpy.run_path('setup.py', run_name='__main__')")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 1
    assert p.stderr.strip().splitlines() == [
        "meteor-lite: building needs setuptools>=77 (pyproject.toml's SPDX licence string); this environment has "
        "setuptools 65.5.0: pip install 'setuptools>=77', or build without --no-build-isolation"]


# -- meteor-build check languages-from-wheel's pieces --------------------------------------------------------------


def test_languages_from_wheel_lists_71_and_makes_a_pair_from_a_bundle(tmp_path: Path) -> None:
    from meteor_lite_builders.bundle.writer import BundleWriter
    from meteor_lite_builders.checks.languages_from_wheel import LanguageResult, bundle_pair, format_table, wheel_languages

    langs = wheel_languages(ROOT / "resources" / "recipes")
    assert len(langs) == 71 and langs[0] == ("en", "official") and sum(k == "official" for _, k in langs) == 16
    out = tmp_path / "xx.sqlite"
    with BundleWriter(out, language="xx", name="xx", version="0.0.1") as w:
        w.add_function_words(["the", "of"])
        w.add_stems([("cats", "cat"), ("catty", "cat"), ("runs", "run"), ("running", "run"), ("tables", "tabl"),
                     ("tabled", "tabl"), ("house", "hous"), ("garden", "garden")])
        w.add_synsets([("big", 1), ("large", 1)])
    hyp, ref = bundle_pair(out)
    assert len(hyp.split()) == len(ref.split()) == 6 and hyp != ref
    assert bundle_pair(out) == (hyp, ref)  # the same words every time
    assert "large" in hyp.split() + ref.split() and "big" in hyp.split() + ref.split()  # the synonym pair
    r = LanguageResult("xx", "recipe", install_rc=0, install_seconds=1.25, bundle="xx 0.0.1 @abcdef12", text="t",
                       score_rc=0, score="0.5", signature="meteor-lite|lang:xx|mods:exact+stem|w:1,0.5", identity="1.0")
    table = format_table([r])
    assert "| `xx` | recipe | 1.2 | xx 0.0.1 @abcdef12 | exact+stem | 0.5 | 1.0 | t |" in table
    assert "1 languages; 1 installed and scored (hyp = ref 1.0)" in table
