"""One opted-in module's route from bytes to code, and the hook's pycs of that code.

``Pipeline``: ``rewrite_source``'s text, compiled (the text ``show`` prints is the code that runs);
an integration (pytest's assertion rewriting) replaces the compile step and names itself, so its
pycs are never served to the default pipeline, nor the default's to it. A pyc is CPython's
(PEP 552: the source's mtime and size, or the hash of its bytes where the user chose it), with the
module's RewriteWarnings after the code: a warm import analyses nothing, so they travel with the
code and are issued again whenever cached code is served. Writes are atomic; every failure means
"no cache", never an import error (``JAXREWRITE_DEBUG=1``: why).
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
from dataclasses import dataclass
from types import CodeType
from weakref import WeakKeyDictionary

from jaxrewrite.errors import Notes
from jaxrewrite.header import Header

#: Code objects compare by content, not by file: equal code comes from equal text, whose notes
#: are equal too (the file they name is the caller's to give).
_HELD: WeakKeyDictionary[CodeType, Notes] = WeakKeyDictionary()


def keep(code: CodeType, notes: Notes) -> CodeType:
    """Hold ``notes`` beside ``code`` (nothing where there are none); gives back ``code``. The
    table is looked at only when it holds something: a code object hashes by its content."""
    if notes:
        _HELD[code] = notes
    elif _HELD:
        _HELD.pop(code, None)
    return code


def held(code: CodeType) -> Notes:
    return _HELD.get(code, ()) if _HELD else ()


def _compile(text: str, path: str, optimize: int) -> CodeType:
    return compile(text, path, "exec", dont_inherit=True, optimize=optimize)


def rewrite_text(text: str, path: str, header: Header | None = None) -> tuple[str, Notes]:
    """The rewritten text and the warnings issued on the way (the markers that do nothing)."""
    from jaxrewrite.engine.rewrite import rewrite_with_notes  # the engine: on a cache miss only

    return rewrite_with_notes(text, path, header=header, report=True)


@dataclass(frozen=True)
class Pipeline:
    """``source bytes -> code`` for one opted-in module."""

    #: What the steps beyond the default are (part of the cache file name: letters and digits).
    name: str = ""
    #: text, filename, optimisation level -> code.
    to_code: Callable[[str, str, int], CodeType] = _compile

    def compile(
        self, data: bytes, path: str, optimize: int, header: Header | None = None
    ) -> CodeType:
        """Decode as Python does (PEP 263), rewrite, compile; the warnings held with the code."""
        rewritten, said = rewrite_text(importlib.util.decode_source(data), path, header)
        return keep(self.to_code(rewritten, path, optimize), said)


DEFAULT = Pipeline()


def compile_source(data: bytes, path: str, optimize: int = -1) -> CodeType:
    """What the hook and runner execute for an opted-in file, at optimisation level ``optimize``."""
    return DEFAULT.compile(data, path, optimize)


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
    said = marshal.dumps(held(code))
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
    return keep(code, said)


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
