"""The scorer's options of the command line, declared once: flags, one typed object, and the scorer they build.

``meteor-lite score`` (and its ``--tsv`` mode), ``compare``, ``report`` and ``align`` choose a scorer
with the same options.  Each is declared once, in :data:`SCORER_FLAGS` (its flags, help text and
default); :func:`add_scorer_arguments` adds them to a command's parser, :meth:`ScorerOptions.from_args`
reads them back into one frozen :class:`ScorerOptions`, and :meth:`ScorerOptions.scorer` builds the
:class:`~meteor_lite.Meteor` scorer from it.  A command passes the object on, never the keywords.

Adding an option of the scorer: its entry in :data:`SCORER_FLAGS`, its field in :class:`ScorerOptions`
(same name: the argparse ``dest``), and its keyword in :meth:`ScorerOptions.scorer`;
``tests/test_scorer_options.py`` fails until the flag and the field are both there.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar

from ..languages import MODULES, TASKS
from .argtypes import non_negative_int
from .errors import EXIT_USAGE, fail

if TYPE_CHECKING:  # pragma: no cover
    import argparse

    from ..meteor import Meteor

__all__ = ["DEFAULT_BEAM", "SCORER_FLAGS", "ScorerFlag", "ScorerOptions", "add_scorer_arguments", "floats",
           "module_list"]

DEFAULT_BEAM = 40
_TASK_HELP = (
    f"Parameter preset: {', '.join(TASKS)}, or a tuned set the bundle carries (meteor-build tune --into; "
    "bundle info lists them; Meteor's names win) (default: the language's)."
)
_MODULES_HELP = (
    f"Matchers, in order, from: {' '.join(MODULES)}. Takes ONE argument: quote a list (-m 'exact stem') "
    "or repeat the option (-m exact -m stem). Default: the language's."
)


@dataclass(frozen=True)
class ScorerFlag:
    """One option of the scorer on the command line: its spellings and :meth:`argparse.ArgumentParser.add_argument`'s
    keywords (``dest`` is the key of :data:`SCORER_FLAGS`, the field of :class:`ScorerOptions`)."""

    names: Tuple[str, ...]
    keywords: Mapping[str, Any]


#: Every option of the scorer, in ``--help`` order: dest (the :class:`ScorerOptions` field) -> its flag.
SCORER_FLAGS: Dict[str, ScorerFlag] = {
    "lang": ScorerFlag(("--lang", "-l"), {"help": "Language code (en cz de es fr ru da fi hu it nl no pt ro se tr ...). "
                                           "Default: en (with --tsv: the target of the file's lp column)."}),
    "task": ScorerFlag(("--task", "-t"), {"help": _TASK_HELP}),
    "params": ScorerFlag(("--params", "-p"), {"help": "Custom 'alpha beta gamma delta'."}),
    "modules": ScorerFlag(("--modules", "-m"), {"action": "append", "metavar": "MODULES", "help": _MODULES_HELP}),
    "weights": ScorerFlag(("--weights", "-w"), {"help": "One weight per module."}),
    "beam": ScorerFlag(("--beam", "-x"), {"type": int, "default": DEFAULT_BEAM,
                                          "help": "Alignment search beam size. Default: 40."}),
    "norm": ScorerFlag(("--norm",), {"action": "store_true",
                                     "help": "Meteor's tokeniser and punctuation normaliser, then lower-case."}),
    "lower": ScorerFlag(("--lower",), {"action": "store_true", "help": "Lower-case only."}),
    "no_punct": ScorerFlag(("--no-punct",), {"action": "store_true", "help": "Drop punctuation (with --norm)."}),
    "case_aware": ScorerFlag(("--case-aware",), {
        "action": "store_true",
        "help": "Keep the case (not a Meteor 1.5 mode; with --norm: its normaliser without lower-casing, "
                "signature norm-case): exact matches are case-sensitive, stem, synonym and paraphrase "
                "match across case, so a casing error costs a weaker match instead of no match."}),
    "char_based": ScorerFlag(("--ch",), {
        "action": "store_true",
        "help": "Character-based precision and recall (Meteor's -ch; -t util does not imply it, as in the jar)."}),
    "tokenize": ScorerFlag(("--tokenize",), {
        "metavar": "NAME",
        "help": "Tokeniser after normalisation: meteor (white space), cjk, char, jieba, mecab, pythainlp, kiwi. "
                "Default: the language's (cjk for zh ja, char for th, meteor otherwise)."}),
    "bundle": ScorerFlag(("--bundle",), {
        "metavar": "PATH|NAME",
        "help": "Resource bundle (default: the language's bundle on the search path; see 'meteor-lite bundle list')."}),
    "allow_other_language": ScorerFlag(("--allow-other-language",), {
        "action": "store_true",
        "help": "Score with a --bundle made for another language than --lang (an error without this)."}),
    "strict_modules": ScorerFlag(("--strict-modules",), {
        "action": "store_true",
        "help": "Meteor 1.5's configuration exactly, as the jar: refuse to score when the bundle lacks a resource of the "
                "language's default modules (e.g. German's paraphrase table) instead of scoring without that module "
                "with a warning; add no module the bundle has beyond Meteor's defaults; a language outside Meteor 1.5 "
                "takes Meteor's language-independent preset, not the universal set."}),
    "jobs": ScorerFlag(("--jobs", "-j"), {
        "type": non_negative_int, "default": 0,
        "help": "Processes to score with (0: one per idle CPU, i.e. CPUs less the load average, at most 4; results do "
                "not change). Default: 0."}),
}


def add_scorer_arguments(
    parser: "argparse.ArgumentParser | argparse._ArgumentGroup", *, only: Optional[Sequence[str]] = None,
    changes: Optional[Mapping[str, Mapping[str, Any]]] = None,
) -> None:
    """Add the scorer's options (:data:`SCORER_FLAGS`, in that order) to ``parser`` (a parser or an argument group).

    ``only``: the options a command offers (default: all); ``changes``: per option, keywords that replace its
    own for this command (``"names"`` replaces its spellings), e.g. a help text naming the command's use.
    """
    changes = changes or {}
    unknown = [d for d in [*(only or ()), *changes] if d not in SCORER_FLAGS]
    if unknown:
        raise ValueError(f"not options of the scorer: {', '.join(unknown)} (they are: {', '.join(SCORER_FLAGS)})")
    for dest, flag in SCORER_FLAGS.items():
        if only is not None and dest not in only:
            continue
        keywords = {**flag.keywords, **changes.get(dest, {})}
        names = keywords.pop("names", flag.names)
        parser.add_argument(*names, dest=dest, **keywords)


def floats(option: str, value: Optional[str]) -> Optional[Tuple[float, ...]]:
    """The numbers of ``--params`` / ``--weights`` (spaces or commas between them); not numbers: a usage error."""
    if value is None:
        return None
    try:
        return tuple(float(x) for x in value.replace(",", " ").split())
    except ValueError:
        raise fail(f"{option} takes numbers separated by spaces, got {value!r}", EXIT_USAGE) from None


def module_list(modules: "Optional[Sequence[str] | str]") -> Optional[Tuple[str, ...]]:
    """The ``--modules`` groups as one list (``-m 'exact stem'``, ``-m exact -m stem``, commas allowed); one string
    (an option given once, not repeatable) is split on white space."""
    if not modules:
        return None
    if isinstance(modules, str):
        return tuple(modules.split())
    return tuple(m for group in modules for m in group.replace(",", " ").split())


@dataclass(frozen=True)
class ScorerOptions:
    """What the command line chose for the scorer, read and checked once (:meth:`from_args`).

    The fields are the options of :data:`SCORER_FLAGS`, by their argparse ``dest``; ``None`` is the
    language's default.  ``jobs`` is how many processes score (0: as many as idle CPUs).
    """

    lang: Optional[str] = None
    task: Optional[str] = None
    params: Optional[Tuple[float, ...]] = None
    modules: Optional[Tuple[str, ...]] = None
    weights: Optional[Tuple[float, ...]] = None
    beam: int = DEFAULT_BEAM
    norm: bool = False
    lower: bool = False
    no_punct: bool = False
    case_aware: bool = False
    char_based: bool = False
    tokenize: Optional[str] = None
    bundle: Optional[str] = None
    allow_other_language: bool = False
    strict_modules: bool = False
    jobs: int = 0

    @classmethod
    def from_args(cls, args: "argparse.Namespace") -> "ScorerOptions":
        """The options parsed into ``args`` (by a parser :func:`add_scorer_arguments` filled); an option the command
        does not offer keeps its default.  ``--params`` or ``--weights`` that are not numbers: a usage error."""
        values: Dict[str, Any] = {f.name: getattr(args, f.name, f.default) for f in fields(cls)}
        values["params"] = floats("--params", values["params"])
        values["weights"] = floats("--weights", values["weights"])
        values["modules"] = module_list(values["modules"])
        return cls(**values)

    def scorer(self, default_lang: Optional[str] = None, *, quiet: bool = False) -> "Meteor":
        """The scorer these options ask for; without ``--lang``, ``default_lang`` (e.g. the language of a systems
        file), else English.  ``quiet``: no warnings about the set-up (the aligner's output is the alignment)."""
        from ..meteor import Meteor

        return Meteor(
            self.lang or default_lang or "en", task=self.task, params=_listed(self.params),
            modules=_listed(self.modules), weights=_listed(self.weights), beam=self.beam, norm=self.norm,
            lower=self.lower, no_punct=self.no_punct, char_based=self.char_based, case_aware=self.case_aware,
            bundle=Path(self.bundle) if self.bundle is not None else None, tokenize=self.tokenize,
            allow_other_language=self.allow_other_language, strict_modules=self.strict_modules, quiet=quiet,
        )


_T = TypeVar("_T")


def _listed(values: Optional[Tuple[_T, ...]]) -> Optional[List[_T]]:
    """``values`` as a list (None stays None)."""
    return None if values is None else list(values)
