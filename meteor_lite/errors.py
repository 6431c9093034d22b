"""The exceptions and the warning category of meteor-lite (the root of every error it raises).

Catch :class:`MeteorLiteError` to handle any problem the library reports;
the subclasses say what kind it is.  Those that are bad values also derive
from :class:`ValueError`, as they did before the hierarchy existed.
"""

from __future__ import annotations


class MeteorLiteError(Exception):
    """Root of the errors meteor-lite raises on purpose (bad input, configuration or bundle)."""


class InputError(MeteorLiteError, ValueError):
    """An input file is missing, unreadable, not UTF-8, or of the wrong length."""


class ConfigError(MeteorLiteError, ValueError):
    """An unknown language, task or module, or inconsistent overrides."""


class BundleError(MeteorLiteError):
    """A bundle is missing, unreadable, corrupt or of an unsupported schema."""


class BundleNotFoundError(BundleError):
    """A bundle file does not exist (or is a directory)."""


class MissingResourcesError(BundleError, ConfigError):
    """The resources a configuration needs are on no bundle (none found, or one lacking a table).

    Raised instead of scoring with fewer modules than asked for: the message says
    how to get the resources (a pack to install, the command that builds them) or
    how to ask for a reduced module set explicitly.
    """


class WorkerError(MeteorLiteError, RuntimeError):
    """A worker process of a ``jobs`` run ended before its part was scored (killed, e.g. by the out-of-memory
    killer, or crashed): its part is lost, so the run stops instead of waiting for it forever."""


class MeteorLiteWarning(UserWarning):
    """A condition the user should know about that does not stop scoring (e.g. a module dropped)."""


__all__ = [
    "MeteorLiteError",
    "InputError",
    "ConfigError",
    "BundleError",
    "BundleNotFoundError",
    "MissingResourcesError",
    "WorkerError",
    "MeteorLiteWarning",
]
