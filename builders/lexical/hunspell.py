"""Lemma pairs from a Hunspell dictionary (``<locale>.dic`` + ``<locale>.aff``): every form its affix rules give, with its root.

A Hunspell dictionary lists roots with affix flags (``.dic``: ``root/FLAGS``); the affix file defines
what each flag does (``.aff``, format described in hunspell(5)):

* ``SET <encoding>`` -- the encoding of both files (default ISO8859-1);
* ``FLAG long | num | UTF-8`` -- how flags are written (default: one character each);
* ``AF n`` then n lines ``AF <flags>`` -- flag aliases (a ``.dic`` flag field ``3`` means the third line);
* ``PFX|SFX <flag> <Y|N> <n>`` then n rules ``PFX|SFX <flag> <strip> <add>[/<flags>] <condition>``:
  remove ``strip`` (``0``: nothing) from the start (PFX) or end (SFX) of a root matching ``condition``
  (a regular-expression-like pattern of characters, ``.`` and ``[...]``/``[^...]`` classes, ``.`` = any)
  and add ``add`` (``0``: nothing); ``Y`` lets prefixes and suffixes combine.

:func:`expand_hunspell` applies every prefix and suffix rule of each root's flags, once (one suffix,
one prefix, both when both are cross-products; continuation classes -- affixes on affixes -- are not
followed, and compounding is not generated), and yields ``(form, root)`` pairs: a *lemma map* built by
the rules of the dictionary, used as the bundle's stem map like simplemma's
(:func:`~.lemmas.lemma_stem_map`): two words match at the stem stage when they come from one root.
Roots carrying the dictionary's ``ONLYINCOMPOUND``, ``NEEDAFFIX`` or ``FORBIDDENWORD`` flag are not words
of their own and are not kept as forms (their affixed forms are).  A form of several roots keeps the one
equal to the form, else the alphabetically first.  Written from the format's documentation; no code of
Hunspell is used.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

from ..errors import MalformedSourceError, SourceError

__all__ = ["AffixRule", "AffixFile", "read_aff", "read_dic", "expand_hunspell", "hunspell_vocabulary", "hunspell_digest",
           "hunspell_files"]

_ENCODINGS = {"iso8859-1": "latin-1", "microsoft-cp1251": "cp1251", "iso-8859-1": "latin-1"}


@dataclass(frozen=True)
class AffixRule:
    """One PFX/SFX rule: strip, add, the condition as a compiled pattern (anchored at the affix's end)."""

    strip: str
    add: str
    condition: "re.Pattern[str]"


@dataclass
class AffixFile:
    """What the expansion needs from an ``.aff`` file."""

    encoding: str = "latin-1"
    flag_mode: str = "char"  # char | long | num | UTF-8
    aliases: List[str] = field(default_factory=list)
    prefixes: Dict[str, Tuple[bool, List[AffixRule]]] = field(default_factory=dict)
    suffixes: Dict[str, Tuple[bool, List[AffixRule]]] = field(default_factory=dict)
    not_words: Set[str] = field(default_factory=set)  # ONLYINCOMPOUND, NEEDAFFIX, FORBIDDENWORD flags
    skipped_rules: int = 0  # rules whose affix is not a string (a bracket class): left out

    def split_flags(self, text: str) -> List[str]:
        """The flags of a flag field (aliases resolved)."""
        if self.aliases and text.isdigit():
            i = int(text)
            text = self.aliases[i - 1] if 0 < i <= len(self.aliases) else ""
        if self.flag_mode == "long":
            return [text[i:i + 2] for i in range(0, len(text) - 1, 2)]
        if self.flag_mode == "num":
            return [f for f in text.split(",") if f]
        return list(text)


def _fields(line: str) -> List[str]:
    """A line's fields, split on spaces and tabs only (``str.split()`` would also split on U+0085, U+00A0, ...)."""
    return [f for f in re.split(r"[ \t]+", line) if f]


def _codec(name: str, where: str) -> str:
    key = name.strip().lower()
    key = _ENCODINGS.get(key, key)
    try:
        return codecs.lookup(key).name
    except LookupError:
        raise MalformedSourceError(where, 0, f"unknown encoding {name.strip()!r} (SET)") from None


def _condition(cond: str, suffix: bool, where: str, line: int) -> "re.Pattern[str]":
    if cond in ("", "."):
        return re.compile("")
    out: List[str] = []
    i = 0
    while i < len(cond):
        c = cond[i]
        if c == "[":
            j = cond.find("]", i)
            if j < 0:
                raise MalformedSourceError(where, line, f"unclosed '[' in condition {cond!r}")
            body = cond[i + 1:j]
            neg = body.startswith("^")
            chars = body[1:] if neg else body
            out.append(("[^" if neg else "[") + re.escape(chars) + "]")
            i = j + 1
        elif c == ".":
            out.append(".")
            i += 1
        else:
            out.append(re.escape(c))
            i += 1
    pat = "".join(out)
    return re.compile(pat + "$" if suffix else "^" + pat)


def read_aff(path: "os.PathLike[str] | str") -> AffixFile:
    """Parse an ``.aff`` file (see the module docstring); errors name the file and line."""
    p = Path(path)
    raw = p.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    aff = AffixFile()
    m = re.search(rb"^SET\s+(\S+)", raw, re.M)
    if m:
        aff.encoding = _codec(m.group(1).decode("ascii", "replace"), str(p))
    text = raw.decode(aff.encoding, errors="replace").lstrip("\ufeff")
    lines = [line.rstrip("\r") for line in text.split("\n")]  # not splitlines(): U+0085 and kin are not line ends here
    i = 0
    alias_left = 0
    special: Dict[str, str] = {}
    while i < len(lines):
        parts = _fields(lines[i])
        i += 1
        if not parts or parts[0].startswith("#"):
            continue
        key = parts[0]
        if key == "FLAG" and len(parts) > 1:
            aff.flag_mode = {"long": "long", "num": "num", "UTF-8": "char"}.get(parts[1], "char")
        elif key == "AF" and len(parts) > 1:
            if alias_left == 0 and parts[1].isdigit() and not aff.aliases:
                alias_left = int(parts[1])
            elif alias_left:
                aff.aliases.append(parts[1])
                alias_left -= 1
        elif key in ("ONLYINCOMPOUND", "NEEDAFFIX", "FORBIDDENWORD", "PSEUDOROOT") and len(parts) > 1:
            special[key] = parts[1]
        elif key in ("PFX", "SFX") and len(parts) >= 4 and parts[2] in ("Y", "N") and parts[3].isdigit():
            flag, cross, n = parts[1], parts[2] == "Y", int(parts[3])
            rules: List[AffixRule] = []
            seen = 0
            while seen < n:
                if i >= len(lines):
                    raise MalformedSourceError(str(p), i, f"{key} {flag} announces {n} rules; the file ends after {seen}")
                r = _fields(lines[i])
                i += 1
                if not r or r[0].startswith("#"):  # blank and comment lines inside a block
                    continue
                seen += 1
                if len(r) < 4 or r[0] != key or r[1] != flag:
                    raise MalformedSourceError(str(p), i, f"expected a {key} {flag} rule, got {lines[i - 1][:80]!r}")
                strip = "" if r[2] == "0" else r[2]
                add = r[3].split("/", 1)[0]
                add = "" if add == "0" else add
                if "[" in add or "]" in add:  # a condition written where the affix goes (Kazakh's .aff has some)
                    aff.skipped_rules += 1
                    continue
                cond = r[4] if len(r) > 4 else "."
                rules.append(AffixRule(strip, add, _condition(cond, key == "SFX", str(p), i)))
            table = aff.prefixes if key == "PFX" else aff.suffixes
            old = table.get(flag)
            table[flag] = (cross, (old[1] if old else []) + rules)
    for v in special.values():
        aff.not_words.update(aff.split_flags(v))
    return aff


def read_dic(path: "os.PathLike[str] | str", aff: AffixFile) -> Iterator[Tuple[str, List[str]]]:
    """``(root, flags)`` of each entry of a ``.dic`` file (the count line skipped; morphological fields dropped)."""
    p = Path(path)
    text = p.read_bytes().decode(aff.encoding, errors="replace").lstrip("\ufeff")
    first = True
    for line in text.split("\n"):
        line = line.rstrip("\r")
        if first:
            first = False
            if line.strip().isdigit():
                continue
        line = line.split("\t", 1)[0].strip(" ")
        if not line or line.startswith("#"):
            continue
        # "word/FLAGS morph..." ("\\/" is a slash in the word)
        word_part = line.split(" ", 1)[0]
        slash = re.search(r"(?<!\\)/", word_part)
        if slash:
            root, flags = word_part[: slash.start()], aff.split_flags(word_part[slash.end():])
        else:
            root, flags = word_part, []
        root = root.replace("\\/", "/")
        if root:
            yield root, flags


def _apply(word: str, rule: AffixRule, suffix: bool) -> Optional[str]:
    if not rule.condition.search(word):
        return None
    if suffix:
        if rule.strip and not word.endswith(rule.strip):
            return None
        base = word[: len(word) - len(rule.strip)] if rule.strip else word
        return base + rule.add
    if rule.strip and not word.startswith(rule.strip):
        return None
    return rule.add + word[len(rule.strip):]


def expand_hunspell(dic: "os.PathLike[str] | str", aff_path: "os.PathLike[str] | str | None" = None, *,
                    max_forms: int = 5_000_000) -> Tuple[List[Tuple[str, str]], Dict[str, int]]:
    """``(form, root)`` pairs of every form the dictionary's affix rules give (see the module docstring), and counts.

    Raises :class:`SourceError` when the expansion exceeds ``max_forms`` (a dictionary whose rules
    explode should be used over a vocabulary instead).
    """
    dic_p = Path(dic)
    aff_p = Path(aff_path) if aff_path is not None else dic_p.with_suffix(".aff")
    for file in (dic_p, aff_p):
        if not file.is_file():
            raise SourceError(f"{file}: Hunspell file not found")
    aff = read_aff(aff_p)
    roots_of: Dict[str, Set[str]] = {}
    n_roots = 0

    def add(form: str, root: str) -> None:
        roots_of.setdefault(form, set()).add(root)

    for root, flags in read_dic(dic_p, aff):
        n_roots += 1
        if not any(f in aff.not_words for f in flags):
            add(root, root)
        suffixed: List[Tuple[str, bool]] = []
        for f in flags:
            entry = aff.suffixes.get(f)
            if entry is None:
                continue
            cross, rules = entry
            for r in rules:
                form = _apply(root, r, True)
                if form:
                    add(form, root)
                    suffixed.append((form, cross))
        for f in flags:
            entry = aff.prefixes.get(f)
            if entry is None:
                continue
            cross, rules = entry
            for r in rules:
                form = _apply(root, r, False)
                if form:
                    add(form, root)
                if cross:
                    for sform, scross in suffixed:
                        if scross:
                            pform = _apply(sform, r, False)
                            if pform:
                                add(pform, root)
        if len(roots_of) > max_forms:
            raise SourceError(f"{dic_p}: more than {max_forms:,} forms after {n_roots:,} roots: too many to expand")
    pairs: List[Tuple[str, str]] = []
    ambiguous = 0
    for form in sorted(roots_of):
        rs = roots_of[form]
        if len(rs) > 1:
            ambiguous += 1
        pairs.append((form, form if form in rs else min(rs)))
    counts = {"roots": n_roots, "forms": len(pairs), "forms_of_several_roots": ambiguous, "skipped_rules": aff.skipped_rules,
              "prefix_flags": len(aff.prefixes), "suffix_flags": len(aff.suffixes)}
    return pairs, counts


def hunspell_vocabulary(dic: "os.PathLike[str] | str", *, max_forms: int = 3_000_000) -> Tuple[Set[str], Dict[str, object]]:
    """The dictionary's words for a stemmer to stem: every expanded form, or only the roots when the
    expansion exceeds ``max_forms`` (agglutinative dictionaries such as Basque's and Armenian's)."""
    try:
        pairs, counts = expand_hunspell(dic, max_forms=max_forms)
        return {f for f, _ in pairs}, {"words": "expanded forms", **counts}
    except SourceError:
        aff = read_aff(Path(dic).with_suffix(".aff"))
        roots = {r for r, _ in read_dic(dic, aff)}
        return roots, {"words": f"roots only (more than {max_forms:,} expanded forms)", "roots": len(roots)}


def hunspell_files(dic: "os.PathLike[str] | str") -> Tuple[Path, Path]:
    """The ``.dic`` and the ``.aff`` beside it."""
    d = Path(dic)
    return d, d.with_suffix(".aff")


def hunspell_digest(dic: "os.PathLike[str] | str") -> str:
    """SHA-256 of ``sha256sum``'s listing of the ``.aff`` and ``.dic`` (in that order), as a recipe pins it::

        cd /usr/share/hunspell && sha256sum eu.aff eu.dic | sha256sum
    """
    d, a = hunspell_files(dic)
    listing = ""
    for f in (a, d):
        h = hashlib.sha256(f.read_bytes()).hexdigest()
        listing += f"{h}  {f.name}\n"
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()

