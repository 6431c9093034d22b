"""The one reader of a bundle's ``meta`` table: every value is checked before anything uses it.

A bundle is untrusted input (a download, a file someone sent): its metadata may hold a NULL, a
BLOB, text that is not the JSON it should be, JSON of the wrong type, or JSON nested deeply
enough to exhaust Python's recursion limit.  :func:`read_meta` reads the table once, when the
bundle is opened (:meth:`meteor_lite.resources.bundle.Bundle.open`), and refuses such a bundle
with a :class:`~meteor_lite.errors.BundleError` naming the file, the key and the problem; what it
returns (:class:`Meta`) is what every consumer reads, so none of them parses or guesses again.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Mapping

from ..errors import BundleError

__all__ = ["Meta", "JSON_OBJECT_KEYS", "INTEGER_KEYS", "STEMMER_FIELDS", "check_meta", "load_json", "read_meta",
           "read_meta_values"]

#: Meta keys whose value is a JSON object (absent or empty: none).
JSON_OBJECT_KEYS = ("build_params", "stemmer", "tasks")

#: Meta keys whose value is a non-negative decimal integer (when present).
INTEGER_KEYS = ("schema_version", "paraphrase_max_length", "paraphrase_pairs")

#: The fields of meta ``stemmer``, each a string when present.
STEMMER_FIELDS = ("language", "package", "version")


@dataclass(frozen=True)
class Meta:
    """A bundle's checked metadata: the raw text values, and the JSON ones parsed."""

    values: Dict[str, str]
    json: Dict[str, Dict[str, Any]]


def load_json(raw: str) -> Any:
    """``json.loads(raw)``; ValueError (never RecursionError) for text nested too deeply to parse."""
    import json

    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _kind(value: object) -> str:
    """What an SQLite value is, in words (for the error message)."""
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return "a BLOB"
    return f"a number ({value!r})" if isinstance(value, (int, float)) else type(value).__name__


def read_meta(path: Path, conn: sqlite3.Connection) -> Meta:
    """The checked ``meta`` table of the bundle ``path`` open on ``conn`` (:func:`read_meta_values`, :func:`check_meta`).

    Raises :class:`BundleError` ``"<path>: bad bundle metadata: meta '<key>' ..."`` when a key or
    value is not text, an integer key is not a non-negative integer, a JSON key is not a JSON
    object, or meta ``stemmer`` has a field that is not a string.
    """
    return check_meta(path, read_meta_values(path, conn))


def read_meta_values(path: Path, conn: sqlite3.Connection) -> Dict[str, str]:
    """The ``meta`` table of the bundle ``path`` as text; :class:`BundleError` for a key or value that is not text."""
    values: Dict[str, str] = {}
    for key, value in conn.execute("SELECT key, value FROM meta"):
        if not isinstance(key, str):
            raise BundleError(f"{path}: bad bundle metadata: a meta key is {_kind(key)}, not text")
        if not isinstance(value, str):
            raise BundleError(f"{path}: bad bundle metadata: meta {key!r} is {_kind(value)}, not text")
        values[key] = value
    return values


def check_meta(path: Path, values: Mapping[str, str]) -> Meta:
    """Check the integer and JSON keys of the meta ``values`` of bundle ``path``; the JSON ones parsed
    (absent or empty: ``{}``).  :class:`BundleError` naming the bundle and the key when one is bad."""

    def bad(key: str, problem: str) -> BundleError:
        return BundleError(f"{path}: bad bundle metadata: meta {key!r} {problem}")

    for key in INTEGER_KEYS:
        raw = values.get(key)
        if raw is not None and not (raw.isascii() and raw.isdigit()):
            raise bad(key, f"is not a non-negative integer (got {raw[:40]!r})")
    parsed: Dict[str, Dict[str, Any]] = {}
    for key in JSON_OBJECT_KEYS:
        raw = values.get(key) or "{}"
        try:
            data = load_json(raw)
        except ValueError as exc:
            raise bad(key, f"is not readable JSON ({exc})") from None
        if not isinstance(data, dict):
            raise bad(key, f"is not a JSON object (got a JSON {type(data).__name__})")
        parsed[key] = data
    for field in STEMMER_FIELDS:
        if field in parsed["stemmer"] and not isinstance(parsed["stemmer"][field], str):
            raise bad("stemmer", f"has a {field!r} that is not a string (got {parsed['stemmer'][field]!r:.40})")
    return Meta(dict(values), parsed)
