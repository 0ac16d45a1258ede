"""Findings per use, not per function: a marked def whose marker one use applies can still be
traced, or refused by JAX, at another use. Each finding is at that use.

- JR010: ``jax.jit(f, in_shardings=...)`` refuses every keyword argument at call time, so a
  keyword-only Static parameter of ``f`` can never be passed.
- JR011: a Static parameter not passed by position to a ``jax.vmap``/``nn.vmap`` result: by
  keyword, mapped over axis 0 whatever ``in_axes`` says, or left to its default, which the
  written ``in_axes`` has an entry for (the guide's section 11).
- JR012: a marked def itself (not a transform's result that reads its markers) handed to a JAX
  function that traces the arguments it calls it with (``table.TRACES``), which jaxrewrite never rewrites.

Pure: it reads the Analysis and the live scopes, and adds findings.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from jaxrewrite.engine.analysis import Analysis, Use, UseKind
from jaxrewrite.engine.read.nodes import name_assigned
from jaxrewrite.engine.read.recognise import classify
from jaxrewrite.engine.read.resolve import qualname, single
from jaxrewrite.engine.read.scopes import Defined, Scope, ScopeTree, own_expressions
from jaxrewrite.engine.read.signature import Kind, Param, Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import TRACES, Mark, Traces

if TYPE_CHECKING:
    from jaxrewrite.engine.build import Analyzer

Function = ast.FunctionDef | ast.AsyncFunctionDef


def PASS(result: Analysis, scopes: ScopeTree, module: ast.Module, walk: Analyzer) -> None:
    """The findings per use as a finding pass (``engine.findings``), over every marked def the walk read."""
    per_use(result, scopes, module, {key: sig for key, (sig, _) in walk.signatures.items()})


def per_use(
    result: Analysis, scopes: ScopeTree, module: ast.Module, signatures: dict[int, Signature]
) -> None:
    """JR010, JR011 and JR012 (``signatures``: every marked def's), added to the findings."""
    src = result.source
    found = [*_in_shardings(result, src), *_vmap_keywords(result, scopes, module, src)]
    found.extend(_untransformed(result, scopes, src, signatures))
    result.diagnostics.extend(found)
    result.diagnostics.sort(key=lambda d: (d.line, d.col))


# -- JR010 ----------------------------------------------------------------------------------------


def _in_shardings(result: Analysis, src: Source) -> Iterator[Diagnostic]:
    for use in result.uses:
        refusing = use.transform.refuses_kwargs_with
        if refusing is None or not any(k.arg == refusing for k in use.written):
            continue
        for param in use.signature.marked(use.transform.markers):
            if param.kind is Kind.KEYWORD_ONLY:
                yield Diagnostic.at(
                    src, param.node, rules.SHARDED_KEYWORD, name=param.name, func=use.target.name
                )


# -- JR011 ----------------------------------------------------------------------------------------


def _spine(expr: ast.expr, scope: Scope) -> Iterator[ast.expr]:
    """``expr`` and the first arguments it nests through transforms of the table that keep
    their function's arguments (``jax.jit(jax.vmap(f))``), to any depth; not through anything
    else (``partial(vf, n=2)`` passes ``n`` itself)."""
    while True:
        yield expr
        if not isinstance(expr, ast.Call) or not expr.args:
            return
        ref = classify(expr.func, scope)
        if ref is None or not ref.transform.keeps_arguments:
            return
        expr = expr.args[0]


def _vmap_keywords(
    result: Analysis, scopes: ScopeTree, module: ast.Module, src: Source
) -> Iterator[Diagnostic]:
    """JR011: every call of a function a vmap use made that does not pass a Static parameter by
    position: by keyword (mapped over axis 0), or not at all, left to its default (the
    ``in_axes`` written has an entry for it, and vmap needs one per positional argument)."""
    mapped = [
        u
        for u in result.uses
        if u.transform.maps_keywords and u.signature.marked(u.transform.markers)
    ]
    if not mapped:
        return
    # What calls the mapped function: the def's own name (a decorator use), the name a call
    # site's result (or a transform around it) is bound to, names bound to those in turn
    # (``a = vf``, ``(a := vf)``), or the call site itself, under any nest of calls
    # (``jax.jit(vf)(x, n=2)``).
    callees: dict[str, Use] = {}
    direct: dict[int, Use] = {}
    for use in mapped:
        if use.kind is UseKind.DECORATOR:
            binding = single(ast.Name(use.target.name), scopes.module)
            if isinstance(binding, Defined) and binding.node is use.target:
                callees[use.target.name] = use
        else:
            direct[id(use.node)] = use

    def called_by(expr: ast.expr) -> Use | None:
        for e in _spine(expr, scopes.module):
            if id(e) in direct:
                return direct[id(e)]
            if isinstance(e, ast.Name) and e.id in callees:
                return callees[e.id]
            if isinstance(e, ast.NamedExpr) and isinstance(e.value, (ast.Name, ast.Call)):
                return called_by(e.value)
        return None

    bindings = [pair for node in ast.walk(module) if (pair := name_assigned(node)) is not None]
    bindings += [
        (node.target.id, node.value) for node in ast.walk(module) if isinstance(node, ast.NamedExpr)
    ]
    grew = True
    while grew:  # each round binds at least one more name: at most one round per binding
        grew = False
        for name, value in bindings:
            bound = called_by(value)
            if bound is not None and name not in callees:
                callees[name] = bound
                grew = True
    for node in ast.walk(module):
        if not isinstance(node, ast.Call):
            continue
        called = called_by(node.func)
        if called is None:
            continue
        statics = {p.name: p for p in called.signature.marked(called.transform.markers)}
        for keyword in node.keywords:
            if keyword.arg in statics:
                yield Diagnostic.at(
                    src,
                    keyword,
                    rules.VMAP_KEYWORD,
                    name=keyword.arg,
                    func=called.target.name,
                    transform=called.transform.name,
                )
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            continue  # how many are passed by position cannot be told
        passed = {k.arg for k in node.keywords}
        for param in statics.values():
            if (
                param.position is not None
                and param.position >= len(node.args)
                and param.name not in passed
            ):
                yield Diagnostic.at(
                    src,
                    node,
                    rules.VMAP_KEYWORD,
                    "default",
                    name=param.name,
                    func=called.target.name,
                    transform=called.transform.name,
                )


# -- JR012 ----------------------------------------------------------------------------------------


def _untransformed(
    result: Analysis, scopes: ScopeTree, src: Source, signatures: dict[int, Signature]
) -> Iterator[Diagnostic]:
    """Marked defs themselves handed to a function of ``TRACES``."""
    marked = {key: sig for key, sig in signatures.items() if sig.has_markers}
    decorated = {
        id(use.target)
        for use in result.uses
        if use.kind is UseKind.DECORATOR and use.signature.marked(use.transform.markers)
    }
    if not marked:
        return
    scopes.walk_deferred(None)
    for func, scope in scopes.defs:
        for deco in func.decorator_list:
            rows = TRACES.get(qualname(deco, scope) or "")
            sig = marked.get(id(func))
            if rows and sig is not None and any(_every_parameter(r) for r in rows):
                yield _finding(
                    src, deco, func, list(sig.marked(frozenset(Mark))), ast.unparse(deco)
                )
    for _, _, stmt, scope, _ in list(scopes.statements):
        for expr in own_expressions(stmt):
            for call in ast.walk(expr):
                if isinstance(call, ast.Call):
                    yield from _traced_call(call, scope, marked, decorated, src)


def _traced_call(
    call: ast.Call, scope: Scope, marked: dict[int, Signature], decorated: set[int], src: Source
) -> Iterator[Diagnostic]:
    rows = TRACES.get(qualname(call.func, scope) or "")
    if not rows:
        return
    for row in rows:
        given = _argument(call, row.function, row.name)
        if given is None:
            continue
        functions = (
            given.elts if row.branches and isinstance(given, (ast.Tuple, ast.List)) else [given]
        )
        for arg in functions:
            binding = single(arg, scope)
            if (
                not isinstance(binding, Defined)
                or id(binding.node) not in marked
                or id(binding.node) in decorated
            ):
                continue
            func, sig = binding.node, marked[id(binding.node)]
            reached = _reached(sig, row, call)
            if reached:
                yield _finding(src, arg, func, reached, ast.unparse(call.func))


def _every_parameter(row: Traces) -> bool:
    return row.passes is None and row.rest_from is None and row.packed is None


def _argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    """The call's argument for a parameter: at ``position`` (no ``*args`` before it), or by keyword."""
    before = call.args[: position + 1]
    if len(before) > position and not any(isinstance(a, ast.Starred) for a in before):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _reached(sig: Signature, row: Traces, call: ast.Call) -> list[Param]:
    """The marked parameters that receive an argument from the JAX function (all of them where
    the arguments cannot be counted: a ``*args``, a tuple that is not written out)."""
    params = list(sig.marked(frozenset(Mark)))
    if _every_parameter(row):
        return params
    if row.packed is not None:
        packed = _argument(call, *row.packed)
        if not isinstance(packed, (ast.Tuple, ast.List)) or any(
            isinstance(e, ast.Starred) for e in packed.elts
        ):
            return params
        return [p for p in params if p.position is not None and p.position < len(packed.elts)]
    if row.rest_from is not None:
        rest = call.args[row.rest_from :]
        if any(isinstance(a, ast.Starred) for a in rest) or any(
            k.arg is None for k in call.keywords
        ):
            return params
        count = len(rest)
        named = {k.arg for k in call.keywords if k.arg is not None}
        return [
            p for p in params if (p.position is not None and p.position < count) or p.name in named
        ]
    assert row.passes is not None
    return [p for p in params if p.position is not None and p.position < row.passes]


def _finding(
    src: Source, where: ast.AST, func: Function, params: list[Param], callee: str
) -> Diagnostic:
    names = ", ".join(repr(p.name) for p in params)
    s, es = ("s", "") if len(params) > 1 else ("", "es")
    return Diagnostic.at(
        src, where, rules.UNTRANSFORMED, s=s, es=es, names=names, func=func.name, callee=callee
    )
