"""Where a target is, found without importing anything: a file path or a dotted module name (for
``show`` and ``compile``), or a module a file imports (for the ledger's JR009 and JR013).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import PathFinder

from jaxrewrite.commands import safe_path

#: One module an analysis read: (module, level, the file it resolved to or None, its SHA-256 or
#: None), for check's cache.
Read = tuple[str, int, str | None, str | None]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class TargetError(Exception):
    """TARGET names no readable Python source; the message is one line for stderr."""


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
        if not os.path.isfile(target):
            why = (
                "is a folder, not a Python file"
                if os.path.isdir(target)
                else "no such file or folder"
            )
            raise TargetError(f"{target}: {why}")  # the words of commands.files.cannot_open
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
