"""The cache tag: a digest of what determines the rewritten code, memoised by file stats.

The hook's pycs (hook/pycfile.py) are named with ``opt-<tag>`` (rewriter digest, pipeline name,
optimisation level) and nothing else reads them: a plain import must never run rewritten code
and the hook must never run plain code, and a changed rewriter must never be served its
predecessor's output. The folder indexes (hook/index.py) are keyed the same way by the digest
of the pragma scanner.

Why the digests are memoised by file stats (``digests``): hashing jaxrewrite's own sources
cost every process ~0.6 ms, a quarter of importing a typical opted-in module. The memo, in
jaxrewrite's own ``__pycache__``, maps the version, every hashed file's (mtime_ns, size, inode) and
each searched folder's stat to the content digests, one pair per Python (by magic number: the
digests are ``source_hash``'s, keyed by it, and every Python that imports the tree shares the
memo); a process whose stats all match uses its own (~50 stats, no reads). That is as safe as the rewriter's own loading: Python decides whether to run an
engine module's (possibly stale) bytecode from that file's mtime, in whole seconds, and size, so
an edit the memo misses (same size, mtime restored to the nanosecond) is one Python misses too.
A stat is only memoised when no later write can reproduce it (``_settled``). Within a process the
digests are taken once: the record (memo or hashing) is kept and re-checked by its stats only, so
a read-only install without a memo hashes once per process, not once per stored module.
The tag stays a digest of contents, not of stats: a copied or moved install (new mtimes, same
files) keeps its caches, ``jaxrewrite compile``'s prebuilt ones included.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import sys
import time
from typing import NamedTuple

from jaxrewrite.hook import pycfile

#: This process's digests (see ``digests``), found on first use; None makes the next use look again.
_rewriter_hash: str | None = None
_scanner_hash: str | None = None


#: The package folder; the cache key hashes the part of it that determines the rewritten code.
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: What determines the code the hook caches: the engine (every file the rewrite can import;
#: tests/test_cache.py checks that against what a rewrite really loads), the pipelines that
#: compile it and the default one's fast route (hook/fast), the pyc format and this file's naming of it, and the version. The commands, the
#: run-time helpers and the rest of the package do not change a cached module's code, so editing
#: them must not cost every cached module a cold rewrite.
REWRITE_SOURCES = ("engine", "header.py", "hook/tag.py", "hook/pycfile.py", "hook/pipeline.py", "hook/fast", "integrations/pytest_plugin.py", "version.py")
#: Engine files no rewrite imports (none since migrate became its own layer, ``jaxrewrite/migrate``).
NOT_REWRITE: frozenset[str] = frozenset()
#: What decides whether a file opts in without rewriting it: the pragma scanner, and the finder
#: and index that apply it. The folder indexes (hook/index.py) are keyed by their digest, so an
#: index written by another scanner is never trusted; editing these costs no cached module.
SCANNER_SOURCES = ("header.py", "hook/finder.py", "hook/index.py", "version.py")

#: The memo's file name, in the ``__pycache__`` of the package's ``hook`` folder; never a pyc name.
MEMO_NAME = "jaxrewrite-digests.memo"
#: 3: the digests of each Python, by its magic number, under one set of stats.
_MEMO_FORMAT = 3
#: Whose digests a memo entry holds. ``source_hash`` is keyed by the interpreter's magic number,
#: and the memo, one file, is shared by every Python that imports the tree (tox envs, the floor
#: and newest legs on one checkout): with one entry, a memo written by one Python gave another
#: that Python's digests, so one interpreter got two tags for one tree, with the memo and
#: without it (under ``PYTHONPYCACHEPREFIX``), and missed its own prebuilt caches and indexes.
_MAGIC = importlib.util.MAGIC_NUMBER
#: Stats younger than this are not trusted (the memo here, the folder indexes of hook/index.py): a
#: second same-size write within the same timestamp tick would keep them (git's "racily clean"
#: problem).
RACY_NS = 2_000_000_000

#: A stat as the memo records it: (name relative to the root, mtime_ns, size, inode); -1s when
#: the file does not exist.
Stat = tuple[str, int, int, int]


class Digests(NamedTuple):
    """Content digests, each with the version: of ``REWRITE_SOURCES`` (the cache tag) and of
    ``SCANNER_SOURCES`` (the key of the folder indexes)."""

    rewriter: str
    scanner: str


class _Record(NamedTuple):
    """Digests and the stats they were taken under, for this process's own package."""

    root: str
    stats: tuple[Stat, ...]
    digests: Digests
    #: ``time.time_ns()`` from which the record needs hashing again (a future-dated file comes
    #: within reach of the clock); -1: never.
    until: int


#: This process's record of its own digests (see ``tag_is_current``).
_record: _Record | None = None


def package_sources(root: str = PACKAGE) -> list[str]:
    """The ``.py`` files of ``REWRITE_SOURCES`` under ``root`` (folders searched), as sorted
    ``/``-separated paths relative to ``root``."""
    return _walk(root, REWRITE_SOURCES)[0]


def _walk(root: str, entries: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The ``.py`` files of ``entries`` (as ``package_sources`` lists them), and what else the
    memo must watch: the folders searched (a new file changes their mtime) and the named files
    that do not exist (creating one must be noticed)."""
    found: list[str] = []
    watched: list[str] = []
    for entry in entries:
        path = os.path.join(root, *entry.split("/"))
        if not os.path.isdir(path):
            (found if os.path.exists(path) else watched).append(entry)
            continue
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            rel = os.path.relpath(folder, root).replace(os.sep, "/")
            watched.append(rel)
            found.extend(f"{rel}/{name}" for name in files if name.endswith(".py"))
    # A file named in ``entries`` and inside a folder of them too is listed (and statted) once.
    return sorted({name for name in found if name not in NOT_REWRITE}), sorted(set(watched))


def _covered(name: str, entries: tuple[str, ...]) -> bool:
    return any(name == entry or name.startswith(entry + "/") for entry in entries)


def rewriter_hash(root: str = PACKAGE) -> str:
    """A digest of the sources that determine the rewritten code (``REWRITE_SOURCES``) and the
    version, so that any change to the rewriter invalidates every cached module. For the
    installed package: once per process, through the memo (see ``digests``)."""
    if root != PACKAGE:
        return digests(root, memo=None).rewriter
    if _rewriter_hash is None:
        _take()
    assert _rewriter_hash is not None
    return _rewriter_hash


def _take() -> None:
    """Find this process's digests (memo or hashing) and keep their record."""
    global _rewriter_hash, _scanner_hash, _record
    (_rewriter_hash, _scanner_hash), _record = _digests(PACKAGE, OWN_MEMO)


def scanner_hash() -> str | None:
    """The digest the folder indexes are keyed by (``SCANNER_SOURCES`` and the version), once
    per process; None when jaxrewrite's sources cannot be read (then no index is used)."""
    if _scanner_hash is None or _rewriter_hash is None:
        try:
            _take()
        except OSError:
            return None
    return _scanner_hash


def memo_path(root: str = PACKAGE) -> str | None:
    """Where the digest memo of the package at ``root`` lives: its ``hook/__pycache__``
    (``sys.pycache_prefix`` respected); None when this Python keeps no bytecode cache."""
    try:
        pyc = importlib.util.cache_from_source(os.path.join(root, "hook", "tag.py"))
    except NotImplementedError:
        return None
    return os.path.join(os.path.dirname(pyc), MEMO_NAME)


#: The default ``memo`` of ``digests``: the package's own memo (``memo_path(root)``).
OWN_MEMO = "<own memo>"


def digests(root: str = PACKAGE, memo: str | None = OWN_MEMO) -> Digests:
    """The content digests of the sources under ``root``: from the memo at ``memo`` when it is
    of this version and every stat it recorded still matches, else by reading and hashing them
    (then memoised, when their stats are settled and bytecode may be written). ``memo=None``:
    always hash, memoise nothing. Raises OSError when a source cannot be read."""
    return _digests(root, memo)[0]


def _digests(root: str, memo: str | None) -> tuple[Digests, _Record | None]:
    """``digests``, with the record its stats vouch for (None where they vouch for nothing)."""
    from jaxrewrite.version import __version__

    if memo == OWN_MEMO:
        memo = memo_path(root)
    others: dict[bytes, tuple[str, str]] = {}
    memo_stats: tuple[Stat, ...] = ()
    if memo is not None:
        record, memo_stats, others = _from_memo(memo, root, __version__)
        if record is not None:
            return record.digests, record
    sources, watched = _walk(root, tuple(dict.fromkeys(REWRITE_SOURCES + SCANNER_SOURCES)))
    # Stats before the reads: a write between the two changes the stats the memo records.
    before = time.time_ns()
    stats = tuple((name, *_stat_key(root, name)) for name in [*sources, *watched])
    bodies = {name: _read(os.path.join(root, *name.split("/"))) for name in sources}
    found = Digests(
        _digest(__version__, [name for name in sources if _covered(name, REWRITE_SOURCES)], bodies),
        _digest(__version__, [name for name in sources if _covered(name, SCANNER_SOURCES)], bodies),
    )
    pycfile.trace(f"hashed {len(sources)} jaxrewrite sources under {root}")
    until = _settled([mtime for _, mtime, _, _ in stats if mtime != -1], before, time.time_ns())
    if until is None:
        return found, None
    record = _Record(root, stats, found, until)
    if memo is not None:
        # Written now, or by the next pyc written where bytecode may be (``jaxrewrite compile``).
        # Other Pythons' digests are kept where they were taken under these very stats.
        table = {**(others if memo_stats == stats else {}), _MAGIC: tuple(found)}
        pycfile.defer(memo, marshal.dumps((_MEMO_FORMAT, __version__, until, stats, table)))
    return found, record


def _settled(mtimes: list[int], before: int, after: int) -> int | None:
    """Whether stats with these mtimes, taken after ``before`` and read by ``after``, can be
    trusted later; None where not, else the time from which they no longer are (-1: never).

    A write made after the stats were taken gets an mtime from the clock at that write, so it can
    only reproduce a recorded mtime that was not yet in the past: one older than ``before`` by
    ``RACY_NS`` (a coarse timestamp tick, a clock step) never is. A future-dated one (an archive
    unpacked with dates ahead, a skewed clock) can be reproduced by a write only once the clock
    reaches it, so it is trusted until then, less ``RACY_NS``: a file dated ahead is memoised,
    not re-hashed by every process, and never trusted where the same-tick problem can occur."""
    until = -1
    for mtime in mtimes:
        if mtime <= before - RACY_NS:
            continue
        if mtime < after + 2 * RACY_NS:
            return None
        until = mtime - RACY_NS if until == -1 else min(until, mtime - RACY_NS)
    return until


def _digest(version: str, names: list[str], bodies: dict[str, bytes]) -> str:
    parts = [version.encode()]
    for name in names:
        body = bodies[name]
        key = name.encode()
        parts.append(b"%d:%s:%d:%s" % (len(key), key, len(body), body))
    return importlib.util.source_hash(b"".join(parts)).hex()


def _stat_key(root: str, name: str) -> tuple[int, int, int]:
    """(mtime_ns, size, inode) of ``root/name``; (-1, -1, -1) when it does not exist."""
    try:
        st = os.stat(os.path.join(root, *name.split("/")))
    except (FileNotFoundError, NotADirectoryError):
        return -1, -1, -1
    return st.st_mtime_ns, st.st_size, st.st_ino


def _from_memo(memo: str, root: str, version: str) -> tuple[_Record | None, tuple[Stat, ...], dict[bytes, tuple[str, str]]]:
    """This interpreter's memoised record, if the memo is sound, of this version, every stat
    matches and it holds this Python's digests; with the memo's stats and the digests it holds
    (every Python's) where the stats match, for a Python that adds its own."""
    try:
        form, memo_version, until, stats, table = marshal.loads(_read_small(memo))
        if form != _MEMO_FORMAT or memo_version != version or type(table) is not dict:
            return None, (), {}
        if type(until) is not int or type(stats) is not tuple or not stats:  # a memo that checks nothing vouches for nothing
            return None, (), {}
        held = {
            magic: (pair[0], pair[1])
            for magic, pair in table.items()
            if type(magic) is bytes and type(pair) is tuple and len(pair) == 2 and all(type(d) is str for d in pair)
        }
        mine = held.get(_MAGIC)
        record = _Record(root, stats, Digests(*mine) if mine is not None else Digests("", ""), until)
        if not _still(record):
            return None, (), {}
    except (OSError, EOFError, TypeError, ValueError):  # no memo, unreadable stats, a damaged record
        return None, (), {}
    return (record if mine is not None else None), stats, held


def _still(record: _Record) -> bool:
    """Whether every stat of ``record`` still matches and it is within its time; raises
    TypeError or ValueError for a damaged one."""
    if record.until != -1 and time.time_ns() >= record.until:
        return False
    prefix = record.root + os.sep
    for name, mtime, size, ino in record.stats:
        try:
            st = os.stat(prefix + name if os.sep == "/" else prefix + name.replace("/", os.sep))
        except (FileNotFoundError, NotADirectoryError):
            if mtime != -1:
                return False
            continue
        if st.st_mtime_ns != mtime or st.st_size != size or st.st_ino != ino:
            return False
    return True


def cache_tag(optimize: int | None = None, pipeline: str = "") -> str | None:
    """The ``optimization`` part of the cache file name: rewriter hash, pipeline name and
    optimisation level (the interpreter's by default); None when the rewriter cannot be hashed."""
    try:
        digest = rewriter_hash()
    except OSError:
        return None
    level = sys.flags.optimize if optimize is None else optimize
    return f"jaxrewrite{digest}{pipeline}o{level}"


def tag_is_current() -> bool:
    """Whether the rewriter on disk is still the one this process's tag names (compared through
    the memo's stats). Checked before storing freshly rewritten code: an engine edited after the
    tag was taken, and imported since, must not write its output under the old tag."""
    global _record
    if _rewriter_hash is None:
        return True
    try:
        if _record is not None and _still(_record):
            return _record.digests.rewriter == _rewriter_hash  # ~25 stats: no memo read, no hashing
        found, fresh = _digests(PACKAGE, OWN_MEMO)
    except (OSError, TypeError, ValueError):
        return False
    if fresh is not None and found.rewriter == _rewriter_hash:
        _record = fresh
    return found.rewriter == _rewriter_hash


def cache_path(source_path: str, optimize: int | None = None, pipeline: str = "") -> str | None:
    """Where the rewritten pyc of ``source_path`` lives (``sys.pycache_prefix`` respected), or None."""
    tag = cache_tag(optimize, pipeline)
    if tag is None:
        return None
    try:
        return importlib.util.cache_from_source(source_path, optimization=tag)
    except NotImplementedError:  # sys.implementation.cache_tag is None: no caching on this Python
        return None


def _read(path: str) -> bytes:
    """A whole file with the fewest calls; this runs in every process's first opted-in import."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        return os.read(fd, os.fstat(fd).st_size + 1)
    finally:
        os.close(fd)


def _read_small(path: str) -> bytes:
    """A small file (the memo) in one read: a short read of a regular file is its end (were it
    not, the truncated data would fail to unmarshal, and the memo would be ignored)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        return os.read(fd, 1 << 16)
    finally:
        os.close(fd)
