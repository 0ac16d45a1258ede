"""JR012: a marked def itself handed to a function of ``table.TRACES`` (``jax.eval_shape``,
``jax.lax.scan``...), which jaxrewrite never rewrites; reported at that use."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from jaxrewrite.engine.analysis import UseKind
from jaxrewrite.engine.findings.context import Context, Function
from jaxrewrite.engine.read.nodes import own_expressions
from jaxrewrite.engine.read.resolve import qualname, single
from jaxrewrite.engine.read.scopes import Defined
from jaxrewrite.engine.read.signature import Param, Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import Rule
from jaxrewrite.engine.rulebook.table import TRACES, Mark, Traces

RULE = Rule(
    "JR012",
    (
        "a marked def passed to a JAX function that traces its arguments but that jaxrewrite "
        "does not rewrite"
    ),
    (
        "the Static/NoDiff marker{s} on {names} of {func!r} do{es} nothing under {callee!r}: it "
        "traces the arguments it calls {func!r} with, and jaxrewrite does not rewrite it; pass a "
        "transformed {func!r} (a jax.jit of it reads its markers), or close over the static "
        "values (functools.partial) yourself"
    ),
    "pass a transformed function, or close over the static values yourself",
    details=(
        " (`jax.eval_shape`, `jax.jvp`, `jax.lax.scan`, `jax.lax.switch`, `custom_partitioning`, "
        "NNX's `nnx.cond` and kin...), by position or by keyword, reported at that use even "
        "where another use applies the markers"
    ),
)


def check(ctx: Context) -> Iterator[Diagnostic]:
    """Marked defs themselves handed to a function of ``TRACES``."""
    marked = {key: sig for key, (sig, _) in ctx.walk.signatures.items() if sig.has_markers}
    if not marked:
        return
    decorated = {
        id(use.target)
        for use in ctx.result.uses
        if use.kind is UseKind.DECORATOR and use.signature.marked(use.transform.markers)
    }
    for func, scope in ctx.scopes.defs:
        for deco in func.decorator_list if id(func) in marked else ():
            rows = TRACES.get(qualname(deco, scope) or "", ())
            if any(r.passes is None and r.rest_from is None and r.packed is None for r in rows):
                params = list(marked[id(func)].marked(frozenset(Mark)))
                yield _finding(ctx.src, deco, func, params, ast.unparse(deco))
    handed = (
        (call, row, arg, scope)
        for _, _, stmt, scope, _ in list(ctx.scopes.statements)
        for expr in own_expressions(stmt)
        for call in ast.walk(expr)
        if isinstance(call, ast.Call)
        for row in TRACES.get(qualname(call.func, scope) or "", ())
        for arg in _functions(call, row)
    )
    for call, row, arg, scope in handed:
        found = single(arg, scope)
        if isinstance(found, Defined) and id(found.node) not in decorated:
            sig = marked.get(id(found.node))
            reached = [] if sig is None else _reached(sig, row, call)
            if reached:
                yield _finding(ctx.src, arg, found.node, reached, ast.unparse(call.func))


def _functions(call: ast.Call, row: Traces) -> list[ast.expr]:
    """What ``call`` passes where ``row`` says a function goes (each of a sequence of branches)."""
    given = _argument(call, row.function, row.name)
    if row.branches and isinstance(given, (ast.Tuple, ast.List)):
        return given.elts
    return [] if given is None else [given]


def _argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    """The call's argument for a parameter: at ``position`` (no ``*args`` before), or by keyword."""
    before = call.args[: position + 1]
    if len(before) > position and not any(isinstance(a, ast.Starred) for a in before):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _reached(sig: Signature, row: Traces, call: ast.Call) -> list[Param]:
    """The marked parameters that receive an argument from the JAX function (all of them where
    the arguments cannot be counted: a ``*args``, a tuple that is not written out)."""
    params = list(sig.marked(frozenset(Mark)))
    count, named = row.passes, set()
    if row.packed is not None:
        packed = _argument(call, *row.packed)
        if not isinstance(packed, (ast.Tuple, ast.List)) or any(
            isinstance(e, ast.Starred) for e in packed.elts
        ):
            return params
        count = len(packed.elts)
    elif row.rest_from is not None:
        rest = call.args[row.rest_from :]
        if any(isinstance(a, ast.Starred) for a in rest) or any(
            k.arg is None for k in call.keywords
        ):
            return params
        count, named = len(rest), {k.arg for k in call.keywords}
    if count is None:
        return params  # every parameter
    return [p for p in params if (p.position is not None and p.position < count) or p.name in named]


def _finding(
    src: Source, where: ast.AST, func: Function, params: list[Param], callee: str
) -> Diagnostic:
    names = ", ".join(repr(p.name) for p in params)
    s, es = ("s", "") if len(params) > 1 else ("", "es")
    return Diagnostic.at(src, where, RULE, s=s, es=es, names=names, func=func.name, callee=callee)
