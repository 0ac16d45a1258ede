"""Which source files cannot opt in, remembered on disk, so the hook need not read them again.

Why: the hook sees every module Python imports (~550 for ``import jax``), and reading the first
block of each to look for the pragma cost ``import jax`` 2-3 %. A ``stat`` costs a fraction of
that. So the hook keeps an index of ``file -> (mtime_ns, size, verdict)`` for the files it has
read, and a file whose ``stat`` still matches its entry is not read again. That stat is the one
its loader takes anyway to validate its pyc (hook/finder.py's ``_StatCheck``): a settled file
costs no syscall beyond what Python spends on it without the hook.

Where: one file per import root (the folder a top-level package or module is found in: a
site-packages, the standard library, a project's root), in that folder's ``__pycache__`` as
``jaxrewrite-optin.<python>-<scanner>.idx`` (``sys.pycache_prefix`` respected), holding one shard per
top-level package, decoded when that package is first imported: ``import jax`` reads two files
(site-packages, the standard library) and decodes only the packages it uses. A module whose name
does not match where it is (a ``__path__`` trick) is indexed in a file of its own folder.

Why that is as safe as Python's own bytecode cache: Python's default pyc invalidation trusts a
source's mtime (in whole seconds) and size; the index trusts its mtime in nanoseconds and size,
so every edit a plain pyc notices, the index notices too. In the one case both miss (an edit
that keeps the size and restores the exact mtime), Python runs the module's *previous* code from
its stale pyc, and the index keeps the module's previous verdict: the previous text, plainly,
either way. Only "does not opt in" is ever trusted: a file recorded as opting in is still read
in full, hashed and checked against its cached code (hook/pycfile.py), so an index can never serve
rewritten code for other source text, nor hide an edit of an opted-in file. Further:

* An entry is recorded only from a ``stat`` taken before the bytes it describes were read, and
  never for a file modified within the last ``RACY_NS`` (a second write in the same timestamp
  tick could keep both mtime and size: git's "racily clean" problem).
* The file is named by, and stores, a digest of the pragma scanner (``tag.scanner_hash``): an
  index written by another scanner or jaxrewrite version is never trusted, nor rewritten (two
  versions sharing a tree, a tox env and a venv, keep one index each, instead of replacing the
  other's at every exit). Its name (a hyphen no module name has, ``.idx``) can never be taken
  for a pyc, nor a pyc for it.
* An entry names a file by its path, as the finders give it: which index holds it, or which
  module name found it, never changes what it describes (an index copied elsewhere with its
  folder names the files it was written for, which the copies' paths do not match).
* Indexes are written once per process, at exit, atomically (temp file, ``os.replace``), merged
  with what other processes wrote meanwhile, and only into a ``__pycache__`` that exists (Python
  made it for the root's own modules): no folder is added to a source tree (a ``src`` or home
  folder holding only packages keeps being read as before). An unwritable or read-only folder,
  ``sys.dont_write_bytecode`` or any I/O error only means those files keep being read as before,
  never an error. Where no index exists and none can be written, the hook reads files exactly as
  without an index: no ``stat`` at all.
* A root's index is read when a file of it first needs one (``loaded_place``): the first file of
  a root is tried against its own rewritten pyc first, which decides a file that opts in without
  the index; a file that cannot opt in has no such pyc, and costs one failed open more.
"""

from __future__ import annotations

import atexit
import marshal
import os
import sys
import time

from jaxrewrite.hook import pycfile, tag
from jaxrewrite.hook.tag import RACY_NS

__all__ = ["CHUNK", "ENTRIES", "MAYBE", "NO", "O_FLAGS", "PLACES", "Place", "Root", "flush", "index_path", "loaded_place", "place_of", "read", "reset", "roots"]

#: Verdicts. ``NO``: the file cannot opt in (trusted while its stat matches). ``MAYBE``: it opted
#: in, or may (only a hint that the whole file will be needed: it is read and checked anyway).
NO = 0
MAYBE = 1

#: Bumped when the file format changes.
FORMAT = 3
_NAME = "jaxrewrite-optin.{tag}-{scanner}.idx"
#: How a source or index file is opened, and the size of a read: shared with the finder (hook/finder.py).
O_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)
_SEPARATORS = os.sep + (os.altsep or "")
CHUNK = 1 << 16

Entry = tuple[int, int, int]  # mtime_ns, size, verdict

#: Absolute source path -> entry, for every shard decoded in this process: the finder's fast
#: path is one lookup here (the stat is the loader's). Entries are checked where they are used.
ENTRIES: dict[str, Entry] = {}


class Root:
    """One index file: the shards of an import root, as read, and what this process learned."""

    __slots__ = ("_writable", "decoded", "dirty", "folder", "path", "shards")

    def __init__(self, folder: str, path: str | None, shards: dict[str, bytes], writable: bool | None) -> None:
        self.folder = folder
        #: The index file; None when this interpreter keeps no bytecode cache.
        self.path = path
        #: Top-level name ("" for lone modules) -> its marshalled entries, as read.
        self.shards = shards
        #: The shards decoded so far: top-level name -> source path -> entry.
        self.decoded: dict[str, dict[str, Entry]] = {}
        #: The shards this process changed.
        self.dirty: set[str] = set()
        self._writable = writable

    def writable(self) -> bool:
        """Whether recording here can ever reach the disk (checked once, when first needed)."""
        if self._writable is None:
            self._writable = self.path is not None and _may_write(self.path)
        return self._writable

    def shard(self, name: str) -> dict[str, Entry]:
        """The entries of one shard, decoded on first use (and added to ``ENTRIES``)."""
        entries = self.decoded.get(name)
        if entries is None:
            entries = self.decoded[name] = _decode(self.shards.get(name))
            ENTRIES.update(entries)
        return entries


class Place:
    """Where the entries of one source folder live: a shard of a root."""

    __slots__ = ("active", "entries", "root", "shard")

    def __init__(self, root: Root, shard: str) -> None:
        self.root = root
        self.shard = shard
        #: Source path -> entry (the shard's; the finder reads it directly).
        self.entries = root.shard(shard)
        #: Worth a stat per file: there are entries to compare with, or new ones can be written.
        self.active = bool(root.shards) or root.writable()

    def record(self, origin: str, key: tuple[int, int], verdict: int) -> None:
        """Remember a verdict for the file at ``origin`` reached from bytes read after a stat
        that gave ``key``."""
        entry = (key[0], key[1], verdict)
        if self.entries.get(origin) == entry or time.time_ns() - key[0] < RACY_NS or not self.root.writable():
            return
        self.entries[origin] = ENTRIES[origin] = entry
        if not self.root.dirty:
            _schedule_flush()
        self.root.dirty.add(self.shard)

    def invalidate(self, origin: str) -> None:
        """Make the entry of ``origin`` one no stat can match (its verdict turned out wrong, and
        no stat from before the read is at hand to record the right one): the next process reads
        the file and records it afresh."""
        if origin in self.entries and self.root.writable():
            self.entries[origin] = ENTRIES[origin] = (-1, -1, NO)
            if not self.root.dirty:
                _schedule_flush()
            self.root.dirty.add(self.shard)

    def does_not_opt_in(self, origin: str, key: tuple[int, int] | None, was_maybe: bool) -> None:
        """The file at ``origin`` turned out not to opt in: record that from ``key`` (the stat taken
        before the read), or, without one, make a stale "opts in" entry (``was_maybe``) one no
        stat matches."""
        if key is not None:
            self.record(origin, key, NO)
        elif was_maybe:
            self.invalidate(origin)


#: Source folder -> its place, and root folder -> its index, for what this process has seen.
PLACES: dict[str, Place] = {}
_roots: dict[str, Root] = {}
_flush_scheduled = False


def place_of(source_folder: str, module: str, filename: str) -> Place:
    """Where the entries of ``source_folder`` live, found through module ``module`` (file
    ``filename``) in it; its root's index is read, and the shard decoded, on first use."""
    place = PLACES.get(source_folder)
    if place is None:
        folder, shard = _root_of(source_folder, module, filename)
        root = _roots.get(folder)
        if root is None:
            root = _roots[folder] = _load(folder)
        place = PLACES[source_folder] = Place(root, shard)
    return place


def loaded_place(source_folder: str, module: str, filename: str) -> Place | None:
    """``place_of``, where that costs no read: the folder's place, or a new one in a root whose
    index this process has read already; None for the first folder of a root not read yet.

    Why: reading a root's index costs ~0.02-0.04 ms, and only files that cannot opt in need it
    (an opted-in one is read in full and hash-checked whatever its entry says). So the finder
    first tries the first file of a root against its own rewritten pyc, and reads the index only
    where there is none: a process whose first module of a root opts in (a script's module, a
    test file, a project's main module) reads that index only once a module of the root that
    has no rewritten pyc follows."""
    place = PLACES.get(source_folder)
    if place is None:
        if not _roots:
            return None  # no index read yet in this process: no root to find
        folder, shard = _root_of(source_folder, module, filename)
        root = _roots.get(folder)
        if root is None:
            return None
        place = PLACES[source_folder] = Place(root, shard)
    return place


def _root_of(source_folder: str, module: str, filename: str) -> tuple[str, str]:
    """(root folder, shard): the folder the top-level package is in and its name, when the
    module's name matches where it is; else the folder itself and ""."""
    parts = module.split(".")
    if filename == "__init__.py":
        package = parts
    elif filename == parts[-1] + ".py":
        package = parts[:-1]
    else:
        return source_folder, ""
    if package:
        tail = os.sep + os.sep.join(package)
        if source_folder.endswith(tail) and len(source_folder) > len(tail):
            return source_folder[: -len(tail)], package[0]
    return source_folder, ""


def index_path(folder: str) -> str | None:
    """Where the index of the root ``folder`` lives: its ``__pycache__``, or where
    ``sys.pycache_prefix`` puts that folder's pycs; None without a bytecode cache (or when
    jaxrewrite's own sources cannot be read: no scanner digest)."""
    python: str | None = sys.implementation.cache_tag
    scanner = tag.scanner_hash()
    if python is None or scanner is None:
        return None
    name = _NAME.format(tag=python, scanner=scanner[:16])
    prefix = sys.pycache_prefix
    if prefix is None:
        return f"{folder}{os.sep}__pycache__{os.sep}{name}"
    # importlib.util.cache_from_source's rule for the prefix, inlined (once per root and process).
    head = folder if os.path.isabs(folder) else os.path.join(os.getcwd(), folder)
    if head[1:2] == ":" and head[:1] not in _SEPARATORS:
        head = head[2:]  # a Windows drive
    return os.path.join(prefix, head.lstrip(_SEPARATORS), name)


def read(path: str, scanner: str) -> dict[str, bytes] | None:
    """The shards of the index at ``path`` if this scanner wrote it, else None (missing,
    unreadable, damaged, another format or another scanner)."""
    try:
        fd = os.open(path, O_FLAGS)
        try:
            data = _read_all(fd)
        finally:
            os.close(fd)
        form, written_by, shards = marshal.loads(data)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if form != FORMAT or written_by != scanner or type(shards) is not dict:
        return None
    if not all(type(name) is str and type(blob) is bytes for name, blob in shards.items()):
        return None
    result: dict[str, bytes] = shards
    return result


def _decode(blob: bytes | None) -> dict[str, Entry]:
    """A shard's entries; a damaged shard is an empty one. The entries themselves are checked
    where they are used (the finder unpacks each one guarded): checking all costs every start."""
    if blob is None:
        return {}
    try:
        entries = marshal.loads(blob)
    except (EOFError, ValueError, TypeError):
        return {}
    if type(entries) is not dict or not all(type(path) is str for path in entries):
        return {}
    result: dict[str, Entry] = entries
    return result


def _load(folder: str) -> Root:
    scanner = tag.scanner_hash()
    path = None if scanner is None else index_path(folder)
    if path is None or scanner is None:
        return Root(folder, None, {}, False)
    shards = read(path, scanner)
    if shards:
        return Root(folder, path, shards, None)  # writability: checked if ever needed
    return Root(folder, path, {}, _may_write(path))


def _may_write(path: str) -> bool:
    """Whether an index at ``path`` could be written at exit: a cheap guess that spares
    unwritable folders a stat per file; a wrong "yes" only costs a failed write at exit."""
    if sys.dont_write_bytecode:
        return False
    pycache = os.path.dirname(path)
    if os.access(pycache, os.W_OK):
        return True
    if os.path.exists(pycache):
        return False
    # Not made yet: Python may make it during this process (for a module of the root itself),
    # and the index is written only if it did. Under a prefix, the folder's copy may not exist
    # yet either.
    parent = os.path.dirname(pycache)
    return os.access(parent, os.W_OK) if os.path.exists(parent) else True


def _schedule_flush() -> None:
    global _flush_scheduled
    if not _flush_scheduled:
        _flush_scheduled = True
        atexit.register(flush)


def flush() -> int:
    """Write every index this process changed; returns how many were written. Runs at exit, so
    each index is written once however many of its files were imported; never raises."""
    written = 0
    for root in list(_roots.values()):
        if root.dirty:
            try:
                written += _write(root)
            except Exception:  # a cache that cannot be written is no error, least of all at exit
                pass
            root.dirty.clear()
    return written


def _write(root: Root) -> bool:
    """Merge what this process learned into what is on disk now (another process may have
    written since), drop the entries of files that are gone, and replace the file."""
    path = root.path
    scanner = tag.scanner_hash()
    if path is None or scanner is None or sys.dont_write_bytecode:
        return False
    shards = read(path, scanner) or {}
    listings: dict[str, set[str] | None] = {}
    for name in sorted(root.dirty):
        merged = {**_decode(shards.get(name)), **root.decoded.get(name, {})}
        kept = {}
        for source, entry in merged.items():
            folder, _, filename = source.rpartition(os.sep)
            if folder not in listings:
                try:
                    listings[folder] = set(os.listdir(folder or os.curdir))
                except OSError:
                    listings[folder] = None
            present = listings[folder]
            if present is None or filename in present:  # a folder that cannot be listed: kept
                kept[source] = entry
        shards[name] = marshal.dumps(kept)
    # Only into a __pycache__ that Python made (for the root's own modules' pycs): the index
    # never adds a folder to a source tree (a src/ or home folder holding only packages).
    return pycfile.write_atomic(path, marshal.dumps((FORMAT, scanner, shards)), 0o666, make_folder=False)


def _read_all(fd: int) -> bytes:
    """The whole file: one call for an index under ``CHUNK`` (a short read is its end; were it
    not, the truncated data would fail to unmarshal, and the index would be ignored)."""
    data = os.read(fd, CHUNK)
    while len(data) % CHUNK == 0 and data:
        more = os.read(fd, CHUNK)
        if not more:
            break
        data += more
    return data


def roots() -> list[Root]:
    """Every index this process has loaded (benchmarks and tests look at them)."""
    return list(_roots.values())


def reset() -> None:
    """Forget every index loaded in this process (tests)."""
    ENTRIES.clear()
    PLACES.clear()
    _roots.clear()
