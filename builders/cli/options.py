"""Options and choices shared by the ``meteor-build`` commands."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from .errors import out_file

#: Where bundles go unless told otherwise: None stands for the user bundle directory
#: (``$XDG_DATA_HOME/meteor-lite/bundles``, default ``~/.local/share/meteor-lite/bundles``), where the
#: scorer looks; resolved when a command runs (:func:`out_dir_or_default`).
DEFAULT_OUT_DIR: Optional[Path] = None
OUT_DIR_HELP = "(default: the user bundle directory, ~/.local/share/meteor-lite/bundles, where the scorer looks)"


def out_dir_or_default(out_dir: Optional[Path]) -> Path:
    """``out_dir``, or the user bundle directory when it is None."""
    if out_dir is not None:
        return out_dir
    from meteor_lite.resources.locate import user_bundle_dir

    return user_bundle_dir()


class FunctionWordsFrom(str, Enum):
    """Where function words come from."""

    corpus = "corpus"
    wordfreq = "wordfreq"
    none = "none"


class StemVocabulary(str, Enum):
    """A part of the stem-map vocabulary."""

    corpus = "corpus"
    wordfreq = "wordfreq"
    synonyms = "synonyms"


class WordnetIds(str, Enum):
    """Synset id schemes of a WordNet database."""

    offset = "offset"
    pos_offset = "pos-offset"


class LmfIds(str, Enum):
    """Synset id schemes of a WN-LMF file."""

    ordinal = "ordinal"
    offset = "offset"
    pos_offset = "pos-offset"


LANG = typer.Option(..., "--lang", "-l", help="Language code of the bundle (e.g. en, de, cz, pl).")
OUT = typer.Option(..., "--out", "-o", help="Bundle file to write (atomically).", callback=out_file)
CORPUS = typer.Option(
    [], "--corpus", "-c", help="Monolingual corpus, one segment per line (plain, .gz, .xz or .bz2); repeatable."
)
MAX_LINES = typer.Option(None, "--max-lines", min=1, help="Read at most this many corpus lines in all.")
CORPUS_LICENCE = typer.Option(None, "--corpus-licence", help="Licence recorded for the corpus files.")
THRESHOLD = typer.Option(1e-3, "--threshold", help="Relative frequency at or above which a word is a function word.")
STEMMER = typer.Option(
    None, "--stemmer",
    help="Snowball algorithm (e.g. english, porter, german); default: the language's.  czech, estonian, persian, "
    "polish, ... (Snowball 3, which the scorer's snowballstemmer lacks) run through PyStemmer (the lemmas extra) "
    "into a map-only stem map.",
)
WF_TOP = typer.Option(None, "--wordfreq-top", min=1, help="Take only the N most frequent words of wordfreq's list.")
MIN_COUNT = typer.Option(1, "--min-count", min=1, help="Corpus words seen fewer times stay out of the stem map.")
WORDNET = typer.Option(
    None, "--wordnet", help="Princeton WordNet database directory (data.*, *.exc), e.g. /usr/share/wordnet."
)
WORDNET_IDS = typer.Option(
    WordnetIds.offset, "--wordnet-ids", help="Synset ids: offset (Meteor 1.5's) or pos-offset (offset*10+POS)."
)
LMF = typer.Option(None, "--lmf", help="WN-LMF XML file (Open Multilingual Wordnet / Open English WordNet).")
LMF_IDS = typer.Option(
    LmfIds.ordinal, "--lmf-ids", help="Synset ids: ordinal, or offset / pos-offset for ids ending in -<8 digits>-<pos>."
)
LEXICON = typer.Option([], "--lexicon", help="Only this LMF lexicon id (repeatable).")
LMF_LANGUAGE = typer.Option(
    None, "--lmf-language", help="Only the LMF lexicons with this language attribute ('any': all; default: --lang, "
    "unless --lexicon is given)."
)
NONBREAKING = typer.Option(
    "auto",
    "--nonbreaking",
    help="Non-breaking prefixes for the normaliser (also stored in the bundle): auto (Meteor 1.5's list when it "
    "has one and the build extra is installed), official, none, or a prefixes file.",
)
BASE = typer.Option(None, "--base", help="Copy the resources not built here from this bundle (may equal --out).")
NAME = typer.Option(None, "--name", help="Bundle name (default: the language code).")
VERSION = typer.Option("0.1.0", "--bundle-version", help="Semantic version of the bundle.")
PROGRESS = typer.Option(True, "--progress/--no-progress", help="Progress bars (only on a terminal).")


def check_one_wordnet(wordnet: object, lmf: object) -> None:
    """Usage error (exit 2) when both --wordnet and --lmf are given: a bundle has one source of synonyms."""
    if wordnet is not None and lmf is not None:
        raise typer.BadParameter("give --wordnet or --lmf, not both", param_hint="--lmf")
