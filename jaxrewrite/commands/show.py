"""``jaxrewrite show TARGET... [--diff]``: print what the import hook would compile, running
nothing.

Each TARGET is a file path or a dotted module name; with several, each text follows a
``==> TARGET <==`` line as ``head`` prints them (a diff names its files in its own headers). Modules
are located with the import system's finders only (no package ``__init__`` is executed), so a
package that fails to import can still be inspected.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence

from jaxrewrite.commands import colour, safe_path
from jaxrewrite.commands.files import (
    SourceError,
    cannot_open,
    read_python,
    unified_diff,
    universal,
    write_source,
)
from jaxrewrite.commands.targets import (
    TargetError,
    import_reader,
    locate,
    search_path,
)
from jaxrewrite.engine.findings import lint_analysis
from jaxrewrite.engine.rewrite import rewritten
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import SYNTAX
from jaxrewrite.errors import TOO_DEEP, RewriteError, too_deep
from jaxrewrite.header import PRAGMA, Header, why_ignored


def notes(source: str, header: Header, display: str) -> list[str]:
    """Why nothing in the header counts (unknown directives are findings of their own)."""
    if header.enabled:
        return []
    out = [f"{display}: note: no '{PRAGMA}' pragma in the module header; the source is unchanged"]
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
            write_source(sys.stdout, f"{chr(10) if index else ''}==> {target} <==\n", "utf-8")
        status = max(status, show(target, diff, prog))
    return status


def show(target: str, diff: bool, prog: str) -> int:
    """The command: 0 shown, 1 the source does not rewrite or parse (JR100; on stderr), 2 no such
    target, or one that cannot be read as Python source."""
    cwd = os.getcwd()
    try:
        found = locate(target, cwd, search_path(sys.path, cwd, safe_path()), sys.meta_path)
        with open(found.path, "rb") as file:
            source, encoding = read_python(found.display, file.read())
    except TargetError as exc:
        print(f"{prog} show: {exc}", file=sys.stderr)
        return 2
    except (OSError, SourceError) as exc:
        print(f"{prog} show: {cannot_open(target, exc)}", file=sys.stderr)
        return 2
    source = universal(source)
    paint = colour.paint if colour.wanted(sys.stderr) else None
    try:
        # one analysis: findings, ledger, JR006, rewrite
        analysis = lint_analysis(source, found.display, imports=import_reader(found.display))
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
    except (SyntaxError, *TOO_DEEP) as caught:
        error = (
            caught if isinstance(caught, SyntaxError) else too_deep(caught, source, found.display)
        )
        error.filename = error.filename or found.display
        print(Diagnostic.from_error(error, SYNTAX.code).format("text", paint), file=sys.stderr)
        return 1
    for note in notes(source, analysis.header, found.display):
        print(note, file=sys.stderr)
    shown = unified_diff(source, text, found.display) if diff else text
    write_source(sys.stdout, shown, encoding, diff=diff)
    return 0


def main(argv: list[str], prog: str) -> int:
    parser = argparse.ArgumentParser(
        prog=f"{prog} show",
        description="Print the source the import hook compiles for each TARGET, executing nothing "
        "(with a '==> TARGET <==' line before each when there are several, as head prints them).",
        epilog="exit status: 0 shown, 1 a source that does not rewrite (its findings on stderr), "
        "2 no such target; with several targets, the highest",
    )
    parser.add_argument(
        "targets", nargs="+", metavar="TARGET", help="a file path or a dotted module name"
    )
    parser.add_argument(
        "--diff", action="store_true", help="print a unified diff against the file instead"
    )
    try:
        ns = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed its help or its error already
        return exc.code if isinstance(exc.code, int) else 2
    return show_all(ns.targets, ns.diff, prog)
