"""Worker of :class:`.stems.BackgroundStems`: ``python -m meteor_lite_builders.official.stem_worker ALGORITHM FILE``.

Reads a JSON list of words from FILE, prints the JSON list of their Snowball stems (the
pure-Python ``snowballstemmer`` algorithm ALGORITHM, as :func:`..lexical.stems.make_stemmer`).
"""

from __future__ import annotations

import json
import sys
from typing import List


def main(argv: List[str]) -> int:
    """Stem the words of ``argv[1]`` with algorithm ``argv[0]``; write the stems to stdout as JSON."""
    from ..lexical.stems import make_stemmer

    algorithm, path = argv
    with open(path, encoding="utf-8") as f:
        words = json.load(f)
    stems = make_stemmer(algorithm)(words)
    sys.stdout.write(json.dumps(stems, ensure_ascii=False))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":  # pragma: no cover - run as a subprocess by the tests
    sys.exit(main(sys.argv[1:]))
