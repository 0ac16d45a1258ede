"""``jaxrewrite migrate PATH... [--diff | --check | --write]``: the edge of ``jaxrewrite.migrate``:
walking paths, reading and writing files as Python does, printing a diff or writing atomically,
saying what migrated files need afterwards (the import hook), and the exit status.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import TextIO

from jaxrewrite import config as settings
from jaxrewrite.commands.files import (
    SourceError,
    cannot_open,
    decode,
    display_name,
    python_files,
    terminal,
    unified_diff,
    write_atomically,
    write_source,
)
from jaxrewrite.errors import TOO_DEEP, too_deep
from jaxrewrite.migrate import REASONS, Reason, migrate_source

#: The lines ``--install-hook`` writes into a package's ``__init__.py``.
INSTALL_IMPORT = "import jaxrewrite"
INSTALL_LINE = "jaxrewrite.install(packages=[__name__])"


def top_package(path: str) -> str | None:
    """The folder of the top-level package ``path`` lies in, or None (a filesystem root's name,
    "", is no identifier: the walk up ends there)."""
    folder, top = os.path.dirname(os.path.abspath(path)), None
    while (
        os.path.isfile(os.path.join(folder, "__init__.py"))
        and os.path.basename(folder).isidentifier()
    ):
        folder, top = os.path.dirname(folder), folder
    return top


def after_write(changed: Sequence[str], install_hook: bool, err: TextIO, notes: bool) -> int:
    """After ``--write``: the migrated files mean what they did only under the import hook, so
    say so (``notes``), and with ``install_hook`` write each package's install line; errors."""
    packages = sorted({top for top in map(top_package, changed) if top is not None})
    if notes:
        print(
            "note: the migrated files now need the jaxrewrite import hook; run without it (`python "
            "script.py`, as before) their Static parameters are traced (ConcretizationTypeError). "
            "Run a script with `python -m jaxrewrite script.py` (or `python -m jaxrewrite -m "
            "pytest`), or call `jaxrewrite.install()` before importing the migrated modules.",
            file=err,
        )
    for folder in packages if notes else []:
        name = os.path.basename(folder)
        init = display_name(os.path.join(folder, "__init__.py"))
        if _has_install(init):
            print(f"note: package {name!r} installs the hook in {init} already", file=err)
            continue
        what = (
            f"`{INSTALL_LINE}` is being added at the top of {init}"
            if install_hook
            else f"add `{INSTALL_IMPORT}` and `{INSTALL_LINE}` at the top of {init} "
            "(--install-hook writes them)"
        )
        print(
            f"note: package {name!r} is a library, imported by code that installs no hook: {what}, "
            "and add jaxrewrite to its dependencies; its own tests: `pytest "
            f"--jaxrewrite-packages={name}` "
            f'(or the jaxrewrite_packages ini option, or packages = ["{name}"] in '
            "[tool.jaxrewrite]).",
            file=err,
        )
    errors = 0
    for folder in packages if install_hook else []:
        init = os.path.join(folder, "__init__.py")
        if _has_install(init):
            continue
        try:
            with open(init, "rb") as file:
                text, encoding = decode(file.read(), init)
            write_atomically(init, with_install_line(text).encode(encoding))
        except (OSError, SyntaxError, ValueError, LookupError) as exc:
            print(f"{display_name(init)}: cannot add the install line: {exc}", file=err)
            errors += 1
            continue
        print(f"{display_name(init)}: added `{INSTALL_LINE}`", file=err)
    return errors


def _has_install(init: str) -> bool:
    try:
        with open(init, "rb") as file:
            return b"jaxrewrite.install(" in file.read()
    except OSError:
        return False


def with_install_line(text: str) -> str:
    """``text`` (an ``__init__.py``) with the install line after its docstring and
    future imports."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    body = ast.parse(text).body
    after = 0
    for index, stmt in enumerate(body):
        value = stmt.value if isinstance(stmt, ast.Expr) else None
        docstring = index == 0 and isinstance(value, ast.Constant) and isinstance(value.value, str)
        future = isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
        if not (docstring or future):
            break
        after = stmt.end_lineno or after
    if lines and after and not lines[after - 1].endswith(("\n", "\r")):
        lines[after - 1] += newline
    insert = [
        f"{INSTALL_IMPORT}{newline}",
        f"{INSTALL_LINE}  # Static/NoDiff in this package need the hook{newline}",
    ]
    if after:
        insert.insert(0, newline)
    if after < len(lines) and lines[after].strip():
        insert.append(newline)
    return "".join(lines[:after] + insert + lines[after:])


class Progress:
    """A file counter on a terminal's stderr once a run takes ``after`` seconds; what is printed
    through it (a file for ``print``) erases the counter's line first."""

    def __init__(self, stream: TextIO, total: int, after: float = 1.0) -> None:
        self.on = terminal(stream) and total > 1
        self.stream, self.total, self.count = stream, total, 0
        self.due = time.monotonic() + after  # the next redraw
        self.shown = False

    def step(self, path: str) -> None:
        self.count += 1
        now = time.monotonic()
        if self.on and now >= self.due:
            self.due = now + 0.1  # ten redraws a second at most
            self._draw(f"migrate: {self.count}/{self.total} files  {os.path.normpath(path)}")

    def write(self, text: str) -> int:
        self.done()
        return self.stream.write(text)

    def done(self) -> None:
        if self.shown:
            self._draw("", "\r")

    def _draw(self, line: str, end: str = "") -> None:
        width = shutil.get_terminal_size((80, 20)).columns
        self.stream.write("\r" + line[: width - 1].ljust(width - 1) + end)
        self.stream.flush()
        self.shown = bool(line)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def migrate(
    paths: Sequence[str],
    write: bool,
    out: TextIO | None = None,
    err: TextIO | None = None,
    *,
    check: bool = False,
    install_hook: bool = False,
    exclude: Sequence[tuple[str, str]] = (),
    progress_after: float = 1.0,
    quiet: bool = False,
) -> int:
    """The command: 0 nothing to change, 1 changes made or proposed, 2 errors."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    quiet = quiet or check
    errors = functions = 0
    refused: Counter[Reason] = Counter()
    changed: list[str] = []  # the files changed (or that would be)
    files: list[str] = []
    for named in paths:
        if not os.path.exists(named):
            print(f"{named}: no such file or folder", file=err)
            errors += 1
            continue
        files.extend(python_files([named], exclude))
    if not files and not errors:
        print("warning: No Python files found under the given path(s)", file=err)  # check's, ruff's
    progress = Progress(err, len(files), after=progress_after)
    for path in files:
        progress.step(path)
        display = os.path.normpath(path)
        error: str | None = None
        try:
            with open(display, "rb") as file:
                text, encoding = decode(file.read(), display)
            result = migrate_source(text, display)
        except (OSError, SourceError) as exc:
            error = f"{cannot_open(display, exc)}; skipped"
        except SyntaxError as exc:
            where = "".join(f"{n}:" for n in (exc.lineno, exc.offset) if n is not None)
            error = f"{display}:{where} SyntaxError: {exc.msg}; skipped"
        except TOO_DEEP as exc:
            error = f"{display}:1:1: SyntaxError: {too_deep(exc, text, display).msg}; skipped"
        else:
            refused.update(refusal.reason for refusal in result.refused)
            for refusal in () if quiet else result.refused:
                print(refusal.diagnostic(display).format("refusal"), file=progress)
            if result.changed:
                changed.append(path)
                functions += len(result.migrated)
            if result.changed and not (check or write):
                shown = unified_diff(
                    text, result.text, display.replace(os.sep, "/"), result.changes
                )
                write_source(out, shown, encoding, diff=True)
            elif result.changed and not check:
                try:
                    write_atomically(path, result.text.encode(encoding))
                except (OSError, UnicodeEncodeError) as exc:
                    error = f"{display}: cannot write: {exc}; left as it was"
                else:
                    if not quiet:
                        migrated = _count(len(result.migrated), "function")
                        print(f"{display}: migrated {migrated}", file=progress)
        if error is not None:
            print(error, file=progress)
            errors += 1
    progress.done()
    out.flush()
    if write and changed:
        errors += after_write(changed, install_hook, err, not quiet)
    if not quiet:
        verb = "migrated" if write else "to migrate"
        print(
            f"{_count(functions, 'function')} {verb} in {len(changed)} of "
            f"{_count(len(files), 'file')}; {sum(refused.values())} refused"
            + (f"; {_count(errors, 'error')}" if errors else ""),
            file=err,
        )
        for reason, count in refused.most_common():
            print(f"  {count:5d}  [{reason.value}] {REASONS[reason]}", file=err)
    return 2 if errors else (1 if changed else 0)


def main(argv: Sequence[str], prog: str = "jaxrewrite") -> int:
    """``jaxrewrite migrate``'s own command line (the CLI hands it everything after the word)."""
    parser = argparse.ArgumentParser(
        prog=f"{prog} migrate",
        description=(
            "Turn hand-written static_argnums/static_argnames (and static_broadcasted_argnums, "
            "nondiff_argnums) into Static/NoDiff annotations, wherever the meaning stays exactly "
            "the same; print a unified diff, or rewrite the files with --write. Functions left as "
            "written are listed on stderr with the reason."
        ),
        epilog="exit status: 0 nothing to change, 1 changes made or proposed (with --check: would "
        "be made), 2 errors (a file that cannot be read, parsed or written, a bad "
        "configuration), 141 the reader of the output went away first (`| head`)",
    )
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="files, or folders searched for .py files"
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--diff", action="store_true", help="print a unified diff and change nothing (the default)"
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="print nothing, change nothing: exit 1 if a file would change (as black)",
    )
    mode.add_argument(
        "--write", action="store_true", help="rewrite the files in place (atomically)"
    )
    parser.add_argument(
        "--install-hook",
        action="store_true",
        help=f"with --write: add `{INSTALL_LINE}` to the __init__.py of each package a migrated "
        "file is in",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="PATTERN",
        help="glob patterns to skip, as in check",
    )
    parser.add_argument(
        "--config", metavar="PYPROJECT", help="read [tool.jaxrewrite] from this file instead"
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="stderr for errors only: no refusals, no summary, no notes",
    )
    ns = parser.parse_args(list(argv))
    if ns.install_hook and not ns.write:
        print(f"{prog} migrate: --install-hook needs --write", file=sys.stderr)
        return 2
    config = settings.discover(explicit=ns.config)
    return migrate(
        ns.paths,
        ns.write,
        check=ns.check,
        install_hook=ns.install_hook,
        exclude=settings.exclusions(config, ns.exclude),
        quiet=ns.quiet,
    )
