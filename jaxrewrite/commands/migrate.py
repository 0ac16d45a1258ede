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
from dataclasses import dataclass, field
from typing import TextIO

from jaxrewrite import config as settings
from jaxrewrite.commands.files import (
    SourceError,
    cannot_open,
    python_files,
    read_python,
    terminal,
    unified_diff,
    write_atomically,
    write_source,
)
from jaxrewrite.commands.targets import display_name
from jaxrewrite.errors import TOO_DEEP, too_deep
from jaxrewrite.migrate import REASONS, Reason, migrate_source

#: The lines ``--install-hook`` writes into a package's ``__init__.py``.
INSTALL_IMPORT = "import jaxrewrite"
INSTALL_LINE = "jaxrewrite.install(packages=[__name__])"


def top_package(path: str) -> str | None:
    """The folder of the top-level package ``path`` lies in, or None."""
    folder = os.path.dirname(os.path.abspath(path))
    top = None
    while (
        os.path.isfile(os.path.join(folder, "__init__.py"))
        and os.path.basename(folder).isidentifier()
    ):
        top = folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
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
            text, encoding = read_python(init)
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


#: Seconds between two redraws.
EVERY = 0.1


class Progress:
    """A file counter on a terminal's stderr once a run takes ``after`` seconds."""

    def __init__(self, stream: TextIO, total: int, after: float = 1.0) -> None:
        self.on = terminal(stream) and total > 1
        self.stream, self.total, self.after = stream, total, after
        self.count = 0
        self.start = time.monotonic()
        self.last = float("-inf")
        self.shown = False

    def step(self, path: str) -> None:
        """``path`` is next: redraw at most every ``EVERY`` seconds, once ``after`` has passed."""
        self.count += 1
        now = time.monotonic()
        if not self.on or now - self.start < self.after or now - self.last < EVERY:
            return
        self.last = now
        width = shutil.get_terminal_size((80, 20)).columns
        line = f"migrate: {self.count}/{self.total} files  {os.path.normpath(path)}"
        self.stream.write("\r" + line[: width - 1].ljust(width - 1))
        self.stream.flush()
        self.shown = True

    def write(self, text: str) -> int:
        """For ``print`` while the counter runs: the counter's line goes before the text does."""
        self.done()
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def done(self) -> None:
        """Erase the line, so what follows starts on a clean line."""
        if self.shown:
            width = shutil.get_terminal_size((80, 20)).columns
            self.stream.write("\r" + " " * (width - 1) + "\r")
            self.stream.flush()
            self.shown = False


@dataclass
class Summary:
    """What one run did, over every file."""

    functions: int = 0
    errors: int = 0
    refused: Counter[Reason] = field(default_factory=Counter)
    #: The files changed (or that would be), for what to say after ``--write``.
    changed: list[str] = field(default_factory=list)


def migrate_file(
    path: str,
    write: bool,
    out: TextIO,
    err: TextIO | Progress,
    summary: Summary,
    check: bool = False,
    quiet: bool = False,
) -> str | None:
    """One file read, migrated, reported, diffed or written; the error that stopped it."""
    display = os.path.normpath(path)
    try:
        text, encoding = read_python(display)
        result = migrate_source(text, display)
    except (OSError, SourceError) as exc:
        return f"{cannot_open(display, exc)}; skipped"
    except SyntaxError as exc:
        where = "".join(f"{n}:" for n in (exc.lineno, exc.offset) if n is not None)
        return f"{display}:{where} SyntaxError: {exc.msg}; skipped"
    except TOO_DEEP as exc:
        return f"{display}:1:1: SyntaxError: {too_deep(exc, text, display).msg}; skipped"
    for refusal in result.refused:
        if not quiet:
            print(refusal.diagnostic(display).format("refusal"), file=err)
        summary.refused[refusal.reason] += 1
    if not result.changed:
        return None
    summary.changed.append(path)
    summary.functions += len(result.migrated)
    if not write:
        if not check:
            write_source(
                out,
                unified_diff(text, result.text, display.replace(os.sep, "/"), result.changes),
                encoding,
                diff=True,
            )
        return None
    try:
        write_atomically(path, result.text.encode(encoding))
    except (OSError, UnicodeEncodeError) as exc:
        return f"{display}: cannot write: {exc}; left as it was"
    if not quiet:
        print(f"{display}: migrated {_count(len(result.migrated), 'function')}", file=err)
    return None


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
    summary = Summary()
    files: list[str] = []
    for named in paths:
        if not os.path.exists(named):
            print(f"{named}: no such file or folder", file=err)
            summary.errors += 1
            continue
        files.extend(python_files([named], exclude))
    if not files and not summary.errors:
        print("warning: No Python files found under the given path(s)", file=err)  # check's, ruff's
    progress = Progress(err, len(files), after=progress_after)
    for path in files:
        progress.step(path)
        error = migrate_file(path, write, out, progress, summary, check=check, quiet=check or quiet)
        if error is not None:
            print(error, file=progress)
            summary.errors += 1
    progress.done()
    out.flush()
    if write and summary.changed:
        summary.errors += after_write(summary.changed, install_hook, err, not (check or quiet))
    if check or quiet:
        return 2 if summary.errors else (1 if summary.changed else 0)
    verb = "migrated" if write else "to migrate"
    errors = f"; {_count(summary.errors, 'error')}" if summary.errors else ""
    print(
        f"{_count(summary.functions, 'function')} {verb} in {len(summary.changed)} of "
        f"{_count(len(files), 'file')}; {sum(summary.refused.values())} refused{errors}",
        file=err,
    )
    for reason, count in summary.refused.most_common():
        print(f"  {count:5d}  [{reason.value}] {REASONS[reason]}", file=err)
    if summary.errors:
        return 2
    return 1 if summary.changed else 0


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
    config = settings.discover_for(f"{prog} migrate", ns.config)
    if config is None:
        return 2
    return migrate(
        ns.paths,
        ns.write,
        check=ns.check,
        install_hook=ns.install_hook,
        exclude=settings.exclusions(config, ns.exclude),
        quiet=ns.quiet,
    )
