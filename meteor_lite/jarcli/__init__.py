"""``meteor-jar``: Meteor 1.5's command line and ``-stdio`` protocol, in pure Python.

A wrapper that runs ``java -Xmx2G -jar meteor-1.5.jar <args>`` switches by running
``meteor-jar <args>`` instead, or by replacing the program name alone (``meteor-jar -Xmx2G -jar
meteor-1.5.jar <args>``: the Java launcher's options and ``-jar PATH/meteor*.jar`` are read and
ignored, :mod:`meteor_lite.jarcli.javaopts`): same arguments, same output on stdout/stderr, same files
(``-sgml`` ``.scr`` files, ``-writeAlignments``), same exit codes.  Deliberate differences:
errors are one line on stderr (``meteor-jar: ...``) instead of a Java stack trace, and
options meteor-lite cannot honour fail with one line and exit 1.  See the README section
"Drop-in for the jar".
"""

from __future__ import annotations

import gc
import io
import sys
from typing import IO, List, Optional, Sequence

from ..errors import MeteorLiteError
from ..meteor import Meteor
from .firstuse import install_on_first_use
from .javaopts import NotMeteorJarError, strip_launcher
from .options import USAGE, JarOptions, MissingValueError, UnknownOptionError, UsageError, parse_args
from .setup import JarCliError, build_scorer, jar_config, jar_header, shown_params

__all__ = ["main", "run"]

PROG = "meteor-jar"


def _text_stream(stream: IO[str]) -> IO[str]:
    """``stream`` writing UTF-8 with ``\\n`` line ends, whatever the locale."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        return stream
    return io.TextIOWrapper(buffer, encoding="utf-8", newline="\n", write_through=True)


def run(opts: JarOptions, out: IO[str], err: IO[str]) -> int:
    """Run the parsed command line; the exit code (errors raise).

    As the jar does, the header is printed once the configuration is known, before
    resources are read (so resource errors come after it); a ``-t`` naming a tuned set of
    the bundle (none of Meteor's tasks, so no jar has it) is known only once the bundle is
    read, so its header follows the scorer.
    """
    cfg = jar_config(opts)
    install_on_first_use(cfg.lang, err, PROG)
    scorer: Optional[Meteor]
    if opts.stdio:
        try:
            scorer = build_scorer(opts)
        except (JarCliError, MeteorLiteError) as exc:  # the client reads stdout only: the reason goes there too
            from .firstuse import serve_failure, tell_terminal

            reason = f"{PROG}: error: {exc}"
            err.write(reason + "\n")
            err.flush()
            tell_terminal(reason)
            serve_failure(reason, sys.stdin.buffer, sys.stdout.buffer)
            return 1
    else:
        scorer = build_scorer(opts) if cfg.pending_task else None
    if not (opts.stdio or (not opts.sgml and (opts.quiet or opts.ss_out))):
        out.write(jar_header(scorer.config if scorer is not None else cfg, sgml=opts.sgml, params=shown_params(opts)))
        out.flush()
    if scorer is None:
        scorer = build_scorer(opts)
    if opts.stdio:
        from ..cli.errors import warnings_as_lines
        from .stdio import StdioServer

        with warnings_as_lines(PROG):
            fatal = StdioServer(scorer).serve(sys.stdin.buffer, sys.stdout.buffer)
        if fatal is not None:
            err.write(f"{PROG}: fatal: {fatal}\n")
            return 1
        return 0
    if opts.sgml:
        from .sgml import run_sgml

        return run_sgml(opts, scorer, out, err)
    from .plain import run_plain

    return run_plain(opts, scorer, out, err)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Console script ``meteor-jar``: exit 2 with the usage text, 1 on an error, else 0."""
    args: List[str] = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:  # not a jar option (the jar would take it for a file): say what this is
        from ..accel import description
        from ..version import __version__

        print(f"{PROG} (meteor-lite {__version__}: Meteor 1.5's command line; {description()})")
        return 0
    out, err = _text_stream(sys.stdout), _text_stream(sys.stderr)
    try:
        try:
            opts = parse_args(strip_launcher(args))
        except NotMeteorJarError as exc:
            err.write(f"{PROG}: error: {exc}\n")
            return 1
        except UsageError:
            err.write(USAGE)
            return 2
        except UnknownOptionError as exc:
            err.write(f"{exc}\n")
            return 1
        except MissingValueError as exc:
            err.write(f"{PROG}: {exc}\n")
            return 1
        from ..cli.errors import warnings_as_lines

        with warnings_as_lines(PROG):  # e.g. the verification cache cannot be written: one line
            return run(opts, out, err)
    except (JarCliError, MeteorLiteError) as exc:
        out.flush()
        err.write(f"{PROG}: error: {exc}\n")
        return 1
    except BrokenPipeError:  # the reader went away (meteor-jar ... | head): quietly, as SIGPIPE would
        from ..cli.errors import broken_pipe_exit

        _detach(out, err)
        return broken_pipe_exit()
    except KeyboardInterrupt:
        return 130
    finally:
        _detach(out, err)


def _detach(out: IO[str], err: IO[str]) -> None:
    """Flush the UTF-8 wrappers and detach them, leaving the process's own streams open (once)."""
    for stream, original in ((out, sys.stdout), (err, sys.stderr)):
        if stream is original or not isinstance(stream, io.TextIOWrapper):
            continue
        try:
            stream.detach()  # flushes first
        except ValueError:  # already detached
            pass
        except BrokenPipeError:  # the reader went away: what is left goes nowhere (see broken_pipe_exit)
            pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def console() -> None:
    """The ``meteor-jar`` console script: :func:`main` under the CLIs' guard, so that output errors
    (``> /dev/full``, a closed stdout), a damaged bundle or an unexpected error are one line on
    stderr, never a traceback (``METEOR_LITE_DEBUG=1`` shows it)."""
    from ..cli.errors import run_guarded

    if "-stdio" not in sys.argv[1:]:
        # One run, then exit (a -stdio server runs on, and keeps its collector).
        gc.disable()
    _exit_on_sigterm()
    sys.exit(run_guarded(main, sys.argv[1:], PROG))


def _exit_on_sigterm() -> None:
    """SIGTERM ends the process with exit code 143 *through* its exit handlers, which remove the scratch
    bundle of ``-s/-d/-a/-new`` (by default SIGTERM would skip them; SIGKILL leaves it to the next run)."""
    import signal

    def terminated(signum: int, frame: object) -> None:
        raise SystemExit(128 + signal.SIGTERM)

    signal.signal(signal.SIGTERM, terminated)

