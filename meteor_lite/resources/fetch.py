"""The one reader of everything meteor-lite fetches from a URL: a pack listing, a pack, a bundle.

A source named by a URL is untrusted.  :class:`Fetch` reads one with four bounds, the same for
every caller (:func:`~.install.install_bundle`, :func:`~.index.read_index`,
:func:`~.index.install_from_index`):

* **schemes**: ``http``, ``https`` and ``file`` only; a server's redirect is followed only to
  ``http``/``https`` (urllib alone would follow one to ``ftp://``);
* **an overall deadline** (seconds) covering the connection, the response headers and the body:
  a watchdog thread shuts the connection's socket down when it expires, so a server that
  trickles its headers a byte at a time is stopped as surely as one that trickles its body;
* **a stall limit** (default :data:`DEFAULT_STALL`, 15 s, as pip's): no byte for that long ends
  the transfer (each socket read waits at most that long);
* **a header deadline** (default :data:`DEFAULT_HEADER_DEADLINE`, 30 s): the status line and headers must
  have arrived by then, however slowly they trickle in;
* **a minimum rate** (default :data:`DEFAULT_MIN_RATE` bytes a second, averaged over each window of
  :data:`DEFAULT_RATE_WINDOW` seconds, as curl's ``--speed-limit``/``--speed-time``): a body trickled a byte
  at a time (which the stall limit never sees) ends when a whole window brings less;
* **a size cap** on the bytes received (a ``Content-Length`` above it is refused before any
  byte of the body is read).

Every failure is an :class:`InstallError` with a one-line message naming the URL.  A temporary
file written from a fetch is removed on error and on Ctrl-C by its writer's ``finally``;
:func:`interrupt_on_sigterm` makes SIGTERM an interruption too (a :class:`Terminated`,
a ``KeyboardInterrupt``), so that the same ``finally`` removes it when the process is told to stop.
"""

from __future__ import annotations

import signal
import socket
import threading
import time
from contextlib import contextmanager
from typing import Any, BinaryIO, Iterator, List, Optional

from ..errors import BundleError
from ..printable import one_line

__all__ = ["DEFAULT_HEADER_DEADLINE", "DEFAULT_MIN_RATE", "DEFAULT_RATE_WINDOW", "DEFAULT_STALL", "InstallError", "Terminated", "Fetch", "interrupt_on_sigterm", "is_url", "url_scheme"]

#: Seconds a transfer may go without receiving a byte (pip's default timeout is the same).
DEFAULT_STALL = 15.0

#: Seconds from the start by which the response's status line and headers must have arrived.
DEFAULT_HEADER_DEADLINE = 30.0

#: Bytes a second a body must average over each window of :data:`DEFAULT_RATE_WINDOW` seconds.
DEFAULT_MIN_RATE = 1000.0
DEFAULT_RATE_WINDOW = 30.0

#: Schemes a user may name; redirects are followed only to the first two.
_SCHEMES = ("http", "https", "file")

_CHUNK = 1 << 20


class InstallError(BundleError):
    """A bundle could not be fetched, installed or removed (the message says why; nothing was left behind)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived while :func:`interrupt_on_sigterm` was in force (handled as an interruption)."""


def url_scheme(source: str) -> str:
    """The lower-cased scheme of ``source`` ("" when it has none)."""
    return source.split("://", 1)[0].lower() if "://" in source else ""


def is_url(source: str) -> bool:
    """True when ``source`` is an ``http``, ``https`` or ``file`` URL."""
    return url_scheme(source) in _SCHEMES


@contextmanager
def interrupt_on_sigterm() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` (a ``KeyboardInterrupt``) in the main thread, so
    that ``finally`` clauses remove temporary files as on Ctrl-C; the previous handler is restored after.
    Outside the main thread (signals cannot be handled there) the block runs unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise Terminated("terminated (SIGTERM)")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Watchdog:
    """Shuts down the sockets of one fetch when its deadline passes (a blocked read then returns)."""

    def __init__(self, seconds: float):
        self.expired = False
        self._socks: List[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def track(self, sock: Optional[socket.socket]) -> None:
        """Watch ``sock`` (shut it down at once when the deadline has already passed)."""
        if sock is None:
            return
        with self._lock:
            self._socks.append(sock)
            if self.expired:
                _shutdown(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._socks:
                _shutdown(sock)

    def cancel(self) -> None:
        """Stop the timer (the fetch is over)."""
        self._timer.cancel()


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _opener(*watches: _Watchdog) -> Any:
    """A urllib opener whose connections are watched by ``watches`` and whose redirects stay on http(s)."""
    import http.client
    import urllib.request

    def tracked(base: Any) -> Any:
        class Tracked(base):
            def connect(self) -> None:
                super().connect()
                for watch in watches:
                    watch.track(self.sock)

        return Tracked

    class WatchedHTTP(urllib.request.HTTPHandler):
        def http_open(self, req: Any) -> Any:
            return self.do_open(tracked(http.client.HTTPConnection), req)

    class WatchedHTTPS(urllib.request.HTTPSHandler):
        def https_open(self, req: Any) -> Any:
            kwargs = {"context": getattr(self, "_context", None)}
            if hasattr(self, "_check_hostname"):
                kwargs["check_hostname"] = self._check_hostname
            return self.do_open(tracked(http.client.HTTPSConnection), req, **kwargs)

    class HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
            if url_scheme(newurl) not in ("http", "https"):
                raise InstallError(f"{one_line(req.full_url)}: the server redirects to {one_line(newurl)!r}: only "
                                   "http and https redirects are followed")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return urllib.request.build_opener(WatchedHTTP, WatchedHTTPS, HttpOnlyRedirects)


class Fetch:
    """One bounded read of ``url`` (see the module docstring); use as a context manager.

    ``url`` may be a local path when ``paths`` is true.  ``deadline`` and ``stall`` are seconds, ``max_bytes`` the size cap; ``what`` names the
    thing read in messages (``download``, ``pack index``), ``fix_size`` / ``fix_time``
    how the user raises the cap or the deadline, ``http_hint`` what follows an HTTP error.  :attr:`length` is the announced
    ``Content-Length`` (None if absent); :meth:`chunks` yields the body.
    """

    def __init__(self, url: str, *, deadline: float, stall: float = DEFAULT_STALL, max_bytes: int,
                 header_deadline: float = DEFAULT_HEADER_DEADLINE, min_rate: float = DEFAULT_MIN_RATE,
                 rate_window: float = DEFAULT_RATE_WINDOW,
                 what: str = "download", fix_size: str = "raise it with --max-size",
                 fix_time: str = "give more time with --timeout", paths: bool = False, http_hint: str = ""):
        if not is_url(url) and not paths:
            raise InstallError(f"{one_line(url)}: only http, https and file URLs are read")
        if not stall > 0:
            raise InstallError(f"the stall limit must be a positive number of seconds (--stall), got {stall!r}")
        self.url, self.label = url, one_line(url)
        if not (header_deadline > 0 and min_rate >= 0 and rate_window > 0):
            raise InstallError(f"the header deadline and the rate window must be positive and the minimum rate not "
                               f"negative, got {header_deadline!r} s, {rate_window!r} s and {min_rate!r} bytes/s")
        self.deadline, self.stall, self.max_bytes = deadline, min(stall, deadline), max_bytes
        self.header_deadline = min(header_deadline, deadline)
        self.min_rate, self.rate_window = min_rate, rate_window
        self.what, self.fix_size, self.fix_time, self.http_hint = what, fix_size, fix_time, http_hint
        self.received = 0
        self.length: Optional[int] = None
        self._end = time.monotonic() + deadline
        self._watch = _Watchdog(deadline)
        self._stream: Optional[BinaryIO] = None

    def __enter__(self) -> "Fetch":
        try:
            self._open()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection and stop the watchdog."""
        self._watch.cancel()
        if self._stream is not None:
            try:
                self._stream.close()
            except OSError:
                pass

    def _late(self) -> bool:
        return self._watch.expired or time.monotonic() > self._end

    def _deadline_error(self) -> InstallError:
        return InstallError(f"{self.label}: the {self.what} took longer than its deadline of {self.deadline:g} s "
                            f"({self.received} bytes received); {self.fix_time}")

    def _open(self) -> None:
        import http.client
        import urllib.error
        import urllib.request

        if not is_url(self.url):  # a local path (``paths=True``)
            try:
                self._stream = open(self.url, "rb")  # noqa: SIM115 - closed by close()
            except OSError as exc:
                raise InstallError(f"{self.label}: cannot read ({exc.strerror or exc})") from None
            return
        heads = _Watchdog(self.header_deadline)
        try:
            resp = _opener(self._watch, heads).open(self.url, timeout=self.stall)
        except InstallError:
            raise
        except urllib.error.HTTPError as exc:
            if str(exc.msg).startswith(urllib.request.HTTPRedirectHandler.inf_msg):  # a URL seen twice, or too many
                where = exc.headers.get("Location", "?") if exc.headers else "?"
                raise InstallError(
                    f"{self.label}: the server's redirects loop or are too many (more than "
                    f"{urllib.request.HTTPRedirectHandler.max_redirections}; the last one: HTTP {exc.code} to "
                    f"{one_line(where)!r})") from None
            raise InstallError(f"{self.label}: HTTP {exc.code} {one_line(' '.join(str(exc.reason).split()))}"
                               f"{self.http_hint}") from None
        except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
            if self._late():
                raise self._deadline_error() from None
            if heads.expired:
                raise InstallError(f"{self.label}: no complete response headers within {self.header_deadline:g} s "
                                   "(the header deadline)") from None
            reason = getattr(exc, "reason", None) or exc
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise InstallError(f"{self.label}: no answer for {self.stall:g} s (the stall limit)") from None
            raise InstallError(f"{self.label}: cannot read the {self.what} ({one_line(reason)})") from None
        finally:
            heads.cancel()
        if heads.expired:  # shut down just as the headers were complete: the body cannot be read
            resp.close()
            raise InstallError(f"{self.label}: no complete response headers within {self.header_deadline:g} s "
                               "(the header deadline)")
        self._stream = resp
        headers = getattr(resp, "headers", None)
        length = headers.get("Content-Length") if headers is not None else None
        self.length = int(length) if length and length.isdigit() and len(length) < 20 else None
        if self.length is not None and self.length > self.max_bytes:
            raise InstallError(f"{self.label}: announces {self.length} bytes, more than the size cap of "
                               f"{self.max_bytes} bytes; {self.fix_size}")

    def check(self, decompressed: int = 0) -> None:
        """Raise past the deadline, or when the bytes received (or ``decompressed``) exceed the size cap."""
        if self._late():
            raise self._deadline_error()
        if self.received > self.max_bytes or decompressed > self.max_bytes:
            how = "received" if self.received > self.max_bytes else "decompressed"
            raise InstallError(f"{self.label}: larger than the size cap of {self.max_bytes} bytes ({how}); "
                               f"{self.fix_size}")

    def chunks(self) -> Iterator[bytes]:
        """The body, in pieces of at most a mebibyte, each counted and checked (:meth:`check`)."""
        assert self._stream is not None, "use Fetch as a context manager"
        read = getattr(self._stream, "read1", self._stream.read)
        import http.client

        window_start, window_bytes = time.monotonic(), 0
        while True:
            try:
                chunk = read(_CHUNK)
            except http.client.IncompleteRead as exc:
                if self._late():
                    raise self._deadline_error() from None
                raise InstallError(f"{self.label}: truncated transfer "
                                   f"({self.received + len(exc.partial)} bytes received)") from None
            except (socket.timeout, TimeoutError):
                if self._late():
                    raise self._deadline_error() from None
                raise InstallError(f"{self.label}: no data for {self.stall:g} s (the stall limit) after "
                                   f"{self.received} bytes") from None
            except (ConnectionError, OSError, ValueError) as exc:
                if self._late():
                    raise self._deadline_error() from None
                raise InstallError(f"{self.label}: transfer failed after {self.received} bytes "
                                   f"({one_line(exc)})") from None
            if not chunk:
                break
            self.received += len(chunk)
            self.check()
            window_bytes += len(chunk)
            now = time.monotonic()
            if now - window_start >= self.rate_window:
                if window_bytes < self.min_rate * (now - window_start):
                    raise InstallError(
                        f"{self.label}: slower than the minimum rate of {self.min_rate:g} bytes/s over "
                        f"{self.rate_window:g} s ({window_bytes} bytes in {now - window_start:.0f} s; "
                        f"{self.received} bytes received)")
                window_start, window_bytes = now, 0
            yield chunk
        if self._late():  # a socket shut down by the watchdog reads as the end of the body
            raise self._deadline_error()
        if self.length is not None and self.received != self.length:
            raise InstallError(f"{self.label}: truncated transfer: received {self.received} of {self.length} bytes")

