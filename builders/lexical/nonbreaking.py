"""The normaliser's non-breaking prefixes: one parser of the Moses/Meteor ``*.prefixes`` format."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, Iterable, List

from ..sources import Source, file_source, iter_text_lines

__all__ = ["NonbreakingPrefixes", "parse_prefixes", "read_nonbreaking_file"]


@dataclass
class NonbreakingPrefixes:
    """The normaliser's non-breaking prefixes: prefix -> numeric_only."""

    prefixes: Dict[str, bool]
    sources: List[Source] = field(default_factory=list)
    params: Dict[str, object] = field(default_factory=dict)


def parse_prefixes(lines: Iterable[str]) -> Dict[str, bool]:
    """Prefix -> numeric_only, from the lines of a prefixes file (as Meteor reads it).

    One prefix per line, first token; ``#`` starts a comment; a second token
    ``#NUMERIC_ONLY#`` marks a prefix that does not break only before a number.
    """
    out: Dict[str, bool] = {}
    for line in lines:
        toks = line.split()
        if not toks or toks[0].startswith("#"):
            continue
        out[toks[0]] = len(toks) > 1 and toks[1] == "#NUMERIC_ONLY#"
    return out


def read_nonbreaking_file(path: "os.PathLike[str] | str", licence: str = "see the file") -> NonbreakingPrefixes:
    """Non-breaking prefixes from a Moses/Meteor ``*.prefixes`` file (format: :func:`parse_prefixes`)."""
    out = parse_prefixes(line for _lineno, line in iter_text_lines(path))
    src = file_source(path, kind="nonbreaking-prefixes", description="non-breaking prefixes (Moses format)", licence=licence)
    return NonbreakingPrefixes(prefixes=out, sources=[src], params={"source": "file", "prefixes": len(out)})
