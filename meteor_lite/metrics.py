"""sacreBLEU-style METEOR: ``from meteor_lite.metrics import METEOR`` as ``from sacrebleu.metrics import BLEU``.

::

    from meteor_lite.metrics import METEOR

    meteor = METEOR()                                   # lang="en", norm=True: the jar's -l en -norm
    meteor.corpus_score(hyps, [refs_a, refs_b])         # reference streams, None where a stream has none
    meteor.sentence_score(hyp, [ref_1, ref_2])          # the references of one hypothesis
    meteor.get_signature()                              # meteor-lite|lang:en|norm|task:rank|...

References are given as sacreBLEU takes them: a list of reference streams,
each with one entry per hypothesis (``None`` for a missing reference; an empty
string is an empty reference, which Meteor scores).  Scores are Meteor's, on
its 0-1 scale (``str(score)`` prints ``METEOR = 0.3205 ...``); the corpus score
comes from the summed statistics, as the jar's ``Final score``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from .inputs import segment_references
from .meteor import jar_norm_meteor
from .scores import CorpusScore

__all__ = ["METEOR", "METEORScore", "METEORSignature"]


@dataclass
class METEORScore:
    """A METEOR score in sacreBLEU's manner: ``score``, ``name``, :meth:`format`; ``result`` has every detail."""

    score: float
    result: CorpusScore
    name: str = "METEOR"

    @property
    def precision(self) -> float:
        """Precision over the whole corpus (summed statistics)."""
        return self.result.metrics.precision

    @property
    def recall(self) -> float:
        """Recall over the whole corpus (summed statistics)."""
        return self.result.metrics.recall

    @property
    def frag_penalty(self) -> float:
        """Fragmentation penalty over the whole corpus."""
        return self.result.metrics.frag_penalty

    def format(self, width: int = 4, score_only: bool = False, signature: str = "", is_json: bool = False) -> str:
        """``METEOR = 0.3205 (P 0.6767 R 0.6501 frag 0.5099)``, the score alone, or JSON (as sacreBLEU)."""
        if is_json:
            import json

            out = {"name": self.name, "score": round(self.score, width), "signature": signature or self.result.signature}
            return json.dumps(out, indent=1, ensure_ascii=False)
        if score_only:
            return f"{self.score:.{width}f}"
        name = f"{self.name}|{signature}" if signature else self.name
        return (
            f"{name} = {self.score:.{width}f} (P {self.precision:.{width}f} R {self.recall:.{width}f} "
            f"frag {self.frag_penalty:.{width}f})"
        )

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True)
class METEORSignature:
    """What :meth:`METEOR.get_signature` returns: ``str()`` or :meth:`format` give the one-line signature."""

    signature: str

    def format(self, short: bool = False) -> str:
        """The signature line (``short`` is accepted for sacreBLEU's interface; there is one form)."""
        return self.signature

    def __str__(self) -> str:
        return self.signature


class METEOR:
    """The official Meteor 1.5 metric with sacreBLEU's ``Metric`` interface (no Java).

    Options are :class:`meteor_lite.Meteor`'s (``task``, ``params``, ``modules``,
    ``weights``, ``beam``, ``lower``, ``no_punct``, ``bundle``, ``quiet``); the
    default is ``lang="en"`` and ``-norm``; a tuned ``task`` that carries its normalisation
    (``task="mqm"``) is scored with it unless ``norm`` is given
    (:func:`meteor_lite.meteor.jar_norm_meteor`).  ``jobs`` > 1 scores corpora in that
    many processes (same numbers).
    """

    def __init__(self, lang: str = "en", *, norm: Optional[bool] = None, jobs: int = 1, **options: Any) -> None:
        self.scorer = jar_norm_meteor(lang, norm, **options)
        self.jobs = jobs

    def corpus_score(
        self, hypotheses: Sequence[str], references: Optional[Sequence[Sequence[Optional[str]]]]
    ) -> METEORScore:
        """The corpus score of ``hypotheses`` against reference streams (``None`` entries: missing)."""
        if references is None:
            raise TypeError("references are needed: a list of reference streams, each with one entry per hypothesis")
        result = self.scorer.score_corpus(hypotheses, references, layout="streams", jobs=self.jobs)
        return METEORScore(result.score, result)

    def sentence_score(self, hypothesis: str, references: Sequence[Optional[str]]) -> METEORScore:
        """The score of one hypothesis against its references (a list of strings; the best one counts)."""
        refs = segment_references(references, "references")
        result = self.scorer.score_corpus([hypothesis], [refs], layout="segments")
        return METEORScore(result.score, result)

    def get_signature(self) -> METEORSignature:
        """Everything that changes the number (``str()`` gives the line)."""
        return METEORSignature(self.scorer.signature)
