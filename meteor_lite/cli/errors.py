"""How the command line reports problems: one-line messages on stderr and documented exit codes.

Exit codes of ``meteor-lite``:

====  ==========================================================================
0     success
1     an input, configuration or bundle error (any :class:`MeteorLiteError`,
      e.g. a missing file, an unknown language, a corrupt bundle, resources
      the language's defaults need but no bundle provides), or a bundle that
      fails ``bundle verify``
2     a usage error (unknown option, missing argument, malformed option value)
130   interrupted (Ctrl-C)
141   the reader of standard output went away (``meteor-lite ... | head``):
      nothing more is printed, as for Unix tools killed by SIGPIPE (128 + 13)
====  ==========================================================================

Output that cannot be written (a full disk, ``> /dev/full``; a closed standard
output, ``>&-``) is a one-line error and exit code 1.  No Python traceback
reaches the user: an unexpected exception is one line too (exit code 1), and
``meteor-lite --debug COMMAND ...`` (or ``METEOR_LITE_DEBUG=1``) shows its traceback.

Errors are printed as ``meteor-lite: error: <message>`` and warnings (any
:class:`MeteorLiteWarning` the library issues) as ``meteor-lite: warning: <message>``,
one line each, on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from contextlib import contextmanager
from typing import Any, Callable, Iterator, List, NoReturn, Optional, TextIO, Type, Union

from ..errors import MeteorLiteError, MeteorLiteWarning
from ..printable import one_line

__all__ = [
    "EXIT_OK",
    "EXIT_ERROR",
    "EXIT_USAGE",
    "EXIT_INTERRUPTED",
    "EXIT_BROKEN_PIPE",
    "DEBUG_ENV",
    "debug_requested",
    "run_guarded",
    "HelpFormatter",
    "Parser",
    "fail",
    "broken_pipe_exit",
    "reported_errors",
    "warnings_as_lines",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

#: Environment variable that turns on tracebacks for unexpected errors (like ``--debug``).
DEBUG_ENV = "METEOR_LITE_DEBUG"

#: errno values of an output that cannot take more (ENOSPC, EDQUOT, EFBIG, EIO, EBADF).
_OUTPUT_ERRNOS = {28, 122, 27, 5, 9}


def fail(msg: str, code: int = EXIT_ERROR) -> SystemExit:
    """Print ``meteor-lite: error: <msg>`` on stderr; return the :class:`SystemExit` to raise."""
    print(f"meteor-lite: error: {one_line(msg)}", file=sys.stderr)
    return SystemExit(code)


def _columns() -> int:
    """The terminal's width for help texts ($COLUMNS, else the terminal's, else 80)."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, OSError, ValueError):
        return 80


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter (descriptions kept as written) with the width found without :mod:`shutil`.

    argparse imports shutil (and with it zlib, bz2 and lzma) only to read the terminal's width;
    this formatter reads it with :func:`os.get_terminal_size`, at every parse, for a faster start.
    """

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: Optional[int] = None):
        super().__init__(prog, indent_increment, max_help_position, width if width is not None else max(_columns() - 2, 40))


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (``meteor-lite: error: ...``) and exit code 2."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise fail(f"{message} (see '{self.prog} --help')", EXIT_USAGE)


@contextmanager
def reported_errors() -> Iterator[None]:
    """Turn library errors into a one-line message and exit code 1 (130 on Ctrl-C).

    ``ValueError`` is included: the library raises it for inconsistent arguments
    (e.g. reference streams of different lengths).
    """
    try:
        yield
    except (MeteorLiteError, ValueError) as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        raise fail("interrupted", EXIT_INTERRUPTED) from None


@contextmanager
def warnings_as_lines(prog: str = "meteor-lite") -> Iterator[None]:
    """Within the block, show every :class:`MeteorLiteWarning` as ``<prog>: warning: <text>``.

    Each warning is shown every time it is issued; other warnings keep Python's
    usual handling.  The previous warning settings are restored afterwards.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("always", MeteorLiteWarning)
        previous = warnings.showwarning

        def show(
            message: Union[Warning, str],
            category: Type[Warning],
            filename: str,
            lineno: int,
            file: Optional[TextIO] = None,
            line: Optional[str] = None,
        ) -> None:
            if issubclass(category, MeteorLiteWarning):
                print(f"{prog}: warning: {one_line(message)}", file=file if file is not None else sys.stderr)
            else:
                previous(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield


def debug_requested(argv: List[str]) -> "tuple[bool, List[str]]":
    """Whether tracebacks are wanted (a leading ``--debug``, or ``METEOR_LITE_DEBUG`` set and not 0), and the rest of argv."""
    debug = os.environ.get(DEBUG_ENV, "") not in ("", "0")
    if argv and argv[0] == "--debug":
        return True, argv[1:]
    return debug, argv


def broken_pipe_exit() -> int:
    """After a :class:`BrokenPipeError` on standard output: silence it (the interpreter's last flush) and return 141."""
    _quiet_stdout()
    return EXIT_BROKEN_PIPE


def _quiet_stdout() -> None:
    """Point standard output at /dev/null so that the interpreter's final flush cannot fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):
        pass


#: SQLite's result code of a full disk (``sqlite3.SQLITE_FULL``, from Python 3.11): a write failed, no bundle is damaged.
_SQLITE_FULL = 13


def _message(exc: BaseException, prog: str) -> "tuple[str, int]":
    """The one-line message and exit code for an exception that escaped a command."""
    if isinstance(exc, OSError) and exc.errno in _OUTPUT_ERRNOS:
        return f"cannot write the output: {exc.strerror or exc}", EXIT_ERROR
    if isinstance(exc, MemoryError):
        return "out of memory (a very long segment? score it separately, or split the input)", EXIT_ERROR
    if type(exc).__module__ == "sqlite3":
        if getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL or "disk is full" in str(exc):
            return (f"SQLite: {exc} (no space left on the device of a file being written, not a damaged bundle: "
                    "free some space, or set TMPDIR to a roomier directory, and run again)"), EXIT_ERROR
        return f"SQLite: {exc} (the bundle may be damaged: check it with 'meteor-lite bundle verify')", EXIT_ERROR
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}", EXIT_ERROR
    return (
        f"unexpected {type(exc).__name__}: {exc} (a bug in {prog}; '{prog} --debug ...' or {DEBUG_ENV}=1 "
        "shows the traceback)",
        EXIT_ERROR,
    )


def stderr_or_devnull() -> None:
    """With standard error closed (``2>&-``), send warnings and errors to /dev/null, never to stdout.

    Python leaves ``sys.stderr`` None then, and ``print(..., file=None)`` writes to standard
    output: warnings and error lines would be mixed into the scores.
    """
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process


def run_guarded(run: Callable[[List[str]], int], argv: List[str], prog: str = "meteor-lite") -> int:
    """Run a command line so that no traceback reaches the user; return the exit code.

    A closed standard output is refused before anything runs (a file opened later
    could otherwise take its descriptor).  A broken pipe ends quietly with
    :data:`EXIT_BROKEN_PIPE`; output errors, SQLite errors, memory exhaustion and
    unexpected exceptions are one line on stderr (exit code 1), or the traceback
    when ``--debug`` / ``METEOR_LITE_DEBUG=1`` asks for it.
    """
    debug, argv = debug_requested(argv)
    stderr_or_devnull()
    if sys.stdout is None:
        print(f"{prog}: error: standard output is closed: nowhere to write the result", file=sys.stderr)
        return EXIT_ERROR
    from ..resources.integrity import set_notice

    # a first-use bundle verification that takes more than a second says so (one line on stderr)
    set_notice(lambda message: print(f"{prog}: {message}", file=sys.stderr, flush=True))
    try:
        code = run(argv)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        print(f"{prog}: error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - the last line of defence against tracebacks
        if debug:
            raise
        if isinstance(exc, OSError) and exc.errno in _OUTPUT_ERRNOS:
            _quiet_stdout()
        msg, code = _message(exc, prog)
        print(f"{prog}: error: {one_line(msg)}", file=sys.stderr)
        return code
