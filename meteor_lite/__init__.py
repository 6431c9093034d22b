"""meteor-lite: a pure-Python METEOR scorer that reproduces Meteor 1.5."""

__version__ = "0.1.0"

from .bundle import Bundle, BundleError  # noqa: E402
from .meteor import CorpusScore, Meteor, SegmentScore  # noqa: E402
from .params import ConfigError, MeteorConfig  # noqa: E402
from .stats import Stats  # noqa: E402

__all__ = [
    "__version__",
    "Bundle",
    "BundleError",
    "ConfigError",
    "CorpusScore",
    "Meteor",
    "MeteorConfig",
    "SegmentScore",
    "Stats",
]
