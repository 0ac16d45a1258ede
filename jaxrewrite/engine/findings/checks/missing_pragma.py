"""JR001: markers in a module whose header does not opt in, so the rewrite never reads them."""

from __future__ import annotations

import ast

from jaxrewrite.engine.analysis import Use
from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import Rule
from jaxrewrite.header import PRAGMA, why_ignored

RULE = Rule(
    "JR001",
    "Static/NoDiff in a module whose header does not opt in",
    (
        "Static/NoDiff annotations do nothing here: the module has no '{pragma}' comment in its "
        "header{why}; add it before the first statement (after the docstring and __future__ "
        "imports)"
    ),
    "add '# jaxrewrite: enable' to the module's header (check --fix does)",
    details=" (no pragma, or one below the header)",
)


def check(ctx: Context) -> list[Diagnostic]:
    """At the first marker the rewrite would act on, where the header does not opt in."""
    analysis, src = ctx.result, ctx.src
    first = analysis.first_edit()
    if first is None or analysis.header.enabled:
        return []
    where: ast.AST = first.node
    if isinstance(first, Use):
        where = next((p.node for p in first.signature.params if p.markers), first.node)
    why = ""
    if analysis.header.ignored_lines:
        line = analysis.header.ignored_lines[0]
        why = f" (the '{PRAGMA}' on line {line} does not count: {why_ignored(src.text, line)})"
    return [Diagnostic.at(src, where, RULE, pragma=PRAGMA, why=why)]
