"""Synonym sets from WN-LMF XML (Open Multilingual Wordnet, Open English WordNet, ...).

The Global WordNet Association's LMF format (``WN-LMF-1.x``)::

    <LexicalResource>
      <Lexicon id="..." label="..." language="fr" email="..." license="..." version="...">
        <LexicalEntry id="...">
          <Lemma writtenForm="chien" partOfSpeech="n"/>
          <Form writtenForm="chiens"/>                      (optional, any number)
          <Sense id="..." synset="omw-fr-02084071-n"/>       (one per synset of the word)
        </LexicalEntry>
        <Synset id="omw-fr-02084071-n" ili="i46360" partOfSpeech="n">...</Synset>
      </Lexicon>
    </LexicalResource>

A word belongs to the synsets its senses point to.  Words are lower-cased as
the scorer lower-cases text (:func:`meteor_lite.text.normalize.java_lower`) and
multiword lemmas joined by ``_`` (as in the WordNet database and Meteor's
files).  ``Form`` elements (variant or inflected forms) become morphological
exceptions ``(form, lemma)``, so the scorer finds the lemma's synsets from the
form.  ``LexiconExtension`` entries are read like ``Lexicon`` entries.

The file is parsed with ``xml.parsers.expat``, streamed (plain, ``.gz``,
``.xz`` or ``.bz2``); external DTDs are not fetched.  Synset ids are strings in
LMF and integers in a bundle: see :data:`ID_SCHEMES`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple
from xml.parsers import expat

from meteor_lite.text.normalize import java_lower

from ..errors import MalformedSourceError, SourceError
from ..sources import file_source, open_binary, progress
from .wndb import POS_DIGIT, Synonyms

__all__ = ["ID_SCHEMES", "LexiconInfo", "read_lmf", "lmf_lemma", "lmf_language_filter"]

#: How string synset ids become integers:
#: ``ordinal`` -- 1, 2, 3, ... in sorted order of the ids (any LMF file);
#: ``offset`` -- the 8-digit WordNet 3.0 offset at the end of ids like ``omw-en-00001740-a``
#: (Meteor 1.5's ids for English); ``pos-offset`` -- offset * 10 + part-of-speech digit.
ID_SCHEMES: Tuple[str, ...] = ("ordinal", "offset", "pos-offset")

_OFFSET_ID = re.compile(r"(\d{8})-([a-z])$")
_LEXICONS = ("Lexicon", "LexiconExtension")
_READ_CHUNK = 1 << 20


@dataclass
class LexiconInfo:
    """A ``Lexicon`` element's attributes (recorded in the bundle's provenance)."""

    id: str
    label: str
    language: str
    version: str
    license: str
    url: str
    line: int
    used: bool = False


@dataclass
class _Entry:
    id: str
    line: int
    lemma: Optional[str] = None
    forms: List[str] = field(default_factory=list)
    senses: List[Tuple[str, int]] = field(default_factory=list)


def lmf_language_filter(lang: str, option: Optional[str], lexicons: Optional[Sequence[str]]) -> Optional[str]:
    """The LMF ``language`` filter: ``option`` ('any' = no filter), else the bundle's language
    (in LMF's spelling) unless ``lexicons`` picks lexicons by id."""
    if option is not None:
        return None if option == "any" else option
    if lexicons:
        return None
    return {"cz": "cs", "se": "sv", "no": "nb"}.get(lang, lang)


def lmf_lemma(written_form: str) -> str:
    """A ``writtenForm`` as a bundle word: lower-cased, whitespace runs replaced by ``_``."""
    return "_".join(java_lower(written_form).split())


def _synset_number(sid: str, scheme: str, source: str, line: int) -> int:
    m = _OFFSET_ID.search(sid)
    if m is None:
        raise MalformedSourceError(
            source, line, f"synset id {sid!r} does not end in an 8-digit offset and a part of speech "
            f"(id scheme {scheme!r} needs ids like 'omw-en-00001740-a'; use 'ordinal')"
        )
    off = int(m.group(1))
    if scheme == "offset":
        return off
    return off * 10 + POS_DIGIT.get(m.group(2), 5)


def read_lmf(
    path: "os.PathLike[str] | str",
    *,
    lexicons: Optional[Sequence[str]] = None,
    language: Optional[str] = None,
    id_scheme: str = "ordinal",
    forms_as_exceptions: bool = True,
    licence: Optional[str] = None,
    location: Optional[str] = None,
    show_progress: bool = True,
) -> Synonyms:
    """Read the synonym sets of a WN-LMF file.

    ``lexicons`` keeps only the lexicons with these ids, ``language`` only those
    whose ``language`` attribute equals it (both: all when None).  ``licence``
    overrides the lexicons' ``license`` attributes in the provenance record.
    Raises :class:`MalformedSourceError` (file and line) for XML errors, an entry
    without a ``Lemma``/``writtenForm``, a ``Sense`` without ``synset``, or a file
    whose root is not ``LexicalResource``; :class:`SourceError` when no lexicon
    was selected or no word has a synset.
    """
    if id_scheme not in ID_SCHEMES:
        raise SourceError(f"unknown synset id scheme {id_scheme!r} (one of {', '.join(ID_SCHEMES)})")
    src = str(path)
    wanted = set(lexicons) if lexicons else None

    infos: List[LexiconInfo] = []
    raw_pairs: List[Tuple[str, str, int]] = []  # (word, synset id string, line of the Sense)
    exc: Set[Tuple[str, str]] = set()
    defined: Set[str] = set()
    state: Dict[str, object] = {"root": None, "lexicon": None, "entry": None, "entries": 0}

    parser = expat.ParserCreate()

    def line() -> int:
        return parser.CurrentLineNumber

    def start(name: str, attrs: Dict[str, str]) -> None:
        if state["root"] is None:
            state["root"] = name
            if name != "LexicalResource":
                raise MalformedSourceError(src, line(), f"not a WN-LMF file (root element <{name}>, expected <LexicalResource>)")
            return
        if name in _LEXICONS:
            info = LexiconInfo(
                id=attrs.get("id", ""),
                label=attrs.get("label", ""),
                language=attrs.get("language", ""),
                version=attrs.get("version", ""),
                license=attrs.get("license", ""),
                url=attrs.get("url", ""),
                line=line(),
            )
            info.used = (wanted is None or info.id in wanted) and (language is None or info.language == language)
            infos.append(info)
            state["lexicon"] = info
            return
        lex = state["lexicon"]
        if lex is None or not lex.used:  # type: ignore[attr-defined]
            return
        entry: Optional[_Entry] = state["entry"]  # type: ignore[assignment]
        if name == "LexicalEntry":
            state["entry"] = _Entry(id=attrs.get("id", ""), line=line())
        elif name == "Lemma" and entry is not None:
            wf = attrs.get("writtenForm", "")
            if not wf.strip():
                raise MalformedSourceError(src, line(), f"<Lemma> of entry {entry.id!r} has no writtenForm")
            entry.lemma = lmf_lemma(wf)
        elif name == "Form" and entry is not None:
            wf = attrs.get("writtenForm", "")
            if not wf.strip():
                raise MalformedSourceError(src, line(), f"<Form> of entry {entry.id!r} has no writtenForm")
            entry.forms.append(lmf_lemma(wf))
        elif name == "Sense" and entry is not None:
            sid = attrs.get("synset", "")
            if not sid:
                raise MalformedSourceError(src, line(), f"<Sense> {attrs.get('id', '')!r} of entry {entry.id!r} has no synset attribute")
            entry.senses.append((sid, line()))
        elif name == "Synset":
            sid = attrs.get("id", "")
            if not sid:
                raise MalformedSourceError(src, line(), "<Synset> has no id")
            defined.add(sid)

    def end(name: str) -> None:
        if name == "LexicalEntry" and state["entry"] is not None:
            entry: _Entry = state["entry"]  # type: ignore[assignment]
            state["entry"] = None
            if entry.lemma is None:
                raise MalformedSourceError(src, entry.line, f"<LexicalEntry> {entry.id!r} has no <Lemma>")
            state["entries"] = int(state["entries"]) + 1  # type: ignore[call-overload]
            for sid, ln in entry.senses:
                raw_pairs.append((entry.lemma, sid, ln))
            if forms_as_exceptions:
                exc.update((f, entry.lemma) for f in entry.forms if f and f != entry.lemma)
        elif name in _LEXICONS:
            state["lexicon"] = None

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    stream, raw = open_binary(path)
    try:
        size = os.fstat(raw.fileno()).st_size
        with progress(show_progress, total=size, unit="B", unit_scale=True, desc=f"reading {Path(path).name}") as bar:
            pos = 0
            try:
                while True:
                    block = stream.read(_READ_CHUNK)
                    parser.Parse(block, not block)
                    new = raw.tell()
                    bar.update(new - pos)
                    pos = new
                    if not block:
                        break
            except expat.ExpatError as exc_:
                raise MalformedSourceError(src, exc_.lineno, f"XML error: {expat.errors.messages[exc_.code]} (column {exc_.offset + 1})") from None
            except (EOFError, OSError) as exc_:
                raise SourceError(f"{src}: corrupt or unreadable file ({exc_})") from None
    finally:
        stream.close()
        if raw is not stream:
            raw.close()

    if not infos:
        raise MalformedSourceError(src, 0, "no <Lexicon> in the file")
    used = [i for i in infos if i.used]
    if not used:
        have = ", ".join(f"{i.id} ({i.language})" for i in infos)
        raise SourceError(f"{src}: no lexicon matches lexicons={sorted(wanted) if wanted else None} language={language!r} (the file has: {have})")
    if not raw_pairs:
        raise SourceError(f"{src}: the selected lexicons have no word with a synset")

    if id_scheme == "ordinal":
        numbers = {sid: i for i, sid in enumerate(sorted({s for _, s, _ in raw_pairs}), 1)}
        pairs = {(w, numbers[s]) for w, s, _ in raw_pairs}
    else:
        pairs = {(w, _synset_number(s, id_scheme, src, ln)) for w, s, ln in raw_pairs}
    undefined = len({s for _, s, _ in raw_pairs} - defined)

    lic = licence or "; ".join(sorted({i.license for i in used if i.license})) or "unknown (no license attribute)"
    described = ", ".join(f"{i.id} {i.version} ({i.language}{': ' + i.label if i.label else ''})" for i in used)
    source = file_source(
        path,
        kind="wn-lmf",
        description=f"WN-LMF wordnet: lexicon(s) {described}",
        licence=lic,
        location=location,
    )
    params: Dict[str, object] = {
        "source": "wn-lmf",
        "lexicons": [{"id": i.id, "language": i.language, "version": i.version} for i in used],
        "id_scheme": id_scheme,
        "entries": state["entries"],
        "synsets": len({s for _, s, _ in raw_pairs}),
        "senses_to_synsets_not_in_file": undefined,
        "pairs": len(pairs),
        "words": len({w for w, _ in pairs}),
        "exceptions": len(exc),
        "forms_as_exceptions": forms_as_exceptions,
        "lemma_normalisation": "lower-cased (Java rules), whitespace runs -> '_'",
    }
    return Synonyms(synsets=sorted(pairs), exceptions=sorted(exc), sources=[source], params=params)
