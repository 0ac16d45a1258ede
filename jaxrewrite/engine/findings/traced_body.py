"""One transformed def's body read for JR006: what it does with each parameter a transform traces
(``Body.findings``). The pass that finds the uses is ``tracetime.py``; the classes whose instances
are no pytrees are ``plain_classes.py``'s, the fix each finding names ``static_fix.py``'s."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jaxrewrite.engine.findings import closures, linen, trees
from jaxrewrite.engine.findings.call_arguments import Passed, method_kind
from jaxrewrite.engine.findings.checks.traced_argument import RULE as TRACED
from jaxrewrite.engine.findings.every_trace import Truth, statements
from jaxrewrite.engine.findings.flow import ARRAY, TREE, Flow, Sources, State, Tree, meet, sources
from jaxrewrite.engine.findings.plain_classes import Classes
from jaxrewrite.engine.findings.static_fix import field_fix, fix_text, has_default
from jaxrewrite.engine.read.nodes import name_assigned, own_nodes, walk
from jaxrewrite.engine.read.resolve import qualname, unquoted
from jaxrewrite.engine.read.scopes import Assigned, Defined, DefinedClass, Scope
from jaxrewrite.engine.read.signature import Param
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import concrete_table
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import Transform

if TYPE_CHECKING:
    pass

Function = ast.FunctionDef | ast.AsyncFunctionDef
CODE = TRACED.code

#: JAX's errors, as its messages name them.
INDEX = "TracerIntegerConversionError"
CONCRETE = "ConcretizationTypeError"
BOOL = "TracerBoolConversionError"
SHAPE = "TypeError (shapes must be concrete integers)"
SLICE = "IndexError (slice entries must be static integers)"
HASH = "TypeError (unhashable type: a tracer as a dict key)"
NOT_JAX = "TypeError (not a valid JAX type)"
ARRAY_CONVERSION = "TracerArrayConversionError"

#: Calls whose (any) argument JAX needs as a Python value, and what it raises.
_CONVERSIONS: dict[str, str] = {
    "builtins.range": INDEX,
    "operator.index": INDEX,
    "builtins.int": CONCRETE,
    "builtins.float": CONCRETE,
    "builtins.complex": CONCRETE,
    "builtins.bool": BOOL,
}
_ARANGE = "jax.numpy.arange"
#: Methods of a traced array that are the jnp function of the same name on it (``x.min(axis)``).
_ARRAY_METHODS = frozenset(
    {
        "sum",
        "min",
        "max",
        "mean",
        "prod",
        "std",
        "var",
        "argmin",
        "argmax",
        "all",
        "any",
        "cumsum",
        "cumprod",
        "squeeze",
        "repeat",
        "take",
        "swapaxes",
    }
)
#: NumPy's constructors, which ask a tracer for a NumPy array (``np.asarray(lb)`` under jit).
_NUMPY_ARRAYS = frozenset({"numpy.array", "numpy.asarray", "numpy.asanyarray"})
#: How deep calls of the module's own functions are followed.
_HELPER_DEPTH = 3
#: Indexing a Python container with a tracer: (JAX's error, why).
_CONTAINER_ERRORS = {
    "dict": (HASH, "a dict key must be hashable"),
    "list": (INDEX, "a list index must be a Python int"),
}

#: Annotations no argument JAX traces can have: (qualname, what to call it).
_NEVER_TRACED: dict[str, str] = {
    "typing.Callable": "a function",
    "builtins.str": "a str",
    "builtins.bytes": "bytes",
    "builtins.type": "a class",
    "typing.Type": "a class",
}
_ENUMS = frozenset({"enum.Enum", "enum.Flag", "enum.StrEnum"})  # IntEnum/IntFlag values are ints
_NAMEDTUPLE = "typing.NamedTuple"
_CALLABLES = frozenset({"typing.Callable", "collections.abc.Callable"})


@dataclass(frozen=True)
class Traced:
    """A parameter one use of a transform traces."""

    param: Param
    use_node: ast.expr
    transform: Transform
    #: What the module's visible calls pass to it (``engine.findings.call_arguments``).
    passed: tuple[Passed, ...] = ()


class Body:
    """One def's body: its annotations, what it rebinds, and the uses that run on every trace."""

    def __init__(
        self, func: Function, scope: Scope, src: Source, defs: dict[int, Scope], depth: int = 0
    ) -> None:
        self.func = func
        self.scope = scope
        self.src = src
        self.defs = defs
        self.depth = depth
        #: Flows of the module's functions this body calls, by (def, what the call passes).
        self._flows: dict[tuple[int, frozenset[tuple[str, State]]], tuple[Body, Flow]] = {}
        self._sources: Sources | None = None
        self._inner: dict[str, closures.Function] | None = None
        #: The bodies of the functions this one runs, read once each.
        self._bodies: dict[int, Body] = {}
        self.stored: set[str] = set()
        self.local_dicts: dict[str, list[ast.expr]] = {}
        self.params = {a.arg for a in walk(func.args) if isinstance(a, ast.arg)}
        for node in (n for stmt in func.body for n in walk(stmt)):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                self.stored.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.stored.add(node.name)
            elif isinstance(node, ast.alias):
                self.stored.add((node.asname or node.name).partition(".")[0])
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                self.stored.update(node.names)
            elif isinstance(node, ast.arg):
                self.stored.add(node.arg)  # a lambda's or nested def's parameter may shadow ours
            if (pair := name_assigned(node)) is not None:
                self.local_dicts.setdefault(pair[0], []).append(pair[1])
        self._sure: list[ast.AST | Truth] | None = None

    # -- names -----------------------------------------------------------------------------

    def resolve(self, expr: ast.expr) -> str | None:
        """What a name in the body denotes, when no local binding can hide it."""
        head = expr
        while isinstance(head, ast.Attribute):
            head = head.value
        if not isinstance(head, ast.Name) or head.id in self.stored or head.id in self.params:
            return None
        found = qualname(expr, self.scope)
        if found is not None:
            return found
        if isinstance(expr, ast.Name) and self.scope.lookup(expr.id) is None:
            return f"builtins.{expr.id}"
        return None

    def annotation(self, param: Param) -> ast.expr | None:
        return unquoted(param.node.annotation)

    def scalar_or_array(self, param: Param) -> bool:
        ann = self.annotation(param)
        return ann is not None and trees.scalar_or_array(ann, self.scope)

    def tree(self, param: Param, classes: Classes) -> Tree | None:
        """The fields of the pytree class of the module that the parameter is annotated with, or
        whose method takes it as ``self``."""
        ann = self.annotation(param)
        if ann is not None:
            found = trees.annotated(ann, self.scope, self.src)
            return found if isinstance(found, Tree) else None
        owner = self._self_of(param, classes)
        if owner is None or self.scope.parent is None:
            return None
        return trees.tree((DefinedClass(owner, self.scope), self.scope.parent), self.src)

    def untraceable(self, param: Param, classes: Classes) -> str | None:
        """What the annotation (or, for ``self``, the class) says the value is, when no traced
        value can be one."""
        ann = self.annotation(param)
        if ann is None:
            return self._self_of_plain_class(param, classes)
        name = trees.type_name(ann, self.scope)
        if name in _NEVER_TRACED:
            return _NEVER_TRACED[name]
        if isinstance(ann, ast.Subscript) or not isinstance(ann, ast.Name):
            return None
        found = self.scope.lookup(ann.id)
        if found is None or len(found[0]) != 1 or not isinstance(found[0][0], DefinedClass):
            return None
        binding = found[0][0]
        bases = {qualname(b, self.scope) for b in binding.node.bases}
        if bases & _ENUMS:
            return f"a member of the enum {ann.id}"
        if _NAMEDTUPLE in bases and self._holds_functions(binding):
            return f"a NamedTuple holding functions ({ann.id})"
        if binding.body.parent is not None and classes.plain(binding, binding.body.parent):
            return f"an instance of {ann.id}, a class of this module that is not a pytree"
        return None

    def arrays(self, traced: list[Traced]) -> frozenset[str]:
        """The traced parameters that are surely arrays (a visible call passes each a number or
        an array, and none anything else; or a scalar or array annotation), never rebound."""
        out = set()
        for t in traced:
            passed = [p.untraceable is None for p in t.passed]
            surely = (passed and all(passed)) or self.scalar_or_array(t.param)
            if surely and t.param.name not in self.stored:
                out.add(t.param.name)
        return frozenset(out)

    def _self_of_plain_class(self, param: Param, classes: Classes) -> str | None:
        """``self`` of a method of a plain class (the most common jit mistake)."""
        owner = self._self_of(param, classes)
        parent = self.scope.parent
        if owner is None or parent is None or not classes.plain_node(owner, parent):
            return None
        return f"an instance of {owner.name} as self, a class of this module that is not a pytree"

    def _self_of(self, param: Param, classes: Classes) -> ast.ClassDef | None:
        """The class whose instance the parameter is, as ``self`` of an instance method."""
        owner = classes.owner(self.func)
        positional = [*self.func.args.posonlyargs, *self.func.args.args]
        if owner is None or not positional or positional[0] is not param.node:
            return None
        return owner if method_kind(self.func, self.scope) == "instance" else None

    def _holds_functions(self, binding: DefinedClass) -> bool:
        for stmt in binding.node.body:
            if isinstance(stmt, ast.AnnAssign):
                ann = (
                    stmt.annotation.value
                    if isinstance(stmt.annotation, ast.Subscript)
                    else stmt.annotation
                )
                if qualname(ann, binding.body) in _CALLABLES:
                    return True
        return False

    # -- the body --------------------------------------------------------------------------

    def sure(self) -> list[ast.AST | Truth]:
        """The expressions evaluated on every trace, in order."""
        if self._sure is None:
            out: list[ast.AST | Truth] = []
            statements(self.func.body, out, self.resolve)
            self._sure = out
        return self._sure

    def findings(
        self,
        t: Traced,
        classes: Classes,
        uses_jaxrewrite: bool,
        plain: frozenset[str] = frozenset(),
    ) -> Iterator[tuple[Diagnostic, bool]]:
        """Each finding, with whether making its parameter static fixes it (not a pytree field)."""
        p = t.param
        what = self.untraceable(p, classes)
        if what is not None:
            how = f"{self.func.name!r} takes {what} as {p.name!r}"
            yield (
                self._diagnostic(p.node.annotation or p.node, t, NOT_JAX, how, uses_jaxrewrite),
                True,
            )
            return
        for passed in t.passed:
            if passed.untraceable is not None:
                how = (
                    f"a call (line {passed.expr.lineno}) passes {passed.untraceable} as {p.name!r}"
                )
                yield self._diagnostic(passed.expr, t, NOT_JAX, how, uses_jaxrewrite), True
                return
        if not t.transform.abstract:
            return  # differentiated: its tracers are concrete, so only an untraceable type fails
        numbers = any(passed.untraceable is None for passed in t.passed)
        if has_default(self.func, p) and not numbers:
            # A default is a Python value: the body fails only where a call passes the parameter,
            # and no call in view says that one does (jax's own _lu_blocked(a, block_size=128)
            # under vmap is never passed block_size). A type that can never be traced is still
            # reported, above: passing one always fails.
            return
        seed: State = ARRAY if numbers or self.scalar_or_array(p) else self.tree(p, classes)
        if seed is None and self.annotation(p) is not None:
            return  # a container or another type: its structure may be all the body needs
        flow = self.flow({p.name: seed or TREE}, plain)
        seen: set[tuple[int, int]] = set()
        for node in self.sure():
            found = self._use(node, flow)
            if found is None:
                continue
            where, error, how = found
            key = (where.lineno, where.col_offset)
            if key in seen:
                continue
            seen.add(key)
            if not isinstance(seed, Tree):
                yield self._diagnostic(where, t, error, how, uses_jaxrewrite), True
                continue
            fix = field_fix(where, flow, seed, uses_jaxrewrite)
            yield self._diagnostic(where, t, error, how, uses_jaxrewrite, fix), False

    def _use(self, node: ast.AST | Truth, flow: Flow) -> tuple[ast.expr, str, str] | None:
        """Does ``node`` need a traced value as a Python value?"""
        if isinstance(node, Truth):
            if flow.state(node.expr) == ARRAY:
                what = (
                    "the truth value of a comparison of it"
                    if isinstance(node.expr, ast.Compare)
                    else "its truth value"
                )
                return node.expr, BOOL, f"{node.how} needs {what}"
            return None
        if isinstance(node, ast.Call):
            return self._call_use(node, flow)
        if isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Slice):
                bounds = (node.slice.lower, node.slice.upper, node.slice.step)
                if any(b is not None and flow.traced(b) for b in bounds):
                    return (
                        node,
                        f"{SLICE}, or {INDEX} for a list",
                        "a slice bound must be a Python int",
                    )
            elif flow.traced(node.slice):
                kind = self._container(node.value)
                if kind is not None:
                    return node, *_CONTAINER_ERRORS[kind]
        return None

    def _call_use(self, node: ast.Call, flow: Flow) -> tuple[ast.expr, str, str] | None:
        callee = self.resolve(node.func)
        error = _CONVERSIONS.get(callee or "")
        args = [*node.args, *(kw.value for kw in node.keywords)]
        if error is not None:
            need = ARRAY if error == BOOL else None
            if any(flow.traced(a) and (need is None or flow.state(a) == need) for a in args):
                return node, error, f"{ast.unparse(node.func)}() needs it as a Python number"
            return None
        if callee in _NUMPY_ARRAYS and node.args:
            parts, leaves = [node.args[0]], []
            while parts:  # the entries of nested list literals, each asked for its value
                part = parts.pop()
                if isinstance(part, (ast.List, ast.Tuple)):
                    parts.extend(part.elts)
                else:
                    leaves.append(part)
            if any(flow.state(e) == ARRAY for e in leaves):
                how = f"{ast.unparse(node.func)}() asks it for a NumPy array"
                return node, ARRAY_CONVERSION, how
            return None
        if callee == _ARANGE:
            if any(flow.traced(a) for a in args):
                return node, CONCRETE, "jnp.arange needs its bounds as Python numbers"
            return None
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ("item", "tolist")
            and flow.state(func.value) == ARRAY
        ):
            return node, CONCRETE, f".{func.attr}() needs a concrete array"
        if (
            isinstance(func, ast.Attribute)
            and func.attr in _ARRAY_METHODS
            and flow.array(func.value)
        ):
            callee = f"jax.numpy.{func.attr}"  # x.min(axis) is jnp.min(x, axis): the table's rows
            node = ast.copy_location(ast.Call(func, [func.value, *node.args], node.keywords), node)
        for argument, param in self._concrete_arguments(node, callee):
            if flow.traced(argument):
                return (
                    node,
                    SHAPE,
                    f"{ast.unparse(node.func)}() needs its {param!r} as a Python value",
                )
        return self._applied_use(node, flow) or self._helper_use(node, flow)

    def _applied_use(self, call: ast.Call, flow: Flow) -> tuple[ast.expr, str, str] | None:
        """A sink in the ``__call__`` of a Linen module ``call`` applies (``linen.applied``)."""
        found = None
        if self.depth < _HELPER_DEPTH:
            found = linen.applied(call, self.scope, self.stored | self.params)
        scope = self.defs.get(id(found[0])) if found is not None else None
        if found is None or scope is None:
            return None
        target, args, keywords = found
        seeds = _seeds(target, args, keywords, flow, offset=1)
        if not seeds:
            return None
        body = self._body(target, scope)
        inner = body.flow(seeds)
        for node in body.sure():
            use = body._use(node, inner)
            if use is not None:
                return call, use[1], f"the module's __call__ (line {use[0].lineno}) {use[2]}"
        return None

    def _concrete_arguments(
        self, call: ast.Call, callee: str | None
    ) -> Iterator[tuple[ast.expr, str]]:
        """The arguments of a call that JAX needs as Python values (``concrete_table``)."""
        if callee is None and isinstance(call.func, ast.Attribute) and call.func.attr == "reshape":
            if call.args and not call.keywords:
                yield (
                    (
                        call.args[0]
                        if len(call.args) == 1
                        else ast.Tuple(list(call.args), ast.Load())
                    ),
                    "shape",
                )
            return
        lifting = concrete_table.lifting()
        passes = {kw.arg for kw in call.keywords}
        for position, keyword in concrete_table.by_function().get(callee or "", ()):
            if None in passes or passes & set(lifting.get((callee or "", keyword), ())):
                continue  # a keyword that may let it be traced (jnp.delete's assume_unique_indices)
            for kw in call.keywords:
                if kw.arg == keyword:
                    yield kw.value, keyword
            starred = any(isinstance(a, ast.Starred) for a in call.args[: (position or 0) + 1])
            if position is not None and position < len(call.args) and not starred:
                yield call.args[position], keyword

    # -- the module's own functions, by summary ------------------------------------------------

    def _helpers(
        self, call: ast.Call | ast.Attribute, flow: Flow
    ) -> list[tuple[Body, dict[str, State]]]:
        """The functions a call runs (this def's inner ones, one of the module's, or a method of a
        traced pytree; a property read runs its getter), each with what the call passes it and
        what it closes over (traced values only)."""
        if self.depth >= _HELPER_DEPTH:
            return []
        member = self._member(call, flow)
        if member is not None or isinstance(call, ast.Attribute):
            return [] if member is None else [member]
        if self._inner is None:
            self._inner = closures.inner_defs(self.func, self.sources())
        out: list[tuple[Body, dict[str, State]]] = []
        for run in closures.runs(call, self.resolve, self._inner):
            scope = self.defs.get(id(run.func))
            passed = {} if run.args is None else _seeds(run.func, run.args, run.keywords, flow)
            if scope is None or passed is None:
                continue
            body = self._body(run.func, scope)
            own = body.stored | body.params
            closed = {n: v for n, v in flow.names.items() if v is not None and n not in own}
            if closed or passed:
                out.append((body, {**closed, **passed}))
        func = call.func
        if (
            not isinstance(func, ast.Name)
            or func.id in flow.names
            or func.id in self.params
            or func.id in self.stored
        ):
            return out
        found = self.scope.lookup(func.id)
        if found is None or len(found[0]) != 1 or not isinstance(found[0][0], Defined):
            return out
        target = found[0][0].node
        scope = self.defs.get(id(target))
        if scope is None or target.decorator_list or target is self.func:
            return out
        seeds = _seeds(target, call.args, call.keywords, flow)
        if seeds:
            out.append((self._body(target, scope), seeds))
        return out

    def _body(self, func: Function, scope: Scope) -> Body:
        if id(func) not in self._bodies:
            self._bodies[id(func)] = Body(func, scope, self.src, self.defs, self.depth + 1)
        return self._bodies[id(func)]

    def _member(
        self, expr: ast.Call | ast.Attribute, flow: Flow
    ) -> tuple[Body, dict[str, State]] | None:
        """``tree.method(...)``, ``tree(...)`` (its ``__call__``) or ``tree.prop`` of a traced
        pytree."""
        if isinstance(expr, ast.Attribute):
            owner, name, args, keywords = expr.value, expr.attr, [], []
        elif isinstance(expr.func, ast.Attribute):
            owner, name, args, keywords = expr.func.value, expr.func.attr, expr.args, expr.keywords
        else:
            owner, name, args, keywords = expr.func, "__call__", expr.args, expr.keywords
        tree = flow.state(owner)
        found = tree.member(name) if isinstance(tree, Tree) else None
        if found is None or (found[0] == "property") != isinstance(expr, ast.Attribute):
            return None
        target = found[1]
        scope = self.defs.get(id(target))
        passed = _seeds(target, args, keywords, flow, offset=1)
        if scope is None or passed is None:
            return None
        return self._body(target, scope), {target.args.args[0].arg: tree, **passed}

    def _helper_flows(self, call: ast.Call | ast.Attribute, flow: Flow) -> list[tuple[Body, Flow]]:
        out = []
        for body, seeds in self._helpers(call, flow):
            key = (id(body.func), frozenset(seeds.items()))
            if key not in self._flows:
                self._flows[key] = (body, body.flow(seeds))
            out.append(self._flows[key])
        return out

    def _helper_use(self, call: ast.Call, flow: Flow) -> tuple[ast.expr, str, str] | None:
        for body, inner in self._helper_flows(call, flow):
            for node in body.sure():
                use = body._use(node, inner)
                if use is not None:
                    where, error, how = use
                    return call, error, f"{body.func.name}() (line {where.lineno}) {how}"
        return None

    def returns(self, call: ast.Call | ast.Attribute, flow: Flow) -> State:
        """The state of what a call of one of the module's functions (or a method or property of
        a traced pytree) returns."""
        found = self._helper_flows(call, flow)
        if len(found) != 1:
            return None
        body, inner = found[0]
        state: State = "top"
        for node in own_nodes(body.func.body):
            if isinstance(node, ast.Return):
                state = meet(state, inner.state(node.value) if node.value is not None else None)
        return None if state == "top" else state

    def sources(self) -> Sources:
        if self._sources is None:
            self._sources = sources(self.func.body)
        return self._sources

    def flow(
        self, seeds: dict[str, State], plain: frozenset[str] = frozenset(), staged: bool = False
    ) -> Flow:
        return Flow(self.sources(), seeds, self.resolve, self.returns, plain, staged)

    def _container(self, expr: ast.expr) -> str | None:
        """``dict``/``list`` when ``expr`` is surely a Python dict or list/tuple (a literal, or a
        name bound once to one): indexing it needs the index as a Python value."""
        if isinstance(expr, ast.Name):
            if expr.id in self.stored:
                values = self.local_dicts.get(expr.id, [])
                if len(values) != 1 or not _assigned_once(self.func, expr.id):
                    return None
                expr = values[0]
            else:
                found = self.scope.lookup(expr.id)
                if found is None or len(found[0]) != 1 or not isinstance(found[0][0], Assigned):
                    return None
                expr = found[0][0].value
        if isinstance(expr, ast.Dict):
            return "dict"
        return "list" if isinstance(expr, (ast.List, ast.Tuple, ast.ListComp)) else None

    def _diagnostic(
        self,
        node: ast.AST,
        t: Traced,
        error: str,
        how: str,
        uses_jaxrewrite: bool,
        fix: str | None = None,
    ) -> Diagnostic:
        p, tr = t.param, t.transform
        fix = fix or fix_text(p, tr, uses_jaxrewrite)
        passed = " (when a call passes it)" if has_default(self.func, p) else ""
        line, col = t.use_node.lineno, t.use_node.col_offset + 1
        return Diagnostic.at(
            self.src,
            node,
            TRACED,
            name=p.name,
            transform=tr.name,
            line=line,
            col=col,
            how=how,
            error=error,
            passed=passed,
            fix=fix,
        )


def _seeds(
    target: Function, args: list[ast.expr], keywords: list[ast.keyword], flow: Flow, offset: int = 0
) -> dict[str, State] | None:
    """What a call passes a def's parameters (after the first ``offset``: a method's self), by
    name (traced values only); None where it cannot be read (``*args``, ``**kwargs``, a keyword
    the def does not take)."""
    params = [*target.args.posonlyargs, *target.args.args][offset:]
    if any(isinstance(a, ast.Starred) for a in args) or len(args) > len(params):
        return None
    seeds = {param.arg: flow.state(arg) for arg, param in zip(args, params)}
    names = {a.arg for a in (*params, *target.args.kwonlyargs)}
    for kw in keywords:
        if kw.arg is None or kw.arg not in names:
            return None
        seeds[kw.arg] = flow.state(kw.value)
    return {k: v for k, v in seeds.items() if v is not None}


def _assigned_once(func: Function, name: str) -> bool:
    count = sum(
        1
        for node in walk(func)
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
    )
    return count == 1
