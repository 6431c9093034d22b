"""Scoring Spark DataFrames with meteor-lite (the optional ``spark`` extra: ``pip install 'meteor-lite[spark]'``).

* :func:`score_dataframe` adds each segment's METEOR score and its sufficient statistics as columns;
* :func:`corpus_score` returns the :class:`~meteor_lite.CorpusScore` of a DataFrame: the same object,
  equal bit for bit (score, statistics, every segment, signature), as ``meteor-lite score`` and
  :meth:`meteor_lite.Meteor.score_corpus` give on the same segments.

Each executor's Python worker builds one :class:`~meteor_lite.Meteor` per configuration and keeps it for
the next partitions (:mod:`meteor_lite.spark.executor`).  It opens the bundle the driver resolved, from a
path every executor sees (shared storage), or from the copy Spark ships to each executor
(``ship_bundle=True``: :meth:`SparkContext.addFile` / :class:`pyspark.SparkFiles`), verifies it as the
command line does, and refuses to score when its signature differs from the driver's.

pyspark is imported only inside these functions: ``import meteor_lite.spark`` works without it, and the
scorer's core never imports it (docs/spark.md).
"""

from .scoring import STATS_FIELDS, corpus_score, output_columns, score_dataframe

__all__ = ["STATS_FIELDS", "corpus_score", "output_columns", "score_dataframe"]
