"""Type stub of the optional compiled kernels (meteor_lite/_accel.c; see meteor_lite/accel.py)."""

from typing import Any, Dict, FrozenSet, Hashable, List, Optional, Sequence, Set, Tuple

MAX_WORDS: int

def search(n1: int, n2: int, cands: List[List[Any]], beam: int, /) -> Optional[List[Any]]: ...
def phrase_matches(
    hits: List[Tuple[int, int, Tuple[Tuple[str, ...], ...]]], positions: Dict[Hashable, List[int]], words: Tuple[str, ...], /
) -> List[Tuple[int, int, int, int]]: ...
def synonym_pairs(
    yh: List[FrozenSet[int]], yr: List[FrozenSet[int]], hk: List[int], rk: List[int], /
) -> List[List[int]]: ...
def paraphrase_tuples(
    found: Dict[str, List[str]], cache: Dict[str, Tuple[str, ...]], out: Dict[str, Tuple[Tuple[str, ...], ...]], /
) -> None: ...
def walk_level(
    active: List[Tuple[int, int, str]], paras: Dict[str, Tuple[Tuple[str, ...], ...]], prefix: Dict[str, bool],
    sentences: List[Sequence[str]], n: int, grow: bool, hits: List[List[Tuple[int, int, Tuple[Tuple[str, ...], ...]]]], /,
) -> Tuple[List[Tuple[int, int, str]], Set[str]]: ...
