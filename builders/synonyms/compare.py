"""Compare built resources with Meteor 1.5's own, and score with either.

:func:`compare_synonyms` measures how synonym sets built here (from the WordNet
3.0 database or WN-LMF) agree with Meteor 1.5's ``synonym/english.synsets`` and
``english.exceptions`` (read from its jar, or from a bundle imported from it):

* ``word_synset_pairs`` -- (word, synset id) pairs, ids compared as they are;
* ``synonym_pairs`` -- unordered pairs of words sharing a synset (what the
  scorer's synonym matcher uses; independent of how ids are numbered);
* ``synsets`` -- synsets as sets of words;
* ``exceptions`` -- (inflected form, base form) pairs;
* ``id_shifts`` -- for synsets with the same words on both sides but different
  ids, how far the ids are apart (and from which id on).

Each overlap gives ``|ours ∩ theirs| / |theirs|`` and ``/ |ours|``.
:func:`score_files` scores a hypothesis file against references with several
bundles and reports the corpus figures and how many segments differ.
"""

from __future__ import annotations

import os
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from meteor_lite.errors import BundleError
from meteor_lite.resources.bundle import Bundle

from ..errors import MalformedSourceError, SourceError

__all__ = [
    "overlap",
    "parse_meteor_synsets",
    "parse_meteor_exceptions",
    "load_meteor_synonyms",
    "load_bundle_synonyms",
    "synonym_pairs",
    "compare_synonyms",
    "score_files",
    "format_comparison",
    "load_synonyms",
    "default_example",
    "run_synonym_comparison",
]

WordId = Tuple[str, int]


def overlap(ours: Iterable[object], theirs: Iterable[object]) -> Dict[str, object]:
    """Sizes of two sets, of their intersection, and the intersection's share of each."""
    a, b = set(ours), set(theirs)
    both = len(a & b)
    return {
        "ours": len(a),
        "theirs": len(b),
        "both": both,
        "of_theirs": both / len(b) if b else None,
        "of_ours": both / len(a) if a else None,
    }


def _alternating(text: str, source: str) -> List[Tuple[int, str, str]]:
    lines = text.splitlines()
    if len(lines) % 2:
        raise MalformedSourceError(source, len(lines), "odd number of lines (a key line without its value line)")
    return [(i + 1, lines[i].strip(), lines[i + 1]) for i in range(0, len(lines), 2)]


def parse_meteor_synsets(text: str, source: str = "english.synsets") -> Set[WordId]:
    """(word, id) pairs of Meteor's ``english.synsets``: a word line, then a line of integer ids."""
    out: Set[WordId] = set()
    for lineno, word, ids in _alternating(text, source):
        for tok in ids.split():
            if not (tok.isascii() and tok.isdigit()):
                raise MalformedSourceError(source, lineno + 1, f"synset id {tok!r} is not a number")
            out.add((word, int(tok)))
    return out


def parse_meteor_exceptions(text: str, source: str = "english.exceptions") -> Set[Tuple[str, str]]:
    """(form, base) pairs of Meteor's ``english.exceptions``: a base line, then a line of forms."""
    return {(form, base) for _lineno, base, forms in _alternating(text, source) for form in forms.split()}


def load_meteor_synonyms(jar: "os.PathLike[str] | str | None" = None) -> Tuple[Set[WordId], Set[Tuple[str, str]], str]:
    """Meteor 1.5's English synonym files from its jar (default: pycocoevalcap's); returns pairs, exceptions, label."""
    from .. import jar as _jar

    path = Path(jar) if jar is not None else _jar.find_jar()
    syn = parse_meteor_synsets(_jar.read_jar_text("synonym/english.synsets", jar=path), f"{path}!synonym/english.synsets")
    exc = parse_meteor_exceptions(
        _jar.read_jar_text("synonym/english.exceptions", jar=path), f"{path}!synonym/english.exceptions"
    )
    return syn, exc, f"{path.name}!synonym/english.{{synsets,exceptions}}"


def load_bundle_synonyms(path: "os.PathLike[str] | str") -> Tuple[Set[WordId], Set[Tuple[str, str]], str]:
    """The synsets and exceptions tables of a bundle; returns pairs, exceptions, label."""
    try:
        b = Bundle.open(path)
    except BundleError as exc:
        raise SourceError(str(exc)) from None
    with b:
        conn = b._conn  # read-only connection of the bundle
        syn = {(w, int(s)) for w, s in conn.execute("SELECT word, synset FROM synsets")}
        exceptions = {(f, base) for f, base in conn.execute("SELECT form, base FROM synonym_exceptions")}
        label = f"bundle {b.name} {b.version} ({Path(path).name})"
    return syn, exceptions, label


def load_synonyms(path: "os.PathLike[str] | str | None") -> Tuple[Set[WordId], Set[Tuple[str, str]], str]:
    """Meteor's synonyms from a jar (``.jar`` or None for pycocoevalcap's) or from a bundle (``.sqlite``)."""
    if path is not None and not str(path).endswith(".jar"):
        return load_bundle_synonyms(path)
    return load_meteor_synonyms(path)


def _groups(pairs: Iterable[WordId]) -> Dict[int, FrozenSet[str]]:
    g: Dict[int, Set[str]] = defaultdict(set)
    for w, s in pairs:
        g[s].add(w)
    return {s: frozenset(ws) for s, ws in g.items()}


def synonym_pairs(pairs: Iterable[WordId]) -> Set[Tuple[str, str]]:
    """Unordered pairs of distinct words that share at least one synset (as sorted tuples)."""
    out: Set[Tuple[str, str]] = set()
    for ws in _groups(pairs).values():
        ordered = sorted(ws)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1 :]:
                out.add((a, b))
    return out


def _id_shifts(
    ours: Mapping[int, FrozenSet[str]], theirs: Mapping[int, FrozenSet[str]], min_count: int = 2
) -> List[Dict[str, int]]:
    """Shifts (their id - our id) of synsets whose word set is unique on both sides but whose ids differ.

    Each entry: the shift, how many synsets have it, and the range of our ids
    they cover; most frequent first.  Shifts seen for fewer than ``min_count``
    synsets are left out (a systematic renumbering shows up as a large group).
    """
    def unique(groups: Mapping[int, FrozenSet[str]]) -> Dict[FrozenSet[str], int]:
        seen: Counter = Counter(groups.values())
        return {ws: s for s, ws in groups.items() if seen[ws] == 1}

    uo, ut = unique(ours), unique(theirs)
    shifts: Dict[int, List[int]] = defaultdict(list)
    for ws, s in uo.items():
        t = ut.get(ws)
        if t is not None and t != s:
            shifts[t - s].append(s)
    return [
        {"shift": d, "synsets": len(v), "from_id": min(v), "to_id": max(v)}
        for d, v in sorted(shifts.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        if len(v) >= min_count
    ]


def compare_synonyms(
    ours: Tuple[Iterable[WordId], Iterable[Tuple[str, str]]],
    theirs: Tuple[Iterable[WordId], Iterable[Tuple[str, str]]],
    *,
    examples: int = 5,
) -> Dict[str, object]:
    """Agreement of two synonym resources (see the module docstring); JSON-ready."""
    o_pairs, o_exc = set(ours[0]), set(ours[1])
    t_pairs, t_exc = set(theirs[0]), set(theirs[1])
    go, gt = _groups(o_pairs), _groups(t_pairs)
    so, st = synonym_pairs(o_pairs), synonym_pairs(t_pairs)
    return {
        "word_synset_pairs": overlap(o_pairs, t_pairs),
        "words": overlap({w for w, _ in o_pairs}, {w for w, _ in t_pairs}),
        "synset_ids": overlap(go, gt),
        "synsets_as_word_sets": overlap(go.values(), gt.values()),
        "synonym_pairs": overlap(so, st),
        "exceptions": overlap(o_exc, t_exc),
        "id_shifts": _id_shifts(go, gt)[:10],
        "examples": {
            "synonym_pairs_only_ours": sorted(so - st)[:examples],
            "synonym_pairs_only_theirs": sorted(st - so)[:examples],
            "exceptions_only_ours": sorted(o_exc - t_exc)[:examples],
            "exceptions_only_theirs": sorted(t_exc - o_exc)[:examples],
        },
    }


def score_files(
    hyp: "os.PathLike[str] | str",
    refs: Sequence["os.PathLike[str] | str"],
    bundles: Mapping[str, "os.PathLike[str] | str"],
    *,
    lang: str = "en",
    norm: bool = True,
) -> Dict[str, Dict[str, object]]:
    """Score ``hyp`` against ``refs`` once per bundle (label -> path), with the language's default
    modules that the bundle has resources for (named explicitly: the scorer never drops a module itself).

    Returns label -> corpus figures (score, precision, recall, chunks,
    fragmentation penalty, matches per module, seconds) and ``segments_differing``
    from the first bundle's segment scores.
    """
    from meteor_lite import Meteor
    from meteor_lite.languages import canonical_language, default_modules, default_task
    from meteor_lite.resources.bundle import Bundle
    from meteor_lite.text.io import InputError, read_lines, read_references

    try:
        hyps = read_lines(hyp)
        ref_streams = read_references(refs, len(hyps))
    except InputError as exc:
        raise SourceError(str(exc)) from None
    out: Dict[str, Dict[str, object]] = {}
    first: Optional[List[float]] = None
    for label, path in bundles.items():
        t0 = time.monotonic()
        code = canonical_language(lang)
        with Bundle.open(path) as b:
            have = {"synonym": b.has("synsets"), "paraphrase": b.has("paraphrases")}
        mods = [x for x in default_modules(code, default_task(code)) if have.get(x, True)]
        m = Meteor(lang, norm=norm, bundle=str(path), modules=mods, quiet=True)
        res = m.score_corpus(hyps, ref_streams, layout="streams")
        seg = [s.score for s in res.segments]
        d: Dict[str, Any] = res.to_dict()
        stats = d.get("stats", {})
        out[label] = {
            "bundle": str(path),
            "score": d["score"],
            "precision": d["precision"],
            "recall": d["recall"],
            "frag_penalty": d["frag_penalty"],
            "chunks": stats.get("chunks"),
            "test_matches_per_module": [a + b for a, b in zip(stats.get("test_content", []), stats.get("test_function", []))],
            "modules": list(m.config.modules),
            "segments": len(seg),
            "seconds": round(time.monotonic() - t0, 2),
        }
        if first is None:
            first = seg
        else:
            out[label]["segments_differing"] = sum(1 for a, b in zip(first, seg) if a != b)
    return out


def _pct(x: Optional[float]) -> str:
    return "n/a" if x is None else f"{100 * x:.3f}%"


def format_comparison(report: Mapping[str, Any]) -> str:
    """A human-readable rendering of :func:`compare_synonyms` (plus optional ``scores``)."""
    lines: List[str] = []
    if "ours_label" in report:
        lines.append(f"ours:   {report['ours_label']}")
        lines.append(f"theirs: {report['theirs_label']}")
    for key in ("word_synset_pairs", "words", "synset_ids", "synsets_as_word_sets", "synonym_pairs", "exceptions"):
        o = report[key]
        lines.append(
            f"{key:22} ours {o['ours']:>8}  theirs {o['theirs']:>8}  both {o['both']:>8}  "
            f"both/theirs {_pct(o['of_theirs']):>9}  both/ours {_pct(o['of_ours']):>9}"
        )
    shifts = report.get("id_shifts") or []
    for s in shifts:
        lines.append(
            f"id shift {s['shift']:+d}: {s['synsets']} synsets with the same words, our ids {s['from_id']:08d}..{s['to_id']:08d}"
        )
    ex = report.get("examples") or {}
    for k, v in ex.items():
        if v:
            lines.append(f"{k}: {', '.join(map(str, v))}")
    scores = report.get("scores")
    if scores:
        for label, s in scores.items():
            diff = f", {s['segments_differing']} segments differ" if "segments_differing" in s else ""
            lines.append(
                f"score [{label}] {s['score']!r} (P {s['precision']!r}, R {s['recall']!r}, chunks {s['chunks']:.0f}, "
                f"matches per module {[int(x) for x in s['test_matches_per_module']]}{diff}; {s['seconds']} s)"
            )
    return "\n".join(lines)


#: The example Meteor 1.5 ships (``-l en -norm`` on it gives 0.3204832379614146).
def default_example(data_dir: "os.PathLike[str] | str | None" = None) -> Tuple[Path, Path]:
    """``system1.hyp`` and ``reference`` of ``../shared/data/meteor-example`` (relative to the checkout)."""
    d = Path(data_dir) if data_dir is not None else Path(__file__).resolve().parent.parent.parent / "shared" / "data"
    return d / "meteor-example" / "system1.hyp", d / "meteor-example" / "reference"


def run_synonym_comparison(
    *,
    wordnet: "os.PathLike[str] | str | None" = None,
    lmf: "os.PathLike[str] | str | None" = None,
    id_scheme: Optional[str] = None,
    official: "os.PathLike[str] | str | None" = None,
    score: bool = False,
    base: "os.PathLike[str] | str | None" = None,
    hyp: "os.PathLike[str] | str | None" = None,
    refs: Sequence["os.PathLike[str] | str"] = (),
    keep_bundle: "os.PathLike[str] | str | None" = None,
    show_progress: bool = True,
) -> Dict[str, object]:
    """Build English synonyms (WordNet database dir, or ``lmf``) and compare them with Meteor's.

    ``official`` is Meteor's jar or a bundle imported from it (default:
    pycocoevalcap's jar).  With ``score``, the official bundle ``base``
    (default: the ``en`` bundle the scorer finds) is scored against a copy of
    it whose synonyms are replaced by ours (everything else identical), on
    ``hyp``/``refs`` (default: Meteor's example system1 / reference), with
    ``-l en -norm``; the copy is written to ``keep_bundle`` (or a temporary
    directory, removed afterwards).
    """
    import tempfile

    from meteor_lite.resources.locate import find_bundle

    from ..bundle.pipeline import build_bundle
    from ..bundle.spec import BundleSpec
    from .lmf import read_lmf
    from .wndb import read_wndb

    t0 = time.monotonic()
    if lmf is not None:
        syn = read_lmf(lmf, id_scheme=id_scheme or "offset", show_progress=show_progress)
        ours_label = f"WN-LMF {lmf} (id scheme {syn.params['id_scheme']})"
    else:
        syn = read_wndb(wordnet, id_scheme=id_scheme or "offset", show_progress=show_progress)
        ours_label = f"WordNet database {syn.sources[0].location.rsplit('/', 1)[0]} (id scheme {syn.params['id_scheme']})"
    build_seconds = time.monotonic() - t0
    t_pairs, t_exc, theirs_label = load_synonyms(official)
    report: Dict[str, object] = {"ours_label": ours_label, "theirs_label": theirs_label}
    report.update(compare_synonyms((syn.synsets, syn.exceptions), (t_pairs, t_exc)))
    report["read_seconds"] = round(build_seconds, 2)
    if score:
        base_path = Path(base) if base is not None else find_bundle("en")
        if base_path is None:
            raise SourceError(
                "scoring needs the English bundle imported from the official release: "
                "run `meteor-build import-official --lang en` or pass --base"
            )
        if hyp is None:
            hyp, ref = default_example()
            refs = [ref]
        with tempfile.TemporaryDirectory(prefix="meteor-lite-compare-") as tmp:
            out = Path(keep_bundle) if keep_bundle is not None else Path(tmp) / "en-ours.sqlite"
            t1 = time.monotonic()
            spec = BundleSpec(language="en", synonyms=syn, base=base_path, name="en-synonyms-under-test")
            res = build_bundle(spec, out, progress=show_progress)
            report["bundle_build_seconds"] = round(time.monotonic() - t1, 2)
            report["scores"] = score_files(hyp, refs, {"official synonyms": base_path, "our synonyms": res.path})
    return report
