"""The stemmers the scorer runs: Meteor 1.5's own Snowball algorithms, faithful to the jar for every word.

:func:`meteor15_stemmer` gives the stem function of one of the 15 languages Meteor 1.5 stems
(:data:`METEOR15_ALGORITHMS`): the Snowball algorithms of 2007 that the jar carries
(:mod:`.snowball2007`), or ``snowballstemmer`` 2.2.0's English (the jar's English stems).
"""

from .meteor15 import METEOR15_ALGORITHMS, Meteor15Stemmer, is_jar_number, meteor15_stemmer

__all__ = ["METEOR15_ALGORITHMS", "Meteor15Stemmer", "meteor15_stemmer", "is_jar_number"]
