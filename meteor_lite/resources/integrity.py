"""Bundles that prove their integrity cheaply: verified once, then remembered by file identity.

``meteor-lite bundle verify`` recomputes a bundle's content checksum and runs SQLite's
integrity check (about 5 s for the English bundle on a loaded 2-core machine); nobody runs
that before every score.
Here the same verification runs the first time a bundle *file* is used, and its success is
remembered in a small cache file under the user cache directory
(``$XDG_CACHE_HOME/meteor-lite/verified-bundles.tsv``, default ``~/.cache/...``), keyed by
the file's identity: real path, size, modification time, inode and change time (nanoseconds),
with the content checksum it was verified against.  Any write to the file changes its
identity, so a changed or corrupted bundle is verified again, and refused, before a score is
printed; an unchanged bundle costs one ``stat`` and reading the cache file.

What the cache trusts: a line is believed only with its MAC, an HMAC-SHA-256 of the line under a
secret key of this user kept *outside* the cache directory (:func:`key_file`:
``$XDG_CONFIG_HOME/meteor-lite/cache-key``, created 0600 with 32 random bytes; a key file that others
can read or write is not used).  Someone who can write the cache directory but not read that key cannot
forge an entry for a file they changed: it is verified, and refused.  Someone who can read the key (the
user, or root) can; and the identity check trusts the file system's times and inode numbers (a tool that
rewrites a file and restores its size, mtime and ctime needs root, for ctime).  Without a key (it can be
neither read nor created) nothing is remembered and every run verifies its bundles.

A builder or installer that has just computed the checksum of the file it wrote can
:func:`remember` it, so that the first score pays nothing either.

When the cache directory cannot be written (a read-only home, a ``METEOR_LITE_CACHE_DIR`` that is
not a directory), verifications are remembered in a private per-user directory of the system's
temporary directory instead (``/tmp/meteor-lite-<uid>``: created mode 0700, used only while it is
owned by this user and writable by no one else), with one warning naming both directories and the
variable that sets the cache directory; when neither can be written, a warning says that every run
verifies its bundles again.

Used by :func:`meteor_lite.configure.open_bundle` (every bundle opened for scoring;
``METEOR_LITE_VERIFY_BUNDLES=0`` skips it) and seeded by the bundle writer of ``meteor-build``.
"""

from __future__ import annotations

import os
import stat
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple

from ..atomicfile import atomic_path
from ..errors import BundleError, MeteorLiteWarning
from ..printable import one_line

if TYPE_CHECKING:  # pragma: no cover
    import sqlite3

__all__ = ["INTEGER_COLUMNS", "column_type_problems", "ENV_CACHE_DIR", "ENV_KEY_FILE", "key_file", "SLOW_NOTICE_SECONDS", "cache_file", "fallback_cache_file", "file_identity", "verification_on", "ENV_VERIFY", "is_verified",
           "remember", "ensure_verified", "set_notice", "sign", "announce"]

#: Environment variable naming the cache directory (default ``$XDG_CACHE_HOME/meteor-lite``).
ENV_CACHE_DIR = "METEOR_LITE_CACHE_DIR"

#: Entries kept in the cache file (entries of files that no longer exist go first, then those of the smallest
#: files: a test suite writing hundreds of tiny bundles never evicts the 113 MB English bundle).
MAX_ENTRIES = 256

Identity = Tuple[str, int, int, int, int]

#: A verification still running after this many seconds is announced (see :func:`set_notice`).
SLOW_NOTICE_SECONDS = 1.0

_notice: Optional[Callable[[str], None]] = None


#: Columns the scorer reads as whole numbers.  SQLite keeps a text value given to an INTEGER column as text
#: (type affinity), so a bundle whose synset ids are words hashes, verifies and opens like any other: only
#: :func:`column_type_problems` tells it apart.
INTEGER_COLUMNS = (("synsets", "synset"), ("paraphrases", "prefix"), ("nonbreaking_prefixes", "numeric_only"))
#: Columns the scorer reads as text (``None`` allowed only where listed in :data:`NULLABLE_COLUMNS`).  A bundle
#: written with a schema of its own (columns without a type, without NOT NULL) can hold a number or NULL there.
TEXT_COLUMNS = (("function_words", "word"), ("stems", "word"), ("stems", "stem"), ("synsets", "word"),
                ("synonym_exceptions", "form"), ("synonym_exceptions", "base"), ("paraphrases", "phrase"),
                ("paraphrases", "paraphrases"), ("nonbreaking_prefixes", "prefix"))
NULLABLE_COLUMNS = (("paraphrases", "paraphrases"),)


def _allowed(table: str, column: str) -> Tuple[str, ...]:
    if (table, column) in INTEGER_COLUMNS:
        return ("integer",)
    return ("text", "null") if (table, column) in NULLABLE_COLUMNS else ("text",)


def column_type_problems(conn: "sqlite3.Connection") -> List[str]:
    """One problem per table holding, in a column of :data:`INTEGER_COLUMNS` or :data:`TEXT_COLUMNS`, a value of
    another type than the scorer reads there (the first such row shown): what ``bundle verify`` and the first use
    refuse is exactly what the scorer could not read (one scan per table)."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    problems = []
    by_table: "dict[str, List[str]]" = {}
    for table, column in (*TEXT_COLUMNS, *INTEGER_COLUMNS):
        if table in tables:
            by_table.setdefault(table, []).append(column)
    for table, columns in by_table.items():
        picks = ", ".join(f"{c}, typeof({c})" for c in columns)
        where = " OR ".join(
            "typeof({}) NOT IN ({})".format(c, ", ".join(f"'{t}'" for t in _allowed(table, c))) for c in columns)
        row = conn.execute(f"SELECT {picks} FROM {table} WHERE {where} LIMIT 1").fetchone()
        if row is None:
            continue
        for i, column in enumerate(columns):
            value, kind = row[2 * i], row[2 * i + 1]
            wanted = _allowed(table, column)
            if kind in wanted:
                continue
            shown = one_line(repr(value))
            what = "an integer" if wanted == ("integer",) else "text"
            article = "an" if kind[:1] in "aeiou" else "a"
            problems.append(f"table {table!r} holds a {column} that is not {what} ({article} {kind} value: "
                            f"{shown[:40]}{'...' if len(shown) > 40 else ''})")
            break
    return problems


def set_notice(notice: Optional[Callable[[str], None]]) -> None:
    """Who is told when a first-use verification takes more than :data:`SLOW_NOTICE_SECONDS`.

    The command line prints the line on stderr; by default it goes to the ``logging``
    logger of this module at level INFO.
    """
    global _notice
    _notice = notice


def announce(message: str) -> None:
    """Tell the user of a slow or space-taking step now under way: the notice of :func:`set_notice` (one line on
    stderr on the command line), else the ``logging`` logger of this module at level INFO."""
    _announce(message)


def _announce(message: str) -> None:
    if _notice is not None:
        _notice(message)
    else:
        import logging

        logging.getLogger(__name__).info(message)


def cache_file() -> Path:
    """The cache of verified bundle identities."""
    base = os.environ.get(ENV_CACHE_DIR)
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = str(Path(xdg) / "meteor-lite")
    return Path(base) / "verified-bundles.tsv"


def fallback_cache_file() -> Optional[Path]:
    """The cache used when :func:`cache_file` cannot be written: in a directory of the system's temporary
    directory private to this user (``meteor-lite-<uid>``, mode 0700); None when it is not (yet) such a
    directory (absent, or owned by someone else, or writable by others: its entries would not be ours)."""
    d = _fallback_dir()
    return d / "verified-bundles.tsv" if _is_private_dir(d) else None


def _fallback_dir() -> Path:
    import tempfile  # only off the usual path: it imports shutil, which scoring never needs

    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"meteor-lite-{uid}"


def _is_private_dir(d: Path) -> bool:
    """``d`` is a directory (not a link) owned by this user that no one else can write."""
    try:
        st = os.lstat(d)
    except OSError:
        return False
    owner_ok = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return stat.S_ISDIR(st.st_mode) and owner_ok and not st.st_mode & 0o022


def file_identity(path: "os.PathLike[str] | str", fd: Optional[int] = None) -> Identity:
    """(real path, size, mtime_ns, inode, ctime_ns) of ``path``; with ``fd``, of the file open as ``fd`` (the one
    read, even if another was renamed over ``path`` since)."""
    real = os.path.realpath(path)
    st = os.stat(real) if fd is None else os.fstat(fd)
    return (real, st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


#: ``METEOR_LITE_VERIFY_BUNDLES=0`` turns the checks of this module off.
ENV_VERIFY = "METEOR_LITE_VERIFY_BUNDLES"


def verification_on() -> bool:
    """Whether files are checked before they are trusted (unless ``METEOR_LITE_VERIFY_BUNDLES=0``)."""
    return os.environ.get(ENV_VERIFY, "1") != "0"


#: Environment variable naming the file of the key that signs the cache's lines (default
#: ``$XDG_CONFIG_HOME/meteor-lite/cache-key``; outside the cache directory on purpose).
ENV_KEY_FILE = "METEOR_LITE_CACHE_KEY"


def key_file() -> Path:
    """The file holding the key that signs the lines of the cache of verified bundles."""
    named = os.environ.get(ENV_KEY_FILE)
    if named:
        return Path(named)
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(xdg) / "meteor-lite" / "cache-key"


_keys: "dict[str, Optional[bytes]]" = {}


def _key() -> Optional[bytes]:
    """This user's secret key (32 random bytes, created mode 0600 on first use in a directory made 0700), or
    None when it can be neither read nor created: nothing is then remembered, every run verifies."""
    path = key_file()
    if str(path) in _keys:
        return _keys[str(path)]
    key: Optional[bytes] = None
    try:
        key = _read_key(path)
        if key is None:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:  # another process made it meanwhile
                key = _read_key(path)
            else:
                with os.fdopen(fd, "w") as out:
                    out.write(os.urandom(32).hex() + "\n")
                key = _read_key(path)
    except OSError as exc:
        key = None
        warnings.warn(
            f"{one_line(path)}: the key of the cache of verified bundles cannot be used "
            f"({one_line(exc.strerror or exc)}), so nothing is remembered: every run verifies its bundles again "
            f"and no mapped table file is trusted; remove the file (a new private one is made) or set {ENV_KEY_FILE}",
            MeteorLiteWarning, stacklevel=3,
        )
    _keys[str(path)] = key
    return key


def _read_key(path: Path) -> Optional[bytes]:
    """The key in ``path`` if it is a regular file of this user that no one else can read or write."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o077 or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
        raise OSError("not a private file of this user: readable or writable by others, not a regular file, or "
                      "another user's")
    try:
        text = path.read_bytes().decode("ascii").strip()
    except UnicodeDecodeError:
        raise OSError("it holds bytes that are not ASCII") from None
    if len(text) < 32:
        raise OSError("it holds no key (fewer than 32 characters)")
    return text.encode("ascii")


def sign(purpose: str, text: str) -> Optional[str]:
    """An HMAC-SHA-256 of ``text`` under this user's key (:func:`key_file`), for ``purpose`` (a word naming what is
    signed, so that a MAC made for one kind of file is never valid for another); None without a key.

    What a file carries this MAC for was written by a scorer of this user: a file of the same form written by
    anyone else (who can write the directory but not read the key) does not have it."""
    import hashlib
    import hmac

    key = _key()
    if key is None:
        return None
    return hmac.new(key, f"{purpose}\n{text}".encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()


def _line(identity: Identity, checksum: str) -> str:
    """The cache line of a verified file: its identity, the checksum and a MAC of both under :func:`_key`
    ("" when there is no key: such a line is never written nor matched)."""
    import hashlib
    import hmac

    key = _key()
    if key is None:
        return ""
    body = "\t".join([*(str(x) for x in identity), checksum])
    return body + "\t" + hmac.new(key, body.encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()[:32]


def _size(line: str) -> int:
    """The file size recorded in a cache line (0 when unreadable)."""
    fields = line.split("\t")
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0


def _read(cache: Path) -> List[str]:
    try:
        return cache.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def is_verified(
    path: "os.PathLike[str] | str", checksum: str, cache: Optional[Path] = None, identity: Optional[Identity] = None
) -> bool:
    """Whether this very file (same identity: ``identity``, else the file at ``path`` now) was verified against ``checksum``."""
    if not checksum:
        return False
    try:
        wanted = _line(identity or file_identity(path), checksum)
    except OSError:
        return False
    if not wanted:
        return False
    if cache is not None:
        return wanted in _read(cache)
    if wanted in _read(cache_file()):
        return True
    fallback = fallback_cache_file()  # asked only when the usual cache does not know the file
    return fallback is not None and wanted in _read(fallback)


def remember(
    path: "os.PathLike[str] | str", checksum: str, cache: Optional[Path] = None, identity: Optional[Identity] = None,
    *, warn: bool = True,
) -> None:
    """Record that ``path`` (as it is now, or the file of ``identity``) was verified against ``checksum``.

    Best effort: never raises OSError.  Give the ``identity`` of the file that was actually read
    (:attr:`meteor_lite.resources.bundle.Bundle.identity`), so that a file renamed over the bundle
    meanwhile is never recorded as verified.  Without ``cache``: in :func:`cache_file`, else (it
    cannot be written) in the per-user fallback, with a :class:`MeteorLiteWarning` either way (unless not
    ``warn``: a caller whose bundle's own verification has warned in this run already).
    """
    try:
        entry = _line(identity or file_identity(path), checksum)
    except OSError:
        return
    if not entry:
        return
    if cache is not None:
        try:
            _add_entry(cache, entry)
        except OSError:
            pass
        return
    primary = cache_file()
    try:
        _add_entry(primary, entry)
        return
    except OSError as exc:
        problem = f"{primary.parent}: {exc.strerror or exc}"
    fix = f"set {ENV_CACHE_DIR} to a writable directory (or make {primary.parent} writable)"
    try:
        d = _fallback_dir()
        d.mkdir(mode=0o700, exist_ok=True)
        fallback = fallback_cache_file()
        if fallback is None:
            raise OSError(f"{d} is not a private directory of this user")
        _add_entry(fallback, entry)
    except OSError as exc:
        if not warn:
            return
        warnings.warn(
            f"cannot write the cache of verified bundles ({problem}; fallback: {exc.strerror or exc}), so every run "
            f"verifies its bundles again (seconds for a large one): {fix}",
            MeteorLiteWarning, stacklevel=2,
        )
        return
    if not warn:
        return
    warnings.warn(
        f"cannot write the cache of verified bundles ({problem}); remembered in {fallback.parent} instead: {fix}",
        MeteorLiteWarning, stacklevel=2,
    )


def _add_entry(cache: Path, entry: str) -> None:
    """Add ``entry`` to the cache file ``cache`` (replacing the same file's line); OSError when it cannot be written."""
    real = entry.split("\t", 1)[0]
    kept = [
        line for line in _read(cache)
        if line.split("\t", 1)[0] != real and os.path.exists(line.split("\t", 1)[0])
    ]
    if len(kept) >= MAX_ENTRIES:  # full: the smallest files go first (the cheapest to verify again)
        by_size = sorted(range(len(kept)), key=lambda i: (_size(kept[i]), i))
        dropped = set(by_size[: len(kept) - MAX_ENTRIES + 1])
        kept = [line for i, line in enumerate(kept) if i not in dropped]
    lines = kept + [entry]
    with atomic_path(cache) as tmp:
        tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")


def ensure_verified(
    path: "os.PathLike[str] | str",
    checksum: str,
    verify: Callable[[], List[str]],
    cache: Optional[Path] = None,
    identity: Optional[Identity] = None,
) -> None:
    """Verify the bundle at ``path`` unless this very file was verified before; raise :class:`BundleError` if unsound.

    ``verify`` is the bundle's full check (:meth:`meteor_lite.resources.bundle.Bundle.verify`:
    SQLite's integrity check and the content checksum), returning a list of problems;
    ``identity`` the identity of the file it reads (default: the file at ``path`` now).
    """
    if is_verified(path, checksum, cache, identity):
        return
    import threading

    remembered = "done once, then remembered" if _key() is not None else "done on every run: no usable cache key"
    message = (f"verifying {path} (first use of this file: content checksum and SQLite integrity check; "
               f"{remembered})")
    timer = threading.Timer(SLOW_NOTICE_SECONDS, _announce, [message])
    timer.daemon = True
    timer.start()
    try:
        problems = verify()
    finally:
        timer.cancel()
    if problems:
        raise BundleError(
            f"{path}: the bundle is damaged or was changed after it was built ({problems[0]}); "
            "reinstall or rebuild it"
        )
    remember(path, checksum, cache, identity)
