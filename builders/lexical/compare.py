"""How a built function-word list compares with Meteor 1.5's ``function/<language>.words``."""

from __future__ import annotations

from typing import Dict, Optional

from ..errors import SourceError
from .function_words import FunctionWords

__all__ = ["meteor_function_word_list", "compare_function_words", "format_function_word_comparison", "function_word_report"]


def meteor_function_word_list(lang: str) -> "tuple[str, list[str]]":
    """``(jar member, words)`` of Meteor 1.5's function-word list for ``lang`` (raises KeyError when Meteor has none)."""
    from .. import jar as _jar
    from ..official.release import LANGUAGE_NAMES, meteor_code

    member = f"function/{LANGUAGE_NAMES[meteor_code(lang)]}.words"
    return member, [w for w in _jar.read_jar_text(member).splitlines() if w.strip()]


def compare_function_words(fw: FunctionWords, member: str, theirs: "list[str]") -> Dict[str, object]:
    """The report: our parameters, their list, the overlap and the words only in one of them."""
    from ..synonyms.compare import overlap

    if not theirs:
        raise SourceError(f"Meteor 1.5's {member} is empty: nothing to compare with")
    return {
        "ours": fw.params,
        "theirs": f"meteor-1.5.jar!{member}",
        "overlap": overlap(fw.words, theirs),
        "only_ours": sorted(set(fw.words) - set(theirs)),
        "only_theirs": sorted(set(theirs) - set(fw.words)),
    }


def format_function_word_comparison(report: Dict[str, object]) -> str:
    """The report as three lines of text."""
    o: Optional[Dict[str, float]] = report["overlap"]  # type: ignore[assignment]
    assert o is not None
    return "\n".join([
        f"ours {o['ours']}  theirs {o['theirs']}  both {o['both']}  "
        f"both/theirs {100 * o['of_theirs']:.1f}%  both/ours {100 * o['of_ours']:.1f}%",
        "only ours:   " + " ".join(report["only_ours"]),  # type: ignore[arg-type]
        "only theirs: " + " ".join(report["only_theirs"]),  # type: ignore[arg-type]
    ])


def function_word_report(inputs: "object", *, show_progress: bool = True) -> Dict[str, object]:
    """Build the function words ``inputs`` (a :class:`~..bundle.inputs.BundleInputs`) ask for and compare them with Meteor 1.5's."""
    from ..bundle.inputs import function_words_for

    member, theirs = meteor_function_word_list(inputs.language)  # type: ignore[attr-defined]
    fw = function_words_for(inputs, show_progress=show_progress)  # type: ignore[arg-type]
    assert fw is not None
    return compare_function_words(fw, member, theirs)
