"""Argument types of the command line: a bad value is a usage error (exit 2), never a later exception."""

from __future__ import annotations

import argparse

__all__ = ["non_negative_int", "positive_number"]


def non_negative_int(text: str) -> int:
    """An integer >= 0 (argparse ``type=``); :class:`argparse.ArgumentTypeError` otherwise."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {value}")
    return value


def positive_number(text: str) -> float:
    """A finite number > 0 (argparse ``type=``: seconds, megabytes); ``nan``, ``inf``, 0 and negative numbers are
    :class:`argparse.ArgumentTypeError` (a usage error), never a later ``ValueError`` or an endless wait."""
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return value
