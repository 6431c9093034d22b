"""Small bundles for tests, written with the project's own BundleWriter."""

from __future__ import annotations

from pathlib import Path

from meteor_lite_builders.bundle.writer import BundleWriter


def make_tiny_bundle(
    out: Path, language: str = "en", *, name: str = "tiny", version: str = "0.0.1", licence: str = ""
) -> Path:
    """Function words, a few synsets, one exception and three paraphrases (and a source when ``licence``)."""
    with BundleWriter(out, language=language, name=name, version=version) as w:
        if licence:
            w.add_source("words", kind="list", description="a test list", licence=licence, sha256="0" * 64,
                         location="tests/tiny_bundles.py")
        w.add_function_words(["the", "a", "of", "on"])
        w.add_synsets([("car", 1), ("automobile", 1), ("auto", 1), ("big", 2), ("large", 2), ("mouse", 3)])
        w.add_synonym_exceptions([("mice", "mouse")])
        w.add_paraphrases([("get rid of", "remove", 0.5), ("remove", "get rid of", 0.5), ("a lot of", "many", 0.3)])
    return out


def make_empty_bundle(out: Path, language: str = "en") -> Path:
    """A bundle with no resources at all."""
    with BundleWriter(out, language=language, name="empty", version="0.0.1"):
        pass
    return out
