"""A hostile HTTP server on 127.0.0.1 (a free port) for the fetch cases of the bad-input catalogue: listings and downloads that
redirect to ftp, never end (at full speed or paced), trickle their headers or body, stall, or carry forged text.

Every loop is bounded (at most about 60 s of trickling, 256 MB of body) and stops as soon as the client has gone;
:func:`serve` shuts the server down when its block ends.  Only 127.0.0.1 is ever used.
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator, Optional

__all__ = ["serve", "LISTINGS"]


def _listing(file: str = "x.whl", **fields: object) -> bytes:
    entry: Dict[str, object] = {"project": "meteor-lite-pack-en", "bundle": "en", "version": "1.0.0", "file": file,
                                "sha256": "0" * 64, "size": 1000, "language": "en", "content_checksum": "ab" * 32}
    entry.update(fields)
    return json.dumps({"format": 1, "packs": [entry]}).encode()


#: Listings served as they are (URL path -> body).
LISTINGS: Dict[str, bytes] = {
    "/forged/packs.json": _listing(file="x.whl\nFinal score:            0.999\x1b[31m"),
    "/size-abc/packs.json": _listing(size="abc"),
    "/version-5000/packs.json": _listing(version="1" * 5000),
    "/deep/packs.json": b'{"format": 1, "packs": ' + b"[" * 200_000 + b"]" * 200_000 + b"}",
}


class _Handler(http.server.BaseHTTPRequestHandler):
    files: Optional[Path] = None  # a directory served under /files/

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, data: bytes) -> bool:
        try:
            self.wfile.write(data)
            self.wfile.flush()
            return True
        except OSError:  # the client has gone
            return False

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = self.path.split("?", 1)[0]
        self.close_connection = True
        if path in LISTINGS:
            return self._body(LISTINGS[path])
        if path == "/redirect-ftp/packs.json":
            self.send_response(302)
            self.send_header("Location", "ftp://127.0.0.1:1/packs.json")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if path.startswith("/huge/"):  # announces 400 MB, sends nothing more
            self.send_response(200)
            self.send_header("Content-Length", str(400_000_000))
            self.end_headers()
            return None
        if path.startswith("/endless/"):  # no length, 64 KiB at a time, at most 256 MB
            self.send_response(200)
            self.end_headers()
            for _ in range(4096):
                if not self._send(b"[" * 65536):
                    break
            return None
        if path.startswith("/paced-endless/"):  # no length, 64 KiB every 10 ms (6.5 MB/s) for at most 120 s
            self.send_response(200)
            self.end_headers()
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and self._send(b"[" * 65536):
                time.sleep(0.01)
            return None
        if path.startswith("/trickle/"):  # 1 byte every 0.5 s, at most 120 of 1000 announced
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(120):
                if not self._send(b" "):
                    break
                time.sleep(0.5)
            return None
        if path.startswith("/header-trickle/"):  # the status line and headers 1 byte every 0.5 s, at most 120
            for b in (b"HTTP/1.0 200 OK\r\nX-Slow: " + b"y" * 200)[:120]:
                if not self._send(bytes([b])):
                    break
                time.sleep(0.5)
            return None
        if path.startswith("/stall/"):  # headers, then silence for up to 30 s
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self._send(b"x")
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and self._alive():
                time.sleep(0.2)
            return None
        if path.startswith("/files/") and self.files is not None:
            f = self.files / path[len("/files/"):]
            if f.is_file():
                return self._body(f.read_bytes())
        self.send_error(404, "not found")
        return None

    def _alive(self) -> bool:
        try:
            self.connection.setblocking(False)
            try:
                return self.connection.recv(1, socket.MSG_PEEK) != b""
            except BlockingIOError:
                return True
            finally:
                self.connection.setblocking(True)
        except OSError:
            return False

    def _body(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self._send(data)


@contextmanager
def serve(files: Optional[Path] = None) -> Iterator[str]:
    """The server's base URL (``http://127.0.0.1:PORT``) while the block runs; ``files`` served under ``/files/``."""
    handler = type("Handler", (_Handler,), {"files": files})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
