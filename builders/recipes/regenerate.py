"""(Re)write the recipes of ``resources/recipes/`` that ``make resources`` builds.

One recipe per language, written as ``meteor-build new-recipe`` writes them (checksums of the
installed inputs filled in):

* every language of Meteor 1.5 (en cz de es fr da fi hu it nl no pt ro ru se tr): bundle
  ``<lang>-wordfreq`` -- the language's own function words from wordfreq (relative frequency
  >= 1e-3), a Snowball stem map over wordfreq's whole list, Meteor 1.5's non-breaking prefixes
  where the jar has them; English also gets WordNet synonyms when ``/usr/share/wordnet`` exists
  (an optional source).  The name keeps them apart from ``<lang>.sqlite``, the import of the
  official release, which stays the default that reproduces Meteor 1.5's numbers.  Czech has no
  Snowball stemmer: function words only.
* every other language with both a Snowball stemmer in snowballstemmer 2.2.0 and a wordfreq list
  (ca el hi id lt sr ta, and ar): bundle ``<lang>`` (found by ``meteor-lite score --lang <lang>``;
  ``ar`` is Arabic script, Meteor 1.5's Buckwalter Arabic being ``ar-bw-red``).
  The recipes of ``zh``, ``ja`` and ``ko`` are written by hand; this tool leaves them alone.

Run it after upgrading wordfreq or the official release (the recipes' checksums pin them):

    meteor-build check write-recipes [--out-dir resources/recipes] [--check]

``--check`` lists the languages that have both a stemmer and a wordfreq list and says which
recipe covers each (exit 1 if one is missing).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from meteor_lite.resources.locate import checkout_root

#: Where the shipped recipes live: the checkout's ``resources/recipes`` (the working directory's outside one).
DEFAULT_OUT_DIR = (checkout_root() or Path.cwd()) / "resources" / "recipes"

#: Meteor 1.5's languages (short codes as the scorer spells them).
METEOR_LANGUAGES = ("en", "cz", "de", "es", "fr", "da", "fi", "hu", "it", "nl", "no", "pt", "ro", "ru", "se", "tr")

#: Languages beyond Meteor's: code -> English name.
NEW_LANGUAGES: Dict[str, str] = {
    "ar": "Arabic (Arabic script)",
    "ca": "Catalan",
    "el": "Greek",
    "hi": "Hindi",
    "id": "Indonesian",
    "lt": "Lithuanian",
    "sr": "Serbian (Latin script, from wordfreq's Serbo-Croatian list 'sh')",
    "ta": "Tamil",
}

ENGLISH_NAMES = {
    "en": "English", "cz": "Czech", "de": "German", "es": "Spanish", "fr": "French", "da": "Danish",
    "fi": "Finnish", "hu": "Hungarian", "it": "Italian", "nl": "Dutch", "no": "Norwegian (Bokmål)",
    "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "se": "Swedish", "tr": "Turkish",
}

WORDNET_DIR = Path("/usr/share/wordnet")


def recipe_args(lang: str) -> Dict[str, object]:
    """Keyword arguments of the recipe writer (``meteor-build new-recipe``) for a language."""
    meteor = lang in METEOR_LANGUAGES
    name = f"{lang}-wordfreq" if meteor else lang
    label = ENGLISH_NAMES.get(lang) or NEW_LANGUAGES[lang]
    stems = lang != "cz"
    what = "function words (wordfreq, relative frequency >= 1e-3)" + (
        " and a Snowball stem map over wordfreq's list" if stems else "; no stem map (Snowball has no Czech stemmer)"
    )
    if lang == "en":
        what += "; WordNet synonyms when the WordNet database is installed"
    note = f"; not Meteor 1.5's resources (those are {lang}.sqlite)" if meteor else ""
    return {
        "lang": lang,
        "name": name,
        "version": "1.0.0",
        "description": f"{label}: {what}{note}",
        "wordfreq": True,
        "corpus": [],
        "corpus_licence": "",
        "fw_from": "wordfreq",
        "threshold": 1e-3,
        "stems": stems,
        "stemmer": "arabic" if lang == "ar" else None,  # explicit, though it is also the language's default
        "wordfreq_top": None,
        "wordnet": WORDNET_DIR if lang == "en" and (WORDNET_DIR / "data.noun").is_file() else None,
        "lmf": None,
        "synonym_licence": None,
        "paraphrases": None,
        "paraphrase_licence": "",
        "prefixes": "auto",
        "optional": ["wordnet"] if lang == "en" and (WORDNET_DIR / "data.noun").is_file() else [],
    }


#: ISO 639-1 code of each Snowball algorithm of snowballstemmer 2.2.0 (``porter`` is English too).
SNOWBALL_ISO: Dict[str, str] = {
    "arabic": "ar", "armenian": "hy", "basque": "eu", "catalan": "ca", "danish": "da", "dutch": "nl",
    "english": "en", "finnish": "fi", "french": "fr", "german": "de", "greek": "el", "hindi": "hi",
    "hungarian": "hu", "indonesian": "id", "irish": "ga", "italian": "it", "lithuanian": "lt",
    "nepali": "ne", "norwegian": "nb", "portuguese": "pt", "romanian": "ro", "russian": "ru",
    "serbian": "sr", "spanish": "es", "swedish": "sv", "tamil": "ta", "turkish": "tr", "yiddish": "yi",
}


def covered_languages() -> List[str]:
    """ISO codes of the languages with both a pure-Python Snowball stemmer and a wordfreq list."""
    import wordfreq

    from meteor_lite.resources.stemming import snowball_classes

    from ..lexical.function_words import _WORDFREQ_CODES

    have_wf = set(wordfreq.available_languages(wordlist="best"))
    return sorted(
        code for alg, code in SNOWBALL_ISO.items()
        if alg in snowball_classes() and _WORDFREQ_CODES.get(code, code) in have_wf
    )


def check_recipes(out_dir: Path) -> int:
    """List the eligible languages and the recipe covering each; 1 if one is missing."""
    from meteor_lite.languages import canonical_language

    from .model import load_recipe

    have = {canonical_language(load_recipe(p).language): p.name for p in sorted(out_dir.glob("*.toml"))}
    missing = [code for code in covered_languages() if canonical_language(code) not in have]
    for code in covered_languages():
        print(f"{code:3} {have.get(canonical_language(code), 'MISSING')}")
    for lang in METEOR_LANGUAGES:
        if lang not in have:
            missing.append(lang)
            print(f"{lang:3} MISSING (a Meteor 1.5 language)")
    print(f"{len(have)} recipes; {len(covered_languages())} languages with a stemmer and a wordfreq list")
    return 1 if missing else 0


def write_recipes(out_dir: Path) -> int:
    """(Re)write every recipe under ``out_dir``: the catalogue's languages (lemma and Snowball 3 maps) by
    :func:`~meteor_lite_builders.recipes.catalogue.write_catalogue`, the others here; 0."""
    from .catalogue import CATALOGUE, write_catalogue
    from .model import RECIPE_FORMAT, RECIPE_FORMAT_VERSION, write_recipe
    from .new_recipe import NewRecipe, new_recipe_data

    for written in write_catalogue(out_dir):
        print(f"wrote {written}")
    for lang in (*METEOR_LANGUAGES, *NEW_LANGUAGES):
        if lang in CATALOGUE:
            continue
        out = out_dir / f"{lang}.toml"
        data = new_recipe_data(NewRecipe(out=out, **recipe_args(lang)))  # type: ignore[arg-type]
        data["format"], data["format_version"] = RECIPE_FORMAT, RECIPE_FORMAT_VERSION
        write_recipe(
            data,
            out,
            header=(
                f"meteor-lite bundle recipe: {data['bundle']['description']}\n"
                f"Build: meteor-build recipe resources/recipes/{lang}.toml  (make resources builds them all)\n"
                "Written by meteor-build check write-recipes; the sha256 values pin wordfreq 3.1.1 and pycocoevalcap 1.2."
            ),
        )
        print(f"wrote {out}")
    return write_thesauri(out_dir)


def write_thesauri(out_dir: Path) -> int:
    """Add each installed LibreOffice thesaurus to its language's recipe (:mod:`~..recipes.thesauri`); 0."""
    from .thesauri import MYTHES_DIR, THESAURI, write_thesaurus_recipes

    codes = [c for c, t in sorted(THESAURI.items()) if (MYTHES_DIR / t.file).is_file()]
    missing = sorted(set(THESAURI) - set(codes))
    if missing:
        print(f"not installed (apt-get install {' '.join(THESAURI[c].package for c in missing)}): "
              f"no thesaurus for {', '.join(missing)}")
    for written in write_thesaurus_recipes(out_dir, codes):
        print(f"wrote {written}")
    return write_dictionaries(out_dir)


def write_dictionaries(out_dir: Path) -> int:
    """Write the recipes of the installed Hunspell dictionaries (:mod:`~..recipes.dictionaries`); 0."""
    from .dictionaries import HUNSPELL, HUNSPELL_DIR, write_hunspell_recipes

    missing = sorted(c for c, d in HUNSPELL.items() if not (HUNSPELL_DIR / d.dic).is_file())
    if missing:
        print(f"not installed (apt-get install {' '.join(HUNSPELL[c].package for c in missing)}): "
              f"no Hunspell recipe for {', '.join(missing)}")
    for written in write_hunspell_recipes(out_dir):
        print(f"wrote {written}")
    return 0


def run(out_dir: Path = DEFAULT_OUT_DIR, check: bool = False, thesauri_only: bool = False) -> int:
    """``--check``: :func:`check_recipes`; ``thesauri_only``: :func:`write_thesauri`; otherwise
    :func:`write_recipes` (which adds the thesauri too).  The exit status."""
    if check:
        return check_recipes(out_dir)
    return write_thesauri(out_dir) if thesauri_only else write_recipes(out_dir)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The old script's entry point (``--out-dir DIR``, ``--check``); ``meteor-build check write-recipes`` is the command."""
    ap = argparse.ArgumentParser(prog="meteor-build check write-recipes", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out-dir", type=Path, default=DEFAULT_OUT_DIR)
    ap.add_argument("--check", action="store_true", help="only check that every eligible language has a recipe")
    args = ap.parse_args(argv)
    return run(args.out_dir, check=args.check)
