"""THE build pipeline: a :class:`~.spec.BundleSpec` in, a bundle out (:func:`build_bundle`).

Every command that writes a bundle -- ``meteor-build bundle`` and its siblings,
``recipe``, ``import-official``, ``paraphrases`` -- ends here.  The bundle is
written atomically (no file at ``out`` after an error or interruption).
Resources not given can be copied from a base bundle, which is how a build
adds to or replaces part of an existing bundle (the base may be ``out`` itself).

Unless the spec brings its own ``record``, every bundle records in its
``build_params`` meta key, for each resource, its parameters and the names of
its sources, so a later build on top of it knows which sources to keep.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence

from meteor_lite import __version__
from meteor_lite.errors import BundleError
from meteor_lite.gcpause import gc_paused
from meteor_lite.resources.bundle import Bundle

from ..errors import SourceError
from ..lexical.function_words import FunctionWords
from ..lexical.nonbreaking import NonbreakingPrefixes
from ..lexical.stems import StemMap
from ..sources import Source
from ..synonyms.wndb import Synonyms
from .base import copy_from_base
from .spec import RESOURCES, BuildResult, BundleSpec, Paraphrases
from .writer import BundleWriter

__all__ = [
    "build_bundle",
    "write_function_words",
    "write_stems",
    "write_synonyms",
    "write_paraphrases",
    "write_nonbreaking",
]

#: The ``builder`` recorded in build_params (bundle content: kept as it was when this lived in compose.py,
#: so that the same inputs keep giving the same content checksum).
BUILDER_RECORD = f"meteor-lite {__version__} meteor_lite_builders.compose.build_bundle"


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
    if para.batched:
        n = sum(w.add_paraphrases(batch) for batch in para.rows)
    else:
        n = w.add_paraphrases(para.rows)
    return {**para.params, "pairs": n, "sources": _record(w, para.sources)}


def write_nonbreaking(w: BundleWriter, nb: NonbreakingPrefixes) -> Dict[str, object]:
    """Add non-breaking prefixes; return their build parameters."""
    w.add_nonbreaking_prefixes(sorted(nb.prefixes.items()))
    return {**nb.params, "sources": _record(w, nb.sources)}


def _open_base(spec: BundleSpec) -> Optional[Bundle]:
    if spec.base is None:
        return None
    try:
        base = Bundle.open(spec.base)
    except BundleError as exc:
        raise SourceError(f"base bundle: {exc}") from None
    if base.language and base.language != spec.language:
        base.close()
        raise SourceError(f"base bundle {spec.base} is for language {base.language!r}, not {spec.language!r}")
    return base


def _from_base(spec: BundleSpec, base: Optional[Bundle]) -> List[str]:
    """The resources to copy from the base bundle: those not given that it has."""
    built = spec.built()
    from_base: List[str] = []
    if base is not None:
        have = base.counts()
        from_base = [r for r, v in built.items() if v is None and any(have[t] for t in RESOURCES[r])]
    if not any(v is not None for v in built.values()) and not from_base:
        raise SourceError("nothing to build: give at least one resource (or a base bundle that has some)")
    return from_base


def _write_resources(w: BundleWriter, spec: BundleSpec) -> Dict[str, Dict[str, object]]:
    """Write the resources of ``spec`` (the stem map last: its vocabulary may come from the others' rows)."""
    res: Dict[str, Dict[str, object]] = {}
    if spec.nonbreaking is not None:
        res["nonbreaking"] = write_nonbreaking(w, spec.nonbreaking)
    if spec.function_words is not None:
        res["function_words"] = write_function_words(w, spec.function_words)
    if spec.synonyms is not None:
        res["synonyms"] = write_synonyms(w, spec.synonyms)
    if spec.paraphrases is not None:
        res["paraphrases"] = write_paraphrases(w, spec.paraphrases)
    if spec.stems is not None:
        res["stems"] = write_stems(w, spec.stems)
    return res


def _default_record(spec: BundleSpec) -> Dict[str, object]:
    return {"builder": BUILDER_RECORD}


def build_bundle(spec: BundleSpec, out: "os.PathLike[str] | str", *, progress: bool = True) -> BuildResult:
    """Write the bundle ``spec`` describes at ``out``; return what was written.

    The bundle's content checksum depends only on the resources, their sources
    and parameters (not on the time), so the same inputs give the same checksum.
    ``progress`` shows a bar while a large base bundle is copied (on a terminal only).
    Raises :class:`~..errors.SourceError` (nothing to build, unusable base bundle).
    """
    t0 = time.monotonic()
    out = Path(out)
    base = _open_base(spec)
    try:
        from_base = _from_base(spec, base)
        res: Dict[str, Dict[str, object]] = {}
        with gc_paused(), BundleWriter(
            out, language=spec.language, name=spec.name or spec.language, version=spec.version,
            keep_probabilities=spec.keep_probabilities,
        ) as w:
            if base is not None and from_base:
                res.update(copy_from_base(w, base, from_base, progress))
            res.update(_write_resources(w, spec))
            for s in spec.sources:
                s.record(w)
            if spec.record is not None:
                params = spec.record(res)
            else:
                params = _default_record(spec)
                params["resources"] = {r: res[r] for r in RESOURCES if r in res}
                params.update(spec.extra_params)
            w.set_meta("build_params", json.dumps(params, sort_keys=True, ensure_ascii=False))
            w.set_meta("description", spec.description or _describe(spec.language, spec.built(), from_base))
            w.set_meta("built_at", _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat())
    finally:
        if base is not None:
            base.close()
    with Bundle.open(out) as b:
        counts = b.counts()
        checksum = b.checksum
    status = {r: "built" for r, v in spec.built().items() if v is not None}
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
