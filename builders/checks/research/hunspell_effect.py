"""Hunspell as a second opinion beside a Snowball stem map: which matches MQM judgments better?

``meteor-build check hunspell-effect JUDGMENTS --lang de --base de-wordfreq.sqlite --dic /usr/share/hunspell/de_DE.dic``
scores every system of an MQM judgments file with exact + stem (Meteor's ``-norm``, the language's Ranking
parameters and stem weight) three ways:

* ``snowball``: the base bundle as it is (its Snowball stem map; words outside it stemmed by the same algorithm);
* ``hunspell``: the base bundle with its stem map replaced by the Hunspell dictionary's lemma map: every form
  the dictionary's affix rules give (:func:`~meteor_lite_builders.lexical.hunspell.expand_hunspell`) mapped to its root, roots
  mapped to themselves (kept in the map, so the scorer does not stem them); a word the dictionary does not
  give is stemmed by the base bundle's Snowball algorithm, as the scorer does for any word outside a map;
* ``hunspell+snowball``: every form of the dictionary mapped to the Snowball stem of its root (lemmatise,
  then stem): Snowball's classes, joined where the dictionary says two forms have one root.

Statistic: segment-level Pearson per system averaged over systems (``seg:sys:pearson``), and the paired
bootstrap interval of each variant's difference with ``snowball`` (the same resampled segments; 95%,
percentile), as ``meteor-build check thesaurus-effect`` computes them.  The variant bundles are written
to ``--out-dir`` (reused when they exist), so several judgment files of a language build them once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple

from meteor_lite.languages import preset
from meteor_lite.metaeval.correlate import align, statistic
from meteor_lite.resources.bundle import Bundle
from meteor_lite.resources.stemming import snowball_stem_function

from ...errors import SourceError
from ...lexical.stems import StemMap, StemmerInfo
from .thesaurus_effect import KEY, Variant, paired_interval, read_judgments_with_docs, score_variant, variant_lines

__all__ = ["HUNSPELL_VARIANTS", "hunspell_lemma_table", "variant_pairs", "variant_stem_map", "build_variant",
           "run_hunspell_effect", "format_hunspell_effect"]

#: The variants besides the base bundle's Snowball map.
HUNSPELL_VARIANTS = ("hunspell", "hunspell+snowball")


def hunspell_lemma_table(dic: "Path | str", lang: str) -> Tuple[Dict[str, str], Dict[str, object]]:
    """token -> root token of every form of the dictionary (identities kept), as the scorer prepares words."""
    from ...lexical.hunspell import expand_hunspell
    from ...lexical.lemmas import normalised_pairs

    pairs, counts = expand_hunspell(dic)
    table, dropped = normalised_pairs(pairs, lang, {}, False)
    return table, {**counts, "tokens": len(table), "dropped_not_one_token": dropped}


def variant_pairs(table: Mapping[str, str], variant: str, stem: Callable[[str], str]) -> Iterator[Tuple[str, str]]:
    """``(word, stem)`` rows of ``variant`` over ``table`` (token -> root token), sorted by word."""
    for form in sorted(table):
        root = table[form]
        if variant == "hunspell":
            yield form, root
        elif variant == "hunspell+snowball":
            yield form, stem(root)
        else:
            raise ValueError(f"unknown variant {variant!r} (one of {', '.join(HUNSPELL_VARIANTS)})")


def variant_stem_map(table: Mapping[str, str], variant: str, algorithm: str, dic_name: str, params: Dict[str, object]) -> StemMap:
    """The stem map of ``variant`` (the scorer keeps stemming other words with ``algorithm``)."""
    stem = snowball_stem_function(algorithm)
    if stem is None:
        raise SourceError(f"no Snowball algorithm {algorithm!r} in snowballstemmer")
    rows = list(variant_pairs(table, variant, stem))
    info = StemmerInfo(algorithm=algorithm if variant == "hunspell+snowball" else f"hunspell:{dic_name}")
    return StemMap(pairs=rows, stemmer=info, params={"variant": variant, "hunspell": params, "words": len(rows),
                                                       "fallback": f"snowball {algorithm} for words outside the map"})


def build_variant(base: "Path | str", dic: "Path | str", variant: str, out: Path,
                  table: Optional[Tuple[Dict[str, str], Dict[str, object]]] = None) -> Path:
    """Write the base bundle with the stem map of ``variant`` at ``out`` (kept when it exists); its path."""
    from ...bundle.pipeline import build_bundle
    from ...bundle.spec import BundleSpec

    if out.is_file():
        return out
    with Bundle.open(base) as b:
        lang = b.language or ""
        algorithm = str((b.stemmer or {}).get("language") or "")
        name, version = b.name, b.version
    if not algorithm:
        raise SourceError(f"{base}: the base bundle records no Snowball stemmer")
    tab, params = table if table is not None else hunspell_lemma_table(dic, lang)
    sm = variant_stem_map(tab, variant, algorithm, Path(dic).name, params)
    spec = BundleSpec(language=lang, name=f"{name}-{variant.replace('+', '-')}", version=version, base=base, stems=sm,
                      description=f"{name} with the stem map of Hunspell {Path(dic).name} ({variant}), for comparison")
    build_bundle(spec, out, progress=False)
    return out


def run_hunspell_effect(judgments: str, lang: str, base: str, dic: str, out_dir: Path, *, bootstrap: int = 1000,
                        seed: int = 0) -> Dict[str, Any]:
    """The report (JSON-ready): Pearson of each variant and paired intervals of its difference with ``snowball``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem_w = (preset(lang, "rank") if lang in ("de", "es", "fr", "ru", "en") else preset(lang, "li"))[1][1]
    paths = {"snowball": base}
    table = None
    for variant in HUNSPELL_VARIANTS:
        out = out_dir / f"{Path(base).stem}-{variant.replace('+', '-')}.sqlite"
        if not out.is_file() and table is None:
            with Bundle.open(base) as b:
                table = hunspell_lemma_table(dic, b.language or lang)
        paths[variant] = str(build_variant(base, dic, variant, out, table))
    j = read_judgments_with_docs(judgments)
    vs = [Variant(name, path, ("exact", "stem"), (1.0, stem_w)) for name, path in paths.items()]
    data = {v.name: align(j, score_variant(j, lang, v)) for v in vs}
    base_value = statistic(data["snowball"], KEY)
    per: Dict[str, Dict[str, Any]] = {}
    for v in vs:
        value = statistic(data[v.name], KEY)
        e: Dict[str, Any] = {"bundle": v.bundle, "value": value}
        if v.name != "snowball":
            e["delta"] = value - base_value
            e["interval"] = list(paired_interval(data["snowball"], data[v.name], bootstrap, seed)) if bootstrap else None
        per[v.name] = e
    return {"judgments": judgments, "lang": lang, "dic": dic, "systems": len(j.systems), "segments": len(j.items),
            "statistic": "seg:sys:pearson", "modules": ["exact", "stem"], "weights": [1.0, stem_w],
            "bootstrap": bootstrap, "seed": seed, "variants": per}


def format_hunspell_effect(report: Dict[str, Any]) -> str:
    """One line per variant: value, difference with ``snowball`` and its interval."""
    lines: List[str] = [f"{report['judgments']} ({report['lang']}, {report['systems']} systems, {report['segments']} segments, "
                        f"{Path(report['dic']).name}): {report['statistic']}, exact + stem, paired bootstrap {report['bootstrap']}"]
    return "\n".join(lines + variant_lines(report["variants"], 18))
