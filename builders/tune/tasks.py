"""Tuned parameter sets carried by a bundle: add one (atomically, checksum recomputed) or remove one.

A bundle keeps its tuned sets as one JSON object under the ``meta`` key
:data:`meteor_lite.config.TASKS_META_KEY` (``tasks``): ``{NAME: {alpha, beta, gamma, delta,
modules, weights, provenance}}``, written with sorted keys.  ``meta`` is part of the bundle's
logical content, so the content checksum covers the sets: adding or removing one recomputes
it (docs/bundle-format.md).  The provenance's run-time facts (:data:`meteor_lite.tuned.RUN_FACTS`: the
date) go under ``tasks_run`` instead, which the checksum leaves out: the same run on another day
gives the same checksum.  Before that, the bundle's recorded checksum is checked (unless
this very file was verified before, :mod:`meteor_lite.resources.integrity`), so a damaged
bundle is refused instead of being given a new, truthful-looking checksum.

The change is made on a copy beside the bundle, which replaces it with :func:`os.replace`
only when complete: an error or Ctrl-C leaves the bundle as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Dict, Optional

from meteor_lite.config import TASKS_META_KEY, TunedTask, check_task_name, read_tuned_tasks
from meteor_lite.errors import ConfigError
from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.integrity import is_verified
from meteor_lite.resources.integrity import remember as remember_verified
from meteor_lite.resources.schema import compute_content_checksum

from ..bundle.stale import remove_stale_temps, temp_prefix
from ..errors import BuildError, InvalidParameterError

__all__ = ["add_task", "remove_task", "bundle_tasks", "tasks_json", "add_shipped"]


def tasks_json(tasks: Dict[str, TunedTask]) -> str:
    """The ``meta`` value for ``tasks``: compact JSON, keys sorted (one content, one checksum)."""
    data = {name: tasks[name].to_dict() for name in sorted(tasks)}
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def bundle_tasks(path: "os.PathLike[str] | str") -> Dict[str, TunedTask]:
    """The tuned sets of the bundle at ``path``, by name."""
    with Bundle.open(path) as b:
        return _read(b)


def _read(b: Bundle) -> Dict[str, TunedTask]:
    """The bundle's sets, their run-time facts (the date) back in their provenance."""
    from meteor_lite.tuned import TASKS_RUN_META_KEY, merge_run_facts

    try:
        return merge_run_facts(read_tuned_tasks(b.meta.get(TASKS_META_KEY), f"bundle {b.path}"), b.meta.get(TASKS_RUN_META_KEY))
    except ConfigError as exc:
        raise BuildError(str(exc)) from None


def add_task(path: "os.PathLike[str] | str", task: TunedTask, replace: bool = False) -> str:
    """Add ``task`` to the bundle at ``path`` (``replace``: over a set of the same name); return the new checksum."""
    try:
        check_task_name(task.name)
        TunedTask.from_dict(task.name, task.to_dict(), "new task")  # the values a reader will accept
    except ConfigError as exc:
        raise InvalidParameterError(str(exc)) from None
    with Bundle.open(path) as b:
        tasks = _read(b)
    if task.name in tasks and not replace:
        raise InvalidParameterError(f"bundle {path} already has a task {task.name!r} (replace it with --replace)")
    tasks[task.name] = task
    return _rewrite(Path(path), tasks)


def remove_task(path: "os.PathLike[str] | str", name: str) -> str:
    """Remove the set ``name`` from the bundle at ``path``; return the new checksum."""
    with Bundle.open(path) as b:
        tasks = _read(b)
    if name not in tasks:
        have = ", ".join(sorted(tasks)) or "none"
        raise InvalidParameterError(f"bundle {path} has no task {name!r} (its tasks: {have})")
    del tasks[name]
    return _rewrite(Path(path), tasks)


def _check_sound(path: Path) -> None:
    """Refuse a bundle whose content no longer matches its recorded checksum."""
    with Bundle.open(path) as b:
        if b.checksum and is_verified(path, b.checksum):
            return
        problems = b.verify()
    if problems:
        raise BuildError(f"{path}: the bundle is damaged or was changed after it was built ({problems[0]}): not modified")


def _rewrite(path: Path, tasks: Dict[str, TunedTask]) -> str:
    """Write ``tasks`` into a copy of ``path``, recompute the checksum, move the copy into place."""
    _check_sound(path)
    remove_stale_temps(path)
    fd, name = tempfile.mkstemp(prefix=temp_prefix(path), suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        shutil.copyfile(path, tmp)
        shutil.copymode(path, tmp)
        checksum = _update(tmp, tasks)
        os.replace(tmp, path)
    except BaseException:
        for p in (tmp, Path(f"{tmp}-journal")):
            try:
                p.unlink()
            except FileNotFoundError:
                pass
        raise
    remember_verified(path, checksum)
    return checksum


def _update(tmp: Path, tasks: Dict[str, TunedTask]) -> str:
    """Set (or delete) the ``tasks`` meta key of ``tmp`` and its content checksum."""
    from meteor_lite.tuned import TASKS_RUN_META_KEY, split_run_facts

    content, run = split_run_facts(tasks)
    conn = sqlite3.connect(str(tmp))
    try:
        for key, value in ((TASKS_META_KEY, tasks_json(content) if content else ""),
                           (TASKS_RUN_META_KEY, json.dumps(run, sort_keys=True, separators=(",", ":")) if run else "")):
            if value:
                conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
            else:
                conn.execute("DELETE FROM meta WHERE key = ?", (key,))
        conn.commit()
        checksum = compute_content_checksum(conn)
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('content_checksum', ?)", (checksum,))
        conn.commit()
    finally:
        conn.close()
    return checksum


def _shipped_sets(path: "os.PathLike[str] | str") -> Dict[str, Dict[str, TunedTask]]:
    """The sets of the shipped-sets file ``path``; a malformed file is an :class:`InvalidParameterError`."""
    from meteor_lite.tuned import read_shipped

    try:
        return read_shipped(Path(path))
    except ConfigError as exc:
        raise InvalidParameterError(str(exc)) from None


def refuse_shipped(path: "os.PathLike[str] | str", lang: str, name: str,
                   current: Optional[Dict[str, Dict[str, TunedTask]]] = None) -> None:
    """:class:`InvalidParameterError` when the shipped sets at ``path`` (``current``: as read already) hold a set
    ``name`` for ``lang``: replacing one is asked for with ``--replace``."""
    sets = _shipped_sets(path) if current is None else current
    if name in sets.get(lang, {}):
        raise InvalidParameterError(f"{path} already ships a task {name!r} for {lang!r} (replace it with --replace)")


def add_shipped(path: "os.PathLike[str] | str", lang: str, task: TunedTask, replace: bool = False) -> None:
    """Write ``task`` as language ``lang``'s set into the scorer's shipped sets file (``meteor_lite/tuned_tasks.json``,
    :mod:`meteor_lite.tuned`), atomically; ``replace``: over a set of the same name.

    The file is JSON with sorted keys and one level of indentation, so a re-tuned set shows as a small diff.
    """
    from meteor_lite.atomicfile import atomic_path
    from meteor_lite.tuned import shipped_from_dict

    try:
        shipped_from_dict(lang, task.name, task.to_dict(), "new task")
    except ConfigError as exc:
        raise InvalidParameterError(str(exc)) from None
    current = _shipped_sets(path)
    if not replace:
        refuse_shipped(path, lang, task.name, current)
    current.setdefault(lang, {})[task.name] = task
    data = {
        "format": 1,
        "languages": {code: {name: current[code][name].to_dict() for name in sorted(current[code])} for code in sorted(current)},
    }
    text = json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
