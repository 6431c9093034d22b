"""How ``meteor-build`` reports errors and warnings: one line on stderr, exit code 1 (usage errors: 2)."""

from __future__ import annotations

import sqlite3
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Optional, TextIO, Tuple, Type

import typer

from meteor_lite.errors import MeteorLiteError, MeteorLiteWarning
from meteor_lite.printable import one_line

__all__ = ["LIBRARY_ERRORS", "fail", "error_message", "library_errors", "show_warnings", "out_file", "run_app"]

#: Exceptions of the library that the CLI reports as a one-line error (exit code 1).
LIBRARY_ERRORS: Tuple[Type[BaseException], ...] = (MeteorLiteError, OSError, sqlite3.Error)


def fail(msg: str, code: int = 1) -> typer.Exit:
    """Print ``meteor-build: error: <msg>`` on stderr; return the :class:`typer.Exit` to raise."""
    typer.echo(f"meteor-build: error: {one_line(msg)}", err=True)
    return typer.Exit(code)


def error_message(exc: BaseException) -> str:
    """The one-line message of a library error (SQLite errors say so)."""
    msg = str(exc) or type(exc).__name__
    return f"SQLite: {msg}" if isinstance(exc, sqlite3.Error) else msg


@contextmanager
def library_errors(context: str = "") -> Iterator[None]:
    """Turn :data:`LIBRARY_ERRORS` raised inside the block into a one-line error and exit code 1."""
    try:
        yield
    except LIBRARY_ERRORS as exc:
        msg = error_message(exc)
        raise fail(f"{context}: {msg}" if context else msg) from None
    except UnicodeDecodeError as exc:  # a text input read without the builders' own decoding
        raise fail(f"invalid UTF-8 ({exc})") from None


def _show(message: "Warning | str", category: Type[Warning], filename: str, lineno: int,
          file: Optional[TextIO] = None, line: Optional[str] = None) -> None:
    if issubclass(category, MeteorLiteWarning):
        print(f"meteor-build: warning: {one_line(message)}", file=sys.stderr, flush=True)
    else:
        _default_show(message, category, filename, lineno, file, line)


_default_show = warnings.showwarning


def show_warnings() -> None:
    """Show the library's warnings as one line each, ``meteor-build: warning: ...``, on stderr (every time)."""
    warnings.simplefilter("always", MeteorLiteWarning)
    warnings.showwarning = _show


def out_file(value: Optional[Path]) -> Optional[Path]:
    """Typer callback for ``--out FILE``: an existing directory is a one-line error (exit code 1)."""
    if value is not None and Path(value).is_dir():
        raise fail(f"--out {value} is a directory: give the bundle file to write (e.g. {Path(value) / 'xx.sqlite'})")
    return value


def run_app(app: Callable[[], object]) -> int:
    """Run the typer ``app`` so that no traceback reaches the user; return the exit code.

    Same rules as ``meteor-lite`` (:func:`meteor_lite.cli.errors.run_guarded`): broken pipe ends
    quietly (141), a full disk or closed output is one line (exit 1), unexpected exceptions are one
    line unless ``meteor-build --debug ...`` or ``METEOR_LITE_DEBUG=1`` asks for the traceback.
    """
    from meteor_lite.cli.errors import run_guarded

    def run(argv: "list[str]") -> int:
        sys.argv[1:] = argv
        try:
            with _terminate_cleanly():
                app()
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return 0

    return run_guarded(run, sys.argv[1:], "meteor-build")


#: Exit code after SIGTERM (128 + 15, as a shell reports a process ended by it).
EXIT_TERMINATED = 143


def _on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM: say so, and unwind (a bundle being written removes its temporary file on the way)."""
    print("meteor-build: error: terminated (SIGTERM); the bundle being written, if any, was not kept", file=sys.stderr)
    raise SystemExit(EXIT_TERMINATED)


@contextmanager
def _terminate_cleanly() -> Iterator[None]:
    """Within the block, SIGTERM is an orderly exit (main thread only: elsewhere Python cannot set handlers)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
