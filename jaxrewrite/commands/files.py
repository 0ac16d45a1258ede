"""The file edge the commands share: one folder walk (hidden folders, ``__pycache__``,
``node_modules`` and virtual environments skipped; ``--exclude`` globs as ruff's), decoding as
Python does, an atomic write, source text written out in its own encoding, and where a target is,
found without importing anything: a file path or a dotted module name (``show``, ``compile``), or
a module a file imports (the ledger's JR009 and JR013).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import io
import os
import re
import sys
import tempfile
import tokenize
from collections.abc import Callable, Iterable, Iterator, Sequence
from importlib.machinery import PathFinder
from typing import TextIO

from jaxrewrite.commands import safe_path
from jaxrewrite.engine.read.source import (
    unified_diff as unified_diff,  # the commands' one diff, defined with the text
)


def python_files(paths: Iterable[str], exclude: Sequence[tuple[str, str]] = ()) -> Iterator[str]:
    """Each non-folder path as given (the caller reports a missing one), and every
    ``.py`` file below each folder; ``exclude``: ``(pattern, root)`` pairs."""
    from jaxrewrite.config import matches

    def excluded(path: str) -> bool:
        return any(matches(pattern, path, root) for pattern, root in exclude)

    def skipped(folder: str) -> bool:  # hidden, caches, virtual environments
        name = os.path.basename(folder)
        hidden = name.startswith(".") or name in ("__pycache__", "node_modules")
        return hidden or excluded(folder) or os.path.isfile(os.path.join(folder, "pyvenv.cfg"))

    for path in paths:
        if not os.path.isdir(path):
            yield path
            continue
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not skipped(os.path.join(folder, d)))
            for name in sorted(files):
                if name.endswith(".py") and not excluded(os.path.join(folder, name)):
                    yield os.path.join(folder, name)


class TargetError(Exception):
    """TARGET names no readable Python source; the message is one line for stderr."""


class SourceError(ValueError):
    """Bytes that are no Python source, located in the same words by every command."""

    def __init__(self, path: str, data: bytes, at: int, why: str) -> None:
        self.line = data.count(b"\n", 0, at) + 1
        self.column = at - (data.rfind(b"\n", 0, at) + 1) + 1
        #: The message after the file's name, as ``compile``'s report line writes it.
        self.located = f":{self.line}:{self.column}: cannot read it as Python source: {why}"
        super().__init__(path + self.located)


def decode(data: bytes, path: str = "<unknown>") -> tuple[str, str]:
    """(text, encoding) as Python reads the file (PEP 263); SourceError where it cannot."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise SourceError(path, data, nul, "it holds a NUL byte (a binary file?)")
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError as exc:  # an unknown encoding, a BOM with another one, bad bytes in line 1-2
        head = b"".join(io.BytesIO(data).readlines()[:2])
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as bad:
            raise _undecodable(path, data, bad, "utf-8") from None
        cookie = next((m.start() for m in re.finditer(rb"coding[:=]", head)), 0)
        raise SourceError(path, data, data.rfind(b"\n", 0, cookie) + 1, str(exc.msg)) from None
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as exc:
        raise _undecodable(path, data, exc, encoding) from None


def _undecodable(path: str, data: bytes, exc: UnicodeDecodeError, encoding: str) -> SourceError:
    return SourceError(
        path, data, exc.start, f"byte {data[exc.start]:#04x} is not {encoding}: {exc.reason}"
    )


def universal(text: str) -> str:
    """The text with its line endings as ``importlib.util.decode_source`` gives them (``\\n``)."""
    return (
        io.IncrementalNewlineDecoder(None, True).decode(text, final=True) if "\r" in text else text
    )


def cannot_open(path: str, exc: OSError | SourceError | TargetError) -> str:
    """Why a path could not be read as Python source, the same words in every command."""
    if isinstance(exc, (SourceError, TargetError)):
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return f"{path}: no such file or folder"
    if isinstance(exc, IsADirectoryError):
        return f"{path}: is a folder, not a Python file"
    return f"{path}: cannot read it: {exc.strerror or exc}"


def write_atomically(path: str, data: bytes, durable: bool = True) -> None:
    """Replace ``path`` by ``data`` in one rename (a link stays a link); ``durable``
    (a user's existing file): flushed to disk and given its permissions first."""
    path = os.path.realpath(path)
    mode = os.stat(path).st_mode & 0o7777 if durable else None
    folder = os.path.dirname(path)
    fd, temporary = tempfile.mkstemp(prefix=".jaxrewrite-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            if mode is not None:
                file.flush()
                os.fsync(file.fileno())
                os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_source(out: TextIO, text: str, encoding: str, *, diff: bool = False) -> None:
    """Text as bytes in the source's own encoding (no BOM on a diff), untranslated,
    so a patch applies and no terminal encoding can fail the command."""
    if diff and encoding == "utf-8-sig":
        encoding = "utf-8"
    buffer = getattr(out, "buffer", None)
    if buffer is None:  # a text-only stream (in-process callers)
        out.write(text)
        return
    out.flush()
    # surrogateescape: a path from the command line that is not valid UTF-8 goes out as its bytes.
    buffer.write(text.encode(encoding, "surrogateescape"))
    buffer.flush()


def terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def coloured(stream: TextIO) -> bool:
    """Colour as CPython and ruff decide it: ``NO_COLOR`` off, else ``FORCE_COLOR`` on, else on a
    terminal (https://no-color.org); machine formats are never coloured."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or terminal(stream)


#: SGR codes of ruff's palette: bold paths, cyan separators, bold red codes, green when clean.
SGR = {"bold": "1", "green": "32", "cyan": "36", "bold red": "1;31"}


def paint(text: str, style: str, on: bool = True) -> str:
    return f"\033[{SGR[style]}m{text}\033[0m" if on else text


#: One module an analysis read: (module, level, the file it resolved to or None, its SHA-256 or
#: None), for check's cache.
Read = tuple[str, int, str | None, str | None]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def display_name(path: str) -> str:
    """A path relative to the cwd when it lies below it (as compilers print), else absolute."""
    if not os.path.isabs(path):
        return os.path.normpath(path)
    rel = os.path.relpath(path)
    return path if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel


def locate(target: str) -> str:
    """The source file TARGET names (a path, or a module ``python -m`` would find)."""
    if (
        os.path.isfile(target)
        or target.endswith(".py")
        or os.sep in target
        or not all(part.isidentifier() for part in target.split("."))
    ):
        if not os.path.isfile(target):  # in cannot_open's words
            folder = os.path.isdir(target)
            why = "is a folder, not a Python file" if folder else "no such file or folder"
            raise TargetError(f"{target}: {why}")
        return target
    return source_file(find_spec(target), target)


def find_spec(name: str, path: Sequence[str] | None = None) -> importlib.machinery.ModuleSpec:
    """Like ``importlib.util.find_spec`` but parents are looked up, never imported; ``path``:
    by default the one ``python -m`` would search (the cwd in place of our own sys.path[0])."""
    if path is None:
        path = list(sys.path) if safe_path() else [os.getcwd(), *sys.path[1:]]
    parts = name.split(".")
    spec: importlib.machinery.ModuleSpec | None = None
    for finder in sys.meta_path:  # in order; the path finder searches ``path``, as -m does
        find = getattr(finder, "find_spec", None)
        spec = find(parts[0], list(path) if finder is PathFinder else None) if find else None
        if spec is not None:
            break
    else:
        raise TargetError(f"no such file or module: {name!r}")
    locations = _locations(spec, [os.path.join(entry or os.curdir, parts[0]) for entry in path])
    for depth in range(1, len(parts)):
        if locations is None:
            parent = ".".join(parts[:depth])
            raise TargetError(f"no such module: {name!r} ({parent!r} is not a package)")
        # Looked up by its last part alone: for a namespace child, the full dotted name would make
        # importlib read the (never imported) parent from sys.modules.
        child = PathFinder.find_spec(parts[depth], locations)
        if child is None:
            raise TargetError(f"no such file or module: {name!r}")
        spec = child
        locations = _locations(
            spec, [os.path.join(location, parts[depth]) for location in locations]
        )
    return spec


def _locations(spec: importlib.machinery.ModuleSpec, namespace: list[str]) -> list[str] | None:
    """Where a package's submodules are searched; a namespace package's are its
    parent's joined with its name (PEP 420): its own would read the imported parent."""
    if spec.submodule_search_locations is None:
        return None
    if spec.origin is None or spec.origin == "namespace":  # PEP 420: no __init__ file
        return [folder for folder in namespace if os.path.isdir(folder)]
    return list(spec.submodule_search_locations)


def source_file(spec: importlib.machinery.ModuleSpec, name: str) -> str:
    origin = spec.origin
    if origin == "frozen":
        # Frozen stdlib modules (3.11+) remember the file they were frozen from.
        origin = getattr(spec.loader_state, "filename", None)
    suffixes = tuple(importlib.machinery.SOURCE_SUFFIXES)
    if origin is None or not origin.endswith(suffixes) or not os.path.isfile(origin):
        namespace = origin is None and spec.submodule_search_locations is not None
        what = "a namespace package" if namespace else origin
        raise TargetError(f"{name!r} has no Python source file (found {what or 'no file'})")
    return origin


def import_reader(
    filename: str, reads: list[Read] | None = None
) -> Callable[[str, int], str | None]:
    """The source of a module a file imports, or None; ``reads``: each lookup, for the cache."""

    def read(module: str, level: int) -> str | None:
        path = locate_import(filename, module, level)
        data = None
        if path is not None:
            try:
                with open(path, "rb") as file:
                    data = file.read()
            except OSError:
                path = None
        if reads is not None:
            reads.append((module, level, path, None if data is None else digest(data)))
        try:
            return None if data is None else importlib.util.decode_source(data)
        except (UnicodeDecodeError, SyntaxError, ValueError):
            return None

    return read


def locate_import(filename: str, module: str, level: int) -> str | None:
    """The file ``module`` (``level`` dots) imported from ``filename`` resolves to."""
    folder = os.path.dirname(os.path.abspath(filename))
    # Where the file's top-level package lives: ``from pkg.types import X`` in pkg/sub/mod.py
    # names a sibling, found there whether or not that folder is on the search path.
    root = folder
    while os.path.isfile(os.path.join(root, "__init__.py")) and os.path.dirname(root) != root:
        root = os.path.dirname(root)
    try:
        if level:
            base = folder
            for _ in range(level - 1):
                base = os.path.dirname(base)
            stem = os.path.join(base, *module.split(".")) if module else base
            candidates = [stem + ".py", os.path.join(stem, "__init__.py")]
            return next((c for c in candidates if os.path.isfile(c)), None)
        if os.path.isfile(filename):
            # Then the ``src`` folders of its parents: a src-layout project checked uninstalled
            # imports its own package from there, as ruff's default ``src = [".", "src"]``.
            parents = [root]
            while os.path.dirname(parents[-1]) != parents[-1]:
                parents.append(os.path.dirname(parents[-1]))
            src = [os.path.join(p, "src") for p in parents if os.path.isdir(os.path.join(p, "src"))]
            search = [folder, root, *sys.path[1:], *src]
            return source_file(find_spec(module, search), module)
        return None
    except (TargetError, OSError, UnicodeDecodeError, SyntaxError, ValueError, ImportError):
        return None
