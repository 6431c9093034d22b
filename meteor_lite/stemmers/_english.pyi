"""Type stub of the optional compiled English stemmer (meteor_lite/stemmers/_english.c; see compiled.py)."""

from typing import List, Optional, Sequence

SOURCE_SHA256: str
MAX_BYTES: int

def stem(word: str, /) -> Optional[str]: ...
def stem_words(words: Sequence[str], /) -> List[Optional[str]]: ...
