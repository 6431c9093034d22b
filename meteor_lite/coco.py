"""Drop-in for pycocoevalcap's METEOR scorer: change the import line, nothing else.

::

    # from pycocoevalcap.meteor.meteor import Meteor    # spawns java -jar meteor-1.5.jar -stdio -l en -norm
    from meteor_lite.coco import Meteor                  # same numbers, no Java

    score, scores = Meteor().compute_score(gts, res)     # gts: {image_id: [ref, ...]}, res: {image_id: [hyp]}

:meth:`Meteor.compute_score` returns what pycocoevalcap's returns: the corpus
score and the list of per-image scores, in the order of ``gts.keys()``.
pycocoevalcap sends each image to the jar as a ``SCORE ||| ref 1 ||| ... |||
hyp`` line (having removed ``|||`` from the hypothesis and replaced its first
double spaces by single ones) and then one ``EVAL`` line with every image's
statistics; the jar answers each image's score and the score of the summed
statistics.  This module builds the same fields (so a reference that itself
contains ``|||`` is split into two references, and an image with no reference
is scored against an empty one, as the jar does) and scores them with the
library, ``-l en -norm``: corpus score from summed statistics, as ``EVAL``.

Where pycocoevalcap fails (keys that differ, an image with other than one
hypothesis), :class:`CocoInputError` is raised; it is an ``AssertionError`` like
pycocoevalcap's, and a :class:`~meteor_lite.InputError`.  Inputs that would
desynchronise pycocoevalcap's pipe to the jar (a line break inside a caption)
or crash it (no images; a caption that is not a string) are errors here.
"""

from __future__ import annotations

import os
import threading
from typing import Hashable, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import InputError
from .jarcompat import java_split, java_trim
from .meteor import Meteor as _Meteor
from .resources.bundle import Bundle

__all__ = ["Meteor", "CocoInputError", "jar_fields"]

#: The jar's line reader ends a line at any of these.
_LINE_BREAKS = ("\n", "\r")


class CocoInputError(InputError, AssertionError):
    """Input pycocoevalcap's ``Meteor`` would reject (an ``AssertionError`` there too)."""


def jar_fields(hypothesis: str, references: Sequence[str]) -> Tuple[str, List[str]]:
    """The hypothesis and references the jar scores for pycocoevalcap's ``SCORE`` line of this image.

    pycocoevalcap writes ``' ||| '.join(('SCORE', ' ||| '.join(references),
    hyp))`` with ``hyp = hypothesis.replace('|||', '').replace('  ', ' ')``;
    the jar splits the line at ``|||`` and trims each field.
    """
    hyp = hypothesis.replace("|||", "").replace("  ", " ")
    line = " ||| ".join(("SCORE", " ||| ".join(references), hyp))
    fields = [java_trim(p) for p in java_split(line, "|||")]
    return fields[-1], fields[1:-1]


class Meteor:
    """pycocoevalcap's ``Meteor`` (``-l en -norm``), without Java.

    ``bundle`` (default: the English bundle on the search path) and ``jobs``
    (processes, as :meth:`meteor_lite.Meteor.score_corpus`) are the only
    additions; the numbers do not depend on ``jobs``.
    """

    def __init__(self, *, bundle: Union[str, "os.PathLike[str]", Bundle, None] = None, jobs: int = 1) -> None:
        self._bundle = bundle
        self.scorer = _Meteor("en", norm=True, bundle=bundle)
        self.jobs = jobs
        # pycocoevalcap guards its pipe with a lock; this guards the scorer's caches the same way.
        self.lock = threading.Lock()

    def compute_score(
        self, gts: Mapping[Hashable, Sequence[str]], res: Mapping[Hashable, Sequence[str]]
    ) -> Tuple[float, List[float]]:
        """Corpus score and per-image scores (in ``gts.keys()`` order) of ``res`` against ``gts``."""
        hyps, refs = self._prepare(gts, res)
        with self.lock:
            corpus = self.scorer.score_corpus(hyps, refs, layout="segments", jobs=self.jobs)
        return float(corpus.score), [float(s.score) for s in corpus.segments]

    def method(self) -> str:
        """The metric's name, as pycocoevalcap's scorers report it."""
        return "METEOR"

    def _stat(self, hypothesis_str: str, reference_list: Sequence[str]) -> str:
        """The jar's answer to this image's ``SCORE`` line: its statistics, space-separated (pycocoevalcap's ``_stat``)."""
        hyp, refs = jar_fields(*_image_texts(0, reference_list, [hypothesis_str]))
        with self.lock:
            return self.scorer.score_segment(hyp, refs).stats.to_ss_line()

    def close(self) -> None:
        """Release the scorer (nlg-eval's ``Meteor.close``, which ends its jar); safe to call twice.

        A closed scorer is opened again by the next :meth:`compute_score`.
        """
        with self.lock:
            self.__dict__.pop("scorer", None)  # its bundle is closed with it

    def __enter__(self) -> "Meteor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # pycocoevalcap's and nlg-eval's end their jar here; nothing to end but the scorer, and nothing may raise
        # while the interpreter shuts down (the lock or the scorer may be gone already)
        try:
            self.__dict__.pop("scorer", None)
        except Exception:  # noqa: BLE001 - a finaliser must not raise
            pass

    def __getattr__(self, name: str) -> object:
        if name == "scorer":  # closed: open again with the same options
            scorer = _Meteor("en", norm=True, bundle=self.__dict__.get("_bundle"))
            self.__dict__["scorer"] = scorer
            return scorer
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _score(self, hypothesis_str: str, reference_list: Sequence[str]) -> float:
        """One image's score (pycocoevalcap's ``_score``: ``SCORE`` then ``EVAL`` of its statistics)."""
        score, _ = self.compute_score({0: reference_list}, {0: [hypothesis_str]})
        return score

    @staticmethod
    def _prepare(
        gts: Mapping[Hashable, Sequence[str]], res: Mapping[Hashable, Sequence[str]]
    ) -> Tuple[List[str], List[List[Optional[str]]]]:
        if not isinstance(gts, Mapping) or not isinstance(res, Mapping):
            raise TypeError(
                "compute_score(gts, res) takes two dicts: {image_id: [reference, ...]} and {image_id: [hypothesis]}"
            )
        if gts.keys() != res.keys():
            only_g = [k for k in gts if k not in res][:3]
            only_r = [k for k in res if k not in gts][:3]
            raise CocoInputError(
                f"gts and res must have the same image ids (only in gts: {only_g}, only in res: {only_r})"
            )
        if not gts:
            raise InputError("no images to score (gts and res are empty)")
        hyps: List[str] = []
        refs: List[List[Optional[str]]] = []
        for img in gts:
            hyp, rs = jar_fields(*_image_texts(img, gts[img], res[img]))
            hyps.append(hyp)
            refs.append(list(rs))
        return hyps, refs


def _image_texts(img: Hashable, gt: Sequence[str], hyp: Sequence[str]) -> Tuple[str, List[str]]:
    """The hypothesis and references of one image, checked as pycocoevalcap would need them."""
    if isinstance(hyp, str) or len(hyp) != 1:
        got = "a string" if isinstance(hyp, str) else f"{len(hyp)}"
        raise CocoInputError(f"res[{img!r}] must be a list of exactly one hypothesis, got {got}")
    if isinstance(gt, str):
        raise TypeError(f"gts[{img!r}] must be a list of reference strings, not a string")
    texts = [hyp[0], *gt]
    for t in texts:
        if not isinstance(t, str):
            raise TypeError(f"image {img!r}: captions must be strings, got {type(t).__name__}")
        if any(b in t for b in _LINE_BREAKS):
            raise InputError(
                f"image {img!r}: a caption contains a line break, which would break pycocoevalcap's "
                f"line protocol with the jar: {t[:60]!r}"
            )
    return hyp[0], list(gt)
