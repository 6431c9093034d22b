"""The modules, weights and parameters a language scores with when the caller chooses none.

Pure look-ups, no I/O: :func:`meteor_lite.configure.setup_scorer` opens the bundle and asks
:func:`default_modules_for` what to score with, given which modules the bundle's resources support.

The rule (one line each):

* an **official import** of Meteor 1.5's resources scores with Meteor 1.5's default modules for the
  language and task, so every parity figure stays the jar's; a module whose resource the bundle lacks
  (the paraphrase tables of the full distribution, which the release meteor-lite imports does not carry)
  is left out with one note saying what is missing and how to add it (``strict`` makes it an error);
* any **other bundle** of a Meteor 1.5 language adds the synonym and paraphrase modules its resources
  support to Meteor's list (Meteor's weights where its preset has one for the position, the universal
  set's otherwise);
* a **language outside Meteor 1.5** scores with every module its bundle supports (exact, stem when it can
  stem, synonym and paraphrase when it has the tables), weighted by the universal set
  (:func:`universal_set`): one set of parameters and weights tuned on pooled languages, Meteor
  Universal's idea (Denkowski & Lavie 2014), shipped in ``tuned_tasks.json`` under language ``*``.

Modules, weights or a task given by the caller are never extended: only the language's defaults are.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, List, Mapping, Optional, Tuple

from .align.modules import METEOR_MODULES, REGISTRY
from .config import MeteorConfig, TunedTask
from .languages import LANGUAGES, MODULES, preset

__all__ = [
    "UNIVERSAL_KEY",
    "UNIVERSAL_NAMES",
    "DefaultModules",
    "universal_set",
    "universal_weight",
    "default_modules_for",
    "universal_modules",
]

#: The language key of the universal set in ``tuned_tasks.json`` (:mod:`meteor_lite.tuned`).
UNIVERSAL_KEY = "*"
#: The names the universal set may have there (the first one present is used).
UNIVERSAL_NAMES = ("pooled", "default", "universal")


@dataclass(frozen=True)
class DefaultModules:
    """What a language's defaults became once the bundle's resources are known.

    ``config`` is the configuration to score with; ``dropped`` the default modules left out for want
    of a resource; ``added`` the modules added because the bundle supports them.
    """

    config: MeteorConfig
    dropped: Tuple[str, ...] = ()
    added: Tuple[str, ...] = ()


def universal_set(shipped: Mapping[str, Mapping[str, TunedTask]]) -> Optional[TunedTask]:
    """The universal set among ``shipped`` (``{language: {name: set}}``), or None when none is shipped."""
    sets = shipped.get(UNIVERSAL_KEY, {})
    for name in UNIVERSAL_NAMES:
        if name in sets:
            return sets[name]
    return None


#: Weights when no universal set is shipped: each module's in the language-independent preset (the registry's,
#: :mod:`meteor_lite.align.modules`: Meteor 1.5's ``li`` weights for its four modules).
_LI_WEIGHTS: Dict[str, float] = {m.name: m.li_weight for m in REGISTRY}


def universal_weight(module: str, universal: Optional[TunedTask]) -> float:
    """The universal set's weight of ``module`` (Meteor's language-independent weight when it has none)."""
    if universal is not None and module in universal.modules:
        return universal.weights[universal.modules.index(module)]
    return _LI_WEIGHTS[module]


def default_modules_for(
    cfg: MeteorConfig,
    available: Mapping[str, bool],
    *,
    official: bool,
    extendable: bool,
    universal: Optional[TunedTask],
) -> DefaultModules:
    """The configuration a language's defaults give with the resources ``available`` (module -> bool).

    ``cfg`` holds Meteor 1.5's defaults for the language (from :func:`meteor_lite.config.resolve_config`);
    ``official`` says the bundle is an official import (then nothing is added); ``extendable`` is False
    when the caller gave modules, weights or a task (then nothing is added either).  Missing modules are
    always left out here: the caller decides whether that is an error.
    """
    dropped = tuple(m for m in cfg.modules if not available.get(m, False))
    if cfg.lang not in LANGUAGES and extendable and not cfg.custom:
        return _universal_defaults(cfg, available, universal)
    mods: List[str] = [m for m in cfg.modules if m not in dropped]
    weights: List[float] = [w for m, w in zip(cfg.modules, cfg.weights) if m not in dropped]
    added: List[str] = []
    if extendable and not official:
        for m in ("synonym", "paraphrase"):
            if available.get(m, False) and m not in cfg.modules:
                mods.append(m)
                weights.append(_preset_weight(cfg, m, universal))
                added.append(m)
    if not dropped and not added:
        return DefaultModules(cfg)
    order = sorted(range(len(mods)), key=lambda i: MODULES.index(mods[i]))
    new = replace(cfg, modules=tuple(mods[i] for i in order), weights=tuple(weights[i] for i in order))
    return DefaultModules(new, dropped, tuple(added))


def _preset_weight(cfg: MeteorConfig, module: str, universal: Optional[TunedTask]) -> float:
    """Meteor's preset weight for ``module`` at its canonical position when the preset has one, else the universal set's."""
    weights = preset(cfg.lang, cfg.task)[1]
    pos = METEOR_MODULES.index(module)
    return weights[pos] if pos < len(weights) and len(weights) == len(METEOR_MODULES) else universal_weight(module, universal)


def _universal_defaults(cfg: MeteorConfig, available: Mapping[str, bool], universal: Optional[TunedTask]) -> DefaultModules:
    """Every module the resources support, with the universal set's parameters and weights (nothing is dropped)."""
    mods = tuple(m.name for m in REGISTRY if m.default and available.get(m.name, False))
    added = tuple(m for m in mods if m not in cfg.modules)
    return DefaultModules(_universal_config(cfg, mods, universal, universal is not None), (), added)


def universal_modules(cfg: MeteorConfig, modules: Tuple[str, ...], universal: Optional[TunedTask]) -> MeteorConfig:
    """``cfg`` (a language outside Meteor 1.5, no weights or task given) scoring ``modules``, each weighted by the
    universal set (and with its parameters unless the caller gave some), instead of the jar's positional padding."""
    if universal is None or cfg.custom:
        return replace(_universal_config(cfg, modules, universal, False), custom=True)
    return _universal_config(cfg, modules, universal, True)


def _universal_config(
    cfg: MeteorConfig, modules: Tuple[str, ...], universal: Optional[TunedTask], with_params: bool
) -> MeteorConfig:
    """``cfg`` scoring ``modules`` with the universal set's weights, and its parameters and name when ``with_params``."""
    weights = tuple(universal_weight(m, universal) for m in modules)
    if universal is None or not with_params:
        return replace(cfg, modules=modules, weights=weights)
    return replace(
        cfg, task=universal.name, alpha=universal.alpha, beta=universal.beta, gamma=universal.gamma,
        delta=universal.delta, modules=modules, weights=weights, tuned_hash=universal.short_hash,
    )
