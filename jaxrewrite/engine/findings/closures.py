"""Inner functions a def runs while it is traced (JR006): closures called directly, handed to
``grad``, ``vmap``, ``jit`` or lax's control flow.

``def outer(x, n): def loss(p): return jnp.sum(jnp.zeros(n) + p); return jax.grad(loss)(x)``
runs ``loss`` whenever ``outer`` is traced: ``loss`` reads ``n`` from ``outer``, so a traced ``n``
is traced in it, and ``p`` is what grad passes (``x``, traced or not). Pure: it reads the body.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from jaxrewrite.engine.findings.flow import DEFS, Function, Resolve, Sources
from jaxrewrite.engine.read.nodes import child_nodes, walk
from jaxrewrite.engine.rulebook.table import INNER_OWN_TRACE, INNER_PASS_THROUGH, LAX_BODIES


@dataclass(frozen=True)
class Run:
    """One inner function a call runs, with the arguments its parameters take (None: its own
    transform traces them, and only the closure is followed)."""

    func: Function
    args: list[ast.expr] | None
    keywords: list[ast.keyword]


def inner_defs(func: Function, found: Sources) -> dict[str, Function]:
    """The defs of ``func``'s own body whose name is bound nowhere else in it."""
    out: dict[str, Function] = {}
    params = {a.arg for a in walk(func.args) if isinstance(a, ast.arg)}
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, DEFS):
            if len(found.get(node.name, ())) == 1 and node.name not in params:
                out[node.name] = node
            continue
        if not isinstance(node, (ast.ClassDef, ast.Lambda)):
            stack.extend(child_nodes(node))
    return out


def runs(call: ast.Call, resolve: Resolve, inner: dict[str, Function]) -> Iterator[Run]:
    """The inner functions ``call`` runs while the def around it is traced."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in inner:
        target = inner[func.id]
        kinds = {_kind(d, resolve) for d in target.decorator_list}
        if kinds <= {"pass"}:
            yield Run(target, call.args, call.keywords)
        elif kinds <= {"pass", "own"}:
            yield Run(target, None, [])
        return
    if isinstance(func, ast.Call) and func.args and isinstance(func.args[0], ast.Name):
        wrapped = inner.get(func.args[0].id)
        kind = _kind(func.func, resolve)
        if wrapped is not None and not wrapped.decorator_list and kind is not None:
            yield (
                Run(wrapped, call.args, call.keywords) if kind == "pass" else Run(wrapped, None, [])
            )
        return
    for position in LAX_BODIES.get(resolve(func) or "", ()):
        argument = call.args[position] if position < len(call.args) else None
        body = inner.get(argument.id) if isinstance(argument, ast.Name) else None
        if body is not None and not body.decorator_list:
            yield Run(body, None, [])


def _kind(expr: ast.expr, resolve: Resolve) -> str | None:
    """``pass``: a transform that passes the call's own arguments through (the table's
    ``INNER_PASS_THROUGH``); ``own``: one that traces it with arguments of its own."""
    name = resolve(expr) or ""
    return "pass" if name in INNER_PASS_THROUGH else "own" if name in INNER_OWN_TRACE else None
