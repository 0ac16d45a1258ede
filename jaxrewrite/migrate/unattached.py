"""Specs on nothing this module defines (``jax.jit(other.f, static_argnums=1)``, a lambda) and
decorators the analysis could not read: refusals, never edits.
"""

from __future__ import annotations

import ast
import bisect
import itertools
import re

from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.read.scopes import Imported, Scope, build_scopes
from jaxrewrite.engine.rulebook.table import TRANSFORMS, SpecKind
from jaxrewrite.engine.walk.specs import NEEDLES
from jaxrewrite.migrate.result import Reason, Refusal

Function = ast.FunctionDef | ast.AsyncFunctionDef

_SPEC_WORD = re.compile(r"\b(" + "|".join(NEEDLES) + r")\s*=")
_WORDS = frozenset(NEEDLES)


def unattached(analysis: Analysis, tree: ast.Module) -> list[Refusal]:
    """Spec-writing calls on no def of the module, and unreadable decorators."""
    src = analysis.source
    spans = sorted((src.start(use.node), src.end(use.node)) for use in analysis.uses)
    starts = [start for start, _ in spans]
    reach = list(itertools.accumulate((end for _, end in spans), max))

    def covered(offset: int) -> bool:
        """Inside some use's expression? (sorted spans: a scan per keyword was quadratic)"""
        at = bisect.bisect_right(starts, offset) - 1
        return at >= 0 and offset < reach[at]

    if all(covered(match.start()) for match in _SPEC_WORD.finditer(src.text)):
        return []
    scopes = build_scopes(tree)
    # Per line, the scope of the innermost statement holding it: they come sorted by first line,
    # so an inner one overwrites.
    scope_of = {
        line: scope
        for first, last, _, scope, _ in scopes.statements
        for line in range(first, last + 1)
    }
    found: list[Refusal] = []

    def visit(node: ast.AST, func: Function | None, decorators: set[int]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Call) and any(kw.arg in _WORDS for kw in child.keywords):
                if not covered(src.start(child)):
                    deco = func if id(child) in decorators else None
                    scope = scope_of.get(child.lineno, scopes.module)
                    refusal = _refusal(analysis, child, deco, scope)
                    if refusal is not None:
                        found.append(refusal)
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child, {id(d) for d in child.decorator_list})
            else:
                visit(child, func, decorators)

    try:
        visit(tree, None, set())
        return found
    finally:
        scopes.release()


def _refusal(
    analysis: Analysis, node: ast.Call, func: Function | None, scope: Scope
) -> Refusal | None:
    """Why a spec written on ``node`` migrates nothing (``func``: the def it decorates)."""
    name = _transform_name(node.func)
    if func is not None:  # a decorator of a def that no use covers
        if name is None and _transform_name(node.args[0] if node.args else None) is None:
            return None
        top = min([func.lineno, *(d.lineno for d in func.decorator_list)])
        first = next((d for d in analysis.errors if top <= d.line <= func.lineno), None)
        rule = Reason.UNREADABLE.rule  # the engine's finding ends in its own remedy
        why = (
            rule.text("unspelled")
            if first is None
            else rule.text(code=first.code, message=first.message)
        )
        return Refusal(Reason.UNREADABLE, why, node.lineno, func.name)
    if name is None or not node.args:
        # A partial or factory not applied here (an alias definition): reported at its uses.
        return None
    arg = node.args[0]
    origin = _imported(arg.id, scope) if isinstance(arg, ast.Name) else None
    if isinstance(arg, ast.Lambda):
        variant = "anonymous"
    elif isinstance(arg, ast.Name):
        variant = "name" if origin is None else "imported"
    else:
        variant = "attribute" if isinstance(arg, ast.Attribute) else ""
    what = Reason.NOT_LOCAL.rule.text(variant, name=name, arg=ast.unparse(arg), origin=origin)
    return Refusal(Reason.NOT_LOCAL, what, node.lineno)


def _imported(name: str, scope: Scope) -> str | None:
    """The one dotted name ``name`` is imported as where read, or None."""
    found = scope.lookup(name)
    if found is None:
        return None
    bindings = found[0]
    if not bindings or not all(isinstance(b, Imported) for b in bindings):
        return None
    names = {b.qualname for b in bindings if isinstance(b, Imported)}
    return names.pop() if len(names) == 1 else None


def _transform_name(expr: ast.expr | None) -> str | None:
    """The transform a call's function names by its last segment (a report, not a resolution)."""
    if isinstance(expr, ast.Attribute):
        name: str | None = expr.attr
    elif isinstance(expr, ast.Name):
        name = expr.id
    else:
        return None
    return name if name in TRANSFORMS and TRANSFORMS[name].spec is SpecKind.LISTS else None
