"""Synonym sets from MyThes thesauri (LibreOffice's ``th_<locale>_v2.dat``, Debian's ``mythes-*`` packages).

The MyThes data file (the ``.idx`` beside it is only an index and is not read)::

    UTF-8                                   first line: the encoding (UTF-8, ISO8859-1, ISO8859-2, ...)
    entry|2                                 an entry and the number of meaning lines that follow
    (pos)|synonym|synonym (note)|...        a meaning line: a part of speech (or "-" or nothing), then
    -|synonym|multi word synonym|...        its synonyms; notes in parentheses ("(ugs.)", "(generic term)")

What meteor-lite makes of it (``docs/languages.md``, "Synonyms from thesauri"):

* **A synonym set is one meaning line**: the entry plus the synonyms of that line.  Identical sets
  (the same line listed under each of its words, as OpenThesaurus does) are one set; sets are
  numbered 1, 2, 3, ... in sorted order of their members, so the ids do not depend on file order.
* **Notes** in parentheses are removed.  A note that names another relation than synonymy
  (:data:`RELATION_NOTES`: "generic term", "antonym", "Oberbegriff", "pojęcie nadrzędne", ...)
  removes the member (on the part-of-speech field: the whole line): hypernyms and antonyms are not
  synonyms.  Members with a placeholder (``...``, ``…``) are dropped.
* **Words** are tokenised and lower-cased exactly as the scorer prepares a segment
  (:func:`meteor_lite.text.normalize.prepare`, Meteor's ``-norm``); a member that becomes one token
  is a synonym-set word; a member of several tokens is a *phrase*: it never matches in the synonym
  stage (which compares single words), and is kept for the paraphrase table
  (:mod:`..paraphrases.thesaurus`).  Members without a letter or digit are dropped.
* **Very large meaning lines** (more than ``max_set_size`` words, default
  :data:`DEFAULT_MAX_SET_SIZE`) are dropped: such lines are topic lists rather than synonyms (the
  English thesaurus has one of 392 "generic terms").  A set needs at least two words.

How an inflected word of a segment reaches an entry (thesauri list base forms) is
:mod:`.inflections`: morphological exceptions (form, base) from the bundle's stem or lemma map.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, Iterator, List, Mapping, Optional, Set, Tuple

from meteor_lite.text.normalize import java_lower, prepare

from ..errors import MalformedSourceError, SourceError
from ..sources import Source, file_source, open_binary, progress
from .wndb import Synonyms

__all__ = [
    "DEFAULT_MAX_SET_SIZE",
    "MAX_LINE_MEMBERS",
    "RELATION_NOTES",
    "MeaningLine",
    "Thesaurus",
    "iter_mythes",
    "read_mythes",
    "split_notes",
]

#: Meaning lines with more words than this are dropped (see the module docstring).
DEFAULT_MAX_SET_SIZE = 40

#: A meaning line of more members than this is skipped as it is read, before its members are tokenised:
#: every use drops a line over its ``max_set_size`` anyway, and a 12 MB line of 150,000 members would take
#: minutes.  ``--max-set-size`` above this has the effect of this value.
MAX_LINE_MEMBERS = 10_000

#: Longest line read (bytes): far above any real meaning line (the largest of Debian's thesauri: under 100 kB).
MAX_LINE_BYTES = 64_000_000

#: Notes (lower-cased, without parentheses) that mark a relation other than synonymy, in the
#: thesauri Debian ships: hypernyms, hyponyms, antonyms, "similar"/"related" terms, "compare".
RELATION_NOTES: FrozenSet[str] = frozenset({
    # English (WordNet-derived), Slovak
    "generic term", "similar term", "related term", "antonym",
    # German (OpenThesaurus)
    "oberbegriff", "unterbegriff", "gegenbegriff", "gegenteil",
    # Russian
    "сходный термин", "антоним", "связанный термин",
    # Polish
    "pojęcie nadrzędne", "pojęcie podrzędne", "antonim",
    # Icelandic
    "undirheiti", "yfirheiti", "andheiti",
    # Danish
    "underbegreb", "overbegreb", "modsætning",
    # Slovene
    "podpomenka", "nadpomenka", "protipomenka",
    # Catalan, Spanish, French, Italian, Portuguese
    "antònim", "antónimo", "antonyme", "contrario", "antônimo",
    # Ukrainian: "compare"
    "пор.",
})

_NOTE = re.compile(r"\(([^()]*)\)")
_PLACEHOLDER = re.compile(r"\.\.\.|…")
_WORDLIKE = re.compile(r"\w")

#: MyThes encoding names -> Python codecs (others are looked up as written).
_ENCODINGS = {"iso8859-1": "latin-1", "iso8859-2": "iso8859-2", "iso8859-15": "iso8859-15", "koi8-r": "koi8-r"}


@dataclass(frozen=True)
class MeaningLine:
    """One meaning line of an entry: its line number, part of speech, and its members as token tuples."""

    entry: str
    line: int
    pos: str
    members: Tuple[Tuple[str, ...], ...]  # the entry first, then the synonyms kept, each tokenised


@dataclass
class Thesaurus:
    """A thesaurus read into meaning lines, with its source record and counts."""

    language: str
    meanings: List[MeaningLine]
    source: Source
    counts: Dict[str, int] = field(default_factory=dict)

    def synonyms(self, *, max_set_size: int = DEFAULT_MAX_SET_SIZE) -> Synonyms:
        """The synonym sets: one-token members of each meaning line, identical sets merged.

        Sets of fewer than 2 or more than ``max_set_size`` words are left out.
        """
        sets: Set[Tuple[str, ...]] = set()
        too_big = 0
        for m in self.meanings:
            words = sorted({t[0] for t in m.members if len(t) == 1})
            if len(words) > max_set_size:
                too_big += 1
            elif len(words) >= 2:
                sets.add(tuple(words))
        pairs = sorted({(w, i) for i, s in enumerate(sorted(sets), 1) for w in s})
        params: Dict[str, object] = {
            "source": "mythes",
            "id_scheme": "ordinal",
            "synonym_set": "one meaning line: the entry and its one-token synonyms (identical sets merged)",
            "max_set_size": max_set_size,
            "meaning_lines": len(self.meanings),
            "lines_too_large": too_big,
            "sets": len(sets),
            "pairs": len(pairs),
            "words": len({w for w, _ in pairs}),
            "reader": dict(sorted(self.counts.items())),
        }
        return Synonyms(synsets=pairs, exceptions=[], sources=[self.source], params=params)


def split_notes(member: str) -> Tuple[str, List[str]]:
    """``member`` without its parenthesised notes, and the notes (lower-cased, stripped), innermost first."""
    notes: List[str] = []
    text = member
    while True:
        found = _NOTE.findall(text)
        if not found:
            break
        notes.extend(java_lower(n).strip() for n in found)
        text = _NOTE.sub(" ", text)
    return " ".join(text.split()), notes


def _is_relation(notes: List[str]) -> bool:
    for n in notes:
        if n in RELATION_NOTES or any(p.strip() in RELATION_NOTES for p in n.split(",")):
            return True
    return False


def _codec(name: str, path: str) -> str:
    key = name.strip().lstrip("\ufeff").lower()
    key = _ENCODINGS.get(key, key)
    try:
        return codecs.lookup(key).name
    except (LookupError, ValueError):  # ValueError: a NUL in the name
        shown = repr(name.strip()[:40]) + ("..." if len(name.strip()) > 40 else "")
        raise MalformedSourceError(path, 1, f"unknown encoding {shown} on the first line (a MyThes file starts with its "
                                            "encoding)") from None


def iter_mythes(path: "os.PathLike[str] | str") -> Iterator[Tuple[int, str, List[Tuple[int, str, List[str]]]]]:
    """Yield ``(line, entry, [(line, pos field, raw synonyms), ...])`` for each entry of a MyThes file.

    The file may be plain or compressed (gzip, xz, bzip2).  Raises :class:`MalformedSourceError`
    (file and line) for an unknown encoding, an entry line without ``|count``, a count that is not a
    positive number, a meaning line missing, or bytes that are not of the declared encoding.
    """
    name = str(path)
    stream, raw = open_binary(path)
    try:
        first = stream.readline(200)
        if not first:
            raise MalformedSourceError(name, 1, "empty file (a MyThes file starts with its encoding)")
        if first.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark (the Russian thesaurus has one)
            first = first[3:]
        enc = _codec(first.decode("ascii", "replace"), name)
        lineno = 1

        def next_line() -> Optional[str]:
            nonlocal lineno
            data = stream.readline(MAX_LINE_BYTES + 1)
            if not data:
                return None
            lineno += 1
            if len(data) > MAX_LINE_BYTES:
                raise MalformedSourceError(name, lineno, f"a line longer than {MAX_LINE_BYTES:,} bytes: not a MyThes "
                                                         "thesaurus (or a decompression bomb)")
            try:
                return data.decode(enc).rstrip("\r\n")
            except UnicodeDecodeError as exc:
                raise MalformedSourceError(name, lineno, f"not valid {enc} ({exc.reason} at byte {exc.start})") from None

        while True:
            line = next_line()
            if line is None:
                return
            if not line.strip():
                continue
            head = lineno
            entry, bar, count = line.rpartition("|")
            if not bar or not count.strip().isdigit():
                raise MalformedSourceError(name, head, f"expected an entry line 'word|number of meanings', got {line[:80]!r}")
            n = int(count)
            meanings: List[Tuple[int, str, List[str]]] = []
            for _ in range(n):
                m = next_line()
                if m is None:
                    raise MalformedSourceError(name, head, f"entry {entry!r} announces {n} meaning lines; the file ends after {len(meanings)}")
                pos, _sep, rest = m.partition("|")
                meanings.append((lineno, pos, rest.split("|") if rest else []))
            yield head, entry, meanings
    finally:
        stream.close()
        if raw is not stream:
            raw.close()


def _tokens(text: str, lang: str, nonbreaking: Mapping[str, bool]) -> Tuple[str, ...]:
    return tuple(prepare(text, lang, norm=True, lower=True, nonbreaking=nonbreaking))


def read_mythes(
    path: "os.PathLike[str] | str",
    language: str,
    *,
    nonbreaking: Optional[Mapping[str, bool]] = None,
    licence: str = "see the package's copyright file",
    location: Optional[str] = None,
    description: Optional[str] = None,
    show_progress: bool = True,
) -> Thesaurus:
    """Read a MyThes ``.dat`` file into :class:`Thesaurus` meaning lines (see the module docstring)."""
    p = Path(path)
    if not p.is_file():
        raise SourceError(f"{p}: thesaurus file not found")
    nb = dict(nonbreaking or {})
    counts = {"entries": 0, "members": 0, "relation_members": 0, "relation_lines": 0, "placeholder_members": 0,
              "empty_members": 0, "phrase_members": 0}
    meanings: List[MeaningLine] = []
    cache: Dict[str, Tuple[str, ...]] = {}

    def tokens(text: str) -> Tuple[str, ...]:
        t = cache.get(text)
        if t is None:
            t = cache[text] = tuple(x for x in _tokens(text, language, nb))
        return t

    with progress(show_progress, unit="entry", unit_scale=True, desc=f"reading {p.name}") as bar:
        for _head, entry, lines in iter_mythes(p):
            counts["entries"] += 1
            bar.update(1)
            entry_text, _ = split_notes(entry)
            entry_tok = tokens(entry_text) if not _PLACEHOLDER.search(entry_text) else ()
            for lineno, pos, raw_members in lines:
                if len(raw_members) > MAX_LINE_MEMBERS:  # the budget, checked before any member is worked on
                    counts["lines_over_budget"] = counts.get("lines_over_budget", 0) + 1
                    continue
                pos_text, pos_notes = split_notes(pos)
                if _is_relation(pos_notes) or java_lower(pos_text) in RELATION_NOTES:
                    counts["relation_lines"] += 1
                    continue
                kept: Dict[Tuple[str, ...], None] = (
                    {entry_tok: None} if entry_tok and _WORDLIKE.search(" ".join(entry_tok)) else {})
                for rawm in raw_members:
                    text, notes = split_notes(rawm)
                    if not text:
                        continue
                    counts["members"] += 1
                    if _is_relation(notes):
                        counts["relation_members"] += 1
                        continue
                    if _PLACEHOLDER.search(text):
                        counts["placeholder_members"] += 1
                        continue
                    tok = tokens(text)
                    if not tok or not _WORDLIKE.search(" ".join(tok)):
                        counts["empty_members"] += 1
                        continue
                    if len(tok) > 1:
                        counts["phrase_members"] += 1
                    kept.setdefault(tok, None)  # a dict: first-seen order, linear time
                if len(kept) >= 2:
                    meanings.append(MeaningLine(entry_text, lineno, pos_text, tuple(kept)))
    src = file_source(
        p, kind="mythes", name=f"mythes-{p.name}", licence=licence,
        description=description or f"MyThes thesaurus {p.name} (meaning lines as synonym sets)",
        location=location if location is not None else str(p),
    )
    return Thesaurus(language=language, meanings=meanings, source=src, counts=counts)
