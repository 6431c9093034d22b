"""``meteor-build`` commands that build resources from corpora, wordfreq and wordnets.

Registered on the ``meteor-build`` Typer app by :func:`register`:

* ``function-words`` -- function words from a corpus or wordfreq;
* ``stems`` -- a stem map over corpus / wordfreq / wordnet vocabulary;
* ``synonyms`` -- synonym sets from a WordNet database directory or WN-LMF XML;
* ``bundle`` -- any combination of those in one bundle;
* ``compare-synonyms`` -- agreement of WordNet-built synonyms with Meteor 1.5's, and scores with each;
* ``compare-function-words`` -- overlap of a built function-word list with Meteor 1.5's.

Each command calls the library (:mod:`.compose` and the resource modules);
library errors become one line on stderr (``meteor-build: error: ...``) and exit
code 1, usage errors exit with 2.  Every command writing a bundle takes
``--base BUNDLE`` to copy the resources it does not build from an existing
bundle (``--base`` may be ``--out`` itself: the bundle is then updated in place,
atomically).
"""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set

import typer

from meteor_lite.bundle import BundleError

from .inputs import SourceError

#: Exceptions reported as a one-line error with exit code 1.
_ERRORS = (SourceError, BundleError, OSError, sqlite3.Error, ValueError)


def _fail(msg: str, code: int = 1) -> typer.Exit:
    typer.echo(f"meteor-build: error: {msg}", err=True)
    return typer.Exit(code)


@contextmanager
def _library_errors() -> Iterator[None]:
    from .official import OfficialReleaseError

    try:
        yield
    except (*_ERRORS, OfficialReleaseError) as exc:
        msg = str(exc) or type(exc).__name__
        if isinstance(exc, sqlite3.Error):
            msg = f"SQLite: {msg}"
        raise _fail(msg) from None


def _nonbreaking(spec: str, lang: str):
    """Resolve ``--nonbreaking``: auto | official | none | a prefixes file."""
    from .compose import official_nonbreaking, read_nonbreaking_file
    from .official import OfficialReleaseError

    if spec == "none":
        return None
    if spec in ("auto", "official"):
        try:
            return official_nonbreaking(lang)
        except OfficialReleaseError as exc:
            if spec == "official":
                raise
            typer.echo(f"meteor-build: warning: no non-breaking prefixes ({exc})", err=True)
            return None
    return read_nonbreaking_file(spec)


class FunctionWordsFrom(str, Enum):
    corpus = "corpus"
    wordfreq = "wordfreq"
    none = "none"


class StemVocabulary(str, Enum):
    corpus = "corpus"
    wordfreq = "wordfreq"
    synonyms = "synonyms"


class WordnetIds(str, Enum):
    offset = "offset"
    pos_offset = "pos-offset"


class LmfIds(str, Enum):
    ordinal = "ordinal"
    offset = "offset"
    pos_offset = "pos-offset"


def _build(
    *,
    lang: str,
    out: Path,
    corpus: List[Path],
    max_lines: Optional[int],
    corpus_licence: Optional[str],
    function_words: str,
    threshold: float,
    stems_from: List[str],
    stemmer: Optional[str],
    wordfreq_top: Optional[int],
    min_count: int,
    wordnet: Optional[Path],
    wordnet_ids: str,
    lmf: Optional[Path],
    lmf_ids: str,
    lexicons: List[str],
    lmf_language: Optional[str],
    nonbreaking: str,
    base: Optional[Path],
    name: Optional[str],
    version: str,
    show_progress: bool,
    store_synonyms: bool = True,
) -> None:
    """Shared body of the bundle-writing commands.

    Reads the sources asked for, builds each resource and writes one bundle;
    with ``store_synonyms=False`` a wordnet only feeds the stem vocabulary.
    """
    from .compose import DEFAULT_VERSION, build_bundle
    from .function_words import count_tokens, function_words_from_corpus, function_words_from_wordfreq
    from .stems import corpus_vocabulary, lexicon_vocabulary, make_stem_map, snowball_algorithm, wordfreq_vocabulary

    started = time.perf_counter()
    with _library_errors():
        algorithm = (stemmer or snowball_algorithm(lang)) if stems_from else None  # fail before reading anything
        nb = _nonbreaking(nonbreaking, lang)
        prefixes = nb.prefixes if nb is not None else {}
        counts = None
        if corpus and (function_words == "corpus" or "corpus" in stems_from):
            counts = count_tokens(corpus, lang, nonbreaking=prefixes, max_lines=max_lines, show_progress=show_progress)
        fw = None
        if function_words == "corpus":
            fw = function_words_from_corpus(
                corpus, lang, threshold=threshold, nonbreaking=prefixes, counts=counts, licence=corpus_licence,
                max_lines=max_lines,
            )
        elif function_words == "wordfreq":
            fw = function_words_from_wordfreq(lang, threshold=threshold, nonbreaking=prefixes, show_progress=show_progress)
        syn = None
        if wordnet is not None:
            from .wordnet import read_wndb

            syn = read_wndb(wordnet, id_scheme=wordnet_ids, show_progress=show_progress)
        elif lmf is not None:
            from .lmf import read_lmf

            syn = read_lmf(
                lmf, lexicons=lexicons or None, language=_lmf_language(lang, lmf_language, lexicons), id_scheme=lmf_ids,
                show_progress=show_progress,
            )
        sm = None
        if stems_from:
            vocab: Set[str] = set()
            sources = []
            vparams: Dict[str, object] = {}
            if "corpus" in stems_from:
                assert counts is not None
                v = corpus_vocabulary(counts, min_count)
                vocab |= v
                sources += counts.sources
                vparams["corpus"] = {"min_count": min_count, "words": len(v), "lines": counts.lines}
            if "wordfreq" in stems_from:
                v, src = wordfreq_vocabulary(lang, top_n=wordfreq_top, nonbreaking=prefixes, show_progress=show_progress)
                vocab |= v
                sources.append(src)
                vparams["wordfreq"] = {"top_n": wordfreq_top, "words": len(v)}
            if "synonyms" in stems_from:
                assert syn is not None
                v = lexicon_vocabulary(syn.synsets, syn.exceptions)
                vocab |= v
                sources += syn.sources
                vparams["synonyms"] = {"words": len(v), "from": syn.params.get("source")}
            assert algorithm is not None
            sm = make_stem_map(vocab, algorithm, sources=_unique(sources), vocabulary_params=vparams, show_progress=show_progress)
        res = build_bundle(
            lang,
            out,
            function_words=fw,
            stems=sm,
            synonyms=syn if store_synonyms else None,
            nonbreaking=nb,
            base=base,
            name=name,
            version=version or DEFAULT_VERSION,
            show_progress=show_progress,
        )
    typer.echo(f"wrote {res.summary()}; {time.perf_counter() - started:.1f} s in all")


def _lmf_language(lang: str, option: Optional[str], lexicons: List[str]) -> Optional[str]:
    """The LMF ``language`` filter: ``--lmf-language`` ('any' = no filter), else the bundle's language
    (in LMF's spelling) unless ``--lexicon`` picks lexicons by id."""
    if option is not None:
        return None if option == "any" else option
    if lexicons:
        return None
    return {"cz": "cs", "se": "sv", "no": "nb"}.get(lang, lang)


def _unique(sources: list) -> list:
    seen: Dict[str, object] = {}
    for s in sources:
        seen.setdefault(s.name, s)
    return list(seen.values())


# -- options shared by the commands ------------------------------------------------------

_LANG = typer.Option(..., "--lang", "-l", help="Language code of the bundle (e.g. en, de, cz, pl).")
_OUT = typer.Option(..., "--out", "-o", help="Bundle file to write (atomically).")
_CORPUS = typer.Option(
    [], "--corpus", "-c", help="Monolingual corpus, one segment per line (plain, .gz, .xz or .bz2); repeatable."
)
_MAX_LINES = typer.Option(None, "--max-lines", min=1, help="Read at most this many corpus lines in all.")
_CORPUS_LICENCE = typer.Option(None, "--corpus-licence", help="Licence recorded for the corpus files.")
_THRESHOLD = typer.Option(1e-3, "--threshold", help="Relative frequency at or above which a word is a function word.")
_STEMMER = typer.Option(
    None, "--stemmer", help="Snowball algorithm (e.g. english, porter, german); default: the language's."
)
_WF_TOP = typer.Option(None, "--wordfreq-top", min=1, help="Take only the N most frequent words of wordfreq's list.")
_MIN_COUNT = typer.Option(1, "--min-count", min=1, help="Corpus words seen fewer times stay out of the stem map.")
_WORDNET = typer.Option(
    None, "--wordnet", help="Princeton WordNet database directory (data.*, *.exc), e.g. /usr/share/wordnet."
)
_WORDNET_IDS = typer.Option(
    WordnetIds.offset, "--wordnet-ids", help="Synset ids: offset (Meteor 1.5's) or pos-offset (offset*10+POS)."
)
_LMF = typer.Option(None, "--lmf", help="WN-LMF XML file (Open Multilingual Wordnet / Open English WordNet).")
_LMF_IDS = typer.Option(
    LmfIds.ordinal, "--lmf-ids", help="Synset ids: ordinal, or offset / pos-offset for ids ending in -<8 digits>-<pos>."
)
_LEXICON = typer.Option([], "--lexicon", help="Only this LMF lexicon id (repeatable).")
_LMF_LANGUAGE = typer.Option(
    None, "--lmf-language", help="Only the LMF lexicons with this language attribute ('any': all; default: --lang, "
    "unless --lexicon is given)."
)
_NONBREAKING = typer.Option(
    "auto",
    "--nonbreaking",
    help="Non-breaking prefixes for the normaliser (also stored in the bundle): auto (Meteor 1.5's list when it "
    "has one and the build extra is installed), official, none, or a prefixes file.",
)
_BASE = typer.Option(None, "--base", help="Copy the resources not built here from this bundle (may equal --out).")
_NAME = typer.Option(None, "--name", help="Bundle name (default: the language code).")
_VERSION = typer.Option("0.1.0", "--bundle-version", help="Semantic version of the bundle.")
_PROGRESS = typer.Option(True, "--progress/--no-progress", help="Progress bars (only on a terminal).")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the ``meteor-build`` app."""

    @app.command("function-words")
    def function_words_cmd(
        lang: str = _LANG,
        out: Optional[Path] = typer.Option(None, "--out", "-o", help="Bundle file to write (atomically)."),
        corpus: List[Path] = _CORPUS,
        wordfreq: bool = typer.Option(False, "--wordfreq", help="Use wordfreq's frequency list instead of a corpus."),
        threshold: float = _THRESHOLD,
        max_lines: Optional[int] = _MAX_LINES,
        corpus_licence: Optional[str] = _CORPUS_LICENCE,
        nonbreaking: str = _NONBREAKING,
        print_words: bool = typer.Option(False, "--print", help="Print the words (with frequencies) to stdout."),
        base: Optional[Path] = _BASE,
        name: Optional[str] = _NAME,
        version: str = _VERSION,
        progress: bool = _PROGRESS,
    ) -> None:
        """Function words: tokens at relative frequency >= threshold (Denkowski & Lavie 2011).

        Tokens are the scorer's (Meteor's normaliser, lower-cased, punctuation kept).
        """
        if bool(corpus) == wordfreq:
            raise typer.BadParameter("give either --corpus FILE (repeatable) or --wordfreq", param_hint="--corpus")
        if out is None and not print_words:
            raise typer.BadParameter("give --out BUNDLE and/or --print", param_hint="--out")
        if not threshold > 0:
            raise typer.BadParameter("must be > 0", param_hint="--threshold")
        if print_words:
            from .function_words import function_words_from_corpus, function_words_from_wordfreq

            with _library_errors():
                nb = _nonbreaking(nonbreaking, lang)
                prefixes = nb.prefixes if nb is not None else {}
                if wordfreq:
                    fw = function_words_from_wordfreq(lang, threshold=threshold, nonbreaking=prefixes, show_progress=progress)
                else:
                    fw = function_words_from_corpus(
                        corpus, lang, threshold=threshold, nonbreaking=prefixes, max_lines=max_lines, show_progress=progress
                    )
            for w in fw.words:
                typer.echo(f"{w}\t{fw.frequencies[w]:.6g}")
            if out is None:
                return
        _build(
            lang=lang, out=out, corpus=corpus, max_lines=max_lines, corpus_licence=corpus_licence,  # type: ignore[arg-type]
            function_words="wordfreq" if wordfreq else "corpus", threshold=threshold, stems_from=[], stemmer=None,
            wordfreq_top=None, min_count=1, wordnet=None, wordnet_ids="offset", lmf=None, lmf_ids="ordinal",
            lexicons=[], lmf_language=None, nonbreaking=nonbreaking, base=base, name=name, version=version,
            show_progress=progress,
        )

    @app.command("stems")
    def stems_cmd(
        lang: str = _LANG,
        out: Path = _OUT,
        stemmer: Optional[str] = _STEMMER,
        corpus: List[Path] = _CORPUS,
        wordfreq: bool = typer.Option(False, "--wordfreq", help="Add the words of wordfreq's list to the vocabulary."),
        wordfreq_top: Optional[int] = _WF_TOP,
        wordnet: Optional[Path] = _WORDNET,
        lmf: Optional[Path] = _LMF,
        lexicon: List[str] = _LEXICON,
        lmf_language: Optional[str] = _LMF_LANGUAGE,
        min_count: int = _MIN_COUNT,
        max_lines: Optional[int] = _MAX_LINES,
        corpus_licence: Optional[str] = _CORPUS_LICENCE,
        nonbreaking: str = _NONBREAKING,
        base: Optional[Path] = _BASE,
        name: Optional[str] = _NAME,
        version: str = _VERSION,
        progress: bool = _PROGRESS,
    ) -> None:
        """Stem map: word -> Snowball stem over corpus / wordfreq / wordnet words; stemmer name and version recorded.

        Only the stem map (and non-breaking prefixes) is written; with --wordnet/--lmf
        their lemmas join the vocabulary but the synonym sets are not stored (use `bundle`).
        """
        if wordnet is not None and lmf is not None:
            raise typer.BadParameter("give --wordnet or --lmf, not both", param_hint="--lmf")
        stems_from = (["corpus"] if corpus else []) + (["wordfreq"] if wordfreq else [])
        stems_from += ["synonyms"] if (wordnet is not None or lmf is not None) else []
        if not stems_from:
            raise typer.BadParameter("give a vocabulary: --corpus, --wordfreq, --wordnet and/or --lmf", param_hint="--corpus")
        _build(
            lang=lang, out=out, corpus=corpus, max_lines=max_lines, corpus_licence=corpus_licence,
            function_words="none", threshold=1e-3, stems_from=stems_from, stemmer=stemmer, wordfreq_top=wordfreq_top,
            min_count=min_count, wordnet=wordnet, wordnet_ids="offset", lmf=lmf, lmf_ids="ordinal", lexicons=lexicon,
            lmf_language=lmf_language, nonbreaking=nonbreaking, base=base, name=name, version=version,
            show_progress=progress, store_synonyms=False,
        )

    @app.command("synonyms")
    def synonyms_cmd(
        lang: str = _LANG,
        out: Path = _OUT,
        wordnet: Optional[Path] = _WORDNET,
        wordnet_ids: WordnetIds = _WORDNET_IDS,
        lmf: Optional[Path] = _LMF,
        lmf_ids: LmfIds = _LMF_IDS,
        lexicon: List[str] = _LEXICON,
        lmf_language: Optional[str] = _LMF_LANGUAGE,
        nonbreaking: str = typer.Option("none", "--nonbreaking", help=_NONBREAKING.help),
        base: Optional[Path] = _BASE,
        name: Optional[str] = _NAME,
        version: str = _VERSION,
        progress: bool = _PROGRESS,
    ) -> None:
        """Synonym sets (with morphological exceptions) from a WordNet database directory or a WN-LMF file."""
        if (wordnet is None) == (lmf is None):
            raise typer.BadParameter("give either --wordnet DIR or --lmf FILE", param_hint="--wordnet")
        _build(
            lang=lang, out=out, corpus=[], max_lines=None, corpus_licence=None, function_words="none", threshold=1e-3,
            stems_from=[], stemmer=None, wordfreq_top=None, min_count=1, wordnet=wordnet, wordnet_ids=wordnet_ids.value,
            lmf=lmf, lmf_ids=lmf_ids.value, lexicons=lexicon, lmf_language=lmf_language, nonbreaking=nonbreaking,
            base=base, name=name, version=version, show_progress=progress,
        )

    @app.command("bundle")
    def bundle_cmd(
        lang: str = _LANG,
        out: Path = _OUT,
        corpus: List[Path] = _CORPUS,
        wordfreq: bool = typer.Option(
            False, "--wordfreq", help="Use wordfreq's list: for function words when no corpus is given, and as stem vocabulary."
        ),
        function_words: Optional[FunctionWordsFrom] = typer.Option(
            None, "--function-words", help="Where function words come from (default: corpus if given, else wordfreq if --wordfreq)."
        ),
        threshold: float = _THRESHOLD,
        stems: bool = typer.Option(True, "--stems/--no-stems", help="Build a stem map."),
        stems_from: List[StemVocabulary] = typer.Option(
            [], "--stems-from", help="Stem-map vocabulary (repeatable; default: every source given)."
        ),
        stemmer: Optional[str] = _STEMMER,
        wordfreq_top: Optional[int] = _WF_TOP,
        min_count: int = _MIN_COUNT,
        wordnet: Optional[Path] = _WORDNET,
        wordnet_ids: WordnetIds = _WORDNET_IDS,
        lmf: Optional[Path] = _LMF,
        lmf_ids: LmfIds = _LMF_IDS,
        lexicon: List[str] = _LEXICON,
        lmf_language: Optional[str] = _LMF_LANGUAGE,
        max_lines: Optional[int] = _MAX_LINES,
        corpus_licence: Optional[str] = _CORPUS_LICENCE,
        nonbreaking: str = _NONBREAKING,
        base: Optional[Path] = _BASE,
        name: Optional[str] = _NAME,
        version: str = _VERSION,
        progress: bool = _PROGRESS,
    ) -> None:
        """A bundle from a corpus, wordfreq and/or a wordnet: function words, stem map, synonyms, prefixes."""
        if wordnet is not None and lmf is not None:
            raise typer.BadParameter("give --wordnet or --lmf, not both", param_hint="--lmf")
        fw = function_words.value if function_words is not None else ("corpus" if corpus else ("wordfreq" if wordfreq else "none"))
        if fw == "corpus" and not corpus:
            raise typer.BadParameter("function words from a corpus need --corpus", param_hint="--function-words")
        has_syn = wordnet is not None or lmf is not None
        if stems_from:
            chosen = [s.value for s in stems_from]
        else:
            chosen = (["corpus"] if corpus else []) + (["wordfreq"] if wordfreq else []) + (["synonyms"] if has_syn else [])
        need = {"corpus": bool(corpus), "wordfreq": True, "synonyms": has_syn}
        for s in chosen:
            if not need[s]:
                raise typer.BadParameter(f"stem vocabulary {s!r} needs its source option", param_hint="--stems-from")
        if not stems:
            chosen = []
        _build(
            lang=lang, out=out, corpus=corpus, max_lines=max_lines, corpus_licence=corpus_licence, function_words=fw,
            threshold=threshold, stems_from=chosen, stemmer=stemmer, wordfreq_top=wordfreq_top, min_count=min_count,
            wordnet=wordnet, wordnet_ids=wordnet_ids.value, lmf=lmf, lmf_ids=lmf_ids.value, lexicons=lexicon,
            lmf_language=lmf_language, nonbreaking=nonbreaking, base=base, name=name, version=version,
            show_progress=progress,
        )

    @app.command("compare-synonyms")
    def compare_synonyms_cmd(
        wordnet: Optional[Path] = typer.Option(
            None, "--wordnet", help="WordNet database directory (default /usr/share/wordnet)."
        ),
        lmf: Optional[Path] = typer.Option(None, "--lmf", help="Compare a WN-LMF English wordnet instead."),
        ids: Optional[str] = typer.Option(
            None, "--ids", help="Synset id scheme of ours: offset (default) or pos-offset (with --lmf also ordinal)."
        ),
        official: Optional[Path] = typer.Option(
            None, "--official", help="Meteor's synonyms: its jar or a bundle imported from it (default: pycocoevalcap's jar)."
        ),
        score: bool = typer.Option(False, "--score", help="Also score with the official bundle and with ours swapped in."),
        base: Optional[Path] = typer.Option(
            None, "--base", help="The official English bundle for --score (default: the en bundle the scorer finds)."
        ),
        hyp: Optional[Path] = typer.Option(None, "--hyp", help="Hypothesis file for --score (default: Meteor's system1.hyp)."),
        ref: List[Path] = typer.Option([], "--ref", help="Reference file(s) for --score (default: Meteor's reference)."),
        keep_bundle: Optional[Path] = typer.Option(None, "--keep-bundle", help="Keep the bundle with our synonyms here."),
        as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
        progress: bool = _PROGRESS,
    ) -> None:
        """How WordNet-3.0-built English synonyms agree with Meteor 1.5's (overlaps both ways; scores with each)."""
        from .compare import format_comparison, run_synonym_comparison

        if (hyp is None) != (not ref):
            raise typer.BadParameter("give --hyp and --ref together", param_hint="--hyp")
        with _library_errors():
            report = run_synonym_comparison(
                wordnet=wordnet, lmf=lmf, id_scheme=ids, official=official, score=score, base=base,
                hyp=hyp, refs=ref, keep_bundle=keep_bundle, show_progress=progress,
            )
        typer.echo(json.dumps(report, indent=1, ensure_ascii=False) if as_json else format_comparison(report))

    @app.command("compare-function-words")
    def compare_function_words_cmd(
        lang: str = _LANG,
        corpus: List[Path] = _CORPUS,
        wordfreq: bool = typer.Option(False, "--wordfreq", help="Use wordfreq's list instead of a corpus."),
        threshold: float = _THRESHOLD,
        max_lines: Optional[int] = _MAX_LINES,
        nonbreaking: str = _NONBREAKING,
        as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
        progress: bool = _PROGRESS,
    ) -> None:
        """Overlap of a built function-word list with Meteor 1.5's function/<language>.words."""
        from .compare import overlap
        from .function_words import function_words_from_corpus, function_words_from_wordfreq
        from .official import LANGUAGE_NAMES, read_jar_text

        if bool(corpus) == wordfreq:
            raise typer.BadParameter("give either --corpus FILE (repeatable) or --wordfreq", param_hint="--corpus")
        code = {"cs": "cz", "sv": "se", "nb": "no"}.get(lang, lang)
        if code not in LANGUAGE_NAMES:
            raise typer.BadParameter(f"Meteor 1.5 has no function-word list for {lang!r}", param_hint="--lang")
        with _library_errors():
            member = f"function/{LANGUAGE_NAMES[code]}.words"
            theirs = [w for w in read_jar_text(member).splitlines() if w.strip()]
            nb = _nonbreaking(nonbreaking, lang)
            prefixes = nb.prefixes if nb is not None else {}
            if wordfreq:
                fw = function_words_from_wordfreq(lang, threshold=threshold, nonbreaking=prefixes, show_progress=progress)
            else:
                fw = function_words_from_corpus(
                    corpus, lang, threshold=threshold, nonbreaking=prefixes, max_lines=max_lines, show_progress=progress
                )
        if not theirs:
            raise _fail(f"Meteor 1.5's {member} is empty: nothing to compare with")
        report = {
            "ours": fw.params,
            "theirs": f"meteor-1.5.jar!{member}",
            "overlap": overlap(fw.words, theirs),
            "only_ours": sorted(set(fw.words) - set(theirs)),
            "only_theirs": sorted(set(theirs) - set(fw.words)),
        }
        if as_json:
            typer.echo(json.dumps(report, indent=1, ensure_ascii=False))
            return
        o = report["overlap"]
        typer.echo(
            f"ours {o['ours']}  theirs {o['theirs']}  both {o['both']}  "
            f"both/theirs {100 * o['of_theirs']:.1f}%  both/ours {100 * o['of_ours']:.1f}%"
        )
        typer.echo("only ours:   " + " ".join(report["only_ours"]))
        typer.echo("only theirs: " + " ".join(report["only_theirs"]))
