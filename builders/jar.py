"""The one place that finds and runs the official Meteor 1.5 jar.

The jar ships inside the ``pycocoevalcap`` package (the ``build`` extra):
``pycocoevalcap/meteor/meteor-1.5.jar`` with ``data/paraphrase-en.gz`` beside
it.  Nothing is downloaded.  Everything else in the project that reads a file
of the jar or runs one of its programs goes through this module.

Runs take and give text: ``stdin`` is encoded as UTF-8, standard output and
standard error are decoded from UTF-8 *without* newline translation (a
``\\r`` printed by Java stays a ``\\r``).  Every JVM gets :data:`JAVA_OPTIONS`
so that it reads and prints UTF-8 whatever the locale.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import List, Optional, Sequence, Union

from .errors import OfficialReleaseError

#: File name of the jar inside pycocoevalcap's ``meteor`` directory.
JAR_NAME = "meteor-1.5.jar"
#: Environment variable naming a ``java`` executable to use instead of the one on the PATH.
ENV_JAVA = "METEOR_JAVA"
#: JVM options of every run: UTF-8 for files, standard output (Java 17 and 18+ spellings).
JAVA_OPTIONS = ("-Dfile.encoding=UTF-8", "-Dsun.stdout.encoding=UTF-8", "-Dstdout.encoding=UTF-8")

PathLike = Union["os.PathLike[str]", str]


class JarError(OfficialReleaseError):
    """The official jar cannot be found, read or run."""


class JarNotFoundError(JarError):
    """pycocoevalcap (the ``build`` extra) is not installed, or its jar is missing."""


class JavaNotFoundError(JarError):
    """No ``java`` executable: the jar's programs cannot run."""


class JarRunError(JarError):
    """A program of the jar exited with an error (raised only when asked to check)."""


def meteor_dir() -> Path:
    """Directory of pycocoevalcap's Meteor copy (holds the jar and ``data/``).

    Raises :class:`JarNotFoundError` (naming the extra to install) when the
    package or its jar is missing.
    """
    spec = importlib.util.find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        raise JarNotFoundError(
            "the official Meteor 1.5 release is read from the 'pycocoevalcap' package: "
            "install the build extra (pip install 'meteor-lite[build]')"
        )
    d = Path(list(spec.submodule_search_locations)[0]).resolve() / "meteor"
    if not (d / JAR_NAME).is_file():
        raise JarNotFoundError(f"{d}: {JAR_NAME} not found in pycocoevalcap")
    return d


def find_jar() -> Path:
    """Path of pycocoevalcap's ``meteor-1.5.jar`` (:class:`JarNotFoundError` if absent)."""
    return meteor_dir() / JAR_NAME


def paraphrase_file(lang: str = "en") -> Path:
    """Path of the official paraphrase table (pycocoevalcap ships only ``data/paraphrase-en.gz``)."""
    p = meteor_dir() / "data" / f"paraphrase-{lang}.gz"
    if not p.is_file():
        raise JarNotFoundError(f"{p}: no official paraphrase table for {lang!r} in pycocoevalcap")
    return p


def find_java() -> str:
    """The ``java`` executable: ``$METEOR_JAVA`` or ``java`` on the PATH (:class:`JavaNotFoundError` if neither)."""
    java = os.environ.get(ENV_JAVA) or shutil.which("java")
    if not java:
        raise JavaNotFoundError(
            f"java not found on PATH (set {ENV_JAVA} to a Java 8+ executable): the official "
            "Meteor 1.5 jar is a Java program; on Debian: apt-get install openjdk-17-jre-headless"
        )
    return java


def _jar(jar: Optional[PathLike]) -> Path:
    return Path(jar) if jar is not None else find_jar()


def jar_members(prefix: str = "", jar: Optional[PathLike] = None) -> List[str]:
    """Names of the jar's files (not directories) under ``prefix``, in the jar's order."""
    path = _jar(jar)
    try:
        with zipfile.ZipFile(path) as z:
            return [n for n in z.namelist() if n.startswith(prefix) and not n.endswith("/")]
    except (zipfile.BadZipFile, OSError) as exc:
        raise JarError(f"{path}: cannot read the jar ({exc})") from None


def read_jar_member(name: str, jar: Optional[PathLike] = None) -> bytes:
    """Bytes of the file ``name`` inside the jar (default: :func:`find_jar`)."""
    path = _jar(jar)
    try:
        with zipfile.ZipFile(path) as z:
            try:
                return z.read(name)
            except KeyError:
                raise JarError(f"{path}: no member {name!r}") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise JarError(f"{path}: cannot read the jar ({exc})") from None


def read_jar_text(name: str, jar: Optional[PathLike] = None) -> str:
    """Text (UTF-8) of the file ``name`` inside the jar, e.g. ``function/english.words``."""
    path = _jar(jar)
    data = read_jar_member(name, jar=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JarError(f"{path}!{name}: not valid UTF-8 ({exc})") from None


def _java_prefix(heap: Optional[str]) -> List[str]:
    cmd = [find_java()]
    if heap:
        cmd.append(f"-Xmx{heap}")
    cmd.extend(JAVA_OPTIONS)
    return cmd


def jar_command(args: Sequence[PathLike], *, heap: Optional[str] = "2G", jar: Optional[PathLike] = None) -> List[str]:
    """The command line ``java -Xmx<heap> <JAVA_OPTIONS> -jar meteor-1.5.jar ARGS`` (Meteor's scorer)."""
    return [*_java_prefix(heap), "-jar", str(_jar(jar)), *(str(a) for a in args)]


def jar_class_command(
    main_class: str,
    args: Sequence[PathLike],
    *,
    heap: Optional[str] = "2G",
    jar: Optional[PathLike] = None,
    classpath: Sequence[PathLike] = (),
) -> List[str]:
    """The command line running ``main_class`` of the jar (``classpath`` entries are appended after the jar)."""
    cp = os.pathsep.join([str(_jar(jar)), *(str(c) for c in classpath)])
    return [*_java_prefix(heap), "-cp", cp, main_class, *(str(a) for a in args)]


def _run(cmd: List[str], stdin: Union[str, bytes, None], cwd: Optional[PathLike], check: bool) -> "subprocess.CompletedProcess[str]":
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    proc = subprocess.run(cmd, input=data, capture_output=True, cwd=None if cwd is None else str(cwd))
    out = proc.stdout.decode("utf-8")
    err = proc.stderr.decode("utf-8", errors="replace")
    if check and proc.returncode != 0:
        raise JarRunError(f"jar exited with {proc.returncode}: {' '.join(cmd)}\n{err[-3000:]}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def run_jar(
    args: Sequence[PathLike],
    *,
    stdin: Union[str, bytes, None] = None,
    heap: Optional[str] = "2G",
    jar: Optional[PathLike] = None,
    cwd: Optional[PathLike] = None,
    check: bool = False,
) -> "subprocess.CompletedProcess[str]":
    """Run Meteor's scorer (``java -jar meteor-1.5.jar ARGS``) and return what it printed.

    ``heap`` is the JVM's ``-Xmx`` (``None``: the JVM default).  With ``check``
    a non-zero exit raises :class:`JarRunError`; otherwise the caller reads
    ``returncode``.  Raises :class:`JavaNotFoundError` / :class:`JarNotFoundError`.
    """
    return _run(jar_command(args, heap=heap, jar=jar), stdin, cwd, check)


def run_jar_class(
    main_class: str,
    args: Sequence[PathLike],
    *,
    stdin: Union[str, bytes, None] = None,
    heap: Optional[str] = "2G",
    jar: Optional[PathLike] = None,
    cwd: Optional[PathLike] = None,
    classpath: Sequence[PathLike] = (),
    check: bool = False,
) -> "subprocess.CompletedProcess[str]":
    """Run another program of the jar, e.g. ``run_jar_class("Stemmer", ["german"], stdin=words)``.

    ``classpath`` adds entries after the jar (for a helper class of one's own).
    Otherwise as :func:`run_jar`.
    """
    return _run(jar_class_command(main_class, args, heap=heap, jar=jar, classpath=classpath), stdin, cwd, check)
