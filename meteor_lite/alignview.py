"""Alignments as one self-contained HTML page (what Meteor's X-ray drew with LaTeX).

:func:`render_html` takes the per-segment records of ``meteor-lite align --format json``
(:func:`meteor_lite.cli.align.alignment_record`: tokens, matches with module names and spans,
chunks, P, R, fragmentation penalty, score) and returns one HTML document: no script, no
external stylesheet, font or image.  For every segment it shows

* the hypothesis and reference words, each matched word coloured by the module that matched it
  (a legend names the colours) and numbered by its match, so the two sides of a match pair up;
* the chunks (Meteor's contiguous runs of matches), framed and numbered under the words;
* a table of the matches and the segment's statistics;
* the alignment matrix (hypothesis words as rows, reference words as columns), as X-ray drew it.

A summary table at the top has one row per segment, linking to its section.  Every piece of text
(words, titles, signature) is escaped.  Only the standard library is used.
"""

from __future__ import annotations

import html
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

__all__ = ["render_html", "segment_html", "page_css", "chunk_ids", "module_class", "MODULE_COLOURS"]

#: Background and border colour of each of Meteor's modules (others get :data:`OTHER_COLOUR`).
MODULE_COLOURS: Dict[str, Tuple[str, str]] = {
    "exact": ("#cfe2ff", "#0d6efd"),
    "stem": ("#c9f0d8", "#198754"),
    "synonym": ("#ffe0b3", "#e8590c"),
    "paraphrase": ("#e5d8fb", "#6f42c1"),
}
OTHER_COLOUR: Tuple[str, str] = ("#e9ecef", "#495057")

#: Matrices are drawn open when there are at most this many segments (closed, but present, above).
MATRIX_OPEN_MAX = 20
#: Without an explicit choice, matrices are left out above this many segments (they make most of the page's size).
MATRIX_AUTO_MAX = 200

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:1.5em;color:#212529}
h1{font-size:1.4em;margin:0 0 .3em}
h2{font-size:1.1em;margin:0 0 .5em}
.meta{color:#495057;font-size:.9em;margin:.2em 0}
.sig{font-family:ui-monospace,monospace;font-size:.85em;word-break:break-all}
.legend{display:flex;flex-wrap:wrap;gap:.6em;list-style:none;padding:0;margin:.8em 0}
.legend li{padding:.15em .6em;border-radius:3px}
table{border-collapse:collapse}
table.summary td,table.summary th,table.matches td,table.matches th,table.stats td,table.stats th
{border:1px solid #dee2e6;padding:.2em .5em;text-align:right}
table.summary th,table.matches th,table.stats th{background:#f1f3f5}
table.matches td.txt{text-align:left}
section.segment{border:1px solid #ced4da;border-radius:6px;padding:.8em 1em;margin:1.2em 0}
.sent{display:flex;align-items:flex-start;margin:.3em 0 .9em}
.sent .label{flex:0 0 7em;font-weight:600;padding-top:.2em}
.words{display:flex;flex-wrap:wrap;row-gap:1.1em;column-gap:.25em;align-items:baseline}
.chunk{display:inline-flex;gap:.25em;padding:1px 2px;border-bottom:3px solid #343a40;position:relative}
.chunk::after{content:attr(data-label);position:absolute;left:2px;bottom:-1.3em;font-size:.7em;color:#343a40}
.w{padding:.1em .35em;border-radius:3px;border:1px solid transparent;white-space:pre-wrap;overflow-wrap:anywhere}
.w.unmatched{color:#868e96;border:1px dashed #adb5bd}
.w sub{font-size:.65em;margin-left:.15em;color:#343a40}
.stats{margin:.4em 0 .8em}
details{margin-top:.6em}
table.matrix{font-size:.8em;margin-top:.4em}
table.matrix th{font-weight:normal;padding:1px 3px;white-space:pre}
table.matrix thead th{writing-mode:vertical-rl;transform:rotate(180deg);text-align:left;vertical-align:bottom;
max-height:12em;overflow:hidden;text-overflow:ellipsis}
table.matrix tbody th{max-width:16em;overflow:hidden;text-overflow:ellipsis}
table.matrix tbody th{text-align:right}
table.matrix td{width:1.1em;height:1.1em;border:1px solid #e9ecef;padding:0}
table.matrix td.m{border-width:2px}
"""


def module_class(module: str) -> str:
    """The CSS class of a module's matches: ``m-`` and the name reduced to ``[a-z0-9-]``."""
    return "m-" + (re.sub(r"[^a-z0-9-]+", "-", module.lower()).strip("-") or "module")


def _module_css(modules: Sequence[str]) -> str:
    """CSS colour rules for ``modules`` (known colours first, grey for any other)."""
    rules = []
    for mod in modules:
        bg, border = MODULE_COLOURS.get(mod, OTHER_COLOUR)
        rules.append(f".{module_class(mod)}{{background:{bg} !important;border-color:{border} !important}}")
    return "\n".join(rules)


def chunk_ids(matches: Sequence[Mapping[str, Any]]) -> List[int]:
    """The chunk (0-based) of each match, as Meteor counts chunks.

    Matches are taken in reference order; a chunk goes on while the next match starts where
    the previous one ended on both sides.  Returned in the order of ``matches``.
    """
    order = sorted(range(len(matches)), key=lambda i: (matches[i]["ref"][0], matches[i]["hyp"][0]))
    ids = [0] * len(matches)
    chunk = -1
    prev: Optional[Tuple[int, int]] = None
    for i in order:
        (hs, hl), (rs, rl) = matches[i]["hyp"], matches[i]["ref"]
        if prev is None or (hs, rs) != prev:
            chunk += 1
        ids[i] = chunk
        prev = (hs + hl, rs + rl)
    return ids


def _num(value: Optional[float], digits: int = 4) -> str:
    """A statistic for display (``-`` when undefined)."""
    return "-" if value is None else f"{value:.{digits}f}"


def _esc(text: Any) -> str:
    """Escape any value for HTML text or a quoted attribute."""
    return html.escape(str(text), quote=True)


def _token_info(rec: Mapping[str, Any], side: str) -> List[Optional[Tuple[int, int, str, str]]]:
    """Per token of ``side`` (``hyp``/``ref``): (match number, chunk, module, partner words) or None."""
    tokens = rec[f"{side}_tokens"]
    other = "ref" if side == "hyp" else "hyp"
    info: List[Optional[Tuple[int, int, str, str]]] = [None] * len(tokens)
    for k, (m, c) in enumerate(zip(rec["matches"], chunk_ids(rec["matches"])), 1):
        start, length = m[side]
        for t in range(start, min(start + length, len(tokens))):
            info[t] = (k, c, m["module"], m[f"{other}_words"])
    return info


def _words_html(rec: Mapping[str, Any], side: str) -> str:
    """The words of one side, matched ones coloured and numbered, grouped in chunk frames."""
    tokens = rec[f"{side}_tokens"]
    info = _token_info(rec, side)
    other = "reference" if side == "hyp" else "hypothesis"
    out: List[str] = []
    open_chunk: Optional[int] = None
    for tok, inf in zip(tokens, info):
        chunk = inf[1] if inf else None
        if open_chunk is not None and chunk != open_chunk:
            out.append("</span>")
            open_chunk = None
        if chunk is not None and open_chunk is None:
            out.append(f'<span class="chunk" data-chunk="{chunk + 1}" data-label="{chunk + 1}" title="chunk {chunk + 1}">')
            open_chunk = chunk
        if inf is None:
            out.append(f'<span class="w unmatched" title="not matched">{_esc(tok)}</span>')
        else:
            k, _, mod, partner = inf
            title = f"match {k} ({mod}) with {other}: {partner}"
            out.append(f'<span class="w {module_class(mod)}" data-match="{k}" title="{_esc(title)}">'
                       f"{_esc(tok)}<sub>{k}</sub></span>")
    if open_chunk is not None:
        out.append("</span>")
    return "".join(out)


def _stats_html(rec: Mapping[str, Any]) -> str:
    """The segment's statistics as a one-row table (full values in ``data-`` attributes)."""
    cols = [("Score", "score"), ("P", "precision"), ("R", "recall"), ("Frag penalty", "frag_penalty")]
    head = "".join(f"<th>{name}</th>" for name, _ in cols)
    cells = "".join(f'<td class="{key}" data-value="{_esc(rec.get(key))}">{_num(rec.get(key))}</td>'
                    for _, key in cols)
    st = rec.get("stats", {})
    head += "<th>Chunks</th><th>Matched words (hyp/ref)</th><th>Length (hyp/ref)</th>"
    cells += (f'<td class="chunks">{_esc(int(rec.get("chunks", 0)))}</td>'
              f'<td>{_esc(int(st.get("test_word_matches", 0)))}/{_esc(int(st.get("ref_word_matches", 0)))}</td>'
              f'<td>{_esc(len(rec["hyp_tokens"]))}/{_esc(len(rec["ref_tokens"]))}</td>')
    return f'<table class="stats"><tr>{head}</tr><tr>{cells}</tr></table>'


def _matches_html(rec: Mapping[str, Any]) -> str:
    """One row per match: number, module, words and positions on each side, chunk."""
    rows = []
    for k, (m, c) in enumerate(zip(rec["matches"], chunk_ids(rec["matches"])), 1):
        hs, hl = m["hyp"]
        rs, rl = m["ref"]
        rows.append(f'<tr class="match {module_class(m["module"])}"><td>{k}</td><td class="txt">{_esc(m["module"])}</td>'
                    f'<td class="txt">{_esc(m["hyp_words"])}</td><td>{hs}:{hl}</td>'
                    f'<td class="txt">{_esc(m["ref_words"])}</td><td>{rs}:{rl}</td><td>{c + 1}</td></tr>')
    if not rows:
        return '<p class="meta">No matches.</p>'
    head = ("<tr><th>#</th><th>Module</th><th>Hypothesis</th><th>hyp start:len</th><th>Reference</th>"
            "<th>ref start:len</th><th>Chunk</th></tr>")
    return f'<details><summary>Matches</summary><table class="matches">{head}{"".join(rows)}</table></details>'


def _matrix_html(rec: Mapping[str, Any], open_: bool) -> str:
    """X-ray's alignment matrix: a cell per (hypothesis word, reference word), filled where they match."""
    hyp, ref = rec["hyp_tokens"], rec["ref_tokens"]
    cell: Dict[Tuple[int, int], Tuple[int, str]] = {}
    for k, m in enumerate(rec["matches"], 1):
        hs, hl = m["hyp"]
        rs, rl = m["ref"]
        for h in range(hs, hs + hl):
            for r in range(rs, rs + rl):
                cell[(h, r)] = (k, m["module"])
    head = "<tr><th></th>" + "".join(f'<th scope="col" dir="auto">{_esc(w)}</th>' for w in ref) + "</tr>"
    body = []
    for h, word in enumerate(hyp):
        tds = []
        for r in range(len(ref)):
            if (h, r) in cell:
                k, mod = cell[(h, r)]
                tds.append(f'<td class="m {module_class(mod)}" title="match {k} ({_esc(mod)})"></td>')
            else:
                tds.append("<td></td>")
        body.append(f'<tr><th scope="row" dir="auto">{_esc(word)}</th>{"".join(tds)}</tr>')
    return (f'<details{" open" if open_ else ""}><summary>Alignment matrix (rows: hypothesis, columns: reference)'
            f'</summary><table class="matrix"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table></details>')


def _segment_html(rec: Mapping[str, Any], matrix: bool, matrix_open: bool) -> str:
    """One segment's section."""
    n = _esc(rec["segment"])
    return (f'<section class="segment" id="seg-{n}" data-segment="{n}">'
            f'<h2>Segment {n} &middot; score {_num(rec.get("score"))}</h2>{_stats_html(rec)}'
            f'<div class="sent hyp"><span class="label">Hypothesis</span>'
            f'<div class="words" dir="auto">{_words_html(rec, "hyp")}</div></div>'
            f'<div class="sent ref"><span class="label">Reference</span>'
            f'<div class="words" dir="auto">{_words_html(rec, "ref")}</div></div>'
            f"{_matches_html(rec)}{_matrix_html(rec, matrix_open) if matrix else ''}</section>")


def segment_html(rec: Mapping[str, Any], *, matrix: bool = False, matrix_open: bool = False) -> str:
    """One segment's section as :func:`render_html` draws it (for pages that show a few segments of their own)."""
    return _segment_html(rec, matrix, matrix_open)


def page_css(modules: Sequence[str]) -> str:
    """The stylesheet :func:`segment_html` needs, with the colours of ``modules`` (for a ``<style>`` element)."""
    return _CSS + _module_css(modules)


def _summary_html(records: Sequence[Mapping[str, Any]], modules: Sequence[str]) -> str:
    """The table with one row per segment: statistics and matched words per module."""
    head = ("<tr><th>Segment</th><th>Score</th><th>P</th><th>R</th><th>Frag penalty</th><th>Chunks</th>"
            + "".join(f'<th class="{module_class(m)}">{_esc(m)}</th>' for m in modules) + "</tr>")
    rows = []
    for rec in records:
        n = _esc(rec["segment"])
        counts = {m: 0 for m in modules}
        for m in rec["matches"]:
            counts[m["module"]] = counts.get(m["module"], 0) + m["hyp"][1]
        rows.append(f'<tr class="seg-row" data-segment="{n}"><td><a href="#seg-{n}">{n}</a></td>'
                    f'<td>{_num(rec.get("score"))}</td><td>{_num(rec.get("precision"))}</td>'
                    f'<td>{_num(rec.get("recall"))}</td><td>{_num(rec.get("frag_penalty"))}</td>'
                    f'<td>{_esc(int(rec.get("chunks", 0)))}</td>'
                    + "".join(f"<td>{counts[m]}</td>" for m in modules) + "</tr>")
    return f'<table class="summary"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def render_html(records: Sequence[Mapping[str, Any]], modules: Sequence[str], *, title: str = "Meteor alignments",
                signature: Optional[str] = None, corpus_score: Optional[float] = None,
                sources: Optional[Tuple[str, str]] = None, matrix: Optional[bool] = None) -> str:
    """The whole HTML document for ``records`` (see the module docstring), as a string.

    ``modules`` are the module names in order (the legend; the summary's per-module columns count
    matched hypothesis words).  ``signature``, ``corpus_score`` and ``sources`` (hypothesis and
    reference file names) go in the header when given.  ``matrix``: draw the alignment matrices
    (True), leave them out (False), or draw them for at most :data:`MATRIX_AUTO_MAX` segments (None).
    """
    legend = "".join(f'<li class="{module_class(m)}">{_esc(m)}</li>' for m in modules)
    legend += ('<li class="w unmatched">not matched</li>'
               '<li><span class="chunk" data-label="">chunk (numbered below its words)</span></li>')
    meta = [f"{len(records)} segment{'' if len(records) == 1 else 's'}"]
    if corpus_score is not None:
        meta.append(f"corpus score {corpus_score:.6f}")
    if sources is not None:
        meta.append(f"hypothesis {_esc(sources[0])}, reference {_esc(sources[1])}")
    sig = f'<p class="meta sig">{_esc(signature)}</p>' if signature else ""
    draw = len(records) <= MATRIX_AUTO_MAX if matrix is None else matrix
    if matrix is None and not draw:
        meta.append(f"alignment matrices left out (more than {MATRIX_AUTO_MAX} segments)")
    matrix_open = len(records) <= MATRIX_OPEN_MAX
    sections = "\n".join(_segment_html(rec, draw, matrix_open) for rec in records)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_esc(title)}</title><style>{_CSS}{_module_css(modules)}</style></head>\n<body>"
        f'<h1>{_esc(title)}</h1><p class="meta">{" &middot; ".join(meta)}</p>{sig}'
        f'<ul class="legend">{legend}</ul>\n{_summary_html(records, modules)}\n{sections}\n</body></html>\n'
    )
