"""Specs on nothing this module defines (``jax.jit(other.f, static_argnums=1)``, a lambda) and
decorators the analysis could not read: refusals, never edits.
"""

from __future__ import annotations

import ast

from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.read.scopes import Imported, Scope, build_scopes
from jaxrewrite.engine.rulebook.table import TRANSFORMS, SpecKind
from jaxrewrite.engine.walk.specs import NEEDLES
from jaxrewrite.migrate.result import Reason, Refusal

Function = ast.FunctionDef | ast.AsyncFunctionDef


def unattached(analysis: Analysis, tree: ast.Module) -> list[Refusal]:
    """Spec-writing calls on no def of the module, and unreadable decorators."""
    covered = {id(node) for use in analysis.uses for node in ast.walk(use.node)}
    found: list[tuple[ast.Call, Function | None]] = []
    # In source order, each node with the def whose decorators it may be; a stack, not
    # recursion, so that a module nested deeper than the interpreter's stack is read too.
    outer: tuple[Function | None, set[int]] = (None, set())
    stack = [(child, outer) for child in reversed(list(ast.iter_child_nodes(tree)))]
    while stack:
        node, (func, decorators) = stack.pop()
        if (
            isinstance(node, ast.Call)
            and id(node) not in covered
            and any(kw.arg in NEEDLES for kw in node.keywords)
        ):
            found.append((node, func if id(node) in decorators else None))
        inner: tuple[Function | None, set[int]] = (func, decorators)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = (node, {id(d) for d in node.decorator_list})
        stack.extend((child, inner) for child in reversed(list(ast.iter_child_nodes(node))))
    if not found:
        return []
    scopes = build_scopes(tree)
    # Per line, the scope of the innermost statement holding it: they come sorted by first line,
    # so an inner one overwrites.
    scope_of = {
        line: scope
        for first, last, _, scope, _ in scopes.statements
        for line in range(first, last + 1)
    }
    try:
        refusals = [
            _refusal(analysis, call, deco, scope_of.get(call.lineno, scopes.module))
            for call, deco in found
        ]
        return [refusal for refusal in refusals if refusal is not None]
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
