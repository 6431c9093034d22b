"""A language's configuration: the one function that decides it, :func:`language_config`.

Given what the caller asked for (resolved by :func:`meteor_lite.config.resolve_config`: Meteor 1.5's preset for the
language and task, with the caller's overrides) and what the bundle can do (:class:`Capabilities`: stems, synonyms,
paraphrases, function words, whether it is an official import), :func:`language_config` returns a
:class:`LanguageConfig`: the modules, weights, parameters, task and normalisation to score with, the tokeniser, and
why (the modules left out for want of a resource, those added because the bundle supports them, those missing).
Pure look-ups, no I/O.  Its callers: :func:`meteor_lite.configure.setup_scorer` (every :class:`~meteor_lite.Meteor`,
``meteor-lite score``), ``meteor-jar``'s set-up (:func:`meteor_lite.jarcli.setup.jar_config`) and ``meteor-lite
bundle available`` (``meteor_lite_builders.recipes.shipped.available_lines``, with the capabilities a bundle would
have once installed).

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
  (:func:`meteor_lite.tuned.universal_set`): one set of parameters and weights tuned on pooled languages, Meteor
  Universal's idea (Denkowski & Lavie 2014), shipped in ``tuned_tasks.json`` under language ``*``; modules it is
  given without weights or task take the universal set's weight each (:func:`takes_universal_weights`).

Modules, weights or a task given by the caller are never extended: only the language's defaults are.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from .align.modules import METEOR_MODULES, REGISTRY, RESOURCES
from .config import MeteorConfig, TunedTask, resolve_config
from .languages import LANGUAGES, MODULES, Params, default_tokenizer, language_alias, preset
from .tuned import universal_set

__all__ = [
    "Capabilities",
    "LanguageConfig",
    "language_config",
    "takes_universal_weights",
    "universal_weight",
    "universal_modules",
]


@dataclass(frozen=True)
class Capabilities:
    """What a bundle (and the stemmer the scorer runs with it) can do for the modules.

    ``stem``, ``synonyms`` and ``paraphrases`` are the resources of the registry
    (:data:`meteor_lite.align.modules.RESOURCES`); ``function_words`` whether it has a function-word list;
    ``official`` whether it is an official import of Meteor 1.5's resources (then nothing is added to Meteor's
    modules).
    """

    stem: bool = False
    synonyms: bool = False
    paraphrases: bool = False
    function_words: bool = False
    official: bool = False

    @classmethod
    def of_resources(cls, resources: Any, *, official: bool = False, function_words: bool = False) -> "Capabilities":
        """The capabilities of ``resources`` (a :class:`~meteor_lite.resources.lookups.Resources`)."""
        has = {need: bool(getattr(resources, attr)) for need, (attr, _bit) in RESOURCES.items()}
        return cls(**has, function_words=function_words, official=official)

    def available(self) -> Dict[str, bool]:
        """Whether each registered module has what it needs (module name -> bool)."""
        return {m.name: m.needs is None or bool(getattr(self, m.needs)) for m in REGISTRY}


@dataclass(frozen=True)
class LanguageConfig:
    """A language's configuration, and why it is so.

    ``config`` is what to score with; ``tokenizer`` the language's default tokeniser; ``dropped`` the default modules
    left out for want of a resource; ``added`` the modules added because the bundle supports them; ``missing`` the
    requested modules whose resource is missing (for modules chosen by the caller, or with ``strict``, the caller
    raises: nothing is left out then).
    """

    config: MeteorConfig
    tokenizer: str
    dropped: Tuple[str, ...] = ()
    added: Tuple[str, ...] = ()
    missing: Tuple[str, ...] = ()

    @property
    def modules(self) -> Tuple[str, ...]:
        """The modules scored with."""
        return self.config.modules

    @property
    def weights(self) -> Tuple[float, ...]:
        """One weight per module."""
        return self.config.weights

    @property
    def params(self) -> Params:
        """(alpha, beta, gamma, delta)."""
        return self.config.params

    @property
    def task(self) -> str:
        """The task's name (Meteor's, or a tuned set's)."""
        return self.config.task

    @property
    def norm(self) -> str:
        """The normalisation, as the signature names it (``norm``, ``lower``, ``none``, ...)."""
        return self.config.norm_label


#: The universal set of ``tuned_tasks.json`` (``language_config``'s default).
_SHIPPED: Any = object()


def language_config(
    request: Union[str, MeteorConfig],
    capabilities: Optional[Capabilities] = None,
    *,
    chosen: Optional[Sequence[str]] = None,
    explicit: bool = False,
    extendable: bool = True,
    strict: bool = False,
    universal: Optional[TunedTask] = _SHIPPED,
) -> LanguageConfig:
    """The configuration of a language, given the request and the bundle's ``capabilities``.

    ``request`` is a language code (Meteor 1.5's preset for it, nothing overridden) or a configuration resolved by
    :func:`meteor_lite.config.resolve_config` with the caller's overrides.  ``capabilities`` None: before any bundle
    is known (the tokeniser, and the request as Meteor 1.5 configures it, as ``meteor-jar``'s header shows it).
    ``chosen``: modules given without weights or task for a language outside Meteor 1.5
    (:func:`takes_universal_weights`), each weighted by the universal set.  ``explicit``: the modules were chosen by
    the caller or a tuned set (nothing is left out or added; ``missing`` says what lacks its resource).  ``strict``:
    Meteor 1.5's configuration exactly (nothing left out or added either).  ``extendable`` False when the caller
    gave modules, weights or a task.  ``universal``: the universal set (default: the shipped one).
    """
    cfg = resolve_config(request) if isinstance(request, str) else request
    needed = chosen is not None or (capabilities is not None and not explicit and not strict)
    if universal is _SHIPPED:  # read only when it may weigh something (the shipped file is read once, when first needed)
        universal = universal_set() if needed else None
    if chosen is not None:
        cfg = universal_modules(cfg, tuple(chosen), universal)
    tokenizer = default_tokenizer(cfg.lang)
    if capabilities is None:
        return LanguageConfig(cfg, tokenizer)
    available = capabilities.available()
    missing = tuple(m for m in cfg.modules if not available.get(m, False))
    if explicit or strict:
        return LanguageConfig(cfg, tokenizer, missing=missing)
    if cfg.lang not in LANGUAGES and extendable and not cfg.custom:
        mods_u = tuple(m.name for m in REGISTRY if m.default and available.get(m.name, False))
        added_u = tuple(m for m in mods_u if m not in cfg.modules)
        return LanguageConfig(_universal_config(cfg, mods_u, universal, universal is not None), tokenizer, (), added_u,
                              missing)
    mods: List[str] = [m for m in cfg.modules if m not in missing]
    weights: List[float] = [w for m, w in zip(cfg.modules, cfg.weights) if m not in missing]
    added: List[str] = []
    if extendable and not capabilities.official:
        for m in ("synonym", "paraphrase"):
            if available.get(m, False) and m not in cfg.modules:
                mods.append(m)
                weights.append(_preset_weight(cfg, m, universal))
                added.append(m)
    if not missing and not added:
        return LanguageConfig(cfg, tokenizer)
    order = sorted(range(len(mods)), key=lambda i: MODULES.index(mods[i]))
    new = replace(cfg, modules=tuple(mods[i] for i in order), weights=tuple(weights[i] for i in order))
    return LanguageConfig(new, tokenizer, missing, tuple(added), missing)


def takes_universal_weights(
    lang: str, modules: Optional[Sequence[str]], weights: Optional[Sequence[float]], task: Optional[str], strict: bool
) -> bool:
    """Whether modules given for ``lang`` take the universal set's weight each (:func:`language_config`'s ``chosen``):
    a language outside Meteor 1.5, modules given without weights or task, and not ``strict`` (Meteor 1.5's
    configuration exactly keeps the jar's positional weights)."""
    return modules is not None and weights is None and task is None and not strict and language_alias(lang) not in LANGUAGES


#: Weights when no universal set is shipped: each module's in the language-independent preset (the registry's,
#: :mod:`meteor_lite.align.modules`: Meteor 1.5's ``li`` weights for its four modules).
_LI_WEIGHTS: Dict[str, float] = {m.name: m.li_weight for m in REGISTRY}


def universal_weight(module: str, universal: Optional[TunedTask]) -> float:
    """The universal set's weight of ``module`` (Meteor's language-independent weight when it has none)."""
    if universal is not None and module in universal.modules:
        return universal.weights[universal.modules.index(module)]
    return _LI_WEIGHTS[module]


def _preset_weight(cfg: MeteorConfig, module: str, universal: Optional[TunedTask]) -> float:
    """Meteor's preset weight for ``module`` at its canonical position when the preset has one, else the universal set's."""
    weights = preset(cfg.lang, cfg.task)[1]
    pos = METEOR_MODULES.index(module)
    return weights[pos] if pos < len(weights) and len(weights) == len(METEOR_MODULES) else universal_weight(module, universal)


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
