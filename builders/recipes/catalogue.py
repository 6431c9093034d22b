"""The languages beyond Snowball 2.2.0's: their recipes (written here) and the language table of the docs.

``meteor-build check write-recipes`` writes the recipes of Meteor's languages and of the languages
with a Snowball 2.2.0 stemmer; this module writes the others (:data:`CATALOGUE`): languages whose
stem map is a Snowball 3 stemmer run by PyStemmer (Czech, Persian, Polish) or a simplemma lemma
map, and a few with function words only.  Czech's recipe (``cz.toml``, bundle ``cz-wordfreq``) is
written here too, since its stem map is PyStemmer's.

:func:`language_rows` reads every recipe (and, when given, the built bundles) and gives the rows of
the table in ``docs/languages.md`` (:func:`language_table`); ``meteor-build recipe resources/recipes
--table`` prints it, and a test keeps the docs in step with the recipes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from meteor_lite.languages import SCRIPT_LANGUAGES, canonical_language, default_tokenizer

from .dictionaries import HUNSPELL
from .model import LEMMA_KINDS, Recipe, load_recipe, recipe_files, write_recipe

__all__ = ["CatalogueEntry", "CATALOGUE", "ENGLISH_NAMES", "catalogue_recipe", "write_catalogue", "LanguageRow",
           "language_rows", "language_table", "has_matcher"]


@dataclass(frozen=True)
class CatalogueEntry:
    """One language of :data:`CATALOGUE`: its stem source (``pystemmer:<algorithm>``, ``simplemma:<code>`` or "");
    ``wordfreq`` False for a language wordfreq has no list of (a lemma map only, no function words)."""

    name: str
    stems: str
    note: str = ""
    version: str = "1.0.0"
    wordfreq: bool = True


#: Languages whose recipes this module writes (ISO 639-1 codes; ``cz`` is Meteor's code of Czech).
CATALOGUE: Dict[str, CatalogueEntry] = {
    "cz": CatalogueEntry("Czech", "pystemmer:czech", "; not Meteor 1.5's resources (those are cz.sqlite)", "1.1.0"),
    "fa": CatalogueEntry("Persian", "pystemmer:persian"),
    "pl": CatalogueEntry("Polish", "pystemmer:polish"),
    "bg": CatalogueEntry("Bulgarian", "simplemma:bg"),
    "bs": CatalogueEntry("Bosnian", "simplemma:hbs", " (wordfreq's and simplemma's Serbo-Croatian data, Latin script)"),
    "hr": CatalogueEntry("Croatian", "simplemma:hbs", " (wordfreq's and simplemma's Serbo-Croatian data, Latin script)"),
    "he": CatalogueEntry("Hebrew", "simplemma:he"),
    "is": CatalogueEntry("Icelandic", "simplemma:is"),
    "lv": CatalogueEntry("Latvian", "simplemma:lv"),
    "mk": CatalogueEntry("Macedonian", "simplemma:mk"),
    "ms": CatalogueEntry("Malay", "simplemma:ms"),
    "sk": CatalogueEntry("Slovak", "simplemma:sk"),
    "sl": CatalogueEntry("Slovenian", "simplemma:sl"),
    "tl": CatalogueEntry("Filipino (Tagalog)", "simplemma:tl", " (wordfreq's 'fil' list)"),
    "uk": CatalogueEntry("Ukrainian", "simplemma:uk"),
    # simplemma languages without a wordfreq list: a lemma map is their only resource
    "cy": CatalogueEntry("Welsh", "simplemma:cy", wordfreq=False),
    "gv": CatalogueEntry("Manx", "simplemma:gv", wordfreq=False),
    "ka": CatalogueEntry("Georgian", "simplemma:ka", wordfreq=False),
    "la": CatalogueEntry("Latin", "simplemma:la", wordfreq=False),
    "lb": CatalogueEntry("Luxembourgish", "simplemma:lb", wordfreq=False),
    "ml": CatalogueEntry("Malayalam", "simplemma:ml", wordfreq=False),
    "sw": CatalogueEntry("Swahili", "simplemma:sw", wordfreq=False),
    "bn": CatalogueEntry("Bengali", ""),
    "ur": CatalogueEntry("Urdu", ""),
    "vi": CatalogueEntry("Vietnamese", ""),
}

#: English names of every language with a recipe (the table's first column).
ENGLISH_NAMES: Dict[str, str] = {
    "en": "English", "cz": "Czech", "de": "German", "es": "Spanish", "fr": "French", "da": "Danish",
    "fi": "Finnish", "hu": "Hungarian", "it": "Italian", "nl": "Dutch", "no": "Norwegian (Bokmål)",
    "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "se": "Swedish", "tr": "Turkish",
    "ar": "Arabic (Arabic script)", "ca": "Catalan", "el": "Greek", "hi": "Hindi", "id": "Indonesian",
    "lt": "Lithuanian", "sr": "Serbian (Latin script)", "ta": "Tamil", "zh": "Chinese", "ja": "Japanese",
    "ko": "Korean", "gl": "Galician", "gn": "Guarani", "ne": "Nepali", **{c: e.name for c, e in CATALOGUE.items()},
    **{c: d.name for c, d in HUNSPELL.items()},
}


def _describe(code: str, e: CatalogueEntry) -> str:
    kind, _, arg = e.stems.partition(":")
    if not e.wordfreq:
        return f"{e.name}: a lemma map from simplemma's '{arg}' dictionary (map only); no function words (wordfreq has no {code} list){e.note}"
    what = "function words (wordfreq, relative frequency >= 1e-3)"
    if kind == "pystemmer":
        what += f" and a Snowball 3 '{arg}' stem map (PyStemmer, map only) over wordfreq's list"
    elif kind == "simplemma":
        what += f" and a lemma map from simplemma's '{arg}' dictionary (map only)"
    else:
        what += "; no stem or lemma map (none is available)"
    return f"{e.name}: {what}{e.note}"


def catalogue_recipe(code: str, out: Path) -> Dict[str, object]:
    """The recipe structure of a :data:`CATALOGUE` language (its sources found and checksummed now)."""
    from .model import RECIPE_FORMAT, RECIPE_FORMAT_VERSION
    from .new_recipe import NewRecipe, new_recipe_data

    e = CATALOGUE[code]
    kind, _, arg = e.stems.partition(":")
    o = NewRecipe(
        lang=code, out=out, name=f"{code}-wordfreq" if code == "cz" else code, version=e.version,
        description=_describe(code, e),
        wordfreq=e.wordfreq, fw_from="wordfreq" if e.wordfreq else "none", stems=kind == "pystemmer", stemmer=arg if kind == "pystemmer" else None,
        lemmas=e.stems if kind == "simplemma" else None,
    )
    data = new_recipe_data(o)
    data["format"], data["format_version"] = RECIPE_FORMAT, RECIPE_FORMAT_VERSION
    return data


def write_catalogue(out_dir: Path, codes: Optional[Sequence[str]] = None) -> List[Path]:
    """(Re)write the recipes of :data:`CATALOGUE` (or of ``codes``) under ``out_dir``; their paths."""
    written = []
    for code in codes or list(CATALOGUE):
        out = out_dir / f"{code}.toml"
        data = catalogue_recipe(code, out)
        header = (
            f"meteor-lite bundle recipe: {data['bundle']['description']}\n"  # type: ignore[index]
            f"Build: meteor-build recipe resources/recipes/{code}.toml  (make resources builds them all)\n"
            "Written by meteor_lite_builders.recipes.catalogue.write_catalogue; the sha256 values pin wordfreq 3.1.1,\n"
            "simplemma 2.0.0 and pycocoevalcap 1.2; stemmer = \"PyStemmer==...\" pins the Snowball 3 stemmer."
        )
        written.append(write_recipe(data, out, header=header))
    return written


# -- the language table -----------------------------------------------------------------------------


@dataclass
class LanguageRow:
    """One row of the docs' language table."""

    code: str
    name: str
    bundle: str
    tokenizer: str
    function_words: str
    matcher: str
    synonyms: str
    sizes: str
    licences: str


def has_matcher(r: Recipe) -> bool:
    """True when the recipe's bundle gives a stem, lemma or character-level matcher (a cjk/char tokeniser)."""
    return "stems" in r.sections or default_tokenizer(r.language) in ("cjk", "char")


def _matcher(r: Recipe) -> str:
    sec = r.sections.get("stems")
    tok = default_tokenizer(r.language)
    if sec is None:
        return f"characters (`{tok}` tokeniser, exact)" if tok in ("cjk", "char") else "—"
    kinds = [r.sources[n].kind for n in r.uses("stems")]
    if kinds[0] in LEMMA_KINDS and "algorithm" not in sec:
        return ", ".join(
            f"simplemma `{r.sources[n].language}` lemmas" if r.sources[n].kind == "simplemma"
            else f"Hunspell `{Path(r.sources[n].path).name}` lemmas" + (" of wordfreq's words" if "analyse" in sec else "")
            if r.sources[n].kind == "hunspell"
            else f"lemma file `{r.sources[n].path}`"
            for n in r.uses("stems")
        ) + " (map only)"
    alg = sec.get("algorithm") or canonical_language(r.language)
    stemmer = sec.get("stemmer", "snowballstemmer")
    over = " over Hunspell's words" if "hunspell" in kinds else ""
    if stemmer.startswith("PyStemmer"):
        return f"Snowball 3 `{alg}` ({stemmer}, map only){over}"
    return f"Snowball `{alg}` (snowballstemmer 2.2.0){over}"


def _synonyms(r: Recipe) -> str:
    """The synonym (and paraphrase) source of a recipe, as the table shows it."""
    if "synonyms" not in r.sections:
        return "—"
    s = r.sources[r.uses("synonyms")[0]]
    what = {"wordnet": "WordNet", "lmf": "WN-LMF", "mythes": "thesaurus"}.get(s.kind, s.kind)
    name = Path(s.path).name
    para = " + paraphrases" if r.uses("paraphrases") == r.uses("synonyms") else ""
    return f"{what} `{name}`{para}" + (" (optional)" if not s.required else "")


def _function_words(r: Recipe) -> str:
    sec = r.sections.get("function_words")
    if sec is None:
        return "—"
    srcs = [r.sources[n] for n in r.uses("function_words")]
    what = f"wordfreq `{srcs[0].file}`" if srcs[0].kind == "wordfreq" else "corpus " + ", ".join(f"`{s.path}`" for s in srcs)
    return f"{what} ≥ {sec.get('threshold', 1e-3):g}"


def _licences(r: Recipe) -> str:
    out: List[str] = []
    for s in r.sources.values():
        lic = "simplemma data: mixed, incl. ODbL-1.0" if s.kind == "simplemma" else s.licence.split(" (")[0]
        if lic not in out:
            out.append(lic)
    return "; ".join(out)


def _sizes(r: Recipe, bundles: Optional[Path]) -> str:
    if bundles is None:
        return "—"
    from meteor_lite.errors import BundleError
    from meteor_lite.resources.bundle import Bundle

    path = bundles / f"{r.name}.sqlite"
    if not path.is_file():
        return "not built"
    try:
        with Bundle.open(path) as b:
            counts = b.counts()
    except (BundleError, OSError) as exc:
        return f"unreadable ({exc})"
    out = f"{counts.get('function_words', 0):,} fw, {counts.get('stems', 0):,} stems"
    if counts.get("synsets"):
        out += f", {counts['synsets']:,} synonym rows"
    if counts.get("paraphrases"):
        out += f", {counts['paraphrases']:,} paraphrases"
    return out


def language_rows(recipes: Path, bundles: Optional[Path] = None) -> List[LanguageRow]:
    """The table's rows, one per recipe, sorted by code (sizes from ``bundles`` when given)."""
    rows = []
    for p in recipe_files([recipes]):
        r = load_recipe(p)
        code = r.language
        tok = f"`{default_tokenizer(code)}`"
        if code in SCRIPT_LANGUAGES and SCRIPT_LANGUAGES[code][2]:
            tok += f" (or `{SCRIPT_LANGUAGES[code][2]}`)"
        rows.append(LanguageRow(code, ENGLISH_NAMES.get(code, code), r.name, tok, _function_words(r), _matcher(r),
                                _synonyms(r), _sizes(r, bundles), _licences(r)))
    return sorted(rows, key=lambda x: x.code)


_HEADER: Tuple[str, ...] = ("code", "language", "bundle", "tokeniser", "function words", "stem / lemma / character matcher",
                            "synonyms", "sizes", "licences")


def language_table(rows: Sequence[LanguageRow]) -> str:
    """The rows as a Markdown table."""
    lines = ["| " + " | ".join(_HEADER) + " |", "|" + " --- |" * len(_HEADER)]
    for x in rows:
        cells = (f"`{x.code}`", x.name, f"`{x.bundle}.sqlite`", x.tokenizer, x.function_words, x.matcher, x.synonyms, x.sizes,
                 x.licences)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
