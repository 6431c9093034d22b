"""The HTML alignment view (``meteor-lite align --format html``, :mod:`meteor_lite.alignview`).

The page is parsed with :mod:`html.parser`: no browser is needed here (the visual check with a
headless Chromium is described in the README / helper notes).
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from meteor_lite.alignview import chunk_ids, module_class, render_html
from meteor_lite.resources.locate import find_bundle

JAR = Path(__file__).resolve().parent / "fixtures" / "jar"
needs_en = pytest.mark.skipif(find_bundle("en") is None, reason="no English bundle: run `make bundles`")

Attrs = Dict[str, Optional[str]]


class Page(HTMLParser):
    """Every start tag with its attributes, the text inside each ``span.w``, and the page's text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: List[Tuple[str, Attrs]] = []
        self.words: List[Tuple[Attrs, str]] = []  # (attributes of span.w, its text without the <sub>)
        self._word: Optional[Attrs] = None
        self._in_sub = False
        self._text: List[str] = []
        self.text: List[str] = []

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        d = dict(attrs)
        self.tags.append((tag, d))
        if tag == "span" and "w" in (d.get("class") or "").split():
            self._word, self._text = d, []
        elif tag == "sub":
            self._in_sub = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "sub":
            self._in_sub = False
        elif tag == "span" and self._word is not None:
            self.words.append((self._word, "".join(self._text)))
            self._word = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._word is not None and not self._in_sub:
            self._text.append(data)

    def having(self, tag: str, cls: str) -> List[Attrs]:
        """Attributes of every ``tag`` whose class list holds ``cls``."""
        return [a for t, a in self.tags if t == tag and cls in (a.get("class") or "").split()]


def parse(doc: str) -> Page:
    """Parse ``doc``."""
    p = Page()
    p.feed(doc)
    p.close()
    return p


def record(n: int, hyp: str, ref: str, matches: List[Tuple[str, int, int, int, int]], chunks: int,
           score: float = 0.5) -> Dict[str, Any]:
    """A record as ``alignment_record`` makes it; matches as (module, hyp start, hyp len, ref start, ref len)."""
    h, r = hyp.split(), ref.split()
    ms = [{"module": mod, "hyp": [hs, hl], "ref": [rs, rl], "hyp_words": " ".join(h[hs:hs + hl]),
           "ref_words": " ".join(r[rs:rs + rl])} for mod, hs, hl, rs, rl in sorted(matches, key=lambda m: m[3])]
    return {"segment": n, "hyp_tokens": h, "ref_tokens": r, "matches": ms, "chunks": float(chunks),
            "score": score, "precision": 0.75, "recall": 0.6, "frag_penalty": 0.1, "stats": {}}


MODULES = ["exact", "stem", "synonym", "paraphrase"]
RECS = [
    record(1, "the cats sat on a mat", "a cat sat on the mat",
           [("exact", 0, 1, 4, 1), ("stem", 1, 1, 1, 1), ("exact", 2, 1, 2, 1), ("exact", 3, 1, 3, 1),
            ("exact", 5, 1, 5, 1), ("exact", 4, 1, 0, 1)], chunks=4),
    record(2, "he passed away yesterday", "he died yesterday",
           [("exact", 0, 1, 0, 1), ("paraphrase", 1, 2, 1, 1), ("exact", 3, 1, 2, 1)], chunks=1),
    record(3, "big house", "large home", [("synonym", 0, 1, 0, 1), ("synonym", 1, 1, 1, 1)], chunks=1),
    record(4, "", "nothing matched", [], chunks=0),
]


def test_one_row_and_one_section_per_segment() -> None:
    """The summary table has one row per segment, each linking to that segment's section."""
    page = parse(render_html(RECS, MODULES))
    rows = page.having("tr", "seg-row")
    sections = page.having("section", "segment")
    assert [r["data-segment"] for r in rows] == ["1", "2", "3", "4"]
    assert [s["id"] for s in sections] == ["seg-1", "seg-2", "seg-3", "seg-4"]
    assert {a["href"] for t, a in page.tags if t == "a"} == {"#seg-1", "#seg-2", "#seg-3", "#seg-4"}
    assert len(page.having("table", "matrix")) == 4
    assert len(page.having("tr", "match")) == sum(len(r["matches"]) for r in RECS)
    # the flex layout of the word rows must not reach table cells (it broke the matches table once)
    assert {t for t, a in page.tags if "words" in (a.get("class") or "").split()} == {"div"}


def test_matched_words_carry_their_module() -> None:
    """Each matched word has its module's class and its match number; unmatched words are marked."""
    page = parse(render_html(RECS[:3], MODULES))
    by_word = {(text, a.get("data-match")): (a.get("class") or "").split() for a, text in page.words}
    # segment 1, hypothesis: "cats" matched "cat" by stem (match 2 in reference order)
    assert "m-stem" in by_word[("cats", "2")] and "m-stem" in by_word[("cat", "2")]
    assert "m-exact" in by_word[("sat", "3")]
    assert "m-paraphrase" in by_word[("passed", "2")] and "m-paraphrase" in by_word[("away", "2")]
    assert "m-paraphrase" in by_word[("died", "2")]
    assert "m-synonym" in by_word[("large", "1")] and "m-synonym" in by_word[("house", "2")]
    unmatched = [text for a, text in page.words if "unmatched" in (a.get("class") or "")]
    assert unmatched == []  # every word of these three segments is matched
    # the legend names each module with its colour class, and the CSS has a rule per module
    legend = [a["class"] for t, a in page.tags if t == "li" and (a.get("class") or "").startswith("m-")]
    assert legend == [module_class(m) for m in MODULES]
    doc = render_html(RECS[:1], MODULES)
    for m in MODULES:
        assert f".{module_class(m)}{{background:" in doc


def test_unmatched_words_and_empty_hypothesis() -> None:
    """A segment without matches: every reference word unmatched, no chunk frame, 'No matches.'."""
    page = parse(render_html(RECS[3:], MODULES))
    assert [(text, a["class"]) for a, text in page.words] == [("nothing", "w unmatched"), ("matched", "w unmatched")]
    assert [a for a in page.having("span", "chunk") if a.get("data-chunk")] == []
    assert "No matches." in "".join(page.text)


def test_chunks_as_meteor_counts_them() -> None:
    """Chunk frames group contiguous matches; their number equals Meteor's chunk count."""
    for rec in RECS:
        ids = chunk_ids(rec["matches"])
        assert len(set(ids)) == rec["chunks"]
    doc = render_html(RECS[:1], MODULES)
    page = parse(doc)
    frames = [a for a in page.having("span", "chunk") if a.get("data-chunk")]
    # hypothesis "the | cats sat on | a | mat" and reference "a | cat sat on | the | mat"
    assert sorted(int(a["data-chunk"] or 0) for a in frames) == [1, 1, 2, 2, 3, 3, 4, 4]


def test_statistics_shown_per_segment() -> None:
    """P, R, fragmentation penalty and score are in each section, full values in data attributes."""
    page = parse(render_html(RECS[:2], MODULES, corpus_score=0.123456789, signature="sig|x"))
    scores = [a["data-value"] for a in page.having("td", "score")]
    assert scores == ["0.5", "0.5"]
    assert [a["data-value"] for a in page.having("td", "frag_penalty")] == ["0.1", "0.1"]
    assert [a["data-value"] for a in page.having("td", "precision")] == ["0.75", "0.75"]
    text = "".join(page.text)
    assert "corpus score 0.123457" in text and "sig|x" in text


def test_all_text_is_escaped() -> None:
    """Words, title, signature and file names cannot inject markup."""
    evil = '<script>alert("x")</script>'
    rec = record(1, f'{evil} a&b "q" \'s\'', f'{evil} a&b', [("exact", 0, 1, 0, 1), ("exact", 1, 1, 1, 1)], 1)
    rec["matches"][0]["module"] = "exact"
    doc = render_html([rec], MODULES + ['x"><img src=y>'], title="<b>T</b>", signature="<i>s</i>",
                      sources=("<h>", "<r>"))
    page = parse(doc)
    assert not [t for t, _ in page.tags if t in ("script", "img", "b", "i", "h", "r")]
    words = [text for _, text in page.words]
    assert evil in words and "a&b" in words and '"q"' in words and "'s'" in words
    text = "".join(page.text)
    assert "<b>T</b>" in text and "<i>s</i>" in text and "<h>" in text
    assert "&lt;script&gt;" in doc and "<script" not in doc


def test_self_contained() -> None:
    """No external resource: no script, no src, no stylesheet link, no URL."""
    doc = render_html(RECS, MODULES)
    page = parse(doc)
    assert not [t for t, _ in page.tags if t in ("script", "link", "img", "iframe", "object")]
    assert "http" not in doc and "src=" not in doc and "@import" not in doc
    assert doc.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in doc


def test_module_class_is_a_css_identifier() -> None:
    """Module names become safe class names."""
    assert module_class("exact") == "m-exact"
    assert module_class('x"> <y') == "m-x-y"
    assert module_class("") == "m-module"


@needs_en
def test_cli_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``meteor-lite align --format html --out``: one section per segment, same numbers as the JSON output."""
    from meteor_lite.cli.align import run as align

    args = [str(JAR / "in" / "s1.20.hyp"), str(JAR / "in" / "ref.20"), "--norm", "-m", "exact stem synonym paraphrase"]
    assert align(args + ["--format", "json"]) == 0
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    out = tmp_path / "a.html"
    assert align(args + ["--format", "html", "--out", str(out)]) == 0
    assert capsys.readouterr().out == ""
    page = parse(out.read_text(encoding="utf-8"))
    assert len(page.having("tr", "seg-row")) == len(page.having("section", "segment")) == 20
    assert [float(a["data-value"] or "nan") for a in page.having("td", "score")] == [r["score"] for r in recs]
    for rec in recs:
        assert len(set(chunk_ids(rec["matches"]))) == rec["chunks"]
    classes = {c for a, _ in page.words for c in (a.get("class") or "").split()}
    assert {"m-exact", "m-paraphrase", "unmatched"} <= classes
    n_matched = sum(1 for a, _ in page.words if a.get("data-match"))
    assert n_matched == sum(m["hyp"][1] + m["ref"][1] for r in recs for m in r["matches"])
    # stdout when no --out; an unwritable --out is a one-line error, exit 1
    assert align(args[:2] + ["--format", "html"]) == 0
    assert capsys.readouterr().out.startswith("<!DOCTYPE html>")
    with pytest.raises(SystemExit) as exc:
        align(args[:2] + ["--format", "html", "--out", str(tmp_path / "no" / "such" / "dir.html")])
    assert exc.value.code == 1
    assert "cannot write" in capsys.readouterr().err


def test_matrix_choice() -> None:
    """Matrices: always / never on request; by default only up to MATRIX_AUTO_MAX segments (and said so)."""
    from meteor_lite.alignview import MATRIX_AUTO_MAX

    assert parse(render_html(RECS, MODULES, matrix=False)).having("table", "matrix") == []
    many = [dict(RECS[2], segment=i) for i in range(1, MATRIX_AUTO_MAX + 2)]
    page = parse(render_html(many, MODULES))
    assert page.having("table", "matrix") == [] and "alignment matrices left out" in "".join(page.text)
    assert len(page.having("tr", "seg-row")) == MATRIX_AUTO_MAX + 1
    assert len(parse(render_html(many, MODULES, matrix=True)).having("table", "matrix")) == MATRIX_AUTO_MAX + 1
    assert "left out" not in render_html(RECS, MODULES)
