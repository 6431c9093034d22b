"""``meteor-build synonyms`` and ``compare-synonyms``: synonym sets from wordnets, and how they agree with Meteor 1.5's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from ..bundle.inputs import BundleInputs
from . import options as o
from .errors import library_errors
from .lexical import build_and_report


def synonyms_cmd(
    lang: str = o.LANG,
    out: Path = o.OUT,
    wordnet: Optional[Path] = o.WORDNET,
    wordnet_ids: o.WordnetIds = o.WORDNET_IDS,
    lmf: Optional[Path] = o.LMF,
    lmf_ids: o.LmfIds = o.LMF_IDS,
    lexicon: List[str] = o.LEXICON,
    lmf_language: Optional[str] = o.LMF_LANGUAGE,
    thesaurus: Optional[Path] = typer.Option(
        None, "--thesaurus", help="A MyThes thesaurus data file (LibreOffice th_*.dat, /usr/share/mythes): one synonym "
        "set per meaning line; with --base, inflected forms reach the entries through the base bundle's stem map."
    ),
    thesaurus_licence: str = typer.Option("see the thesaurus' copyright file", "--thesaurus-licence",
                                          help="Licence recorded for --thesaurus."),
    max_set_size: int = typer.Option(40, "--max-set-size", min=2, help="Leave out thesaurus meaning lines with more words."),
    paraphrases: bool = typer.Option(True, "--paraphrases/--no-paraphrases",
                                     help="Also the thesaurus' multi-word entries as paraphrases."),
    nonbreaking: str = typer.Option("none", "--nonbreaking", help=o.NONBREAKING.help),
    base: Optional[Path] = o.BASE,
    name: Optional[str] = o.NAME,
    version: str = o.VERSION,
    progress: bool = o.PROGRESS,
) -> None:
    """Synonym sets (with morphological exceptions) from a WordNet database directory, a WN-LMF file or a MyThes thesaurus."""
    if sum(x is not None for x in (wordnet, lmf, thesaurus)) != 1:
        raise typer.BadParameter("give one of --wordnet DIR, --lmf FILE, --thesaurus FILE", param_hint="--wordnet")
    inputs = BundleInputs(
        lang, wordnet=wordnet, wordnet_ids=wordnet_ids.value, lmf=lmf, lmf_ids=lmf_ids.value, lexicons=lexicon,
        lmf_language=lmf_language, nonbreaking=nonbreaking, base=base, name=name, version=version,
        thesaurus=thesaurus, thesaurus_licence=thesaurus_licence, max_set_size=max_set_size,
        thesaurus_paraphrases=paraphrases,
    )
    build_and_report(inputs, out, progress)


def compare_synonyms_cmd(
    wordnet: Optional[Path] = typer.Option(
        None, "--wordnet", help="WordNet database directory (default /usr/share/wordnet)."
    ),
    lmf: Optional[Path] = typer.Option(None, "--lmf", help="Compare a WN-LMF English wordnet instead."),
    ids: Optional[str] = typer.Option(
        None, "--ids", help="Synset id scheme of ours: offset (default) or pos-offset (with --lmf also ordinal)."
    ),
    official: Optional[Path] = typer.Option(
        None, "--official", help="Meteor's synonyms: its jar or a bundle imported from it (default: pycocoevalcap's jar)."
    ),
    score: bool = typer.Option(False, "--score", help="Also score with the official bundle and with ours swapped in."),
    base: Optional[Path] = typer.Option(
        None, "--base", help="The official English bundle for --score (default: the en bundle the scorer finds)."
    ),
    hyp: Optional[Path] = typer.Option(None, "--hyp", help="Hypothesis file for --score (default: Meteor's system1.hyp)."),
    ref: List[Path] = typer.Option([], "--ref", help="Reference file(s) for --score (default: Meteor's reference)."),
    keep_bundle: Optional[Path] = typer.Option(None, "--keep-bundle", help="Keep the bundle with our synonyms here."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    progress: bool = o.PROGRESS,
) -> None:
    """How WordNet-3.0-built English synonyms agree with Meteor 1.5's (overlaps both ways; scores with each)."""
    from ..synonyms.compare import format_comparison, run_synonym_comparison

    if (hyp is None) != (not ref):
        raise typer.BadParameter("give --hyp and --ref together", param_hint="--hyp")
    with library_errors():
        report = run_synonym_comparison(
            wordnet=wordnet, lmf=lmf, id_scheme=ids, official=official, score=score, base=base,
            hyp=hyp, refs=ref, keep_bundle=keep_bundle, show_progress=progress,
        )
    typer.echo(json.dumps(report, indent=1, ensure_ascii=False) if as_json else format_comparison(report))
