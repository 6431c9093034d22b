"""What a bundle is made of: :class:`BundleSpec`, the input of :func:`.pipeline.build_bundle`.

The resource builders each return a small value object holding the rows, the
sources they were made from (provenance) and their parameters:

* :class:`~..lexical.function_words.FunctionWords`,
* :class:`~..lexical.stems.StemMap`,
* :class:`~..synonyms.wndb.Synonyms` (from :mod:`..synonyms.wndb` or :mod:`..synonyms.lmf`),
* :class:`Paraphrases` (any iterable of ``(phrase, paraphrase, probability)`` rows),
* :class:`~..lexical.nonbreaking.NonbreakingPrefixes`;

a :class:`BundleSpec` names the bundle (language, name, version), holds any
subset of those resources, an optional base bundle to copy the others from, and
what to record about the build.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple

from ..lexical.function_words import FunctionWords
from ..lexical.nonbreaking import NonbreakingPrefixes
from ..lexical.stems import StemMap
from ..sources import Source
from ..synonyms.wndb import Synonyms

__all__ = ["DEFAULT_VERSION", "RESOURCES", "Paraphrases", "BundleSpec", "BuildResult", "ParamsRecord"]

#: Version given to bundles when the caller does not choose one.
DEFAULT_VERSION = "0.1.0"

#: Resource names, and the (logical) tables of :meth:`Bundle.counts` holding each.
RESOURCES: Dict[str, Tuple[str, ...]] = {
    "function_words": ("function_words",),
    "stems": ("stems",),
    "synonyms": ("synsets", "synonym_exceptions"),
    "paraphrases": ("paraphrases", "paraphrase_prefixes"),
    "nonbreaking": ("nonbreaking_prefixes",),
}

#: Builds a bundle's ``build_params`` from the parameters recorded for each resource written.
ParamsRecord = Callable[[Mapping[str, Dict[str, object]]], Dict[str, object]]


@dataclass
class Paraphrases:
    """A paraphrase table: ``(phrase, paraphrase, probability)`` rows in table order.

    Rows are consumed once, streamed (order is kept: it breaks ties in the
    alignment search).  With ``batched``, ``rows`` yields lists of rows, each
    handed to the writer in one call.
    """

    rows: Iterable[Any]
    sources: List[Source] = field(default_factory=list)
    params: Dict[str, object] = field(default_factory=dict)
    batched: bool = False


@dataclass
class BundleSpec:
    """Everything a bundle is made of.

    Resources left as None are copied from ``base`` (a bundle path; may be the
    output itself) when it has them.  ``name`` defaults to the language.
    ``description`` defaults to a list of the resources.  ``extra_params`` join
    the default ``build_params`` record; ``record`` replaces that record (it gets
    the parameters of each resource written).  ``sources`` are provenance
    records beyond those of the resources.  ``keep_probabilities`` stores the
    paraphrase pairs' probabilities (table ``paraphrase_probs``; the scorer
    never reads them, the Meteor-format export and the quality checks do).
    """

    language: str
    name: Optional[str] = None
    version: str = DEFAULT_VERSION
    description: Optional[str] = None
    base: "os.PathLike[str] | str | None" = None
    function_words: Optional[FunctionWords] = None
    stems: Optional[StemMap] = None
    synonyms: Optional[Synonyms] = None
    paraphrases: Optional[Paraphrases] = None
    nonbreaking: Optional[NonbreakingPrefixes] = None
    sources: List[Source] = field(default_factory=list)
    extra_params: Mapping[str, object] = field(default_factory=dict)
    record: Optional[ParamsRecord] = None
    keep_probabilities: bool = False

    def built(self) -> Dict[str, object]:
        """Resource name -> the resource given (None when absent), in :data:`RESOURCES` order."""
        return {
            "function_words": self.function_words,
            "stems": self.stems,
            "synonyms": self.synonyms,
            "paraphrases": self.paraphrases,
            "nonbreaking": self.nonbreaking,
        }


@dataclass
class BuildResult:
    """What :func:`.pipeline.build_bundle` wrote."""

    path: Path
    checksum: str
    counts: Dict[str, int]
    seconds: float
    resources: Dict[str, str]  # resource -> "built" | "base"

    def summary(self) -> str:
        """One line: path, counts per table, checksum prefix and time."""
        counts = ", ".join(f"{t} {n}" for t, n in self.counts.items() if n)
        return f"{self.path}: {counts or 'no resources'} (checksum {self.checksum[:12]}, {self.seconds:.1f} s)"
