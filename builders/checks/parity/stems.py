"""``meteor-build check stems``: Meteor 1.5's stemmers against the jar's ``Stemmer`` program, on a million words each.

For each language of :data:`~.stem_words.STEM_LANGUAGES`, the words of
:func:`~.stem_words.stem_check_words` go through ``java -cp meteor-1.5.jar Stemmer LANG`` (one word a line)
and through meteor-lite, two ways:

- the **program** (``meteor-jar-stemmer``): a number-like word (:func:`meteor_lite.stemmers.is_jar_number`)
  unchanged, every other word stemmed; compared with every line the jar printed;
- the **scorer** (``Meteor(lang).resources.stems`` with the official bundle): Meteor 1.5's stemmer on every
  word; compared on the words that are not number-like (the jar's scorer stems those too, its ``Stemmer``
  program does not, so the program cannot tell their stems).

The jar's output is recorded as a fixture (``tests/fixtures/stems/<lang>.txt.xz``, :func:`encode_outputs`)
so that the test suite checks every word without Java: the words are made again (same wordfreq, same
shared data, same seeded generator) and the fixture's header holds their SHA-256.
"""

from __future__ import annotations

import json
import logging
import lzma
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from ..paths import FIXTURE_DIR
from .stem_words import STEM_LANGUAGES, stem_check_words, words_digest

__all__ = [
    "STEM_FIXTURE_DIR",
    "StemCheck",
    "encode_outputs",
    "decode_outputs",
    "read_fixture",
    "compare_outputs",
    "check_language_against_fixture",
    "run_stem_check",
]

log = logging.getLogger("meteor_lite_builders.checks")

#: Where the jar's recorded stems live.
STEM_FIXTURE_DIR = FIXTURE_DIR / "stems"
_FORMAT = "meteor-lite stem fixture 1"


@dataclass
class StemCheck:
    """The result of one language: counts and the first differences."""

    lang: str
    words: int = 0
    numbers: int = 0
    trimmed: int = 0
    program_differences: int = 0
    scorer_differences: int = 0
    examples: List[Tuple[str, str, str]] = field(default_factory=list)  # (word, jar, ours)

    @property
    def ok(self) -> bool:
        return self.words > 0 and self.program_differences == 0 and self.scorer_differences == 0


def encode_outputs(words: Sequence[str], outputs: Sequence[str]) -> List[str]:
    """One line per word telling its output from the word: ``""`` same, ``k`` the word less its last
    ``k`` characters, ``k:tail`` the word less ``k`` characters plus ``tail``."""
    lines = []
    for w, o in zip(words, outputs):
        if o == w:
            lines.append("")
            continue
        keep = 0
        top = min(len(w), len(o))
        while keep < top and w[keep] == o[keep]:
            keep += 1
        cut = len(w) - keep
        tail = o[keep:]
        lines.append(f"{cut}:{tail}" if tail else str(cut))
    return lines


def decode_outputs(words: Sequence[str], lines: Sequence[str]) -> List[str]:
    """The inverse of :func:`encode_outputs`."""
    out = []
    for w, line in zip(words, lines):
        if not line:
            out.append(w)
            continue
        cut, sep, tail = line.partition(":")
        out.append(w[: len(w) - int(cut)] + tail)
    return out


def write_fixture(path: Path, header: Dict[str, object], words: Sequence[str], outputs: Sequence[str]) -> None:
    """Write the jar's ``outputs`` for ``words`` as an xz-compressed fixture (atomically)."""
    from meteor_lite.atomicfile import atomic_path

    body = "\n".join(encode_outputs(words, outputs))
    if any("\n" in o or "\r" in o for o in outputs):
        raise ValueError("a stem holds a line break: the word list is not one token a line")
    text = json.dumps({"format": _FORMAT, **header}, ensure_ascii=False, sort_keys=True) + "\n" + body + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        Path(tmp).write_bytes(lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))


def read_fixture(path: Path) -> Tuple[Dict[str, object], List[str]]:
    """The header and the encoded lines of a fixture."""
    text = lzma.decompress(path.read_bytes()).decode("utf-8")
    head, _, body = text.partition("\n")
    header = json.loads(head)
    if header.get("format") != _FORMAT:
        raise ValueError(f"{path}: not a {_FORMAT!r} file")
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return header, lines


def compare_outputs(lang: str, words: Sequence[str], jar_outputs: Sequence[str], show: int = 10) -> StemCheck:
    """Compare meteor-lite's scorer and program stems with the jar's ``Stemmer`` outputs for ``words``.

    The scorer stems every word that is not number-like; the program's output is the word itself for a
    number-like word and the scorer's stem otherwise (``meteor-jar-stemmer`` runs the same stemmer
    object; the test suite also runs the program itself on part of the words), each trimmed as Java's
    ``String.trim`` trims the program's line.  A stem that ends in a character up to U+0020 (a control
    character inside a generated word) is compared trimmed: the program cannot print it whole
    (counted in ``trimmed``).
    """
    from meteor_lite.jarcompat import java_trim
    from meteor_lite.stemmers import is_jar_number

    if len(words) != len(jar_outputs):
        raise ValueError(f"{lang}: {len(jar_outputs)} outputs for {len(words)} words")
    result = StemCheck(lang, words=len(words))
    stemmed: List[Tuple[str, str]] = []
    for w, jar in zip(words, jar_outputs):
        if is_jar_number(w):
            result.numbers += 1
            if java_trim(w) != jar:
                result.program_differences += 1
                if len(result.examples) < show:
                    result.examples.append((w, jar, f"{w} (program)"))
        else:
            stemmed.append((w, jar))
    for (w, jar), ours in zip(stemmed, scorer_stems(lang, [w for w, _ in stemmed])):
        shown = java_trim(ours)
        if shown != ours:
            result.trimmed += 1
        if shown != jar:
            result.scorer_differences += 1
            if len(result.examples) < show:
                result.examples.append((w, jar, ours))
    return result


def scorer_stems(lang: str, words: Sequence[str]) -> List[str]:
    """The scorer's stems of ``words`` for ``lang``, as ``Meteor(lang, modules=['exact', 'stem'])`` sets it up."""
    from meteor_lite import Meteor

    resources = Meteor(lang, modules=["exact", "stem"], quiet=True).resources
    out: List[str] = []
    for start in range(0, len(words), 4096):
        out.extend(resources.stems(words[start:start + 4096]))
    return out


def check_language_against_fixture(
    lang: str, data: Path, fixture_dir: Path = STEM_FIXTURE_DIR, part: Optional[Tuple[int, int]] = None,
    words: Optional[Sequence[str]] = None,
) -> StemCheck:
    """Make ``lang``'s words again and compare meteor-lite with the jar's recorded stems (no Java).

    The whole word list is always made (or ``words``, made by the caller with :func:`stem_check_words`) and
    checked against the fixture's SHA-256; ``part=(k, n)`` compares only the words whose position ``i`` has
    ``i % n == k`` (one n-th of them: the ``n`` parts cover every word).
    """
    header, lines = read_fixture(fixture_dir / f"{lang}.txt.xz")
    words = stem_check_words(lang, data) if words is None else list(words)
    digest = words_digest(words)
    if digest != header.get("words_sha256") or len(words) != len(lines):
        raise ValueError(
            f"{lang}: the word list made here ({len(words)} words, sha256 {digest[:12]}) is not the one the fixture "
            f"was recorded on ({header.get('words')} words, sha256 {str(header.get('words_sha256'))[:12]}): "
            "another wordfreq or shared data; re-record with `meteor-build check stems --write-fixtures` (needs Java)"
        )
    if part is not None:
        k, n = part
        if not 0 <= k < n:
            raise ValueError(f"part {k} of {n}: choose 0 <= k < n")
        words, lines = words[k::n], lines[k::n]
    return compare_outputs(lang, words, decode_outputs(words, lines))


def _jar_outputs(lang: str, words: Sequence[str]) -> List[str]:
    from ... import jar as _jar

    proc = _jar.run_jar_class("Stemmer", [lang], stdin="\n".join(words) + "\n", heap=None)
    out = proc.stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    if proc.returncode != 0 or len(out) != len(words):
        raise RuntimeError(f"jar Stemmer {lang}: exit {proc.returncode}, {len(out)} lines for {len(words)} words: "
                           f"{proc.stderr.strip()[:300]}")
    return out


def _one_language(args: Tuple[str, Path, bool, Optional[Path]]) -> StemCheck:
    lang, data, use_jar, write_dir = args
    if not use_jar:
        return check_language_against_fixture(lang, data)
    words = stem_check_words(lang, data)
    outputs = _jar_outputs(lang, words)
    if write_dir is not None:
        from ...official.release import package_version

        header = {"lang": lang, "algorithm": STEM_LANGUAGES[lang][0], "words": len(words),
                  "words_sha256": words_digest(words), "wordfreq": package_version("wordfreq"),
                  "oracle": "java -cp meteor-1.5.jar Stemmer LANG (Java 17, UTF-8), one word a line"}
        write_fixture(write_dir / f"{lang}.txt.xz", header, words, outputs)
    return compare_outputs(lang, words, outputs)


def run_stem_check(data: Path, langs: Sequence[str], *, use_jar: bool, write: bool = False, jobs: int = 2) -> int:
    """Check ``langs`` (against the jar, or its fixtures); print one table; exit status 0 when nothing differs."""
    unknown = [x for x in langs if x not in STEM_LANGUAGES]
    if unknown:
        raise ValueError(f"no stemmed language {', '.join(unknown)} (choose from {', '.join(STEM_LANGUAGES)})")
    write_dir = STEM_FIXTURE_DIR if write else None
    tasks = [(lang, data, use_jar, write_dir) for lang in langs]
    if jobs > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(_one_language, tasks))
    else:
        results = [_one_language(t) for t in tasks]
    oracle = "the jar" if use_jar else "the jar's recorded stems (tests/fixtures/stems)"
    print(f"Stems against {oracle}: words compared, number-like words (the program leaves them), stems compared")
    print("trimmed (they end in a control character the program's trim drops), differences")
    print("| lang | words | number-like | trimmed | program differences | scorer differences |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        print(f"| {r.lang} | {r.words:,} | {r.numbers:,} | {r.trimmed:,} | {r.program_differences} | {r.scorer_differences} |")
    total = sum(r.words for r in results)
    print(f"| all | {total:,} | {sum(r.numbers for r in results):,} | {sum(r.trimmed for r in results):,} | "
          f"{sum(r.program_differences for r in results)} | {sum(r.scorer_differences for r in results)} |")
    for r in results:
        for w, jar, ours in r.examples:
            print(f"{r.lang}: {w!r}: jar {jar!r}, meteor-lite {ours!r}")
    return 0 if all(r.ok for r in results) else 1
