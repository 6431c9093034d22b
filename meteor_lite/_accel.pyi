"""Type stub of the optional compiled kernels (meteor_lite/_accel.c; see meteor_lite/accel.py)."""

from typing import Any, Dict, FrozenSet, Hashable, List, Optional, Sequence, Set, Tuple, Union

MAX_WORDS: int
SOURCE_SHA256: str

def search(n1: int, n2: int, cands: List[List[Any]], beam: int, /) -> Optional[List[Any]]: ...
def make_records(
    records: Dict[str, bytes], words: List[str], hashes: List[int], stem_hashes: Optional[List[int]],
    synsets: Optional[List[FrozenSet[int]]], function: List[bool], /,
) -> None: ...
def pack_words(
    words: Sequence[str], records: Dict[str, Any], hits: Union[None, List[Tuple[int, int, str]], Tuple[Any, ...]],
    stem: bool, synonym: bool, char_based: bool = False, cache: Any = None, /,
) -> Union[List[str], Tuple[object, List[bool], List[int], float, float]]: ...
def walk_held(
    sentences: List[Sequence[str]], entries: Dict[str, str], beginnings: Set[str], max_len: int, /
) -> List[List[Tuple[int, int, str]]]: ...
def mapped_find(
    data: Any, fd: int, off: int, nslots: int, kind: int, keys: List[str], cache: Optional[Dict[int, str]] = None, /
) -> Any: ...
def mapped_walk(
    data: Any, fd: int, off: int, nslots: int, sentences: List[Sequence[str]], max_len: int,
        cache: Optional[Dict[int, str]] = None, /
) -> List[List[Tuple[int, int, str]]]: ...
def mapped_synsets(
    data: Any, fd: int, syn_off: int, syn_n: int, exc_off: int, exc_n: int, words: List[str],
    rules: Tuple[Tuple[str, str], ...], /,
) -> List[FrozenSet[int]]: ...
def align_stats(
    hyp: object, ref: object, modules: Tuple[int, ...], beam: int, /
) -> Optional[Tuple[List[float], List[float], List[float], List[float], float, float, float, List[Tuple[int, int, int, int, int]]]]: ...
def phrase_matches(hits: List[Tuple[int, int, str]], words: Tuple[str, ...], /) -> List[Tuple[int, int, int, int]]: ...
def synonym_pairs(
    yh: List[FrozenSet[int]], yr: List[FrozenSet[int]], hk: List[int], rk: List[int], /
) -> List[List[int]]: ...
def java_hashes(words: Sequence[str], /) -> Optional[List[int]]: ...
def positions_of(words: Sequence[Hashable], /) -> Dict[Hashable, List[int]]: ...
def walk_level(
    active: List[Tuple[int, int, str]], paras: Dict[str, str], prefix: Dict[str, bool],
    sentences: List[Sequence[str]], n: int, grow: bool, hits: List[List[Tuple[int, int, str]]], /,
) -> Tuple[List[Tuple[int, int, str]], Set[str]]: ...
def word_matches(
    cands: List[List[Any]], positions: Sequence[Sequence[int]], module: int, exact: bool, match_type: type, /
) -> None: ...
def prepare_western(
    line: str, apostrophes: int, keep_punct: bool, lower: bool, nonbreaking: Dict[str, bool],
    lower_table: Dict[int, str], /,
) -> Optional[List[str]]: ...
