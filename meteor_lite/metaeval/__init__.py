"""Meta-evaluation: how well metric scores agree with human judgments (``meteor-lite correlate``).

Pure Python (no numpy/scipy at run time).  :mod:`.stats` holds the statistics (Pearson, Spearman,
Kendall τ-b / τ-c, WMT23's tie-aware τ and pairwise accuracy with tie calibration, system-level
pairwise accuracy), :mod:`.data` reads judgments and metric scores, :mod:`.correlate` computes
every statistic at every level with bootstrap intervals and a paired permutation test.
Definitions follow google-research/mt-metrics-eval; see docs/meta-evaluation.md.
"""

from .correlate import GROUPINGS, SEGMENT_STATS, SYSTEM_STATS, Aligned, Result, align, correlate, evaluate
from .data import Judgments, MetricScores, read_judgments, read_metric, split_inputs

__all__ = [
    "GROUPINGS",
    "SEGMENT_STATS",
    "SYSTEM_STATS",
    "Aligned",
    "Result",
    "align",
    "correlate",
    "evaluate",
    "Judgments",
    "MetricScores",
    "read_judgments",
    "read_metric",
    "split_inputs",
]
