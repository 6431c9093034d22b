"""meteor-lite: a pure-Python METEOR scorer that reproduces Meteor 1.5.

The public API: :class:`Meteor` (a configured scorer), its results
:class:`SegmentScore` and :class:`CorpusScore`, :class:`Stats` (sufficient
statistics), :class:`Bundle` (a resource bundle), :class:`MeteorConfig`, and
the errors (all derived from :class:`MeteorLiteError`) and
:class:`MeteorLiteWarning`.
"""

from .config import MeteorConfig
from .errors import (
    BundleError,
    BundleNotFoundError,
    ConfigError,
    InputError,
    MeteorLiteError,
    MeteorLiteWarning,
    MissingResourcesError,
    WorkerError,
)
from .meteor import Meteor
from .resources.bundle import Bundle
from .scores import CorpusScore, SegmentScore
from .stats import Stats
from .version import __version__

__all__ = [
    "__version__",
    "Bundle",
    "BundleError",
    "BundleNotFoundError",
    "ConfigError",
    "CorpusScore",
    "InputError",
    "Meteor",
    "MeteorConfig",
    "MeteorLiteError",
    "MeteorLiteWarning",
    "MissingResourcesError",
    "SegmentScore",
    "Stats",
    "WorkerError",
]
