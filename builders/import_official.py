"""Import the resources of the official Meteor 1.5 release into bundles.

The release is read from the ``pycocoevalcap`` package (see :mod:`.official`):
``meteor-1.5.jar`` carries the function-word lists, the WordNet synonym files
and the non-breaking prefix lists; ``data/paraphrase-en.gz`` is the English
paraphrase table.  Nothing is downloaded.

File formats (as the official release ships them):

``function/<language>.words``
    one function word per line; the whole line is the word, empty lines are skipped.
    Meteor 1.5 itself applies ``function/english.words`` whatever the language
    (measured with the jar), so by default every bundle gets that list; see
    ``function_words`` in :func:`build_official_bundle`.
``synonym/english.synsets``
    alternating lines: a word, then its space-separated synset ids (integers).
``synonym/english.exceptions``
    alternating lines: a base form, then its space-separated inflected forms;
    stored as ``(form, base)`` pairs.
``paraphrase-en.gz``
    groups of three lines: probability, phrase, paraphrase.  Tokens are separated
    by whitespace and stored joined by single spaces; the file order is kept
    (it breaks ties in the alignment search exactly as Meteor does).

Malformed input raises :class:`MalformedInputError` naming the file and line,
and, as any error or interruption during a build, leaves no bundle behind.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import hashlib
import io
import json
import math
import os
import re
import zlib
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _pkg_version
from itertools import zip_longest
from operator import itemgetter
from pathlib import Path
from typing import BinaryIO, Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple

from meteor_lite.resources import snowball_classes
from meteor_lite.bundle import BUNDLE_SUFFIX

from . import official
from .bundle_writer import BundleWriter, sha256_file

#: Version given to bundles imported from the official release (the resources of Meteor 1.5).
OFFICIAL_BUNDLE_VERSION = "1.5.0"

#: Meteor's short language codes, in the order ``--lang all`` builds them.
OFFICIAL_LANGUAGES: Tuple[str, ...] = tuple(official.LANGUAGE_NAMES)

#: Pairs handed to SQLite per ``executemany`` call while importing the paraphrase table.
PARAPHRASE_BATCH = 100_000

#: What ``function_words=`` takes: the list Meteor 1.5 applies, or the jar's list for the language.
FUNCTION_WORD_CHOICES: Tuple[str, ...] = ("meteor", "language")

#: Meteor 1.5 applies ``function/english.words`` whatever ``-l`` says (measured with the jar).
METEOR_FUNCTION_WORDS_LANGUAGE = "english"

#: Licences of the official resources.
METEOR_LICENCE = "LGPL-2.1"
WORDNET_LICENCE = "WordNet 3.0 license (Princeton University); text in meteor-1.5.jar!synonym/COPYING.WORDNET"

#: Package and version of the stemmer that builds stem maps (Meteor 1.5 gives exactly its stems).
STEMMER_PACKAGE = "snowballstemmer"


class ImportOfficialError(Exception):
    """The official release could not be imported into a bundle."""


class MalformedInputError(ImportOfficialError):
    """A resource file of the official release is malformed.

    :attr:`source` names the file (``jar!member`` for files inside the jar),
    :attr:`line` is the 1-based line number where the problem was found.
    """

    def __init__(self, source: str, line: int, problem: str):
        self.source = source
        self.line = line
        self.problem = problem
        super().__init__(f"{source}, line {line}: {problem}")


# -- parsing ------------------------------------------------------------------


def _split_lines(text: str) -> List[str]:
    """Split on line terminators only (\\n, \\r\\n, \\r), as a Java line reader does.

    A final terminator does not start an extra (empty) line.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _parse_int_tokens(line: str, source: str, lineno: int, what: str) -> List[int]:
    out: List[int] = []
    for tok in line.split():
        if not (tok.isascii() and tok.isdigit()):
            raise MalformedInputError(source, lineno, f"{what} {tok!r} is not a non-negative integer")
        out.append(int(tok))
    return out


def parse_function_words(text: str, source: str = "<function words>") -> List[str]:
    """Function words of a ``function/*.words`` file: each non-empty line, kept as it is."""
    return [line for line in _split_lines(text) if line.strip()]


def _pairs_of_lines(text: str, source: str, first: str, second: str) -> Iterator[Tuple[int, str, str]]:
    """Yield ``(line number of the first line, first line, second line)`` of an alternating-line file.

    Problems are reported in file order; the first line of a pair must be one token.
    """
    lines = _split_lines(text)
    for i in range(0, len(lines) - 1, 2):
        key, values = lines[i], lines[i + 1]
        tokens = key.split()
        if not tokens:
            raise MalformedInputError(source, i + 1, f"empty {first} line")
        if len(tokens) > 1:
            raise MalformedInputError(source, i + 1, f"{first} line {key!r} holds more than one token")
        if not values.strip():
            raise MalformedInputError(source, i + 2, f"{first} {key!r} has an empty {second} line")
        yield i + 1, tokens[0], values
    if len(lines) % 2:
        raise MalformedInputError(
            source,
            len(lines),
            f"odd number of lines ({len(lines)}): {first} {lines[-1]!r} has no {second} line",
        )


def parse_synsets(text: str, source: str = "<synsets>") -> List[Tuple[str, int]]:
    """``(word, synset id)`` pairs of ``synonym/english.synsets`` (file order, duplicates kept)."""
    out: List[Tuple[str, int]] = []
    for lineno, word, ids in _pairs_of_lines(text, source, "word", "synset-id"):
        out.extend((word, s) for s in _parse_int_tokens(ids, source, lineno + 1, "synset id"))
    return out


def parse_exceptions(text: str, source: str = "<exceptions>") -> List[Tuple[str, str]]:
    """``(inflected form, base form)`` pairs of ``synonym/english.exceptions`` (file order)."""
    out: List[Tuple[str, str]] = []
    for _lineno, base, forms in _pairs_of_lines(text, source, "base form", "inflected-forms"):
        out.extend((form, base) for form in forms.split())
    return out


#: A probability line: a decimal number (ASCII digits, optional sign, fraction and exponent).
_NUMBER_LINE = re.compile(r"\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*", re.ASCII)


def _bad_probability(line: str, source: str, lineno: int) -> MalformedInputError:
    if _NUMBER_LINE.fullmatch(line):
        problem = f"probability {line.strip()!r} is out of range"
    else:
        problem = f"probability {line.strip()!r} is not a number"
    return MalformedInputError(source, lineno, problem)


def iter_paraphrase_batches(
    lines: Iterable[str],
    source: str = "<paraphrases>",
    *,
    limit: Optional[int] = None,
    batch_size: int = PARAPHRASE_BATCH,
) -> Iterator[List[Tuple[str, str, float]]]:
    """Parse a paraphrase table in batches of ``(phrase, paraphrase, probability)``, in file order.

    ``lines`` are the file's lines, with or without their line terminators (an
    open text file will do).  Phrases are normalised to their whitespace-separated
    tokens joined by single spaces.  At most ``limit`` pairs are read (the rest of
    the file is not checked).  Raises :class:`MalformedInputError` naming
    ``source`` and the line.
    """
    batch: List[Tuple[str, str, float]] = []
    append = batch.append
    n = 0
    prev_raw: Optional[str] = None
    phrase = ""
    it = iter(lines)
    isfinite = math.isfinite
    for prob_line, raw, para_raw in zip_longest(it, it, it):
        if limit is not None and n >= limit:
            break
        lineno = 3 * n + 1
        if para_raw is None:
            got = 1 if raw is None else 2
            raise MalformedInputError(
                source, lineno + got - 1, f"file ends inside an entry ({got} of 3 lines: probability, phrase, paraphrase)"
            )
        try:
            # float() also takes "1_0", "nan", "inf" and non-ASCII digits: the format does not.
            prob = float(prob_line)
            if not isfinite(prob) or "_" in prob_line or not prob_line.isascii():
                raise ValueError
        except ValueError:
            raise _bad_probability(prob_line, source, lineno) from None
        if raw != prev_raw:  # the table is grouped by phrase: normalise each phrase once
            phrase = " ".join(raw.split())
            prev_raw = raw
            if not phrase:
                raise MalformedInputError(source, lineno + 1, "empty phrase")
        para = " ".join(para_raw.split())
        if not para:
            raise MalformedInputError(source, lineno + 2, "empty paraphrase")
        append((phrase, para, prob))
        n += 1
        if len(batch) >= batch_size:
            yield batch
            batch = []
            append = batch.append
    if batch:
        yield batch


def iter_paraphrases(
    lines: Iterable[str], source: str = "<paraphrases>", *, limit: Optional[int] = None
) -> Iterator[Tuple[str, str, float]]:
    """Parse a paraphrase table into ``(phrase, paraphrase, probability)`` triples, in file order."""
    for batch in iter_paraphrase_batches(lines, source, limit=limit):
        yield from batch


# -- stemming -------------------------------------------------------------------


def snowball_language(lang: str) -> Optional[str]:
    """Snowball algorithm name for a Meteor language code, or None when ``snowballstemmer`` has none."""
    name = official.LANGUAGE_NAMES[lang]
    return name if name in snowball_classes() else None


def make_stemmer(snowball_name: str) -> Callable[[List[str]], List[str]]:
    """``stemWords`` of the pure-Python snowballstemmer algorithm ``snowball_name`` (never PyStemmer)."""
    try:
        cls = snowball_classes()[snowball_name]
    except KeyError:
        raise ImportOfficialError(f"snowballstemmer has no {snowball_name!r} stemmer") from None
    return cls().stemWords


def _package_version(name: str) -> str:
    try:
        return _pkg_version(name)
    except PackageNotFoundError:
        return "unknown"


# -- progress ---------------------------------------------------------------------


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> "_NoBar":
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _bar(enabled: bool, **kwargs: object):
    """A tqdm bar (shown only on a terminal) or a do-nothing stand-in."""
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:  # progress is a nicety: build without it
        return _NoBar()
    return tqdm(disable=None, leave=False, dynamic_ncols=True, **kwargs)


# -- the build ---------------------------------------------------------------------


@dataclass
class _Release:
    """Where the official files are read from and what to record about them."""

    jar: Path
    paraphrase_file: Optional[Path]
    jar_location: str
    paraphrase_location: str
    _sha: Dict[Path, str] = field(default_factory=dict)

    def sha256(self, path: Path) -> str:
        if path not in self._sha:
            self._sha[path] = sha256_file(path)
        return self._sha[path]

    def member(self, name: str) -> str:
        return f"{self.jar.name}!{name}"

    def read(self, member: str) -> str:
        return official.read_jar_text(member, jar=self.jar)


def _locate(lang: str, jar: Optional[Path], paraphrase_file: Optional[Path]) -> _Release:
    """The files to import: pycocoevalcap's release unless ``jar`` is given.

    With the default release, English takes pycocoevalcap's paraphrase table; with
    an explicit ``jar``, paraphrases are imported only from an explicit ``paraphrase_file``.
    """
    if jar is None:
        jar = official.jar_path()
        pkg = f"pycocoevalcap=={_package_version('pycocoevalcap')}"
        jar_location = f"PyPI {pkg}: pycocoevalcap/meteor/meteor-1.5.jar"
        if paraphrase_file is None and lang == "en":
            paraphrase_file = official.paraphrase_path(lang)
            para_location = f"PyPI {pkg}: pycocoevalcap/meteor/data/{paraphrase_file.name}"
        else:
            para_location = paraphrase_file.name if paraphrase_file is not None else ""
    else:
        if not jar.is_file():
            raise ImportOfficialError(f"{jar}: jar not found")
        jar_location = jar.name
        para_location = paraphrase_file.name if paraphrase_file is not None else ""
    if paraphrase_file is not None and not paraphrase_file.is_file():
        raise ImportOfficialError(f"{paraphrase_file}: paraphrase table not found")
    return _Release(jar, paraphrase_file, jar_location, para_location)


def _open_text_lines(path: Path) -> Tuple[io.TextIOWrapper, BinaryIO]:
    """Open a (gzipped) text file for line iteration; return ``(text stream, raw byte stream)``."""
    raw = open(path, "rb")
    try:
        magic = raw.read(2)
        raw.seek(0)
        stream = gzip.GzipFile(fileobj=raw, mode="rb") if magic == b"\x1f\x8b" else raw
        text = io.TextIOWrapper(stream, encoding="utf-8", newline=None)  # \n, \r\n, \r end a line
    except BaseException:
        raw.close()
        raise
    return text, raw


def _import_paraphrases(w: BundleWriter, rel: _Release, *, limit: Optional[int], progress: bool) -> Tuple[int, Set[str]]:
    """Insert the paraphrase table in file order; return (pairs inserted, tokens seen)."""
    assert rel.paraphrase_file is not None
    path = rel.paraphrase_file
    source = str(path)
    text, raw = _open_text_lines(path)
    tokens: Set[str] = set()
    n = 0
    # GzipFile does not close a file object it was given: close `raw` too.
    with raw, text, _bar(progress, total=path.stat().st_size, unit="B", unit_scale=True, desc="paraphrases") as bar:
        pos = 0
        try:
            for batch in iter_paraphrase_batches(text, source, limit=limit, batch_size=PARAPHRASE_BATCH):
                n += w.add_paraphrases(batch)
                strings = set(map(itemgetter(0), batch))
                strings.update(map(itemgetter(1), batch))
                tokens.update(" ".join(strings).split(" "))
                new = raw.tell()
                bar.update(new - pos)
                pos = new
        except UnicodeDecodeError as exc:
            raise ImportOfficialError(f"{source}: not valid UTF-8 ({exc})") from None
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise ImportOfficialError(f"{source}: corrupt or truncated gzip file ({exc})") from None
    return n, tokens


# -- Meteor 1.5's own stemmer, run as a black box ------------------------------------

#: wordfreq's codes for Meteor's language codes (where they differ).
WORDFREQ_CODES = {"no": "nb", "se": "sv"}
#: How many of wordfreq's most frequent words the stem corrections cover.
STEM_VOCABULARY_SIZE = 200_000
STEM_CHOICES = ("auto", "jar", "snowball")


def jar_stems(words: List[str], snowball_name: str, jar: Path) -> List[str]:
    """Stems of ``words`` by the Snowball stemmer inside meteor-1.5.jar (its ``Stemmer`` program).

    Needs ``java``; raises :class:`ImportOfficialError` when it is missing or fails.
    """
    import shutil
    import subprocess

    java = shutil.which("java")
    if java is None:
        raise ImportOfficialError("java not found: Meteor 1.5's own stemmer runs only with Java (use --stems snowball)")
    clean = [w for w in words if w and not any(c.isspace() for c in w)]
    if len(clean) != len(words):
        raise ImportOfficialError("stem vocabulary words must be non-empty and contain no white space")
    proc = subprocess.run(
        [java, "-Dfile.encoding=UTF-8", "-Dsun.stdout.encoding=UTF-8", "-Dstdout.encoding=UTF-8",
         "-cp", str(jar), "Stemmer", snowball_name],
        input="\n".join(words) + "\n", capture_output=True, text=True, encoding="utf-8",
    )
    out = proc.stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    if proc.returncode != 0 or len(out) != len(words):
        raise ImportOfficialError(
            f"meteor-1.5.jar Stemmer {snowball_name} failed (exit {proc.returncode}, "
            f"{len(out)} stems for {len(words)} words): {proc.stderr.strip()[:200]}"
        )
    return out


def stem_corrections(lang: str, snowball_name: str, jar: Path, size: int = STEM_VOCABULARY_SIZE) -> Tuple[List[Tuple[str, str]], Dict[str, object]]:
    """(word, stem) pairs where Meteor 1.5's Java stemmer and snowballstemmer disagree.

    The vocabulary is wordfreq's ``size`` most frequent words of ``lang`` and their
    capitalised forms.  Meteor's jar carries an older Snowball release: for German
    (-nisse), Russian (ё), French, Finnish, Hungarian and Portuguese its stems
    differ from snowballstemmer 2.2.0 on some words; a bundle that lists those
    words makes the scorer stem them as Meteor 1.5 does.
    """
    try:
        import wordfreq
    except ImportError:
        raise ImportOfficialError("stem corrections need wordfreq: install the build extra") from None
    code = WORDFREQ_CODES.get(lang, lang)
    base = [w for w in wordfreq.top_n_list(code, size) if w and not any(c.isspace() for c in w)]
    words = sorted(set(base) | {w[:1].upper() + w[1:] for w in base})
    theirs = jar_stems(words, snowball_name, jar)
    ours = make_stemmer(snowball_name)(words)
    pairs = [(w, t) for w, t, o in zip(words, theirs, ours) if t != o]
    info = {
        "vocabulary": f"wordfreq {_package_version('wordfreq')} top {size} words of {code!r} and their capitalised forms",
        "words_checked": len(words),
        "corrections": len(pairs),
        "stemmer": "Meteor 1.5's Snowball stemmer (java -cp meteor-1.5.jar Stemmer), stored where it differs from "
        f"snowballstemmer {_package_version(STEMMER_PACKAGE)}",
    }
    return pairs, info


def build_official_bundle(
    lang: str,
    out: "os.PathLike[str] | str",
    *,
    progress: bool = True,
    max_paraphrases: Optional[int] = None,
    jar: "os.PathLike[str] | str | None" = None,
    paraphrase_file: "os.PathLike[str] | str | None" = None,
    function_words: str = "meteor",
    stems: str = "auto",
) -> Path:
    """Build the bundle of Meteor 1.5's resources for ``lang`` at ``out``; return ``out``.

    ``lang`` is one of Meteor's short codes (:data:`OFFICIAL_LANGUAGES`).  English
    gets function words, WordNet synsets and morphological exceptions, the
    paraphrase table (its first ``max_paraphrases`` pairs when given), non-breaking
    prefixes and a Snowball stem map over the vocabulary of those resources; the
    other languages get function words, their non-breaking prefixes (where the
    jar has them) and the record of their Snowball stemmer, if
    ``snowballstemmer`` has one.

    ``function_words`` (one of :data:`FUNCTION_WORD_CHOICES`): ``"meteor"`` stores
    the list Meteor 1.5 applies, which is ``function/english.words`` whatever the
    language (measured with the jar: ``-l de``, ``fr``, ``es``, ``cz``, ``ru``,
    ``da``, ``tr`` all count English function words, none of their own list);
    ``"language"`` stores the jar's list for ``lang`` (empty for da fi hu it nl
    no pt ro se tr), which does not reproduce Meteor 1.5's scores.

    ``stems`` (one of :data:`STEM_CHOICES`), for languages other than English:
    ``"jar"`` adds a stem map of the words (wordfreq's most frequent ones) on which
    Meteor 1.5's own stemmer, run from the jar with Java, differs from
    ``snowballstemmer``; ``"snowball"`` adds none; ``"auto"`` is ``"jar"`` when
    ``java`` is on the PATH.  (English needs no corrections: the two stemmers agree.)

    ``jar`` and ``paraphrase_file`` replace the files taken from ``pycocoevalcap``
    (for tests and other copies of the release).  ``progress`` shows tqdm bars on
    long steps (only when stderr is a terminal).

    The bundle is written atomically: after any error or interruption there is
    no file at ``out`` (an older bundle there is left untouched).  Raises
    :class:`ImportOfficialError` (:class:`MalformedInputError`, with file and
    line, for a malformed resource file) or
    :class:`~meteor_lite_builders.official.OfficialReleaseError`.
    """
    if lang not in official.LANGUAGE_NAMES:
        raise ImportOfficialError(f"unknown language {lang!r}: Meteor's languages are {', '.join(OFFICIAL_LANGUAGES)}")
    if max_paraphrases is not None and max_paraphrases < 0:
        raise ImportOfficialError(f"max_paraphrases must be >= 0 (got {max_paraphrases})")
    if stems not in STEM_CHOICES:
        raise ImportOfficialError(f"stems must be one of {', '.join(STEM_CHOICES)} (got {stems!r})")
    if function_words not in FUNCTION_WORD_CHOICES:
        raise ImportOfficialError(
            f"function_words must be one of {', '.join(FUNCTION_WORD_CHOICES)} (got {function_words!r})"
        )
    out = Path(out)
    name = official.LANGUAGE_NAMES[lang]
    rel = _locate(lang, None if jar is None else Path(jar), None if paraphrase_file is None else Path(paraphrase_file))
    snowball = snowball_language(lang)

    members = set(official.jar_members("", jar=rel.jar))
    fw_member = f"function/{METEOR_FUNCTION_WORDS_LANGUAGE if function_words == 'meteor' else name}.words"
    nb_member = f"nonbreaking/{name}.prefixes"
    fwords = parse_function_words(rel.read(fw_member), rel.member(fw_member)) if fw_member in members else []
    prefixes = official.read_nonbreaking_prefixes(lang, jar=rel.jar)
    used = [m for m in (fw_member, nb_member) if m in members]

    params: Dict[str, object] = {"builder": "meteor-build import-official", "language_name": name}
    params["jar_members"] = used
    params["function_words"] = {
        "choice": function_words,
        "member": fw_member if fw_member in members else None,
        "note": (
            "the list Meteor 1.5 applies: function/english.words for every language (checked with the jar)"
            if function_words == "meteor"
            else f"the jar's list for {name} (Meteor 1.5 itself applies function/english.words)"
        ),
    }
    resources: List[str] = []
    if fwords:
        english_for_all = lang != "en" and function_words == "meteor"
        resources.append("function words" + (" (English: Meteor 1.5 applies them to every language)" if english_for_all else ""))
    if prefixes:
        resources.append("non-breaking prefixes")

    with BundleWriter(out, language=lang, name=lang, version=OFFICIAL_BUNDLE_VERSION) as w:
        w.add_function_words(fwords)
        w.add_nonbreaking_prefixes(sorted(prefixes.items()))

        vocab: Set[str] = set()
        if lang == "en":
            syn_member, exc_member = "synonym/english.synsets", "synonym/english.exceptions"
            syn_text, exc_text = rel.read(syn_member), rel.read(exc_member)
            synsets = parse_synsets(syn_text, rel.member(syn_member))
            exceptions = parse_exceptions(exc_text, rel.member(exc_member))
            w.add_synsets(synsets)
            w.add_synonym_exceptions(exceptions)
            for member, what in (
                (syn_member, "WordNet 3.0 synonym sets: word -> synset ids"),
                (exc_member, "WordNet 3.0 morphological exceptions: inflected form -> base form"),
            ):
                w.add_source(
                    member.rsplit("/", 1)[-1],
                    kind="wordnet",
                    description=f"{what} ({member} inside meteor-1.5.jar)",
                    licence=WORDNET_LICENCE,
                    sha256=hashlib.sha256(official.read_jar_bytes(member, jar=rel.jar)).hexdigest(),
                    location=f"{rel.jar_location}!{member}",
                )
            used += [syn_member, exc_member]
            resources += ["synonyms", "morphological exceptions"]
            vocab.update(word for word, _ in synsets if "_" not in word)

        w.add_source(
            "meteor-1.5.jar",
            kind="official-release",
            description="Meteor 1.5 (Denkowski & Lavie), the official release; files used: " + (", ".join(used) or "none"),
            licence=METEOR_LICENCE,
            sha256=rel.sha256(rel.jar),
            location=rel.jar_location,
        )

        if rel.paraphrase_file is not None:
            n_para, tokens = _import_paraphrases(w, rel, limit=max_paraphrases, progress=progress)
            w.add_source(
                rel.paraphrase_file.name,
                kind="paraphrase-table",
                description=(
                    f"Meteor 1.5 {name} paraphrase table (pivoted from parallel corpora); "
                    "groups of 3 lines: probability, phrase, paraphrase"
                ),
                licence=METEOR_LICENCE,
                sha256=rel.sha256(rel.paraphrase_file),
                location=rel.paraphrase_location,
            )
            vocab.update(tokens)
            resources.append("paraphrases")
            params["paraphrases"] = {
                "max_paraphrases": max_paraphrases,
                "pairs": n_para,
                "order": "file order (seq = 0-based position in the file)",
                "tokenisation": "whitespace-separated tokens joined by single spaces",
            }

        if snowball is not None:
            version = _package_version(STEMMER_PACKAGE)
            w.set_stemmer(snowball, STEMMER_PACKAGE, version)
            params["stemmer"] = {"language": snowball, "package": STEMMER_PACKAGE, "version": version}
        else:
            params["stemmer"] = None
        if lang == "en" and snowball is not None:
            vocab.update(fwords)
            vocab.discard("")
            words = sorted(vocab)
            stem_words = make_stemmer(snowball)
            with _bar(progress, total=len(words), unit="word", unit_scale=True, desc="stems") as bar:
                for i in range(0, len(words), 20_000):
                    chunk = words[i : i + 20_000]
                    w.add_stems(zip(chunk, stem_words(chunk)))
                    bar.update(len(chunk))
            resources.append("stem map")
            params["stem_vocabulary"] = {
                "sources": ["paraphrase-table tokens", "synset words without '_'", "function words"],
                "words": len(words),
            }
        elif snowball is not None:
            import shutil

            use_jar = stems == "jar" or (stems == "auto" and shutil.which("java") is not None)
            if use_jar:
                pairs, info = stem_corrections(lang, snowball, rel.jar)
                w.add_stems(pairs)
                w.add_source(
                    "wordfreq",
                    kind="word-list",
                    description=f"vocabulary of the stem corrections: {info['vocabulary']}",
                    licence="wordfreq: Apache-2.0 code; data CC BY-SA 4.0",
                    sha256=hashlib.sha256("\n".join(sorted({p[0] for p in pairs})).encode("utf-8")).hexdigest(),
                    location=f"pypi:wordfreq=={_package_version('wordfreq')}",
                )
                params["stem_corrections"] = info
                resources.append(f"stem corrections ({len(pairs)} words where Meteor 1.5's stemmer differs)")
            else:
                params["stem_corrections"] = None

        w.set_meta(
            "description",
            f"Meteor 1.5 {name.capitalize()} resources imported from the official release: "
            + (", ".join(resources) if resources else "no resource files (stemmer record only)"),
        )
        w.set_meta("build_params", json.dumps(params, sort_keys=True))
        w.set_meta("built_at", _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat())
    return out


def default_bundle_path(lang: str, out_dir: "os.PathLike[str] | str") -> Path:
    """Where a build into ``out_dir`` puts the bundle of ``lang``: ``<out_dir>/<lang>.sqlite``."""
    return Path(out_dir) / f"{lang}{BUNDLE_SUFFIX}"
