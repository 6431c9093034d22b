"""Type stub of the optional compiled alignment search (meteor_lite/align/_searchc.c)."""

from typing import List, Optional

from .matches import Match

MAX_WORDS: int

def search(n1: int, n2: int, cands: List[List[Match]], beam: int, /) -> Optional[List[Match]]: ...
