"""``jaxrewrite migrate PATH... [--write]``: hand-written static specs into Static annotations.

The planning is ``jaxrewrite.engine.migration`` (text in, text and a report out); this is the edge:
walking paths, decoding and encoding files as Python does, printing a unified diff or writing each
file atomically, and the exit status (0 nothing to change, 1 changes made or proposed, 2 errors).
"""

from __future__ import annotations

import argparse
import difflib
import io
import os
import sys
import tempfile
import tokenize
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from jaxrewrite.migrate import REASONS, Migration, Reason, migrate_source
from jaxrewrite.engine.source import source_lines

#: Folders never walked into: they hold no source of the project's own.
SKIPPED_FOLDERS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "node_modules"})


@dataclass
class Summary:
    """What one run did, over every file."""

    files: int = 0
    changed: int = 0
    functions: int = 0
    errors: int = 0
    refused: Counter[Reason] = field(default_factory=Counter)


def python_files(path: str) -> list[str]:
    """The ``.py`` files below a folder, sorted per folder (hidden and tool folders skipped), or
    the file itself, whatever its suffix, when ``path`` names one."""
    if not os.path.isdir(path):
        return [path]
    found = []
    for root, folders, files in os.walk(path):
        folders[:] = sorted(f for f in folders if f not in SKIPPED_FOLDERS and not f.startswith("."))
        found += [os.path.join(root, name) for name in sorted(files) if name.endswith(".py")]
    return found


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding) as Python reads the file (PEP 263), line endings kept as they are."""
    encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    return data.decode(encoding), encoding


def diff(before: str, after: str, display: str) -> str:
    """A unified diff, lines split as Python counts them (a form feed does not end a line)."""
    lines = difflib.unified_diff(source_lines(before), source_lines(after), f"a/{display}", f"b/{display}")
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)


def write_atomically(path: str, data: bytes) -> None:
    """Replace ``path`` by ``data`` in one step: a temporary file in the same folder (so the rename
    cannot cross file systems), flushed to disk, given the file's permissions, then ``os.replace``.
    A symbolic link stays a link: the file it points to is the one replaced."""
    path = os.path.realpath(path)
    folder = os.path.dirname(path)
    mode = os.stat(path).st_mode & 0o7777
    fd, temporary = tempfile.mkstemp(prefix=".jaxrewrite-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
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


def migrate_file(path: str, write: bool, out: TextIO, err: TextIO, summary: Summary) -> None:
    """One file: read, migrate, report; print its diff or write it."""
    display = os.path.normpath(path)
    summary.files += 1
    try:
        with open(path, "rb") as file:
            data = file.read()
        text, encoding = decode(data)
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as exc:
        print(f"{display}: cannot read: {exc}; skipped", file=err)
        summary.errors += 1
        return
    try:
        result: Migration = migrate_source(text, display)
    except SyntaxError as exc:
        where = "".join(f"{n}:" for n in (exc.lineno, exc.offset) if n is not None)
        print(f"{display}:{where} SyntaxError: {exc.msg}; skipped", file=err)
        summary.errors += 1
        return
    except RecursionError:
        print(f"{display}: too deeply nested to analyze; skipped", file=err)
        summary.errors += 1
        return
    for refusal in result.refused:
        print(f"{display}:{refusal}", file=err)
        summary.refused[refusal.reason] += 1
    if not result.changed:
        return
    summary.changed += 1
    summary.functions += len(result.migrated)
    if not write:
        out.write(diff(text, result.text, display.replace(os.sep, "/")))
        return
    try:
        write_atomically(path, result.text.encode(encoding))
    except (OSError, UnicodeEncodeError) as exc:
        print(f"{display}: cannot write: {exc}; left as it was", file=err)
        summary.errors += 1
        return
    print(f"{display}: migrated {len(result.migrated)} function{'s' if len(result.migrated) != 1 else ''}", file=err)


def migrate(paths: Sequence[str], write: bool, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The command: 0 nothing to change, 1 changes made (``write``) or proposed (a diff), 2 errors."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    summary = Summary()
    for named in paths:
        if not os.path.exists(named):
            print(f"{named}: no such file or folder", file=err)
            summary.errors += 1
            continue
        for path in python_files(named):
            migrate_file(path, write, out, err, summary)
    out.flush()
    verb = "migrated" if write else "to migrate"
    refused = sum(summary.refused.values())
    print(
        f"{summary.functions} function{'s' if summary.functions != 1 else ''} {verb} in {summary.changed} of "
        f"{summary.files} file{'s' if summary.files != 1 else ''}; {refused} refused"
        + (f"; {summary.errors} error{'s' if summary.errors != 1 else ''}" if summary.errors else ""),
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
            "nondiff_argnums) into Static/NoDiff annotations, wherever the meaning stays exactly the "
            "same; print a unified diff, or rewrite the files with --write. Functions left as written "
            "are listed on stderr with the reason."
        ),
        epilog="exit status: 0 nothing to change, 1 changes made or proposed, 2 errors",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files, or folders searched for .py files")
    parser.add_argument("--write", action="store_true", help="rewrite the files in place (atomically)")
    try:
        ns = parser.parse_args(list(argv))
    except SystemExit as exc:  # argparse has printed its help or its error already
        return exc.code if isinstance(exc.code, int) else 2
    return migrate(ns.paths, ns.write)
