"""Hugging Face ``evaluate``-style METEOR with the official Meteor 1.5 number.

::

    from meteor_lite import hf

    hf.compute(predictions=["It is a guide to action which ensures that the military always obeys the commands of the party"],
               references=["It is a guide to action that ensures that the military will forever heed Party commands"])
    # {'meteor': 0.44736091739438233, 'scores': [0.44736091739438233], 'signature': 'meteor-lite|lang:en|norm|...'}

``references`` is one entry per prediction: a string, or a list of strings
(several references, the best one counts).  ``meteor`` is Meteor 1.5's corpus
score (from the summed statistics of all predictions, what the jar prints as
``Final score`` and pycocoevalcap returns), not the mean of the sentence
scores; ``scores`` holds the sentence scores.  The default options are the jar's
``-l en -norm``, as in pycocoevalcap; ``evaluate``'s own ``meteor`` is NLTK's
re-implementation, whose numbers differ (on the example above 0.6944 with evaluate's current script and
NLTK 3.10, 0.7398 with older releases, huggingface/evaluate#115).

:class:`Meteor` is the metric object (``add``, ``add_batch``, ``compute``), as
``evaluate.load("meteor")`` returns one: ``hf.load("meteor")`` (English, the jar's ``-l en -norm``)
or ``hf.load("de", ...)``; :func:`compute` uses one per set of options.  ``evaluate``'s arguments
``alpha``, ``beta`` and ``gamma`` are Meteor's first three parameters (the same formula: the harmonic mean
weighted by alpha, the fragmentation penalty gamma * frag ** beta); what is not given keeps the language's value, as do
the module weights (the jar's ``-p`` alone, and ``params=`` alone, switch to other ones), and delta (the function-word weight, which NLTK lacks) is always the language's.  Not giving them is the jar's
``-l en -norm``; giving evaluate's defaults (``alpha=0.9, beta=3, gamma=0.5``) scores with those parameters, not the
jar's.  ``evaluate.load(hf.evaluate_metric_path())`` loads the same metric through ``evaluate``, offline.  ``compute()`` with nothing
to score raises :class:`~meteor_lite.errors.InputError` (a ``ValueError``), as ``evaluate`` does.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from .errors import InputError
from .inputs import hypothesis_list, segment_references
from .meteor import jar_norm_meteor

__all__ = ["EVALUATE_SCRIPT", "Meteor", "compute", "evaluate_metric_path", "load"]

Reference = Union[str, Sequence[str]]


class Meteor:
    """A METEOR metric object with ``evaluate``'s interface; options are :class:`meteor_lite.Meteor`'s.

    The default is ``lang="en"`` and ``-norm`` (the jar's ``-l en -norm``); a tuned ``task`` that carries its
    normalisation (``task="mqm"``) is scored with it unless ``norm`` is given
    (:func:`meteor_lite.meteor.jar_norm_meteor`).
    """

    def __init__(
        self,
        lang: str = "en",
        *,
        norm: Optional[bool] = None,
        alpha: Optional[float] = None,
        beta: Optional[float] = None,
        gamma: Optional[float] = None,
        **options: Any,
    ) -> None:
        self.scorer = jar_norm_meteor(lang, norm, **options)
        given = (alpha, beta, gamma)
        if any(v is not None for v in given):
            if options.get("params") is not None:
                raise TypeError("give params=(alpha, beta, gamma, delta) or alpha/beta/gamma, not both")
            params = [float(v) if v is not None else float(d) for v, d in zip(given, self.scorer.config.params)]
            params.append(float(self.scorer.config.params[3]))  # delta: the language's (NLTK has none)
            # the module weights stay the language's: with -p alone the jar (and params= alone) takes other ones
            weights = options.get("weights") or list(self.scorer.config.weights)
            self.scorer = jar_norm_meteor(lang, norm, **{**options, "params": params, "weights": weights})
        self._predictions: List[str] = []
        self._references: List[Reference] = []

    def add(self, *, prediction: str, reference: Reference) -> None:
        """Queue one prediction and its reference(s) for the next :meth:`compute`."""
        self.add_batch(predictions=[prediction], references=[reference])

    def add_batch(self, *, predictions: Sequence[str], references: Sequence[Reference]) -> None:
        """Queue predictions and their references for the next :meth:`compute`."""
        self._predictions.extend(hypothesis_list(predictions, "predictions"))
        self._references.extend(_listed(references))

    def compute(
        self,
        *,
        predictions: Optional[Sequence[str]] = None,
        references: Optional[Sequence[Reference]] = None,
        jobs: int = 1,
    ) -> Dict[str, Any]:
        """``{"meteor": corpus score, "scores": sentence scores, "signature": ...}`` of everything added.

        With nothing added (an empty queue, or empty ``predictions``) there is no score to give:
        :class:`~meteor_lite.errors.InputError` (a ``ValueError``), as ``evaluate``'s ``compute``
        raises ``ValueError`` when nothing was added, rather than a corpus score of 0.0.
        """
        if predictions is not None or references is not None:
            if predictions is None or references is None:
                raise TypeError("compute() takes both predictions and references, or neither (after add/add_batch)")
            self.add_batch(predictions=predictions, references=references)
        preds, refs = self._predictions, self._references
        self._predictions, self._references = [], []
        if not preds and not refs:
            raise InputError(
                "compute() has nothing to score: no prediction was added (call add() or add_batch() first, or pass "
                "predictions= and references= with at least one prediction); evaluate raises here too"
            )
        if len(preds) != len(refs):
            raise ValueError(f"{len(preds)} predictions but {len(refs)} references: give one entry per prediction")
        per_seg = [segment_references(r, f"references[{i}]") for i, r in enumerate(refs)]
        corpus = self.scorer.score_corpus(preds, per_seg, layout="segments", jobs=jobs)
        return {
            "meteor": corpus.score,
            "scores": [s.score for s in corpus.segments],
            "signature": corpus.signature,
        }


def _listed(references: Sequence[Reference]) -> List[Reference]:
    if isinstance(references, str):
        raise TypeError("references must be a list with one entry (a string or a list of strings) per prediction, not a string")
    return list(references)


_CACHE: Dict[Tuple[Any, ...], Meteor] = {}


#: Names ``load`` takes as ``evaluate.load`` does (the metric's name), meaning the default language.
METRIC_NAMES = ("meteor",)


def load(lang: str = "en", *, norm: Optional[bool] = None, **options: Any) -> Meteor:
    """A :class:`Meteor` metric object (like ``evaluate.load("meteor")``); one per set of options is kept.

    ``lang`` is a language (``"en"``, ``"de"``), or ``"meteor"``, evaluate's idiom, for English.
    """
    if lang in METRIC_NAMES:
        lang = "en"
    key = (lang, norm, *sorted((k, _hashable(v)) for k, v in options.items()))
    if key not in _CACHE:
        _CACHE[key] = Meteor(lang, norm=norm, **options)
    return _CACHE[key]


def _hashable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def compute(
    *, predictions: Sequence[str], references: Sequence[Reference], lang: str = "en", norm: Optional[bool] = None, **options: Any
) -> Dict[str, Any]:
    """Score ``predictions`` against ``references`` (one entry per prediction); see the module docstring.

    ``alpha``, ``beta`` and ``gamma`` (``evaluate``'s arguments) are Meteor's first three parameters (see
    :class:`Meteor`).
    """
    jobs = options.pop("jobs", 1)
    return load(lang, norm=norm, **options).compute(predictions=predictions, references=references, jobs=jobs)


#: The ``evaluate`` metric script :func:`evaluate_metric_path` writes (it imports ``evaluate`` and ``datasets``,
#: which only the user's environment has; the scoring is :func:`compute`'s).
EVALUATE_SCRIPT = '''"""METEOR with Meteor 1.5's numbers (meteor-lite), as an evaluate metric: evaluate.load(PATH_OF_THIS_DIRECTORY)."""

import datasets
import evaluate

from meteor_lite import hf

_DESCRIPTION = "Meteor 1.5's METEOR (the jar's -l en -norm numbers), scored by meteor-lite without Java."
_KWARGS = """predictions: list of strings; references: one string or list of strings per prediction;
alpha, beta, gamma: Meteor's parameters (default: the language's, not NLTK's 0.9, 3, 0.5); lang: 'en' (default)."""


class MeteorLite(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation="",
            inputs_description=_KWARGS,
            features=[
                datasets.Features({"predictions": datasets.Value("string", id="sequence"),
                                   "references": datasets.Sequence(datasets.Value("string", id="sequence"), id="references")}),
                datasets.Features({"predictions": datasets.Value("string", id="sequence"),
                                   "references": datasets.Value("string", id="sequence")}),
            ],
        )

    def _compute(self, predictions, references, alpha=None, beta=None, gamma=None, lang="en"):
        result = hf.compute(predictions=predictions, references=references, lang=lang, alpha=alpha, beta=beta, gamma=gamma)
        return {"meteor": result["meteor"], "scores": result["scores"]}
'''


def evaluate_metric_path(directory: "Optional[str]" = None) -> str:
    """A directory holding the ``evaluate`` metric script (``meteor_lite/meteor_lite.py``), for ``evaluate.load(path)``.

    Written on first use into ``directory`` (default: ``$XDG_CACHE_HOME/meteor-lite/evaluate``, else
    ``~/.cache/meteor-lite/evaluate``) and rewritten when its text differs; ``evaluate.load`` reads it from there
    with no network.
    """
    import os
    from pathlib import Path

    base = Path(directory) if directory is not None else Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "meteor-lite" / "evaluate"
    folder = base / "meteor_lite"
    script = folder / "meteor_lite.py"
    if not script.is_file() or script.read_text(encoding="utf-8") != EVALUATE_SCRIPT:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".meteor_lite.{os.getpid()}.tmp"
        tmp.write_text(EVALUATE_SCRIPT, encoding="utf-8")
        os.replace(tmp, script)
    return str(folder)
