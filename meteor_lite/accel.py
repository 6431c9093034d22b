"""Which implementation of the scorer's hottest loops runs: pure Python (the default) or compiled.

``meteor_lite._accel`` (``meteor_lite/_accel.c`` and the kernels it includes by topic,
``meteor_lite/accel_c/*.c``, where each matcher module's C matcher is written once, in its own
file, for the pair kernel and for its per-function twin where it has one) holds compiled twins of pure-Python
loops: the alignment search, the paraphrase matching (on the table entries as stored,
never split into token tuples), the pairwise synonym test of a sentence, one length of
the paraphrase table's walk, Java's string hash of words and their positions, a whole pair
(candidates, search and statistics in one call on sentences packed once: ``pack_words``,
``align_stats``), Meteor's ``-norm`` preparation of a western language's line
(``prepare_western``) and the look-ups, synonym rules and walk of a bundle's mapped table file
(``mapped_find``, ``mapped_synsets``, ``mapped_walk``: :mod:`meteor_lite.resources.mapped`).  Building a
wheel or installing from source compiles it when a C compiler and the Python headers are
there (setup.py; ``make accel`` in a checkout), and installs pure Python when they are not.
When it is installed it is used, unless the environment sets
``METEOR_LITE_PURE=1``, or unless it was built from another version of its sources than
those beside it (a checkout updated since ``make accel``): then a warning says so and
pure Python runs.  Both paths give the same alignments, hence the same scores:
the pure-Python code stays the reference, and the tests compare the two on real data
(``tests/test_accel.py``) and run the parity fixtures on both.

:data:`compiled` is read at each call, so setting it to None (as the tests do) turns
the compiled path off for the whole process.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import warnings
from pathlib import Path
from typing import Any, Dict, FrozenSet, Hashable, List, Optional, Protocol, Sequence, Set, Tuple, Union

__all__ = ["Kernels", "compiled", "description", "env_switch", "load_checked"]


class Kernels(Protocol):
    """What ``meteor_lite._accel`` provides (see ``meteor_lite/_accel.pyi``)."""

    MAX_WORDS: int
    SOURCE_SHA256: str

    def search(self, n1: int, n2: int, cands: List[List[Any]], beam: int, /) -> Optional[List[Any]]:
        """The alignment search (:func:`meteor_lite.align.search.search_alignment_pure`), or None out of range."""

    def walk_held(
        self, sentences: List[Sequence[str]], entries: Dict[str, str], beginnings: Set[str], max_len: int, /
    ) -> List[List[Tuple[int, int, str]]]:
        """:meth:`meteor_lite.resources.lookups.Resources._walk` over a paraphrase table held in memory."""

    def mapped_find(
        self, data: Any, fd: int, off: int, nslots: int, kind: int, keys: List[str], cache: Any = None, /,
    ) -> Any:
        """The look-ups of :class:`meteor_lite.resources.mapped.MappedTables` in one table of the mapped file."""

    def mapped_walk(
        self, data: Any, fd: int, off: int, nslots: int, sentences: List[Sequence[str]], max_len: int,
        cache: Any = None, /
    ) -> List[List[Tuple[int, int, str]]]:
        """:meth:`meteor_lite.resources.lookups.Resources._walk` over a mapped paraphrase table (``cache``: None or an
        :meth:`entry_cache`)."""

    def entry_cache(self) -> Any:
        """A new, empty cache of paraphrase entries by offset for :meth:`mapped_find` and :meth:`mapped_walk` (a
        capsule: no int object nor dict look-up per entry found)."""

    def entry_cache_len(self, cache: Any, /) -> int:
        """The entries ``cache`` holds."""

    def entry_cache_clear(self, cache: Any, /) -> None:
        """Empty ``cache``."""

    def mapped_synsets(
        self, data: Any, fd: int, syn_off: int, syn_n: int, exc_off: int, exc_n: int, words: List[str],
        rules: Tuple[Tuple[str, str], ...], /,
    ) -> List[FrozenSet[int]]:
        """:meth:`meteor_lite.resources.lookups.Resources.synsets` of new words over a mapped table file."""

    def make_records(
        self, records: Dict[str, bytes], words: List[str], hashes: List[int], stem_hashes: Optional[List[int]],
        synsets: Optional[List[FrozenSet[int]]], function: List[bool], /,
    ) -> None:
        """Each word's record for :meth:`pack_words`, put in ``records``
        (:meth:`meteor_lite.resources.lookups.Resources.word_records`)."""

    def pack_words(
        self, words: Sequence[str], records: Dict[str, Any],
        hits: Union[None, List[Tuple[int, int, str]], Tuple[Any, ...]], stem: bool, synonym: bool,
        char_based: bool = False, cache: Any = None, /,
    ) -> Union[List[str], Tuple[object, List[bool], List[int], float, float]]:
        """One sentence packed for :meth:`align_stats` from its words' records
        (:meth:`meteor_lite.resources.lookups.Resources.word_records`) with its function-word flags, length units
        and their sums (:func:`meteor_lite.scoring.prepare_side`), or the words that have no record yet.  ``hits``:
        its paraphrase-table phrases, or the mapped table to walk for them
        (:meth:`meteor_lite.resources.mapped.MappedTables.walk_spec`), or None without the paraphrase module; their
        entries are parsed through ``cache`` (a :meth:`parse_cache`, or None)."""

    def parse_cache(self, max_entries: int, /) -> Any:
        """A new, empty cache of parsed paraphrase entries for :meth:`pack_words` (a capsule): the first
        ``max_entries`` met are kept, the others parsed for each sentence."""

    def parse_cache_len(self, cache: Any, /) -> int:
        """The parsed entries ``cache`` holds."""

    def align_stats(
        self, hyp: object, ref: object, modules: Tuple[int, ...], beam: int, /
    ) -> Optional[Tuple[List[float], List[float], List[float], List[float], float, float, float, List[Tuple[int, int, int, int, int]]]]:
        """One pair's candidates, search and statistics (:func:`meteor_lite.scoring._pair_stats`), or None out of range."""

    def align_many(
        self, pairs: Sequence[Tuple[object, object]], modules: Tuple[int, ...], beam: int, /
    ) -> List[Optional[Tuple[List[float], List[float], List[float], List[float], float, float, float, List[Tuple[int, int, int, int, int]]]]]:
        """:meth:`align_stats` of each (hypothesis, reference) pair of packed sentences, the GIL released while they
        are aligned (:mod:`meteor_lite.pairwise` runs it in a second thread)."""

    def phrase_matches(self, hits: List[Tuple[int, int, str]], words: Tuple[str, ...], /) -> List[Tuple[int, int, int, int]]:
        """:func:`meteor_lite.align.matches.iter_phrase_matches` without a cap, as a list (entries read unsplit)."""

    def synonym_pairs(
        self, yh: List[FrozenSet[int]], yr: List[FrozenSet[int]], hk: List[int], rk: List[int], /
    ) -> List[List[int]]:
        """The pairwise branch of :func:`meteor_lite.align.matches.synonym_positions`, as a list."""

    def java_hashes(self, words: Sequence[str], /) -> Optional[List[int]]:
        """:func:`meteor_lite.jarcompat.java_string_hashes`, or None when a word holds a lone surrogate."""

    def positions_of(self, words: Sequence[Hashable], /) -> Dict[Hashable, List[int]]:
        """:func:`meteor_lite.align.matches.positions_of`."""

    def word_matches(
        self, cands: List[List[Any]], positions: Sequence[Sequence[int]], module: int, exact: bool, match_type: type, /
    ) -> None:
        """The loop of :func:`meteor_lite.align.matches.collect_matches` that appends one-word matches."""

    def walk_level(
        self, active: List[Tuple[int, int, str]], paras: Dict[str, str],
        prefix: Dict[str, bool], sentences: List[Sequence[str]], n: int, grow: bool,
        hits: List[List[Tuple[int, int, str]]], /,
    ) -> Tuple[List[Tuple[int, int, str]], Set[str]]:
        """One length of :meth:`meteor_lite.resources.lookups.Resources._walk`."""

    def prepare_western(
        self, line: str, apostrophes: int, keep_punct: bool, lower: bool, nonbreaking: Dict[str, bool],
        lower_table: Dict[int, str], /,
    ) -> Optional[List[str]]:
        """:func:`meteor_lite.text.normalize.prepare` with ``norm`` and Meteor's tokeniser for a western language
        (apostrophes: 0 English, 1 French, 2 generic), or None for a line out of its range (a capital sigma to
        lower-case)."""


def env_switch(name: str) -> bool:
    """Whether the environment variable ``name`` turns a switch on: set to anything but empty, ``0``, ``false`` or
    ``no`` (``METEOR_LITE_PURE`` here, ``METEOR_LITE_PRELOAD`` for :class:`~meteor_lite.Meteor`)."""
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def _pure_requested() -> bool:
    return env_switch("METEOR_LITE_PURE")


#: Why pure Python runs when the kernels are not loaded (for :func:`description`).
_why_pure = ""


def load_checked(
    module: str, source: Optional[str], what: str, stale: str
) -> Tuple[Optional[Any], str]:
    """An optional compiled module and, when it is not used, why: not when ``METEOR_LITE_PURE`` is set, when it is
    not installed, or when the digest of the sources it was built from (its ``SOURCE_SHA256``) is not ``source``, the
    digest of those installed beside it (None: none installed, nothing to compare), which a warning then says
    (``stale``: what was built from other sources).  ``what`` names it in the reasons."""
    if _pure_requested():
        return None, "METEOR_LITE_PURE is set"
    try:
        loaded = importlib.import_module(module)
    except ImportError:
        return None, f"{what} not installed (no C compiler or Python headers when it was built?)"
    if source is not None and getattr(loaded, "SOURCE_SHA256", None) != source:
        from .errors import MeteorLiteWarning

        warnings.warn(
            f"{loaded.__file__} was built from {stale} than those beside it: using pure Python (rebuild it: make accel)",
            MeteorLiteWarning,
            stacklevel=3,
        )
        return None, f"{what} built from {stale} (rebuild: make accel)"
    return loaded, ""


def _load() -> Optional[Kernels]:
    """The compiled kernels if they are installed and ``METEOR_LITE_PURE`` does not turn them off."""
    global _why_pure
    loaded, _why_pure = load_checked(f"{__package__}._accel", _source_digest(), "compiled kernels",
                                     "another version of _accel.c")
    return loaded


def accel_sources(package: Path) -> List[Path]:
    """The compiled kernels' sources in ``package``, in the order their digest reads them: ``_accel.c``, the module
    codes' header generated from the module registry, then the kernels by topic (``accel_c/*.c``, by name).
    setup.py lists them the same way (the digest it compiles in is this one: tests/test_accel.py)."""
    return [package / "_accel.c", package / "_accel_modules.h", *sorted((package / "accel_c").glob("*.c"))]


def _source_digest() -> Optional[str]:
    """SHA-256 of the kernels' sources installed beside this module, :func:`accel_sources` one after the other (None
    when they are not there)."""
    digest = hashlib.sha256()
    try:
        for path in accel_sources(Path(__file__).parent):
            digest.update(path.read_bytes())
    except OSError:
        return None
    return digest.hexdigest()


#: The compiled kernels in use, or None for pure Python.
compiled: Optional[Kernels] = _load()


def description() -> str:
    """One line for ``--version``: which implementation runs."""
    if compiled is not None:
        return "compiled kernels: meteor_lite._accel"
    return f"pure Python: {_why_pure}" if _why_pure else "pure Python"
