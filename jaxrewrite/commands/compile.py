"""``jaxrewrite compile PATH... | -m PACKAGE``: the hook's cache written ahead, like compileall,
for installs the importing process cannot write to. The same pipeline, rewriter hash and
optimisation levels as the hook, so the hook's own rules decide whether a pyc is used.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from collections.abc import Sequence

from jaxrewrite.commands.files import (
    SourceError,
    TargetError,
    cannot_open,
    decode,
    display_name,
    find_spec,
    python_files,
    universal,
)
from jaxrewrite.errors import TOO_DEEP, too_deep
from jaxrewrite.header import PRAGMA, scan_header
from jaxrewrite.hook import cachetag, pycfile


def compile_file(path: str, levels: Sequence[int], mode: str | None) -> tuple[str, str]:
    """Rewrite, compile and store one file per level where the hook reads it:
    ("wrote", "skipped" or "failed", the rest of its report line)."""
    origin = os.path.abspath(path)  # what the importing process's spec.origin will say
    shown = display_name(path)
    try:
        st = os.stat(origin)  # before the read: an edit after it makes the pyc stale, never wrong
        with open(origin, "rb") as file:
            data = file.read()
        header = scan_header(universal(decode(data, shown)[0]))
    except OSError as exc:
        return "failed", cannot_open(shown, exc)[len(shown) :]
    except SourceError as exc:  # the words every command uses (commands.files)
        return "failed", exc.located
    if not header.enabled:
        return "skipped", f": no '{PRAGMA}' in its header"
    if mode is None:
        key = pycfile.key_for(st, data)
    else:
        key = pycfile.hash_key(data) if mode == "checked-hash" else pycfile.stat_key(st)
    for level in levels:
        pyc = cachetag.cache_path(origin, level, pycfile.DEFAULT.name)
        if pyc is None:
            return "failed", ": this Python keeps no bytecode cache (no cache tag)"
        try:
            code = pycfile.DEFAULT.compile(data, origin, level, header)
        except (SyntaxError, *TOO_DEEP) as caught:  # RewriteError included: located, with its code
            err = (
                caught
                if isinstance(caught, SyntaxError)
                else too_deep(caught, importlib.util.decode_source(data), origin)
            )
            where = ":".join(str(n) for n in (err.lineno, err.offset) if n is not None)
            code_word = getattr(err, "code", None) or type(err).__name__
            message = getattr(err, "message", err.msg)
            return "failed", f"{':' + where if where else ''}: {code_word} {message}"
        # Written even under -B/PYTHONDONTWRITEBYTECODE: those govern what imports write, and
        # this command exists to write (as py_compile does).
        saved, sys.dont_write_bytecode = sys.dont_write_bytecode, False
        try:
            stored = pycfile.store(pyc, code, key, origin)
        finally:
            sys.dont_write_bytecode = saved
        if not stored:
            return "failed", f": cannot write {pyc}"
    return "wrote", f" (optimisation {', '.join(map(str, levels))})"


def package_files(name: str) -> list[str]:
    """A module's or package's source files, found without importing it."""
    spec = find_spec(name)
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
    if not levels or any(level not in (0, 1, 2) for level in levels):
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


def main(argv: list[str], prog: str) -> int:
    ns = parser(prog).parse_args(argv)
    if not ns.paths and not ns.modules:
        print(f"{prog} compile: give a PATH or -m PACKAGE", file=sys.stderr)
        return 2
    levels = sorted({level for group in ns.levels or [[sys.flags.optimize]] for level in group})
    missing = [path for path in ns.paths if not os.path.exists(path)]
    for path in missing:
        print(f"{prog} compile: {path}: no such file or folder", file=sys.stderr)
    found = list(python_files([path for path in ns.paths if path not in missing]))
    for name in ns.modules:
        try:
            found.extend(package_files(name))
        except TargetError as exc:
            print(f"{prog} compile: -m {name}: {exc}", file=sys.stderr)
            missing.append(name)
    unique: dict[str, str] = {}  # each file once
    for path in found:
        unique.setdefault(os.path.realpath(path), path)
    counts = {"wrote": 0, "skipped": 0, "failed": 0}
    for path in unique.values():
        status, detail = compile_file(path, levels, ns.invalidation_mode)
        counts[status] += 1
        if not ns.quiet or status == "failed":
            print(f"{status:8} {display_name(path)}{detail}")
    if not ns.quiet:
        print(
            f"{prog} compile: {counts['wrote']} written, {counts['skipped']} skipped, "
            f"{counts['failed']} failed"
        )
    return 2 if missing else 1 if counts["failed"] else 0
