"""``jaxrewrite compile PATH... | -m PACKAGE``: the hook's cache written ahead, like compileall.

Why: the hook caches each rewritten module beside its source, but a process that cannot write
there (a system site-packages, a container image built as root and run as a user) finds no cache
and rewrites the module again at every import, paying the cold cost each time. Run once where
the files can be written (right after ``pip install``, in the image build), this writes exactly
the pycs the hook looks for: the same pipeline, rewriter hash and optimisation levels, so the
hook's rules still decide whether one is used (a stale one, or one written by another jaxrewrite,
never is). Only modules that opt in get one; every other module keeps Python's own pyc.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from types import CodeType

from jaxrewrite.commands import safe_path
from jaxrewrite.commands.files import SourceError, cannot_open, decode, python_files, universal
from jaxrewrite.commands.targets import (
    TargetError,
    display_name,
    find_spec,
    search_path,
)
from jaxrewrite.errors import TOO_DEEP, too_deep
from jaxrewrite.header import PRAGMA, scan_header
from jaxrewrite.hook import cachetag, pipeline, pycfile

LEVELS = (0, 1, 2)


@dataclass(frozen=True)
class Outcome:
    path: str
    status: str  # "wrote", "skipped" or "failed"
    detail: str = ""

    def line(self) -> str:
        return f"{self.status:8} {self.path}{self.detail}"


def compile_file(path: str, levels: Sequence[int], shown: str, mode: str | None) -> Outcome:
    """Rewrite and compile one file once per optimisation level, storing each where the hook reads
    it, as the hook's own pipeline would; ``mode``: ``timestamp`` or ``checked-hash`` (None: as
    ``py_compile`` decides)."""
    origin = os.path.abspath(path)  # what the importing process's spec.origin will say
    steps = pipeline.DEFAULT
    try:
        st = os.stat(origin)  # before the read: an edit after it makes the pyc stale, never wrong
        with open(origin, "rb") as file:
            data = file.read()
        header = scan_header(universal(decode(data, shown)[0]))
    except OSError as exc:
        return Outcome(shown, "failed", cannot_open(shown, exc)[len(shown) :])
    except SourceError as exc:  # the words every command uses (commands.files)
        return Outcome(shown, "failed", exc.located)
    if not header.enabled:
        return Outcome(shown, "skipped", f": no '{PRAGMA}' in its header")
    if mode is None:
        key = pycfile.key_for(st, data)
    else:
        key = pycfile.hash_key(data) if mode == "checked-hash" else pycfile.stat_key(st)
    for level in levels:
        pyc = cachetag.cache_path(origin, level, steps.name)
        if pyc is None:
            return Outcome(shown, "failed", ": this Python keeps no bytecode cache (no cache tag)")
        try:
            code = steps.compile(data, origin, level, header)
        except (SyntaxError, *TOO_DEEP) as caught:  # RewriteError included: located, with its code
            err = (
                caught
                if isinstance(caught, SyntaxError)
                else too_deep(caught, importlib.util.decode_source(data), origin)
            )
            where = ":".join(str(n) for n in (err.lineno, err.offset) if n is not None)
            code_word = getattr(err, "code", None) or type(err).__name__
            message = getattr(err, "message", err.msg)
            return Outcome(
                shown, "failed", f"{':' + where if where else ''}: {code_word} {message}"
            )
        if not _store(pyc, code, key, origin):
            return Outcome(shown, "failed", f": cannot write {pyc}")
    return Outcome(shown, "wrote", f" (optimisation {', '.join(map(str, levels))})")


def _store(pyc: str, code: CodeType, key: bytes, origin: str) -> bool:
    """``pycfile.store``, even under ``-B``/PYTHONDONTWRITEBYTECODE: those govern what imports
    write, and this command exists to write (as ``py_compile`` does)."""
    saved = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return pycfile.store(pyc, code, key, origin)
    finally:
        sys.dont_write_bytecode = saved


def package_files(name: str) -> list[str]:
    """The source files of a module or package found on the import path, without importing it
    (so without running its ``__init__``, which may install the hook)."""
    cwd = os.getcwd()
    spec = find_spec(name, search_path(sys.path, cwd, safe_path()), sys.meta_path)
    origin = spec.origin
    if spec.submodule_search_locations is None:
        if origin is None or not origin.endswith(".py"):
            raise TargetError(f"{name!r} has no Python source file (found {origin or 'no file'})")
        return [origin]
    if origin is not None and origin.endswith(".py"):  # a regular package: its __init__'s folder
        return list(python_files([os.path.dirname(origin)]))
    try:  # a namespace package: its folders (a nested one reads them from its imported parent)
        folders = list(spec.submodule_search_locations)
    except (KeyError, AttributeError):
        folders = []
    if not folders:
        raise TargetError(
            f"cannot list the folders of namespace package {name!r}; give them as PATHs"
        )
    return list(python_files(folders))


def _levels(text: str) -> list[int]:
    try:
        levels = [int(part) for part in text.split(",")]
    except ValueError:
        levels = []
    if not levels or any(level not in LEVELS for level in levels):
        raise argparse.ArgumentTypeError(f"expected 0, 1 or 2 (or several, as 0,1,2), not {text!r}")
    return levels


def parser(prog: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog=f"{prog} compile",
        description=(
            "Write jaxrewrite's cache for every opted-in module ahead of time, like python -m "
            "compileall, so that imports need not rewrite (or write) anything: for read-only "
            "installs."
        ),
        epilog="Exit status: 0 every file written or skipped, 1 a file failed, 2 a usage error or "
        "a PATH/PACKAGE not found.",
    )
    ap.add_argument(
        "paths", nargs="*", metavar="PATH", help="a .py file, or a folder searched for .py files"
    )
    ap.add_argument(
        "-m",
        dest="modules",
        action="append",
        default=[],
        metavar="PACKAGE",
        help="a module or package found on the import path (not imported); may be repeated",
    )
    ap.add_argument(
        "-O",
        "--optimize",
        dest="levels",
        type=_levels,
        action="append",
        metavar="LEVEL",
        help=(
            "an optimisation level to write for: 0, 1 or 2 (python, -O, -OO); repeat it or give "
            f"several as 0,1,2 (default: this interpreter's, now {sys.flags.optimize})"
        ),
    )
    ap.add_argument(
        "--invalidation-mode",
        choices=("timestamp", "checked-hash"),
        help="how an import checks each pyc against its source: its mtime and size, or the hash "
        "of its bytes (default: timestamp, or checked-hash where SOURCE_DATE_EPOCH is set, "
        "as py_compile)",
    )
    ap.add_argument("-q", "--quiet", action="store_true", help="print failures only")
    return ap


def targets(paths: Sequence[str], modules: Sequence[str], prog: str) -> tuple[list[str], bool]:
    """Every file to look at, each once, and whether a PATH or PACKAGE named nothing."""
    found: list[str] = []
    missing = False
    for path in paths:
        if not os.path.exists(path):
            print(f"{prog} compile: {path}: no such file or folder", file=sys.stderr)
            missing = True
    found.extend(python_files([path for path in paths if os.path.exists(path)]))
    for name in modules:
        try:
            found.extend(package_files(name))
        except TargetError as exc:
            print(f"{prog} compile: -m {name}: {exc}", file=sys.stderr)
            missing = True
    unique: dict[str, str] = {}
    for path in found:
        unique.setdefault(os.path.realpath(path), path)
    return list(unique.values()), missing


def run(
    paths: Sequence[str],
    modules: Sequence[str],
    levels: Sequence[int],
    quiet: bool,
    prog: str,
    mode: str | None = None,
) -> int:
    files, missing = targets(paths, modules, prog)
    counts = {"wrote": 0, "skipped": 0, "failed": 0}
    cwd = os.getcwd()
    for path in files:
        outcome = compile_file(path, levels, display_name(path, cwd), mode)
        counts[outcome.status] += 1
        if not quiet or outcome.status == "failed":
            print(outcome.line())
    if not quiet:
        print(
            f"{prog} compile: {counts['wrote']} written, {counts['skipped']} skipped, "
            f"{counts['failed']} failed"
        )
    if missing:
        return 2
    return 1 if counts["failed"] else 0


def main(argv: list[str], prog: str) -> int:
    try:
        ns = parser(prog).parse_args(argv)
    except SystemExit as exc:  # argparse printed its help or its error
        return exc.code if isinstance(exc.code, int) else 2
    if not ns.paths and not ns.modules:
        print(f"{prog} compile: give a PATH or -m PACKAGE", file=sys.stderr)
        return 2
    levels = (
        sorted({level for group in ns.levels for level in group})
        if ns.levels
        else [sys.flags.optimize]
    )
    return run(ns.paths, ns.modules, levels, ns.quiet, prog, ns.invalidation_mode)
