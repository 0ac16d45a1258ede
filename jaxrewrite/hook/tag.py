"""The cache tag: a digest of what determines the rewritten code (hook/digest.py), as built
into a wheel, or in a checkout memoised by file stats.

The hook's pycs (hook/pycfile.py) are named with ``opt-<tag>`` (rewriter digest, pipeline name,
optimisation level) and nothing else reads them: a plain import must never run rewritten code
and the hook must never run plain code, and a changed rewriter must never be served its
predecessor's output. The folder indexes (hook/index.py) are keyed the same way by the digest
of the pragma scanner.

Why the digests are memoised by file stats (``digests``): hashing jaxrewrite's own sources
cost every process ~0.6 ms, a quarter of importing a typical opted-in module. The memo, in
jaxrewrite's own ``__pycache__``, maps the version, every hashed file's (mtime_ns, size, inode) and
each searched folder's stat to the content digests (one pair for every Python: they are
``blake2b``'s); a process whose stats all match uses them (~65 stats, no reads). That is as safe as the rewriter's own loading: Python decides whether to run an
engine module's (possibly stale) bytecode from that file's mtime, in whole seconds, and size, so
an edit the memo misses (same size, mtime restored to the nanosecond) is one Python misses too.
A stat is only memoised when no later write can reproduce it (``_settled``). Within a process the
digests are taken once: the record (memo or hashing) is kept and re-checked by its stats only, so
a read-only install without a memo hashes once per process, not once per stored module.
The tag stays a digest of contents, not of stats: a copied or moved install (new mtimes, same
files) keeps its caches, ``jaxrewrite compile``'s prebuilt ones included. An installed wheel
checks no stat at all: it carries the digests it was built with (``jaxrewrite.hook.BUILT``:
hook/digest.py says why).
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import sys
import time
from typing import NamedTuple

from jaxrewrite import hook as _package
from jaxrewrite.hook import digest, pycfile
from jaxrewrite.hook.digest import REWRITE_SOURCES

#: This process's digests (see ``digests``), found on first use; None makes the next use look again.
_rewriter_hash: str | None = None
_scanner_hash: str | None = None


#: The package folder; the cache key hashes the part of it that determines the rewritten code.
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: The memo's file name, in the ``__pycache__`` of the package's ``hook`` folder; never a pyc name.
MEMO_NAME = "jaxrewrite-digests.memo"
#: 4: one pair of digests, the same for every Python (3 held one per magic number: they were
#: ``source_hash``'s, keyed by it).
_MEMO_FORMAT = 4
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
#: Whether this process's digests are the ones its wheel was built with (nothing to check).
_built = False


def package_sources(root: str = PACKAGE) -> list[str]:
    """The ``.py`` files of ``REWRITE_SOURCES`` under ``root`` (folders searched), as sorted
    ``/``-separated paths relative to ``root``."""
    return digest.walk(root, REWRITE_SOURCES)[0]


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
    """Find this process's digests (built in, memo or hashing) and keep their record."""
    global _rewriter_hash, _scanner_hash, _record, _built
    from jaxrewrite.version import __version__

    built = digest.built(getattr(_package, digest.BUILT, None), __version__)
    if built is not None:
        (_rewriter_hash, _scanner_hash), _record, _built = built, None, True
        return
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
    if memo is not None:
        record = _from_memo(memo, root, __version__)
        if record is not None:
            return record.digests, record
    sources, watched = digest.walk(root, digest.ALL_SOURCES)
    # Stats before the reads: a write between the two changes the stats the memo records.
    before = time.time_ns()
    stats = tuple((name, *_stat_key(root, name)) for name in [*sources, *watched])
    bodies = {name: _read(os.path.join(root, *name.split("/"))) for name in sources}
    found = Digests(*digest.digests(__version__, sources, bodies))
    pycfile.trace(f"hashed {len(sources)} jaxrewrite sources under {root}")
    until = _settled([mtime for _, mtime, _, _ in stats if mtime != -1], before, time.time_ns())
    if until is None:
        return found, None
    record = _Record(root, stats, found, until)
    if memo is not None:
        # Written now, or by the next pyc written where bytecode may be (``jaxrewrite compile``).
        pycfile.defer(memo, marshal.dumps((_MEMO_FORMAT, __version__, until, stats, tuple(found))))
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


def _stat_key(root: str, name: str) -> tuple[int, int, int]:
    """(mtime_ns, size, inode) of ``root/name``; (-1, -1, -1) when it does not exist."""
    try:
        st = os.stat(os.path.join(root, *name.split("/")))
    except (FileNotFoundError, NotADirectoryError):
        return -1, -1, -1
    return st.st_mtime_ns, st.st_size, st.st_ino


def _from_memo(memo: str, root: str, version: str) -> _Record | None:
    """The memoised record, if the memo is sound, of this version, and every stat matches."""
    try:
        form, memo_version, until, stats, pair = marshal.loads(_read_small(memo))
        if form != _MEMO_FORMAT or memo_version != version or type(pair) is not tuple or len(pair) != 2:
            return None
        if type(until) is not int or type(stats) is not tuple or not stats:  # a memo that checks nothing vouches for nothing
            return None
        if not all(type(d) is str for d in pair):
            return None
        record = _Record(root, stats, Digests(*pair), until)
        if not _still(record):
            return None
    except (OSError, EOFError, TypeError, ValueError):  # no memo, unreadable stats, a damaged record
        return None
    return record


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
    if _rewriter_hash is None or _built:
        return True  # a built install is not edited in place (hook/digest.py)
    try:
        if _record is not None and _still(_record):
            return _record.digests.rewriter == _rewriter_hash  # ~65 stats: no memo read, no hashing
        found, fresh = _digests(PACKAGE, OWN_MEMO)
    except (OSError, TypeError, ValueError):
        return False
    if fresh is not None and found.rewriter == _rewriter_hash:
        _record = fresh
    return found.rewriter == _rewriter_hash


def cache_path(source_path: str, optimize: int | None = None, pipeline: str = "") -> str | None:
    """Where the rewritten pyc of ``source_path`` lives (``sys.pycache_prefix`` respected), or None.

    Named as ``importlib.util.cache_from_source`` names it; an absolute ``.py`` path on a system
    with one separator and no prefix is spelled here directly (once per warm import: a third of
    the finder's own cost of naming it; tests/test_cache.py compares the two)."""
    tag = cache_tag(optimize, pipeline)
    if tag is None:
        return None
    python = sys.implementation.cache_tag
    if python is not None and sys.pycache_prefix is None and _ONE_SEPARATOR and source_path.endswith(".py"):
        folder, _, name = source_path.rpartition(os.sep)
        if len(name) > 3 and folder and folder[-1] != os.sep and tag.isalnum():
            return f"{folder}{os.sep}__pycache__{os.sep}{name[:-3]}.{python}.opt-{tag}.pyc"
    try:
        return importlib.util.cache_from_source(source_path, optimization=tag)
    except NotImplementedError:  # sys.implementation.cache_tag is None: no caching on this Python
        return None


_ONE_SEPARATOR = os.altsep is None


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
