"""Meteor 1.5's languages, tasks, parameter presets and module lists: the one language table.

The values are the published ones (Denkowski & Lavie 2011, Tables 4 and 7) and
those Meteor 1.5 prints in its report header (``Modules:``, ``Weights:``,
``Parameters:``), checked against the official jar.

Weights are positional: the i-th weight belongs to the i-th module of the list.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

# Matcher modules, in the canonical order (Meteor's for its four): the registry's (meteor_lite.align.modules).
from .align.modules import MODULES as MODULES
from .align.modules import REGISTRY
from .errors import ConfigError

#: Module abbreviations in Meteor's ``Eval ID``.
MODULE_SHORT: Dict[str, str] = {m.name: m.short for m in REGISTRY}

#: Language code -> (Meteor's long name, snowball stemmer name or None).
LANGUAGES: Dict[str, Tuple[str, Optional[str]]] = {
    "en": ("english", "english"),
    "cz": ("czech", None),
    "fr": ("french", "french"),
    "es": ("spanish", "spanish"),
    "de": ("german", "german"),
    # Meteor's -l ar-bw-red: Buckwalter-transliterated Arabic (the jar refuses -l ar); "ar" is Arabic script
    "ar-bw-red": ("arabic-buckwalter-reduced", None),
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
    "sr": "serbian", "sv": "swedish", "ta": "tamil", "yi": "yiddish", "ar": "arabic",
}

#: Other spellings accepted for a language code (Meteor's long names included).
#:
#: Codes are ISO 639-1 (``bg``, ``pl``, ``uk``, ...), except that Meteor 1.5's own spellings stay the
#: scorer's codes for its languages, so that its bundles (``cz.sqlite``, ``se.sqlite``), signatures
#: (``lang:cz``) and command lines keep working: ISO ``cs`` is accepted for Czech (``cz``) and ISO
#: ``sv`` for Swedish (``se``).  The clash: ISO 639-1 ``se`` is Northern Sami, but here ``se`` is
#: Swedish, as in Meteor; Northern Sami takes its ISO 639-3 code ``sme``.  Filipino, which has no
#: ISO 639-1 code, is ``tl`` (Tagalog), with ``fil`` (ISO 639-2/3, wordfreq's code) as an alias.
LANGUAGE_ALIASES: Dict[str, str] = {
    "cs": "cz",
    "sv": "se",
    "ar-bw": "ar-bw-red",
    "nb": "no",
    "fil": "tl",
}
for _code, (_long, _stem) in LANGUAGES.items():
    LANGUAGE_ALIASES.setdefault(_long, _code)

#: Languages whose text needs its own tokeniser (no spaces between words, Korean's own rules, Arabic script):
#: code -> (English name, default tokeniser of :mod:`meteor_lite.text.tokenizers`, optional segmenter).
#: They score with the language-independent parameters and exact matching (see docs/languages.md).
SCRIPT_LANGUAGES: Dict[str, Tuple[str, str, str]] = {
    "zh": ("chinese", "cjk", "jieba"),
    "ja": ("japanese", "cjk", "mecab"),
    "th": ("thai", "char", "pythainlp"),
    "ko": ("korean", "meteor", "kiwi"),
    "ar": ("arabic", "arabic", ""),
}
for _code, (_name, _tok, _seg) in SCRIPT_LANGUAGES.items():
    LANGUAGE_ALIASES.setdefault(_name, _code)

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
    "ar-bw-red": ("exact", "stem"),
    "ar": ("exact", "stem"),
    # no stemmer for these; with the cjk/char tokenisers exact matching is character matching
    "zh": ("exact",),
    "ja": ("exact",),
    "th": ("exact",),
    "ko": ("exact",),
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
Preset = Tuple[Params, Tuple[float, ...]]

# Per-language task tables: (alpha, beta, gamma, delta), weights for up to four modules.
_RANK: Dict[str, Preset] = {
    "en": ((0.85, 0.20, 0.60, 0.75), (1.0, 0.6, 0.8, 0.6)),
    "cz": ((0.95, 0.20, 0.60, 0.80), (1.0, 0.4)),
    "fr": ((0.90, 1.40, 0.60, 0.65), (1.0, 0.2, 0.4)),
    "es": ((0.65, 1.30, 0.50, 0.80), (1.0, 0.8, 0.6)),
    "de": ((0.95, 1.00, 0.55, 0.55), (1.0, 0.8, 0.2)),
    "ru": ((0.75, 1.40, 0.70, 0.50), (1.0, 0.5, 0.5)),
}
#: The Adequacy preset (also the weights Meteor 1.5 gives custom parameters).
ADEQUACY: Dict[str, Preset] = {"en": ((0.75, 1.40, 0.45, 0.70), (1.0, 1.0, 0.6, 0.8))}
_HTER: Dict[str, Preset] = {"en": ((0.40, 1.50, 0.35, 0.55), (1.0, 0.2, 0.6, 0.8))}
_UTIL: Dict[str, Preset] = {"en": ((0.65, 0.10, 0.55, 0.65), (1.0, 0.0, 0.0, 0.8))}
_LI: Preset = ((0.75, 1.40, 0.70, 0.50), (1.0, 0.5, 0.5, 0.5))
_TUNE: Preset = ((0.5, 1.0, 0.5, 0.5), (1.0, 0.5, 0.5, 0.5))
_UNIVERSAL: Preset = ((0.70, 1.40, 0.30, 0.70), (1.0, 0.6, 0.0, 0.0))
_PER_LANGUAGE = {"rank": _RANK, "adq": ADEQUACY, "hter": _HTER, "util": _UTIL}


def language_alias(lang: str) -> str:
    """``lang`` stripped, lower-cased and with its alias resolved (never raises; ``""`` stays ``""``)."""
    code = lang.strip().lower()
    return LANGUAGE_ALIASES.get(code, code)


def canonical_language(lang: str) -> str:
    """Return meteor-lite's code for ``lang`` (``cs`` -> ``cz``, ``english`` -> ``en``, ...).

    Codes that Meteor 1.5 does not know are accepted as they are (lower-cased):
    they score with the language-independent parameters and exact + stem
    matching when a snowball stemmer or a bundle stem map exists for them.
    """
    code = language_alias(lang)
    if not code:
        raise ConfigError("empty language code")
    return code


def long_name(lang: str) -> str:
    """Meteor's long name of a language code (``english``); the name of :data:`SCRIPT_LANGUAGES` (``chinese``); else ``other``."""
    if lang in LANGUAGES:
        return LANGUAGES[lang][0]
    return SCRIPT_LANGUAGES[lang][0] if lang in SCRIPT_LANGUAGES else "other"


def default_tokenizer(lang: str) -> str:
    """The tokeniser a language scores with by default: ``meteor`` (white space) except for :data:`SCRIPT_LANGUAGES`."""
    entry = SCRIPT_LANGUAGES.get(language_alias(lang))
    return entry[1] if entry is not None else "meteor"


def snowball_name(lang: str) -> Optional[str]:
    """The snowball algorithm named for a language code in the tables (installed or not)."""
    return LANGUAGES[lang][1] if lang in LANGUAGES else SNOWBALL_BY_CODE.get(lang)


def default_task(lang: str) -> str:
    """Ranking for the tuned languages, language-independent otherwise."""
    return "rank" if lang in SUPPORTED else "li"


def default_modules(lang: str, task: str) -> Tuple[str, ...]:
    """Meteor 1.5's module list for a language and task."""
    if task == "universal":
        return ("exact", "paraphrase")
    return LANGUAGE_MODULES.get(lang, ("exact", "stem"))


def preset(lang: str, task: str) -> Preset:
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
