"""Arabic-script text: the orthographic normalisation Arabic MT evaluation uses, as a tokeniser (``arabic``).

``--lang ar`` scores Arabic script with it (Meteor 1.5's own Arabic, ``-l ar-bw-red``, is
Buckwalter-transliterated text in ASCII and keeps Meteor's white-space split).  Applied after
Meteor's normaliser and lower-casing, to each white-space token:

* diacritics removed: tanwin, harakat, shadda, sukun (U+064B-U+0652), superscript alef (U+0670),
  Quranic annotation marks (U+06D6-U+06ED);
* tatweel (kashida, U+0640) removed;
* alef variants أ إ آ ٱ (U+0623, U+0625, U+0622, U+0671) -> ا (U+0627);
* alef maqsura ى (U+0649) and Persian yeh ی (U+06CC) -> ي (U+064A);
* taa marbuta ة (U+0629) -> ه (U+0647);
* Arabic punctuation split off as tokens of their own: ، ؍ ؛ ؞ ؟ ٪ ٭ ۔
  (U+060C, U+060D, U+061B, U+061E, U+061F, U+066A, U+066D, U+06D4).

Hamza on waw/yaa (ؤ ئ) and the hamza letter ء are kept (they distinguish words).  A token that
is left empty (a lone diacritic or tatweel) disappears.  Standard library only.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Union

__all__ = ["ARABIC_PUNCTUATION", "normalize_arabic", "arabic_tokenize"]

#: Arabic punctuation split off as tokens.
ARABIC_PUNCTUATION = "\u060c\u060d\u061b\u061e\u061f\u066a\u066d\u06d4"

_DROP = [*range(0x064B, 0x0653), 0x0670, 0x0640, *range(0x06D6, 0x06EE)]
_MAP: Dict[int, Optional[Union[str, int]]] = {cp: None for cp in _DROP}
_MAP.update({0x0623: "\u0627", 0x0625: "\u0627", 0x0622: "\u0627", 0x0671: "\u0627",
             0x0649: "\u064a", 0x06CC: "\u064a", 0x0629: "\u0647"})
_R_PUNCT = re.compile(f"([{ARABIC_PUNCTUATION}])")
_R_SPLIT = re.compile("[ \t\n\r\f]+")


def normalize_arabic(text: str) -> str:
    """The letter normalisation alone (diacritics, tatweel, alef / yaa / taa marbuta variants)."""
    return text.translate(_MAP)


def arabic_tokenize(line: str) -> List[str]:
    """Meteor's white-space split, then :func:`normalize_arabic` and Arabic punctuation split off.

    >>> arabic_tokenize("هَلْ ذهبتَ إلى المدرسةِ؟ نعم؛ ذهبتُ")
    ['هل', 'ذهبت', 'الي', 'المدرسه', '؟', 'نعم', '؛', 'ذهبت']
    """
    out: List[str] = []
    for chunk in _R_SPLIT.split(line):
        if not chunk:
            continue
        if chunk.isascii():
            out.append(chunk)
            continue
        for part in _R_PUNCT.split(chunk.translate(_MAP)):
            if part:
                out.append(part)
    return out
