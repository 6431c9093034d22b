"""The matcher modules' registry: one record per module, which every place that handles modules reads.

A module is a :class:`Module` record in :data:`REGISTRY` (its name, signature abbreviation, code in the compiled
pair kernel, the resource it needs, its gain rule, its candidate function, its count for the bounded mode's budget,
its weight in the language-independent preset), a Python matcher (the function its record names) and a C matcher
(``meteor_lite/accel_c/<topic>.c``, included by ``meteor_lite/_accel.c``; the pair kernel dispatches on the code of the
generated header ``meteor_lite/_accel_modules.h``).  The
order of :data:`REGISTRY` is the canonical order (Meteor's for its four modules); the codes are the positions.

The candidate and count functions are named as ``"module:function"`` and imported on first use: the registry is
read by the language tables (:mod:`meteor_lite.languages`), which the matchers' own imports need, so it imports
nothing of the package itself.

The C header is generated from the records (:func:`c_header`; ``make accel`` writes it before it builds);
tests/test_modules.py checks that the committed header is the generated one.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Optional, Sequence, Tuple

from ..atomicfile import output_file

__all__ = [
    "Module", "REGISTRY", "MODULES", "METEOR_MODULES", "module", "modules_needing", "c_header", "RESOURCES", "NEEDS_TEXT",
]

#: What a module may need from the resources, each with the :class:`~meteor_lite.resources.lookups.Resources`
#: attribute that says whether they have it and the bit of the pair kernel's packed sentences that holds it.
RESOURCES: Dict[str, Tuple[str, str]] = {
    "stem": ("can_stem", "NEED_STEM"),
    "synonyms": ("has_synonyms", "NEED_SYNONYMS"),
    "paraphrases": ("has_paraphrases", "NEED_PHRASES"),
}
#: How the notes and errors name each resource.
NEEDS_TEXT: Dict[str, str] = {
    "stem": "a stemmer or stem map",
    "synonyms": "synonym sets",
    "paraphrases": "a paraphrase table",
}


@dataclass(frozen=True)
class Module:
    """One matcher module.

    ``candidates`` names its Python matcher: for a one-word module (``one_word``) a function
    ``(hyp, ref, hk, rk, res, cap) -> positions`` giving, for each reference word, the ascending hypothesis positions
    it matches (``hyp`` and ``ref`` the words the module looks up, ``hk`` and ``rk`` the Java hashes of the words as
    given; ``cap``: bounded mode's limit per reference position, see :mod:`meteor_lite.align.bounded`); else a
    function ``(mi, hyp, ref, res, cands, cap) -> None`` adding its phrase matches to ``cands``.  ``count`` names
    its function for the bounded mode's budget, ``(hyp, ref, hk, rk, res, left) -> int``: its candidates, exact up to
    ``left`` (:mod:`meteor_lite.align.budget`).
    """

    #: the name users give (``-m exact stem``), in reports and alignments
    name: str
    #: its name in the signature (``mods:exact+stem+syn``)
    sig: str
    #: its abbreviation in Meteor's ``Eval ID``
    short: str
    #: what it needs from the resources (a key of :data:`RESOURCES`), or None
    needs: Optional[str]
    #: whether its matches are one word on each side (``maxacc`` weighs such words above all phrase words)
    one_word: bool
    #: the search's gain rule: True, one per word matched (exact); False, half of each side rounded down
    exact_gain: bool
    #: its weight in the language-independent preset (Meteor 1.5's ``li`` for its four modules)
    li_weight: float
    #: whether a language's defaults add it when the resources support it (and a universal set may weigh it)
    default: bool
    #: whether Meteor 1.5 has it (its presets' weights are positional over those modules, in this order)
    meteor: bool
    #: its Python matcher, ``"module:function"``
    candidates: str
    #: its count for the bounded mode's budget, ``"module:function"``
    count: str
    #: the C name of its code in the generated header
    c_name: str
    #: its C matcher in the pair kernel, ``int NAME(Found *f, int mi, int code, const Packed *h, const Packed *r)``
    c_matcher: str
    #: the file of its C matcher (``accel_c/<name>.c``), or None for Meteor's four (in ``accel_c/pair.c``)
    c_source: Optional[str] = None
    #: its matcher's integer parameters, (name, value): in the header as ``#define <C_NAME>_<NAME>`` for its C twin
    params: Tuple[Tuple[str, int], ...] = ()

    @property
    def code(self) -> int:
        """Its code in the compiled pair kernel (its position in :data:`REGISTRY`)."""
        return _CODES[self.name]

    def candidate_function(self) -> Callable[..., Any]:
        """Its Python matcher (see the class)."""
        return _resolve(self.candidates)

    def count_function(self) -> Callable[..., int]:
        """Its count for the bounded mode's budget (see the class)."""
        return _resolve(self.count)

    def available(self, resources: Any) -> bool:
        """Whether ``resources`` (a :class:`~meteor_lite.resources.lookups.Resources`) have what it needs."""
        return self.needs is None or bool(getattr(resources, RESOURCES[self.needs][0]))


_MATCHES = "meteor_lite.align.matches"
_BUDGET = "meteor_lite.align.budget"

#: Every matcher module, in the canonical order (Meteor 1.5's four first: their codes and order are the jar's).
REGISTRY: Tuple[Module, ...] = (
    Module(name="exact", sig="exact", short="ex", needs=None, one_word=True, exact_gain=True, li_weight=1.0,
           default=True, meteor=True, candidates=f"{_MATCHES}:exact_positions", count=f"{_BUDGET}:exact_count",
           c_name="MOD_EXACT", c_matcher="word_candidates"),
    Module(name="stem", sig="stem", short="st", needs="stem", one_word=True, exact_gain=False, li_weight=0.5,
           default=True, meteor=True, candidates=f"{_MATCHES}:stem_positions", count=f"{_BUDGET}:stem_count",
           c_name="MOD_STEM", c_matcher="word_candidates"),
    Module(name="synonym", sig="syn", short="sy", needs="synonyms", one_word=True, exact_gain=False, li_weight=0.5,
           default=True, meteor=True, candidates=f"{_MATCHES}:synonym_word_positions",
           count=f"{_BUDGET}:synonym_count", c_name="MOD_SYNONYM", c_matcher="synonym_candidates"),
    Module(name="paraphrase", sig="para", short="pa", needs="paraphrases", one_word=False, exact_gain=False,
           li_weight=0.5, default=True, meteor=True, candidates=f"{_MATCHES}:paraphrase_matches",
           count=f"{_BUDGET}:paraphrase_count", c_name="MOD_PARAPHRASE", c_matcher="paraphrase_candidates"),
    # near misses (meteor_lite/align/near.py): off unless asked for, weighted below stem
    Module(name="near", sig="near", short="ne", needs=None, one_word=True, exact_gain=False, li_weight=0.4,
           default=False, meteor=False, candidates="meteor_lite.align.near:near_positions",
           count="meteor_lite.align.near:near_count", c_name="MOD_NEAR", c_matcher="near_candidates",
           c_source="accel_c/near.c",
           params=(("MIN_CHARS", 4), ("LENGTH_PER_EDIT", 4))),
)

#: Module names, in the canonical order.
MODULES: Tuple[str, ...] = tuple(m.name for m in REGISTRY)
#: Meteor 1.5's modules, in its order: the positions of its presets' weights.
METEOR_MODULES: Tuple[str, ...] = tuple(m.name for m in REGISTRY if m.meteor)
_BY_NAME: Dict[str, Module] = {m.name: m for m in REGISTRY}
_CODES: Dict[str, int] = {m.name: code for code, m in enumerate(REGISTRY)}
_RESOLVED: Dict[str, Callable[..., Any]] = {}


def module(name: str) -> Module:
    """The record of module ``name`` (a :class:`KeyError` naming the known ones for another)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown module {name!r} (registered: {', '.join(MODULES)})") from None


def modules_needing(modules: Iterable[str], resource: str) -> bool:
    """Whether one of ``modules`` needs ``resource`` (a key of :data:`RESOURCES`)."""
    if resource not in RESOURCES:
        raise KeyError(f"unknown resource {resource!r}")
    return any(module(m).needs == resource for m in modules)


def _resolve(path: str) -> Callable[..., Any]:
    fn = _RESOLVED.get(path)
    if fn is None:
        mod, _, attr = path.partition(":")
        fn = _RESOLVED[path] = getattr(importlib.import_module(mod), attr)
    return fn


def c_header(registry: Sequence[Module] = REGISTRY) -> str:
    """The C header of the module codes and sizes (``meteor_lite/_accel_modules.h``), generated from ``registry``."""
    lines = [
        "/* Generated from meteor_lite/align/modules.py (make accel, or make modules-header): do not edit.",
        " * The matcher modules' codes in the pair kernel, what each needs of a packed sentence, and its gain rule. */",
        "#ifndef METEOR_LITE_ACCEL_MODULES_H",
        "#define METEOR_LITE_ACCEL_MODULES_H",
        "",
    ]
    lines += [f"#define {m.c_name} {code}  /* {m.name} */" for code, m in enumerate(registry)]
    lines += [f"#define MOD_COUNT {len(registry)}", ""]
    for m in registry:
        if m.params:
            lines.append(f"/* The {m.name} module's parameters. */")
            lines += [f"#define {m.c_name}_{name} {value}" for name, value in m.params]
            lines.append("")
    lines += [f"#define {bit} {1 << k}" for k, (_, bit) in enumerate(RESOURCES.values())]
    needs = ", ".join(RESOURCES[m.needs][1] if m.needs else "0" for m in registry)
    gains = ", ".join("1" if m.exact_gain else "0" for m in registry)
    lines += [
        "",
        "/* What each module needs of both sides, by code. */",
        f"static const unsigned char MODULE_NEEDS[MOD_COUNT] = {{{needs}}};",
        "/* Its gain rule, by code: 1 one per word matched, 0 half of each side rounded down. */",
        f"static const unsigned char MODULE_EXACT_GAIN[MOD_COUNT] = {{{gains}}};",
        "",
        "#endif",
        "",
        "/* Included once more by accel_c/pair.c, with ACCEL_MODULE_MATCHERS defined, where the matchers are called: the",
        " * matchers in their own files, then every module's matcher by code. */",
        "#if defined(ACCEL_MODULE_MATCHERS) && !defined(METEOR_LITE_ACCEL_MATCHERS)",
        "#define METEOR_LITE_ACCEL_MATCHERS",
        *[f'#include "{m.c_source}"' for m in registry if m.c_source],
        "static int (*const MODULE_MATCHERS[MOD_COUNT])(Found *, int, int, const Packed *, const Packed *) = {",
        *[f"    {m.c_matcher},  /* {m.c_name} */" for m in registry],
        "};",
        "#endif",
        "",
    ]
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``--c-header [FILE]``: write the generated header (to stdout without FILE); ``make modules-header`` runs it."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "--c-header" or len(args) > 2:
        print("usage: python -m meteor_lite.align.modules --c-header [FILE]", file=sys.stderr)
        return 2
    text = c_header()
    if len(args) == 2:
        path = Path(args[1])
        # an unchanged header is left alone (its time too), so nothing recompiles for it; a changed one is
        # replaced atomically, so a build reading it never sees a half-written file
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            with output_file(str(path)) as out:
                out.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
