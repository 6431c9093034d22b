"""Import the resources of the official Meteor 1.5 release into bundles (``meteor-build import-official``).

The release is read from the ``pycocoevalcap`` package through :mod:`..jar`:
``meteor-1.5.jar`` carries the function-word lists, the WordNet synonym files
and the non-breaking prefix lists; ``data/paraphrase-en.gz`` is the English
paraphrase table (formats: :mod:`.formats`).  Meteor 1.5 itself applies
``function/english.words`` whatever the language (measured with the jar), so by
default every bundle gets that list; see ``function_words`` in
:func:`build_official_bundle`.  The bundle is written by the one pipeline
(:func:`..bundle.pipeline.build_bundle`) from a :class:`~..bundle.spec.BundleSpec`.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Dict, Iterator, List, Mapping, Optional, Set, Tuple

from meteor_lite.resources.jarformat import open_table_gzip
from meteor_lite.resources.locate import BUNDLE_SUFFIX

from ..bundle.paralists import ParaphraseColumns
from ..bundle.pipeline import build_bundle
from ..bundle.spec import BundleSpec, Paraphrases
from ..errors import ImportOfficialError
from ..lexical.function_words import FunctionWords
from ..lexical.nonbreaking import NonbreakingPrefixes
from ..lexical.stems import STEMMER_PACKAGE, StemMap, StemmerInfo, make_stemmer
from ..sources import Source, progress, sha256_file
from ..synonyms.wndb import Synonyms
from .formats import FAST_BLOCK_CHARS, fast_paraphrase_batches, parse_exceptions, parse_function_words, parse_synsets
from .release import LANGUAGE_NAMES, METEOR_LICENCE, package_version, read_nonbreaking_prefixes
from .stems import STEM_CHOICES, BackgroundStems, snowball_language, stem_corrections

__all__ = [
    "OFFICIAL_BUNDLE_VERSION",
    "OFFICIAL_LANGUAGES",
    "FUNCTION_WORD_CHOICES",
    "build_official_bundle",
    "official_spec",
    "default_bundle_path",
]

#: Version given to bundles imported from the official release (the resources of Meteor 1.5).
OFFICIAL_BUNDLE_VERSION = "1.5.0"

#: Meteor's short language codes, in the order ``--lang all`` builds them.
OFFICIAL_LANGUAGES: Tuple[str, ...] = tuple(LANGUAGE_NAMES)

#: Characters of the paraphrase table read per batch handed to the writer (about 75,000 English pairs).
PARAPHRASE_BLOCK_CHARS = FAST_BLOCK_CHARS

#: Words known before the paraphrase table is read from which they are stemmed by a worker process
#: beside the reading (English: 83,000 WordNet words); fewer are stemmed in process.
BACKGROUND_STEM_WORDS = 20_000

#: What ``function_words=`` takes: the list Meteor 1.5 applies, or the jar's list for the language.
FUNCTION_WORD_CHOICES: Tuple[str, ...] = ("meteor", "language")

#: Meteor 1.5 applies ``function/english.words`` whatever ``-l`` says (measured with the jar).
METEOR_FUNCTION_WORDS_LANGUAGE = "english"

#: Licence of the WordNet files inside the jar.
WORDNET_LICENCE = "WordNet 3.0 license (Princeton University); text in meteor-1.5.jar!synonym/COPYING.WORDNET"


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
        from .. import jar as _jar

        return _jar.read_jar_text(member, jar=self.jar)


def _locate(lang: str, jar: Optional[Path], paraphrase_file: Optional[Path]) -> _Release:
    """The files to import: pycocoevalcap's release unless ``jar`` is given.

    With the default release, English takes pycocoevalcap's paraphrase table; with
    an explicit ``jar``, paraphrases are imported only from an explicit ``paraphrase_file``.
    """
    from .. import jar as _jar

    if jar is None:
        jar = _jar.find_jar()
        pkg = f"pycocoevalcap=={package_version('pycocoevalcap')}"
        jar_location = f"PyPI {pkg}: pycocoevalcap/meteor/meteor-1.5.jar"
        if paraphrase_file is None and lang == "en":
            paraphrase_file = _jar.paraphrase_file(lang)
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
    """Open a (gzipped) text file for line iteration; return ``(text stream, raw byte stream)``.

    A gzipped table is decompressed within :func:`~meteor_lite.resources.jarformat.open_table_gzip`'s cap (a
    ratio of the file's size): a decompression bomb is refused naming the file and line."""
    raw = open(path, "rb")
    try:
        magic = raw.read(2)
        raw.seek(0)
        stream = open_table_gzip(raw, str(path)) if magic == b"\x1f\x8b" else raw
        text = io.TextIOWrapper(stream, encoding="utf-8", newline=None)  # \n, \r\n, \r end a line
    except BaseException:
        raw.close()
        raise
    return text, raw


def _paraphrase_batches(path: Path, tokens: Set[str], *, limit: Optional[int], show: bool) -> Iterator[ParaphraseColumns]:
    """The paraphrase table's pairs in file order, in batches; the tokens seen go to ``tokens``."""
    source = str(path)
    text, raw = _open_text_lines(path)
    # GzipFile does not close a file object it was given: close `raw` too.
    with raw, text, progress(show, total=path.stat().st_size, unit="B", unit_scale=True, desc="paraphrases") as bar:
        pos = 0
        try:
            for batch in fast_paraphrase_batches(text, source, limit=limit, block_chars=PARAPHRASE_BLOCK_CHARS):
                yield batch
                tokens.update(" ".join(dict.fromkeys(batch.phrases)).split(" "))
                tokens.update(" ".join(batch.paraphrases).split(" "))
                new = raw.tell()
                bar.update(new - pos)
                pos = new
        except UnicodeDecodeError as exc:
            raise ImportOfficialError(f"{source}: not valid UTF-8 ({exc})") from None
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise ImportOfficialError(f"{source}: corrupt or truncated gzip file ({exc})") from None


def _english_stem_pairs(
    vocab: Set[str], snowball: str, info: Dict[str, object], show: bool, early: Optional[BackgroundStems]
) -> Iterator[Tuple[str, str]]:
    """Stems of the whole vocabulary, computed when written (after the paraphrases filled ``vocab``).

    ``early`` holds the stems of the words known before the paraphrase table was read
    (computed beside it); the others are stemmed here.
    """
    vocab.discard("")
    words = sorted(vocab)
    info["words"] = len(words)
    known = early.stems() if early is not None else {}
    rest = [w for w in words if w not in known]
    stem_words = make_stemmer(snowball)
    with progress(show, total=len(rest), unit="word", unit_scale=True, desc="stems") as bar:
        for i in range(0, len(rest), 20_000):
            chunk = rest[i : i + 20_000]
            known.update(zip(chunk, stem_words(chunk)))
            bar.update(len(chunk))
    for word in words:
        yield word, known[word]


def _check_arguments(lang: str, max_paraphrases: Optional[int], stems: str, function_words: str) -> None:
    if lang not in LANGUAGE_NAMES:
        raise ImportOfficialError(f"unknown language {lang!r}: Meteor's languages are {', '.join(OFFICIAL_LANGUAGES)}")
    if max_paraphrases is not None and max_paraphrases < 0:
        raise ImportOfficialError(f"max_paraphrases must be >= 0 (got {max_paraphrases})")
    if stems not in STEM_CHOICES:
        raise ImportOfficialError(f"stems must be one of {', '.join(STEM_CHOICES)} (got {stems!r})")
    if function_words not in FUNCTION_WORD_CHOICES:
        raise ImportOfficialError(
            f"function_words must be one of {', '.join(FUNCTION_WORD_CHOICES)} (got {function_words!r})"
        )


class _Import:
    """The state of one import: what is read, what the bundle will record."""

    def __init__(self, lang: str, rel: _Release, function_words: str, show: bool):
        from .. import jar as _jar

        self.lang, self.rel, self.choice, self.show = lang, rel, function_words, show
        self.name = LANGUAGE_NAMES[lang]
        self.members = set(_jar.jar_members("", jar=rel.jar))
        self.fw_member = f"function/{METEOR_FUNCTION_WORDS_LANGUAGE if function_words == 'meteor' else self.name}.words"
        self.used = [m for m in (self.fw_member, f"nonbreaking/{self.name}.prefixes") if m in self.members]
        self.params: Dict[str, object] = {"builder": "meteor-build import-official", "language_name": self.name}
        self.resources: List[str] = []
        self.vocab: Set[str] = set()
        self.stem_info: Dict[str, object] = {}

    def function_words(self) -> FunctionWords:
        fw_member, rel = self.fw_member, self.rel
        words = parse_function_words(rel.read(fw_member), rel.member(fw_member)) if fw_member in self.members else []
        self.params["function_words"] = {
            "choice": self.choice,
            "member": fw_member if fw_member in self.members else None,
            "note": (
                "the list Meteor 1.5 applies: function/english.words for every language (checked with the jar)"
                if self.choice == "meteor"
                else f"the jar's list for {self.name} (Meteor 1.5 itself applies function/english.words)"
            ),
        }
        if words:
            english_for_all = self.lang != "en" and self.choice == "meteor"
            self.resources.append(
                "function words" + (" (English: Meteor 1.5 applies them to every language)" if english_for_all else "")
            )
        return FunctionWords(words=words, frequencies={}, sources=[], params={})

    def nonbreaking(self) -> NonbreakingPrefixes:
        prefixes = read_nonbreaking_prefixes(self.lang, jar=self.rel.jar)
        if prefixes:
            self.resources.append("non-breaking prefixes")
        return NonbreakingPrefixes(prefixes)

    def synonyms(self) -> Synonyms:
        """WordNet synonym sets and exceptions (English only)."""
        from .. import jar as _jar

        rel = self.rel
        syn_member, exc_member = "synonym/english.synsets", "synonym/english.exceptions"
        synsets = parse_synsets(rel.read(syn_member), rel.member(syn_member))
        exceptions = parse_exceptions(rel.read(exc_member), rel.member(exc_member))
        sources = [
            Source(
                member.rsplit("/", 1)[-1],
                kind="wordnet",
                description=f"{what} ({member} inside meteor-1.5.jar)",
                licence=WORDNET_LICENCE,
                sha256=hashlib.sha256(_jar.read_jar_member(member, jar=rel.jar)).hexdigest(),
                location=f"{rel.jar_location}!{member}",
            )
            for member, what in (
                (syn_member, "WordNet 3.0 synonym sets: word -> synset ids"),
                (exc_member, "WordNet 3.0 morphological exceptions: inflected form -> base form"),
            )
        ]
        self.used += [syn_member, exc_member]
        self.resources += ["synonyms", "morphological exceptions"]
        self.vocab.update(word for word, _ in synsets if "_" not in word)
        return Synonyms(synsets=synsets, exceptions=exceptions, sources=sources)

    def jar_source(self) -> Source:
        rel = self.rel
        return Source(
            "meteor-1.5.jar",
            kind="official-release",
            description="Meteor 1.5 (Denkowski & Lavie), the official release; files used: " + (", ".join(self.used) or "none"),
            licence=METEOR_LICENCE,
            sha256=rel.sha256(rel.jar),
            location=rel.jar_location,
        )

    def paraphrases(self, limit: Optional[int]) -> Paraphrases:
        rel = self.rel
        assert rel.paraphrase_file is not None
        given = not rel.paraphrase_location.startswith("PyPI ")  # a table the user gave (bundle install --paraphrase)
        src = Source(
            rel.paraphrase_file.name,
            kind="paraphrase-table",
            description=(
                f"{self.name} paraphrase table {rel.paraphrase_file.name} given to the import (Meteor's format: "
                "groups of 3 lines: probability, phrase, paraphrase), e.g. the full Meteor 1.5 distribution's"
                if given else
                f"Meteor 1.5 {self.name} paraphrase table (pivoted from parallel corpora); "
                "groups of 3 lines: probability, phrase, paraphrase"
            ),
            licence="as given by its distributor (Meteor 1.5's tables: LGPL-2.1)" if given else METEOR_LICENCE,
            sha256=rel.sha256(rel.paraphrase_file),
            location=rel.paraphrase_location,
        )
        self.resources.append("paraphrases")
        rows = _paraphrase_batches(rel.paraphrase_file, self.vocab, limit=limit, show=self.show)
        return Paraphrases(rows=rows, sources=[src], params={"max_paraphrases": limit}, batched=True)

    def stems(self, snowball: Optional[str], fwords: List[str], stems: str) -> Optional[StemMap]:
        """English: a stem map over every word of the bundle; others: Meteor 1.5's corrections (with Java) or none."""
        if snowball is None:
            self.params["stemmer"] = None
            return None
        version = package_version(STEMMER_PACKAGE)
        self.params["stemmer"] = {"language": snowball, "package": STEMMER_PACKAGE, "version": version}
        info = StemmerInfo(snowball, STEMMER_PACKAGE, version)
        if self.lang == "en":
            self.vocab.update(fwords)
            self.vocab.discard("")
            self.resources.append("stem map")
            early = BackgroundStems(snowball, sorted(self.vocab)) if len(self.vocab) >= BACKGROUND_STEM_WORDS else None
            stem_pairs = _english_stem_pairs(self.vocab, snowball, self.stem_info, self.show, early)
            return StemMap(pairs=stem_pairs, stemmer=info)
        if not _use_jar_stems(stems):
            self.params["stem_corrections"] = None
            return StemMap(pairs=[], stemmer=info)
        pairs, corrections = stem_corrections(self.lang, snowball, self.rel.jar)
        src = Source(
            "wordfreq",
            kind="word-list",
            description=f"vocabulary of the stem corrections: {corrections['vocabulary']}",
            licence="wordfreq: Apache-2.0 code; data CC BY-SA 4.0",
            sha256=hashlib.sha256("\n".join(sorted({p[0] for p in pairs})).encode("utf-8")).hexdigest(),
            location=f"pypi:wordfreq=={package_version('wordfreq')}",
        )
        self.params["stem_corrections"] = corrections
        self.resources.append(f"stem corrections ({len(pairs)} words where Meteor 1.5's stemmer differs)")
        return StemMap(pairs=pairs, stemmer=info, sources=[src])

    def record(self, written: Mapping[str, Dict[str, object]]) -> Dict[str, object]:
        """The bundle's build_params (called by the pipeline once everything is written)."""
        params = dict(self.params)
        params["jar_members"] = self.used
        if "paraphrases" in written:
            params["paraphrases"] = {
                "max_paraphrases": written["paraphrases"]["max_paraphrases"],
                "pairs": written["paraphrases"]["pairs"],
                "order": "file order of each phrase's paraphrases",
                "tokenisation": "whitespace-separated tokens joined by single spaces",
            }
        if self.lang == "en" and "stems" in written:
            params["stem_vocabulary"] = {
                "sources": ["paraphrase-table tokens", "synset words without '_'", "function words"],
                "words": self.stem_info["words"],
            }
        return params

    def description(self) -> str:
        return (
            f"Meteor 1.5 {self.name.capitalize()} resources imported from the official release: "
            + (", ".join(self.resources) if self.resources else "no resource files (stemmer record only)")
        )


def _use_jar_stems(stems: str) -> bool:
    if stems == "jar":
        return True
    if stems != "auto":
        return False
    from .. import jar as _jar

    try:
        _jar.find_java()
    except _jar.JavaNotFoundError:
        return False
    return True


def official_spec(
    lang: str,
    *,
    progress: bool = True,
    max_paraphrases: Optional[int] = None,
    jar: "os.PathLike[str] | str | None" = None,
    paraphrase_file: "os.PathLike[str] | str | None" = None,
    function_words: str = "meteor",
    stems: str = "snowball",
    keep_probabilities: bool = False,
) -> BundleSpec:
    """The :class:`~..bundle.spec.BundleSpec` of Meteor 1.5's resources for ``lang`` (arguments: :func:`build_official_bundle`)."""
    _check_arguments(lang, max_paraphrases, stems, function_words)
    rel = _locate(lang, None if jar is None else Path(jar), None if paraphrase_file is None else Path(paraphrase_file))
    imp = _Import(lang, rel, function_words, progress)
    fw = imp.function_words()
    spec = BundleSpec(language=lang, name=lang, version=OFFICIAL_BUNDLE_VERSION, function_words=fw, nonbreaking=imp.nonbreaking(),
                      keep_probabilities=keep_probabilities)
    if lang == "en":
        spec.synonyms = imp.synonyms()
    spec.sources = [imp.jar_source()]
    if rel.paraphrase_file is not None:
        spec.paraphrases = imp.paraphrases(max_paraphrases)
    spec.stems = imp.stems(snowball_language(lang), fw.words, stems)
    spec.description = imp.description()
    spec.record = imp.record
    return spec


def build_official_bundle(lang: str, out: "os.PathLike[str] | str", *, progress: bool = True, **options: object) -> Path:
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

    ``stems`` (one of ``snowball``, ``jar``, ``auto``), for languages other than English:
    ``"snowball"`` (the default) adds no stem map: the scorer stems with Meteor 1.5's
    own stemmers, so the bundle is the same with or without Java; ``"jar"`` adds the
    *stem corrections*, a stem map of the words (wordfreq's 400,000 most frequent forms)
    on which Meteor 1.5's stemmer, run from the jar with Java, differs from
    ``snowballstemmer`` (for other tools that stem with ``snowballstemmer``; the
    scorer does not read it; about 20 s of CPU a language); ``"auto"`` is ``"jar"``
    when ``java`` is found.  (English needs no corrections: the two stemmers agree.)

    ``keep_probabilities`` stores the paraphrase table's probabilities (the
    scorer does not use them; the Meteor-format export does).

    ``jar`` and ``paraphrase_file`` replace the files taken from ``pycocoevalcap``
    (for tests and other copies of the release).  ``progress`` shows tqdm bars on
    long steps (only when stderr is a terminal).

    The bundle is written atomically: after any error or interruption there is
    no file at ``out`` (an older bundle there is left untouched).  Raises
    :class:`~..errors.ImportOfficialError` (:class:`~..errors.MalformedInputError`,
    with file and line, for a malformed resource file) or
    :class:`~..errors.OfficialReleaseError`.
    """
    Path(out).parent.mkdir(parents=True, exist_ok=True)  # as before: the directory exists even when reading fails
    spec = official_spec(lang, progress=progress, **options)  # type: ignore[arg-type]
    build_bundle(spec, out, progress=progress)
    return Path(out)


def default_bundle_path(lang: str, out_dir: "os.PathLike[str] | str") -> Path:
    """Where a build into ``out_dir`` puts the bundle of ``lang``: ``<out_dir>/<lang>.sqlite``."""
    return Path(out_dir) / f"{lang}{BUNDLE_SUFFIX}"
