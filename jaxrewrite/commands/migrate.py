"""``jaxrewrite migrate PATH... [--write]``: hand-written static specs into Static annotations.

The planning is ``jaxrewrite.migrate`` (text in, text and a report out); this is the edge:
walking paths, decoding and encoding files as Python does, printing a unified diff or writing each
file atomically, and the exit status (0 nothing to change, 1 changes made or proposed, 2 errors).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from jaxrewrite.commands.files import decode, python_files, unified_diff, write_atomically
from jaxrewrite.migrate import REASONS, Migration, Reason, migrate_source

@dataclass
class Summary:
    """What one run did, over every file."""

    files: int = 0
    changed: int = 0
    functions: int = 0
    errors: int = 0
    refused: Counter[Reason] = field(default_factory=Counter)


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
        print(refusal.diagnostic(display).format("refusal"), file=err)
        summary.refused[refusal.reason] += 1
    if not result.changed:
        return
    summary.changed += 1
    summary.functions += len(result.migrated)
    if not write:
        out.write(unified_diff(text, result.text, display.replace(os.sep, "/")))
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
        for path in python_files([named]):
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
