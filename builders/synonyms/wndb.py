"""Synonym sets from Princeton WordNet database files (``data.*`` and ``*.exc``).

The WordNet database format (``wndb(5WN)``, e.g. Debian's ``wordnet-base``
package in ``/usr/share/wordnet``):

``data.noun``, ``data.verb``, ``data.adj``, ``data.adv``
    after a licence header (lines starting with two spaces), one synset per
    line: ``synset_offset lex_filenum ss_type w_cnt word lex_id [word lex_id ...]
    p_cnt [pointers ...] [frames ...] | gloss``; ``w_cnt`` is two hexadecimal
    digits, ``ss_type`` one of ``n v a s r``, words use ``_`` for spaces, and
    adjectives may carry a syntactic marker ``(a)``, ``(p)`` or ``(ip)``.
``noun.exc``, ``verb.exc``, ``adj.exc``, ``adv.exc``
    one line per irregular form: ``inflected_form base_form [base_form ...]``.

How Meteor 1.5's ``synonym/english.synsets`` relates to these files (measured
by ``meteor-build compare-synonyms``, see ``docs/building-resources.md``):
its words are the lemmas of all four ``data.*`` files, lower-cased, adjective
markers removed, underscores kept; its ids are the bare 8-digit synset offsets
(leading zeros kept in the file; stored as integers here), *without* the part of
speech, so synsets of different parts of speech that happen to sit at the same
offset share an id.  ``english.exceptions`` holds exactly the (form, base) pairs
of the four ``*.exc`` files.  The default :data:`ID_SCHEMES` entry ``offset``
reproduces this; ``pos-offset`` keeps parts of speech apart.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

from meteor_lite.text.normalize import java_lower

from ..errors import MalformedSourceError, SourceError
from ..sources import Source, file_source, iter_text_lines, progress

__all__ = [
    "DEFAULT_WNDB_DIR",
    "WORDNET_LICENCE",
    "POS_NAMES",
    "ID_SCHEMES",
    "Synonyms",
    "parse_data_line",
    "iter_data_file",
    "iter_exc_file",
    "normalise_lemma",
    "find_wndb_dir",
    "read_wndb",
]

#: Where Debian's ``wordnet-base`` installs the WordNet 3.0 database.
DEFAULT_WNDB_DIR = Path("/usr/share/wordnet")

#: Licence of Princeton WordNet.
WORDNET_LICENCE = "WordNet 3.0 license (Princeton University; BSD-style)"

#: The database's parts of speech, in the order files are read.
POS_NAMES: Tuple[str, ...] = ("noun", "verb", "adj", "adv")

#: Digit of each ``ss_type`` in ``pos-offset`` ids (adjective satellites count as adjectives).
POS_DIGIT: Dict[str, int] = {"n": 1, "v": 2, "a": 3, "s": 3, "r": 4}

#: How synset ids are made: ``offset`` = the synset offset (Meteor 1.5's ids);
#: ``pos-offset`` = offset * 10 + part-of-speech digit (n1 v2 a/s3 r4), unique per synset.
ID_SCHEMES: Tuple[str, ...] = ("offset", "pos-offset")

_ADJ_MARKER = re.compile(r"\((?:a|p|ip)\)$")
_HEX2 = re.compile(r"[0-9a-fA-F]{2}")


@dataclass
class Synonyms:
    """Synonym sets and morphological exceptions, ready for a bundle.

    ``synsets``: sorted unique ``(word, synset id)`` pairs; ``exceptions``:
    sorted unique ``(inflected form, base form)`` pairs.
    """

    synsets: List[Tuple[str, int]]
    exceptions: List[Tuple[str, str]] = field(default_factory=list)
    sources: List[Source] = field(default_factory=list)
    params: Dict[str, object] = field(default_factory=dict)

    def words(self) -> Set[str]:
        """All words that have a synset."""
        return {w for w, _ in self.synsets}


def normalise_lemma(word: str) -> str:
    """A database lemma as Meteor's synonym files hold it: adjective marker removed, lower-cased."""
    return java_lower(_ADJ_MARKER.sub("", word))


def parse_data_line(line: str, source: str = "<data>", lineno: int = 0) -> Tuple[int, str, List[str]]:
    """Parse one synset line of a ``data.*`` file: ``(offset, ss_type, raw words)``.

    Raises :class:`MalformedSourceError` naming ``source`` and ``lineno``.
    """
    f = line.split(" ")
    if len(f) < 6:
        raise MalformedSourceError(source, lineno, "synset line has too few fields")
    off, lexfile, ss_type, wcnt = f[0], f[1], f[2], f[3]
    if not (len(off) == 8 and off.isascii() and off.isdigit()):
        raise MalformedSourceError(source, lineno, f"synset offset {off!r} is not 8 digits")
    if not (lexfile.isascii() and lexfile.isdigit()):
        raise MalformedSourceError(source, lineno, f"lexicographer file number {lexfile!r} is not a number")
    if ss_type not in POS_DIGIT:
        raise MalformedSourceError(source, lineno, f"synset type {ss_type!r} is not one of n v a s r")
    if not _HEX2.fullmatch(wcnt):
        raise MalformedSourceError(source, lineno, f"word count {wcnt!r} is not two hexadecimal digits")
    n = int(wcnt, 16)
    if n == 0:
        raise MalformedSourceError(source, lineno, "synset has no words")
    if len(f) < 4 + 2 * n + 1:
        raise MalformedSourceError(source, lineno, f"synset line ends before its {n} words")
    words = f[4 : 4 + 2 * n : 2]
    for w in words:
        if not w or w == "|":
            raise MalformedSourceError(source, lineno, f"synset line ends before its {n} words")
    return int(off), ss_type, words


def iter_data_file(path: "os.PathLike[str] | str", *, show_progress: bool = False) -> Iterator[Tuple[int, str, List[str]]]:
    """``(offset, ss_type, raw words)`` of each synset of a ``data.*`` file (licence header skipped)."""
    src = str(path)
    bar = f"reading {Path(path).name}" if show_progress else None
    for lineno, line in iter_text_lines(path, bar_desc=bar, show_progress=show_progress):
        if line.startswith("  ") or not line.strip():
            continue
        yield parse_data_line(line, src, lineno)


def iter_exc_file(path: "os.PathLike[str] | str") -> Iterator[Tuple[str, str]]:
    """``(inflected form, base form)`` pairs of a ``*.exc`` file, in file order."""
    src = str(path)
    for lineno, line in iter_text_lines(path):
        toks = line.split()
        if not toks:
            continue
        if len(toks) < 2:
            raise MalformedSourceError(src, lineno, f"exception line {line.strip()!r} has no base form")
        for base in toks[1:]:
            yield toks[0], base


def find_wndb_dir(path: "os.PathLike[str] | str | None" = None) -> Path:
    """The WordNet database directory (default :data:`DEFAULT_WNDB_DIR`), checked for its files.

    Raises :class:`SourceError` naming the missing file.
    """
    d = Path(path) if path is not None else DEFAULT_WNDB_DIR
    if not d.is_dir():
        hint = " (install it with: apt-get install wordnet-base)" if path is None else ""
        raise SourceError(f"{d}: no WordNet database directory{hint}")
    for pos in POS_NAMES:
        if not (d / f"data.{pos}").is_file():
            raise SourceError(f"{d / f'data.{pos}'}: file not found (a WordNet database needs data.noun, data.verb, data.adj, data.adv)")
    return d


def _debian_version(package: str) -> Optional[str]:
    """Installed version of a Debian package, or None when dpkg does not know it."""
    exe = shutil.which("dpkg-query")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "-W", "-f=${Version}", package], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def read_wndb(
    path: "os.PathLike[str] | str | None" = None,
    *,
    id_scheme: str = "offset",
    exceptions: bool = True,
    location_prefix: Optional[str] = None,
    show_progress: bool = True,
) -> Synonyms:
    """Read a WordNet database directory into :class:`Synonyms`.

    Words are lower-cased (as the scorer lower-cases text), adjective markers
    removed, ``_`` kept for multiword lemmas.  ``id_scheme`` is one of
    :data:`ID_SCHEMES`.  With ``exceptions`` the ``*.exc`` files present are
    read as ``(form, base)`` pairs.  ``location_prefix`` replaces the directory
    in the recorded source locations (default: the directory, plus the Debian
    package version when dpkg knows ``wordnet-base``).
    """
    if id_scheme not in ID_SCHEMES:
        raise SourceError(f"unknown synset id scheme {id_scheme!r} (one of {', '.join(ID_SCHEMES)})")
    d = find_wndb_dir(path)
    deb = _debian_version("wordnet-base") if d.resolve() == DEFAULT_WNDB_DIR else None
    origin = f"Debian package wordnet-base {deb}" if deb else "WordNet database"
    prefix = location_prefix if location_prefix is not None else (f"{origin}: {d}" if deb else str(d))

    pairs: Set[Tuple[str, int]] = set()
    offsets_by_pos: Dict[int, Set[str]] = {}
    n_synsets: Counter = Counter()
    sources: List[Source] = []
    files = [d / f"data.{pos}" for pos in POS_NAMES]
    with progress(show_progress, total=len(files), unit="file", desc="WordNet data files") as bar:
        for pos, f in zip(POS_NAMES, files):
            for off, ss_type, words in iter_data_file(f):
                sid = off if id_scheme == "offset" else off * 10 + POS_DIGIT[ss_type]
                offsets_by_pos.setdefault(off, set()).add(pos)
                n_synsets[pos] += 1
                for w in words:
                    lemma = normalise_lemma(w)
                    if lemma:
                        pairs.add((lemma, sid))
            sources.append(
                file_source(
                    f,
                    kind="wordnet",
                    name=f"wordnet-{f.name}",
                    description=f"{origin} (Princeton WordNet 3.0 database format): synsets, {f.name}",
                    licence=WORDNET_LICENCE,
                    location=f"{prefix}/{f.name}",
                )
            )
            bar.update(1)

    exc_pairs: Set[Tuple[str, str]] = set()
    exc_files: List[str] = []
    if exceptions:
        for pos in POS_NAMES:
            f = d / f"{pos}.exc"
            if not f.is_file():
                continue
            for form, base in iter_exc_file(f):
                exc_pairs.add((java_lower(form), java_lower(base)))
            exc_files.append(f.name)
            sources.append(
                file_source(
                    f,
                    kind="wordnet",
                    name=f"wordnet-{f.name}",
                    description=f"{origin}: morphological exceptions (inflected form, base form), {f.name}",
                    licence=WORDNET_LICENCE,
                    location=f"{prefix}/{f.name}",
                )
            )
    shared = sum(1 for v in offsets_by_pos.values() if len(v) > 1)
    params: Dict[str, object] = {
        "source": "wordnet-database",
        "id_scheme": id_scheme,
        "synsets": dict(n_synsets),
        "offsets_shared_across_pos": shared,
        "pairs": len(pairs),
        "words": len({w for w, _ in pairs}),
        "exception_files": exc_files,
        "exceptions": len(exc_pairs),
        "lemma_normalisation": "adjective markers (a)/(p)/(ip) removed, lower-cased, '_' kept",
    }
    return Synonyms(synsets=sorted(pairs), exceptions=sorted(exc_pairs), sources=sources, params=params)


def pairs_by_word(pairs: Sequence[Tuple[str, int]]) -> Dict[str, Set[int]]:
    """Group ``(word, id)`` pairs into word -> ids."""
    out: Dict[str, Set[int]] = {}
    for w, s in pairs:
        out.setdefault(w, set()).add(s)
    return out
