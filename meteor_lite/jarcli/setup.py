"""Build a :class:`~meteor_lite.Meteor` scorer from a Meteor 1.5 command line.

Option values are converted the way the jar reads them (``-p``/``-w`` as
whitespace-separated numbers, ``-m`` as whitespace-separated module names).
Resource options (``-s``, ``-d``, ``-a``, ``-new``) are read in the jar's own
file formats by :mod:`meteor_lite.resources.jarformat` into a temporary bundle
(what is not given comes from the language's bundle).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ..align.modules import METEOR_MODULES
from ..config import MeteorConfig, resolve_config
from ..errors import ConfigError
from ..jarcompat import java_double, java_parse_double, java_parse_int
from ..languages import LANGUAGES, canonical_language, default_modules, long_name
from ..meteor import Meteor
from ..resources.bundle import Bundle
from ..resources.jarformat import write_jar_bundle
from ..resources.locate import find_bundle
from ..scratch import scratch_dir
from .options import JarOptions

__all__ = ["JarCliError", "build_scorer", "jar_config", "jar_header", "jar_language", "ref_count"]

#: The jar's name of a language it does not know but scores language-independently (``-l xx``, ``-l other``).
OTHER = "other"

#: What the jar's ``-l`` takes, lower-cased (it ignores case): Meteor 1.5's codes and long names, the ISO
#: codes of Czech and Swedish, and ``other``/``xx`` (observed with the jar; ``-l ar``, ``-l nb``, ``-l zh``
#: and names with spaces are refused).
JAR_LANGUAGE_NAMES: Dict[str, str] = {
    **{code: code for code in LANGUAGES},
    **{name: code for code, (name, _stem) in LANGUAGES.items()},
    "cs": "cz", "sv": "se", OTHER: OTHER, "xx": OTHER,
}


class JarCliError(Exception):
    """A problem the jar would report (or an option meteor-lite cannot honour): one line, exit 1."""


def _numbers(option: str, text: str) -> List[float]:
    """Whitespace-separated numbers of ``-p`` / ``-w``, each read as Java's ``Double.parseDouble`` reads it."""
    try:
        return [java_parse_double(x) for x in text.split()]
    except ValueError:
        raise JarCliError(f"{option}: not a list of numbers: {text!r}") from None


def _integer(option: str, text: Optional[str], default: int) -> int:
    """An integer option read as Java's ``Integer.parseInt`` reads it (no spaces, 32 bits)."""
    if text is None:
        return default
    try:
        return java_parse_int(text)
    except ValueError as exc:
        raise JarCliError(f"{option}: {exc}") from None


def ref_count(opts: JarOptions) -> int:
    """The ``-r`` value (1 when not given).  Zero or less is the jar's line-by-line pairing (see
    :func:`meteor_lite.jarcli.plain.run_plain`): 0 is returned."""
    return max(0, _integer("-r", opts.ref_count, 1))


def beam_size(opts: JarOptions) -> int:
    """The ``-x`` value (40 when not given); below 1 is refused (a deliberate difference: the jar takes it,
    warns "unexpected conditions - skipping matches" on stderr and scores whatever its empty beam leaves)."""
    beam = _integer("-x", opts.beam, 40)
    if beam < 1:
        raise JarCliError(f"-x: the beam size must be at least 1, got {beam} (the jar's search keeps no "
                          "alignment with it and prints meaningless scores)")
    return beam


def jar_language(text: str) -> str:
    """Meteor 1.5's code for ``-l text`` (any case), :data:`OTHER` for ``other``/``xx``; else the jar's error."""
    code = JAR_LANGUAGE_NAMES.get(text.lower())
    if code is None:
        raise JarCliError(f"Unknown language ({text}): Meteor 1.5 takes {' '.join(LANGUAGES)} (or their names, "
                          f"cs, sv), and other or xx for any other language")
    return code


def scorer_kwargs(opts: JarOptions) -> Dict[str, Any]:
    """Keyword arguments of :class:`Meteor` for the options (resources apart)."""
    kw: Dict[str, Any] = {
        "lang": jar_language(opts.lang),
        "task": opts.task,
        "beam": beam_size(opts),
        "norm": opts.norm,
        "lower": opts.lower,
        "no_punct": opts.no_punct and opts.norm,  # the jar ignores -noPunct without -norm
        "quiet": True,
    }
    if opts.params is not None:
        kw["params"] = _numbers("-p", opts.params)[:4]  # the jar shows every value, and uses the first four
    if opts.weights is not None:
        kw["weights"] = _numbers("-w", opts.weights)
    if opts.modules is not None:
        kw["modules"] = opts.modules.split()
        for m in kw["modules"]:
            if m.lower() not in METEOR_MODULES:  # the jar knows its four modules only (meteor-lite score has more)
                raise JarCliError(f"Unknown module ({m}): Meteor 1.5 takes {' '.join(METEOR_MODULES)}")
        if kw["lang"] == OTHER and opts.new_dir is None and opts.weights is None:
            # the jar's "other" has one weight (exact's): further modules weigh 0 unless -w says otherwise
            kw["weights"] = [1.0] + [0.0] * (len(kw["modules"]) - 1)
    elif kw["lang"] == OTHER and opts.new_dir is None and (opts.task or "").lower() != "universal":
        kw["modules"] = ["exact"]  # the jar's modules for a language it does not know
    if opts.new_dir is not None:  # a "new language": lower-case only (-norm is ignored, as by the jar)
        kw.update(lang="other", task=opts.task or "universal", norm=False, lower=True, no_punct=False)
    return kw


def jar_config(opts: JarOptions) -> MeteorConfig:
    """The configuration the options describe (what the header shows), before any resource is read: Meteor 1.5's
    preset with the options, as :func:`meteor_lite.defaults.language_config` decides it (strict: nothing added)."""
    from ..defaults import language_config

    kw = scorer_kwargs(opts)
    _check_params(kw)
    requested = resolve_config(
        kw["lang"], task=kw["task"], params=kw.get("params"), modules=kw.get("modules"), weights=kw.get("weights"),
        beam=kw["beam"], norm=kw["norm"], lower=kw["lower"], no_punct=kw["no_punct"], char_based=opts.char_based,
    )
    # Meteor 1.5's configuration exactly (strict: as build_scorer's Meteor(strict_modules=True) fits it), before any
    # resource is read: the one function of a language's configuration
    cfg = language_config(requested, strict=True).config
    if opts.modules is None and cfg.custom and opts.params is None and opts.weights is None:
        cfg = replace(cfg, custom=False)  # the modules of -l other are the language's, not the user's choice
    return cfg


def _check_params(kw: Dict[str, Any]) -> None:
    if "params" in kw and len(kw["params"]) != 4:
        raise ConfigError(f"-p needs 4 values (alpha beta gamma delta), got {len(kw['params'])}")


def shown_params(opts: JarOptions) -> Optional[List[float]]:
    """Every value of ``-p`` (the jar's header and Eval ID show them all, beyond the four it uses), or None."""
    return None if opts.params is None else _numbers("-p", opts.params)


def build_scorer(opts: JarOptions) -> Meteor:
    """The scorer the options describe.

    Raises :class:`JarCliError` for options meteor-lite cannot honour and
    :class:`~meteor_lite.errors.MeteorLiteError` for bad values.
    """
    kw = scorer_kwargs(opts)
    _check_params(kw)
    if kw["lang"] == OTHER and opts.new_dir is None:
        _check_other_modules(opts, kw)
    if opts.paraphrase_file and _bundle_holds_table(kw["lang"], opts.paraphrase_file) and not (
            opts.new_dir is not None or opts.function_words or opts.synonym_dir):
        opts = replace(opts, paraphrase_file=None)  # nlg-eval's -a data/paraphrase-en.gz: the bundle's own table
    if opts.new_dir is not None or opts.function_words or opts.synonym_dir or opts.paraphrase_file:
        kw = _with_jar_files(opts, kw)
    elif kw["lang"] == OTHER:
        kw = _with_jar_files(opts, kw)  # English function words (see _english_function_words)
    # the jar refuses a language whose default modules lack a resource (German without its paraphrase table)
    return Meteor(char_based=opts.char_based, strict_modules=True, **kw)


def _bundle_holds_table(lang: str, table: str) -> bool:
    """True when ``-a table`` is the very file (same size and SHA-256) the language's bundle imported its paraphrase
    table from (the release's ``paraphrase-en.gz``, which nlg-eval passes with ``-a``): reading it again into a scratch
    bundle would give the same table after 40 s and 900 MB."""
    import hashlib

    path = Path(table)
    base = find_bundle(canonical_language(lang)) if lang in LANGUAGES else None
    if base is None or not path.is_file():
        return False
    try:
        with Bundle.open(base) as b:
            wanted = [s.get("sha256") for s in b.sources() if s.get("kind") == "paraphrase-table"]
    except Exception:  # noqa: BLE001 - any doubt: read the file as given
        return False
    if len(wanted) != 1 or not wanted[0]:
        return False
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest() == wanted[0]


def _check_other_modules(opts: JarOptions, kw: Dict[str, Any]) -> None:
    """The jar's errors for a module ``-l other`` has no resource for (observed: it dies after the header)."""
    universal = (opts.task or "").lower() == "universal"  # Meteor 1.5's universal task has its own modules
    modules = kw.get("modules") or (list(default_modules(OTHER, "universal")) if universal else [])
    if "stem" in modules:
        raise JarCliError("No stemmer for language (other)")
    if "synonym" in modules and not opts.synonym_dir:
        raise JarCliError("Synonym dictionary could not be loaded: -l other has no synonyms (give -d)")
    if "paraphrase" in modules and not opts.paraphrase_file:
        raise JarCliError("file not found (paraphrase-other.gz): -l other has no paraphrase table (give -a)")


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
    if base is None and words is None and lang != OTHER:
        raise JarCliError(_no_function_words(lang))
    tmp = scratch_dir("meteor-jar-")  # removed at exit, else (killed) by the next run once this process is gone
    if lang == OTHER and words is None:
        words = _english_function_words(tmp / "function.words")
    out = write_jar_bundle(tmp / "bundle.sqlite", language=lang, base=base, function_words=words,
                           synonym_dir=synonyms, paraphrase_file=paraphrases, prefix_rows=paraphrases is None)
    # written just now from the user's own files, into a private directory: no content checksum to verify
    # (a bundle given by path must have one), so it is handed over open
    bundle = JarFilesBundle.open(out)
    if paraphrases is not None:
        assert isinstance(bundle, JarFilesBundle)
        bundle.prefixes_by_order = True
        kw["preload"] = False  # tables held in memory read prefix rows, which this bundle has none of
    kw["bundle"] = bundle
    return kw


def _no_function_words(lang: str) -> str:
    """The error for ``-d``/``-a`` files given for a language with no bundle and no ``-s``: the jar has the
    language's function words built in, and scoring without them would silently change every score."""
    return (f"no bundle for {long_name(lang).capitalize()} ('{lang}'), whose function words the jar has built in: "
            f"pip install 'meteor-lite[official]' (or meteor-lite bundle install {lang}), or give them with -s FILE")


class JarFilesBundle(Bundle):
    """meteor-jar's private bundle of ``-s``/``-d``/``-a``/``-new`` files.  With a paraphrase table (``-a``)
    the phrases' proper prefixes are not rows of the file (a table of 1,000-word phrases would need
    gigabytes of them): whether a phrase begins a longer one is answered from the order of the phrases
    (:meth:`longer_phrases_begun`), with no storage of its own."""

    #: Prefixes are answered by :meth:`longer_phrases_begun` (a table given with ``-a``), not by prefix rows.
    prefixes_by_order: bool = False
    #: Its look-ups are answered by the methods below (the prefixes from hashes), and it lives for one run: no
    #: mapped table file (meteor_lite/resources/mapped.py) is made of it.
    mappable = False

    def has(self, table: str) -> bool:
        """:meth:`Bundle.has`; with a table given (``-a``) ``paraphrases`` is there even when it holds no entry
        (a table not gzipped, which the jar cannot read): the jar keeps the module, which then matches nothing."""
        return (table == "paraphrases" and self.prefixes_by_order) or super().has(table)

    def paraphrase_entries(self, phrases: Sequence[str]) -> Tuple[Dict[str, str], Set[str]]:
        """:meth:`Bundle.paraphrase_entries`, the prefixes answered by :meth:`longer_phrases_begun` when
        :attr:`prefixes_by_order` is set."""
        paras, prefixes = super().paraphrase_entries(phrases)
        if self.prefixes_by_order:
            prefixes.update(self.longer_phrases_begun(phrases))
        return paras, prefixes

    def longer_phrases_begun(self, phrases: Sequence[str]) -> Set[str]:
        """Those of ``phrases`` that begin a longer phrase of the table (word by word: ``a b`` begins ``a b c``,
        not ``a bc``).  The phrases beginning with ``P`` and a space are those from ``P + " "`` up to ``P + "!"``
        (UTF-8 byte order, the primary key's: the space is 0x20, ``!`` 0x21), so one range of the key is looked
        at per phrase."""
        found: Set[str] = set()
        conn = self._conn
        distinct = list(dict.fromkeys(phrases))
        for i in range(0, len(distinct), 400):
            part = distinct[i : i + 400]
            values = ",".join(["(?)"] * len(part))
            found.update(p for (p,) in conn.execute(
                f"WITH asked (p) AS (VALUES {values}) SELECT p FROM asked WHERE EXISTS (SELECT 1 FROM paraphrases "
                "WHERE phrase >= p || ' ' AND phrase < p || '!')", part))
        return found


def _english_function_words(out: Path) -> Optional[Path]:
    """The English bundle's function words (verified) written to ``out``, one a line: the jar applies
    English function words to every language, ``-l other`` included; None without an English bundle."""
    from ..configure import open_bundle

    bundle = open_bundle("en", "en", False, [])
    if bundle is None:
        return None
    with bundle:
        out.write_text("".join(f"{w}\n" for w in sorted(bundle.function_words())), encoding="utf-8")
    return out


def jar_header(cfg: MeteorConfig, sgml: bool = False, params: Optional[List[float]] = None) -> str:
    """The 11 header lines the jar prints before any score (ending with a blank line).

    ``params``: every value of ``-p`` (shown, as the jar shows them, when there are more than four).
    """
    shown = list(cfg.params) if params is None or len(params) <= 4 else params
    eval_id = cfg.eval_id().replace(
        "_".join(java_double(p) for p in cfg.params), "_".join(java_double(p) for p in shown), 1)
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
        f"Parameters:     {' '.join(java_double(p) for p in shown)}",
        "",
    ]
    return "\n".join(lines) + "\n"
