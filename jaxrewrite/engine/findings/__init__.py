"""The finding passes, as one entry table: what ``check`` and ``show`` (and ``jaxrewrite.analyze``
with ``lint``) run over the analysis beyond its refusals.

Each pass is a ``TreePass`` its own module exports, as the trace-time one (``tracetime.PASS``) is;
``engine.build`` imports none of them and runs what it is handed (``tests/test_layers.py``). The
order is the table's: each pass reads the findings of those before it (the ledger counts what lint
and peruse reported).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

from jaxrewrite.engine import build
from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.build import TreePass
from jaxrewrite.engine.findings import imported, ledger, peruse, unbound
from jaxrewrite.engine.findings import lint as linting
from jaxrewrite.engine.findings.report import PASS as REPORT_PASS
from jaxrewrite.engine.read.filters import FAST
from jaxrewrite.engine.read.othermodules import ImportReader
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import UNBOUND_MARKER

#: The passes that need nothing from the front end, in order; the ledger and JR013 follow.
PASSES: tuple[TreePass, ...] = (linting.PASS, peruse.PASS, unbound.PASS)


def finding_passes(imports: ImportReader | None = None) -> tuple[TreePass, ...]:
    """Lint (JR001 to JR004, JR007, JR014), the findings per use (JR010 to JR012), the ledger
    (JR008, JR009: every marker applied, refused or reported) and, where ``imports`` reads the
    modules names come from, the marked defs of other modules a transform is applied to (JR013)."""
    found = [*PASSES, ledger.ledger_pass(imports)]
    if imports is not None:
        found.append(imported.imported_pass(imports))
    return tuple(found)


def analyze(
    text: str,
    filename: str = "<string>",
    *,
    lint: bool = False,
    imports: ImportReader | None = None,
    passes: Sequence[TreePass] = (),
    report: bool = False,
    **options: Any,
) -> Analysis:
    """``engine.build.build_analysis`` (the public ``jaxrewrite.analyze``; ``options`` are its own), with
    ``lint``: the finding passes first (``imports`` reads the modules names are imported from, for
    the ledger and JR013), then ``passes``; with ``report`` (the import hook's): the markers that
    do nothing (``engine.findings.report.PASS``)."""
    chosen = (
        (*finding_passes(imports), *passes)
        if lint
        else (REPORT_PASS, *passes)
        if report
        else tuple(passes)
    )
    return build.build_analysis(text, filename, passes=chosen, **options)


def lint_analysis(
    text: str, filename: str, trace: bool = True, imports: ImportReader | None = None
) -> Analysis:
    """The one analysis ``check`` and ``show`` read: with or without the pragma, the finding
    passes and (``trace``, where ``may_trace``) the trace-time pass (JR006); the rewrite it calls
    for is the hook's (the filters change no rewrite: tests/test_prefilters.py)."""
    from jaxrewrite.engine.findings.tracetime import PASS, TRACE, may_trace

    traced = trace and may_trace(text)
    found = analyze(
        text,
        filename,
        require_pragma=False,
        lint=True,
        imports=imports,
        filters=TRACE if traced else FAST,
        passes=(PASS,) if traced else (),
    )
    if traced and any(d.code == UNBOUND_MARKER.code for d in found.diagnostics):
        found.diagnostics[:] = unbound.without_shadowed(
            found.diagnostics, ast.parse(text, filename)
        )
    return found


def trace_findings(text: str, filename: str = "<string>") -> list[Diagnostic]:
    """JR006 for one module's text, with or without the pragma; SyntaxError if it does not parse.
    (Here, not in ``tracetime``: a pass never imports the analysis back.)"""
    from jaxrewrite.engine.findings.tracetime import CODE, PASS, TRACE

    found = build.build_analysis(
        text, filename, require_pragma=False, filters=TRACE, passes=(PASS,)
    ).diagnostics
    return [d for d in found if d.code == CODE]
