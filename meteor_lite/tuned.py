"""Tuned parameter sets shipped with the scorer (``meteor-lite score --lang L --task mqm``).

The sets live in ``tuned_tasks.json`` beside this module (package data), not in the bundles: the
official bundles' content checksums (and every parity figure) stay as they are, and a set works
with whichever bundle of its language is installed (a pack, ``make resources``, the user
directory).  The file is written by ``meteor-build tune ... --into-scorer NAME`` and holds, per
language, named sets in the format of a bundle's tuned sets (:class:`meteor_lite.config.TunedTask`:
α, β, γ, δ, modules, weights, the normalisation, provenance with the held-out figures).

A bundle's own set of the same name wins over a shipped one (:func:`meteor_lite.configure.bundle_task`).
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

from .config import TunedTask
from .errors import ConfigError
from .languages import language_alias

__all__ = ["SHIPPED_FILE", "shipped_tasks", "read_shipped", "shipped_languages", "UNIVERSAL_LANGUAGE", "UNIVERSAL_SET", "UNIVERSAL_NAMES",
           "universal_set", "RUN_FACTS", "TASKS_RUN_META_KEY", "split_run_facts", "merge_run_facts"]

#: The file of shipped sets: ``{"format": 1, "languages": {LANG: {NAME: set}}}``.
SHIPPED_FILE = Path(__file__).resolve().parent / "tuned_tasks.json"
#: Provenance keys that are facts of the run, not of the set (the same ``tune`` run on another day writes another
#: date): a bundle keeps them under the meta key :data:`TASKS_RUN_META_KEY`, outside its content checksum.
RUN_FACTS = ("date",)
#: The bundle meta key of the tuned sets' run-time facts (``{NAME: {"date": ...}}``; not part of the checksum).
TASKS_RUN_META_KEY = "tasks_run"
#: The language key of the sets that serve every language (Meteor Universal's idea: tuned pooled over languages).
UNIVERSAL_LANGUAGE = "*"
#: The name of the universal set (``meteor-build check universal --write``).
UNIVERSAL_SET = "default"
#: The names the universal set may have (the first one present is used): the one written, then older spellings.
UNIVERSAL_NAMES = (UNIVERSAL_SET, "pooled", "universal")


def read_shipped(path: "Path | str" = SHIPPED_FILE) -> Dict[str, Dict[str, TunedTask]]:
    """Every shipped set, by language then name (an absent file: none; a malformed one: :class:`ConfigError`)."""
    p = Path(path)
    if not p.is_file():
        return {}
    try:
        data: Any = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{p}: cannot read the shipped tuned sets ({exc})") from None
    langs = data.get("languages") if isinstance(data, dict) else None
    if not isinstance(langs, dict):
        raise ConfigError(f"{p}: no 'languages' object of tuned sets")
    out: Dict[str, Dict[str, TunedTask]] = {}
    for lang, sets in langs.items():
        if not isinstance(sets, dict):
            raise ConfigError(f"{p}: language {lang!r} is not an object of named sets")
        out[lang] = {name: shipped_from_dict(lang, name, value, f"{p} ({lang})") for name, value in sets.items()}
    return out


def shipped_from_dict(lang: str, name: str, data: object, where: str) -> TunedTask:
    """One shipped set, checked as :meth:`TunedTask.from_dict` checks a bundle's; the universal set (language
    ``*``, name ``default``) may carry the name that a bundle's sets may not take (``default`` is Meteor's)."""
    if lang == UNIVERSAL_LANGUAGE and name == UNIVERSAL_SET:
        return replace(TunedTask.from_dict("pooled-default", data, where), name=name)
    return TunedTask.from_dict(name, data, where)


@lru_cache(maxsize=1)
def _cached() -> Dict[str, Dict[str, TunedTask]]:
    return read_shipped(SHIPPED_FILE)


def shipped_tasks(lang: str) -> Dict[str, TunedTask]:
    """The sets shipped for ``lang`` (aliases resolved: ``cs`` is ``cz``), by name."""
    return dict(_cached().get(language_alias(lang), {}))


def universal_set(shipped: "Optional[Mapping[str, Mapping[str, TunedTask]]]" = None) -> "TunedTask | None":
    """The set tuned pooled over languages (language :data:`UNIVERSAL_LANGUAGE`, the first of :data:`UNIVERSAL_NAMES`
    present), if shipped: α, β, γ, δ and the weights of exact, stem, synonym and paraphrase (a bundle without a module
    scores with the others' weights).  ``shipped``: other sets than ``tuned_tasks.json``'s (``{language: {name: set}}``)."""
    sets = (_cached() if shipped is None else shipped).get(UNIVERSAL_LANGUAGE, {})
    for name in UNIVERSAL_NAMES:
        if name in sets:
            return sets[name]
    return None


def split_run_facts(tasks: Dict[str, TunedTask]) -> "tuple[Dict[str, TunedTask], Dict[str, Dict[str, Any]]]":
    """``tasks`` without the :data:`RUN_FACTS` of their provenance, and those facts by set name (empty ones left out)."""
    content: Dict[str, TunedTask] = {}
    run: Dict[str, Dict[str, Any]] = {}
    for name, t in tasks.items():
        facts = {k: t.provenance[k] for k in RUN_FACTS if k in t.provenance}
        if facts:
            run[name] = facts
        content[name] = replace(t, provenance={k: v for k, v in t.provenance.items() if k not in RUN_FACTS})
    return content, run


def merge_run_facts(tasks: Dict[str, TunedTask], raw: "str | None") -> Dict[str, TunedTask]:
    """``tasks`` with the run-time facts of the meta value ``raw`` (:data:`TASKS_RUN_META_KEY`) back in their provenance
    (a value that is not a JSON object of objects is ignored: the facts never change a score)."""
    try:
        run = json.loads(raw) if raw else {}
    except ValueError:
        return tasks
    if not isinstance(run, dict):
        return tasks
    out = dict(tasks)
    for name, facts in run.items():
        if name in out and isinstance(facts, dict):
            extra = {k: v for k, v in facts.items() if k in RUN_FACTS}
            out[name] = replace(out[name], provenance={**out[name].provenance, **extra})
    return out


def shipped_languages() -> Dict[str, Dict[str, TunedTask]]:
    """Every shipped set, by language then name."""
    return {k: dict(v) for k, v in _cached().items()}
