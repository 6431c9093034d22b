"""The report of ``meteor-lite report --html`` as a person sees it: opened in a real headless browser (Debian's chromium).

For a 2-system and a 20-system file, the page is rendered twice by Chromium: ``--dump-dom`` (the DOM after
loading: every section, table and plot there) and ``--screenshot`` (kept under build/report-browser/ as a build
artefact; the plots' pixels are looked for in it).  Chromium runs with every host name unresolvable and a proxy
that records each request and answers none: a request the page made would be recorded (a control page with a
remote image and stylesheet checks that it is), and the page itself holds no URL at all.  Requests Chromium makes
on its own (its updater, its sign-in service: the hosts it asks for with an empty page) are not the page's.

Reads ../shared/data/wmt21/newstest2021.en-de.systems.tsv.gz (the first segments of 2 and of 20 systems).
Skips when chromium is not installed (.ci/run installs it) or without the German bundle (``make bundles``).
"""

from __future__ import annotations

import gzip
import http.server
import re
import shutil
import socketserver
import struct
import subprocess
import threading
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

import pytest

from meteor_lite.cli import run
from meteor_lite.resources.locate import find_bundle

ROOT = Path(__file__).resolve().parent.parent
WMT = ROOT.parent / "shared" / "data" / "wmt21" / "newstest2021.en-de.systems.tsv.gz"
ARTEFACTS = ROOT / "build" / "report-browser"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: Chromium's own background services (asked for whatever the page): not requests of the page.
CHROMIUM_OWN = {"update.googleapis.com", "clients2.google.com", "accounts.google.com"}

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium; "
                                                ".ci/run installs it)"),
    pytest.mark.skipif(find_bundle("de") is None, reason="no German bundle: run `make bundles`"),
    pytest.mark.skipif(not WMT.is_file(), reason=f"needs the shared data ({WMT.name})"),
]


class _Recorder(http.server.BaseHTTPRequestHandler):
    """A proxy that records every request (``METHOD target``) and refuses it."""

    seen: List[str] = []

    def _refuse(self) -> None:
        self.seen.append(f"{self.command} {self.path}")
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_HEAD = do_CONNECT = do_PUT = do_OPTIONS = _refuse

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def proxy() -> Iterator[Tuple[int, List[str]]]:
    seen: List[str] = []
    handler = type("Handler", (_Recorder,), {"seen": seen})
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], seen
    server.shutdown()
    server.server_close()


def _chromium(page: Path, port: int, profile: Path, *what: str) -> subprocess.CompletedProcess:
    assert CHROMIUM is not None
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
           "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
           f"--user-data-dir={profile}", f"--proxy-server=http://127.0.0.1:{port}", "--proxy-bypass-list=<-loopback>",
           "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1", "--force-device-scale-factor=1",
           *what, page.resolve().as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)


def _hosts(requests: List[str]) -> Set[str]:
    """The host of each recorded request (``CONNECT host:443``, ``GET http://host/...``)."""
    out = set()
    for r in requests:
        target = r.split(" ", 1)[1]
        m = re.match(r"^(?:[a-z]+://)?([^/:]+)", target)
        out.add(m.group(1) if m else target)
    return out


def _page_requests(page: Path, port: int, seen: List[str], tmp: Path, *what: str) -> Tuple[str, Set[str]]:
    """Open ``page``; its output and the hosts it asked for (Chromium's own left out)."""
    del seen[:]
    r = _chromium(page, port, tmp / "profile", *what)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout, _hosts(seen) - CHROMIUM_OWN


def _png_pixels(path: Path) -> Tuple[int, int, List[bytes]]:
    """Width, height and the unfiltered rows (RGB or RGBA bytes) of a PNG (8-bit truecolour, not interlaced)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos : pos + 4]), data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: List[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        if f == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b, c = prev[i], prev[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def _count_colour(rows: List[bytes], width: int, rgb: Tuple[int, int, int]) -> int:
    channels = len(rows[0]) // width
    target = bytes(rgb)
    return sum(1 for row in rows for x in range(0, len(row), channels) if row[x : x + 3] == target)


class _Dom(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: List[Tuple[str, Dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def ids(self) -> Set[str]:
        return {a["id"] for _, a in self.tags if "id" in a}

    def count(self, tag: str, cls: str) -> int:
        return sum(1 for t, a in self.tags if t == tag and cls in a.get("class", "").split())


def _systems_file(tmp: Path, systems: int, segments: int) -> Path:
    """The first ``segments`` segments of the first ``systems`` systems of the en-de systems file."""
    with gzip.open(WMT, "rt", encoding="utf-8") as f:
        header = f.readline()
        cols = header.rstrip("\n").split("\t")
        rows = [ln for ln in f if int(ln.split("\t")[cols.index("seg_id")]) <= segments]
    names: List[str] = []
    for ln in rows:
        name = ln.split("\t")[cols.index("system")]
        if name not in names:
            names.append(name)
    keep = set(names[:systems])
    out = tmp / f"en-de.{systems}.tsv"
    out.write_text(header + "".join(ln for ln in rows if ln.split("\t")[cols.index("system")] in keep), encoding="utf-8")
    return out


def test_the_network_check_catches_a_remote_resource(proxy: Tuple[int, List[str]], tmp_path: Path) -> None:
    port, seen = proxy
    control = tmp_path / "control.html"
    control.write_text('<!DOCTYPE html><html><head><link rel="stylesheet" href="https://fonts.example.org/a.css">'
                       '</head><body><img src="http://images.example.com/x.png"><p>control</p></body></html>',
                       encoding="utf-8")
    _, hosts = _page_requests(control, port, seen, tmp_path, "--dump-dom")
    assert {"fonts.example.org", "images.example.com"} <= hosts


@pytest.mark.parametrize("systems,segments", [(2, 80), (20, 30)])
def test_report_in_a_browser(systems: int, segments: int, proxy: Tuple[int, List[str]], tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    port, seen = proxy
    tsv = _systems_file(tmp_path, systems, segments)
    page = ARTEFACTS / f"report-{systems}-systems.html"
    code = run(["report", "--tsv", str(tsv), "--html", str(page), "-j", "1", "--paired-bs-n", "200",
                "--paired-ar-n", "500", "--examples", "2"])
    capsys.readouterr()
    assert code == 0
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"(?:https?:|ftp:|url\(|//[a-z0-9.-]+\.[a-z]{2,})", text, re.IGNORECASE)
    dom_text, hosts = _page_requests(page, port, seen, tmp_path, "--dump-dom")
    assert hosts == set(), f"the page asked for {sorted(hosts)}"
    dom = _Dom()
    dom.feed(dom_text)
    for needed in ("verdict", "scores", "scores-table", "interval-plot", "differences", "differences-plot", "modules",
                   "modules-plot", "modules-table", "lengths", "buckets-table", "examples"):
        assert needed in dom.ids(), needed
    assert dom.count("tr", "system") == systems - 1
    assert dom.count("g", "diff-row") == systems - 1
    assert dom.count("details", "system") == systems - 1
    assert dom.count("section", "segment") == 2 * 2 * (systems - 1)  # 2 examples, both sides
    shot = ARTEFACTS / f"report-{systems}-systems.png"
    shot.unlink(missing_ok=True)
    _, hosts = _page_requests(page, port, seen, tmp_path, f"--screenshot={shot}", "--window-size=1280,2600")
    assert hosts == set(), f"the page asked for {sorted(hosts)}"
    width, height, rows = _png_pixels(shot)
    assert (width, height) == (1280, 2600)
    # the modules plot's bars are drawn in the exact module's colour (#0d6efd): tens of thousands of pixels,
    # where the legend's borders alone would be a few hundred
    assert _count_colour(rows, width, (0x0D, 0x6E, 0xFD)) > 5000
