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
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

from ..errors import MalformedSourceError, SourceError

__all__ = ["AffixRule", "AffixFile", "read_aff", "read_dic", "expand_hunspell", "hunspell_vocabulary", "hunspell_digest",
           "hunspell_files", "convert", "analyse_hunspell"]

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
    iconv: Dict[str, str] = field(default_factory=dict)  # ICONV: input conversion (analysis only)
    oconv: Dict[str, str] = field(default_factory=dict)  # OCONV: output conversion (analysis only)

    def split_flags(self, text: str, aliases: bool = True) -> List[str]:
        """The flags of a flag field (aliases resolved, unless ``aliases`` is False: a flag declaration such as
        ``ONLYINCOMPOUND 1`` names a flag, never an ``AF`` line)."""
        if aliases and self.aliases and text.isdigit():
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
    except (LookupError, ValueError):  # ValueError: a NUL in the name
        raise MalformedSourceError(where, 0, f"unknown encoding {name.strip()[:40]!r} (SET)") from None


#: Directives of an ``.aff`` file (hunspell(5)); a file with none of them is not an affix file.
_AFF_KEYWORDS = frozenset(
    "SET FLAG COMPLEXPREFIXES LANG IGNORE AF AM KEY TRY NOSUGGEST MAXCPDSUGS MAXNGRAMSUGS MAXDIFF ONLYMAXDIFF "
    "NOSPLITSUGS SUGSWITHDOTS REP MAP PHONE WARN FORBIDWARN BREAK COMPOUNDRULE COMPOUNDMIN COMPOUNDFLAG "
    "COMPOUNDBEGIN COMPOUNDLAST COMPOUNDMIDDLE ONLYINCOMPOUND COMPOUNDPERMITFLAG COMPOUNDFORBIDFLAG COMPOUNDMORESUFFIXES "
    "COMPOUNDROOT COMPOUNDWORDMAX CHECKCOMPOUNDDUP CHECKCOMPOUNDREP CHECKCOMPOUNDCASE CHECKCOMPOUNDTRIPLE "
    "SIMPLIFIEDTRIPLE CHECKCOMPOUNDPATTERN FORCEUCASE COMPOUNDSYLLABLE SYLLABLENUM PFX SFX CIRCUMFIX FORBIDDENWORD "
    "FULLSTRIP KEEPCASE ICONV OCONV LEMMA_PRESENT NEEDAFFIX PSEUDOROOT SUBSTANDARD WORDCHARS CHECKSHARPS NAME HOME "
    "VERSION".split())


def _no_nul(text: str, where: str) -> None:
    """A NUL character makes a file binary, not a dictionary: :class:`MalformedSourceError` naming its line."""
    at = text.find("\x00")
    if at >= 0:
        raise MalformedSourceError(where, text.count("\n", 0, at) + 1, "a NUL byte: not a text file (not a Hunspell file)")


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
    _no_nul(text, str(p))
    lines = [line.rstrip("\r") for line in text.split("\n")]  # not splitlines(): U+0085 and kin are not line ends here
    if text.strip() and not any((_fields(line) or [""])[0] in _AFF_KEYWORDS for line in lines):
        raise MalformedSourceError(str(p), 0, f"no Hunspell directive (SET, FLAG, TRY, PFX, SFX, ...) in its "
                                              f"{len(lines):,} lines: not a Hunspell .aff file")
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
        elif key in ("ICONV", "OCONV") and len(parts) == 3:  # "ICONV n" announces them; each is "ICONV from to"
            (aff.iconv if key == "ICONV" else aff.oconv)[parts[1]] = parts[2]
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
        aff.not_words.update(aff.split_flags(v, aliases=False))
    return aff


def read_dic(path: "os.PathLike[str] | str", aff: AffixFile) -> Iterator[Tuple[str, List[str]]]:
    """``(root, flags)`` of each entry of a ``.dic`` file (the count line skipped; morphological fields dropped)."""
    for _line, root, flags in _dic_entries(path, aff):
        yield root, flags


def _dic_entries(path: "os.PathLike[str] | str", aff: AffixFile) -> Iterator[Tuple[int, str, List[str]]]:
    """``(line, root, flags)`` of each entry of a ``.dic`` file (see :func:`read_dic`)."""
    p = Path(path)
    text = p.read_bytes().decode(aff.encoding, errors="replace").lstrip("\ufeff")
    _no_nul(text, str(p))
    first = True
    for lineno, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if first:
            first = False
            if line.strip().isdigit():
                continue
            raise MalformedSourceError(str(p), lineno, f"the first line of a .dic file is its number of entries, got "
                                                        f"{line[:40]!r}: not a Hunspell .dic file")
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
            yield lineno, root, flags


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


def _open_dictionary(dic: "os.PathLike[str] | str", aff_path: "os.PathLike[str] | str | None") -> Tuple[Path, AffixFile]:
    """The ``.dic`` path and its read ``.aff`` (beside it unless given); SourceError when either is missing."""
    dic_p = Path(dic)
    aff_p = Path(aff_path) if aff_path is not None else dic_p.with_suffix(".aff")
    for file in (dic_p, aff_p):
        if not file.is_file():
            raise SourceError(f"{file}: Hunspell file not found")
    return dic_p, read_aff(aff_p)


#: Most forms one root may give (the largest of Debian's dictionaries: under 10,000); more is an explosion of
#: the affix rules (400 prefixes x 400 suffixes on a root: 160,000), refused as it happens.
MAX_FORMS_PER_ROOT = 100_000


def expand_hunspell(dic: "os.PathLike[str] | str", aff_path: "os.PathLike[str] | str | None" = None, *,
                    max_forms: int = 5_000_000, max_per_root: int = MAX_FORMS_PER_ROOT,
                    ) -> Tuple[List[Tuple[str, str]], Dict[str, int]]:
    """``(form, root)`` pairs of every form the dictionary's affix rules give (see the module docstring), and counts.

    Raises :class:`SourceError` as soon as the expansion exceeds ``max_forms`` distinct forms, or one root
    gives more than ``max_per_root`` (both budgets are checked as each form is added; a dictionary whose
    rules explode should be used over a vocabulary instead).
    """
    dic_p, aff = _open_dictionary(dic, aff_path)
    roots_of: Dict[str, Set[str]] = {}
    n_roots = 0
    made = lineno = 0  # forms given by the current root, and its line

    def add(form: str, root: str) -> None:
        nonlocal made
        made += 1
        if made > max_per_root:
            raise MalformedSourceError(str(dic_p), lineno, f"root {root[:40]!r} gives more than {max_per_root:,} forms: "
                                       "the affix rules explode; too many to expand")
        got = roots_of.get(form)
        if got is None:
            if len(roots_of) >= max_forms:
                raise SourceError(f"{dic_p}: more than {max_forms:,} forms after {n_roots:,} roots: too many to expand")
            roots_of[form] = {root}
        else:
            got.add(root)

    for lineno, root, flags in _dic_entries(dic_p, aff):  # noqa: B007 - add() names the line
        n_roots += 1
        made = 0
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



def convert(text: str, table: Dict[str, str]) -> str:
    """``text`` with every key of ``table`` replaced by its value, longest key first at each position (ICONV/OCONV)."""
    if not table:
        return text
    longest = max(len(k) for k in table)
    out: List[str] = []
    i = 0
    while i < len(text):
        for n in range(min(longest, len(text) - i), 0, -1):
            rep = table.get(text[i:i + n])
            if rep is not None:
                out.append(rep)
                i += n
                break
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _index(table: Dict[str, Tuple[bool, List[AffixRule]]]) -> Dict[str, List[Tuple[str, bool, AffixRule]]]:
    """Affix string -> the (flag, cross product, rule) that add it."""
    index: Dict[str, List[Tuple[str, bool, AffixRule]]] = {}
    for flag, (cross, rules) in table.items():
        for rule in rules:
            index.setdefault(rule.add, []).append((flag, cross, rule))
    return index


class _Analyser:
    """Roots of a word by the affix rules applied backwards (one suffix, one prefix, or both as a cross product)."""

    def __init__(self, aff: AffixFile, roots: Dict[str, Set[str]]):
        self.aff, self.roots = aff, roots
        self.sfx, self.pfx = _index(aff.suffixes), _index(aff.prefixes)
        self.sfx_len = max((len(a) for a in self.sfx), default=0)
        self.pfx_len = max((len(a) for a in self.pfx), default=0)

    def _root_with(self, stem: str, flag: str, rule: AffixRule) -> bool:
        return flag in self.roots.get(stem, ()) and bool(rule.condition.search(stem))

    def _suffix_roots(self, w: str, cross_only: bool) -> Iterator[Tuple[str, str]]:
        """(root, suffix flag) of ``w`` as root + one suffix."""
        for i in range(max(0, len(w) - self.sfx_len), len(w) + 1):
            for flag, cross, rule in self.sfx.get(w[i:], ()):
                if cross_only and not cross:
                    continue
                if rule.strip == "" and i == len(w) and rule.add == "":
                    stem = w
                else:
                    stem = w[:i] + rule.strip
                if self._root_with(stem, flag, rule):
                    yield stem, flag

    def roots_of(self, w: str) -> Set[str]:
        """Every root ``w`` is a form of (itself when it is a root that is a word by itself)."""
        found: Set[str] = set()
        own = self.roots.get(w)
        if own is not None and not (own & self.aff.not_words):
            found.add(w)
        found.update(r for r, _f in self._suffix_roots(w, False))
        for n in range(0, min(self.pfx_len, len(w)) + 1):
            for flag, cross, rule in self.pfx.get(w[:n], ()):
                inner = rule.strip + w[n:]
                if self._root_with(inner, flag, rule):
                    found.add(inner)
                if cross:  # prefix on a suffixed form: the root must carry both flags, both cross products
                    for r, _sflag in self._suffix_roots(inner, True):
                        if flag in self.roots[r] and rule.condition.search(r):
                            found.add(r)
        return found


def analyse_hunspell(dic: "os.PathLike[str] | str", words: "Iterable[str]", aff_path: "os.PathLike[str] | str | None" = None
                     ) -> Tuple[List[Tuple[str, str]], Dict[str, int]]:
    """``(word, root)`` for each of ``words`` that the dictionary analyses: the affix rules applied backwards.

    For dictionaries whose expansion is too large to list (Korean: more than 3 million forms from 785
    roots), the vocabulary's words are analysed instead: each word (after the ``.aff``'s ``ICONV``
    conversion; the root converted back by ``OCONV``) is split into a root of the ``.dic`` plus one
    suffix, one prefix or both (cross products), whose rule the root's flags allow and whose condition
    the root meets -- the same single level of affixes :func:`expand_hunspell` generates, so a word
    gets a root here exactly when the expansion lists it.  A word of several roots keeps itself when
    it is one, else the alphabetically first.  Words the dictionary does not know are left out.
    """
    dic_p, aff = _open_dictionary(dic, aff_path)
    roots: Dict[str, Set[str]] = {}
    for root, flags in read_dic(dic_p, aff):
        roots.setdefault(root, set()).update(flags)
    an = _Analyser(aff, roots)
    pairs: List[Tuple[str, str]] = []
    n_words = ambiguous = 0
    for word in sorted(set(words)):
        n_words += 1
        found = an.roots_of(convert(word, aff.iconv))
        if not found:
            continue
        out = {convert(r, aff.oconv) for r in found}
        ambiguous += len(out) > 1
        pairs.append((word, word if word in out else min(out)))
    counts = {"roots": len(roots), "words": n_words, "analysed": len(pairs), "words_of_several_roots": ambiguous,
              "suffix_flags": len(aff.suffixes), "prefix_flags": len(aff.prefixes), "skipped_rules": aff.skipped_rules}
    return pairs, counts
