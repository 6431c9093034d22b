"""The recipes that ship with meteor-lite, and ``meteor-lite bundle install|available`` for the languages they describe.

The recipes of ``resources/recipes`` are installed with the package as
``meteor_lite_builders/recipes/data/*.toml`` (pyproject.toml maps the directory: one copy, no
duplicate); in a source checkout (an editable install) they are read from ``resources/recipes``.

:func:`find_shipped_recipe` names the recipe of a language code (``ca``, ``cs`` -> ``cz``) or of a
bundle name (``de-wordfreq``); :func:`describe_recipe` says what its bundle would contain with the
sources present on this machine, and how to get the absent ones (:class:`SourceStatus`);
:func:`install_recipe` builds the bundle into the user bundle directory (atomically, through the
one pipeline), refusing to replace a bundle already there unless asked to.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple, Type

from meteor_lite.resources.locate import BUNDLE_SUFFIX, checkout_root, user_bundle_dir

from ..errors import BuildError, RecipeError
from .model import Recipe, RecipeSource, load_recipe, recipe_files

__all__ = [
    "BUILD_EXTRA",
    "SourceStatus",
    "RecipeContents",
    "shipped_recipes_dir",
    "shipped_recipes",
    "find_shipped_recipe",
    "missing_extra_line",
    "describe_recipe",
    "install_recipe",
    "available_lines",
]

#: Where the wheel installs the shipped recipes (pyproject.toml: package ``meteor_lite_builders.recipes.data``).
PACKAGED_RECIPES = Path(__file__).resolve().parent / "data"

#: The extras a build from a recipe needs: the builders' dependencies, and the lemma/Snowball 3 packages.
BUILD_EXTRA = "pip install 'meteor-lite[build]'"
BUILD_LEMMAS_EXTRA = "pip install 'meteor-lite[build,lemmas]'"

#: Bundle resources (recipe sections) and what each gives the scorer.
_SECTION_WHAT = {
    "function_words": "function words",
    "stems": "stems",
    "synonyms": "synonyms",
    "paraphrases": "paraphrases",
    "nonbreaking": "non-breaking prefixes",
}


def shipped_recipes_dir() -> Path:
    """The directory of the shipped recipes: the installed package's copy, else this checkout's ``resources/recipes``."""
    if PACKAGED_RECIPES.is_dir() and any(PACKAGED_RECIPES.glob("*.toml")):
        return PACKAGED_RECIPES
    root = checkout_root()
    if root is not None and (root / "resources" / "recipes").is_dir():
        return root / "resources" / "recipes"
    raise RecipeError(
        f"the shipped recipes are missing (neither {PACKAGED_RECIPES} nor a checkout's resources/recipes): reinstall meteor-lite"
    )


def shipped_recipes() -> List[Recipe]:
    """Every shipped recipe, in file-name order."""
    return [load_recipe(f) for f in recipe_files([shipped_recipes_dir()])]


def find_shipped_recipe(name: str) -> Optional[Recipe]:
    """The shipped recipe whose bundle is named ``name`` (``ca``, ``de-wordfreq``), else the one of language ``name``
    (an alias resolved: ``cs`` -> ``cz``'s recipe, whose bundle is ``cz-wordfreq``); None when there is none."""
    from meteor_lite.languages import language_alias

    recipes = shipped_recipes()
    for r in recipes:
        if r.name == name:
            return r
    code = language_alias(name)
    for r in recipes:
        if r.language == code:
            return r
    return None


def _uses_lemmas(recipe: Recipe) -> bool:
    """Whether the build needs the ``lemmas`` extra (simplemma, or a Snowball 3 stemmer run by PyStemmer)."""
    if any(s.kind == "simplemma" for s in recipe.sources.values()):
        return True
    return str(recipe.sections.get("stems", {}).get("stemmer", "")).startswith("PyStemmer")


def missing_extra_line(recipe: Recipe) -> Optional[str]:
    """One line naming the extra to install when a Python package the build of ``recipe`` needs is missing, else None."""
    modules = ["wordfreq", "tqdm"] + (["tomli"] if sys.version_info < (3, 11) else [])
    if any(s.kind == "meteor-jar" for s in recipe.sources.values()):
        modules.append("pycocoevalcap")
    lemmas = _uses_lemmas(recipe)
    if any(s.kind == "simplemma" for s in recipe.sources.values()):
        modules.append("simplemma")
    if str(recipe.sections.get("stems", {}).get("stemmer", "")).startswith("PyStemmer"):
        modules.append("Stemmer")
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if not missing:
        return None
    names = ", ".join("PyStemmer" if m == "Stemmer" else m for m in missing)
    return (f"building the {recipe.name} bundle from its recipe needs {names} (not installed): "
            f"{BUILD_LEMMAS_EXTRA if lemmas else BUILD_EXTRA}")


@dataclass(frozen=True)
class SourceStatus:
    """One source of a recipe on this machine: present or not, what it gives, how to get it."""

    name: str
    kind: str
    required: bool
    present: bool
    gives: Tuple[str, ...]  # the resources (recipe sections) built from it
    where: str  # the file read, or what is missing
    get: str  # how to get it when absent (a command), "" when there is nothing to say

    def absent_line(self, bundle: str) -> str:
        """One line: what this absent source would add to ``bundle``, and how to get it."""
        get = f": {self.get}" if self.get else ""
        return f"{bundle}: optional source {self.name} ({self.where}) is not installed; it would add {', '.join(self.gives)}{get}"


@dataclass
class RecipeContents:
    """What the bundle of a shipped recipe would contain if built now."""

    recipe: Recipe
    sources: List[SourceStatus]
    resources: List[str] = field(default_factory=list)  # the resources built (present sources)
    missing_extra: Optional[str] = None

    @property
    def buildable(self) -> bool:
        """Whether a build can run: the extras are installed, every required source is present, one resource is built."""
        return self.missing_extra is None and bool(self.resources) and all(s.present for s in self.sources if s.required)


def _debian_package(src: RecipeSource) -> str:
    """The Debian package of a MyThes/Hunspell/WordNet file a recipe names ("" when unknown)."""
    from .dictionaries import HUNSPELL
    from .thesauri import THESAURI

    base = Path(src.path).name
    for t in THESAURI.values():
        if t.file == base:
            return t.package
    for d in HUNSPELL.values():
        if d.dic == base:
            return d.package
    if src.kind == "wordnet":
        return "wordnet-base"
    m = re.search(r"Debian package ([a-z0-9][a-z0-9.+-]*)", src.description)
    return m.group(1) if m else ""


def _how_to_get(recipe: Recipe, src: RecipeSource) -> str:
    if src.kind in ("mythes", "hunspell", "wordnet"):
        pkg = _debian_package(src)
        return f"apt-get install {pkg}" if pkg else ""
    if src.kind == "simplemma":
        return BUILD_LEMMAS_EXTRA
    if src.kind == "wordfreq":
        return BUILD_EXTRA
    if src.kind == "meteor-jar":
        return "pip install 'meteor-lite[official]'"
    return ""


def _where(src: RecipeSource) -> str:
    if src.kind == "wordfreq":
        return f"wordfreq {src.file}"
    if src.kind == "simplemma":
        return f"simplemma '{src.language}'"
    if src.kind == "meteor-jar":
        return f"meteor-1.5.jar!{src.member}"
    return src.path


def describe_recipe(recipe: Recipe) -> RecipeContents:
    """What ``recipe``'s bundle would contain with the sources found here (checksums are not read: see
    :func:`~.sources.check_sources`, which the build runs)."""
    from ..errors import MissingSourceError, SourceError
    from .sources import source_sha256

    statuses: List[SourceStatus] = []
    found: Dict[str, bool] = {}
    for name, src in recipe.sources.items():
        gives = tuple(_SECTION_WHAT[sec] for sec in _SECTION_WHAT if name in recipe.uses(sec))
        present, where = _present(recipe, src, source_sha256, (MissingSourceError, SourceError))
        found[name] = present
        statuses.append(SourceStatus(name, src.kind, src.required, present, gives, where, "" if present else _how_to_get(recipe, src)))
    resources = [what for sec, what in _SECTION_WHAT.items() if any(found.get(n) for n in recipe.uses(sec))]
    return RecipeContents(recipe, statuses, resources, missing_extra_line(recipe))


def _present(recipe: Recipe, src: RecipeSource, sha: Callable[..., Tuple[str, str]],
             errors: Tuple[Type[BaseException], ...]) -> Tuple[bool, str]:
    """Whether a source is found (without reading its checksum when it is a plain file), and what names it."""
    if src.kind in ("mythes", "hunspell", "wordnet", "corpus", "prefixes", "paraphrase-table", "lmf", "lemma-file"):
        p = recipe.resolve(src)
        if src.kind == "hunspell":
            return p.is_file() and p.with_suffix(".aff").is_file(), src.path
        return p.exists(), src.path
    try:
        _digest, where = sha(recipe, src)
    except errors:
        return False, _where(src)
    except ImportError:
        return False, _where(src)
    return True, _where(src)


def _recipe_record(target: Path) -> "Optional[Tuple[Dict[str, object], bool]]":
    """The recipe record (file, digest, skipped sources) of the bundle at ``target`` and whether the bundle is
    intact; None when it has no record (not built from a recipe, or unreadable)."""
    import json

    from meteor_lite.errors import BundleError
    from meteor_lite.resources.bundle import Bundle

    try:
        with Bundle.open(target) as b:
            params = json.loads(b.meta.get("build_params") or "{}")
            rec = params.get("recipe") if isinstance(params, dict) else None
            return (rec, not b.verify()) if isinstance(rec, dict) else None
    except (BundleError, OSError, ValueError):
        return None


def _decide_before_building(recipe: Recipe, target: Path, absent: List[str], say: Callable[[str], None]) -> bool:
    """What :func:`install_recipe` (no ``force``) can decide about the bundle at ``target`` without building.

    True keeps it (intact, built from this recipe's very text with the sources present now); a bundle not built
    from this recipe (no recipe record, or another recipe's) raises :class:`BuildError` at once; False builds:
    nothing there, or this recipe's bundle from other sources or from another version of the recipe (said
    first: only the build tells whether it gives the same bundle).
    """
    from ..bundle.place import existing_bundle

    found = existing_bundle(target)
    if found is None:
        return False
    got = _recipe_record(target)
    if got is None or got[0].get("file") != recipe.path.name:
        origin = f"built from recipe {got[0].get('file')}" if got is not None else "not built from a recipe"
        raise BuildError(f"{found.describe()} is already installed ({origin}, not from recipe {recipe.path.name}): "
                         "not replaced, nothing built; give --force to replace it, or --name NAME to install beside it")
    record, intact = got
    raw = record.get("skipped_sources")
    skipped = sorted(str(n) for n in raw) if isinstance(raw, list) else []
    same_text = record.get("digest") == recipe.digest
    if same_text and intact and skipped == absent:
        sources = "every source" if not skipped else f"the sources present now (without {', '.join(skipped)})"
        say(f"{target} is already built from recipe {recipe.path.name} with {sources}: kept (--force rebuilds it)")
        return True
    how = "with other sources" if same_text else f"as another version (this one is {recipe.version})"
    if not intact:
        how = "but fails its integrity check"
    say(f"{found.describe()} was built from recipe {recipe.path.name} {how}: building first to compare "
        "(the same bundle is kept; another one replaces it only with --force)")
    return False


def install_recipe(
    recipe: Recipe,
    *,
    name: Optional[str] = None,
    dest_dir: "Optional[os.PathLike[str] | str]" = None,
    force: bool = False,
    say: Callable[[str], None] = print,
    progress: Optional[bool] = None,
) -> Tuple[Path, bool]:
    """Build the bundle of a shipped ``recipe`` into ``<dest_dir>/<name>.sqlite`` (default: the user bundle directory
    and the recipe's bundle name); return ``(path, built)``.

    One line per absent optional source goes to ``say`` (what it would add, how to get it), one before and
    one after the build.  A bundle already at the target is kept, without building, when it was built from this
    very recipe with the sources present now (``built`` is False); one not built from this recipe is refused at
    once, before any build, unless ``force`` (:class:`BuildError` naming ``--force`` and ``--name``); this
    recipe's bundle from other sources or another version is compared after the build (the same one is kept,
    another one replaced only with ``force``).  Raises :class:`BuildError` naming the extra to install when a Python
    package the build needs is missing, and when no source of the recipe is present.  Progress bars only on
    a terminal (``progress`` None: stderr is a terminal).  Atomic: after an error nothing is left at the target.
    """
    from ..bundle.place import build_into_place
    from .build import build_recipe

    contents = describe_recipe(recipe)
    if contents.missing_extra is not None:
        raise BuildError(contents.missing_extra)
    dest = Path(dest_dir) if dest_dir is not None else user_bundle_dir()
    bundle = name if name is not None else recipe.name
    if not bundle or bundle.startswith(".") or "/" in bundle or os.sep in bundle:
        raise BuildError(f"invalid bundle name {bundle!r} (give one with --name)")
    if bundle.endswith(BUNDLE_SUFFIX):
        bundle = bundle[: -len(BUNDLE_SUFFIX)]
    target = dest / f"{bundle}{BUNDLE_SUFFIX}"
    absent = [s for s in contents.sources if not s.present]
    for s in absent:
        if not s.required:
            say(s.absent_line(recipe.name))
    if not contents.resources:
        raise BuildError(f"{recipe.name}: nothing to build: no source of recipe {recipe.path.name} is installed "
                         f"({'; '.join(f'{s.where}: {s.get}' if s.get else s.where for s in absent)})")
    if not force and _decide_before_building(recipe, target, sorted(s.name for s in absent), say):
        return target, False
    show = sys.stderr.isatty() if progress is None else progress
    say(f"building {bundle} {recipe.version} ({', '.join(contents.resources)}) from recipe {recipe.path.name} into {target}")
    start = time.monotonic()

    def build(part: Path) -> None:
        res = build_recipe(recipe, part, show_progress=show, warn=lambda _line: None)
        if res.nothing_available:  # the sources vanished between the look and the build
            raise BuildError(res.summary())

    placed = build_into_place(target, build, force=force, what=f"recipe {recipe.path.name}")
    if placed.outcome == "unchanged":
        say(f"{target}: the same bundle (@{placed.checksum[:8]}) was already installed: kept")
    say(f"built in {time.monotonic() - start:.1f} s")
    return target, placed.outcome != "unchanged"


def _official_contents(lang: str) -> str:
    """What ``bundle install LANG`` imports from Meteor 1.5's release for an official language, and the modules the
    scorer then uses (:func:`meteor_lite.defaults.language_config` with the capabilities of the import)."""
    from meteor_lite.defaults import Capabilities, language_config

    from ..official.stems import snowball_language

    english = lang == "en"  # the release's synonyms (WordNet) and paraphrase table are English only
    caps = Capabilities(stem=snowball_language(lang) is not None, synonyms=english, paraphrases=english,
                        function_words=True, official=True)
    fitted = language_config(lang, caps)
    line = " ".join(fitted.modules) + " + function words" + (", non-breaking prefixes" if english else "")
    if "paraphrase" in fitted.dropped:  # a Meteor 1.5 default whose table the full distribution has (paraphrase-LANG.gz)
        line += f"; paraphrase with --paraphrase paraphrase-{lang}.gz (the full Meteor 1.5 distribution's)"
    return line


#: The matching modules a bundle resource enables (exact needs none).
_MODULE_OF = {"stems": "stem", "synonyms": "synonym", "paraphrases": "paraphrase"}


def _recipe_modules(recipe: Recipe, resources: List[str]) -> str:
    """The modules the scorer uses with the bundle of ``recipe`` built from ``resources`` (recipe sections' names),
    as :func:`meteor_lite.defaults.language_config` decides them, then the bundle's other resources."""
    from meteor_lite.defaults import Capabilities, language_config
    from meteor_lite.languages import language_alias
    from meteor_lite.resources.stemming import snowball_algorithm_for

    code = language_alias(recipe.language)
    caps = Capabilities(stem="stems" in resources or snowball_algorithm_for(code) is not None,
                        synonyms="synonyms" in resources, paraphrases="paraphrases" in resources,
                        function_words="function words" in resources)
    modules = " ".join(language_config(code, caps).modules)
    other = [r for r in resources if r not in _MODULE_OF]
    return modules + (f" + {', '.join(other)}" if other else "")


def available_lines() -> List[str]:
    """``meteor-lite bundle available``: a header, one line per installable bundle (the official imports, then
    the shipped recipes), and the extras to install when some are missing."""
    from ..official.release import LANGUAGE_NAMES

    rows: List[Tuple[str, str, str, str]] = []
    release = importlib.util.find_spec("pycocoevalcap") is not None
    for lang in LANGUAGE_NAMES:
        origin = "Meteor 1.5 (pycocoevalcap)" if release else "Meteor 1.5 (needs [official])"
        rows.append((lang, lang, origin, _official_contents(lang)))
    extras: Dict[str, List[str]] = {}
    for r in shipped_recipes():
        c = describe_recipe(r)
        absent = [s for s in c.sources if not s.present]
        if c.missing_extra is not None:
            extra = BUILD_LEMMAS_EXTRA if _uses_lemmas(r) else BUILD_EXTRA
            extras.setdefault(extra, []).append(r.name)
        contents = _recipe_modules(r, c.resources) if c.resources else "nothing yet"
        for s in absent:
            get = f" ({s.get})" if s.get else ""
            lacks = [g for g in s.gives if g not in c.resources]  # what no other source gives
            what = f"no {', '.join(lacks)}" if lacks else f"fewer {', '.join(s.gives)}"
            contents += f"; {'needs' if s.required else 'without'} {Path(s.where).name}{get}: {what}"
        rows.append((r.name, r.language, f"recipe {r.path.name} {r.version}", contents))
    w0 = max(len(x[0]) for x in rows)
    w2 = max(len(x[2]) for x in rows)
    lines = [f"{'NAME':{w0}} LANG {'FROM':{w2}} MODULES + RESOURCES (with the sources installed here)"]
    lines += [f"{n:{w0}} {lang:4} {origin:{w2}} {contents}" for n, lang, origin, contents in rows]
    for extra, names in extras.items():
        lines.append(f"building {len(names)} of these ({', '.join(names[:6])}{', ...' if len(names) > 6 else ''}) "
                     f"needs Python packages that are not installed: {extra}")
    return lines
