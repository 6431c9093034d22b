"""What ``meteor-jar`` does when the language's bundle is not installed yet.

Tools that start the jar (pycocoevalcap, nlg-eval, ...) install ``pycocoevalcap``, which holds the official
Meteor 1.5 release.  When it is importable, the builders are there and the language is one of the release's,
the first ``meteor-jar`` run with no bundle of the language imports it into the user bundle directory
(``meteor-lite bundle install LANG``, once; one line on standard error says so) instead of failing.
``METEOR_LITE_NO_AUTO_INSTALL=1`` refuses that: the run then fails as before, saying how to install it.

A ``-stdio`` server that cannot score (no bundle, and none could be built) is piped by its client, which reads
its standard output and never its standard error: :func:`serve_failure` answers every request with the
one-line reason on standard output, as many lines as the jar would answer (the client's next read shows it, e.g. in ``could not convert string to
float: 'meteor-jar: error: ...'``), and exits as soon as the client closes its end; the line also goes to the
controlling terminal, where there is one that standard error is not (:func:`tell_terminal`).
"""

from __future__ import annotations

import importlib.util
import os
from typing import IO, BinaryIO, Optional

__all__ = ["NO_AUTO_INSTALL_ENV", "install_on_first_use", "serve_failure", "tell_terminal"]

#: Set to 1 to refuse building the language's bundle on first use.
NO_AUTO_INSTALL_ENV = "METEOR_LITE_NO_AUTO_INSTALL"


def _refused() -> bool:
    return os.environ.get(NO_AUTO_INSTALL_ENV, "").strip().lower() not in ("", "0", "no", "false")


def install_on_first_use(lang: str, err: IO[str], prog: str) -> Optional[str]:
    """Import the official bundle of ``lang`` when none is installed and the release is; the bundle's path or None.

    Nothing happens when a bundle of ``lang`` is found, ``lang`` is not a language of the release, the release
    (``pycocoevalcap``) or the builders are not installed, or ``METEOR_LITE_NO_AUTO_INSTALL`` is set.  A failed
    import is one line on ``err``, and None (the run then fails saying what is missing).
    """
    from ..resources.locate import find_bundle, user_bundle_dir

    if find_bundle(lang) is not None or _refused():
        return None
    if importlib.util.find_spec("pycocoevalcap") is None or importlib.util.find_spec("meteor_lite_builders") is None:
        return None
    from importlib import import_module

    from ..errors import MeteorLiteError

    # the builders are imported by name (the scorer's core does not depend on them), as 'bundle install' does
    names = import_module("meteor_lite_builders.official.release").LANGUAGE_NAMES
    if lang not in names:
        return None
    install_official = import_module("meteor_lite_builders.official.user_install").install_official

    target = user_bundle_dir() / f"{lang}.sqlite"
    err.write(f"{prog}: no {str(names[lang]).capitalize()} bundle yet: building it once from the installed "
              f"Meteor 1.5 release (pycocoevalcap) into {target} (about a minute for English; "
              f"{NO_AUTO_INSTALL_ENV}=1 refuses)\n")
    err.flush()
    tell_terminal(f"{prog}: no {str(names[lang]).capitalize()} bundle yet: building it once into {target} "
                  f"(about a minute for English; {NO_AUTO_INSTALL_ENV}=1 refuses)")
    try:
        path = install_official(lang, say=lambda line: None, progress=False)
    except (MeteorLiteError, OSError) as exc:
        err.write(f"{prog}: the {lang} bundle could not be built: {exc}\n")
        err.flush()
        return None
    return str(path)


def tell_terminal(line: str) -> None:
    """Write ``line`` on the controlling terminal when standard error is not it (a client that pipes the server's
    standard error never shows it); nothing where there is no terminal."""
    try:
        if os.isatty(2):
            return
        fd = os.open("/dev/tty", os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return
    try:
        os.write(fd, (line.rstrip("\n") + "\n").encode("utf-8", "replace"))
    except OSError:
        pass
    finally:
        os.close(fd)


def _answer_lines(request: bytes) -> int:
    """How many lines the jar answers to ``request``: an ``EVAL`` of n sets n + 1 (each set, then their sum), else 1."""
    fields = request.rstrip(b"\r\n").split(b"|||")
    if fields[0].strip().upper().startswith(b"EVAL") and len(fields) > 1:
        return len(fields)
    return 1


def serve_failure(reason: str, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer each request on ``stdin`` with ``reason`` (one line) on ``stdout``, as many lines as the jar would
    answer (so that a client's every read shows it and none waits for more), until end of input."""
    line = (reason.replace("\n", " ").strip() + "\n").encode("utf-8", "replace")
    try:
        for request in stdin:
            if request.strip():
                stdout.write(line * _answer_lines(request))
                stdout.flush()
    except (BrokenPipeError, OSError):  # the client went away
        pass
