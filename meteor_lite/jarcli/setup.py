"""Build a :class:`~meteor_lite.Meteor` scorer from a Meteor 1.5 command line.

Option values are converted the way the jar reads them (``-p``/``-w`` as
whitespace-separated numbers, ``-m`` as whitespace-separated module names).
Resource options (``-s``, ``-d``, ``-a``, ``-new``) are read in the jar's own
file formats by :mod:`meteor_lite.resources.jarformat` into a temporary bundle
(what is not given comes from the language's bundle).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

from ..config import MeteorConfig, resolve_config
from ..errors import ConfigError
from ..jarcompat import java_double
from ..languages import LANGUAGE_ALIASES, LANGUAGES, canonical_language, long_name
from ..meteor import Meteor
from ..resources.bundle import Bundle
from ..resources.jarformat import write_jar_bundle
from ..resources.locate import find_bundle
from ..scratch import scratch_dir
from .options import JarOptions

__all__ = ["JarCliError", "build_scorer", "jar_config", "jar_header", "ref_count"]


class JarCliError(Exception):
    """A problem the jar would report (or an option meteor-lite cannot honour): one line, exit 1."""


def _numbers(option: str, text: str) -> List[float]:
    """Whitespace-separated numbers of ``-p`` / ``-w``."""
    try:
        return [float(x) for x in text.split()]
    except ValueError:
        raise JarCliError(f"{option}: not a list of numbers: {text!r}") from None


def _integer(option: str, text: Optional[str], default: int) -> int:
    if text is None:
        return default
    try:
        return int(text.strip())
    except ValueError:
        raise JarCliError(f'{option}: not an integer: "{text}"') from None


def ref_count(opts: JarOptions) -> int:
    """The ``-r`` value (1 when not given)."""
    n = _integer("-r", opts.ref_count, 1)
    if n < 1:
        raise JarCliError(f"-r: the number of references must be at least 1, got {n}")
    return n


def scorer_kwargs(opts: JarOptions) -> Dict[str, Any]:
    """Keyword arguments of :class:`Meteor` for the options (resources apart)."""
    kw: Dict[str, Any] = {
        "lang": opts.lang,
        "task": opts.task,
        "beam": _integer("-x", opts.beam, 40),
        "norm": opts.norm,
        "lower": opts.lower,
        "no_punct": opts.no_punct and opts.norm,  # the jar ignores -noPunct without -norm
        "quiet": True,
    }
    if opts.params is not None:
        kw["params"] = _numbers("-p", opts.params)
    if opts.weights is not None:
        kw["weights"] = _numbers("-w", opts.weights)
    if opts.modules is not None:
        kw["modules"] = opts.modules.split()
    if opts.new_dir is not None:  # a "new language": lower-case only (-norm is ignored, as by the jar)
        kw.update(lang="other", task=opts.task or "universal", norm=False, lower=True, no_punct=False)
    return kw


def jar_config(opts: JarOptions) -> MeteorConfig:
    """The configuration the options describe (what the header shows), before any resource is read."""
    kw = scorer_kwargs(opts)
    _check_params(kw)
    return resolve_config(
        kw["lang"], task=kw["task"], params=kw.get("params"), modules=kw.get("modules"), weights=kw.get("weights"),
        beam=kw["beam"], norm=kw["norm"], lower=kw["lower"], no_punct=kw["no_punct"], char_based=opts.char_based,
    )


def _check_params(kw: Dict[str, Any]) -> None:
    if "params" in kw and len(kw["params"]) != 4:
        raise ConfigError(f"-p needs 4 values (alpha beta gamma delta), got {len(kw['params'])}")


def build_scorer(opts: JarOptions) -> Meteor:
    """The scorer the options describe.

    Raises :class:`JarCliError` for options meteor-lite cannot honour and
    :class:`~meteor_lite.errors.MeteorLiteError` for bad values.
    """
    kw = scorer_kwargs(opts)
    _check_params(kw)
    _check_jar_language(opts)
    if opts.new_dir is not None or opts.function_words or opts.synonym_dir or opts.paraphrase_file:
        kw = _with_jar_files(opts, kw)
    return Meteor(char_based=opts.char_based, **kw)


def _check_jar_language(opts: JarOptions) -> None:
    """Refuse, as the jar does, a language Meteor 1.5 does not know (e.g. ``-l ar``: the jar's
    Arabic is ``ar-bw-red``; meteor-lite's ``ar`` is Arabic script, which the jar never scored)."""
    if opts.new_dir is None and opts.lang not in LANGUAGES and LANGUAGE_ALIASES.get(opts.lang) not in LANGUAGES:
        raise JarCliError(f"Unknown language ({opts.lang}): Meteor 1.5's languages are {' '.join(LANGUAGES)}")


def _existing(path: Optional[str], message: str) -> Optional[Path]:
    """``path`` as a Path, or the jar's error when it does not exist."""
    if path is None:
        return None
    p = Path(path)
    if not p.exists():
        raise JarCliError(message.format(p.resolve()))
    return p


def _with_jar_files(opts: JarOptions, kw: Dict[str, Any]) -> Dict[str, Any]:
    """Scorer arguments with a temporary bundle built from ``-s``/``-d``/``-a``/``-new`` files.

    ``-new DIR`` is Meteor's "new language" (see :func:`scorer_kwargs`) with ``DIR/function.words``
    and ``DIR/paraphrase.gz``.
    """
    words = _existing(opts.function_words, "No function word list ({})")
    synonyms = _existing(opts.synonym_dir, "Synonym dictionary could not be loaded ({})")
    paraphrases = _existing(opts.paraphrase_file, "file not found ({})")
    kw = dict(kw)
    if opts.new_dir is not None:
        new = Path(opts.new_dir)
        paraphrases = paraphrases or _existing(str(new / "paraphrase.gz"), "file not found ({})")
        words = words or _existing(str(new / "function.words"), "No function word list ({})")
    lang = canonical_language(kw["lang"])
    base = find_bundle(lang) if lang in LANGUAGES else None
    tmp = scratch_dir("meteor-jar-")  # removed at exit, else (killed) by the next run once this process is gone
    out = write_jar_bundle(tmp / "bundle.sqlite", language=lang, base=base, function_words=words,
                           synonym_dir=synonyms, paraphrase_file=paraphrases)
    # written just now from the user's own files, into a private directory: no content checksum to verify
    # (a bundle given by path must have one), so it is handed over open
    kw["bundle"] = Bundle.open(out)
    return kw


def jar_header(cfg: MeteorConfig, sgml: bool = False) -> str:
    """The 11 header lines the jar prints before any score (ending with a blank line)."""
    eval_id = cfg.eval_id()
    lang = cfg.lang if cfg.lang in LANGUAGES else "other"
    if lang != cfg.lang:
        parts = eval_id.split("-")
        eval_id = "-".join(parts[:3] + ["other"] + parts[3 + len(cfg.lang.split("-")):])
    name = long_name(lang)
    lines = [
        "Meteor version: 1.5",
        "",
        f"Eval ID:        {eval_id}",
        "",
        f"Language:       {name[:1].upper() + name[1:]}",
        f"Format:         {'SGML' if sgml else 'plaintext'}",
        f"Task:           {cfg.task_description}",
        f"Modules:        {' '.join(cfg.modules)}",
        f"Weights:        {' '.join(java_double(w) for w in cfg.weights)}",
        f"Parameters:     {' '.join(java_double(p) for p in cfg.params)}",
        "",
    ]
    return "\n".join(lines) + "\n"
