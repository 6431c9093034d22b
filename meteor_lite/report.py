"""Formatting: Java-style numbers and Meteor 1.5's text report, and JSON."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, List

if TYPE_CHECKING:  # pragma: no cover
    from .meteor import CorpusScore


def java_double(x: float) -> str:
    """Format ``x`` as Java's ``Double.toString`` does (``1.0``, ``0.3204832379614146``, ``1.0E-4``, ``NaN``).

    Uses the shortest repr digits, which is what Java prints for all values
    METEOR produces in practice.
    """
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    ax = abs(x)
    digits, exp = _shortest_digits(ax)  # ax = 0.d1d2d3... * 10**exp
    if 1e-3 <= ax < 1e7:
        if exp <= 0:
            s = "0." + "0" * (-exp) + digits
        elif exp >= len(digits):
            s = digits + "0" * (exp - len(digits)) + ".0"
        else:
            s = digits[:exp] + "." + digits[exp:]
        return sign + s
    mant = digits[0] + "." + (digits[1:] or "0")
    return f"{sign}{mant}E{exp - 1}"


def _shortest_digits(ax: float):
    """Shortest round-trip digits of ``ax`` > 0 and exponent e with ax = 0.DIGITS * 10**e."""
    mant, _, e = repr(ax).partition("e")
    intpart, _, frac = mant.partition(".")
    digits = intpart + frac
    lead = len(digits) - len(digits.lstrip("0"))
    exp = len(intpart) + (int(e) if e else 0) - lead
    return digits.strip("0") or "0", exp


def java_min_format(x: float) -> str:
    """Meteor's ``#.##########`` DecimalFormat (counts in the statistics table)."""
    r = round(x, 10)
    if r == int(r):
        return str(int(r))
    return f"{r:.10f}".rstrip("0").rstrip(".")


def text_report(result: "CorpusScore", *, header: bool = True, segments: bool = True) -> str:
    """Meteor 1.5's plaintext report: header, ``Segment N score:`` lines, statistics block."""
    cfg = result.config
    out: List[str] = []
    if header:
        from .params import LANGUAGES

        long_name = LANGUAGES.get(cfg.lang, ("other", None))[0]
        out += [
            "Meteor version: 1.5 (meteor-lite)",
            "",
            f"Eval ID:        {cfg.eval_id()}",
            "",
            f"Language:       {long_name[:1].upper() + long_name[1:]}",
            "Format:         plaintext",
            f"Task:           {cfg.task_description}",
            f"Modules:        {' '.join(cfg.modules)}",
            f"Weights:        {' '.join(java_double(w) for w in cfg.weights)}",
            f"Parameters:     {' '.join(java_double(p) for p in cfg.params)}",
            f"Signature:      {result.signature}",
            "",
        ]
    if segments:
        for i, seg in enumerate(result.segments, 1):
            out.append(f"Segment {i} score:\t{java_double(seg.score)}")
    st = result.stats
    unit = "char" if cfg.char_based else "word"
    out += [
        "",
        "System level statistics:",
        "",
        "",
        "           Test Matches                  Reference Matches",
        "Stage      Content  Function    Total    Content  Function    Total",
    ]
    tc = tf = rc = rf = 0.0
    for i in range(len(cfg.weights)):
        a, b = st.test_content[i], st.test_function[i]
        c, d = st.ref_content[i], st.ref_function[i]
        out.append(
            "%1d          %7s   %7s  %7s    %7s   %7s  %7s"
            % (i + 1, java_min_format(a), java_min_format(b), java_min_format(a + b),
               java_min_format(c), java_min_format(d), java_min_format(c + d))
        )
        tc += a
        tf += b
        rc += c
        rf += d
    out.append(
        "Total      %7s   %7s  %7s    %7s   %7s  %7s"
        % (java_min_format(tc), java_min_format(tf), java_min_format(tc + tf),
           java_min_format(rc), java_min_format(rf), java_min_format(rc + rf))
    )
    m = result.metrics
    out += [
        "",
        f"Test {unit}s:             {java_min_format(st.test_length)}",
        f"Reference {unit}s:        {java_min_format(st.ref_length)}",
        f"Chunks:                 {java_min_format(st.chunks)}",
        f"Precision:              {java_double(m.precision)}",
        f"Recall:                 {java_double(m.recall)}",
        f"f1:                     {java_double(m.f1)}",
        f"fMean:                  {java_double(m.fmean)}",
        f"Fragmentation penalty:  {java_double(m.frag_penalty)}",
        "",
        f"Final score:            {java_double(m.score)}",
    ]
    return "\n".join(out) + "\n"
