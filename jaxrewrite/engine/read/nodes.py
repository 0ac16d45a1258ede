"""Faster ``ast.iter_child_nodes`` and ``ast.walk``, for the walks ``check`` makes over every
analyzed module (call sites, the trace-time pass), its largest cost (docs/design.md).

Why faster: each AST class's fields are read once into a table without those that hold no node
(names, numbers, and ``ctx``/``op``/``ops``, whose values are the shared context and operator
singletons, which hold nothing and are never what a walk looks for); ``ast.iter_child_nodes``
reads every field through a generator per node. Same order as ``ast``'s, the leaves left out.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator, Sequence

#: Fields whose values are context or operator singletons: leaves no walk looks for.
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})
#: An AST class's fields that may hold nodes, read from its first instance: a field the grammar
#: types as a name, a number or a string never holds one (a field that is None there may).
_FIELDS: dict[type, tuple[str, ...]] = {}
_AST = ast.AST
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _fields(node: ast.AST) -> tuple[str, ...]:
    kind = type(node)
    fields = tuple(
        name
        for name in kind._fields
        if name not in _LEAF_FIELDS and _may_hold_nodes(getattr(node, name, None))
    )
    _FIELDS[kind] = fields
    return fields


def _may_hold_nodes(value: object) -> bool:
    return value is None or isinstance(value, (list, _AST))


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """``list(ast.iter_child_nodes(node))`` without the context and operator leaves."""
    out: list[ast.AST] = []
    fields = _FIELDS.get(type(node))
    for name in _fields(node) if fields is None else fields:
        value = getattr(node, name, None)
        if type(value) is list:
            out.extend(item for item in value if isinstance(item, _AST))
        elif isinstance(value, _AST):
            out.append(value)
    return out


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk(node)`` (breadth first, in the same order) without the context and operator
    leaves."""
    yield node
    for child, _, _ in _found(node, breadth=True):
        yield child


def family(root: ast.AST) -> Iterator[tuple[ast.AST, ast.AST, ast.AST]]:
    """Every node below ``root`` as (node, its parent, the innermost def or lambda around it, or
    ``root``), depth first from the last child (a stack): one pass, faster than
    ``iter_child_nodes``, for what needs the parent or the scope of each node (``passed.Sites``)."""
    return _found(root, breadth=False)


def _found(root: ast.AST, breadth: bool) -> Iterator[tuple[ast.AST, ast.AST, ast.AST]]:
    """Each node below ``root`` as it is found (node, parent, def or lambda around it): each
    node's children in order, the nodes to open next taken first in first out (``breadth``) or
    last in first out. One loop, inline: no call per node."""
    todo: deque[tuple[ast.AST, ast.AST]] = deque([(root, root)])
    take, push, fields = todo.popleft if breadth else todo.pop, todo.append, _FIELDS.get
    while todo:
        node, inner = take()
        if isinstance(node, _SCOPES):
            inner = node
        names = fields(type(node))
        for name in _fields(node) if names is None else names:
            value = getattr(node, name, None)
            if type(value) is list:
                for child in value:
                    if isinstance(child, _AST):
                        yield child, node, inner
                        push((child, inner))
            elif isinstance(value, _AST):
                yield value, node, inner
                push((value, inner))


#: Statements that hold statement blocks, with the fields that hold them in the order the walks
#: take them (``handlers`` and ``cases``: the body of each, after the other blocks).
BLOCK_FIELDS: dict[type, tuple[str, ...]] = {
    ast.FunctionDef: ("body",),
    ast.AsyncFunctionDef: ("body",),
    ast.ClassDef: ("body",),
    ast.If: ("body", "orelse"),
    ast.For: ("body", "orelse"),
    ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.With: ("body",),
    ast.AsyncWith: ("body",),
    ast.Try: ("body", "orelse", "finalbody", "handlers"),
    ast.Match: ("cases",),
}
if hasattr(ast, "TryStar"):  # Python 3.11+
    BLOCK_FIELDS[ast.TryStar] = BLOCK_FIELDS[ast.Try]
_CLAUSES = frozenset({"handlers", "cases"})
_NESTS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_OPAQUE = (*_NESTS, ast.Lambda)


def blocks(stmt: ast.AST) -> Iterator[tuple[list[ast.stmt], ast.AST]]:
    """The statement blocks directly inside ``stmt``, each with what holds it: ``stmt`` itself, or
    the ``except`` handler or ``case`` whose body it is. None for a simple statement."""
    for name in BLOCK_FIELDS.get(type(stmt), ()):
        value = getattr(stmt, name)
        if name in _CLAUSES:
            for clause in value:
                yield clause.body, clause
        else:
            yield value, stmt


def statements(body: list[ast.stmt], into_defs: bool = True) -> Iterator[ast.stmt]:
    """Every statement of ``body`` and of the blocks nested in it, each before its blocks, in the
    order ``blocks`` gives them; ``into_defs`` False: not into the bodies of defs and classes."""
    pending = list(reversed(body))
    while pending:
        stmt = pending.pop()
        yield stmt
        if into_defs or not isinstance(stmt, _NESTS):
            for block, _ in reversed(list(blocks(stmt))):
                pending.extend(reversed(block))


def own_nodes(nodes: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """``nodes`` and every node below them outside nested defs, classes and lambdas (which are
    yielded, not entered), last first (a stack)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _OPAQUE):
            stack.extend(child_nodes(node))


def name_assigned(node: ast.AST) -> tuple[str, ast.expr] | None:
    """``name = value`` or ``name: T = value``: the one name a statement binds and its value. An
    annotated assignment binds as a plain one does; one without a value binds nothing."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return (target.id, node.value) if isinstance(target, ast.Name) else None
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
        return node.target.id, node.value
    return None
