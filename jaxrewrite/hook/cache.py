"""The bytecode cache for rewritten modules: hash-checked pycs beside the normal ones, under their own tag.

Why its own file name: a plain import must never run rewritten code and the hook must never run
plain code, so the name carries ``opt-<tag>`` (rewriter hash + optimisation level) and nothing else
reads it. Why hash-checked (PEP 552) rather than mtime: an edit that keeps size and second is seen.
Why atomic writes: concurrent processes importing the same module must never see half a file.
Every failure here (read-only folder, garbage file) means "no cache", never an import error.
"""

from __future__ import annotations

import _imp
import _thread
import importlib.util
import marshal
import os
import sys
from types import CodeType

#: PEP 552 flags: hash-based (bit 0), always checked against the source (bit 1).
FLAGS = b"\x03\x00\x00\x00"
_HEADER_SIZE = 16

_rewriter_hash: str | None = None


#: The package folder; the cache key hashes the part of it that determines the rewritten code.
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: What determines the code the hook caches: the engine (every file the rewrite can import;
#: tests/test_cache.py checks that against what a rewrite really loads), the pipelines that
#: compile it, this file's format, and the version. The commands, the run-time helpers and the
#: rest of the package do not change a cached module's code, so editing them must not cost every
#: cached module a cold rewrite, nor every process the time to hash them.
REWRITE_SOURCES = ("engine", "hook/cache.py", "hook/pipeline.py", "integrations/pytest_plugin.py", "version.py")
#: Engine files no rewrite imports (the reverse planner of ``jaxrewrite migrate``).
NOT_REWRITE = frozenset({"engine/migration.py"})


def package_sources(root: str = PACKAGE) -> list[str]:
    """The ``.py`` files of ``REWRITE_SOURCES`` under ``root`` (folders searched), as sorted
    ``/``-separated paths relative to ``root``."""
    found: list[str] = []
    for entry in REWRITE_SOURCES:
        path = os.path.join(root, *entry.split("/"))
        if not os.path.isdir(path):
            if os.path.exists(path):
                found.append(entry)
            continue
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            rel = os.path.relpath(folder, root).replace(os.sep, "/")
            found.extend(f"{rel}/{name}" for name in files if name.endswith(".py"))
    return sorted(name for name in found if name not in NOT_REWRITE)


def rewriter_hash(root: str = PACKAGE) -> str:
    """A digest of the sources that determine the rewritten code (``REWRITE_SOURCES``) and the
    version, so that any change to the rewriter invalidates every cached module; computed once,
    on first use."""
    global _rewriter_hash
    if _rewriter_hash is None or root != PACKAGE:
        from jaxrewrite.version import __version__

        parts = [__version__.encode()]
        for name in package_sources(root):
            body = _read(os.path.join(root, *name.split("/")))
            key = name.encode()
            parts.append(b"%d:%s:%d:%s" % (len(key), key, len(body), body))
        digest = importlib.util.source_hash(b"".join(parts)).hex()
        if root != PACKAGE:
            return digest
        _rewriter_hash = digest
    return _rewriter_hash


def cache_tag(optimize: int | None = None, pipeline: str = "") -> str | None:
    """The ``optimization`` part of the cache file name: rewriter hash, pipeline name and
    optimisation level (the interpreter's by default); None when the rewriter cannot be hashed."""
    try:
        digest = rewriter_hash()
    except OSError:
        return None
    level = sys.flags.optimize if optimize is None else optimize
    return f"jaxrewrite{digest}{pipeline}o{level}"


def cache_path(source_path: str, optimize: int | None = None, pipeline: str = "") -> str | None:
    """Where the rewritten pyc of ``source_path`` lives (``sys.pycache_prefix`` respected), or None."""
    tag = cache_tag(optimize, pipeline)
    if tag is None:
        return None
    try:
        return importlib.util.cache_from_source(source_path, optimization=tag)
    except NotImplementedError:  # sys.implementation.cache_tag is None: no caching on this Python
        return None


def pack(code: CodeType, source_hash: bytes) -> bytes:
    """The bytes of a hash-checked pyc for ``code``."""
    return importlib.util.MAGIC_NUMBER + FLAGS + source_hash + marshal.dumps(code)


def unpack(data: bytes, source_hash: bytes) -> CodeType | None:
    """The code in a cached pyc, or None if it is stale, truncated, garbage or not a hash-checked pyc."""
    if (
        len(data) <= _HEADER_SIZE
        or data[:4] != importlib.util.MAGIC_NUMBER
        or data[4:8] != FLAGS
        or data[8:16] != source_hash
    ):
        return None
    try:
        code = marshal.loads(memoryview(data)[_HEADER_SIZE:])
    except Exception:  # EOFError, ValueError, TypeError: whatever a damaged file makes marshal raise
        return None
    return code if isinstance(code, CodeType) else None


def load(pyc: str, source_hash: bytes, source_path: str) -> CodeType | None:
    """The cached code for this exact source, or None; ``co_filename`` follows a moved file."""
    try:
        with open(pyc, "rb") as file:
            data = file.read()
    except OSError:
        return None
    code = unpack(data, source_hash)
    if code is not None and code.co_filename != source_path:
        _fix_co_filename(code, source_path)
    return code


def store(pyc: str, code: CodeType, source_hash: bytes, source_path: str) -> bool:
    """Write the pyc atomically (temp file in the same folder, then os.replace); False on any OSError.

    Respects ``sys.dont_write_bytecode``. Read-only or impossible folders are not an error: the
    import goes on uncached, as a plain import does in the same situation.
    """
    if sys.dont_write_bytecode:
        return False
    try:
        mode = (os.stat(source_path).st_mode | 0o200) & 0o666  # what importlib gives a pyc
    except OSError:
        mode = 0o666
    data = pack(code, source_hash)
    tmp = f"{pyc}.{os.getpid()}-{_thread.get_ident()}.tmp"
    try:
        os.makedirs(os.path.dirname(pyc), exist_ok=True)
        _remove(tmp)  # a leftover from a crashed process that had our pid
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            with open(fd, "wb") as file:
                file.write(data)
            os.replace(tmp, pyc)
        except BaseException:
            _remove(tmp)
            raise
    except OSError:
        return False
    return True


def _read(path: str) -> bytes:
    """A whole file with the fewest calls; this runs in every process's first opted-in import."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, os.fstat(fd).st_size + 1)
    finally:
        os.close(fd)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _fix_co_filename(code: CodeType, source_path: str) -> None:
    """Point a cached code object (and its nested ones) at where the source is now, as importlib does."""
    fix = getattr(_imp, "_fix_co_filename", None)
    if fix is not None:
        fix(code, source_path)
