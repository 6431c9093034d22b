"""What callers pass to the scorer, checked and put in one shape: hypotheses, references, options.

References come in two layouts (see :func:`references_per_segment`):

* ``"streams"`` (sacreBLEU, the command line): ``refs[k][i]`` is reference
  stream ``k``'s reference for hypothesis ``i``; every stream has one entry
  per hypothesis, ``None`` where that stream has no reference for it;
* ``"segments"`` (pycocoevalcap, HF ``evaluate``): ``refs[i]`` is the list of
  references of hypothesis ``i``, of any length.

Without an explicit layout only the streams shape that cannot be read the
other way is accepted: every inner list is as long as the hypotheses *and*
the number of lists differs from the number of hypotheses (or there is at
most one hypothesis, where both readings agree).  Every other shape is an
error that says which shapes are accepted, so a corpus is never silently
transposed (5 images x 5 captions read as 5 streams).

Wrong types (a string where a list is meant, ``None`` as a hypothesis, a
string of numbers as ``params``) raise :class:`TypeError` naming the argument.
A string that is not valid Unicode text (a lone surrogate, e.g. from bytes decoded with
``errors="surrogateescape"``) raises :class:`InputError` naming the argument and the position
(:func:`checked_text`).
"""

from __future__ import annotations

from typing import Any, List, Optional

from .errors import ConfigError, InputError

__all__ = ["LAYOUTS", "check_options", "checked_text", "hypothesis_list", "references_per_segment", "segment_references"]

#: The reference layouts :func:`references_per_segment` accepts.
LAYOUTS = ("streams", "segments")


def _type_name(value: object) -> str:
    return "None" if value is None else type(value).__name__


def _as_list(value: object, name: str, what: str) -> List[Any]:
    """``value`` as a list; a string, bytes or a non-iterable is a :class:`TypeError` naming ``name``."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be {what}, not a string ({_short(value)})")
    try:
        return list(value)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{name} must be {what}, not {_type_name(value)}") from None


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def checked_text(text: str, name: str) -> str:
    """``text``, unless it holds a lone surrogate (not Unicode text: it has no UTF-8 or UTF-16 form):
    then :class:`InputError` naming the argument ``name``, the code point and its position."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InputError(
                f"{name} holds a lone surrogate (U+{ord(text[exc.start]):04X}) at position {exc.start}: not valid "
                "Unicode text (decode the input strictly, or with errors='replace')"
            ) from None
    return text


def hypothesis_list(hyps: object, name: str = "hyps") -> List[str]:
    """The hypotheses as a list of strings (``None`` or a non-string entry is a :class:`TypeError`)."""
    out = _as_list(hyps, name, "a list of hypothesis strings")
    for i, h in enumerate(out):
        if not isinstance(h, str):
            hint = " (use '' for an empty output)" if h is None else ""
            raise TypeError(f"{name}[{i}] is {_type_name(h)}: every hypothesis must be a string{hint}")
        checked_text(h, f"{name}[{i}]")
    return out


def segment_references(refs: object, name: str = "refs") -> List[Optional[str]]:
    """The references of one segment: a string, or a list of strings (``None`` entries kept as missing)."""
    if isinstance(refs, str):
        return [checked_text(refs, name)]
    out = _as_list(refs, name, "a reference string or a list of reference strings")
    for j, r in enumerate(out):
        if r is not None and not isinstance(r, str):
            raise TypeError(f"{name}[{j}] is {_type_name(r)}: references must be strings (None for a missing one)")
        if r is not None:
            checked_text(r, f"{name}[{j}]")
    return out


def references_per_segment(refs: object, n: int, layout: Optional[str] = None) -> List[List[Optional[str]]]:
    """One list of references per hypothesis (``None`` kept where a reference is missing).

    ``refs`` is read in ``layout`` (``"streams"`` or ``"segments"``, see the
    module docstring); without one, only the unambiguous streams shape is
    accepted.  Raises :class:`TypeError` for wrong types, :class:`ConfigError`
    for an unknown layout and :class:`InputError` for a shape that does not
    fit, an ambiguous shape, or a hypothesis left with no reference.
    """
    if layout is not None and layout not in LAYOUTS:
        raise ConfigError(f"layout must be 'streams' or 'segments', got {_short(layout)}")
    outer = _as_list(refs, "refs", "a list of reference lists")
    inner = [_inner_list(x, k, layout) for k, x in enumerate(outer)]
    if layout is None:
        layout = _infer_layout(inner, n)
    if layout == "streams":
        per_seg = _from_streams(inner, n)
    else:
        per_seg = _from_segments(inner, n)
    for i, rs in enumerate(per_seg):
        if all(r is None for r in rs):
            where = "every stream is None there" if layout == "streams" else f"refs[{i}] is empty or all None"
            raise InputError(f"hypothesis {i} has no reference ({where}); Meteor needs at least one")
    return per_seg


def _inner_list(x: object, k: int, layout: Optional[str]) -> List[Optional[str]]:
    if isinstance(x, str):
        raise TypeError(
            f"refs[{k}] is a string, but refs must be a list of lists: with one reference per hypothesis pass "
            "[refs] (one reference stream); for per-hypothesis lists pass layout='segments' and [[r] for r in refs]"
        )
    what = "a reference stream" if layout == "streams" else "a list of references"
    out = _as_list(x, f"refs[{k}]", what)
    for j, r in enumerate(out):
        if r is not None and not isinstance(r, str):
            raise TypeError(f"refs[{k}][{j}] is {_type_name(r)}: references must be strings (None for a missing one)")
        if r is not None:
            checked_text(r, f"refs[{k}][{j}]")
    return out


def _accepted(n: int) -> str:
    return (
        f"accepted are reference streams (layout='streams': any number of lists, each with one entry per "
        f"hypothesis, i.e. {n}, None where a stream has no reference) and per-hypothesis lists "
        f"(layout='segments': {n} lists, refs[i] holding the references of hyps[i], of any length)"
    )


def _infer_layout(inner: List[List[Optional[str]]], n: int) -> str:
    """The layout of a shape that only one layout fits, else an :class:`InputError` saying what to pass."""
    k = len(inner)
    if k == 0:
        raise InputError("refs is empty: at least one reference stream (or, with layout='segments', one list per hypothesis) is needed")
    rectangular = all(len(x) == n for x in inner)
    if rectangular and (k != n or n <= 1):
        return "streams"
    if rectangular:
        raise InputError(
            f"refs is ambiguous: {k} lists of {n} references for {n} hypotheses read both as {k} reference "
            f"streams and as {n} per-hypothesis lists; say which with layout='streams' or layout='segments'"
        )
    bad = next(j for j, x in enumerate(inner) if len(x) != n)
    if k == n:
        raise InputError(
            f"refs has one list per hypothesis ({n}) and they are not all {n} long (refs[{bad}] has "
            f"{len(inner[bad])}): if refs[i] holds the references of hyps[i], pass layout='segments'; "
            f"reference streams must each have {n} entries"
        )
    lists = "list" if k == 1 else "lists"
    raise InputError(f"refs has {k} {lists} for {n} hypotheses and refs[{bad}] has {len(inner[bad])} entries: {_accepted(n)}")


def _from_streams(inner: List[List[Optional[str]]], n: int) -> List[List[Optional[str]]]:
    if not inner:
        raise InputError("at least one reference stream is needed")
    for k, stream in enumerate(inner):
        if len(stream) != n:
            raise InputError(f"reference stream {k + 1} has {len(stream)} lines, the hypotheses {n}")
    return [[stream[i] for stream in inner] for i in range(n)]


def _from_segments(inner: List[List[Optional[str]]], n: int) -> List[List[Optional[str]]]:
    if len(inner) != n:
        raise InputError(
            f"layout='segments' needs one list of references per hypothesis: got {len(inner)} lists for {n} hypotheses"
        )
    return inner


def _numbers(value: object, name: str, what: str) -> None:
    if value is None:
        return
    items = _as_list(value, name, what)
    for j, x in enumerate(items):
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise TypeError(f"{name}[{j}] is {_type_name(x)} {_short(x)}: {name} takes {what}")


def check_options(
    lang: object, task: object, params: object, modules: object, weights: object, beam: object
) -> None:
    """:class:`TypeError` naming the argument when an option of :class:`~meteor_lite.Meteor` has the wrong type."""
    if not isinstance(lang, str):
        raise TypeError(f"lang must be a language code such as 'en', not {_type_name(lang)}")
    if task is not None and not isinstance(task, str):
        raise TypeError(f"task must be a task name such as 'rank' or None, not {_type_name(task)}")
    _numbers(params, "params", "four numbers (alpha, beta, gamma, delta), e.g. (0.85, 0.2, 0.6, 0.75)")
    _numbers(weights, "weights", "one number per module, e.g. (1.0, 0.6, 0.8, 0.6)")
    if modules is not None:
        what = "a list of module names, e.g. ['exact', 'stem', 'synonym', 'paraphrase']"
        for j, m in enumerate(_as_list(modules, "modules", what)):
            if not isinstance(m, str):
                raise TypeError(f"modules[{j}] is {_type_name(m)}: modules takes {what}")
    if isinstance(beam, bool) or not isinstance(beam, int):
        raise TypeError(f"beam takes an int (the alignment beam size, default 40), not {_type_name(beam)} {_short(beam)}")
