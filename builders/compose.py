"""Put built resources together into one bundle: :func:`build_bundle`.

The resource builders each return a small value object holding the rows, the
sources they were made from (provenance) and their parameters:

* :class:`~.function_words.FunctionWords` (:mod:`.function_words`),
* :class:`~.stems.StemMap` (:mod:`.stems`),
* :class:`~.wordnet.Synonyms` (:mod:`.wordnet`, :mod:`.lmf`),
* :class:`Paraphrases` (any iterable of ``(phrase, paraphrase, probability)`` rows, e.g. a pivoted table),

and :func:`build_bundle` writes any subset of them, plus the normaliser's
non-breaking prefixes, atomically (no file at ``out`` after an error or
interruption).  Resources not given can be copied from a ``base`` bundle, which
is how a recipe adds to or replaces part of an existing bundle (``base`` may be
``out`` itself).  The ``write_*`` functions add one resource to a
:class:`~.bundle_writer.BundleWriter` a caller manages itself.

Every bundle built here records in its ``build_params`` meta key, for each
resource, its parameters and the names of its sources, so a later build on top
of it knows which sources to keep.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from meteor_lite import __version__
from meteor_lite.bundle import Bundle, BundleError

from .bundle_writer import BundleWriter
from .function_words import FunctionWords
from .inputs import Source, SourceError, progress
from .stems import StemMap
from .wordnet import Synonyms

__all__ = [
    "DEFAULT_VERSION",
    "RESOURCES",
    "Paraphrases",
    "NonbreakingPrefixes",
    "BuildResult",
    "official_nonbreaking",
    "read_nonbreaking_file",
    "build_bundle",
    "write_function_words",
    "write_stems",
    "write_synonyms",
    "write_paraphrases",
    "write_nonbreaking",
]

#: Version given to bundles when the caller does not choose one.
DEFAULT_VERSION = "0.1.0"

#: Resource names, and the bundle tables holding each.
RESOURCES: Dict[str, Tuple[str, ...]] = {
    "function_words": ("function_words",),
    "stems": ("stems",),
    "synonyms": ("synsets", "synonym_exceptions"),
    "paraphrases": ("paraphrases", "paraphrase_prefixes"),
    "nonbreaking": ("nonbreaking_prefixes",),
}

#: For bundles that do not say which sources fed which resource (e.g. the import
#: of the official release): the resources a source of each kind belongs to.
_KIND_RESOURCES: Dict[str, Tuple[str, ...]] = {
    "wordnet": ("synonyms",),
    "wn-lmf": ("synonyms",),
    "paraphrase-table": ("paraphrases",),
    "official-release": ("function_words", "nonbreaking", "stems"),
}


@dataclass
class Paraphrases:
    """A paraphrase table: ``(phrase, paraphrase, probability)`` rows in table order.

    Rows are consumed once, streamed (order is kept: it breaks ties in the
    alignment search).
    """

    rows: Iterable[Tuple[str, str, float]]
    sources: List[Source] = field(default_factory=list)
    params: Dict[str, object] = field(default_factory=dict)


@dataclass
class NonbreakingPrefixes:
    """The normaliser's non-breaking prefixes: prefix -> numeric_only."""

    prefixes: Dict[str, bool]
    sources: List[Source] = field(default_factory=list)
    params: Dict[str, object] = field(default_factory=dict)


@dataclass
class BuildResult:
    """What :func:`build_bundle` wrote."""

    path: Path
    checksum: str
    counts: Dict[str, int]
    seconds: float
    resources: Dict[str, str]  # resource -> "built" | "base"

    def summary(self) -> str:
        """One line: path, counts per table, checksum prefix and time."""
        counts = ", ".join(f"{t} {n}" for t, n in self.counts.items() if n)
        return f"{self.path}: {counts or 'no resources'} (checksum {self.checksum[:12]}, {self.seconds:.1f} s)"


# -- non-breaking prefixes ---------------------------------------------------------


def official_nonbreaking(lang: str) -> Optional[NonbreakingPrefixes]:
    """Meteor 1.5's non-breaking prefixes for ``lang`` from its jar (pycocoevalcap), or None.

    None when Meteor has no list for the language.  Raises
    :class:`~.official.OfficialReleaseError` when the release is not installed.
    """
    import hashlib

    from . import official

    code = {"cs": "cz", "sv": "se", "nb": "no"}.get(lang, lang)
    if code not in official.LANGUAGE_NAMES:
        return None
    prefixes = official.read_nonbreaking_prefixes(code)
    if not prefixes:
        return None
    member = f"nonbreaking/{official.LANGUAGE_NAMES[code]}.prefixes"
    try:
        from importlib.metadata import version

        pkg = f"pycocoevalcap=={version('pycocoevalcap')}"
    except Exception:  # pragma: no cover - metadata missing
        pkg = "pycocoevalcap"
    src = Source(
        name=f"meteor-1.5-{Path(member).name}",
        kind="official-release",
        description=f"Meteor 1.5 non-breaking prefixes ({member} inside meteor-1.5.jar)",
        licence="LGPL-2.1",
        sha256=hashlib.sha256(official.read_jar_bytes(member)).hexdigest(),
        location=f"PyPI {pkg}: pycocoevalcap/meteor/meteor-1.5.jar!{member}",
    )
    return NonbreakingPrefixes(prefixes=prefixes, sources=[src], params={"source": "meteor-1.5", "prefixes": len(prefixes)})


def read_nonbreaking_file(path: "os.PathLike[str] | str", licence: str = "see the file") -> NonbreakingPrefixes:
    """Non-breaking prefixes from a Moses/Meteor ``*.prefixes`` file.

    One prefix per line (first token); ``#`` starts a comment; a second token
    ``#NUMERIC_ONLY#`` marks a prefix that is kept only before a number.
    """
    from .inputs import file_source, iter_text_lines

    out: Dict[str, bool] = {}
    for _lineno, line in iter_text_lines(path):
        toks = line.split()
        if not toks or toks[0].startswith("#"):
            continue
        out[toks[0]] = len(toks) > 1 and toks[1] == "#NUMERIC_ONLY#"
    src = file_source(path, kind="nonbreaking-prefixes", description="non-breaking prefixes (Moses format)", licence=licence)
    return NonbreakingPrefixes(prefixes=out, sources=[src], params={"source": "file", "prefixes": len(out)})


# -- writing one resource ----------------------------------------------------------


def _record(w: BundleWriter, sources: Sequence[Source]) -> List[str]:
    for s in sources:
        s.record(w)
    return [s.name for s in sources]


def write_function_words(w: BundleWriter, fw: FunctionWords) -> Dict[str, object]:
    """Add a function-word list and its sources; return its build parameters."""
    w.add_function_words(fw.words)
    return {**fw.params, "sources": _record(w, fw.sources)}


def write_stems(w: BundleWriter, sm: StemMap) -> Dict[str, object]:
    """Add a stem map, its sources and the stemmer record; return its build parameters."""
    w.add_stems(sm.pairs)
    w.set_stemmer(sm.stemmer.algorithm, sm.stemmer.package, sm.stemmer.version)
    return {**sm.params, "sources": _record(w, sm.sources)}


def write_synonyms(w: BundleWriter, syn: Synonyms) -> Dict[str, object]:
    """Add synonym sets, morphological exceptions and their sources; return the build parameters."""
    w.add_synsets(syn.synsets)
    w.add_synonym_exceptions(syn.exceptions)
    return {**syn.params, "sources": _record(w, syn.sources)}


def write_paraphrases(w: BundleWriter, para: Paraphrases) -> Dict[str, object]:
    """Add a paraphrase table (streamed, table order kept); return its build parameters."""
    n = w.add_paraphrases(para.rows)
    return {**para.params, "pairs": n, "sources": _record(w, para.sources)}


def write_nonbreaking(w: BundleWriter, nb: NonbreakingPrefixes) -> Dict[str, object]:
    """Add non-breaking prefixes; return their build parameters."""
    w.add_nonbreaking_prefixes(sorted(nb.prefixes.items()))
    return {**nb.params, "sources": _record(w, nb.sources)}


# -- copying from a base bundle ------------------------------------------------------


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


#: Primary-key columns of the resource tables (copies go in key order, in chunks).
_KEYS: Dict[str, Tuple[str, ...]] = {
    "function_words": ("word",),
    "stems": ("word",),
    "synsets": ("word", "synset"),
    "synonym_exceptions": ("form", "base"),
    "paraphrases": ("phrase", "seq"),
    "paraphrase_prefixes": ("prefix",),
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


def _copy_from_base(
    w: BundleWriter, base: Bundle, resources: Sequence[str], show_progress: bool = True
) -> Dict[str, Dict[str, object]]:
    """Copy the tables of ``resources`` (and the sources that fed them) from ``base``."""
    conn = w.conn
    params_out: Dict[str, Dict[str, object]] = {}
    base_params = json.loads(base.meta.get("build_params") or "{}")
    recorded = base_params.get("resources", {}) if isinstance(base_params, dict) else {}
    feeds = _base_resource_sources(base)
    keep_sources: Set[str] = set()
    counts = base.counts()
    total = sum(counts[t] for res in resources for t in RESOURCES[res])
    conn.execute("ATTACH DATABASE ? AS base", (str(base.path),))
    try:
        with progress(show_progress and total > 200_000, total=total, unit="row", unit_scale=True, desc="copying base bundle") as bar:
            for res in resources:
                for table in RESOURCES[res]:
                    _copy_table(conn, table, bar)
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
    return params_out


# -- the build ----------------------------------------------------------------------


def build_bundle(
    lang: str,
    out: "os.PathLike[str] | str",
    *,
    function_words: Optional[FunctionWords] = None,
    stems: Optional[StemMap] = None,
    synonyms: Optional[Synonyms] = None,
    paraphrases: Optional[Paraphrases] = None,
    nonbreaking: Optional[NonbreakingPrefixes] = None,
    base: "os.PathLike[str] | str | None" = None,
    name: Optional[str] = None,
    version: str = DEFAULT_VERSION,
    description: Optional[str] = None,
    extra_params: Optional[Mapping[str, object]] = None,
    show_progress: bool = True,
) -> BuildResult:
    """Write a bundle for ``lang`` at ``out`` holding the given resources.

    Resources left as None are copied from ``base`` (a bundle path; may equal
    ``out``) when it has them, with the sources that fed them; otherwise the
    bundle lacks them.  ``name`` defaults to ``lang``.  The bundle's content
    checksum depends only on the resources, their sources and parameters (not
    on the time), so the same inputs give the same checksum.  ``show_progress``
    shows a bar while a large base bundle is copied (on a terminal only).

    Raises :class:`~.inputs.SourceError` (bad arguments, unusable base bundle).
    The bundle is written atomically: nothing is left at ``out`` (and an older
    file there is untouched) after an error or interruption.
    """
    t0 = time.monotonic()
    out = Path(out)
    built = {
        "function_words": function_words,
        "stems": stems,
        "synonyms": synonyms,
        "paraphrases": paraphrases,
        "nonbreaking": nonbreaking,
    }
    base_bundle: Optional[Bundle] = None
    if base is not None:
        try:
            base_bundle = Bundle.open(base)
        except BundleError as exc:
            raise SourceError(f"base bundle: {exc}") from None
    try:
        if base_bundle is not None and base_bundle.language and base_bundle.language != lang:
            raise SourceError(f"base bundle {base} is for language {base_bundle.language!r}, not {lang!r}")
        from_base: List[str] = []
        if base_bundle is not None:
            have = base_bundle.counts()
            from_base = [r for r, v in built.items() if v is None and any(have[t] for t in RESOURCES[r])]
        if not any(v is not None for v in built.values()) and not from_base:
            raise SourceError("nothing to build: give at least one resource (or a base bundle that has some)")

        params: Dict[str, object] = {"builder": f"meteor-lite {__version__} meteor_lite_builders.compose.build_bundle"}
        res_params: Dict[str, Dict[str, object]] = {}
        with BundleWriter(out, language=lang, name=name or lang, version=version) as w:
            if base_bundle is not None and from_base:
                res_params.update(_copy_from_base(w, base_bundle, from_base, show_progress))
            if nonbreaking is not None:
                res_params["nonbreaking"] = write_nonbreaking(w, nonbreaking)
            if function_words is not None:
                res_params["function_words"] = write_function_words(w, function_words)
            if stems is not None:
                res_params["stems"] = write_stems(w, stems)
            if synonyms is not None:
                res_params["synonyms"] = write_synonyms(w, synonyms)
            if paraphrases is not None:
                res_params["paraphrases"] = write_paraphrases(w, paraphrases)
            params["resources"] = {r: res_params[r] for r in RESOURCES if r in res_params}
            if extra_params:
                params.update(extra_params)
            w.set_meta("build_params", json.dumps(params, sort_keys=True, ensure_ascii=False))
            w.set_meta("description", description or _describe(lang, built, from_base))
            w.set_meta("built_at", _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat())
    finally:
        if base_bundle is not None:
            base_bundle.close()
    with Bundle.open(out) as b:
        counts = b.counts()
        checksum = b.checksum
    status = {r: "built" for r, v in built.items() if v is not None}
    status.update({r: "base" for r in from_base})
    return BuildResult(path=out, checksum=checksum, counts=counts, seconds=time.monotonic() - t0, resources=status)


_LABELS = {
    "function_words": "function words",
    "stems": "stem map",
    "synonyms": "synonym sets",
    "paraphrases": "paraphrases",
    "nonbreaking": "non-breaking prefixes",
}


def _describe(lang: str, built: Mapping[str, object], from_base: Sequence[str]) -> str:
    parts = []
    for r in RESOURCES:
        v = built.get(r)
        if v is not None:
            src = getattr(v, "params", {}).get("source")
            parts.append(f"{_LABELS[r]}" + (f" ({src})" if src else ""))
        elif r in from_base:
            parts.append(f"{_LABELS[r]} (from base bundle)")
    return f"meteor-lite resources for {lang!r}: " + ", ".join(parts)
