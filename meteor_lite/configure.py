"""Fitting a resolved configuration to the bundle and resources at hand (the scorer's set-up).

Each function appends the user-facing conditions it finds to a ``notes`` list
(the scorer turns them into warnings) and raises :class:`ConfigError` or
:class:`BundleError` (:class:`MissingResourcesError` when the resources the
modules need are on no bundle) for conditions that stop scoring.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence, Union

from .align.modules import NEEDS_TEXT, REGISTRY
from .config import (
    TASKS_META_KEY,
    MeteorConfig,
    apply_tuned_task,
    module_list,
    read_tuned_tasks,
    resolve_config,
    unknown_task_message,
)
from .errors import BundleError, ConfigError, MissingResourcesError
from .languages import LANGUAGES, SCRIPT_LANGUAGES, language_alias, long_name
from .resources.bundle import Bundle
from .resources.locate import checkout_root, find_bundle
from .resources.lookups import Resources
from .resources.stemming import METEOR15_PREFIX, meteor15_stemmer_name, snowball_algorithm_for, snowball_classes

__all__ = [
    "BundleArg",
    "open_bundle",
    "check_language",
    "stemmer_name",
    "is_official_import",
    "uses_stem_map",
    "OFFICIAL_BUILDER",
    "stemmer_version_note",
    "fit_modules",
    "bundle_task",
    "missing_resources_message",
    "explicit_missing_message",
    "reduced_modules_message",
    "setup_scorer",
    "ScorerSetup",
]

#: The ``builder`` that ``meteor-build import-official`` records in a bundle's build parameters.
OFFICIAL_BUILDER = "meteor-build import-official"

#: What the scorer accepts as a bundle: an open one, a path, a name on the search path, or None.
BundleArg = Union[str, "os.PathLike[str]", Bundle, None]


def open_bundle(bundle: BundleArg, lang: str, norm: bool, notes: List[str]) -> Optional[Bundle]:
    """The bundle to score with: ``bundle`` itself, the file or search-path name it gives, or the language's.

    No bundle for the language is not an error here: :func:`fit_modules` refuses it
    unless the modules were chosen explicitly (then a note says what is missing).
    """
    if isinstance(bundle, Bundle):  # opened by the caller, who answers for it (e.g. meteor-jar's -s/-d/-a bundle)
        return bundle
    if bundle is not None:
        named = find_bundle(str(bundle)) if not Path(bundle).exists() and os.sep not in str(bundle) else None
        return _verified(Bundle.open(named if named is not None else bundle))
    path = find_bundle(lang)
    found = _verified(Bundle.open(path)) if path is not None else None
    if found is None:
        notes.append(
            f"no bundle found for language {lang!r}: scoring without function words"
            + (" and non-breaking prefixes" if norm else "")
            + " (res:none; not Meteor 1.5's numbers)"
        )
    return found


def _verified(bundle: Bundle) -> Bundle:
    """``bundle``, once its file is known to be what was built (:mod:`meteor_lite.resources.integrity`).

    The full check runs the first time a bundle file is used and is remembered by the file's
    identity; a damaged or changed bundle is a :class:`~meteor_lite.errors.BundleError`.
    ``METEOR_LITE_VERIFY_BUNDLES=0`` skips it.  A bundle without a recorded checksum cannot be
    verified: it is refused (:func:`_require_checksum`) unless verification is turned off.
    """
    from .resources.integrity import ensure_verified, verification_on

    if not verification_on():
        return bundle

    try:
        _require_checksum(bundle)
        ensure_verified(bundle.path, bundle.checksum, bundle.verify, identity=bundle.identity)
    except BaseException:
        bundle.close()
        raise
    return bundle


def _require_checksum(bundle: Bundle) -> None:
    """Refuse a bundle whose ``content_checksum`` is missing or empty (unless ``METEOR_LITE_VERIFY_BUNDLES=0``).

    Without it nothing can tell whether the bundle's rows are the ones it was built with:
    a bundle with rows deleted or changed would score silently under a signature that only says
    ``@nochecksum``.
    """
    from .resources.integrity import verification_on

    if not bundle.checksum and verification_on():
        raise BundleError(
            f"{bundle.path}: the bundle records no content checksum (meta 'content_checksum' is missing or empty), "
            "so its content cannot be verified; rebuild or reinstall it, or score with it unverified by setting "
            "METEOR_LITE_VERIFY_BUNDLES=0"
        )


def check_language(
    requested: str, lang: str, bundle: Optional[Bundle], notes: List[str], allow_other_language: bool = False
) -> None:
    """Refuse a language neither Meteor 1.5 nor the bundle knows, and a bundle of another language.

    A bundle of another language is a :class:`ConfigError` (its function words, stems and
    synonyms would silently score the text as that language) unless ``allow_other_language``;
    then it is a note.
    """
    if lang not in LANGUAGES and lang not in SCRIPT_LANGUAGES and (bundle is None or bundle.language != lang):
        raise ConfigError(
            f"unknown language {requested!r}: not a Meteor 1.5 language, and no bundle for it was found "
            "(meteor-lite bundle available lists the languages bundle install installs, meteor-lite bundle list the "
            "bundles installed; meteor-build makes others)"
        )
    if bundle is not None and not bundle.language:
        if not allow_other_language:
            raise ConfigError(
                f"bundle {bundle.path} records no language (meta 'language' is missing or empty), so it cannot be "
                f"checked against {lang!r}: rebuild it, or allow it with --allow-other-language "
                "(allow_other_language=True)"
            )
        notes.append(f"bundle {bundle.path} records no language; scored as {lang!r}")
    elif bundle is not None and language_alias(bundle.language) != lang:
        if not allow_other_language:
            raise ConfigError(
                f"bundle {bundle.path} is for language {bundle.language!r}, not {lang!r}: score with "
                f"--lang {bundle.language}, use the {lang!r} bundle, or allow it with --allow-other-language "
                "(allow_other_language=True)"
            )
        notes.append(f"bundle {bundle.path} is for language {bundle.language!r}, not {lang!r}")


def stemmer_name(bundle: Optional[Bundle], lang: str) -> Optional[str]:
    """The stemmer to score with: Meteor 1.5's for its languages, else the one the bundle records or the language's.

    Meteor 1.5's own stemmer (``meteor15:<algorithm>``, the jar's stems for every word) runs for a
    language Meteor 1.5 stems when there is no bundle or the bundle is an official import
    (:func:`is_official_import`); any other bundle keeps the ``snowballstemmer`` algorithm it was built
    with, so its stem map and the words outside it stem alike.
    """
    if bundle is None or is_official_import(bundle):
        code = bundle.language if bundle is not None and bundle.language else lang
        meteor15 = meteor15_stemmer_name(language_alias(code))
        if meteor15 is not None:
            return meteor15
    recorded = (bundle.stemmer or {}).get("language") if bundle is not None else None
    return recorded if recorded in snowball_classes() else snowball_algorithm_for(lang)


def is_official_import(bundle: Bundle) -> bool:
    """True for a bundle of Meteor 1.5's resources made by ``meteor-build import-official``."""
    return bundle.build_params.get("builder") == OFFICIAL_BUILDER


def uses_stem_map(bundle: Optional[Bundle], stemmer: Optional[str]) -> bool:
    """Whether the scorer looks words up in the bundle's stem map before stemming them.

    Not for an official import's *stem corrections* (the words on which Meteor 1.5's stemmer and
    ``snowballstemmer`` 2.2.0 disagree, as the jar's ``Stemmer`` program gave them) when Meteor 1.5's
    own stemmer runs: that table only restates the stemmer, except for number-like words, which the
    ``Stemmer`` program leaves alone but the jar's scorer stems.  Every other stem map is read first.
    """
    if bundle is None or not bundle.has("stems"):
        return False
    corrections = "stem_corrections" in bundle.build_params
    return not (corrections and stemmer is not None and stemmer.startswith(METEOR15_PREFIX))


def stemmer_version_note(bundle: Optional[Bundle], stemmer: Optional[str] = None) -> Optional[str]:
    """A note when the bundle's stem map was built with another version of the stemmer than the installed one.

    None when Meteor 1.5's own stemmer (``stemmer`` = ``meteor15:...``) runs: it is part of meteor-lite.
    """
    if bundle is None or bundle.stemmer is None or (stemmer or "").startswith(METEOR15_PREFIX):
        return None
    rec = bundle.stemmer
    installed = installed_version(rec.get("package", "snowballstemmer"))
    if installed is None:  # pragma: no cover - metadata missing
        return None
    if rec.get("version") and installed != rec["version"]:
        return (
            f"bundle stem map was built with {rec.get('package')} {rec['version']}, "
            f"{installed} is installed: words outside the map may stem differently"
        )
    return None


def installed_version(package: str) -> Optional[str]:
    """The installed version of ``package``, or None.

    Read from the ``<package>-<version>.dist-info`` directory beside the imported
    module when there is one (cheap), else through :mod:`importlib.metadata`
    (which costs tens of milliseconds to import: too much for every start).
    """
    module = sys.modules.get(package)
    where = getattr(module, "__file__", None) if module is not None else None
    if where:
        prefix = package.replace("-", "_") + "-"
        for d in Path(where).resolve().parent.parent.glob(prefix + "*.dist-info"):
            return d.name[len(prefix) : -len(".dist-info")]
    try:
        from importlib.metadata import version

        return version(package)
    except Exception:  # pragma: no cover - metadata missing
        return None


#: What each module needs from a bundle (stemming also works without one, through snowballstemmer): the registry's.
_NEEDS = {m.name: NEEDS_TEXT[m.needs] for m in REGISTRY if m.needs is not None}


def fit_modules(
    cfg: MeteorConfig,
    resources: Resources,
    bundle: Optional[Bundle],
    explicit: bool,
    notes: List[str],
    *,
    strict: bool = False,
    extendable: bool = False,
) -> MeteorConfig:
    """Fit the modules to what the bundle has; never score with fewer modules than asked for without a note.

    Modules chosen explicitly (or by a tuned task) that lack their resources raise
    :class:`MissingResourcesError` naming the module and the bundle.  The language's default
    modules follow :func:`meteor_lite.defaults.language_config`: a default module the bundle
    lacks is left out with one note saying what is missing and how to add it (``strict``: a
    :class:`MissingResourcesError` instead, for the jar's exact configuration), and, when
    ``extendable`` (no modules, weights or task given), the synonym and paraphrase modules the
    bundle supports are added.  No bundle at all for the default modules is an error saying how
    to get one; with explicitly chosen modules scoring goes on without function words (``res:none``).
    """
    if cfg.pending_task:
        cfg, explicit = bundle_task(cfg, bundle, notes), True
    from .defaults import Capabilities, language_config

    official = bundle is not None and is_official_import(bundle)
    caps = Capabilities.of_resources(resources, official=official, function_words=bundle is not None)
    fitted = language_config(cfg, caps, explicit=explicit, extendable=extendable, strict=strict)
    missing = list(fitted.missing)
    if explicit:
        if missing:
            raise MissingResourcesError(explicit_missing_message(missing, bundle))
        return cfg
    if bundle is None or (missing and strict):
        raise MissingResourcesError(missing_resources_message(cfg, bundle, missing))
    if fitted.dropped:
        notes.append(reduced_modules_message(cfg, bundle, list(fitted.dropped), fitted.config))
    return fitted.config


def explicit_missing_message(missing: List[str], bundle: Optional[Bundle]) -> str:
    """One sentence: the modules asked for whose resources are missing, and where they were looked for."""
    what = " and ".join(f"{m} ({_NEEDS[m]})" for m in missing)
    verb = "needs" if len(missing) == 1 else "need"
    if bundle is None:
        return (
            f"module {what} {verb} a resource bundle, and none was found for this language: install one "
            "(meteor-lite bundle install LANG) or leave the module out"
        )
    return f"module {what} {verb} a table that bundle {bundle.path} lacks: use a bundle that has it, or leave the module out"


def reduced_modules_message(cfg: MeteorConfig, bundle: Bundle, dropped: List[str], fitted: MeteorConfig) -> str:
    """The one warning line when a language's default modules are scored without those the bundle lacks."""
    name = _language_name(cfg.lang)
    needs = " or ".join(_NEEDS[m] for m in dropped)
    line = (
        f"{name}'s default modules ({' '.join(cfg.modules)}) include {' '.join(dropped)}, but bundle {bundle.path} "
        f"lacks {needs}: scoring with {' '.join(fitted.modules)}"
    )
    if "paraphrase" in dropped and cfg.lang != "en":
        line += (
            f" (not Meteor 1.5's configuration). Add Meteor 1.5's table (paraphrase-{cfg.lang}.gz of the full "
            f"distribution) with: meteor-lite bundle install {cfg.lang} --paraphrase paraphrase-{cfg.lang}.gz"
        )
    else:
        line += f" (not Meteor 1.5's configuration). {_how_to_get(cfg.lang)}"
    return line + "; --strict-modules (strict_modules=True) makes this an error"


def _language_name(lang: str) -> str:
    """The language's English name, capitalised (``German``), for messages."""
    name = SCRIPT_LANGUAGES[lang][0] if lang in SCRIPT_LANGUAGES else long_name(lang)
    return name[:1].upper() + name[1:] if name != "other" else repr(lang)


def bundle_task(cfg: MeteorConfig, bundle: Optional[Bundle], notes: Optional[List[str]] = None) -> MeteorConfig:
    """``cfg`` with the tuned set named by ``cfg.task``: the bundle's, else one shipped for the language
    (:mod:`meteor_lite.tuned`); :class:`ConfigError` naming the tasks there are.

    A set that carries its normalisation applies it when ``cfg`` chose none.  A note when the set was
    tuned on text normalised otherwise (its ``norm``, else its provenance's ``aligned_with`` signature)
    than the scoring normalises: the set's figures were measured on that normalisation.
    """
    from .tuned import shipped_tasks

    where = f"bundle {bundle.path}" if bundle is not None else ""
    tasks = read_tuned_tasks(bundle.meta.get(TASKS_META_KEY), where) if bundle is not None else {}
    if cfg.task not in tasks:
        shipped = shipped_tasks(cfg.lang)
        if cfg.task not in shipped:
            raise ConfigError(unknown_task_message(cfg.task, tasks, where, shipped, cfg.lang))
        tasks, where = shipped, f"meteor-lite's shipped sets for {cfg.lang!r}"
    if cfg.custom:
        raise ConfigError(
            f"task {cfg.task!r} is a tuned set of {where}: it fixes alpha beta gamma delta, the modules and "
            "their weights; give no parameters, modules or weights with it"
        )
    task = tasks[cfg.task]
    tuned = apply_tuned_task(cfg, task)
    aligned = str(task.provenance.get("aligned_with", "")).split("|")
    tuned_norm = task.norm or (aligned[2] if len(aligned) > 2 else "")
    if notes is not None and tuned_norm and tuned_norm != tuned.norm_label:
        notes.append(
            f"task {cfg.task!r} was tuned on text normalised as '{tuned_norm}', this scoring uses "
            f"'{tuned.norm_label}' (meteor-lite score: --norm, --lower, --no-punct, --case-aware)"
        )
    return tuned


def missing_resources_message(cfg: MeteorConfig, bundle: Optional[Bundle], missing: List[str]) -> str:
    """One line: what the language's default modules lack, how to get it, how to score with fewer modules."""
    name = _language_name(cfg.lang)
    mods = " ".join(cfg.modules)
    needs = ", ".join(_NEEDS[m] for m in missing)
    reduced = "exact stem" if "stem" in cfg.modules and "stem" not in missing else "exact"
    ask = f"or choose the modules explicitly for a reduced score (--modules '{reduced}' / modules=[...])"
    if bundle is not None:
        what = f"the default modules of {name} ({mods}) need {needs}, which bundle {bundle.path} lacks"
        if cfg.lang != "en" and "paraphrase" in missing:
            return f"{what} (the official release meteor-lite imports has an English paraphrase table only): add Meteor " \
                   f"1.5's (meteor-lite bundle install {cfg.lang} --paraphrase paraphrase-{cfg.lang}.gz), build one " \
                   f"(meteor-build paraphrases) {ask}"
        return f"{what}: {_how_to_get(cfg.lang)}; {ask}"
    what = f"no resource bundle found for {name} ({cfg.lang!r})"
    if cfg.lang != "en" and "paraphrase" in missing:
        return f"{what}: {_how_to_get(cfg.lang)}; then score with --modules '{reduced}' (Meteor 1.5's release has no " \
               f"{name} paraphrase table)"
    return f"{what}: {_how_to_get(cfg.lang)}; or score with fewer modules (--modules '{reduced}')"


def _how_to_get(lang: str) -> str:
    """How to install or build the bundle of a Meteor 1.5 language (``make bundles`` only in a checkout)."""
    if lang in SCRIPT_LANGUAGES:
        return _how_to_build(lang)
    if lang == "ar-bw-red":
        return (
            "Meteor 1.5's Arabic resources are not in the release meteor-lite imports: build a bundle with meteor-build "
            "(pip install 'meteor-lite[build]'; see 'Building resources for a new language' in the README)"
        )
    text = f"pip install 'meteor-lite[official]'; meteor-lite bundle install {lang} (no Java needed; or --index URL of a pack index)"
    root = checkout_root()
    if root is not None and (root / "Makefile").is_file():
        text += " (in this checkout: make bundles)"
    return text


def _how_to_build(lang: str) -> str:
    """How to get the bundle of a language beyond Meteor 1.5 (its recipe, when the checkout ships one)."""
    root = checkout_root()
    if root is not None and (root / "resources" / "recipes" / f"{lang}.toml").is_file():
        return (
            f"build it from its recipe (pip install 'meteor-lite[build]'; meteor-build recipe "
            f"resources/recipes/{lang}.toml; in this checkout: make resources), or install its pack"
        )
    return (
        f"build one (pip install 'meteor-lite[build]'; meteor-build new-recipe --lang {lang} ..., then "
        "meteor-build recipe; see docs/languages.md), or install its pack"
    )


@dataclass
class ScorerSetup:
    """Everything a :class:`~meteor_lite.Meteor` scores with, decided in one place (:func:`setup_scorer`)."""

    config: MeteorConfig
    bundle: Optional[Bundle]
    resources: Resources
    tokenizer: str
    warnings: List[str] = field(default_factory=list)


def setup_scorer(
    lang: str,
    *,
    task: Optional[str] = None,
    params: Optional[Sequence[float]] = None,
    modules: Optional[Sequence[str]] = None,
    weights: Optional[Sequence[float]] = None,
    beam: int = 40,
    norm: bool = False,
    lower: bool = False,
    no_punct: bool = False,
    char_based: bool = False,
    case_aware: bool = False,
    bundle: BundleArg = None,
    tokenize: Optional[str] = None,
    allow_other_language: bool = False,
    strict_modules: bool = False,
) -> ScorerSetup:
    """Decide a scorer's language, bundle, stemmer, modules, weights, parameters and task, in this order.

    1. :func:`meteor_lite.config.resolve_config`: Meteor 1.5's preset for the language and task, with the overrides,
       then :func:`meteor_lite.defaults.language_config` (the one function deciding a language's configuration)
       before any bundle: the universal set's weights for modules chosen without weights outside Meteor 1.5;
    2. the tokeniser (the language's, from :func:`~meteor_lite.defaults.language_config`, unless ``tokenize``), checked now;
    3. the bundle (:func:`open_bundle`: the one given, else the language's on the search path, verified);
    4. the language checked against the bundle (:func:`check_language`);
    5. the stemmer (:func:`stemmer_name`) and the resource look-ups (:class:`~meteor_lite.resources.lookups.Resources`);
    6. the modules fitted to the bundle (:func:`fit_modules`, :func:`meteor_lite.defaults.language_config` with the
       bundle's :class:`~meteor_lite.defaults.Capabilities`): a tuned task's set, the
       modules asked for, or the language's defaults with every resource the bundle has.
    ``strict_modules`` asks for Meteor 1.5's configuration exactly: its default modules or an error, nothing added,
    and Meteor's language-independent preset (not the universal set) for a language outside Meteor 1.5.
    Every condition worth knowing is a line of ``warnings``; conditions that stop scoring raise.
    """
    from .defaults import language_config, takes_universal_weights

    # a language outside Meteor 1.5 given modules only: weights by module (the universal set's), not padded
    by_module = takes_universal_weights(lang, modules, weights, task, strict_modules)
    cfg = resolve_config(
        lang, task=task, params=params, modules=None if by_module else modules, weights=weights, beam=beam,
        norm=norm, lower=lower, no_punct=no_punct, char_based=char_based, case_aware=case_aware,
    )
    planned = language_config(cfg, chosen=module_list(modules) if by_module and modules is not None else None)
    cfg = planned.config
    notes: List[str] = list(cfg.warnings)
    name = tokenize if tokenize is not None else planned.tokenizer
    if name != "meteor":  # (imported only when needed: a fast start for Meteor's own languages)
        from .text.tokenizers import get_tokenizer

        get_tokenizer(name)  # wrong type, unknown name or missing extra: an error now, not at the first segment
    opened = open_bundle(bundle, cfg.lang, norm, notes)
    try:
        check_language(lang, cfg.lang, opened, notes, allow_other_language)
        stemmer = stemmer_name(opened, cfg.lang)
        resources = Resources(opened, stemmer, uses_stem_map(opened, stemmer))
        note = stemmer_version_note(opened, stemmer)
        if note is not None:
            notes.append(note)
        extendable = modules is None and weights is None and task is None and not strict_modules
        fitted = fit_modules(cfg, resources, opened, modules is not None, notes, strict=strict_modules, extendable=extendable)
    except BaseException:
        if opened is not None and not isinstance(bundle, Bundle):
            opened.close()
        raise
    return ScorerSetup(fitted, opened, resources, name.strip().lower(), notes)
