"""The LibreOffice thesauri Debian ships (``mythes-*``) and the recipe sections that use them.

:data:`THESAURI` names, for each scorer language code, the MyThes data file, its Debian package and
the licence its ``/usr/share/doc/<package>/copyright`` gives for that file (the most specific
``Files:`` stanza of the thesaurus).  :func:`add_thesaurus` adds to a recipe (as data) an optional
``mythes`` source (``required = false``: a machine without the package builds the bundle without
synonyms, with a warning), ``[synonyms]`` and ``[paraphrases]`` from it, and the thesaurus' words to
a Snowball ``[stems]`` vocabulary, so that every synonym-set word has a stem in the map (lemma maps
keep their own vocabulary).  :func:`write_thesaurus_recipes` rewrites the shipped recipes with it
(``meteor-build check write-recipes --thesauri``); languages without a recipe get one with synonyms
and paraphrases only (Nepali also a Snowball stem map over the thesaurus' words).

Not used: Latvian (``th_lv_LV_v2.dat`` holds 8 lines), English (its recipe takes WordNet, from which
the English MyThes file is derived), the regional variants (de-ch, en-au).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ..sources import sha256_file
from .model import LEMMA_KINDS, load_recipe, write_recipe

__all__ = ["MYTHES_DIR", "ThesaurusFile", "THESAURI", "NEW_THESAURUS_LANGUAGES", "add_thesaurus", "write_thesaurus_recipes"]

#: Where Debian's mythes-* packages install the thesauri.
MYTHES_DIR = Path("/usr/share/mythes")


@dataclass(frozen=True)
class ThesaurusFile:
    """One thesaurus: data file name (in :data:`MYTHES_DIR`), Debian package, licence, upstream."""

    file: str
    package: str
    licence: str
    upstream: str


_LO = "LibreOffice dictionaries (Debian source libreoffice-dictionaries)"

#: Scorer language code -> its thesaurus.
THESAURI: Dict[str, ThesaurusFile] = {
    "ar": ThesaurusFile("th_ar_EG_v2.dat", "mythes-ar", "GPL-2+ or LGPL-2.1+ or MPL-1.1", f"{_LO}, Mohamed Kebdani"),
    "bg": ThesaurusFile("th_bg_BG_v2.dat", "mythes-bg", "GPL-2", f"{_LO}, bg_BG"),
    "ca": ThesaurusFile("th_ca_ES_v3.dat", "mythes-ca", "LGPL-3+ or GPL-3+", f"{_LO}, Softcatalà (Joan Montané)"),
    "cz": ThesaurusFile("th_cs_CZ_v2.dat", "mythes-cs", "GFDL-1.1+", f"{_LO}, svobodneslovniky.cz"),
    "da": ThesaurusFile("th_da_DK.dat", "mythes-da", "LGPL-2.1 or GPL-2 or MPL-1.1", f"{_LO}, Stavekontrolden"),
    "de": ThesaurusFile("th_de_DE_v2.dat", "mythes-de", "LGPL", "OpenThesaurus (www.openthesaurus.de), Debian source openthesaurus"),
    "es": ThesaurusFile("th_es_ES_v2.dat", "mythes-es", "LGPL-2.1", f"{_LO}, Marcelo Garrone"),
    "fr": ThesaurusFile("thes_fr.dat", "mythes-fr", "LGPL-2.1+", f"{_LO}, Dicollecte"),
    "gl": ThesaurusFile("th_gl_ES_v2.dat", "mythes-gl", "GPL", f"{_LO}, gl"),
    "gn": ThesaurusFile("th_gug_PY_v2.dat", "mythes-gug", "GFDL-1.2+", f"{_LO}, Giovanni Caligaris"),
    "hu": ThesaurusFile("th_hu_HU_v2.dat", "mythes-hu", "GPL-3+ or LGPL-3+ or MPL-2.0+", f"{_LO}, László Németh"),
    "id": ThesaurusFile("th_id_ID_v2.dat", "mythes-id", "LGPL-2.1", f"{_LO}, Ali Ahmadi"),
    "is": ThesaurusFile("th_is_IS_v2.dat", "mythes-is", "CC-BY-SA-3.0", f"{_LO}, Orðabók Háskólans"),
    "it": ThesaurusFile("th_it_IT_v2.dat", "mythes-it", "GPL-3", f"{_LO}, LibreItalia"),
    "ne": ThesaurusFile("th_ne_NP_v2.dat", "mythes-ne", "LGPL-2.1", f"{_LO}, Madan Puraskar Pustakalaya"),
    "no": ThesaurusFile("th_nb_NO_v2.dat", "mythes-no", "GPL-2", f"{_LO}, spell-norwegian"),
    "pl": ThesaurusFile("th_pl_PL_v2.dat", "mythes-pl", "LGPL-2.1", "Polish thesaurus (Marcin Miłkowski), Debian source openoffice.org-thesaurus-pl"),
    "pt": ThesaurusFile("th_pt_BR.dat", "mythes-pt-br", "LGPL-3 or MPL", f"{_LO}, Raimundo Santos Moura (Brazilian Portuguese)"),
    "ro": ThesaurusFile("th_ro_RO_v2.dat", "mythes-ro", "GPL-2+", f"{_LO}, Lucian Constantin"),
    "ru": ThesaurusFile("th_ru_RU_v2.dat", "mythes-ru", "LGPL-2.1", f"{_LO}, Mikhail Korolyov"),
    "sk": ThesaurusFile("th_sk_SK_v2.dat", "mythes-sk", "MIT (expat)", f"{_LO}, Tibor Bako"),
    "sl": ThesaurusFile("th_sl_SI_v2.dat", "mythes-sl", "GPL or LGPL", f"{_LO}, Amebis"),
    "se": ThesaurusFile("th_sv_SE_v2.dat", "mythes-sv", "permissive (Viggo Kann: use, copy, modify with notices kept)", f"{_LO}, Viggo Kann"),
    "uk": ThesaurusFile("th_uk_UA_v2.dat", "mythes-uk", "GPL-2+ or LGPL-2.1+ or MPL-1.1", f"{_LO}, Vladimir Yakovchuk"),
}

#: Languages that have a thesaurus but no other recipe: code -> (English name, Snowball algorithm or None).
NEW_THESAURUS_LANGUAGES: Dict[str, tuple] = {
    "gl": ("Galician", None),
    "gn": ("Guarani (Paraguayan Guarani; thesaurus th_gug_PY)", None),
    "ne": ("Nepali", "nepali"),
}


def _names(value: Any) -> List[str]:
    return [value] if isinstance(value, str) else list(value)


def add_thesaurus(data: Dict[str, Any], code: str, *, directory: Path = MYTHES_DIR) -> Dict[str, Any]:
    """A copy of recipe ``data`` with the language's thesaurus as an optional source of synonyms and paraphrases.

    The source's ``sha256`` is that of the installed file.  Raises ``KeyError`` for a language
    without a thesaurus and ``FileNotFoundError`` when the file is not installed.
    """
    t = THESAURI[code]
    path = directory / t.file
    out = copy.deepcopy(data)
    sources = out.setdefault("sources", {})
    sources["thesaurus"] = {
        "kind": "mythes",
        "path": str(path),
        "sha256": sha256_file(path),
        "licence": t.licence,
        "description": f"MyThes thesaurus {t.file} (Debian package {t.package}; {t.upstream})",
        "required": False,
    }
    out["synonyms"] = {"from": "thesaurus"}
    out["paraphrases"] = {"from": "thesaurus"}
    stems = out.get("stems")
    if stems is not None:
        names = _names(stems["from"])
        if not any(sources[n]["kind"] in LEMMA_KINDS for n in names) and "thesaurus" not in names:
            stems["from"] = [*names, "thesaurus"]
    return out


def _new_recipe(code: str) -> Dict[str, Any]:
    name, algorithm = NEW_THESAURUS_LANGUAGES[code]
    data: Dict[str, Any] = {
        "format": "meteor-lite-recipe",
        "format_version": 1,
        "bundle": {"language": code, "name": code, "version": "1.0.0",
                   "description": f"{name}: synonym sets and paraphrases from the LibreOffice thesaurus"
                   + (", a Snowball stem map over its words" if algorithm else "")},
    }
    data = add_thesaurus(data, code)
    if algorithm:
        data["stems"] = {"from": ["thesaurus"], "algorithm": algorithm}
    return data


def write_thesaurus_recipes(out_dir: Path, codes: Optional[Sequence[str]] = None) -> List[Path]:
    """Add the thesaurus to the recipe of each language of :data:`THESAURI` in ``out_dir`` (new recipes for
    :data:`NEW_THESAURUS_LANGUAGES`); return the recipes written.  The header comments are kept."""
    written: List[Path] = []
    for code in codes or sorted(THESAURI):
        path = out_dir / f"{code}.toml"
        if path.exists():
            r = load_recipe(path)
            had = "thesaurus" in r.content.get("sources", {})
            header = "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#")
                               for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("#"))
            data = add_thesaurus(r.content, code)
            desc = data["bundle"].get("description", "")
            if desc and "thesaurus" not in desc:
                data["bundle"]["description"] = f"{desc}; synonym sets and paraphrases from the LibreOffice thesaurus"
            if not had and data["bundle"]["version"] == "1.0.0":
                data["bundle"]["version"] = "1.1.0"
        else:
            header = (f"meteor-lite bundle recipe: {NEW_THESAURUS_LANGUAGES[code][0]}: synonym sets and paraphrases from a thesaurus\n"
                      f"Build: meteor-build recipe resources/recipes/{code}.toml  (make resources builds them all)")
            data = _new_recipe(code)
        header += f"\nThesaurus sections written by builders/recipes/thesauri.py (Debian package {THESAURI[code].package})." \
            if "thesauri.py" not in header else ""
        write_recipe(data, path, header=header)
        written.append(path)
    return written
