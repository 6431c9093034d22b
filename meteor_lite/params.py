"""Meteor 1.5's languages, tasks, parameter presets and module lists.

The values are the published ones (Denkowski & Lavie 2011, Tables 4 and 7) and
those Meteor 1.5 prints in its report header (``Modules:``, ``Weights:``,
``Parameters:``), checked against the official jar.

Weights are positional: the i-th weight belongs to the i-th module of the list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

#: Matcher modules, in Meteor's canonical order.
MODULES: Tuple[str, ...] = ("exact", "stem", "synonym", "paraphrase")
MODULE_SHORT = {"exact": "ex", "stem": "st", "synonym": "sy", "paraphrase": "pa"}

#: Language code -> (Meteor's long name, snowball stemmer name or None).
LANGUAGES: Dict[str, Tuple[str, Optional[str]]] = {
    "en": ("english", "english"),
    "cz": ("czech", None),
    "fr": ("french", "french"),
    "es": ("spanish", "spanish"),
    "de": ("german", "german"),
    "ar": ("arabic-buckwalter-reduced", None),
    "pt": ("portuguese", "portuguese"),
    "ru": ("russian", "russian"),
    "da": ("danish", "danish"),
    "ro": ("romanian", "romanian"),
    "hu": ("hungarian", "hungarian"),
    "tr": ("turkish", "turkish"),
    "fi": ("finnish", "finnish"),
    "nl": ("dutch", "dutch"),
    "it": ("italian", "italian"),
    "no": ("norwegian", "norwegian"),
    "se": ("swedish", "swedish"),
}

#: Snowball algorithms of languages Meteor 1.5 does not know (ISO 639-1 codes), for bundles
#: built by meteor-build; the scorer's fallback stemmer and the builders' stem maps use this table.
SNOWBALL_BY_CODE: Dict[str, str] = {
    "hy": "armenian", "eu": "basque", "ca": "catalan", "el": "greek", "hi": "hindi",
    "id": "indonesian", "ga": "irish", "lt": "lithuanian", "ne": "nepali", "nb": "norwegian",
    "sr": "serbian", "sv": "swedish", "ta": "tamil", "yi": "yiddish",
}

#: Other spellings accepted for a language code.
LANGUAGE_ALIASES: Dict[str, str] = {
    "cs": "cz",
    "sv": "se",
    "ar-bw-red": "ar",
    "nb": "no",
}
for _code, (_long, _stem) in LANGUAGES.items():
    LANGUAGE_ALIASES.setdefault(_long, _code)

#: Languages with tuned Ranking parameters (Meteor's "fully supported" set, plus Russian).
SUPPORTED = frozenset({"en", "cz", "fr", "es", "de", "ru"})

#: Default modules per language (the language-independent languages use exact + stem).
LANGUAGE_MODULES: Dict[str, Tuple[str, ...]] = {
    "en": ("exact", "stem", "synonym", "paraphrase"),
    "fr": ("exact", "stem", "paraphrase"),
    "es": ("exact", "stem", "paraphrase"),
    "de": ("exact", "stem", "paraphrase"),
    "cz": ("exact", "paraphrase"),
    "ru": ("exact", "stem", "paraphrase"),
    "ar": ("exact", "stem"),
}

TASKS: Tuple[str, ...] = ("rank", "adq", "hter", "li", "tune", "util", "universal")
TASK_DESCRIPTIONS = {
    "rank": "Ranking",
    "adq": "Adequacy",
    "hter": "HTER",
    "li": "Language-Independent",
    "tune": "Tune",
    "util": "Translator-Utility",
    "universal": "Universal",
    "custom": "Custom",
}

Params = Tuple[float, float, float, float]

# Per-language task tables: (alpha, beta, gamma, delta), weights for up to four modules.
_RANK: Dict[str, Tuple[Params, Tuple[float, ...]]] = {
    "en": ((0.85, 0.20, 0.60, 0.75), (1.0, 0.6, 0.8, 0.6)),
    "cz": ((0.95, 0.20, 0.60, 0.80), (1.0, 0.4)),
    "fr": ((0.90, 1.40, 0.60, 0.65), (1.0, 0.2, 0.4)),
    "es": ((0.65, 1.30, 0.50, 0.80), (1.0, 0.8, 0.6)),
    "de": ((0.95, 1.00, 0.55, 0.55), (1.0, 0.8, 0.2)),
    "ru": ((0.75, 1.40, 0.70, 0.50), (1.0, 0.5, 0.5)),
}
_ADQ = {"en": ((0.75, 1.40, 0.45, 0.70), (1.0, 1.0, 0.6, 0.8))}
_HTER = {"en": ((0.40, 1.50, 0.35, 0.55), (1.0, 0.2, 0.6, 0.8))}
_UTIL = {"en": ((0.65, 0.10, 0.55, 0.65), (1.0, 0.0, 0.0, 0.8))}
_LI: Tuple[Params, Tuple[float, ...]] = ((0.75, 1.40, 0.70, 0.50), (1.0, 0.5, 0.5, 0.5))
_TUNE: Tuple[Params, Tuple[float, ...]] = ((0.5, 1.0, 0.5, 0.5), (1.0, 0.5, 0.5, 0.5))
_UNIVERSAL: Tuple[Params, Tuple[float, ...]] = ((0.70, 1.40, 0.30, 0.70), (1.0, 0.6, 0.0, 0.0))
_PER_LANGUAGE = {"rank": _RANK, "adq": _ADQ, "hter": _HTER, "util": _UTIL}


class ConfigError(ValueError):
    """An unknown language, task or module, or inconsistent overrides."""


def canonical_language(lang: str) -> str:
    """Return meteor-lite's code for ``lang`` (``cs`` -> ``cz``, ``english`` -> ``en``, ...).

    Codes that Meteor 1.5 does not know are accepted as they are (lower-cased):
    they score with the language-independent parameters and exact + stem
    matching when a snowball stemmer or a bundle stem map exists for them.
    """
    code = lang.strip().lower()
    if not code:
        raise ConfigError("empty language code")
    return LANGUAGE_ALIASES.get(code, code)


def default_task(lang: str) -> str:
    """Ranking for the tuned languages, language-independent otherwise."""
    return "rank" if lang in SUPPORTED else "li"


def default_modules(lang: str, task: str) -> Tuple[str, ...]:
    """Meteor 1.5's module list for a language and task."""
    if task == "universal":
        return ("exact", "paraphrase")
    return LANGUAGE_MODULES.get(lang, ("exact", "stem"))


def preset(lang: str, task: str) -> Tuple[Params, Tuple[float, ...]]:
    """(parameters, weights) of a task for a language, as Meteor 1.5 chooses them."""
    if task not in TASKS:
        raise ConfigError(f"unknown task {task!r} (choose from {', '.join(TASKS)})")
    if task == "universal":
        return _UNIVERSAL
    if task == "li" or lang not in LANGUAGES:
        return _LI
    if task == "tune":
        return _TUNE
    table = _PER_LANGUAGE[task]
    if lang not in table:
        raise ConfigError(f"task {task!r} has no parameters for language {lang!r} in Meteor 1.5")
    return table[lang]


def _fmt(x: float) -> str:
    """Java's Double.toString for the simple values used in configuration strings."""
    from .report import java_double

    return java_double(x)


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
    char_based: bool = False
    custom: bool = False
    warnings: Tuple[str, ...] = field(default=(), compare=False)

    @property
    def params(self) -> Params:
        return (self.alpha, self.beta, self.gamma, self.delta)

    @property
    def task_description(self) -> str:
        return TASK_DESCRIPTIONS["custom" if self.custom else self.task]

    @property
    def normalization(self) -> str:
        """Meteor's name for the normalisation mode."""
        if self.norm:
            return "norm_nopunct" if self.no_punct else "norm"
        return "lc_only" if self.lower else "no_norm"

    def eval_id(self) -> str:
        """Meteor 1.5's ``Eval ID`` string for this configuration."""
        return "-".join(
            [
                "meteor-1.5",
                "ch" if self.char_based else "wo",
                self.lang,
                self.normalization,
                "_".join(_fmt(p) for p in self.params),
                "_".join(MODULE_SHORT[m] for m in self.modules),
                "_".join(_fmt(w) for w in self.weights),
            ]
        )


def resolve(
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
) -> MeteorConfig:
    """Resolve language, task and overrides into a :class:`MeteorConfig`, as Meteor 1.5 does.

    Order: the language's default task; the task's parameters, modules and
    weights; then explicit ``params``, ``weights`` and ``modules`` (weights are
    cut or padded with 0.0 to the module count, with a warning when padded).
    """
    code = canonical_language(lang)
    task_name = (task or default_task(code)).lower()
    if task_name == "default":
        task_name = default_task(code)
    base_params, base_weights = preset(code, task_name)
    mods = default_modules(code, task_name)
    warnings: List[str] = []
    custom = False

    p = tuple(float(x) for x in base_params)
    if params is not None:
        if len(params) != 4:
            raise ConfigError(f"parameters need 4 values (alpha beta gamma delta), got {len(params)}")
        p = tuple(float(x) for x in params)
        custom = True
        # Meteor 1.5 turns custom parameters into a "custom" task, which takes the
        # Adequacy weights of the language (any task asked for is ignored).
        if task is not None and task_name != "adq":
            warnings.append(f"custom parameters replace task {task_name!r} (as in Meteor 1.5)")
        if code in _ADQ:
            base_weights = _ADQ[code][1]
        elif code in LANGUAGES:
            warnings.append(
                f"Meteor 1.5 would weight every module 0 with custom parameters for {code!r}; "
                "meteor-lite keeps the task's weights"
            )
    w: Tuple[float, ...] = tuple(base_weights[i] if i < len(base_weights) else 0.0 for i in range(len(mods)))
    if weights is not None:
        w = tuple(float(x) for x in weights)
        custom = True
    if modules is not None:
        mods_list = []
        for m in modules:
            name = m.strip().lower()
            if name not in MODULES:
                raise ConfigError(f"unknown module {m!r} (choose from {', '.join(MODULES)})")
            mods_list.append(name)
        if not mods_list:
            raise ConfigError("at least one module is needed")
        mods = tuple(mods_list)
        custom = True
    if len(w) < len(mods):
        warnings.append("more modules than weights: modules with no weight are not counted")
        w = w + (0.0,) * (len(mods) - len(w))
    elif len(w) > len(mods):
        if weights is not None and modules is None:
            raise ConfigError(f"{len(w)} weights given for {len(mods)} modules ({' '.join(mods)})")
        w = w[: len(mods)]
    if beam < 1:
        raise ConfigError(f"beam size must be at least 1, got {beam}")
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
        lower=lower or norm,
        no_punct=no_punct,
        char_based=task_name == "util",
        custom=custom,
        warnings=tuple(warnings),
    )
