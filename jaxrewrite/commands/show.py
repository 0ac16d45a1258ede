"""``jaxrewrite show TARGET... [--diff]``: print what the import hook would compile, running
nothing (modules are found with the import system's finders; no ``__init__`` runs).
"""

from __future__ import annotations

import argparse
import sys
import warnings

from jaxrewrite.commands.files import (
    SourceError,
    TargetError,
    cannot_open,
    coloured,
    decode,
    display_name,
    import_reader,
    locate,
    paint,
    unified_diff,
    universal,
    write_source,
)
from jaxrewrite.engine.findings import lint_analysis
from jaxrewrite.engine.rewrite import rewritten
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import SYNTAX
from jaxrewrite.errors import TOO_DEEP, RewriteError, too_deep
from jaxrewrite.header import PRAGMA, why_ignored


def show(target: str, diff: bool, prog: str) -> int:
    """0 shown, 1 the source does not rewrite or parse (stderr says why), 2 no such target."""
    try:
        path = locate(target)
        display = display_name(path)
        with open(path, "rb") as file:
            source, encoding = decode(file.read(), display)
    except (TargetError, OSError, SourceError) as exc:
        print(f"{prog} show: {cannot_open(target, exc)}", file=sys.stderr)
        return 2
    source = universal(source)
    painter = paint if coloured(sys.stderr) else None
    try:
        # one analysis: findings, ledger, JR006, rewrite
        analysis = lint_analysis(source, display, imports=import_reader(display))
        for finding in analysis.diagnostics:
            # Without the pragma the hook leaves the module alone: refusals are notes, as the rest.
            if not finding.is_error or not analysis.header.enabled:
                print(finding.format("text", painter), file=sys.stderr)
        text = source
        if analysis.header.enabled:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # printed above, once, with their codes
                text = rewritten(analysis)
    except RewriteError:
        for finding in analysis.errors:  # every refusal, in source order; the hook raises the first
            print(finding.format("text", painter), file=sys.stderr)
        return 1
    except (SyntaxError, *TOO_DEEP) as caught:
        error = caught if isinstance(caught, SyntaxError) else too_deep(caught, source, display)
        error.filename = error.filename or display
        print(Diagnostic.from_error(error, SYNTAX.code).format("text", painter), file=sys.stderr)
        return 1
    if not analysis.header.enabled:  # why nothing in the header counts
        print(
            f"{display}: note: no '{PRAGMA}' pragma in the module header; the source is unchanged",
            file=sys.stderr,
        )
        for line in analysis.header.ignored_lines:
            why = why_ignored(source, line)
            print(f"{display}:{line}: note: '{PRAGMA}' here does not count: {why}", file=sys.stderr)
    shown = unified_diff(source, text, display) if diff else text
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
    ns = parser.parse_args(argv)
    status = 0  # the highest of the targets'
    for index, target in enumerate(ns.targets):
        if len(ns.targets) > 1 and not ns.diff:
            write_source(sys.stdout, f"{chr(10) if index else ''}==> {target} <==\n", "utf-8")
        status = max(status, show(target, ns.diff, prog))
    return status
