"""Copying resources from a base bundle into a bundle being written (with the sources that fed them)."""

from __future__ import annotations

import json
import sqlite3
from typing import Dict, Sequence, Set, Tuple

from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.schema import PROBABILITY_SQL, PROBABILITY_TABLE, PROBS_DROPPED, PROBS_FLOAT64

from ..sources import progress
from .spec import RESOURCES
from .writer import BundleWriter

__all__ = ["copy_from_base"]

#: For bundles that do not say which sources fed which resource (e.g. the import
#: of the official release): the resources a source of each kind belongs to.
_KIND_RESOURCES: Dict[str, Tuple[str, ...]] = {
    "wordnet": ("synonyms",),
    "wn-lmf": ("synonyms",),
    "paraphrase-table": ("paraphrases",),
    "official-release": ("function_words", "nonbreaking", "stems"),
}



def _base_resource_sources(base: Bundle) -> Dict[str, Set[str]]:
    """Which of the base bundle's sources fed each resource."""
    params = json.loads(base.meta.get("build_params") or "{}")
    recorded = params.get("resources") if isinstance(params, dict) else None
    out: Dict[str, Set[str]] = {r: set() for r in RESOURCES}
    if isinstance(recorded, dict):
        for res, p in recorded.items():
            if res in out and isinstance(p, dict):
                out[res].update(p.get("sources") or [])
        return out
    for s in base.sources():
        for res in _KIND_RESOURCES.get(s["kind"], tuple(RESOURCES)):
            out[res].add(s["name"])
    return out


#: The bundle tables holding each resource (schema 2: what is copied).
_TABLES: Dict[str, Tuple[str, ...]] = {
    "function_words": ("function_words",),
    "stems": ("stems",),
    "synonyms": ("synsets", "synonym_exceptions"),
    "paraphrases": ("paraphrases",),
    "nonbreaking": ("nonbreaking_prefixes",),
}

#: Primary-key columns of the tables (copies go in key order, in chunks).
_KEYS: Dict[str, Tuple[str, ...]] = {
    "function_words": ("word",),
    "stems": ("word",),
    "synsets": ("word", "synset"),
    "synonym_exceptions": ("form", "base"),
    "paraphrases": ("phrase",),
    "paraphrase_probs": ("phrase",),
    "nonbreaking_prefixes": ("prefix",),
}


def _copy_table(conn: sqlite3.Connection, table: str, bar: object, chunk: int = 250_000) -> int:
    """Copy ``base.<table>`` into ``main.<table>`` in key order, ``chunk`` rows at a time; return the rows copied."""
    cols = ", ".join(_KEYS[table])
    marks = ", ".join("?" * len(_KEYS[table]))
    desc = ", ".join(f"{c} DESC" for c in _KEYS[table])
    last: Tuple[object, ...] = ()
    copied = 0
    while True:
        where = f"WHERE ({cols}) > ({marks})" if last else ""
        before = conn.total_changes
        conn.execute(f"INSERT INTO main.{table} SELECT * FROM base.{table} {where} ORDER BY {cols} LIMIT {chunk}", last)
        n = conn.total_changes - before
        copied += n
        bar.update(n)  # type: ignore[attr-defined]
        if n < chunk:
            return copied
        last = tuple(conn.execute(f"SELECT {cols} FROM main.{table} ORDER BY {desc} LIMIT 1").fetchone())


def copy_from_base(
    w: BundleWriter, base: Bundle, resources: Sequence[str], show_progress: bool = True
) -> Dict[str, Dict[str, object]]:
    """Copy the tables of ``resources`` (and the sources that fed them) from ``base``; return their parameters."""
    conn = w.conn
    params_out: Dict[str, Dict[str, object]] = {}
    base_params = json.loads(base.meta.get("build_params") or "{}")
    recorded = base_params.get("resources", {}) if isinstance(base_params, dict) else {}
    feeds = _base_resource_sources(base)
    keep_sources: Set[str] = set()
    tables = [t for res in resources for t in _TABLES[res]]
    if "paraphrases" in resources and w.keep_probabilities and base.has_paraphrase_probabilities:
        conn.executescript(PROBABILITY_SQL)
        tables.append(PROBABILITY_TABLE)
    conn.execute("ATTACH DATABASE ? AS base", (str(base.path),))
    try:
        total = sum(conn.execute(f"SELECT COUNT(*) FROM base.{t}").fetchone()[0] for t in tables)
        with progress(show_progress and total > 200_000, total=total, unit="row", unit_scale=True, desc="copying base bundle") as bar:
            for table in tables:
                _copy_table(conn, table, bar)
        for res in resources:
            keep_sources |= feeds[res]
        for res in resources:
            p = recorded.get(res) if isinstance(recorded, dict) else None
            params_out[res] = {
                "from_bundle": f"{base.name} {base.version} ({base.checksum[:16]})",
                **({"base_params": p} if isinstance(p, dict) else {}),
                "sources": sorted(feeds[res]),
            }
        for row in conn.execute(
            "SELECT name, kind, description, licence, sha256, location FROM base.sources ORDER BY name"
        ).fetchall():
            if row[0] in keep_sources:
                conn.execute("INSERT OR REPLACE INTO main.sources VALUES (?,?,?,?,?,?)", row)
        conn.commit()
    except BaseException:
        conn.rollback()  # the writer then discards the whole file
        raise
    finally:
        try:
            conn.execute("DETACH DATABASE base")
        except sqlite3.Error:  # pragma: no cover - only after an error, which is what propagates
            pass
    if "stems" in resources and base.meta.get("stemmer"):
        w.set_meta("stemmer", base.meta["stemmer"])
    if "paraphrases" in resources and base.paraphrase_max_length():
        w.set_meta("paraphrase_max_length", str(base.paraphrase_max_length()))
        w.set_meta("paraphrase_pairs", str(base.counts()["paraphrases"]))
        w.set_meta("paraphrase_probabilities", PROBS_FLOAT64 if PROBABILITY_TABLE in tables else PROBS_DROPPED)
    return params_out
