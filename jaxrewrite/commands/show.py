"""``jaxrewrite show TARGET... [--diff]``: print what the import hook would compile, running nothing.

Each TARGET is a file path or a dotted module name; with several, each text follows a
``==> TARGET <==`` line as ``head`` prints them (a diff names its files in its own headers). Modules are located with the import system's
finders only (no package ``__init__`` is executed), so a package that fails to import can
still be inspected.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import io
import os
import sys
import tokenize
import warnings
from dataclasses import dataclass
from typing import Sequence

from jaxrewrite.commands import colour
from jaxrewrite.commands.files import unified_diff
from jaxrewrite.commands.run import safe_path
from jaxrewrite.commands.check import lint_analysis
from jaxrewrite.engine.header import PRAGMA, Header, why_ignored
from jaxrewrite.engine.rewrite import rewritten
from jaxrewrite.errors import RewriteError


class TargetError(Exception):
    """TARGET names no readable Python source; the message is one line for stderr."""


@dataclass(frozen=True)
class Target:
    """A located source file: ``path`` to read, ``display`` for messages and diff headers."""

    path: str
    display: str


def search_path(sys_path: Sequence[str], cwd: str, safe: bool) -> list[str]:
    """The top-level search path ``python -m`` would use: the cwd replaces our own sys.path[0]."""
    if safe:
        return list(sys_path)
    return [cwd, *sys_path[1:]]


def display_name(path: str, cwd: str) -> str:
    """A path relative to the cwd when it lies below it (as compilers print), else absolute."""
    if not os.path.isabs(path):
        return os.path.normpath(path)
    rel = os.path.relpath(path, cwd)
    return path if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel


def is_module_name(target: str) -> bool:
    return all(part.isidentifier() for part in target.split("."))


def locate(target: str, cwd: str, path: Sequence[str], meta_path: Sequence[object]) -> Target:
    """Resolve TARGET to a source file without importing (so without executing) anything."""
    if os.path.isfile(target) or target.endswith(".py") or os.sep in target or not is_module_name(target):
        if not os.path.isfile(target):
            why = "Is a directory" if os.path.isdir(target) else "No such file or directory"
            raise TargetError(f"can't open file {target!r}: {why}")
        return Target(target, display_name(target, cwd))
    origin = _source_file(find_spec(target, path, meta_path), target)
    return Target(origin, display_name(origin, cwd))


def find_spec(name: str, path: Sequence[str], meta_path: Sequence[object]) -> importlib.machinery.ModuleSpec:
    """Like ``importlib.util.find_spec`` but parents are looked up, never imported."""
    parts = name.split(".")
    spec = _find_top(parts[0], path, meta_path)
    if spec is None:
        raise TargetError(f"no such file or module: {name!r}")
    locations = _locations(spec, [os.path.join(entry or os.curdir, parts[0]) for entry in path])
    for depth in range(1, len(parts)):
        if locations is None:
            parent = ".".join(parts[:depth])
            raise TargetError(f"no such module: {name!r} ({parent!r} is not a package)")
        # Looked up by its last part alone: for a namespace child, the full dotted name would make
        # importlib read the (never imported) parent from sys.modules.
        child = importlib.machinery.PathFinder.find_spec(parts[depth], locations)
        if child is None:
            raise TargetError(f"no such file or module: {name!r}")
        spec = child
        locations = _locations(spec, [os.path.join(location, parts[depth]) for location in locations])
    return spec


def _locations(spec: importlib.machinery.ModuleSpec, namespace: list[str]) -> list[str] | None:
    """Where a package's submodules are searched, without importing it.

    A namespace package's ``submodule_search_locations`` recomputes itself from its *imported*
    parent (``sys.modules``), which ``show`` never imports: its folders are the parent's
    locations joined with its name instead, as PEP 420 defines them.
    """
    if spec.submodule_search_locations is None:
        return None
    if spec.origin is None or spec.origin == "namespace":  # PEP 420: no __init__ file
        return [folder for folder in namespace if os.path.isdir(folder)]
    return list(spec.submodule_search_locations)


def _find_top(
    name: str, path: Sequence[str], meta_path: Sequence[object]
) -> importlib.machinery.ModuleSpec | None:
    """Ask the meta path finders in order, the path finder with ``path`` (cwd first, as -m)."""
    for finder in meta_path:
        if finder is importlib.machinery.PathFinder:
            spec = importlib.machinery.PathFinder.find_spec(name, list(path))
        else:
            find = getattr(finder, "find_spec", None)
            spec = find(name, None) if find is not None else None
        if spec is not None:
            assert isinstance(spec, importlib.machinery.ModuleSpec)
            return spec
    return None


def _source_file(spec: importlib.machinery.ModuleSpec, name: str) -> str:
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


def render(original: str, rewritten: str, display: str, diff: bool) -> str:
    """The text to print: the rewritten source itself, or a unified diff against the original."""
    return unified_diff(original, rewritten, display) if diff else rewritten


def notes(source: str, header: Header, display: str) -> list[str]:
    """Why nothing in the header counts, for stderr (unknown directives are findings of their own)."""
    if header.enabled:
        return []
    out = []
    out.append(f"{display}: note: no '{PRAGMA}' pragma in the module header; the source is unchanged")
    out.extend(
        f"{display}:{line}: note: '{PRAGMA}' here does not count: {why_ignored(source, line)}"
        for line in header.ignored_lines
    )
    return out


def show_all(targets: Sequence[str], diff: bool, prog: str) -> int:
    """Several targets, one after another; the exit status is the highest of theirs."""
    status = 0
    for index, target in enumerate(targets):
        if len(targets) > 1 and not diff:
            _write(f"{chr(10) if index else ''}==> {target} <==\n", "utf-8")
        status = max(status, show(target, diff, prog))
    return status


def show(target: str, diff: bool, prog: str) -> int:
    """The command: 0 shown, 1 the source does not rewrite (error on stderr), 2 no such target."""
    cwd = os.getcwd()
    try:
        found = locate(target, cwd, search_path(sys.path, cwd, safe_path()), sys.meta_path)
        with open(found.path, "rb") as file:
            data = file.read()
    except TargetError as exc:
        print(f"{prog} show: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{prog} show: can't open file {target!r}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
        source = importlib.util.decode_source(data)
        analysis = lint_analysis(source, found.display)  # one analysis: findings, ledger, JR006, rewrite
        paint = colour.paint if colour.wanted(sys.stderr) else None
        for finding in analysis.diagnostics:
            # Without the pragma the hook leaves the module alone: refusals are notes, as the rest.
            if not finding.is_error or not analysis.header.enabled:
                print(finding.format("text", paint), file=sys.stderr)
        if analysis.header.enabled:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # printed above, once, with their codes
                text = rewritten(analysis)
        else:
            text = source
    except RewriteError:
        for finding in analysis.errors:  # every refusal, in source order; the hook raises the first
            print(finding.format("text", paint), file=sys.stderr)
        return 1
    except SyntaxError as exc:
        where = "".join(f"{n}:" for n in (exc.lineno, exc.offset) if n is not None)
        print(f"{exc.filename or found.display}:{where} {type(exc).__name__}: {exc.msg}", file=sys.stderr)
        return 1
    except UnicodeDecodeError as exc:
        print(f"{found.display}: SyntaxError: can't decode the source: {exc}", file=sys.stderr)
        return 1
    for note in notes(source, analysis.header, found.display):
        print(note, file=sys.stderr)
    # A diff is not a Python file: no byte order mark in front of it.
    _write(render(source, text, found.display, diff), "utf-8" if diff and encoding == "utf-8-sig" else encoding)
    return 0


def _write(text: str, encoding: str) -> None:
    """Bytes in the file's own encoding: exactly the text, no newline translation or extra newline."""
    out = getattr(sys.stdout, "buffer", None)
    if out is None:  # a text-only stream (in-process callers)
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    out.write(text.encode(encoding))
    out.flush()
