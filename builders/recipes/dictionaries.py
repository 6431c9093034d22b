"""Hunspell dictionaries (Debian's ``hunspell-*`` / ``myspell-*``) as stem or lemma sources, and their recipes.

For a language with no Snowball stemmer in the scorer, no lemma list and no wordfreq list, a Hunspell
dictionary gives a **lemma map**: every form its affix rules generate, mapped to its root
(:mod:`~..lexical.hunspell`).  For a language whose Snowball stemmer the scorer has (Armenian,
Basque, Irish) or that PyStemmer's Snowball 3 has (Estonian), the dictionary's words are the
**vocabulary** of a Snowball stem map instead (the expanded forms, or the roots when the expansion is
too large), so the language has a bundle with a stem map at all.

:data:`HUNSPELL` lists the dictionaries used (file in :data:`HUNSPELL_DIR`, Debian package, licence from
``/usr/share/doc/<package>/copyright``, and how it is used); :func:`write_hunspell_recipes` writes a
recipe per language (``resources/recipes/<code>.toml``; Galician's thesaurus recipe gets the stem map
added, Korean's function-word recipe a lemma map of wordfreq's words *analysed* by the rules, since its
expansion gives more than 3 million forms from 785 roots).  Left out, measured: dictionaries without
affix rules (Bengali, Gujarati, Malayalam, Telugu, Uzbek, Swahili, Manx, Guarani: no form differs from
its root), Mongolian (its ``.aff`` has a malformed rule line, ``SFT F0 ...`` at line 8058; read past it,
it gives more than 5 million forms after 70,000 of its roots).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ..lexical.hunspell import hunspell_digest
from .model import load_recipe, write_recipe

__all__ = ["HUNSPELL_DIR", "HunspellDictionary", "HUNSPELL", "hunspell_recipe", "write_hunspell_recipes"]

#: Where Debian's hunspell-* / myspell-* packages install the dictionaries.
HUNSPELL_DIR = Path("/usr/share/hunspell")


@dataclass(frozen=True)
class HunspellDictionary:
    """One dictionary: the ``.dic`` name, its Debian package, licence, the language's English name, and
    ``algorithm`` (+ ``stemmer``) when it is a stemmer's vocabulary rather than a lemma map."""

    dic: str
    package: str
    licence: str
    name: str
    algorithm: Optional[str] = None
    stemmer: Optional[str] = None
    analyse: bool = False  # a lemma map of wordfreq's words analysed by the rules (the expansion is too large)


_LO = "(libreoffice-dictionaries)"

#: Scorer language code -> dictionary.
HUNSPELL: Dict[str, HunspellDictionary] = {
    "af": HunspellDictionary("af_ZA.dic", "hunspell-af", f"LGPL-2.1+ {_LO}", "Afrikaans"),
    "an": HunspellDictionary("an_ES.dic", "hunspell-an", f"MPL-1.1 or GPL-3+ or LGPL-3+ {_LO}", "Aragonese"),
    "be": HunspellDictionary("be_BY.dic", "hunspell-be", "CC-BY-SA-3.0", "Belarusian"),
    "br": HunspellDictionary("br_FR.dic", "hunspell-br", "LGPL-2.1+ and MPL-1.1 and GPL-2+", "Breton"),
    "eo": HunspellDictionary("eo.dic", "myspell-eo", "GPL-2+", "Esperanto"),
    "fo": HunspellDictionary("fo.dic", "myspell-fo", "GPL-2+", "Faroese"),
    "gd": HunspellDictionary("gd_GB.dic", "hunspell-gd", f"GPL-3+ {_LO}", "Scottish Gaelic"),
    "gl": HunspellDictionary("gl_ES.dic", "hunspell-gl", f"GPL {_LO}", "Galician"),
    "kk": HunspellDictionary("kk_KZ.dic", "hunspell-kk", "GPL-2+ or LGPL-2.1+ or MPL-1.1+", "Kazakh"),
    "ku": HunspellDictionary("kmr_Latn.dic", "hunspell-kmr", f"GPL-3 or LGPL-3 or MPL-1.1 {_LO}", "Kurdish (Kurmanji, Latin script)"),
    "nn": HunspellDictionary("nn_NO.dic", "myspell-nn", "GPL-2", "Norwegian (Nynorsk)"),
    "oc": HunspellDictionary("oc_FR.dic", "hunspell-oc", f"GPL-2+ {_LO}", "Occitan"),
    "si": HunspellDictionary("si_LK.dic", "hunspell-si", f"GPL-3+ {_LO}", "Sinhala"),
    "sq": HunspellDictionary("sq_AL.dic", "myspell-sq", "GPL-2+", "Albanian"),
    # ko.aff's header: GPL-3+; debian/copyright: built from dict-ko-data.yaml (GPL-3+) and data/entries (CC-BY-SA-4.0)
    "ko": HunspellDictionary("ko.dic", "hunspell-ko", "GPL-3+ and CC-BY-SA-4.0", "Korean", analyse=True),
    "et": HunspellDictionary("et_EE.dic", "myspell-et", "LGPL-2.1", "Estonian", "estonian", "PyStemmer==3.1.0"),
    "eu": HunspellDictionary("eu.dic", "hunspell-eu", "LGPL-3+", "Basque", "basque"),
    "ga": HunspellDictionary("ga_IE.dic", "myspell-ga", "GPL-3", "Irish", "irish"),
    "hy": HunspellDictionary("hy.dic", "myspell-hy", "GPL-2", "Armenian", "armenian"),
}


def _source(code: str, directory: Path) -> Dict[str, Any]:
    d = HUNSPELL[code]
    path = directory / d.dic
    return {
        "kind": "hunspell",
        "path": str(path),
        "sha256": hunspell_digest(path),
        "licence": d.licence,
        "description": f"Hunspell dictionary {d.dic} and {Path(d.dic).with_suffix('.aff').name} (Debian package {d.package})",
        "required": False,
    }


def _stems(code: str) -> Dict[str, Any]:
    d = HUNSPELL[code]
    if d.analyse:
        return {"from": "hunspell", "analyse": "wordfreq"}
    if d.algorithm is None:
        return {"from": "hunspell"}
    out: Dict[str, Any] = {"from": ["hunspell"], "algorithm": d.algorithm}
    if d.stemmer:
        out["stemmer"] = d.stemmer
    return out


def hunspell_recipe(code: str, existing: Optional[Dict[str, Any]] = None, *, directory: Path = HUNSPELL_DIR) -> Dict[str, Any]:
    """The recipe (as data) of a language of :data:`HUNSPELL`: a new one, or ``existing`` with the stem map added."""
    d = HUNSPELL[code]
    how = (f"a Snowball '{d.algorithm}' stem map over the Hunspell dictionary's words" if d.algorithm
           else "a lemma map of wordfreq's words analysed by the Hunspell dictionary's affix rules (map only)" if d.analyse
           else "a lemma map from the Hunspell dictionary's affix rules (map only)")
    if existing is not None:
        data = dict(existing)
        data["sources"] = {**data.get("sources", {}), "hunspell": _source(code, directory)}
        data["stems"] = _stems(code)
        before = str(data["bundle"].get("description", d.name))
        described = before if before.endswith(how) else f"{before}; {how}"  # written again: no second copy
        data["bundle"] = {**data["bundle"], "description": described}
        return data
    return {
        "format": "meteor-lite-recipe",
        "format_version": 1,
        "bundle": {"language": code, "name": code, "version": "1.0.0", "description": f"{d.name}: {how}"},
        "sources": {"hunspell": _source(code, directory)},
        "stems": _stems(code),
    }


def write_hunspell_recipes(out_dir: Path, codes: Optional[Sequence[str]] = None, *, directory: Path = HUNSPELL_DIR) -> List[Path]:
    """Write the recipe of each language of :data:`HUNSPELL` whose dictionary is installed; return the paths."""
    written: List[Path] = []
    for code in codes or sorted(HUNSPELL):
        if not (directory / HUNSPELL[code].dic).is_file():
            continue
        path = out_dir / f"{code}.toml"
        existing = load_recipe(path).content if path.exists() else None
        if existing is not None and "stems" in existing and "hunspell" not in existing.get("sources", {}):
            continue  # a language that has a stem or lemma source already
        data = hunspell_recipe(code, existing, directory=directory)
        header = (f"meteor-lite bundle recipe: {data['bundle']['description']}\n"
                  f"Build: meteor-build recipe resources/recipes/{code}.toml  (make resources builds them all)\n"
                  f"Hunspell sections written by builders/recipes/dictionaries.py (Debian package {HUNSPELL[code].package}).")
        if existing is not None:
            old = [line[2:] for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("# ")]
            note = f"Hunspell sections written by builders/recipes/dictionaries.py (Debian package {HUNSPELL[code].package})."
            header = "\n".join(old + ([] if note in old else [note]))
        write_recipe(data, path, header=header)
        written.append(path)
    return written
