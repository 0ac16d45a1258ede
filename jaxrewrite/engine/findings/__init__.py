"""What ``check`` and ``show`` (and ``jaxrewrite.analyze`` with ``lint``) run over the analysis
beyond its refusals: the warning rules (``checks/``, one module per code, run in their registry's
order as one pass) and the trace-time pass (``tracetime.PASS``, JR006). ``engine.build`` imports
none of them and runs what it is handed (``tests/test_layers.py``).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

from jaxrewrite.engine import build
from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.build import TreePass
from jaxrewrite.engine.findings.checks.registry import rules_pass
from jaxrewrite.engine.findings.checks.unbound_marker import RULE as UNBOUND_MARKER
from jaxrewrite.engine.findings.checks.unbound_marker import without_shadowed
from jaxrewrite.engine.read.filters import FAST
from jaxrewrite.engine.read.othermodules import ImportReader
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic

#: What the import hook says: the rules the import also reports (``at_import``).
AT_IMPORT_PASS = rules_pass(at_import=True)


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
    """``engine.build.build_analysis`` (the public ``jaxrewrite.analyze``; ``options`` are its
    own), with ``lint``: the rules' checks first (``imports`` reads the modules names are imported
    from, for the ledger and JR013), then ``passes``; with ``report`` (the import hook's): the rules
    the import also says (``AT_IMPORT_PASS``)."""
    chosen = (
        (rules_pass(imports), *passes)
        if lint
        else (AT_IMPORT_PASS, *passes)
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
        found.diagnostics[:] = without_shadowed(found.diagnostics, ast.parse(text, filename))
    return found


def trace_findings(text: str, filename: str = "<string>") -> list[Diagnostic]:
    """JR006 for one module's text, with or without the pragma; SyntaxError if it does not parse.
    (Here, not in ``tracetime``: a pass never imports the analysis back.)"""
    from jaxrewrite.engine.findings.tracetime import CODE, PASS, TRACE

    found = build.build_analysis(
        text, filename, require_pragma=False, filters=TRACE, passes=(PASS,)
    ).diagnostics
    return [d for d in found if d.code == CODE]
