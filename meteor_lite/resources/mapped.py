"""A bundle's look-up tables as one memory-mapped hash file beside it: look-ups without SQLite, nothing loaded.

By default the scorer looks new words and phrases up in the bundle's SQLite indexes (7-14 µs a key in the small
queries of one sentence pair); ``preload=True`` reads the tables into dictionaries instead (1.5-2 s and about
250 MB for English).  This module gives both speeds' better half: the stem map, the synonym tables and the
paraphrase table written once into a file of open-addressing hash tables (``<bundle>.tables``, beside the
bundle), which a scorer maps into memory in microseconds and reads with a hash and a comparison per key.
The operating system keeps its pages in its file cache, shared by every process that scores with the bundle.

The file is derived from the bundle and bound to it: its header records the bundle file's size, modification
time, inode and content checksum, and a file whose header does not match the bundle it sits beside, or whose
length is not the one recorded, is never read (a new one is written in its place).  All of that can be read
by anyone, so whoever can write the bundle's directory could write a consistent file; the header therefore also
carries a MAC of the file's checksum under the user's cache key (:func:`integrity.sign
<meteor_lite.resources.integrity.sign>`), and a file without this user's MAC is not read but written again
(without a usable key no file is written or read).  It is written atomically (a temporary file renamed over
it), so two processes may build it at once; SIGTERM during the write removes the temporary file, and the
temporary files of writers killed outright are removed by the next writer.

The first scorer of a bundle without a matching file builds it (English: a few seconds, once) when the
bundle's directory can be written; otherwise, or with ``METEOR_LITE_MAPPED=0`` in the environment, the scorer
queries the bundle as before.  The scores are the same either way (``tests/test_mapped_tables.py``).

Layout (little-endian): 8 bytes of magic, a 4-byte length and a JSON header, padded to 8 bytes; then per
table an array of 8-byte slots (a power of two of them, at most half full; a slot is the key's CRC-32 in its
high half and the offset of its record in the low half, 0 when empty, probed linearly from ``crc & (n-1)``)
and the records.  A record is the key (2-byte length, UTF-8 bytes) and the value: a stem (2-byte length,
bytes); synset ids (2-byte count, 8-byte signed integers); base forms (2-byte count, each a 2-byte length and
bytes); a paraphrase-table phrase's flags (1 byte: 1 begins a longer phrase, 2 has an entry) and, when it has
an entry, the entry's offset and length (4 bytes each).  The entries (92 MB of English's 123) come before the
paraphrase table's slots and are read with ``pread``, not through the mapping: a scorer's memory then holds
only the slots and keys it touches (at most about 30 MB for English), and the entries stay in the system's
file cache.  :class:`MappedTables` reads it in Python (the reference) or with the
compiled kernels (``_accel.mapped_find``, ``_accel.mapped_walk``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import mmap
import os
import struct
import weakref
import zlib
from array import array
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from .. import accel
from ..atomicfile import atomic_path
from ..printable import one_line
from . import integrity
from .bundle import Bundle

__all__ = ["MAPPED_SUFFIX", "MAPPED_ENV", "MappedTables", "mapped_path", "open_mapped_tables", "write_mapped_tables"]

log = logging.getLogger(__name__)

#: The file beside a bundle ``x.sqlite`` is ``x.sqlite.tables``.
MAPPED_SUFFIX = ".tables"
#: ``METEOR_LITE_MAPPED=0`` (or ``false``, ``no``) in the environment: scorers query the bundle, as before.
MAPPED_ENV = "METEOR_LITE_MAPPED"
MAGIC = b"MLTABLES"
FORMAT = 3
#: The tables of the file, in the order of the kernels' codes (``_accel.mapped_find``'s ``kind``).
TABLES = ("stems", "synsets", "synonym_exceptions", "paraphrases")
_U16, _U32, _I64 = struct.Struct("<H"), struct.Struct("<I"), struct.Struct("<q")
_LIMIT_16 = 0xFFFF
_LIMIT_OFFSET = 0xFFFFFFFF
_LITTLE_ENDIAN = struct.pack("=H", 1) == struct.pack("<H", 1)
#: Decoded paraphrase entries a :class:`MappedTables` keeps (English's average entry is about 210 characters).
ENTRY_CACHE = 50_000
#: The first write of the file beside a bundle of at least this many bytes is announced (one line on stderr on
#: the command line: the file is about as large as the bundle); a smaller one is written silently.
ANNOUNCE_SIZE = 1_000_000
#: Flags of a paraphrase-table record.
BEGINS_LONGER, HAS_ENTRY = 1, 2


class TableFileError(Exception):
    """A table the file format cannot hold (a key over 65,535 bytes, a file over 4 GiB): the bundle is queried."""


def mapped_path(bundle_path: "os.PathLike[str] | str") -> Path:
    """Where the mapped tables of the bundle at ``bundle_path`` are kept."""
    p = Path(bundle_path)
    return p.with_name(p.name + MAPPED_SUFFIX)


def _bundle_stamp(bundle: Bundle) -> Dict[str, Any]:
    """What binds a table file to the bundle file it was built from (taken when the bundle was opened)."""
    ident = bundle.identity
    if ident is None:
        return {}
    return {"size": ident[1], "mtime_ns": ident[2], "ino": ident[3], "checksum": bundle.checksum}


# -- writing ------------------------------------------------------------------------------------------------------
class _Output:
    """The file being written and the position of its end."""

    def __init__(self, out: Any, pos: int):
        self.out = out
        self.pos = pos
        #: The SHA-256 of everything written after the header (:func:`_content_digest`).
        self.digest = hashlib.sha256()

    def write(self, data: bytes) -> int:
        """Append ``data``; returns where it starts."""
        at = self.pos
        self.out.write(data)
        if at:
            self.digest.update(data)
        self.pos += len(data)
        if self.pos > _LIMIT_OFFSET:
            raise TableFileError("the tables need more than 4 GiB")
        return at


def _records(bundle: Bundle, table: str, out: _Output) -> Iterator[Tuple[bytes, bytes]]:
    """(key, value) records of one table, encoded as the layout says, in key order.  The paraphrase table's
    entries are written to ``out`` as they come (before the table's slots), its records point at them."""
    rows = bundle.table_rows(table)
    try:
        yield from _encoded(table, rows, out)
    except (AttributeError, TypeError, struct.error) as exc:  # a value of another type than the schema's
        raise TableFileError(f"table {table!r} holds a value of the wrong type ({exc}); "
                             "check the bundle with 'meteor-lite bundle verify'") from None


def _encoded(table: str, rows: Iterable[Tuple[Any, ...]], out: _Output) -> Iterator[Tuple[bytes, bytes]]:
    if table == "stems":
        for word, stem in rows:
            yield word.encode("utf-8"), _text16(stem.encode("utf-8"))
    elif table == "synsets":
        for word, group in groupby(rows, key=itemgetter(0)):
            ids = [s for _, s in group]
            yield word.encode("utf-8"), _U16.pack(_checked16(len(ids))) + b"".join(_I64.pack(s) for s in ids)
    elif table == "synonym_exceptions":
        for form, group in groupby(rows, key=itemgetter(0)):
            bases = [b.encode("utf-8") for _, b in group]
            yield form.encode("utf-8"), _U16.pack(_checked16(len(bases))) + b"".join(_text16(b) for b in bases)
    else:
        for phrase, prefix, entry in rows:
            flags = (BEGINS_LONGER if prefix else 0) | (HAS_ENTRY if entry is not None else 0)
            value = bytes((flags,))
            if entry is not None:
                e = entry.encode("utf-8")
                value += _U32.pack(out.write(e)) + _U32.pack(len(e))
            yield phrase.encode("utf-8"), value


def _checked16(n: int) -> int:
    if n > _LIMIT_16:
        raise TableFileError(f"{n} items in one record (at most {_LIMIT_16})")
    return n


def _text16(b: bytes) -> bytes:
    return _U16.pack(_checked16(len(b))) + b


def _slot_count(n: int) -> int:
    """A power of two at least twice ``n`` (a table at most half full: short probes)."""
    size = 8
    while size < 2 * n:
        size *= 2
    return size


def _write_table(out: _Output, records: Iterable[Tuple[bytes, bytes]]) -> Tuple[int, int, int]:
    """Write one table's slots and records at the end of ``out``; returns (the slots' offset, slots, rows)."""
    body = bytearray()
    keyed: List[Tuple[int, int]] = []  # (crc, offset relative to the records)
    for key, value in records:
        keyed.append((zlib.crc32(key), len(body)))
        body += _text16(key)
        body += value
    nslots = _slot_count(len(keyed))
    pos = out.pos
    base = pos + 8 * nslots  # out.write refuses a file past 4 GiB, where an offset would not fit its 4 bytes
    slots = array("Q", bytes(8 * nslots))
    if slots.itemsize != 8:  # pragma: no cover - every platform CPython runs on has an 8-byte 'Q'
        raise TableFileError("no 8-byte unsigned array type on this platform")
    mask = nslots - 1
    for crc, rel in keyed:
        i = crc & mask
        while slots[i]:
            i = (i + 1) & mask
        slots[i] = (crc << 32) | (base + rel)
    if not _LITTLE_ENDIAN:  # pragma: no cover - big-endian machines
        slots.byteswap()
    out.write(slots.tobytes())
    out.write(bytes(body))
    return pos, nslots, len(keyed)


def write_mapped_tables(bundle: Bundle, path: "os.PathLike[str] | str") -> str:
    """Write the mapped tables of ``bundle`` to ``path`` atomically (tables it lacks are written empty); returns
    the file's checksum (its header's ``sha256``).

    Raises :class:`TableFileError` when a table does not fit the format, :class:`OSError` when the file
    cannot be written; nothing is left at ``path`` but a whole file."""
    present = [t for t in TABLES if bundle.has(t)]
    # The header's length must be known before the tables' offsets are: reserve room for the largest numbers.
    placeholder = {t: [_LIMIT_OFFSET, _LIMIT_OFFSET, _LIMIT_OFFSET] for t in present}
    stamp = _bundle_stamp(bundle)
    head_room = len(_header(stamp, placeholder, _LIMIT_OFFSET, _LIMIT_OFFSET))
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            out = _Output(f, 0)
            out.write(bytes(head_room))
            directory: Dict[str, List[int]] = {}
            for table in present:
                directory[table] = list(_write_table(out, _records(bundle, table, out)))
            digest = _content_digest(out.digest, stamp, directory, out.pos, head_room)
            head = _header(stamp, directory, out.pos, head_room, digest, _mac(digest) or "")
            f.seek(0)
            f.write(head.ljust(head_room, b" "))
            f.flush()
            os.fsync(f.fileno())
    return digest


def _content_digest(body: Any, stamp: Dict[str, Any], directory: Dict[str, List[int]], length: int, start: int) -> str:
    """The file's checksum: the SHA-256 of everything after the header (``body``, a hashlib object) and of what the
    header says of it (the bundle, the length, where the tables are), so that a change to either is seen."""
    said = json.dumps({"bundle": stamp, "length": length, "start": start, "tables": directory},
                      sort_keys=True).encode("utf-8")
    return hashlib.sha256(body.digest() + said).hexdigest()


def _mac(digest: str) -> Optional[str]:
    """The header's MAC: the checksum ``digest`` (which covers the content, the bundle's stamp, the length and the
    tables' places) signed with this user's key (:func:`integrity.sign <meteor_lite.resources.integrity.sign>`);
    None without a key."""
    return integrity.sign("mapped-tables", digest)


def _header(
    stamp: Dict[str, Any], directory: Dict[str, List[int]], length: int, start: int, sha256: str = "0" * 64,
    mac: str = "0" * 64,
) -> bytes:
    """The magic, the JSON header's length and the header (``start``: where what follows it begins), padded to a
    multiple of 8 bytes."""
    text = json.dumps({"format": FORMAT, "bundle": stamp, "length": length, "start": start, "tables": directory,
                       "sha256": sha256, "mac": mac}, sort_keys=True).encode("utf-8")
    head = MAGIC + _U32.pack(0) + text
    head += b" " * (-len(head) % 8)
    return MAGIC + _U32.pack(len(head) - 12) + head[12:]


# -- reading ------------------------------------------------------------------------------------------------------
def _read_header(data: Any) -> Optional[Dict[str, Any]]:
    """The header of a mapped file, or None when it is not one of this format."""
    if len(data) < 12 or data[:8] != MAGIC:
        return None
    (size,) = _U32.unpack_from(data, 8)
    try:
        head = json.loads(bytes(data[12 : 12 + size]).decode("utf-8"))
    except ValueError:
        return None
    return head if isinstance(head, dict) and head.get("format") == FORMAT else None


def _usable(head: Dict[str, Any], length: int, stamp: Dict[str, Any]) -> bool:
    """Whether a header describes a whole file (of ``length`` bytes) built from the bundle of ``stamp``."""
    tables = head.get("tables")
    if head.get("length") != length or head.get("bundle") != stamp or not isinstance(tables, dict):
        return False
    for where in tables.values():
        if not (isinstance(where, list) and len(where) == 3 and all(isinstance(x, int) and x >= 0 for x in where)):
            return False
        off, nslots, _ = where
        if nslots & (nslots - 1) or off + 8 * nslots > length:
            return False
    return True


class MappedTables:
    """The look-ups of :class:`~meteor_lite.resources.memory.LookupTables` from a mapped table file."""

    def __init__(self, path: Path, fd: int, data: mmap.mmap, directory: Dict[str, List[int]]):
        self.path = path
        #: The file's descriptor: the paraphrase entries are read with ``pread`` (kept out of the process's
        #: memory), the slots and keys through the mapping ``data``.
        self._fd = fd
        self._closer = weakref.finalize(self, os.close, fd)
        self._data = data
        #: (offset of the slots, number of slots) by table; (0, 0) for a table the file lacks.
        self._where = {t: (directory[t][0], directory[t][1]) if t in directory else (0, 0) for t in TABLES}
        self.has_paraphrases = "paraphrases" in directory
        #: Paraphrase entries read lately, by their offset in the file (a sentence's common phrases come back in
        #: most sentences: each entry is read and decoded once); at most :data:`ENTRY_CACHE` of them.
        self._entry_cache: Dict[int, str] = {}
        #: The same for the compiled reader (:meth:`_compiled_entries`), made when first needed.
        self._entry_table: Any = None
        self._slot_views: Dict[str, Any] = {}

    # -- the reference reader (pure Python) --
    def _slots(self, table: str) -> Any:
        """The slots of ``table`` as a sequence of integers (a view of the mapping on a little-endian machine)."""
        view = self._slot_views.get(table)
        if view is None:
            off, nslots = self._where[table]
            raw = memoryview(self._data)[off : off + 8 * nslots]
            if _LITTLE_ENDIAN:
                view = raw.cast("Q")
            else:  # pragma: no cover - big-endian machines: a copy in the machine's order
                view = array("Q", raw.tobytes())
                view.byteswap()
            self._slot_views[table] = view
        return view

    def _find(self, table: str, key: str) -> Optional[int]:
        """The offset of ``key``'s value in ``table``, or None when the table lacks it."""
        nslots = self._where[table][1]
        if not nslots:
            return None
        slots = self._slots(table)
        data = self._data
        size = len(data)
        kb = key.encode("utf-8")
        crc = zlib.crc32(kb)
        mask = nslots - 1
        i = crc & mask
        while True:
            slot = slots[i]
            if not slot:
                return None
            if slot >> 32 == crc:
                rec = slot & _LIMIT_OFFSET
                if rec + 2 > size:
                    raise _damaged()
                end = rec + 2 + (data[rec] | data[rec + 1] << 8)
                if end > size:
                    raise _damaged()
                if data[rec + 2 : end] == kb:
                    return end
            i = (i + 1) & mask

    def _text16_at(self, pos: int) -> Tuple[str, int]:
        (n,) = _U16.unpack_from(self._data, pos)
        return self._data[pos + 2 : pos + 2 + n].decode("utf-8"), pos + 2 + n

    def _value(self, table: str, pos: int) -> Any:
        """The value at ``pos`` of a record of ``table``, as :class:`~meteor_lite.resources.bundle.Bundle` gives it."""
        data = self._data
        if table == "stems":
            return self._text16_at(pos)[0]
        (count,) = _U16.unpack_from(data, pos)
        if table == "synsets":
            return frozenset(struct.unpack_from(f"<{count}q", data, pos + 2))
        bases = []
        pos += 2
        for _ in range(count):
            base, pos = self._text16_at(pos)
            bases.append(base)
        return bases

    def _lookup(self, table: str, keys: Iterable[str]) -> Dict[str, Any]:
        kernels = accel.compiled
        if kernels is not None:
            off, nslots = self._where[table]
            found: Dict[str, Any] = kernels.mapped_find(self._data, self._fd, off, nslots, TABLES.index(table), list(keys))
            return found
        out: Dict[str, Any] = {}
        try:
            for k in keys:
                pos = self._find(table, k)
                if pos is not None:
                    out[k] = self._value(table, pos)
        except (struct.error, IndexError):
            raise _damaged() from None
        return out

    def stems(self, words: Iterable[str]) -> Dict[str, str]:
        """As :meth:`Bundle.stems`."""
        return self._lookup("stems", words)

    def synsets(self, words: Iterable[str]) -> Dict[str, FrozenSet[int]]:
        """As :meth:`Bundle.synsets`."""
        return self._lookup("synsets", words)

    def synonym_exceptions(self, forms: Iterable[str]) -> Dict[str, List[str]]:
        """As :meth:`Bundle.synonym_exceptions`."""
        return self._lookup("synonym_exceptions", forms)

    def paraphrase_entries(self, phrases: Sequence[str]) -> Tuple[Dict[str, str], Set[str]]:
        """As :meth:`Bundle.paraphrase_entries`."""
        kernels = accel.compiled
        if kernels is not None:
            off, nslots = self._where["paraphrases"]
            entries, begins = kernels.mapped_find(
                self._data, self._fd, off, nslots, TABLES.index("paraphrases"), list(phrases),
                self._compiled_entries(kernels))
            return entries, begins
        found: Dict[str, str] = {}
        prefixes: Set[str] = set()
        data = self._data
        cache = self._entries()
        try:
            for p in phrases:
                pos = self._find("paraphrases", p)
                if pos is None:
                    continue
                flags = data[pos]
                if flags & BEGINS_LONGER:
                    prefixes.add(p)
                if flags & HAS_ENTRY:
                    at, n = struct.unpack_from("<II", data, pos + 1)
                    text = cache.get(at)
                    if text is None:
                        text = cache[at] = _pread(self._fd, n, at).decode("utf-8")
                    found[p] = text
        except (struct.error, IndexError):
            raise _damaged() from None
        return found, prefixes

    def synsets_with_bases(self, kernels: Any, words: List[str], rules: Tuple[Tuple[str, str], ...]) -> List[FrozenSet[int]]:
        """Each word's synsets with those of its base forms (the exception lists', else the first of ``rules`` that
        has synsets), in one compiled call (``kernels.mapped_synsets``): what :meth:`Resources.synsets
        <meteor_lite.resources.lookups.Resources.synsets>` computes from the look-ups above."""
        s_off, s_n = self._where["synsets"]
        e_off, e_n = self._where["synonym_exceptions"]
        found: List[FrozenSet[int]] = kernels.mapped_synsets(self._data, self._fd, s_off, s_n, e_off, e_n, words, rules)
        return found

    def paraphrase_walk(self, kernels: Any, sentences: Sequence[Sequence[str]], max_len: int) -> List[List[Tuple[int, int, str]]]:
        """Each sentence's table phrases, by start then length, found by the compiled walk over the mapped table
        (``kernels.mapped_walk``): what :meth:`Resources._walk <meteor_lite.resources.lookups.Resources._walk>` finds."""
        off, nslots = self._where["paraphrases"]
        found: List[List[Tuple[int, int, str]]] = kernels.mapped_walk(
            self._data, self._fd, off, nslots, list(sentences), max_len, self._compiled_entries(kernels))
        return found

    def walk_spec(self, kernels: Any, max_len: int) -> Tuple[Any, ...]:
        """What ``kernels.pack_words`` takes in place of a sentence's phrase hits to walk the paraphrase table itself
        (:meth:`paraphrase_walk` for one sentence, without a tuple made per phrase): the mapping, the file, the
        table's slots, the longest phrase and the cache of entries."""
        off, nslots = self._where["paraphrases"]
        return (self._data, self._fd, off, nslots, max_len, self._compiled_entries(kernels))

    def _entries(self) -> Dict[int, str]:
        """The cache of decoded entries, emptied when it is full (memory stays bounded on any corpus)."""
        if len(self._entry_cache) > ENTRY_CACHE:
            self._entry_cache.clear()
        return self._entry_cache

    def _compiled_entries(self, kernels: Any) -> Any:
        """:meth:`_entries` for the compiled reader: a table of the kernels' (``kernels.entry_cache``, where finding
        an entry costs no int object nor dict look-up), emptied when it holds more than :data:`ENTRY_CACHE`."""
        table = self._entry_table
        if table is None:
            table = self._entry_table = kernels.entry_cache()
        elif kernels.entry_cache_len(table) > ENTRY_CACHE:
            kernels.entry_cache_clear(table)
        return table

    def close(self) -> None:
        """Unmap and close the file (look-ups fail afterwards)."""
        for view in self._slot_views.values():
            if isinstance(view, memoryview):
                view.release()
        self._slot_views.clear()
        self._data.close()
        self._closer()


def _damaged() -> ValueError:
    return ValueError("the mapped table file is damaged (a record reaches past its end)")


def _pread(fd: int, n: int, at: int) -> bytes:
    """``n`` bytes of the file at offset ``at`` (all of them, or :class:`ValueError`: the file is damaged)."""
    got = b""
    while len(got) < n:
        part = os.pread(fd, n - len(got), at + len(got))
        if not part:
            raise _damaged()
        got += part
    return got


def _open_file(path: Path, stamp: Dict[str, Any]) -> Optional[MappedTables]:
    """The mapped tables at ``path`` if they are a whole file built from the bundle of ``stamp``, else None."""
    if not hasattr(os, "pread"):
        return None  # the entries are read with pread (not on Windows): the bundle is queried there
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        length = os.fstat(fd).st_size
        data = mmap.mmap(fd, 0, access=mmap.ACCESS_READ) if length >= 12 else None
    except (OSError, ValueError):
        data = None
    head = _read_header(data) if data is not None else None
    if (data is None or head is None or not _usable(head, length, stamp) or not _signed(path, head)
            or not _verified(path, fd, data, head)):
        if data is not None:
            data.close()
        os.close(fd)
        return None
    if hasattr(data, "madvise") and hasattr(mmap, "MADV_RANDOM"):
        data.madvise(mmap.MADV_RANDOM)  # look-ups jump about: no read-ahead into the process's memory
    return MappedTables(path, fd, data, head["tables"])


def _signed(path: Path, head: Dict[str, Any]) -> bool:
    """Whether the header carries the MAC this user's key gives its checksum: the file was written by a scorer of
    this user.  A file anyone else wrote (whoever can write the bundle's directory can write one consistent with the
    bundle's stamp and with its own checksum) is not read, but written again."""
    import hmac

    said, mac = head.get("sha256"), head.get("mac")
    if not isinstance(said, str) or not isinstance(mac, str):
        return False
    wanted = _mac(said)
    if wanted is None or not hmac.compare_digest(wanted, mac):
        if wanted is not None:
            log.info("%s: not written by this user's scorer (its MAC is not this user's); it is written again", path)
        return False
    return True


def _verified(path: Path, fd: int, data: Any, head: Dict[str, Any]) -> bool:
    """Whether the file's content is the one its header's checksum records: remembered by the file's identity in
    the cache of verified bundles (:mod:`~meteor_lite.resources.integrity`), else checked (English: about 0.3 s)
    and remembered; as bundles are, unless ``METEOR_LITE_VERIFY_BUNDLES=0``."""
    if not integrity.verification_on():
        return True
    said = head.get("sha256")
    if not isinstance(said, str) or len(said) != 64:
        return False
    identity = integrity.file_identity(path, fd)
    if integrity.is_verified(path, said, identity=identity):
        return True
    tables = head["tables"]
    body_start = head.get("start")
    if not isinstance(body_start, int) or not 12 <= body_start <= len(data):
        return False
    body = hashlib.sha256()
    # read, not through the mapping: its pages would all count in the process's memory
    for at in range(body_start, len(data), 1 << 22):
        body.update(_pread(fd, min(1 << 22, len(data) - at), at))
    if _content_digest(body, head["bundle"], tables, head["length"], body_start) != said:
        log.warning("%s: its content is not the one its header records (damaged?); it is written again", path)
        return False
    _remember(path, said, identity)
    return True


def _remember(path: Path, checksum: str, identity: Optional[Tuple[Any, ...]] = None) -> None:
    """Record a checked file in the cache of verified bundles, quietly: when that cache cannot be written, the
    bundle's own verification has said so already in this run."""
    integrity.remember(path, checksum, identity=identity, warn=False)


def _inside_python_install(path: Path) -> bool:
    """Whether ``path`` is inside an installed package (a resource pack's bundle): a file written there would
    outlive ``pip uninstall``, so none is written (whoever installs may write one with :func:`write_mapped_tables`)."""
    import sysconfig

    real = os.path.realpath(path)
    for key in ("purelib", "platlib"):
        lib = sysconfig.get_paths().get(key)
        if lib and real.startswith(os.path.realpath(lib) + os.sep):
            return True
    return False


def _remove_stale_temps(path: Path) -> None:
    """Remove the temporary files (``.<name>.<pid>.<thread>.tmp``, :func:`~meteor_lite.atomicfile.temp_path`) that writers
    of ``path`` killed before they could (SIGKILL, a power cut) left behind: those of processes that are gone."""
    prefix = f".{path.name}."
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(prefix) and n.endswith(".tmp")]
    except OSError:
        return
    for name in names:
        pid = name[len(prefix):-len(".tmp")].split(".")[0]  # .<name>.<pid>.<thread>.tmp (atomicfile.temp_path)
        if not pid.isdigit() or int(pid) == os.getpid() or _alive(int(pid)):
            continue
        try:
            os.unlink(path.parent / name)
            log.info("%s: removed, left by a writer that was killed", path.parent / name)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user's counts: its file is left alone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def open_mapped_tables(bundle: Bundle, *, build: bool = True) -> Optional[MappedTables]:
    """The mapped tables of ``bundle``: the file beside it when it matches the bundle, else (with ``build``) a new
    one written there first.  None when ``METEOR_LITE_MAPPED`` turns them off, when the bundle was not opened from
    a file, has no look-up table or answers look-ups its own way (``Bundle.mappable``), or when no file can be
    written or read there (the scorer then queries the bundle)."""
    if os.environ.get(MAPPED_ENV, "").strip().lower() in ("0", "false", "no"):
        return None
    stamp = _bundle_stamp(bundle)
    if not stamp or not bundle.mappable or not any(bundle.has(t) for t in TABLES):
        return None  # nothing to map: function words and prefixes are read whole anyway
    path = mapped_path(bundle.path)
    tables = _open_file(path, stamp)
    if tables is not None or not build:
        return tables
    if _mac("") is None:
        log.info("%s: no usable cache key to sign a mapped table file; the bundle's tables are queried with SQLite",
                 path.parent)
        return None
    if not os.access(path.parent, os.W_OK) or _inside_python_install(path):
        log.info("%s: not writable or inside an installed package; the bundle's tables are queried with SQLite",
                 path.parent)
        return None
    size = bundle.identity[1] if bundle.identity is not None else 0
    if size >= ANNOUNCE_SIZE:
        integrity.announce(
            f"writing {one_line(path)}: the bundle's look-up tables as a mapped file, about {size / 1e6:,.0f} MB beside "
            f"the bundle (once per bundle file; {MAPPED_ENV}=0 turns it off)")
    _remove_stale_temps(path)
    from .fetch import interrupt_on_sigterm

    try:
        with interrupt_on_sigterm():  # SIGTERM as Ctrl-C: the temporary file is removed (SIGKILL: by the next writer)
            digest = write_mapped_tables(bundle, path)
    except (OSError, TableFileError) as exc:
        import warnings

        from ..errors import MeteorLiteWarning

        warnings.warn(f"{one_line(path)}: the mapped tables were not written ({one_line(exc)}); the bundle's tables "
                      "are queried with SQLite", MeteorLiteWarning, stacklevel=2)
        return None
    if integrity.verification_on():
        _remember(path, digest)  # written just now from the verified bundle: not checked again
    return _open_file(path, stamp)
