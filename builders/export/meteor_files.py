"""Export a bundle to the files the official Meteor 1.5 reads: :func:`export_bundle`.

What the jar reads, and what is written (formats checked against the files
inside ``meteor-1.5.jar`` and its ``data/paraphrase-en.gz``):

``function.words`` (jar option ``-s FILE``; also read by ``-new DIR``)
    one function word per line, UTF-8.  Meteor treats the list as a set; it is
    written in byte order of the words.
``paraphrase.gz`` (``-a FILE``; the name ``-new DIR`` looks for)
    gzip of groups of three lines: probability (as Java prints a double),
    phrase, paraphrase; phrases in UTF-8 byte order (the order of the official
    table's file), the paraphrases of each phrase in table order (the order
    Meteor breaks ties by).  Bundles store the probabilities only when built
    with ``--keep-probabilities``; otherwise every pair gets
    :data:`PLACEHOLDER_PROBABILITY`, with a warning.  Meteor 1.5 does not score
    with them: the jar gives the same scores with the placeholder (measured on
    the whole English table, ``meteor-build check export``).
``<language>.synsets``, ``<language>.exceptions``, ``<language>.relations`` (``-d DIR``)
    Meteor appends ``/<language>.synsets`` etc. to the ``-d`` directory,
    ``<language>`` being its long name (``english`` for ``-l en``).
    ``.synsets``: alternating lines, a word, then its synset ids as 8-digit
    zero-padded numbers separated by spaces (words in byte order, ids ascending);
    ``.exceptions``: alternating lines, a base form, then its inflected forms
    separated by spaces; ``.relations``: synset relations (WordNet hypernyms in
    Meteor's files).  Bundles hold no relations; the file is written empty
    (measured with the jar: system1 with ``-m 'exact stem synonym'`` scores
    the same, segment by segment, with Meteor's relations file, an empty one or none).
``export.json``
    what was exported from which bundle (name, version, content checksum), row
    counts and SHA-256 of each file, and the jar options that use them.

Files are written atomically (temporary file, then rename); gzip output
carries no time stamp or file name, so exporting the same bundle twice gives
identical bytes.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import sqlite3
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import IO, Any, Callable, Iterator, List, Optional, Sequence, Tuple

from meteor_lite.errors import BundleError, MeteorLiteWarning
from meteor_lite.jarcompat import java_double
from meteor_lite.resources.bundle import Bundle

from ..errors import ExportError
from ..sources import progress

__all__ = ["EXPORTABLE", "ExportError", "ExportedFile", "ExportResult", "export_bundle", "meteor_language_name"]

#: Resources :func:`export_bundle` can write.
EXPORTABLE = ("function_words", "synonyms", "paraphrases")

FUNCTION_WORDS_FILE = "function.words"
PARAPHRASE_FILE = "paraphrase.gz"
MANIFEST_FILE = "export.json"

#: The probability written for every pair when the bundle stores none (Meteor 1.5 does not score with it).
PLACEHOLDER_PROBABILITY = 1.0


@dataclass
class ExportedFile:
    """One file written: its name in the export directory, rows (entries) and SHA-256."""

    name: str
    rows: int
    sha256: str


@dataclass
class ExportResult:
    """What :func:`export_bundle` wrote, and how to hand it to the jar."""

    out_dir: Path
    language_name: str
    files: List[ExportedFile] = field(default_factory=list)

    def jar_options(self) -> List[str]:
        """Options for ``java -jar meteor-1.5.jar`` that use the exported files."""
        names = {f.name for f in self.files}
        opts: List[str] = []
        if FUNCTION_WORDS_FILE in names:
            opts += ["-s", str(self.out_dir / FUNCTION_WORDS_FILE)]
        if f"{self.language_name}.synsets" in names:
            opts += ["-d", str(self.out_dir)]
        if PARAPHRASE_FILE in names:
            opts += ["-a", str(self.out_dir / PARAPHRASE_FILE)]
        return opts


def meteor_language_name(lang: str) -> str:
    """Meteor's long name of a language code (``en`` -> ``english``, ``cs`` -> ``czech``); the code itself otherwise."""
    from meteor_lite.languages import LANGUAGES, canonical_language

    code = canonical_language(lang)
    return LANGUAGES[code][0] if code in LANGUAGES else code


class _AtomicText:
    """A text file written to a temporary name and renamed into place on success (gzip optional)."""

    def __init__(self, path: Path, gz: bool = False):
        self.path = path
        self.tmp = path.with_name(f".{path.name}.tmp")
        self.gz = gz
        self.h = hashlib.sha256()
        self._raw: Optional[IO[bytes]] = None
        self._gz: Optional[gzip.GzipFile] = None

    def __enter__(self) -> "_AtomicText":
        self._raw = open(self.tmp, "wb")
        if self.gz:
            # no file name and time 0 in the header: the same content gives the same bytes
            self._gz = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, mtime=0)
        return self

    def write(self, text: str) -> None:
        data = text.encode("utf-8")
        (self._gz or self._raw).write(data)  # type: ignore[union-attr]

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if self._gz is not None:
                self._gz.close()
            assert self._raw is not None
            self._raw.close()
        finally:
            if exc_type is not None:
                self.tmp.unlink(missing_ok=True)
        if exc_type is None:
            with open(self.tmp, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    self.h.update(block)
            os.replace(self.tmp, self.path)

    @property
    def sha256(self) -> str:
        return self.h.hexdigest()


def _check_token(value: str, what: str, allow_space: bool = False) -> str:
    bad = "\n\r" if allow_space else "\n\r \t"
    if not value or any(c in value for c in bad) or value != value.strip():
        raise ExportError(f"cannot export {what} {value!r}: Meteor's line format cannot hold it")
    return value


@contextmanager
def _read_only(path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        yield conn
    finally:
        conn.close()


def _rows(conn: sqlite3.Connection, sql: str, batch: int = 50_000) -> Iterator[tuple]:
    cur = conn.execute(sql)
    while True:
        rows = cur.fetchmany(batch)
        if not rows:
            return
        yield from rows


def export_bundle(
    bundle: "os.PathLike[str] | str",
    out_dir: "os.PathLike[str] | str",
    *,
    resources: Sequence[str] = EXPORTABLE,
    language_name: Optional[str] = None,
    show_progress: bool = True,
    log: Optional[Callable[[str], None]] = None,
) -> ExportResult:
    """Write a bundle's resources to ``out_dir`` in the formats Meteor 1.5 reads.

    ``resources`` chooses among :data:`EXPORTABLE`; ``function.words`` is
    always written when asked for (empty if the bundle has none, as the jar's
    ``-new`` needs the file), the synonym files and ``paraphrase.gz`` only
    when the bundle has synonyms / paraphrases.  ``language_name`` names the
    synonym files (default: Meteor's long name of the bundle's language).
    Raises :class:`ExportError` (or :class:`~meteor_lite.errors.BundleError`
    for an unreadable bundle).
    """
    unknown = [r for r in resources if r not in EXPORTABLE]
    if unknown:
        raise ExportError(f"cannot export {', '.join(unknown)} (exportable: {', '.join(EXPORTABLE)})")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out}: exists and is not a directory")
    say = log or (lambda _m: None)
    with Bundle.open(bundle) as b, _read_only(b.path) as conn:
        lang_name = language_name or meteor_language_name(b.language or "xx")
        _check_token(lang_name, "language name")
        counts = b.counts()
        out.mkdir(parents=True, exist_ok=True)
        result = ExportResult(out_dir=out, language_name=lang_name)

        if "function_words" in resources:
            with _AtomicText(out / FUNCTION_WORDS_FILE) as f:
                n = 0
                for (w,) in _rows(conn, "SELECT word FROM function_words ORDER BY word"):
                    f.write(_check_token(w, "function word") + "\n")
                    n += 1
            result.files.append(ExportedFile(FUNCTION_WORDS_FILE, n, f.sha256))
            say(f"{FUNCTION_WORDS_FILE}: {n} words")

        if "synonyms" in resources and counts["synsets"]:
            result.files.extend(_write_synonyms(conn, out, lang_name))
            say(f"{lang_name}.synsets/.exceptions/.relations: {counts['synsets']} (word, synset) pairs, "
                f"{counts['synonym_exceptions']} exceptions")

        if "paraphrases" in resources and counts["paraphrases"]:
            result.files.append(_write_paraphrases(b, out, counts["paraphrases"], show_progress))
            say(f"{PARAPHRASE_FILE}: {result.files[-1].rows} pairs")

        manifest = {
            "exported_from": {
                "path": str(Path(bundle)),
                "name": b.name,
                "language": b.language,
                "version": b.version,
                "content_checksum": b.checksum,
            },
            "language_name": lang_name,
            "files": {f.name: {"rows": f.rows, "sha256": f.sha256} for f in result.files},
            **(
                {"paraphrase_probabilities": "stored" if b.has_paraphrase_probabilities else f"placeholder {PLACEHOLDER_PROBABILITY!r}"}
                if any(f.name == PARAPHRASE_FILE for f in result.files) else {}
            ),
            "jar_options": result.jar_options(),
            "sources": b.sources(),
        }
    with _AtomicText(out / MANIFEST_FILE) as f:
        f.write(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return result


def _write_groups(
    f: "_AtomicText", rows: Iterator[Tuple[Any, Any]], head: Callable[[Any], str], item: Callable[[Any, Any], str]
) -> int:
    """Write ``key\nitem item ...\n`` per run of equal keys of ``rows`` (sorted by key); the number of keys."""
    n = 0
    for key, group in groupby(rows, key=itemgetter(0)):
        line = head(key)
        f.write(f"{line}\n{' '.join(item(key, value) for _, value in group)}\n")
        n += 1
    return n


def _synset_id(word: Any, sid: Any) -> str:
    """A synset id as Meteor writes it (8 digits); refused unless a non-negative integer."""
    if not isinstance(sid, int) or sid < 0:
        raise ExportError(f"cannot export synset id {sid!r} of {word!r}: Meteor's ids are non-negative integers")
    return f"{sid:08d}"


def _write_synonyms(conn: sqlite3.Connection, out: Path, lang_name: str) -> List[ExportedFile]:
    """Write ``<language>.synsets``, ``.exceptions`` and an empty ``.relations``."""
    files: List[ExportedFile] = []
    name = f"{lang_name}.synsets"
    with _AtomicText(out / name) as f:
        n = _write_groups(f, _rows(conn, "SELECT word, synset FROM synsets ORDER BY word, synset"),
                          lambda w: _check_token(w, "synonym word"), _synset_id)
    files.append(ExportedFile(name, n, f.sha256))
    name = f"{lang_name}.exceptions"
    with _AtomicText(out / name) as f:
        n = _write_groups(f, _rows(conn, "SELECT base, form FROM synonym_exceptions ORDER BY base, form"),
                          lambda b: _check_token(b, "base form"), lambda b, form: _check_token(form, "inflected form"))
    files.append(ExportedFile(name, n, f.sha256))
    name = f"{lang_name}.relations"
    with _AtomicText(out / name) as f:
        pass  # bundles hold no synset relations (Meteor 1.5's scores do not use them; see the module doc)
    files.append(ExportedFile(name, 0, f.sha256))
    return files


def _write_paraphrases(b: Bundle, out: Path, total: int, show_progress: bool) -> ExportedFile:
    """Write ``paraphrase.gz``: the stored probabilities, or the placeholder (with a warning)."""
    stored = b.has_paraphrase_probabilities
    if not stored:
        warnings.warn(
            f"{b.path}: the bundle stores no paraphrase probabilities (bundles keep them only when built with "
            f"--keep-probabilities); {PARAPHRASE_FILE} gets {java_double(PLACEHOLDER_PROBABILITY)} for every pair "
            "(Meteor 1.5 scores the same: it does not use them)",
            MeteorLiteWarning,
            stacklevel=3,
        )
    placeholder = java_double(PLACEHOLDER_PROBABILITY)
    with _AtomicText(out / PARAPHRASE_FILE, gz=True) as f, progress(
        show_progress and total > 200_000, total=total, unit="pair", unit_scale=True, desc="paraphrases"
    ) as bar:
        n = 0
        buf: List[str] = []
        for phrase, paras, probs in b.iter_paraphrases(with_probs=stored):
            _check_token(phrase, "phrase", True)
            for i, para in enumerate(paras):
                prob = java_double(probs[i]) if probs is not None else placeholder
                buf.append(f"{prob}\n{phrase}\n{_check_token(para, 'paraphrase', True)}\n")
            if len(buf) >= 50_000:
                f.write("".join(buf))
                bar.update(len(buf))
                n += len(buf)
                buf = []
        f.write("".join(buf))
        bar.update(len(buf))
        n += len(buf)
    return ExportedFile(PARAPHRASE_FILE, n, f.sha256)


__all__ += ["FUNCTION_WORDS_FILE", "PARAPHRASE_FILE", "MANIFEST_FILE", "PLACEHOLDER_PROBABILITY", "BundleError"]
