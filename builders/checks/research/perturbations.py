"""Perturbed copies of good translations: does a metric rank the good one above each perturbed copy?

``meteor-build check perturbations``.  From the shared references of every target language held in
``../shared/data`` (the WMT21 ``systems`` and ``da`` files, ``mqm``, ``wmt-mqm``), a seeded sample of
good hypotheses per language (the reference itself, or with ``--good system`` a system output that the
raters judged as good as any, scored against its reference) gets one perturbed copy per perturbation of
:data:`PERTURBATIONS`: word order (reverse, shuffle, swap of neighbours), deletion of a content word and of a
function word, duplication, casing (first letter, whole sentence), punctuation (final one removed, a comma
added), a number changed, a negation added or removed where the language has simple negators, a word of the
source language left untranslated, a character dropped or swapped.  A perturbation that does not apply to a
sentence (no number, no negator, nothing to change) gives no item.

Per language and configuration (Meteor 1.5's configuration of the language, the same with ``--case-aware``,
the universal set, the ``mqm`` set, beside sacreBLEU's chrF and sentence BLEU), the report gives the share of
items whose good hypothesis scores strictly above the perturbed one (ties count against), and the mean score of
reversed references.

Content and function words come from the sample itself: the :data:`FUNCTION_WORDS` most frequent lower-cased
words of a language's references are its function words, longer alphabetic words outside them its content
words (no resource is needed, so every language is treated alike).  The shared files have no source column,
so *untranslated* replaces a content word by a content word of the pair's source language taken from that
language's own references (pairs whose source language has no references here give no item).
"""

from __future__ import annotations

import csv
import gzip
import math
import random
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ...errors import BuildError

__all__ = ["PERTURBATIONS", "WORD_ORDER", "FUNCTION_WORDS", "Context", "Item", "reference_texts", "good_hypotheses",
           "context_for", "perturb_all", "configurations", "Result", "run", "format_report", "reversed_scores",
           "char_units", "join_units", "units_of", "Prepared", "prepare", "SuiteFigures",
           "suite_figures", "meteor_scorer", "pooled_meteor", "universal_meteor", "near_meteor", "NEAR_WEIGHT"]

#: How many of a language's most frequent lower-cased words count as its function words.
FUNCTION_WORDS = 60
#: Languages written without spaces between words: word-order perturbations move characters (runs of Latin
#: letters and digits stay whole).
CHAR_LANGUAGES = ("zh", "ja")
#: The perturbations that only change word order.
WORD_ORDER = ("reverse", "shuffle", "swap-neighbours")
_PAIR = re.compile(r"\.([a-z]{2,3})-([a-z]{2,3})\.")
_RUN = re.compile(r"[A-Za-z0-9]+|\S")
csv.field_size_limit(1 << 24)


@dataclass
class Context:
    """What the perturbations of one language need: its function words, its content words, and the content words
    of each source language (for *untranslated*)."""

    lang: str
    function_words: frozenset
    foreign: Dict[str, List[str]] = field(default_factory=dict)

    @property
    def char_based(self) -> bool:
        """Whether word-order perturbations move characters (:data:`CHAR_LANGUAGES`)."""
        return self.lang in CHAR_LANGUAGES

    def is_content(self, word: str) -> bool:
        """A content word: alphabetic, not a function word, at least 4 letters (one character in Chinese and Japanese)."""
        if not word.isalpha() or word.lower() in self.function_words:
            return False
        return len(word) >= (1 if self.char_based else 4)

    def is_function(self, word: str) -> bool:
        """A function word: one of the language's most frequent words (:data:`FUNCTION_WORDS`), alphabetic."""
        return word.isalpha() and word.lower() in self.function_words


@dataclass
class Item:
    """One good hypothesis, its reference and the pair's source language."""

    lang: str
    hyp: str
    ref: str
    source_lang: str


def char_units(text: str) -> List[str]:
    """The units of a text written without spaces: runs of Latin letters and digits, other characters one by one."""
    return _RUN.findall(text)


def units_of(text: str, char_based: bool) -> List[str]:
    """A sentence's words (white space split), or :func:`char_units` for a language written without spaces."""
    return char_units(text) if char_based else text.split()


def join_units(units: Sequence[str], char_based: bool) -> str:
    """The inverse of :func:`units_of` (Latin runs of a character-based text keep a space between them)."""
    if not char_based:
        return " ".join(units)
    out = ""
    for u in units:
        if out and out[-1].isascii() and out[-1].isalnum() and u[0].isascii() and u[0].isalnum():
            out += " "
        out += u
    return out


# --- the perturbations: (text, context, rng) -> perturbed text, or None when it does not apply ---------------

Perturb = Callable[[str, Context, random.Random], Optional[str]]


def _changed(text: str, new: str) -> Optional[str]:
    return new if new and new != text else None


def reverse(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """The words (characters in Chinese and Japanese) in reverse order."""
    u = units_of(text, ctx.char_based)
    return _changed(text, join_units(u[::-1], ctx.char_based)) if len(u) > 1 else None


def shuffle(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """The words in a seeded random order (other than the original)."""
    u = units_of(text, ctx.char_based)
    if len(set(u)) < 2:
        return None
    for _ in range(20):
        v = list(u)
        rng.shuffle(v)
        if v != u:
            return _changed(text, join_units(v, ctx.char_based))
    return None


def swap_neighbours(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """Two neighbouring (different) words swapped."""
    u = units_of(text, ctx.char_based)
    spots = [i for i in range(len(u) - 1) if u[i] != u[i + 1]]
    if not spots:
        return None
    i = rng.choice(spots)
    u[i], u[i + 1] = u[i + 1], u[i]
    return _changed(text, join_units(u, ctx.char_based))


def _delete_one(text: str, ctx: Context, rng: random.Random, pred: Callable[[str], bool]) -> Optional[str]:
    u = units_of(text, ctx.char_based)
    spots = [i for i, w in enumerate(u) if pred(w)]
    if not spots or len(u) < 2:
        return None
    i = rng.choice(spots)
    return _changed(text, join_units(u[:i] + u[i + 1:], ctx.char_based))


def drop_content(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """One content word deleted."""
    return _delete_one(text, ctx, rng, ctx.is_content)


def drop_function(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """One function word deleted."""
    return _delete_one(text, ctx, rng, ctx.is_function)


def duplicate(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """One content word written twice."""
    u = units_of(text, ctx.char_based)
    spots = [i for i, w in enumerate(u) if ctx.is_content(w)]
    if not spots:
        return None
    i = rng.choice(spots)
    return _changed(text, join_units(u[:i + 1] + u[i:], ctx.char_based))


def case_first(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """The case of the first letter flipped."""
    for i, ch in enumerate(text):
        if ch.isalpha():
            flipped = ch.lower() if ch.isupper() else ch.upper()
            return _changed(text, text[:i] + flipped + text[i + 1:])
    return None


def case_all(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """The whole sentence in capitals."""
    return _changed(text, text.upper())


def _is_punct(ch: str) -> bool:
    return unicodedata.category(ch).startswith("P")


def punct_final_removed(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """The final punctuation removed (quotes and brackets after it stay)."""
    t = text.rstrip()
    closing = ""
    while t and unicodedata.category(t[-1]) in ("Pe", "Pf") or t.endswith(('"', "'")):
        closing = t[-1] + closing
        t = t[:-1]
    if not t or not _is_punct(t[-1]):
        return None
    while t and _is_punct(t[-1]):
        t = t[:-1]
    return _changed(text, t.rstrip() + closing)


def punct_added(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """A comma added after a word that has none."""
    u = units_of(text, ctx.char_based)
    spots = [i for i in range(len(u) - 1) if not _is_punct(u[i][-1]) and not _is_punct(u[i + 1][0])]
    if not spots:
        return None
    i = rng.choice(spots)
    comma = "，" if ctx.char_based else ","
    if ctx.char_based:
        return _changed(text, join_units(u[:i + 1] + [comma] + u[i + 1:], True))
    return _changed(text, join_units(u[:i] + [u[i] + comma] + u[i + 1:], False))


_DIGITS = re.compile(r"\d")


def number_changed(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """One digit of a number changed (to the next digit)."""
    spots = [m.start() for m in _DIGITS.finditer(text) if m.group().isascii()]
    if not spots:
        return None
    i = rng.choice(spots)
    return _changed(text, text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1:])


#: Simple negators: words whose deletion removes a negation, by language.
NEGATORS: Dict[str, Tuple[str, ...]] = {
    "en": ("not", "never"), "de": ("nicht", "nie"), "es": ("no", "nunca"), "fr": ("pas", "jamais"),
    "ru": ("не", "никогда"), "cz": (), "zh": ("不", "没"), "ja": (),
}
#: Where a negator is added: a word after which (en, de), before which (es, ru), or in place of which (fr, cz,
#: zh, ja) it goes.
_NEG_AFTER = {
    "en": ({"is", "are", "was", "were", "will", "can", "could", "should", "would", "may", "must", "has", "have",
            "had", "does", "do", "did"}, "not"),
    "de": ({"ist", "sind", "war", "waren", "wird", "werden", "kann", "können", "hat", "haben", "muss", "soll"}, "nicht"),
}
_NEG_BEFORE = {
    "es": ({"es", "son", "está", "están", "fue", "ha", "han", "puede", "pueden", "tiene", "tienen", "hay"}, "no"),
    "ru": ({"является", "был", "была", "было", "были", "может", "могут", "будет", "есть"}, "не"),
}
_NEG_REPLACE: Dict[str, Dict[str, str]] = {
    "fr": {"est": "n'est pas", "sont": "ne sont pas", "a": "n'a pas", "ont": "n'ont pas", "peut": "ne peut pas",
           "peuvent": "ne peuvent pas"},
    "cz": {"je": "není", "jsou": "nejsou", "byl": "nebyl", "byla": "nebyla", "bylo": "nebylo", "má": "nemá",
           "mají": "nemají", "může": "nemůže", "bude": "nebude"},
    "zh": {"是": "不是", "有": "没有", "会": "不会", "能": "不能"},
    "ja": {"ます": "ません", "です": "ではありません"},
}
_NEG_UNDO = {"cz": {v: k for k, v in _NEG_REPLACE["cz"].items()}, "ja": {"ません": "ます", "ではありません": "です"}}


def negation(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """A negation removed where the sentence has a simple negator, else added where the language has a simple way."""
    lang = ctx.lang
    if lang in ("zh", "ja"):
        for neg, plain in ((v, k) for k, v in _NEG_REPLACE[lang].items()):
            if neg in text:
                return _changed(text, text.replace(neg, plain, 1))
        for plain, neg in _NEG_REPLACE[lang].items():
            if plain in text:
                return _changed(text, text.replace(plain, neg, 1))
        return None
    u = text.split()
    low = [w.lower() for w in u]
    spots = [i for i, w in enumerate(low) if w in NEGATORS.get(lang, ())]
    if spots:
        i = spots[0]
        drop = {i}
        if lang == "fr" and i > 1 and low[i - 2] in ("ne", "n'"):
            drop.add(i - 2)
        out = [w for j, w in enumerate(u) if j not in drop]
        if lang == "fr":
            out = [re.sub(r"^[nN]'", "", w) if j < i and w.lower().startswith("n'") else w for j, w in enumerate(out)]
        return _changed(text, " ".join(out))
    if lang in _NEG_UNDO:
        for i, w in enumerate(low):
            if w in _NEG_UNDO[lang]:
                return _changed(text, " ".join(u[:i] + [_NEG_UNDO[lang][w]] + u[i + 1:]))
    if lang in _NEG_AFTER:
        words, negator = _NEG_AFTER[lang]
        for i, w in enumerate(low):
            if w in words:
                return _changed(text, " ".join(u[:i + 1] + [negator] + u[i + 1:]))
    if lang in _NEG_BEFORE:
        words, negator = _NEG_BEFORE[lang]
        for i, w in enumerate(low):
            if w in words:
                return _changed(text, " ".join(u[:i] + [negator] + u[i:]))
    if lang in _NEG_REPLACE:
        for i, w in enumerate(low):
            if w in _NEG_REPLACE[lang]:
                return _changed(text, " ".join(u[:i] + [_NEG_REPLACE[lang][w]] + u[i + 1:]))
    return None


def untranslated(text: str, ctx: Context, rng: random.Random, source_lang: str = "") -> Optional[str]:
    """One content word replaced by a content word of the source language (left untranslated)."""
    pool = ctx.foreign.get(source_lang, [])
    u = units_of(text, ctx.char_based)
    spots = [i for i, w in enumerate(u) if ctx.is_content(w)]
    if not pool or not spots:
        return None
    i = rng.choice(spots)
    return _changed(text, join_units(u[:i] + [rng.choice(pool)] + u[i + 1:], ctx.char_based))


def _inner_chars(ctx: Context, u: List[str]) -> List[int]:
    return [i for i, w in enumerate(u) if ctx.is_content(w) and len(w) >= 4]


def char_dropped(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """One inner character of a content word dropped (one character of the sentence in Chinese and Japanese)."""
    if ctx.char_based:
        spots = [i for i, ch in enumerate(text) if ch.isalpha()]
        if len(spots) < 2:
            return None
        i = rng.choice(spots)
        return _changed(text, text[:i] + text[i + 1:])
    u = text.split()
    spots = _inner_chars(ctx, u)
    if not spots:
        return None
    i = rng.choice(spots)
    w = u[i]
    k = rng.randrange(1, len(w) - 1)
    return _changed(text, " ".join(u[:i] + [w[:k] + w[k + 1:]] + u[i + 1:]))


def char_swapped(text: str, ctx: Context, rng: random.Random) -> Optional[str]:
    """Two neighbouring inner characters of a content word swapped (two neighbouring characters in Chinese and Japanese)."""
    if ctx.char_based:
        spots = [i for i in range(len(text) - 1) if text[i].isalpha() and text[i + 1].isalpha() and text[i] != text[i + 1]]
        if not spots:
            return None
        i = rng.choice(spots)
        return _changed(text, text[:i] + text[i + 1] + text[i] + text[i + 2:])
    u = text.split()
    spots = [i for i in _inner_chars(ctx, u) if any(u[i][k] != u[i][k + 1] for k in range(1, len(u[i]) - 2))]
    if not spots:
        return None
    i = rng.choice(spots)
    w = u[i]
    ks = [k for k in range(1, len(w) - 2) if w[k] != w[k + 1]]
    k = rng.choice(ks)
    return _changed(text, " ".join(u[:i] + [w[:k] + w[k + 1] + w[k] + w[k + 2:]] + u[i + 1:]))


#: Every perturbation, by name, in the report's order (``untranslated`` also takes the source language).
PERTURBATIONS: Dict[str, Perturb] = {
    "reverse": reverse, "shuffle": shuffle, "swap-neighbours": swap_neighbours,
    "drop-content-word": drop_content, "drop-function-word": drop_function, "duplicate-word": duplicate,
    "case-first-letter": case_first, "case-sentence": case_all,
    "punct-final-removed": punct_final_removed, "punct-comma-added": punct_added,
    "number-changed": number_changed, "negation": negation, "untranslated": untranslated,
    "char-dropped": char_dropped, "char-swapped": char_swapped,
}


# --- the data ----------------------------------------------------------------------------------------------


def _language(code: str) -> str:
    return "cz" if code == "cs" else code


def _tsv_rows(path: Path) -> Iterable[Dict[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        for n, row in enumerate(reader, start=2):
            if None in row or any(v is None for v in row.values()):
                raise BuildError(f"{path}, line {n}: expected {len(reader.fieldnames or [])} tab-separated columns")
            yield row


def data_files(data: Path) -> List[Path]:
    """The files the suite reads under ``data`` (``../shared/data``): ``wmt21/*.systems.tsv.gz``,
    ``wmt21/*.da.tsv.gz``, ``mqm/*.mqm.tsv.gz``, ``wmt-mqm/*.{mqm,esa}.tsv.gz``, sorted."""
    globs = ("wmt21/*.systems.tsv.gz", "wmt21/*.da.tsv.gz", "mqm/*.mqm.tsv.gz", "wmt-mqm/*.mqm.tsv.gz",
             "wmt-mqm/*.esa.tsv.gz")
    files = sorted({p for g in globs for p in data.glob(g)})
    if not files:
        raise BuildError(f"{data}: none of {', '.join(globs)}")
    return files


def _pair(path: Path) -> Tuple[str, str]:
    found = _PAIR.search(path.name)
    if found is None:
        raise BuildError(f"{path}: no language pair (like .en-de.) in the file name")
    return _language(found.group(1)), _language(found.group(2))


def reference_texts(files: Sequence[Path]) -> Dict[str, Dict[str, str]]:
    """Every distinct reference of every file, by target language: text -> the pair's source language
    (the first file naming a text wins)."""
    out: Dict[str, Dict[str, str]] = {}
    for path in files:
        src, tgt = _pair(path)
        col = None
        for row in _tsv_rows(path):
            if col is None:
                col = "ref" if "ref" in row else "ref_A"
                if col not in row:
                    raise BuildError(f"{path}: no ref or ref_A column")
            text = row[col].strip()
            if text:
                out.setdefault(tgt, {}).setdefault(text, src)
    return out


def good_hypotheses(files: Sequence[Path]) -> Dict[str, List[Tuple[str, str, str]]]:
    """System outputs judged as good as any (the file's best human score, the reference itself left out), by
    target language: (hypothesis, reference, source language); the judgments files only (MQM and ESA)."""
    out: Dict[str, List[Tuple[str, str, str]]] = {}
    for path in files:
        if not path.name.endswith((".mqm.tsv.gz", ".esa.tsv.gz")):
            continue
        src, tgt = _pair(path)
        rows = list(_tsv_rows(path))
        col = "esa" if "esa" in rows[0] else "mqm"

        values = [_human(r[col]) for r in rows]
        best = max(values)
        for r, v in zip(rows, values):
            h, ref = r["hyp"].strip(), r["ref"].strip()
            if v == best and h and ref and h != ref and not r["system"].lower().startswith("ref"):
                out.setdefault(tgt, []).append((h, ref, src))
    return out


def _human(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return -math.inf


def _words(texts: Iterable[str], char_based: bool) -> Counter:
    c: Counter = Counter()
    for t in texts:
        c.update(w.lower() for w in units_of(t, char_based) if w.isalpha())
    return c


def context_for(lang: str, texts: Sequence[str], others: Dict[str, Sequence[str]]) -> Context:
    """A language's :class:`Context` from its references ``texts`` and the references of the other languages."""
    char_based = lang in CHAR_LANGUAGES
    function = frozenset(w for w, _ in _words(texts, char_based).most_common(FUNCTION_WORDS))
    ctx = Context(lang, function)
    for other, other_texts in sorted(others.items()):
        if other == lang:
            continue
        oc = context_for_words(other, other_texts)
        ctx.foreign[other] = oc
    return ctx


def context_for_words(lang: str, texts: Sequence[str], limit: int = 500) -> List[str]:
    """Up to ``limit`` content words of a language (its most frequent ones past the function words)."""
    char_based = lang in CHAR_LANGUAGES
    counts = _words(texts, char_based)
    ranked = [w for w, _ in counts.most_common()]
    probe = Context(lang, frozenset(ranked[:FUNCTION_WORDS]))
    return sorted(w for w in ranked[FUNCTION_WORDS:FUNCTION_WORDS + 4 * limit] if probe.is_content(w))[:limit]


def perturb_all(item: Item, ctx: Context, seed: int, names: Sequence[str] = tuple(PERTURBATIONS)) -> Dict[str, str]:
    """Every perturbation of :data:`PERTURBATIONS` that applies to ``item``'s hypothesis (name -> perturbed text),
    each with its own generator seeded from ``seed``, the perturbation and the text (the same copy every run)."""
    out = {}
    for name in names:
        rng = random.Random(f"{seed}\t{name}\t{item.hyp}")
        f = PERTURBATIONS[name]
        new = untranslated(item.hyp, ctx, rng, item.source_lang) if name == "untranslated" else f(item.hyp, ctx, rng)
        if new is not None and new.strip() and new != item.hyp:
            out[name] = new
    return out


# --- the metrics ---------------------------------------------------------------------------------------------

#: ``score(hyps, refs)`` -> one score per pair.
PairScorer = Callable[[List[str], List[str]], List[float]]


def _meteor_scorer(m: Any) -> PairScorer:
    def score(hyps: List[str], refs: List[str]) -> List[float]:
        return [s.score for s in m.score_pairs(list(zip(hyps, refs)))]
    return score


def universal_meteor(lang: str, case_aware: bool = False) -> Optional[Any]:
    """The universal set scoring ``lang`` with ``--norm`` and the modules of the set that the installed bundle
    supports (None when no universal set is shipped)."""
    from meteor_lite.tuned import universal_set

    u = universal_set()
    if u is None:
        return None
    return pooled_meteor(lang, [u.alpha, u.beta, u.gamma, u.delta], u.modules, u.weights, case_aware)


def pooled_meteor(lang: str, params: Sequence[float], modules: Sequence[str], weights: Sequence[float],
                  case_aware: bool = False) -> Optional[Any]:
    """α β γ δ ``params`` scoring ``lang`` with ``--norm`` and the longest prefix of ``modules`` (weighted by
    ``weights``) that the installed bundle supports, as a universal set scores (None: no bundle scores ``lang``)."""
    from meteor_lite import Meteor
    from meteor_lite.errors import MeteorLiteError

    mods, ws = list(modules), list(weights)
    while mods:
        try:
            return Meteor(lang, norm=True, case_aware=case_aware, params=list(params[:4]), modules=mods, weights=ws,
                          quiet=True, strict_modules=True)
        except MeteorLiteError:
            mods, ws = mods[:-1], ws[:-1]
    return None


#: ``default + near``: near's weight, at most stem's where the configuration has stem (the registry's preset weight
#: for near, its weight in the language-independent preset).
NEAR_WEIGHT = 0.4


def near_meteor(lang: str, dm: Any) -> Optional[Any]:
    """Meteor 1.5's configuration ``dm`` with ``near`` added after its modules (weight :data:`NEAR_WEIGHT`, at most
    stem's), or None where the language scores characters (no word reaches near's four) or ``dm`` has near."""
    from meteor_lite import Meteor

    c = dm.config
    mods = list(c.modules)
    if "near" in mods or lang in CHAR_LANGUAGES:
        return None
    w = min(NEAR_WEIGHT, c.weights[mods.index("stem")]) if "stem" in mods else NEAR_WEIGHT
    return Meteor(lang, norm=True, modules=mods + ["near"], params=[c.alpha, c.beta, c.gamma, c.delta],
                  weights=[*c.weights, w], quiet=True)


def configurations(lang: str, baselines: bool = True) -> Dict[str, PairScorer]:
    """The configurations of ``lang`` the report compares, by label: ``default`` (Meteor 1.5's configuration, as
    ``check validity`` takes it; for a language outside Meteor 1.5 the universal set), ``default --case-aware``,
    ``default + near`` (:func:`near_meteor`), ``default --ch`` (precision and recall over characters, Meteor's ``-ch``),
    ``universal`` (the universal set, for Meteor 1.5's languages), ``mqm`` (``--task mqm`` where one is shipped),
    and sacreBLEU's ``chrF`` and ``BLEU`` when ``baselines``."""
    from meteor_lite import Meteor
    from meteor_lite.errors import MeteorLiteError
    from meteor_lite.languages import LANGUAGES
    from meteor_lite.tuned import shipped_tasks

    from .mqm_sets import default_meteor

    out: Dict[str, PairScorer] = {}
    try:
        dm, how = default_meteor(lang)
    except MeteorLiteError as exc:
        raise BuildError(f"{lang}: cannot score ({exc}); make bundles (and the recipe bundle of zh, ja)") from None
    out["default"] = _meteor_scorer(dm)
    mods = list(dm.config.modules)
    out["default --case-aware"] = _meteor_scorer(Meteor(lang, norm=True, case_aware=True, modules=mods, quiet=True))
    near = near_meteor(lang, dm)
    if near is not None:
        out["default + near"] = _meteor_scorer(near)
    c = dm.config
    out["default --ch"] = _meteor_scorer(Meteor(lang, norm=True, char_based=True, modules=mods, weights=list(c.weights),
                                                params=[c.alpha, c.beta, c.gamma, c.delta], quiet=True))
    if lang in LANGUAGES:
        u = universal_meteor(lang)
        if u is not None:
            out["universal"] = _meteor_scorer(u)
    if "mqm" in shipped_tasks(lang):
        out["mqm"] = _meteor_scorer(Meteor(lang, task="mqm", quiet=True))
    if baselines:
        BLEU, CHRF = _sacrebleu()
        chrf = CHRF()
        bleu = BLEU(effective_order=True, tokenize="zh" if lang == "zh" else "char" if lang == "ja" else "13a")
        out["chrF"] = lambda hs, rs: [chrf.sentence_score(h, [r]).score / 100 for h, r in zip(hs, rs)]
        out["BLEU"] = lambda hs, rs: [bleu.sentence_score(h, [r]).score / 100 for h, r in zip(hs, rs)]
    return out


def _sacrebleu() -> Tuple[Any, Any]:
    from .mqm_sets import sacrebleu_metrics

    return sacrebleu_metrics()


# --- the run -------------------------------------------------------------------------------------------------


@dataclass
class Result:
    """One language's figures: per configuration and perturbation, wins / items; the mean and maximum score of the
    reversed hypotheses per configuration."""

    lang: str
    good: str
    items: int
    wins: Dict[str, Dict[str, Tuple[int, int, int]]]  # config -> perturbation -> (wins, ties, items)
    reversed_mean: Dict[str, float]
    reversed_max: Dict[str, float]

    def accuracy(self, config: str, perturbation: Optional[str] = None) -> float:
        """Share of items won (one perturbation, or all items of every perturbation pooled)."""
        cells = self.wins[config].values() if perturbation is None else [self.wins[config].get(perturbation, (0, 0, 0))]
        w = sum(c[0] for c in cells)
        n = sum(c[2] for c in cells)
        return w / n if n else math.nan


def sample_items(lang: str, data: Path, good: str, n: int, seed: int,
                 refs: Optional[Dict[str, Dict[str, str]]] = None) -> List[Item]:
    """A seeded sample of ``n`` good hypotheses of ``lang`` (``good``: ``reference`` or ``system``)."""
    files = data_files(data)
    refs = refs if refs is not None else reference_texts(files)
    rng = random.Random(f"{seed}\t{lang}\t{good}")
    if good == "reference":
        pool = sorted(refs.get(lang, {}).items())
        picked = rng.sample(pool, min(n, len(pool)))
        return [Item(lang, t, t, src) for t, src in picked]
    if good != "system":
        raise BuildError(f"--good {good!r}: choose reference or system")
    rows = sorted(set(good_hypotheses(files).get(lang, [])))
    picked_rows = rng.sample(rows, min(n, len(rows)))
    return [Item(lang, h, r, src) for h, r, src in picked_rows]


def reversed_scores(score: PairScorer, items: Sequence[Item], ctx: Context) -> List[float]:
    """The scores of the reversed hypotheses of ``items`` (those that reverse to another text) against their references."""
    rng = random.Random(0)
    pairs = [(r, it.ref) for it in items if (r := reverse(it.hyp, ctx, rng)) is not None]
    return score([h for h, _ in pairs], [r for _, r in pairs]) if pairs else []


def run(data: Path, langs: Sequence[str], n: int = 200, seed: int = 0, good: str = "reference",
        progress: Callable[[str], None] = lambda s: None) -> List[Result]:
    """The suite on ``n`` good hypotheses per language of ``langs`` (every target language held when empty)."""
    files = data_files(data)
    refs = reference_texts(files)
    todo = list(langs) or sorted(refs)
    results = []
    for lang in todo:
        if lang not in refs:
            raise BuildError(f"{lang}: no references of this target language under {data}")
        items = sample_items(lang, data, good, n, seed, refs)
        used = good
        if not items:  # no judged system output of this language: the references themselves
            used, items = "reference", sample_items(lang, data, "reference", n, seed, refs)
        texts = sorted(refs[lang])
        ctx = context_for(lang, texts, {k: sorted(v) for k, v in refs.items()})
        perturbed = [perturb_all(it, ctx, seed) for it in items]
        configs = configurations(lang)
        progress(f"{lang}: {len(items)} good hypotheses, {sum(len(p) for p in perturbed)} perturbed copies, "
                 f"{len(configs)} metrics")
        wins: Dict[str, Dict[str, Tuple[int, int, int]]] = {}
        rev_mean: Dict[str, float] = {}
        rev_max: Dict[str, float] = {}
        for label, score in configs.items():
            base = score([it.hyp for it in items], [it.ref for it in items])
            hyps, refs_, owners, names = [], [], [], []
            for k, (it, p) in enumerate(zip(items, perturbed)):
                for name, text in p.items():
                    hyps.append(text)
                    refs_.append(it.ref)
                    owners.append(k)
                    names.append(name)
            scores = score(hyps, refs_)
            cell: Dict[str, List[int]] = {}
            rev: List[float] = []
            for k, name, s in zip(owners, names, scores):
                c = cell.setdefault(name, [0, 0, 0])
                c[0] += base[k] > s + 1e-12
                c[1] += abs(base[k] - s) <= 1e-12
                c[2] += 1
                if name == "reverse":
                    rev.append(s)
            wins[label] = {name: (c[0], c[1], c[2]) for name, c in cell.items()}
            rev_mean[label] = math.fsum(rev) / len(rev) if rev else math.nan
            rev_max[label] = max(rev) if rev else math.nan
        results.append(Result(lang, used, len(items), wins, rev_mean, rev_max))
    return results


def _pct(v: float) -> str:
    return "-" if math.isnan(v) else f"{100 * v:.1f}"


def format_report(results: Sequence[Result]) -> str:
    """Markdown: per language, the share (%) of items whose good hypothesis scores above its perturbed copy, per
    perturbation (rows) and configuration (columns), the items per perturbation, and the reversed hypotheses' scores."""
    lines: List[str] = []
    for r in results:
        configs = list(r.wins)
        lines += [f"### {r.lang} ({r.items} good hypotheses: {'the references' if r.good == 'reference' else 'system outputs judged good'})",
                  "", "| perturbation | items | " + " | ".join(configs) + " |",
                  "|---|---:|" + "---:|" * len(configs)]
        for name in PERTURBATIONS:
            counts = [r.wins[c].get(name, (0, 0, 0)) for c in configs]
            if not counts[0][2]:
                continue
            lines.append(f"| {name} | {counts[0][2]} | " + " | ".join(_pct(r.accuracy(c, name)) for c in configs) + " |")
        lines.append("| **all** | " + str(sum(v[2] for v in r.wins[configs[0]].values())) + " | "
                     + " | ".join(f"**{_pct(r.accuracy(c))}**" for c in configs) + " |")
        lines.append("| reversed: mean score | | " + " | ".join(
            "-" if math.isnan(r.reversed_mean[c]) else f"{r.reversed_mean[c]:.3f}" for c in configs) + " |")
        lines.append("| reversed: highest score | | " + " | ".join(
            "-" if math.isnan(r.reversed_max[c]) else f"{r.reversed_max[c]:.3f}" for c in configs) + " |")
        lines.append("")
    if results:
        order = ["default", "default --case-aware", "default + near", "default --ch", "universal", "mqm", "chrF", "BLEU"]
        configs = sorted({c for r in results for c in r.wins}, key=lambda c: order.index(c) if c in order else 99)
        lines += ["### Every language (share of items won, all perturbations pooled)", "",
                  "| language | " + " | ".join(configs) + " |", "|---|" + "---:|" * len(configs)]
        for r in results:
            lines.append(f"| {r.lang} | " + " | ".join(_pct(r.accuracy(c)) if c in r.wins else "-" for c in configs) + " |")
    return "\n".join(lines)


def as_json(results: Sequence[Result]) -> List[Dict[str, Any]]:
    """Every figure of ``results`` (for ``--json``)."""
    return [{"lang": r.lang, "good": r.good, "items": r.items,
             "wins": {c: {p: list(v) for p, v in d.items()} for c, d in r.wins.items()},
             "reversed_mean": r.reversed_mean, "reversed_max": r.reversed_max} for r in results]


# --- the keep rule's measure ----------------------------------------------------------------------------------


@dataclass
class Prepared:
    """A language's suite made once: the good hypotheses, their perturbed copies, and the reversed references."""

    lang: str
    good: str
    items: List[Item]
    perturbed: List[Dict[str, str]]
    reversed_pairs: List[Tuple[str, str]]


def prepare(data: Path, lang: str, n: int = 200, seed: int = 0, good: str = "system") -> Prepared:
    """The suite of ``lang`` (``good``: ``system``, falling back to the references where no system output is judged
    good; or ``reference``), with ``n`` references reversed for the word-order property."""
    files = data_files(data)
    refs = reference_texts(files)
    if lang not in refs:
        raise BuildError(f"{lang}: no references of this target language under {data}")
    items = sample_items(lang, data, good, n, seed, refs)
    if not items:
        good, items = "reference", sample_items(lang, data, "reference", n, seed, refs)
    ctx = context_for(lang, sorted(refs[lang]), {k: sorted(v) for k, v in refs.items()})
    rev_items = sample_items(lang, data, "reference", n, seed, refs)
    rng = random.Random(0)
    rev = [(r, it.ref) for it in rev_items if (r := reverse(it.ref, ctx, rng)) is not None]
    return Prepared(lang, good, items, [perturb_all(it, ctx, seed) for it in items], rev)


@dataclass
class SuiteFigures:
    """A configuration's figures on a :class:`Prepared` suite."""

    accuracy: float
    reversed_mean: float
    reversed_max: float

    @property
    def word_order_ok(self) -> bool:
        """Reversed references below 0.75 on average and never 1.0."""
        return self.reversed_mean < 0.75 and self.reversed_max < 1.0

    def as_dict(self) -> Dict[str, float]:
        """For a provenance."""
        return {"accuracy": round(self.accuracy, 6), "reversed_mean": round(self.reversed_mean, 6),
                "reversed_max": round(self.reversed_max, 6)}


def suite_figures(score: PairScorer, p: Prepared) -> SuiteFigures:
    """The share of perturbed copies scored strictly below their good hypothesis (every perturbation pooled), and
    the mean and highest score of the reversed references."""
    base = score([it.hyp for it in p.items], [it.ref for it in p.items])
    hyps, refs, owners = [], [], []
    for k, (it, copies) in enumerate(zip(p.items, p.perturbed)):
        for text in copies.values():
            hyps.append(text)
            refs.append(it.ref)
            owners.append(k)
    scores = score(hyps, refs)
    wins = sum(base[k] > s + 1e-12 for k, s in zip(owners, scores))
    rev = score([h for h, _ in p.reversed_pairs], [r for _, r in p.reversed_pairs])
    return SuiteFigures(wins / len(scores) if scores else math.nan, math.fsum(rev) / len(rev) if rev else math.nan,
                        max(rev) if rev else math.nan)


def meteor_scorer(m: Any) -> PairScorer:
    """A :class:`meteor_lite.Meteor`'s segment scores as a :data:`PairScorer`."""
    return _meteor_scorer(m)
