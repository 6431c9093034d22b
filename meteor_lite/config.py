"""Scoring configurations: a language, a task preset and overrides resolved as Meteor 1.5 does.

The language table and the presets are in :mod:`meteor_lite.languages`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .errors import ConfigError
from .jarcompat import java_double
from .languages import (
    ADEQUACY,
    LANGUAGES,
    MODULE_SHORT,
    MODULES,
    TASK_DESCRIPTIONS,
    TASKS,
    Params,
    canonical_language,
    default_modules,
    default_task,
    preset,
)

__all__ = [
    "MeteorConfig",
    "resolve_config",
    "ConfigError",
    "PARAM_DOMAINS",
    "check_domain",
    "TunedTask",
    "TASKS_META_KEY",
    "check_task_name",
    "read_tuned_tasks",
    "apply_tuned_task",
    "unknown_task_message",
    "CASE_RULE",
    "NORM_LABELS",
    "TASK_UNITS",
    "module_list",
]

#: The bundle ``meta`` key holding the tuned parameter sets (JSON object: name -> set).
TASKS_META_KEY = "tasks"

#: How the case-aware modes (``case_aware=True``; signature ``norm-case``, ``case``) match, in one line.
CASE_RULE = (
    "case kept: exact matches only identical words (case-sensitive); stem, synonym and paraphrase "
    "compare lower-cased words, so a word differing only in case is a stem match (or a later module's), never exact"
)

#: Normalisation labels (signature, tuned sets) -> (norm, lower, no_punct, case_aware).
NORM_LABELS: Dict[str, Tuple[bool, bool, bool, bool]] = {
    "none": (False, False, False, False),
    "lower": (False, True, False, False),
    "norm": (True, True, False, False),
    "norm-nopunct": (True, True, True, False),
    "case": (False, False, False, True),
    "norm-case": (True, False, False, True),
    "norm-case-nopunct": (True, False, True, True),
}

#: What a tuned set's precision and recall may count (:attr:`TunedTask.unit`): words (""), or characters.
TASK_UNITS = ("", "char")

#: A tuned task's name: lower-case letters, digits, ``.``, ``_`` and ``-`` (it goes into the signature).
_TASK_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")

#: Each parameter's domain in Meteor's formula (Lavie & Denkowski): name, low, high (None: unbounded).
#: Meteor 1.5 accepts any number and then computes scores outside [0, 1] (or NaN); meteor-lite refuses.
PARAM_DOMAINS: Tuple[Tuple[str, float, Optional[float]], ...] = (
    ("alpha", 0.0, 1.0),
    ("beta", 0.0, None),
    ("gamma", 0.0, 1.0),
    ("delta", 0.0, 1.0),
)


@dataclass(frozen=True)
class MeteorConfig:
    """A fully resolved scoring configuration (language + task preset + overrides)."""

    lang: str
    task: str
    alpha: float
    beta: float
    gamma: float
    delta: float
    modules: Tuple[str, ...]
    weights: Tuple[float, ...]
    beam: int = 40
    norm: bool = False
    lower: bool = False
    no_punct: bool = False
    char_based: bool = False  # -ch: character-based precision and recall (never implied by -t util)
    #: case-aware (:data:`CASE_RULE`): no lower-casing; exact matches are case-sensitive, the later
    #: modules (stem, synonym, paraphrase) match across case.  Not one of Meteor 1.5's modes.
    case_aware: bool = False
    custom: bool = False
    warnings: Tuple[str, ...] = field(default=(), compare=False)
    #: short hash of a bundle's tuned task (:class:`TunedTask`), "" for Meteor's own tasks
    tuned_hash: str = ""

    @property
    def pending_task(self) -> bool:
        """True while ``task`` names no Meteor task and no bundle's tuned set was applied yet."""
        return self.task not in TASKS and not self.tuned_hash

    @property
    def params(self) -> Params:
        """(alpha, beta, gamma, delta)."""
        return (self.alpha, self.beta, self.gamma, self.delta)

    @property
    def task_description(self) -> str:
        """The task's name in Meteor's report header (``Ranking``, ``Custom``, ``Tuned (NAME)``, ...).

        A configuration whose task is still to be found in a bundle (:attr:`pending_task`) has none:
        :class:`ConfigError` (unknown task).
        """
        if self.pending_task:
            raise ConfigError(unknown_task_message(self.task, None))
        if self.tuned_hash:
            return f"Tuned ({self.task})"
        return TASK_DESCRIPTIONS["custom" if self.custom else self.task]

    @property
    def normalization(self) -> str:
        """Meteor's name for the normalisation mode (``norm_case`` / ``case`` for the case-aware modes)."""
        if self.norm:
            base = "norm_case" if self.case_aware else "norm"
            return base + "_nopunct" if self.no_punct else base
        if self.case_aware:
            return "case"
        return "lc_only" if self.lower else "no_norm"

    @property
    def norm_label(self) -> str:
        """The normalisation as the signature names it: ``norm``, ``norm-nopunct``, ``lower``, ``none``, or
        the case-aware ``norm-case``, ``norm-case-nopunct``, ``case`` (see :data:`NORM_LABELS`)."""
        if self.norm:
            base = "norm-case" if self.case_aware else "norm"
            return base + "-nopunct" if self.no_punct else base
        if self.case_aware:
            return "case"
        return "lower" if self.lower else "none"

    def eval_id(self) -> str:
        """Meteor 1.5's ``Eval ID`` string for this configuration."""
        return "-".join(
            [
                "meteor-1.5",
                "ch" if self.char_based else "wo",
                self.lang,
                self.normalization,
                "_".join(java_double(p) for p in self.params),
                "_".join(MODULE_SHORT[m] for m in self.modules),
                "_".join(java_double(w) for w in self.weights),
            ]
        )


def resolve_config(
    lang: str = "en",
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
) -> MeteorConfig:
    """Resolve language, task and overrides into a :class:`MeteorConfig`, as Meteor 1.5 does.

    ``case_aware`` (not a Meteor 1.5 mode; :data:`CASE_RULE`) keeps the case: with ``norm``, Meteor's
    tokeniser and punctuation normaliser without the lower-casing; it cannot go with ``lower``.

    A ``task`` that is none of Meteor 1.5's (:data:`~meteor_lite.languages.TASKS`) may name a tuned
    set of the bundle: the configuration returned is then :attr:`~MeteorConfig.pending_task` (the
    language's defaults stand in) until :func:`apply_tuned_task` gives it the set's values
    (:func:`meteor_lite.configure.fit_modules` does, or refuses the name).  Meteor's names win.

    Order: the language's default task; the task's parameters, modules and
    weights; then explicit ``params``, ``weights`` and ``modules`` (weights are
    cut or padded with 0.0 to the module count, with a warning when padded).
    ``char_based`` is the jar's ``-ch`` (character-based precision and recall).
    The jar's usage text says ``-t util`` implies ``-ch``, but the jar does not
    apply it unless ``-ch`` is given, and neither does this function.
    """
    code = canonical_language(lang)
    task_name = (task or default_task(code)).lower()
    if task_name == "default":
        task_name = default_task(code)
    # A name that is none of Meteor's tasks may be a bundle's tuned set: the language's defaults stand
    # in until the bundle is open (configure.fit_modules applies it, or refuses the name).
    pending = task_name not in TASKS
    known = default_task(code) if pending else task_name
    base_params, base_weights = preset(code, known)
    mods = default_modules(code, known)
    warnings: List[str] = []
    p: Params = base_params
    if params is not None:
        p, base_weights = _custom_params(code, known, task is not None and not pending, params, base_weights, warnings)
    w: Tuple[float, ...] = tuple(base_weights[i] if i < len(base_weights) else 0.0 for i in range(len(mods)))
    if weights is not None:
        w = tuple(float(x) for x in weights)
    if modules is not None:
        mods = module_list(modules)
    w = _fit_weights(w, mods, weights_given=weights is not None, modules_given=modules is not None, warnings=warnings)
    if beam < 1:
        raise ConfigError(f"beam size must be at least 1, got {beam}")
    if case_aware and lower:
        raise ConfigError("case-aware scoring keeps the case: it cannot go with lower-casing (--lower)")
    check_domain(p, w, mods)
    alpha, beta, gamma, delta = p
    return MeteorConfig(
        lang=code,
        task=task_name,
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        delta=delta,
        modules=tuple(mods),
        weights=w,
        beam=int(beam),
        norm=norm,
        lower=(lower or norm) and not case_aware,
        no_punct=no_punct,
        char_based=char_based,
        case_aware=case_aware,
        custom=params is not None or weights is not None or modules is not None,
        warnings=tuple(warnings),
    )


def check_domain(params: Sequence[float], weights: Sequence[float], modules: Sequence[str]) -> None:
    """Refuse parameters outside the formula's domain with a :class:`ConfigError` naming the parameter.

    alpha, gamma and delta in [0, 1], beta >= 0, module weights >= 0, every value finite.
    """
    for (name, low, high), value in zip(PARAM_DOMAINS, params):
        domain = f"in [{low:g}, {high:g}]" if high is not None else f"a finite number >= {low:g}"
        if not math.isfinite(value) or value < low or (high is not None and value > high):
            raise ConfigError(f"parameter {name} must be {domain}, got {value!r}")
    for module, value in zip(modules, weights):
        if not math.isfinite(value) or value < 0:
            raise ConfigError(f"weight of module {module!r} must be a finite number >= 0, got {value!r}")


def _custom_params(
    code: str,
    task_name: str,
    task_given: bool,
    params: Sequence[float],
    base_weights: Tuple[float, ...],
    warnings: List[str],
) -> Tuple[Params, Tuple[float, ...]]:
    """Custom (alpha, beta, gamma, delta) and the weights Meteor 1.5 gives them."""
    if len(params) != 4:
        raise ConfigError(f"parameters need 4 values (alpha beta gamma delta), got {len(params)}")
    a, b, g, d = (float(x) for x in params)
    # Meteor 1.5 turns custom parameters into a "custom" task, which takes the
    # Adequacy weights of the language (any task asked for is ignored).
    if task_given and task_name != "adq":
        warnings.append(f"custom parameters replace task {task_name!r} (as in Meteor 1.5)")
    if code in ADEQUACY:
        base_weights = ADEQUACY[code][1]
    elif code in LANGUAGES:
        warnings.append(
            f"Meteor 1.5 would weight every module 0 with custom parameters for {code!r}; "
            "meteor-lite keeps the task's weights"
        )
    return (a, b, g, d), base_weights


def module_list(modules: Sequence[str]) -> Tuple[str, ...]:
    """Validated, lower-cased module names."""
    mods_list = []
    for m in modules:
        name = m.strip().lower()
        if name not in MODULES:
            raise ConfigError(f"unknown module {m!r} (choose from {', '.join(MODULES)})")
        if name in mods_list:
            raise ConfigError(f"module {name!r} given twice (each module can be used once)")
        mods_list.append(name)
    if not mods_list:
        raise ConfigError("at least one module is needed")
    return tuple(mods_list)


def _fit_weights(
    w: Tuple[float, ...], mods: Tuple[str, ...], *, weights_given: bool, modules_given: bool, warnings: List[str]
) -> Tuple[float, ...]:
    """Pad (with a warning) or cut the weights to one per module."""
    if len(w) < len(mods):
        warnings.append("more modules than weights: modules with no weight are not counted")
        return w + (0.0,) * (len(mods) - len(w))
    if len(w) > len(mods):
        if weights_given and not modules_given:
            raise ConfigError(f"{len(w)} weights given for {len(mods)} modules ({' '.join(mods)})")
        return w[: len(mods)]
    return w


@dataclass(frozen=True)
class TunedTask:
    """A named parameter set tuned on human judgments, carried by a bundle (meta key :data:`TASKS_META_KEY`).

    ``provenance`` says how it was tuned (judgments, statistic, held-out figure and interval,
    date, meteor-lite version); it does not change a score and is not part of :attr:`short_hash`.
    """

    name: str
    alpha: float
    beta: float
    gamma: float
    delta: float
    modules: Tuple[str, ...]
    weights: Tuple[float, ...]
    provenance: Dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: the normalisation the set carries (a key of :data:`NORM_LABELS`), applied when the caller chooses
    #: none; "" for sets that carry none (they score with the caller's, as before)
    norm: str = ""
    #: what precision and recall count: "" (words, Meteor's default) or "char" (characters: Meteor 1.5's ``-ch``,
    #: each matched word weighing its length); a set that carries "char" always scores so
    unit: str = ""

    def params_dict(self) -> Dict[str, Any]:
        """What changes the numbers: α, β, γ, δ, modules and weights (and the normalisation and the unit, when
        carried: a set of words and no normalisation keeps the hash it had before sets could carry them)."""
        out: Dict[str, Any] = {
            "alpha": self.alpha, "beta": self.beta, "gamma": self.gamma, "delta": self.delta,
            "modules": list(self.modules), "weights": list(self.weights),
        }
        if self.norm:
            out["norm"] = self.norm
        if self.unit:
            out["unit"] = self.unit
        return out

    @property
    def short_hash(self) -> str:
        """First 8 hex digits of the SHA-256 of :meth:`params_dict` as compact, key-sorted JSON."""
        import hashlib
        import json

        text = json.dumps(self.params_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]

    def to_dict(self) -> Dict[str, Any]:
        """JSON-ready dict: the parameters and ``provenance``."""
        return {**self.params_dict(), "provenance": dict(self.provenance)}

    @classmethod
    def from_dict(cls, name: str, data: object, where: str = "tuned task") -> "TunedTask":
        """Read and check one set (:class:`ConfigError` naming ``where`` and the problem)."""
        check_task_name(name)
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: task {name!r} is not a JSON object")
        try:
            params = [float(data[k]) for k in ("alpha", "beta", "gamma", "delta")]
            modules = module_list([str(m) for m in data["modules"]])
            weights = tuple(float(w) for w in data["weights"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"{where}: task {name!r} lacks a valid {exc} (alpha, beta, gamma, delta, modules, weights)") from None
        if len(weights) != len(modules):
            raise ConfigError(f"{where}: task {name!r} has {len(weights)} weights for {len(modules)} modules")
        try:
            check_domain(params, weights, modules)
        except ConfigError as exc:
            raise ConfigError(f"{where}: task {name!r}: {exc}") from None
        prov = data.get("provenance", {})
        norm = data.get("norm", "")
        if norm and norm not in NORM_LABELS:
            raise ConfigError(f"{where}: task {name!r}: unknown normalisation {norm!r} (one of {', '.join(NORM_LABELS)})")
        unit = data.get("unit", "")
        if unit not in TASK_UNITS:
            raise ConfigError(f"{where}: task {name!r}: unknown unit {unit!r} (\"char\", or none for words)")
        a, b, g, d = params
        return cls(name, a, b, g, d, modules, weights, dict(prov) if isinstance(prov, dict) else {}, str(norm), str(unit))


def check_task_name(name: str) -> None:
    """Refuse a tuned task name that Meteor's task names would hide, or that the signature cannot carry."""
    if name in TASKS or name in ("default", "custom"):
        raise ConfigError(f"task name {name!r} is Meteor 1.5's (its own names win): choose another")
    if not _TASK_NAME.match(name):
        raise ConfigError(
            f"task name {name!r}: use 1-64 lower-case letters, digits, '.', '_' or '-' (starting with a letter or digit)"
        )


def read_tuned_tasks(raw: Optional[str], where: str = "bundle") -> Dict[str, TunedTask]:
    """The tuned sets of a bundle's meta value ``raw`` (None or "": none), checked, by name."""
    if not raw:
        return {}
    from .resources.metadata import load_json

    try:
        data = load_json(raw)
    except ValueError as exc:
        raise ConfigError(f"{where}: meta {TASKS_META_KEY!r} is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: meta {TASKS_META_KEY!r} is not a JSON object of named tasks")
    return {name: TunedTask.from_dict(name, value, where) for name, value in data.items()}


def apply_tuned_task(cfg: MeteorConfig, task: TunedTask) -> MeteorConfig:
    """``cfg`` (a :attr:`~MeteorConfig.pending_task` configuration) with the values of ``task``.

    A set that carries its normalisation (:attr:`TunedTask.norm`) gives it to a configuration that
    chose none (``norm_label == "none"``); a normalisation chosen explicitly is kept.  A set of characters
    (:attr:`TunedTask.unit` "char") scores with character-based precision and recall, as ``-ch``: its
    parameters were tuned on them.
    """
    if task.norm and cfg.norm_label == "none":
        norm, lower, no_punct, case_aware = NORM_LABELS[task.norm]
        cfg = replace(cfg, norm=norm, lower=lower, no_punct=no_punct, case_aware=case_aware)
    if task.unit == "char":
        cfg = replace(cfg, char_based=True)
    return replace(
        cfg, task=task.name, alpha=task.alpha, beta=task.beta, gamma=task.gamma, delta=task.delta,
        modules=task.modules, weights=task.weights, custom=False, tuned_hash=task.short_hash,
    )


def unknown_task_message(
    name: str, tasks: Optional[Dict[str, TunedTask]], where: str = "", shipped: Optional[Dict[str, TunedTask]] = None,
    lang: str = "",
) -> str:
    """What ``--task NAME`` could have been: Meteor's tasks, the tuned ones of bundle ``where``, and the
    sets meteor-lite ships for the language (``shipped``, :mod:`meteor_lite.tuned`)."""
    text = f"unknown task {name!r} (Meteor 1.5's tasks: {', '.join(TASKS)}"
    if tasks:
        text += f"; tuned tasks of {where or 'the bundle'}: {', '.join(sorted(tasks))}"
    elif where:
        text += f"; {where} carries no tuned tasks"
    if shipped:
        text += f"; tuned sets shipped for {lang or 'the language'}: {', '.join(sorted(shipped))}"
    return text + ")"
