"""Argument types of the command line: a bad value is a usage error (exit 2), never a later exception."""

from __future__ import annotations

import argparse

__all__ = ["non_negative_int"]


def non_negative_int(text: str) -> int:
    """An integer >= 0 (argparse ``type=``); :class:`argparse.ArgumentTypeError` otherwise."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {value}")
    return value
