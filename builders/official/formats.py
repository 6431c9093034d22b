"""The file formats of the official Meteor 1.5 release, as the builders use them.

They have one strict parser (errors name the file and line), the scorer's
:mod:`meteor_lite.resources.jarformat`, which ``meteor-jar -s/-d/-a`` also reads with; this module
hands its functions on to the importer, the recipes and the pivot.
"""

from __future__ import annotations

from meteor_lite.resources.jarformat import (
    PARAPHRASE_BATCH,
    iter_paraphrase_batches,
    iter_paraphrases,
    parse_exceptions,
    parse_function_words,
    parse_synsets,
)

__all__ = [
    "PARAPHRASE_BATCH",
    "parse_function_words",
    "parse_synsets",
    "parse_exceptions",
    "iter_paraphrase_batches",
    "iter_paraphrases",
]
