"""Expression scopes: the lambdas and comprehensions of a statement, built only where a call site
is looked for (``filters``), never for the whole module (``scopes.build_scopes`` stays on
statements: that is the hot path)."""

from __future__ import annotations

import ast

from jaxrewrite.engine.read.nodes import (
    COMPREHENSIONS,
    child_nodes,
    comprehension_parts,
    parameter_names,
    target_names,
    walrus_targets,
)
from jaxrewrite.engine.read.scopes import OPAQUE, Scope, ScopeKind, loop_choice


def calls_in(expr: ast.AST, scope: Scope, out: list[tuple[ast.Call, Scope]]) -> None:
    """Every call in ``expr`` with the scope it runs in, in source order: a lambda's body and a
    comprehension's elements run in scopes of their own, whose parameters and targets shadow
    outer names. A loop, not recursion: an expression as deep as Python's parser takes (a long
    generated sum) is deeper than Python's recursion limit."""
    stack: list[tuple[ast.AST, Scope]] = [(expr, scope)]
    while stack:
        node, where = stack.pop()
        kind = type(node)
        if kind is ast.Call:
            out.append((node, where))  # type: ignore[arg-type]
        elif kind is ast.Lambda:
            args = node.args  # type: ignore[attr-defined]
            inner = Scope(ScopeKind.FUNCTION, where)
            for name in parameter_names(args):
                inner.bind(name, OPAQUE)
            walrus: list[tuple[str, bool, ast.expr | None]] = []
            walrus_targets(node.body, True, walrus)  # type: ignore[attr-defined]
            for name, _, _ in walrus:
                inner.bind(name, OPAQUE)
            stack.append((node.body, inner))  # type: ignore[attr-defined]
            defaults = (*args.defaults, *(d for d in args.kw_defaults if d is not None))
            stack.extend((default, where) for default in reversed(defaults))
            continue
        elif kind in COMPREHENSIONS:
            outside, inside, _ = comprehension_parts(node)
            inner = Scope(ScopeKind.FUNCTION, where)
            generators: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
            for index, generator in enumerate(generators):
                # The first iterable runs in the enclosing scope, the others in this one.
                made = loop_choice(generator.target, generator.iter, where if index == 0 else inner)
                for name in target_names(generator.target):
                    inner.bind(name, made, (0, 0))
            stack.extend((part, inner) for part in reversed(inside))
            stack.append((outside, where))
            continue
        stack.extend((child, where) for child in reversed(child_nodes(node)))
