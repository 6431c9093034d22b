"""The version of meteor-lite (kept apart so that every module can import it without a cycle)."""

__version__ = "0.1.0"
