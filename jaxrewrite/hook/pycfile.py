"""The hook's pycs: CPython's format, checked as CPython checks its own, warnings after the code.

The header is PEP 552's: the source's mtime and size, or, where the user chose it
(``SOURCE_DATE_EPOCH``, ``compile --invalidation-mode checked-hash``), the hash of its bytes.
After the code: the module's warnings (hook/pipeline.py), their length and a mark. Writes are
atomic; every failure means "no cache", never an import error (``JAXREWRITE_DEBUG=1``: why).
"""

from __future__ import annotations

import _imp
import _thread
import importlib.util
import io
import marshal
import os
import sys
from collections.abc import Callable
from types import CodeType

from jaxrewrite.hook import pipeline

MAGIC = importlib.util.MAGIC_NUMBER
#: PEP 552 flags: 0 validates by mtime and size; 3 by the source's hash, always checked.
TIMESTAMP = b"\x00\x00\x00\x00"
CHECKED = b"\x03\x00\x00\x00"
_MARK = b"JRn1"
DEBUG = os.environ.get("JAXREWRITE_DEBUG", "") not in ("", "0")


def trace(message: str) -> None:
    """Say why the cache was not used (with ``DEBUG``); never raises."""
    if DEBUG:
        try:
            sys.stderr.write(f"jaxrewrite: {message}\n")
        except Exception:  # a closed or missing stderr must not fail an import
            pass


def stat_key(st: os.stat_result) -> bytes:
    """The header's validation part for a source with this stat, as CPython writes it."""
    return (
        TIMESTAMP
        + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
        + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    )


def hash_key(data: bytes) -> bytes:
    """The header's validation part for a checked hash-based pyc of these source bytes."""
    return CHECKED + importlib.util.source_hash(data)


def key_for(st: os.stat_result, data: bytes) -> bytes:
    """What a pyc written now is keyed by: the hash where ``SOURCE_DATE_EPOCH`` asks for
    reproducible files (as ``py_compile`` does), else the stat."""
    return hash_key(data) if os.environ.get("SOURCE_DATE_EPOCH") else stat_key(st)


def pack(code: CodeType, key: bytes) -> bytes:
    """A pyc of ``code`` keyed by ``key`` (``stat_key``/``hash_key``), its warnings after it."""
    said = marshal.dumps(pipeline.held(code))
    return MAGIC + key + marshal.dumps(code) + said + len(said).to_bytes(4, "little") + _MARK


def unpack(data: bytes) -> CodeType | None:
    """The code of a pyc whose header is checked, its warnings held beside it; None where it is
    damaged or not the hook's."""
    if len(data) <= 24 or data[-4:] != _MARK:
        return None
    size = int.from_bytes(data[-8:-4], "little")
    end = len(data) - 8 - size
    try:
        said = marshal.loads(data[end:-8]) if end > 16 else None
        code = marshal.loads(memoryview(data)[16:end]) if said is not None else None
    except Exception:  # EOFError, ValueError, TypeError: whatever damage makes marshal raise
        return None
    if not (isinstance(code, CodeType) and isinstance(said, tuple)) or not all(
        type(n) is tuple and len(n) == 2 and (type(n[0]), type(n[1])) == (str, int) for n in said
    ):
        return None
    return pipeline.keep(code, said)


def load(pyc: str, path: str, st: os.stat_result, source: Callable[[], bytes]) -> CodeType | None:
    """The cached code of ``path`` (``source`` reads its bytes, for a hash-checked pyc), or None;
    ``co_filename`` follows a moved file, as importlib's does."""
    try:
        with io.open_code(pyc) as file:  # as importlib reads pycs: an open-code hook sees it
            data = file.read()
    except OSError as err:
        if DEBUG and not isinstance(err, FileNotFoundError):  # none yet: every plain module's case
            trace(f"pyc not read for {path}: {err.strerror or err} ({pyc})")
        return None
    flags = data[4:8]
    if data[:4] != MAGIC:
        why = "another Python's magic number"
    elif flags == TIMESTAMP:
        why = "" if data[4:16] == stat_key(st) else "stale: the source's mtime or size changed"
    elif flags == CHECKED:
        why = "" if data[4:16] == hash_key(source()) else "stale: written for other source bytes"
    else:
        why = "not a pyc of the hook's"
    code = None if why else unpack(data)
    if code is None:
        trace(f"pyc not used for {path}: {why or 'damaged'} ({pyc})")
        return None
    if code.co_filename != path:
        _imp._fix_co_filename(code, path)  # type: ignore[attr-defined]
    return code


def store(pyc: str, code: CodeType, key: bytes, path: str) -> bool:
    """Write the pyc (not under ``sys.dont_write_bytecode``); False where it could not be."""
    if sys.dont_write_bytecode:
        trace(f"pyc not written for {path}: sys.dont_write_bytecode is set")
        return False
    try:
        mode = (os.stat(path).st_mode | 0o200) & 0o666  # what importlib gives a pyc
    except OSError:
        mode = 0o666
    tmp = f"{pyc}.{os.getpid()}-{_thread.get_ident()}.tmp"
    try:
        os.makedirs(os.path.dirname(pyc), exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), mode)
        try:
            with open(fd, "wb") as file:
                file.write(pack(code, key))
            os.replace(tmp, pyc)
        except BaseException:
            os.unlink(tmp)  # an OSError here is reported as the write's below
            raise
    except OSError as err:
        trace(f"pyc not written for {path}: {err.strerror or err} ({pyc})")
        return False
    return True
