"""Walks of the syntax tree, with no name resolved: ``ast.walk`` made faster (``check``'s largest
cost) by a table of each AST class's fields that may hold a node; the one walker of statement
blocks; the names a target, a pattern, a walrus or a parameter list binds.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator, Sequence

#: Fields whose values are context or operator singletons: leaves no walk looks for.
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})
#: An AST class's fields that may hold nodes, read from its first instance (None may be a node).
_FIELDS: dict[type, tuple[str, ...]] = {}
_AST = ast.AST
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _fields(node: ast.AST) -> tuple[str, ...]:
    kind = type(node)
    _FIELDS[kind] = fields = tuple(
        name
        for name in kind._fields
        if name not in _LEAF_FIELDS
        and ((value := getattr(node, name, None)) is None or isinstance(value, (list, _AST)))
    )
    return fields


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
    """``ast.walk(node)``, in the same order, without the context and operator leaves."""
    yield node
    for child, _, _ in family(node, breadth=True):
        yield child


def family(root: ast.AST, breadth: bool = False) -> Iterator[tuple[ast.AST, ast.AST, ast.AST]]:
    """Every node below ``root`` as (node, its parent, the innermost def or lambda around it, or
    ``root``), depth first from the last child (or breadth first), with no call per node: one
    pass for what needs the parent or scope."""
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


#: Statements that hold statement blocks, with the fields that hold them in walk order
#: (``handlers`` and ``cases``: the body of each).
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
_BLOCK_ITEMS = (ast.stmt, ast.excepthandler, ast.match_case)
_NESTS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_OPAQUE = (*_NESTS, ast.Lambda)


def blocks(stmt: ast.AST) -> Iterator[tuple[list[ast.stmt], ast.AST]]:
    """The statement blocks directly inside ``stmt``, each with what holds it: ``stmt``, or the
    ``except`` handler or ``case`` whose body it is."""
    for name in BLOCK_FIELDS.get(type(stmt), ()):
        value = getattr(stmt, name)
        if name in _CLAUSES:
            for clause in value:
                yield clause.body, clause
        else:
            yield value, stmt


def statements(body: list[ast.stmt], into_defs: bool = True) -> Iterator[ast.stmt]:
    """Every statement of ``body`` and of its nested blocks, each before its blocks;
    ``into_defs`` False: not into the bodies of defs and classes."""
    pending = list(reversed(body))
    while pending:
        stmt = pending.pop()
        yield stmt
        if into_defs or not isinstance(stmt, _NESTS):
            for block, _ in reversed(list(blocks(stmt))):
                pending.extend(reversed(block))


def own_nodes(nodes: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """``nodes`` and every node below them, last first, not into nested defs, classes and
    lambdas."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _OPAQUE):
            stack.extend(child_nodes(node))


def bindings(
    nodes: Sequence[ast.AST], nested: bool = False, declared: bool = True
) -> tuple[set[str], dict[str, list[ast.expr]]]:
    """The names ``nodes`` bind, and the values targets bind them to (a None constant for all but
    ``name = value``: one value means bound once, plainly). ``nested``: also what nested defs,
    classes and lambdas bind. ``declared`` False: imports, ``global`` and ``nonlocal`` bind
    nothing, for a reader that follows a ``global`` name to the module's binding."""
    names: set[str] = set()
    values: dict[str, list[ast.expr]] = {}
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if (pair := name_assigned(node)) is not None:
            names.add(pair[0])
            values.setdefault(pair[0], []).append(pair[1])
            # Not into the target: a direct Name child is it or binds nothing.
            stack.extend(child for child in child_nodes(node) if not isinstance(child, ast.Name))
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
            values.setdefault(node.id, []).append(ast.Constant(None))  # a value not known
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, _NESTS):
            names.add(node.name)
        elif declared and isinstance(node, ast.alias):
            names.add((node.asname or node.name).partition(".")[0])
        elif declared and isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        if nested or not isinstance(node, _OPAQUE):
            stack.extend(child_nodes(node))
    return names, values


def name_assigned(node: ast.AST) -> tuple[str, ast.expr] | None:
    """``name = value`` or ``name: T = value``: the one name a statement binds and its value."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return (target.id, node.value) if isinstance(target, ast.Name) else None
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
        return node.target.id, node.value
    return None


def target_names(target: ast.expr) -> Iterator[str]:
    """The names an assignment target binds (``a``, ``a, (b, *c)``)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from target_names(element)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


def pattern_captures(pattern: ast.pattern) -> Iterator[str]:
    """The names a ``case`` pattern binds (captures, ``*rest``, ``**rest``, ``as`` names)."""
    for node in ast.walk(pattern):  # only MatchAs and MatchStar have a ``name``
        name = node.rest if isinstance(node, ast.MatchMapping) else getattr(node, "name", None)
        if name:
            yield name


def walrus_targets(
    node: ast.AST,
    sure: bool,
    out: list[tuple[str, bool, ast.expr | None]],
    own: frozenset[str] = frozenset(),
) -> None:
    """The names ``:=`` binds in ``node``'s scope (not in a lambda's body), each with whether it
    surely runs when ``node`` does (``sure``: whether ``node`` surely runs) and its value (None
    where it reads a name of ``own``, those the comprehensions around it bind)."""
    parts: list[tuple[ast.AST, bool, frozenset[str]]]
    if isinstance(node, ast.NamedExpr):
        value = node.value
        if isinstance(node.target, ast.Name):
            foreign = own and any(isinstance(n, ast.Name) and n.id in own for n in ast.walk(value))
            out.append((node.target.id, sure, None if foreign else value))
        parts = [(value, sure, own)]
    elif isinstance(node, ast.Lambda):  # not its body: its own scope
        args = node.args
        defaults = (*args.defaults, *(d for d in args.kw_defaults if d is not None))
        parts = [(default, sure, own) for default in defaults]
    elif isinstance(node, ast.BoolOp):  # the first value runs, the others maybe
        parts = [(value, sure and i == 0, own) for i, value in enumerate(node.values)]
    elif isinstance(node, ast.IfExp):
        parts = [(node.test, sure, own), (node.body, False, own), (node.orelse, False, own)]
    elif type(node) in COMPREHENSIONS:
        outside, inside, targets = comprehension_parts(node)
        bound = own | {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        parts = [(outside, sure, own), *((part, False, bound) for part in inside)]
    else:
        parts = [(child, sure, own) for child in ast.iter_child_nodes(node)]
    for child, runs, names in parts:
        walrus_targets(child, runs, out, names)


def own_expressions(stmt: ast.AST) -> list[ast.AST]:
    """A statement's expressions, without the statements, handlers and cases of its blocks."""
    return [c for c in child_nodes(stmt) if not isinstance(c, _BLOCK_ITEMS)]


def parameter_names(args: ast.arguments) -> list[str]:
    names = [arg.arg for group in (args.posonlyargs, args.args, args.kwonlyargs) for arg in group]
    names.extend(extra.arg for extra in (args.vararg, args.kwarg) if extra is not None)
    return names


COMPREHENSIONS: dict[type, tuple[str, ...]] = {
    ast.ListComp: ("elt",),
    ast.SetComp: ("elt",),
    ast.GeneratorExp: ("elt",),
    ast.DictComp: ("key", "value"),
}


def comprehension_parts(node: ast.AST) -> tuple[ast.expr, list[ast.expr], list[ast.expr]]:
    """A comprehension as (its first iterable, run in the enclosing scope; every other part, run
    in its own scope, maybe not at all; the targets it binds there)."""
    generators: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
    inside: list[ast.expr] = [generator.iter for generator in generators[1:]]
    inside.extend(condition for generator in generators for condition in generator.ifs)
    inside.extend(getattr(node, name) for name in COMPREHENSIONS[type(node)])
    return generators[0].iter, inside, [generator.target for generator in generators]
