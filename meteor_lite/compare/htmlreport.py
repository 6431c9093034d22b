"""The comparison of systems as one self-contained HTML page (``meteor-lite report --html``).

:func:`render_report` takes a :class:`ReportData` (what ``meteor-lite report`` gathers: each system's corpus
result and segment scores in the baseline's segment order, the paired tests of
:mod:`meteor_lite.compare.significance`, buckets by reference length, and the records of the example
segments as ``meteor-lite align --format json`` writes them) and returns one HTML document with

* a verdict in words (which systems are better or worse than the baseline, significantly or not);
* the scores: METEOR, difference, bootstrap mean and 95 % interval, p-values, and a plot of the intervals;
* a plot of the segment-level differences against the baseline (quartiles, 5 %-95 % range, mean) with the
  segments each system wins, ties and loses;
* each system's matched words by module (every module of the configuration, any new one included),
  unmatched words, and its fragmentation (chunks, words per chunk, penalty);
* corpus METEOR by reference length;
* the segments where each system and the baseline differ most, their alignments side by side (drawn by
  :func:`meteor_lite.alignview.segment_html`).

Plots are inline SVG; the page has no script, no external stylesheet, font, image or link: it reads
offline, in any browser.  All text is escaped.  Standard library only.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ..alignview import MODULE_COLOURS, OTHER_COLOUR, module_class, page_css, segment_html
from ..metaeval.stats import quantile
from ..stats import Stats
from .significance import ALPHA, BootstrapResult, SystemComparison

__all__ = ["SystemSummary", "Example", "Bucket", "ReportData", "render_report", "quantile", "LENGTH_EDGES"]

#: Reference lengths (words) where the buckets of the length table start.
LENGTH_EDGES: Tuple[int, ...] = (0, 10, 20, 30, 40, 50)


@dataclass
class SystemSummary:
    """One system's corpus result and segment scores (in the baseline's segment order)."""

    name: str
    score: float
    precision: float
    recall: float
    frag_penalty: float
    stats: Stats
    segment_scores: List[float]
    #: the tests against the baseline (None for the baseline itself)
    comparison: Optional[SystemComparison] = None


@dataclass
class Example:
    """A segment where a system and the baseline differ: both alignment records (``align --format json``)."""

    seg_id: str
    delta: float
    baseline: Mapping[str, Any]
    system: Mapping[str, Any]


@dataclass
class Bucket:
    """Segments whose reference length is in ``[low, high)`` words, and each system's corpus METEOR on them."""

    low: int
    high: Optional[int]
    segments: int
    scores: Dict[str, float]

    @property
    def label(self) -> str:
        """``10-19``, ``50+``."""
        return f"{self.low}+" if self.high is None else f"{self.low}-{self.high - 1}"


@dataclass
class ReportData:
    """Everything the page shows."""

    title: str
    source: str
    signature: str
    modules: List[str]
    baseline: SystemSummary
    systems: List[SystemSummary]
    baseline_bootstrap: Optional[BootstrapResult]
    resamples: int
    trials: int
    seed: int
    buckets: List[Bucket]
    examples: Dict[str, List[Example]] = field(default_factory=dict)


_CSS = """
main{max-width:1200px}
h2.section{font-size:1.2em;margin:1.6em 0 .5em;border-bottom:1px solid #dee2e6;padding-bottom:.2em}
table.report td,table.report th{border:1px solid #dee2e6;padding:.2em .5em;text-align:right}
table.report th{background:#f1f3f5}
table.report td.name,table.report th.name{text-align:left}
tr.baseline td{background:#f8f9fa;font-style:italic}
.signif{font-weight:700;color:#0a7d32}
.signif.worse{color:#b02a37}
.verdict{background:#f8f9fa;border-left:4px solid #0d6efd;padding:.5em 1em;margin:.8em 0}
.verdict li{margin:.2em 0}
svg.plot{display:block;max-width:100%;height:auto;margin:.6em 0;font-family:system-ui,"DejaVu Sans",sans-serif}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em}
.pair section.segment{margin:.4em 0}
.example h3{font-size:1em;margin:1em 0 .2em}
details.system{margin:.6em 0}
details.system>summary{font-weight:600;cursor:pointer}
.note{color:#495057;font-size:.9em}
"""


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _f(x: Optional[float], digits: int = 4) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _p_cell(p: Optional[float], delta: float) -> str:
    if p is None:
        return "<td>-</td>"
    if p <= ALPHA:
        cls = "signif" if delta >= 0 else "signif worse"
        return f'<td class="{cls}" data-p="{p!r}">{p:.4f}*</td>'
    return f'<td data-p="{p!r}">{p:.4f}</td>'


def _significance(c: SystemComparison) -> Tuple[bool, str]:
    """Whether the difference is significant, and by which test(s)."""
    tests = []
    if c.bootstrap is not None and c.bootstrap.significant:
        tests.append(f"bootstrap p = {c.bootstrap.p_value:.4f}")
    if c.ar is not None and c.ar.significant:
        tests.append(f"AR p = {c.ar.p_value:.4f}")
    ran = [t for t in (c.bootstrap, c.ar) if t is not None]
    return bool(ran) and len(tests) == len(ran), ", ".join(tests)


def _verdict(d: ReportData) -> str:
    """The findings in words."""
    ranked = sorted([d.baseline, *d.systems], key=lambda s: -s.score)
    best = ranked[0]
    over = f", {best.comparison.delta:+.4f} over the baseline" if best.comparison is not None else " (the baseline)"
    items = [f"Highest METEOR: <b>{_esc(best.name)}</b> ({_f(best.score)}){over}."]
    better: List[str] = []
    worse: List[str] = []
    same: List[str] = []
    for s in d.systems:
        c = s.comparison
        if c is None:
            continue
        sig, _ = _significance(c)
        (better if sig and c.delta > 0 else worse if sig and c.delta < 0 else same).append(
            f"{_esc(s.name)} ({c.delta:+.4f})")
    base = _esc(d.baseline.name)
    if better:
        items.append(f"Significantly better than the baseline {base}: {', '.join(better)}.")
    if worse:
        items.append(f"Significantly worse than {base}: {', '.join(worse)}.")
    if same:
        items.append(f"Not significantly different from {base} (p &gt; {ALPHA} by at least one test): {', '.join(same)}.")
    items.append("Why: the sections below show where the matches come from (modules), how fragmented they are, "
                 "how each system does by sentence length, and the segments where they differ most.")
    return '<div class="verdict" id="verdict"><ul>' + "".join(f"<li>{i}</li>" for i in items) + "</ul></div>"


def _scores_table(d: ReportData) -> str:
    """One row per system: METEOR, P, R, penalty, difference, bootstrap mean and interval, p-values."""
    head = ('<tr><th class="name">System</th><th>METEOR</th><th>P</th><th>R</th><th>Frag penalty</th><th>Delta</th>'
            + ("<th>BS mean</th><th>95% interval</th><th>BS p</th>" if d.resamples else "")
            + ("<th>AR p</th>" if d.trials else "") + "</tr>")
    rows = []
    b = d.baseline
    cells = f'<td class="name">{_esc(b.name)} (baseline)</td>' + _common_cells(b) + "<td></td>"
    if d.resamples:
        bb = d.baseline_bootstrap
        cells += (f"<td>{_f(bb.mean)}</td><td>[{_f(bb.lower)}, {_f(bb.upper)}]</td><td></td>" if bb
                  else "<td></td><td></td><td></td>")
    if d.trials:
        cells += "<td></td>"
    rows.append(f'<tr class="baseline">{cells}</tr>')
    for s in sorted(d.systems, key=lambda s: -s.score):
        c = s.comparison
        assert c is not None
        cells = f'<td class="name">{_esc(s.name)}</td>' + _common_cells(s) + f"<td>{c.delta:+.4f}</td>"
        if d.resamples:
            bs = c.bootstrap
            cells += (f"<td>{_f(bs.mean)}</td><td>[{_f(bs.lower)}, {_f(bs.upper)}]</td>" + _p_cell(bs.p_value, c.delta)
                      if bs else "<td></td><td></td><td></td>")
        if d.trials:
            cells += _p_cell(c.ar.p_value if c.ar else None, c.delta)
        rows.append(f'<tr class="system" data-system="{_esc(s.name)}">{cells}</tr>')
    note = (f'<p class="note">Delta: system minus baseline. BS: paired bootstrap resampling ({d.resamples} resamples), '
            f"the mean and 95% interval of the resampled corpus scores; AR: approximate randomization ({d.trials} "
            f"trials); seed {d.seed}. * p &le; {ALPHA}: a difference unlikely to be chance.</p>")
    return f'<table class="report scores" id="scores-table"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>{note}'


def _common_cells(s: SystemSummary) -> str:
    return f"<td>{_f(s.score)}</td><td>{_f(s.precision)}</td><td>{_f(s.recall)}</td><td>{_f(s.frag_penalty)}</td>"


class _Scale:
    """A linear map from data to SVG x coordinates."""

    def __init__(self, lo: float, hi: float, x0: float, x1: float):
        if not hi > lo:
            lo, hi = lo - 0.5, hi + 0.5
        pad = (hi - lo) * 0.05
        self.lo, self.hi, self.x0, self.x1 = lo - pad, hi + pad, x0, x1

    def __call__(self, v: float) -> float:
        return round(self.x0 + (v - self.lo) / (self.hi - self.lo) * (self.x1 - self.x0), 2)

    def ticks(self, n: int = 5) -> List[float]:
        """About ``n`` round values in the range."""
        span = self.hi - self.lo
        step = 10 ** math.floor(math.log10(span / n)) if span > 0 else 1.0
        for m in (1, 2, 5, 10):
            if span / (step * m) <= n:
                step *= m
                break
        first = math.ceil(self.lo / step) * step
        return [first + k * step for k in range(int((self.hi - first) / step) + 1)]


def _axis(scale: _Scale, y: float, top: float, digits: int) -> str:
    """Grid lines and labels of the x axis."""
    out = []
    for t in scale.ticks():
        x = scale(t)
        out.append(f'<line x1="{x}" y1="{top}" x2="{x}" y2="{y}" stroke="#e9ecef"/>'
                   f'<text x="{x}" y="{y + 14}" font-size="11" text-anchor="middle" fill="#495057">{t:.{digits}f}</text>')
    return "".join(out)


def _interval_plot(d: ReportData) -> str:
    """Each system's bootstrap mean and 95 % interval (or its score alone), the baseline's score as a line."""
    rows = [d.baseline, *sorted(d.systems, key=lambda s: -s.score)]
    spans = []
    for s in rows:
        b = d.baseline_bootstrap if s is d.baseline else (s.comparison.bootstrap if s.comparison else None)
        spans.append((s, b))
    values = [v for s, b in spans for v in ((b.lower, b.upper) if b else (s.score, s.score))]
    left, width, row = 170, 720, 22
    height = 30 + row * len(rows) + 20
    scale = _Scale(min(values), max(values), left, width - 20)
    parts = [f'<svg class="plot" id="interval-plot" role="img" aria-label="METEOR with 95% intervals" '
             f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">',
             f'<text x="{left}" y="14" font-size="12" fill="#212529">Corpus METEOR, bootstrap 95% interval '
             f'(line: the baseline\'s score)</text>', _axis(scale, height - 20, 22, 3)]
    bx = scale(d.baseline.score)
    parts.append(f'<line x1="{bx}" y1="22" x2="{bx}" y2="{height - 20}" stroke="#6c757d" stroke-dasharray="4 3"/>')
    for k, (s, b) in enumerate(spans):
        y = 30 + row * k + row / 2
        colour = "#6c757d" if s is d.baseline else _colour(s, d)
        parts.append(f'<text x="{left - 8}" y="{y + 4}" font-size="12" text-anchor="end">{_esc(s.name)}</text>')
        if b is not None:
            parts.append(f'<line x1="{scale(b.lower)}" y1="{y}" x2="{scale(b.upper)}" y2="{y}" stroke="{colour}" '
                         f'stroke-width="2"/>')
        parts.append(f'<circle cx="{scale(s.score)}" cy="{y}" r="4" fill="{colour}"><title>{_esc(s.name)}: '
                     f"{_f(s.score)}</title></circle>")
    parts.append("</svg>")
    return "".join(parts)


def _colour(s: SystemSummary, d: ReportData) -> str:
    """Green: significantly better than the baseline; red: significantly worse; blue: neither."""
    c = s.comparison
    if c is None:
        return "#6c757d"
    sig, _ = _significance(c)
    return "#0a7d32" if sig and c.delta > 0 else "#b02a37" if sig and c.delta < 0 else "#0d6efd"


def _differences_plot(d: ReportData) -> str:
    """Per system, the distribution of its segment scores minus the baseline's: 5 %-95 % whiskers, quartile box,
    median, mean (diamond); the segments it wins, ties and loses on the right."""
    systems = sorted(d.systems, key=lambda s: -s.score)
    diffs = {s.name: sorted(x - y for x, y in zip(s.segment_scores, d.baseline.segment_scores)) for s in systems}
    lo = min((quantile(v, 0.05) for v in diffs.values()), default=-1.0)
    hi = max((quantile(v, 0.95) for v in diffs.values()), default=1.0)
    left, width, row, top = 170, 880, 24, 44
    plot_right = 700
    height = top + row * len(systems) + 20
    scale = _Scale(min(lo, 0.0), max(hi, 0.0), left, plot_right)
    parts = [f'<svg class="plot" id="differences-plot" role="img" aria-label="segment-level differences" '
             f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">',
             f'<text x="{left}" y="14" font-size="12">Segment score minus the baseline\'s ({_esc(d.baseline.name)}): '
             "whiskers 5%-95%, box 25%-75%, median, mean &#9670;</text>",
             f'<text x="{plot_right + 20}" y="34" font-size="12">won / tied / lost</text>',
             _axis(scale, height - 20, top - 6, 2)]
    zx = scale(0.0)
    parts.append(f'<line x1="{zx}" y1="{top - 6}" x2="{zx}" y2="{height - 20}" stroke="#212529"/>')
    for k, s in enumerate(systems):
        v = diffs[s.name]
        y = top + row * k + row / 2
        q05, q25, q50, q75, q95 = (quantile(v, q) for q in (0.05, 0.25, 0.5, 0.75, 0.95))
        mean = math.fsum(v) / len(v) if v else 0.0
        colour = _colour(s, d)
        parts.append(f'<g class="diff-row" data-system="{_esc(s.name)}">'
                     f'<text x="{left - 8}" y="{y + 4}" font-size="12" text-anchor="end">{_esc(s.name)}</text>'
                     f'<line x1="{scale(q05)}" y1="{y}" x2="{scale(q95)}" y2="{y}" stroke="{colour}"/>'
                     f'<rect x="{scale(q25)}" y="{y - 7}" width="{max(scale(q75) - scale(q25), 1)}" height="14" '
                     f'fill="{colour}" fill-opacity="0.25" stroke="{colour}"/>'
                     f'<line x1="{scale(q50)}" y1="{y - 7}" x2="{scale(q50)}" y2="{y + 7}" stroke="{colour}" stroke-width="2"/>'
                     f'<path d="M{scale(mean)} {y - 5} l5 5 l-5 5 l-5 -5 z" fill="#212529"><title>mean {mean:+.4f}'
                     "</title></path>")
        win = sum(1 for x in v if x > 0)
        loss = sum(1 for x in v if x < 0)
        tie = len(v) - win - loss
        parts.append(f'<text x="{plot_right + 20}" y="{y + 4}" font-size="12">{win} / {tie} / {loss}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def _module_words(st: Stats, i: int) -> float:
    """Hypothesis words matched by module ``i`` (content and function words)."""
    tc = st.test_content[i] if i < len(st.test_content) else 0.0
    tf = st.test_function[i] if i < len(st.test_function) else 0.0
    return tc + tf


def _modules_section(d: ReportData) -> str:
    """Per system: matched hypothesis words by module and unmatched, as a table and a stacked bar; fragmentation."""
    systems = [d.baseline, *sorted(d.systems, key=lambda s: -s.score)]
    mods = d.modules
    head = ('<tr><th class="name">System</th>' + "".join(f'<th class="{module_class(m)}">{_esc(m)}</th>' for m in mods)
            + "<th>unmatched</th><th>Chunks</th><th>Matched words per chunk</th><th>Frag penalty</th></tr>")
    rows = []
    left, width, row = 170, 720, 20
    height = 30 + row * len(systems) + 10
    bar = width - left - 20
    svg = [f'<svg class="plot" id="modules-plot" role="img" aria-label="matches by module" '
           f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">',
           f'<text x="{left}" y="14" font-size="12">Hypothesis words by the module that matched them '
           "(grey: unmatched)</text>"]
    for k, s in enumerate(systems):
        st = s.stats
        total = st.test_length or 1.0
        counts = [_module_words(st, i) for i in range(len(mods))]
        unmatched = max(st.test_length - sum(counts), 0.0)
        matched_avg = (st.test_word_matches + st.ref_word_matches) / 2
        per_chunk = matched_avg / st.chunks if st.chunks else math.nan
        name = f"{s.name} (baseline)" if s is d.baseline else s.name
        rows.append(f'<tr data-system="{_esc(s.name)}"><td class="name">{_esc(name)}</td>'
                    + "".join(f"<td>{100 * c / total:.1f}%</td>" for c in counts)
                    + f"<td>{100 * unmatched / total:.1f}%</td><td>{int(st.chunks)}</td><td>{_f(per_chunk, 2)}</td>"
                    f"<td>{_f(s.frag_penalty)}</td></tr>")
        y = 26 + row * k
        svg.append(f'<text x="{left - 8}" y="{y + 12}" font-size="12" text-anchor="end">{_esc(s.name)}</text>')
        x = float(left)
        for m, c in [*zip(mods, counts), ("unmatched", unmatched)]:
            w = round(bar * c / total, 2)
            fill = "#f8f9fa" if m == "unmatched" else MODULE_COLOURS.get(m, OTHER_COLOUR)[1]
            svg.append(f'<rect x="{round(x, 2)}" y="{y}" width="{w}" height="15" fill="{fill}" stroke="#adb5bd" '
                       f'stroke-width="0.5"><title>{_esc(s.name)}: {_esc(m)} {100 * c / total:.1f}%</title></rect>')
            x += w
    svg.append("</svg>")
    legend = "".join(f'<li class="{module_class(m)}">{_esc(m)}</li>' for m in mods)
    legend += '<li style="background:#f8f9fa;border:1px solid #adb5bd">unmatched</li>'
    return (f'<ul class="legend">{legend}</ul>{"".join(svg)}'
            f'<table class="report modules" id="modules-table"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'
            '<p class="note">Percentages of hypothesis words (characters with --ch). Fewer, longer chunks: a word '
            "order closer to the reference's, hence a smaller fragmentation penalty.</p>")


def _buckets_section(d: ReportData) -> str:
    """Corpus METEOR of each system on the segments of each reference length, shaded by rank in the column."""
    systems = [d.baseline, *sorted(d.systems, key=lambda s: -s.score)]
    head = ('<tr><th class="name">Reference length (words)</th>'
            + "".join(f"<th>{_esc(b.label)}</th>" for b in d.buckets) + "</tr>")
    counts = '<tr><td class="name">segments</td>' + "".join(f"<td>{b.segments}</td>" for b in d.buckets) + "</tr>"
    rows = [counts]
    for s in systems:
        cells = []
        for b in d.buckets:
            v = b.scores.get(s.name)
            base = b.scores.get(d.baseline.name)
            if v is None:
                cells.append("<td>-</td>")
                continue
            style = ""
            if s is not d.baseline and base is not None and b.segments:
                diff = v - base
                shade = min(abs(diff) / 0.05, 1.0)
                rgb = "10,125,50" if diff > 0 else "176,42,55"
                style = f' style="background:rgba({rgb},{0.35 * shade:.2f})"'
            cells.append(f'<td{style} title="{_esc(s.name)}, {_esc(b.label)}">{_f(v)}</td>')
        name = f"{s.name} (baseline)" if s is d.baseline else s.name
        rows.append(f'<tr data-system="{_esc(s.name)}"><td class="name">{_esc(name)}</td>{"".join(cells)}</tr>')
    return (f'<table class="report buckets" id="buckets-table"><thead>{head}</thead><tbody>{"".join(rows)}</tbody>'
            '</table><p class="note">Length: words of the segment\'s first reference. Each cell is the corpus METEOR '
            "of the bucket's segments (their summed statistics); green: above the baseline in that bucket, red: "
            "below (darker: up to 0.05 apart).</p>")


def _examples_section(d: ReportData) -> str:
    """Per system, its examples with the baseline's and its alignment side by side (the first system's open)."""
    out = []
    systems = [s for s in sorted(d.systems, key=lambda s: -s.score) if d.examples.get(s.name)]
    for k, s in enumerate(systems):
        items = []
        for ex in d.examples[s.name]:
            who = s.name if ex.delta > 0 else d.baseline.name
            items.append(
                f'<div class="example" data-segment="{_esc(ex.seg_id)}"><h3>Segment {_esc(ex.seg_id)}: '
                f"{_esc(s.name)} {_f(ex.system.get('score'))} vs {_esc(d.baseline.name)} {_f(ex.baseline.get('score'))} "
                f"({ex.delta:+.4f}, {_esc(who)} better)</h3>"
                f'<div class="pair"><div><p class="meta">baseline: {_esc(d.baseline.name)}</p>'
                f"{segment_html(ex.baseline)}</div><div><p class=\"meta\">system: {_esc(s.name)}</p>"
                f"{segment_html(ex.system)}</div></div></div>")
        out.append(f'<details class="system" data-system="{_esc(s.name)}"{" open" if k == 0 else ""}>'
                   f"<summary>{_esc(s.name)} vs {_esc(d.baseline.name)}: the {len(items)} segment(s) where they differ "
                   f"most</summary>{''.join(items)}</details>")
    return "".join(out) or '<p class="note">No examples.</p>'


def render_report(d: ReportData) -> str:
    """The whole HTML document (see the module docstring), as a string."""
    segments = len(d.baseline.segment_scores)
    meta = (f"{_esc(d.source)} &middot; {segments} segments &middot; {len(d.systems) + 1} systems &middot; "
            f"baseline {_esc(d.baseline.name)}")
    sections = [
        ("scores", "Scores and significance", _scores_table(d) + _interval_plot(d)),
        ("differences", "Segment-level differences against the baseline", _differences_plot(d)),
        ("modules", "Matches by module, and fragmentation", _modules_section(d)),
        ("lengths", "By reference length", _buckets_section(d)),
        ("examples", "Where they differ most", _examples_section(d)),
    ]
    body = "".join(f'<section class="report-section" id="{sid}"><h2 class="section">{title}</h2>{content}</section>'
                   for sid, title, content in sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_esc(d.title)}</title><style>{page_css(d.modules)}{_CSS}</style></head>\n<body><main>"
        f'<h1>{_esc(d.title)}</h1><p class="meta">{meta}</p><p class="meta sig">{_esc(d.signature)}</p>'
        f"{_verdict(d)}{body}</main></body></html>\n"
    )
