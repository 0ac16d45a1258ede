"""Reading and writing the hook's pycs: hash-checked (PEP 552), written atomically, failures traced.

Why hash-checked rather than mtime: an edit that keeps size and second is seen. Why atomic
writes: concurrent processes importing the same module must never see half a file. Every failure
here (read-only folder, garbage file) means "no cache", never an import error; with
``JAXREWRITE_DEBUG=1`` in the environment each one says why on stderr (``trace``), as pytest's
``state.trace`` does for its assertion-rewriting pycs. Where a pyc lives (its tag) is hook/tag.py's.
"""

from __future__ import annotations

import _imp
import _thread
import errno
import importlib.util
import io
import marshal
import os
import sys
from types import CodeType
from typing import TypeGuard

from jaxrewrite.errors import Notes
from jaxrewrite.hook import notes

#: PEP 552 flags: hash-based (bit 0), always checked against the source (bit 1).
FLAGS = b"\x03\x00\x00\x00"
_HEADER_SIZE = 16

#: ``JAXREWRITE_DEBUG`` set (to anything but "" or "0"): ``trace`` prints to stderr.
DEBUG = os.environ.get("JAXREWRITE_DEBUG", "") not in ("", "0")


def trace(message: str) -> None:
    """Say why the cache was not used (with ``DEBUG``); never raises."""
    if DEBUG:
        try:
            sys.stderr.write(f"jaxrewrite: {message}\n")
        except Exception:  # a closed or missing stderr must not fail an import
            pass


#: The end of each of the hook's pycs: after the code, the module's warnings (hook/notes.py),
#: their length (4 bytes, little-endian), then this mark. ``marshal.loads`` of the code ignores
#: what follows it, so the code reads as in any pyc.
_NOTES_MARK = b"JRn1"
_FOOTER_SIZE = 8


def pack(code: CodeType, source_hash: bytes) -> bytes:
    """The bytes of a hash-checked pyc for ``code``, with the warnings held beside it."""
    return importlib.util.MAGIC_NUMBER + FLAGS + source_hash + marshal.dumps(code) + footer(notes.held(code))


def footer(said: Notes) -> bytes:
    """What follows the code in a pyc of the hook's (or of another tool's loader, for the
    rewrite: hook/compose.py): the warnings, their length, the mark."""
    data = marshal.dumps(said)
    return data + len(data).to_bytes(4, "little") + _NOTES_MARK


def read_footer(data: bytes | memoryview) -> tuple[Notes, int] | None:
    """The warnings after the code, and where the code ends; None where there is no footer or
    it is damaged."""
    if len(data) < _FOOTER_SIZE or data[-4:] != _NOTES_MARK:
        return None
    size = int.from_bytes(data[-8:-4], "little")
    end = len(data) - _FOOTER_SIZE - size
    if size <= 0 or end < _HEADER_SIZE:
        return None
    try:
        said = marshal.loads(data[end : len(data) - _FOOTER_SIZE])
    except Exception:  # EOFError, ValueError, TypeError: whatever a damaged file makes marshal raise
        return None
    return (said, end) if _are_notes(said) else None


def unpack(data: bytes, source_hash: bytes) -> CodeType | None:
    """The code in a cached pyc, its warnings held beside it (hook/notes.py), or None if it is
    stale, truncated, garbage or not one of the hook's hash-checked pycs."""
    if (
        len(data) <= _HEADER_SIZE + _FOOTER_SIZE
        or data[:4] != importlib.util.MAGIC_NUMBER
        or data[4:8] != FLAGS
        or data[8:16] != source_hash
    ):
        return None
    view = memoryview(data)
    found = read_footer(view)
    if found is None:
        return None
    said, end = found
    try:
        code = marshal.loads(view[_HEADER_SIZE:end])
    except Exception:  # EOFError, ValueError, TypeError: whatever a damaged file makes marshal raise
        return None
    return notes.keep(code, said) if isinstance(code, CodeType) else None


def _are_notes(value: object) -> TypeGuard[Notes]:
    return isinstance(value, tuple) and all(
        isinstance(n, tuple) and len(n) == 2 and isinstance(n[0], str) and isinstance(n[1], int) for n in value
    )


def _rejected(data: bytes, source_hash: bytes) -> str:
    """Why ``unpack`` gave None for ``data`` (for ``trace`` only: never on the fast path)."""
    if len(data) <= _HEADER_SIZE:
        return f"truncated ({len(data)} bytes)"
    if data[:4] != importlib.util.MAGIC_NUMBER:
        return "another Python's magic number"
    if data[4:8] != FLAGS:
        return "not a checked hash-based pyc"
    if data[8:16] != source_hash:
        return "stale: written for other source bytes"
    if data[-4:] != _NOTES_MARK:
        return "no warnings after the code (not written by this hook)"
    return "damaged code or warnings"


def load(pyc: str, source_hash: bytes, source_path: str) -> CodeType | None:
    """The cached code for this exact source, or None; ``co_filename`` follows a moved file."""
    data = read(pyc, source_path)
    return None if data is None else code_of(data, source_hash, pyc, source_path)


def read(pyc: str, source_path: str, say_why: bool = True) -> bytes | None:
    """The bytes of the pyc at ``pyc``, or None where there is none (traced unless not
    ``say_why``). Read with ``io.open_code``, as importlib reads the pycs it runs, so an
    embedder's open-code hook sees the code that will run."""
    try:
        with io.open_code(pyc) as file:
            return file.read()
    except OSError as err:
        if DEBUG and say_why:
            trace(f"pyc not read for {source_path}: {err.strerror or err} ({pyc})")
        return None


def code_of(data: bytes, source_hash: bytes, pyc: str, source_path: str) -> CodeType | None:
    """The code in the pyc bytes ``data`` (read from ``pyc``) if they were written for the
    source whose hash is ``source_hash``, else None (traced)."""
    code = unpack(data, source_hash)
    if code is None:
        if DEBUG:
            trace(f"pyc not used for {source_path}: {_rejected(data, source_hash)} ({pyc})")
        return None
    if code.co_filename != source_path:
        _fix_co_filename(code, source_path)
    return code


def discard(pyc: str, source_path: str) -> None:
    """Remove the hook's pyc for a source whose bytes no longer opt in: it can never be used for
    them again, and while it lies there the finder reads that source to learn so (hook/finder.py's
    ``_from_cache``). Like ``store``, never under ``sys.dont_write_bytecode``, never an error; a
    pyc another process wrote meanwhile for bytes that opt in again costs only a rewrite."""
    if sys.dont_write_bytecode:
        return
    try:
        os.unlink(pyc)
    except OSError as err:
        if DEBUG:
            trace(f"stale pyc not removed for {source_path}: {err.strerror or err} ({pyc})")
        return
    if DEBUG:
        trace(f"stale pyc removed for {source_path}: its bytes no longer opt in ({pyc})")


def store(pyc: str, code: CodeType, source_hash: bytes, source_path: str) -> bool:
    """Write the pyc atomically (temp file in the same folder, then os.replace); False on any OSError.

    Respects ``sys.dont_write_bytecode``. Read-only or impossible folders are not an error: the
    import goes on uncached, as a plain import does in the same situation.
    """
    if sys.dont_write_bytecode:
        if DEBUG:
            trace(f"pyc not written for {source_path}: sys.dont_write_bytecode is set ({pyc})")
        return False
    try:
        mode = (os.stat(source_path).st_mode | 0o200) & 0o666  # what importlib gives a pyc
    except OSError:
        mode = 0o666
    write_deferred()
    return write_atomic(pyc, pack(code, source_hash), mode)


#: Files held back while bytecode could not be written, path -> bytes (the digest memo of
#: hook/tag.py): written by the next ``store`` that may write (``jaxrewrite compile`` under
#: PYTHONDONTWRITEBYTECODE, say).
_deferred: dict[str, bytes] = {}


def defer(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` now if bytecode may be written, else with the next ``store``."""
    _deferred[path] = data
    write_deferred()


def write_deferred() -> None:
    """Write what ``defer`` held back, if bytecode may be written now; failures are traced only."""
    if sys.dont_write_bytecode:
        return
    while _deferred:
        path, data = _deferred.popitem()
        write_atomic(path, data, 0o666)


#: Folders a write was refused in (permissions, a read-only file system, no space): tried once
#: per process, not once per module (a root-owned install imports many from one folder).
_refused: set[str] = set()
_REFUSALS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})


def write_atomic(path: str, data: bytes, mode: int, make_folder: bool = True) -> bool:
    """Write ``data`` to ``path`` through a temp file in the same folder and ``os.replace``, so a
    reader sees the old file or the new one, never half of one; False on any OSError (and, with
    ``make_folder`` false, when the folder does not exist). A folder that refused a write is not
    tried again by this process."""
    folder = os.path.dirname(path)
    if folder in _refused:
        if DEBUG:
            trace(f"not tried: {path}: its folder refused a write earlier in this process")
        return False
    tmp = f"{path}.{os.getpid()}-{_thread.get_ident()}.tmp"
    try:
        if make_folder:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        _remove(tmp)  # a leftover from a crashed process that had our pid
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode)
        try:
            with open(fd, "wb") as file:
                file.write(data)
            os.replace(tmp, path)
        except BaseException:
            _remove(tmp)
            raise
    except OSError as err:
        if err.errno in _REFUSALS:
            _refused.add(folder)
        if DEBUG and (make_folder or not isinstance(err, FileNotFoundError)):  # no folder: by design
            trace(f"not written: {path}: {err.strerror or err}")
        return False
    return True


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
