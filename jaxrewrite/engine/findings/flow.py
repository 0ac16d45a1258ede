"""Concreteness through one function body (JR006): which expressions hold traced values.

Each value is ``ARRAY`` (surely a tracer, or making it raises), ``TREE`` (traced, of unknown
structure), a ``Tree`` (a traced pytree of a class of the module) or ``None`` (concrete or unknown:
silent). Flow-insensitive on purpose: a name is traced only when every binding of it is.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from jaxrewrite.engine.read.nodes import child_nodes, walk
from jaxrewrite.engine.read.resolve import qualname
from jaxrewrite.engine.read.scopes import Scope
from jaxrewrite.engine.rulebook.table import TRACED_AGAIN

ARRAY = "array"
TREE = "tree"
Function = ast.FunctionDef | ast.AsyncFunctionDef
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Tree:
    """A traced instance of a pytree class of the module: each field's state (a static field's is
    None). Its parts other than by attribute are ``TREE``."""

    name: str
    fields: tuple[tuple[str, State], ...]
    #: How the class's own library makes a field static (the fix a finding names).
    static: str = ""
    #: ``"dict"``: read by key (a TypedDict); ``"tuple"``: by index too (a NamedTuple).
    keyed: str = ""
    #: The class's own methods and properties, by name: (``"method"``/``"property"``, the def).
    members: tuple[tuple[str, str, ast.FunctionDef], ...] = ()

    def member(self, name: str) -> tuple[str, ast.FunctionDef] | None:
        return next(((kind, node) for n, kind, node in self.members if n == name), None)

    def field(self, name: str) -> State:
        return None if self.keyed == "dict" else dict(self.fields).get(name)

    def item(self, key: str | int) -> State:
        if self.keyed == "dict" and isinstance(key, str):
            return dict(self.fields).get(key)
        count = len(self.fields)
        if (
            self.keyed == "tuple"
            and isinstance(key, int)
            and not isinstance(key, bool)
            and -count <= key < count
        ):
            return self.fields[key][1]
        return TREE


State = str | Tree | None
TOP = "top"  # not yet known during the fixed point

#: Attributes of an array that are Python values under tracing.
CONCRETE_ATTRS = frozenset(
    {"shape", "ndim", "dtype", "size", "aval", "sharding", "weak_type", "itemsize", "nbytes"}
)
#: Array functions of JAX that return Python values (shapes, dtypes, predicates on types).
_CONCRETE_RESULTS = frozenset(
    {
        "shape",
        "ndim",
        "size",
        "result_type",
        "iscomplexobj",
        "isrealobj",
        "isscalar",
        "issubdtype",
        "isdtype",
        "promote_types",
        "can_cast",
        "finfo",
        "iinfo",
        "dtype",
        "typeof",
        "broadcast_shapes",
        "get_printoptions",
    }
)
_ARRAY_MODULES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.random.", "jax.scipy.")
#: Calls of those modules that make no array: functions (initializers, vectorize), key shapes.
_NOT_ARRAYS = (
    ".initializers.",
    "vectorize",
    "frompyfunc",
    "PRNGKey",
    "custom_",
    "axis_size",
    "einsum_path",
)
#: Methods of an array that return Python values.
_TO_PYTHON = ("item", "tolist", "__index__", "__int__", "__bool__")
_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_EQUALITY = (ast.Eq, ast.NotEq)

Resolve = Callable[[ast.expr], "str | None"]
Sources = dict[str, list[tuple[str, "ast.expr | None"]]]
#: The state a call of one of the module's own functions returns, given its arguments' states
#: (or, given an attribute, what a property of a ``Tree`` returns).
Returns = Callable[[ast.Call | ast.Attribute, "Flow"], State]


def named(expr: ast.expr, scope: Scope) -> str | None:
    """The qualified name ``expr`` denotes (a name bound nowhere is a builtin)."""
    found = qualname(expr, scope)
    if found is None and isinstance(expr, ast.Name) and scope.lookup(expr.id) is None:
        return f"builtins.{expr.id}"
    return found


def meet(a: State, b: State) -> State:
    if a == TOP:
        return b
    if b == TOP:
        return a
    if a is None or b is None:
        return None
    return a if a == b else TREE


def whole(state: State) -> State:
    return TREE if isinstance(state, Tree) else state


def number(expr: ast.expr) -> bool:
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        expr = expr.operand
    return isinstance(expr, ast.Constant) and type(expr.value) in (int, float, complex)


class Flow:
    """The states of one def's names, given the states of some of its parameters (``seeds``);
    ``plain``: the use's other parameters that are surely arrays; ``staged``: every jnp/lax call is
    a tracer, whatever it is given (under jit)."""

    def __init__(
        self,
        sources: Sources,
        seeds: dict[str, State],
        resolve: Resolve,
        returns: Returns,
        plain: frozenset[str],
        staged: bool,
    ):
        self.resolve, self.returns, self.plain, self.staged = resolve, returns, plain, staged
        self.names: dict[str, State] = {**dict.fromkeys(sources, TOP), **seeds}
        for _ in range(8):
            changed = False
            for name, found in sources.items():
                state: State = seeds.get(name, TOP)
                for how, expr in found:
                    got = None if expr is None else self.state(expr)
                    if how == "iter":  # a tracer's items are tracers; a container's, anything
                        got = ARRAY if got == ARRAY else None
                    state = meet(state, whole(got) if how == "part" else got)
                if state != self.names[name]:
                    self.names[name], changed = state, True
            if not changed:
                break
        self.names = {k: (None if v == TOP else v) for k, v in self.names.items()}

    def traced(self, expr: ast.expr) -> bool:
        state = self.state(expr)
        return state is not None and state != TOP

    def state(self, expr: ast.expr) -> State:
        if isinstance(expr, ast.Name):
            return self.names.get(expr.id)
        if isinstance(expr, (ast.Starred, ast.NamedExpr)):
            return self.state(expr.value)
        if isinstance(expr, ast.BinOp):
            if isinstance(expr.op, ast.Mod) and isinstance(
                expr.left, (ast.Constant, ast.JoinedStr)
            ):
                return None  # "%d" % x formats, it does not compute
            left, right = self.state(expr.left), self.state(expr.right)
            if ARRAY in (left, right):
                return ARRAY
            return TREE if TREE in (left, right) else None
        if isinstance(expr, ast.UnaryOp):
            return None if isinstance(expr.op, ast.Not) else self.state(expr.operand)
        if isinstance(expr, ast.Compare):
            return self._compare(expr)
        if isinstance(expr, ast.BoolOp):
            *first, last = expr.values
            constants = all(isinstance(v, ast.Constant) for v in first)
            return ARRAY if constants and self.state(last) == ARRAY else None
        if isinstance(expr, ast.IfExp):
            return meet(self.state(expr.body), self.state(expr.orelse))
        if isinstance(expr, ast.Subscript):
            value = self.state(expr.value)
            key = expr.slice.value if isinstance(expr.slice, ast.Constant) else None
            if isinstance(value, Tree) and value.keyed and isinstance(key, (str, int)):
                return value.item(key)
            return whole(value)
        if isinstance(expr, ast.Attribute):
            value = self.state(expr.value)
            if isinstance(value, Tree):
                found = value.member(expr.attr)
                if found is not None and found[0] == "property":
                    return self.returns(expr, self)
                return value.field(expr.attr)
            return value if value == ARRAY and expr.attr not in CONCRETE_ATTRS else None
        if isinstance(expr, (ast.Tuple, ast.List)):
            parts = [self.state(e) for e in expr.elts]
            if not any(p is not None and p != TOP for p in parts):
                return None
            if any(isinstance(e, ast.Starred) for e in expr.elts) or TOP in parts:
                return TREE
            # Each part keeps its own state: ``return x * 2, x.shape[0]``.
            return Tree("tuple", tuple((str(i), p) for i, p in enumerate(parts)), keyed="tuple")
        if isinstance(expr, ast.Call):
            return self._call(expr)
        return None

    def array(self, expr: ast.expr) -> bool:
        return self.state(expr) == ARRAY or (isinstance(expr, ast.Name) and expr.id in self.plain)

    def _compare(self, cmp: ast.Compare) -> State:
        operands = [cmp.left, *cmp.comparators]
        states = [self.state(o) for o in operands]
        if all(s is None for s in states) or any(s == TOP for s in states):
            return None
        if not all(s is not None or number(o) or self.array(o) for o, s in zip(operands, states)):
            return None  # something other than numbers and traced values
        ordering = all(isinstance(op, _ORDERING) for op in cmp.ops)
        equality = all(isinstance(op, _ORDERING + _EQUALITY) for op in cmp.ops)
        return ARRAY if ordering or (equality and ARRAY in states) else None

    def _call(self, call: ast.Call) -> State:
        func = call.func
        if isinstance(func, ast.Call):
            inner = self.resolve(func.func) or ""
            return TREE if inner in TRACED_AGAIN else None
        if isinstance(func, ast.Attribute) and self.state(func.value) == ARRAY:
            return None if func.attr in _TO_PYTHON else ARRAY
        name = self.resolve(func)
        if name is not None:
            if not name.startswith(_ARRAY_MODULES) or name.rpartition(".")[2] in _CONCRETE_RESULTS:
                return None
            if self.staged and not any(part in name for part in _NOT_ARRAYS):
                return ARRAY
            args = [*call.args, *(k.value for k in call.keywords)]
            return ARRAY if any(self.traced(a) for a in args) else None
        if isinstance(func, ast.Name) and func.id not in self.names:
            return self.returns(call, self)
        if isinstance(self.state(func.value if isinstance(func, ast.Attribute) else func), Tree):
            return self.returns(call, self)  # a method of a traced pytree
        return None


def sources(body: list[ast.stmt]) -> Sources:
    """Each name a body binds, with how and from what."""
    out: Sources = {}
    for stmt in body:
        for name, how, expr in _bindings(stmt):
            out.setdefault(name, []).append((how, expr))
    return out


def _bindings(stmt: ast.stmt) -> Iterator[tuple[str, str, ast.expr | None]]:
    """(name, how, value) for each binding the statement makes in its own scope."""
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, "opaque", None
            continue
        if isinstance(
            node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
        ):
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield from _targets(target, "value", node.value)
            stack.extend(
                t for t in node.targets if not isinstance(t, (ast.Name, ast.Tuple, ast.List))
            )
            stack.append(node.value)
            continue
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            yield (
                node.target.id,
                "value",
                ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value),
            )
            stack.append(node.value)
            continue
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            yield node.target.id, "value", node.value
            stack.extend([node.value] if node.value is not None else [])
            continue
        if isinstance(node, (ast.For, ast.AsyncFor)):
            yield from _targets(node.target, "iter", node.iter)
            stack.extend([node.iter, *node.body, *node.orelse])
            continue
        if isinstance(node, ast.NamedExpr):
            yield node.target.id, "value", node.value
            stack.append(node.value)
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            yield node.id, "opaque", None  # with-as, del, and whatever else stores it
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).partition(".")[0], "opaque", None
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            yield from ((n, "opaque", None) for n in node.names)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            yield node.name, "opaque", None
        elif isinstance(node, ast.MatchMapping) and node.rest:
            yield node.rest, "opaque", None
        stack.extend(child_nodes(node))


def _targets(
    target: ast.expr, how: str, value: ast.expr
) -> Iterator[tuple[str, str, ast.expr | None]]:
    if isinstance(target, ast.Name):
        yield target.id, how, value
    elif isinstance(target, (ast.Tuple, ast.List)):
        literal = (
            value.elts if how == "value" and isinstance(value, (ast.Tuple, ast.List)) else None
        )
        starred = any(isinstance(e, ast.Starred) for e in [*target.elts, *(literal or [])])
        if literal is not None and len(literal) == len(target.elts) and not starred:
            # ``t, n = x * 2, x.shape[0]``: each name is its own part, not the whole tuple's.
            for elt, part in zip(target.elts, literal):
                yield from _targets(elt, how, part)
            return
        for i, elt in enumerate(target.elts):
            if isinstance(elt, ast.Starred):
                yield from ((n.id, "opaque", None) for n in walk(elt) if isinstance(n, ast.Name))
            elif how == "value" and isinstance(elt, ast.Name) and not starred:
                # A NamedTuple's own part, read as ``value[i]`` is.
                yield elt.id, "value", ast.Subscript(value, ast.Constant(i), ast.Load())
            else:
                yield from _targets(elt, "part" if how == "value" else how, value)
