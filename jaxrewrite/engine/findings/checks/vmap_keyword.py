"""JR011: a Static parameter of a vmapped function not passed by position."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from jaxrewrite.engine.analysis import Use, UseKind
from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.read.nodes import name_assigned
from jaxrewrite.engine.read.recognise import classify
from jaxrewrite.engine.read.resolve import single
from jaxrewrite.engine.read.scopes import Defined
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import LIMITS, Rule

RULE = Rule(
    "JR011",
    (
        "a Static parameter of a vmapped function not passed by position: by keyword it is "
        "mapped over axis 0, left to its default the call fails"
    ),
    (
        "Static parameter {name!r} of {func!r} is passed by keyword to a function made by "
        "{transform}, which maps keyword arguments over axis 0 whatever 'in_axes' says, so it is "
        "traced here; pass it by position (see {see[11-limits]})"
    ),
    "pass the Static parameter by position",
    LIMITS,
    default=(
        "Static parameter {name!r} of {func!r} is left to its default in this call of a "
        "function made by {transform}: the 'in_axes' written for it has an entry for "
        "{name!r} (None), and {transform} needs exactly one per positional argument passed, "
        "so this call fails; pass {name!r} by position (see {see[11-limits]})"
    ),
    details=" ([section 11](transforms.md#11-limits))",
)


def check(ctx: Context) -> Iterator[Diagnostic]:
    """What calls a mapped function: the def's own name (a decorator use), the call site itself,
    names bound to either in turn (``a = vf``, ``(a := vf)``), under any nest of calls through
    transforms that keep the function's arguments (``jax.jit(vf)(x, n=2)``)."""
    scope, module, src = ctx.scopes.module, ctx.tree, ctx.src
    callees: dict[str, Use] = {}
    direct: dict[int, Use] = {}
    for use in ctx.result.uses:
        if not use.transform.maps_keywords or not use.signature.marked(use.transform.markers):
            continue
        if use.kind is not UseKind.DECORATOR:
            direct[id(use.node)] = use
        elif (
            isinstance(b := single(ast.Name(use.target.name), scope), Defined)
            and b.node is use.target
        ):
            callees[use.target.name] = use
    if not callees and not direct:
        return

    def called_by(expr: ast.expr) -> Use | None:
        while True:  # through transforms of the table that keep their function's arguments
            if id(expr) in direct:
                return direct[id(expr)]
            if isinstance(expr, ast.Name) and expr.id in callees:
                return callees[expr.id]
            if isinstance(expr, ast.NamedExpr) and isinstance(expr.value, (ast.Name, ast.Call)):
                expr = expr.value
                continue
            call = expr if isinstance(expr, ast.Call) and expr.args else None
            ref = None if call is None else classify(call.func, scope)
            if call is None or ref is None or not ref.transform.keeps_arguments:
                return None
            expr = call.args[0]

    bindings = [pair for node in ast.walk(module) if (pair := name_assigned(node)) is not None]
    bindings += [(n.target.id, n.value) for n in ast.walk(module) if isinstance(n, ast.NamedExpr)]
    grew = True
    while grew:  # each round binds at least one more name: at most one round per binding
        grew = False
        for name, value in bindings:
            bound = called_by(value)
            if bound is not None and name not in callees:
                callees[name], grew = bound, True
    for node in ast.walk(module):
        if not isinstance(node, ast.Call) or (called := called_by(node.func)) is None:
            continue
        statics = {p.name: p for p in called.signature.marked(called.transform.markers)}
        said = {"func": called.target.name, "transform": called.transform.name}
        for keyword in node.keywords:
            if keyword.arg in statics:
                yield Diagnostic.at(src, keyword, RULE, name=keyword.arg, **said)
        passed = {k.arg for k in node.keywords}
        if None in passed or any(isinstance(a, ast.Starred) for a in node.args):
            continue  # how many are passed by position cannot be told
        for param in statics.values():
            at = param.position
            if at is not None and at >= len(node.args) and param.name not in passed:
                yield Diagnostic.at(src, node, RULE, "default", name=param.name, **said)
