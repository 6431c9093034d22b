"""Meteor 1.5's own Snowball stemmer, run from the jar as a black box, and where it differs from snowballstemmer."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ..errors import ImportOfficialError
from ..lexical.stems import STEMMER_PACKAGE, make_stemmer
from .release import LANGUAGE_NAMES, package_version

__all__ = ["WORDFREQ_CODES", "STEM_VOCABULARY_SIZE", "STEM_CHOICES", "snowball_language", "jar_stems", "stem_corrections"]

#: wordfreq's codes for Meteor's language codes (where they differ).
WORDFREQ_CODES = {"no": "nb", "se": "sv"}
#: How many of wordfreq's most frequent words the stem corrections cover.
STEM_VOCABULARY_SIZE = 200_000
STEM_CHOICES = ("auto", "jar", "snowball")


def snowball_language(lang: str) -> Optional[str]:
    """Snowball algorithm name for a Meteor language code, or None when ``snowballstemmer`` has none."""
    from meteor_lite.resources.stemming import snowball_classes

    name = LANGUAGE_NAMES[lang]
    return name if name in snowball_classes() else None


def jar_stems(words: List[str], snowball_name: str, jar: Path) -> List[str]:
    """Stems of ``words`` by the Snowball stemmer inside meteor-1.5.jar (its ``Stemmer`` program).

    Needs ``java``; raises :class:`ImportOfficialError` when it is missing or fails.
    """
    from .. import jar as _jar

    try:
        _jar.find_java()
    except _jar.JavaNotFoundError:
        raise ImportOfficialError("java not found: Meteor 1.5's own stemmer runs only with Java (use --stems snowball)") from None
    clean = [w for w in words if w and not any(c.isspace() for c in w)]
    if len(clean) != len(words):
        raise ImportOfficialError("stem vocabulary words must be non-empty and contain no white space")
    proc = _jar.run_jar_class("Stemmer", [snowball_name], stdin="\n".join(words) + "\n", heap=None, jar=jar)
    out = proc.stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    if proc.returncode != 0 or len(out) != len(words):
        raise ImportOfficialError(
            f"meteor-1.5.jar Stemmer {snowball_name} failed (exit {proc.returncode}, "
            f"{len(out)} stems for {len(words)} words): {proc.stderr.strip()[:200]}"
        )
    return out


def stem_corrections(
    lang: str, snowball_name: str, jar: Path, size: int = STEM_VOCABULARY_SIZE
) -> Tuple[List[Tuple[str, str]], Dict[str, object]]:
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
        "vocabulary": f"wordfreq {package_version('wordfreq')} top {size} words of {code!r} and their capitalised forms",
        "words_checked": len(words),
        "corrections": len(pairs),
        "stemmer": "Meteor 1.5's Snowball stemmer (java -cp meteor-1.5.jar Stemmer), stored where it differs from "
        f"snowballstemmer {package_version(STEMMER_PACKAGE)}",
    }
    return pairs, info


# --------------------------------------------------------------------------- stems computed beside the import


def _stem_all(algorithm: str, words: List[str]) -> List[str]:
    return make_stemmer(algorithm)(words)


class BackgroundStems:
    """Stems of a word list computed by a worker process while the caller does other work.

    English stems ~104,000 words (pure-Python Snowball, 2-3 s); 83,000 of them (the
    WordNet words) are known before the paraphrase table is read, so they are stemmed
    beside it.  :meth:`stems` gives ``{word: stem}`` (the same as stemming in process);
    when no worker could be started or it failed, the words are stemmed in process.
    The worker (:mod:`.stem_worker`, run with this interpreter in its own session: Ctrl-C
    is the caller's) is stopped by :meth:`close`, or when this object is garbage-collected.
    """

    def __init__(self, algorithm: str, words: List[str]):
        import json
        import subprocess
        import sys
        import weakref

        from meteor_lite.scratch import scratch_file

        self.algorithm, self.words = algorithm, words
        self._proc: Optional["subprocess.Popen[bytes]"] = None
        self._input: Optional[Path] = None
        try:
            # named by this process: a build killed outright leaves it to the next one, which removes it
            fd, self._input = scratch_file("meteor-lite-stems-", ".json")
            path = str(self._input)
            with open(fd, "w", encoding="utf-8") as f:
                json.dump(words, f, ensure_ascii=False)
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "meteor_lite_builders.official.stem_worker", algorithm, path],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
            )
        except OSError:  # no process (or no temporary file) here: stem in process when asked
            self._proc = None
        self._finalizer = weakref.finalize(self, _stop, self._proc, self._input)

    def stems(self) -> Dict[str, str]:
        """``{word: stem}`` for the words given."""
        import json

        stems: Optional[List[str]] = None
        if self._proc is not None:
            try:
                out, _ = self._proc.communicate()
                if self._proc.returncode == 0:
                    stems = json.loads(out.decode("utf-8"))
            except (OSError, ValueError):  # the worker failed (killed, out of memory): do it here
                stems = None
        self.close()
        if not isinstance(stems, list) or len(stems) != len(self.words):
            stems = _stem_all(self.algorithm, self.words)
        return dict(zip(self.words, stems))

    def close(self) -> None:
        """Stop the worker (if it still runs) and remove its input file."""
        self._finalizer()


def _stop(proc: "Optional[subprocess.Popen[bytes]]", path: Optional[Path]) -> None:
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.communicate()
    if path is not None:
        from meteor_lite.scratch import release

        release(path)
