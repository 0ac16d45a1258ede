"""One transformed def's body read for JR006: the expressions that run on every trace, and where
they need a traced value as a Python value (``Body.uses``), through the module's own functions,
inner functions, methods and properties of traced pytrees, and Linen modules it applies."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cached_property

from jaxrewrite.engine.findings.flow import (
    ARRAY,
    DEFS,
    TOP,
    Flow,
    Function,
    Resolve,
    Sources,
    State,
    Tree,
    meet,
    named,
)
from jaxrewrite.engine.findings.flow import sources as read_sources
from jaxrewrite.engine.read.nodes import bindings, child_nodes, own_nodes, walk
from jaxrewrite.engine.read.othermodules import attributes
from jaxrewrite.engine.read.resolve import qualname, single
from jaxrewrite.engine.read.scopes import Assigned, Defined, DefinedClass, Scope
from jaxrewrite.engine.rulebook import concrete_table
from jaxrewrite.engine.rulebook.table import INNER_OWN_TRACE, INNER_PASS_THROUGH, LAX_BODIES

#: A use: where, JAX's error, and how the body needs the value.
Sink = tuple[ast.expr, str, str]
#: An expression whose truth value Python takes, and what takes it (``if``, ``not``, ``and``).
Truth = tuple[ast.expr, str]

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


class Body:
    """One def's body: what it rebinds, and the uses that run on every trace."""

    def __init__(self, func: Function, defs: dict[int, Scope], depth: int = 0):
        """``defs``: each def of the module, by id, with the scope holding it."""
        self.func = func
        self.scope = defs[id(func)]
        self.defs = defs
        self.depth = depth
        self._flows: dict[tuple[int, frozenset[tuple[str, State]]], tuple[Body, Flow]] = {}
        self._bodies: dict[int, Body] = {}
        #: Nested scopes included: a nested def's or lambda's parameter may shadow ours.
        self.stored, self.assigned = bindings(func.body, nested=True)
        self.params = {a.arg for a in walk(func.args) if isinstance(a, ast.arg)}

    def resolve(self, expr: ast.expr) -> str | None:
        """What a name in the body denotes, when no local binding can hide it."""
        head = attributes(expr)[0]
        if head is None or head in self.stored or head in self.params:
            return None
        return named(expr, self.scope)

    @cached_property
    def sources(self) -> Sources:
        return read_sources(self.func.body)

    @cached_property
    def sure(self) -> list[ast.AST | Truth]:
        """The expressions evaluated on every trace, in order."""
        out: list[ast.AST | Truth] = []
        statements(self.func.body, out, self.resolve)
        return out

    def flow(
        self, seeds: dict[str, State], plain: frozenset[str] = frozenset(), staged: bool = False
    ) -> Flow:
        return Flow(self.sources, seeds, self.resolve, self.returns, plain, staged)

    def uses(self, flow: Flow) -> Iterator[Sink]:
        """Each place the body needs a traced value of ``flow`` as a Python value, in order."""
        yield from (found for node in self.sure if (found := self._use(node, flow)) is not None)

    def _use(self, node: ast.AST | Truth, flow: Flow) -> Sink | None:
        if isinstance(node, tuple):
            expr, taken = node
            if flow.state(expr) == ARRAY:
                compared = isinstance(expr, ast.Compare)
                what = "the truth value of a comparison of it" if compared else "its truth value"
                return expr, BOOL, f"{taken} needs {what}"
            return None
        if isinstance(node, ast.Call):
            return self._call_use(node, flow)
        if isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Slice):
                bounds = (node.slice.lower, node.slice.upper, node.slice.step)
                if any(b is not None and flow.traced(b) for b in bounds):
                    error = f"{SLICE}, or {INDEX} for a list"
                    return node, error, "a slice bound must be a Python int"
            elif flow.traced(node.slice) and (found := self._container(node.value)) is not None:
                return node, *found
        return None

    def _call_use(self, node: ast.Call, flow: Flow) -> Sink | None:
        callee = self.resolve(node.func)
        error = _CONVERSIONS.get(callee or "")
        args = [*node.args, *(kw.value for kw in node.keywords)]
        if error is not None:
            need = ARRAY if error == BOOL else None
            if any(flow.traced(a) and (need is None or flow.state(a) == need) for a in args):
                return node, error, f"{ast.unparse(node.func)}() needs it as a Python number"
            return None
        if callee in _NUMPY_ARRAYS and node.args:
            parts = [node.args[0]]
            for part in parts:  # the entries of nested list literals, each asked for its value
                if isinstance(part, (ast.List, ast.Tuple)):
                    parts.extend(part.elts)
                elif flow.state(part) == ARRAY:
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
        for argument, param, _ in concrete_arguments(node, callee):
            if flow.traced(argument):
                how = f"{ast.unparse(node.func)}() needs its {param!r} as a Python value"
                return node, SHAPE, how
        return self._applied_use(node, flow) or self._helper_use(node, flow)

    def _container(self, expr: ast.expr) -> tuple[str, str] | None:
        """JAX's error, and why, when ``expr`` is surely a Python dict or list/tuple (a literal, or
        a name bound once to one) indexed with a tracer."""
        if isinstance(expr, ast.Name):
            if expr.id in self.stored:
                values = self.assigned.get(expr.id, [])
                if len(values) != 1:
                    return None
                expr = values[0]
            else:
                binding = single(expr, self.scope)
                if not isinstance(binding, Assigned):
                    return None
                expr = binding.value
        if isinstance(expr, ast.Dict):
            return HASH, "a dict key must be hashable"
        if isinstance(expr, (ast.List, ast.Tuple, ast.ListComp)):
            return INDEX, "a list index must be a Python int"
        return None

    def _applied_use(self, call: ast.Call, flow: Flow) -> Sink | None:
        """A sink in the ``__call__`` of a Linen module that ``call`` applies (``model.apply(v, x,
        train=train)``, ``model`` a module-level name bound once to a call of a Linen class of this
        module); ``method=`` picks another method, and then nothing is said."""
        func = call.func
        if (
            self.depth >= _HELPER_DEPTH
            or not isinstance(func, ast.Attribute)
            or func.attr != "apply"
            or not isinstance(func.value, ast.Name)
            or func.value.id in self.stored | self.params
            or not call.args
            or isinstance(call.args[0], ast.Starred)
            or any(kw.arg is None or kw.arg == "method" for kw in call.keywords)
        ):
            return None
        instance = single(func.value, self.scope)
        if not isinstance(instance, Assigned) or not isinstance(instance.value, ast.Call):
            return None
        made = instance.value.func
        cls = single(made, instance.scope)
        if not isinstance(cls, DefinedClass) or not linen_class(cls):
            return None
        target = next(
            (s for s in cls.node.body if isinstance(s, DEFS) and s.name == "__call__"), None
        )
        body = self._body(target)
        if body is None:  # no ``__call__``, or none the module defines
            return None
        keywords = [kw for kw in call.keywords if kw.arg not in _APPLY_OWN]
        seeds = _seeds(body.func, call.args[1:], keywords, flow, offset=1)
        if not seeds:
            return None
        use = next(body.uses(body.flow(seeds)), None)
        if use is None:
            return None
        return call, use[1], f"the module's __call__ (line {use[0].lineno}) {use[2]}"

    def _helper_use(self, call: ast.Call, flow: Flow) -> Sink | None:
        for body, inner in self._helper_flows(call, flow):
            use = next(body.uses(inner), None)
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
        state: State = TOP
        for node in own_nodes(body.func.body):
            if isinstance(node, ast.Return):
                state = meet(state, inner.state(node.value) if node.value is not None else None)
        return None if state == TOP else state

    def _helper_flows(self, call: ast.Call | ast.Attribute, flow: Flow) -> list[tuple[Body, Flow]]:
        out = []
        for body, seeds in self._helpers(call, flow):
            key = (id(body.func), frozenset(seeds.items()))
            if key not in self._flows:
                self._flows[key] = (body, body.flow(seeds))
            out.append(self._flows[key])
        return out

    def _helpers(
        self, call: ast.Call | ast.Attribute, flow: Flow
    ) -> list[tuple[Body, dict[str, State]]]:
        """The functions a call (or a property read) runs, each with what the call passes it and
        what it closes over (traced values only)."""
        if self.depth >= _HELPER_DEPTH:
            return []
        member = self._member(call, flow)
        if member is not None or isinstance(call, ast.Attribute):
            return [] if member is None else [member]
        out: list[tuple[Body, dict[str, State]]] = []
        for run, args in self._runs(call):
            body = self._body(run)
            passed = {} if args is None else _seeds(run, args, call.keywords, flow)
            if body is None or passed is None:
                continue
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
        binding = single(func, self.scope)
        body = self._body(binding.node) if isinstance(binding, Defined) else None
        if body is None or body.func.decorator_list or body.func is self.func:
            return out
        seeds = _seeds(body.func, call.args, call.keywords, flow)
        if seeds:
            out.append((body, seeds))
        return out

    def _runs(self, call: ast.Call) -> Iterator[tuple[Function, list[ast.expr] | None]]:
        """The inner functions ``call`` runs while the def around it is traced, with the arguments
        its parameters take (None: its own transform traces them; only the closure is followed)."""
        func, inner = call.func, self._inner
        if isinstance(func, ast.Name) and func.id in inner:
            target = inner[func.id]
            kinds = {self._kind(d) for d in target.decorator_list}
            if kinds <= {"pass", "own"}:
                yield target, call.args if kinds <= {"pass"} else None
            return
        if isinstance(func, ast.Call) and func.args and isinstance(func.args[0], ast.Name):
            wrapped, kind = inner.get(func.args[0].id), self._kind(func.func)
            if wrapped is not None and not wrapped.decorator_list and kind is not None:
                yield wrapped, call.args if kind == "pass" else None
            return
        for position in LAX_BODIES.get(self.resolve(func) or "", ()):
            argument = call.args[position] if position < len(call.args) else None
            body = inner.get(argument.id) if isinstance(argument, ast.Name) else None
            if body is not None and not body.decorator_list:
                yield body, None

    def _kind(self, expr: ast.expr) -> str | None:
        """``pass``: a transform that passes the call's own arguments through; ``own``: one that
        traces it with arguments of its own."""
        name = self.resolve(expr) or ""
        return "pass" if name in INNER_PASS_THROUGH else "own" if name in INNER_OWN_TRACE else None

    @cached_property
    def _inner(self) -> dict[str, Function]:
        """The defs of the body (not nested in another) whose name is bound nowhere else in it."""
        return {
            node.name: node
            for node in own_nodes(self.func.body)
            if isinstance(node, DEFS)
            and len(self.sources.get(node.name, ())) == 1
            and node.name not in self.params
        }

    def _body(self, func: Function | None) -> Body | None:
        """The body of a def of the module (None for any other), read once."""
        if func is None or id(func) not in self.defs:
            return None
        if id(func) not in self._bodies:
            self._bodies[id(func)] = Body(func, self.defs, self.depth + 1)
        return self._bodies[id(func)]

    def _member(
        self, expr: ast.Call | ast.Attribute, flow: Flow
    ) -> tuple[Body, dict[str, State]] | None:
        """``tree.method(...)``, ``tree(...)`` or ``tree.prop`` of a traced pytree."""
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
        body = self._body(target)
        passed = _seeds(target, args, keywords, flow, offset=1)
        if body is None or passed is None:
            return None
        return body, {target.args.args[0].arg: tree, **passed}


def concrete_arguments(
    call: ast.Call, callee: str | None
) -> Iterator[tuple[ast.expr, str, int | None]]:
    """The arguments of a call that JAX needs as Python values (``concrete_table``), each with
    its parameter's name and position."""
    if callee is None and isinstance(call.func, ast.Attribute) and call.func.attr == "reshape":
        if call.args and not call.keywords:
            shape = call.args[0] if len(call.args) == 1 else ast.Tuple(list(call.args), ast.Load())
            yield shape, "shape", 0
        return
    lifting = concrete_table.lifting()
    passes = {kw.arg for kw in call.keywords}
    for position, keyword in concrete_table.by_function().get(callee or "", ()):
        if None in passes or passes & set(lifting.get((callee or "", keyword), ())):
            continue  # a keyword that may let it be traced (jnp.delete's assume_unique_indices)
        for kw in call.keywords:
            if kw.arg == keyword:
                yield kw.value, keyword, position
        starred = any(isinstance(a, ast.Starred) for a in call.args[: (position or 0) + 1])
        if position is not None and position < len(call.args) and not starred:
            yield call.args[position], keyword, position


def _seeds(
    target: Function, args: list[ast.expr], keywords: list[ast.keyword], flow: Flow, offset: int = 0
) -> dict[str, State] | None:
    """What a call passes a def's parameters after the first ``offset``, by name (traced values
    only); None where it cannot be read."""
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


#: Context managers under which values are concrete (or errors may be swallowed): not entered.
_CONCRETE_CONTEXTS = ("ensure_compile_time_eval", "disable_jit")
_TESTS = {ast.If: "if", ast.While: "while", ast.Assert: "assert"}
_LEAVING = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_MAY_LEAVE = (*_LEAVING, ast.If, ast.For, ast.AsyncFor, ast.While, ast.Match)


def statements(body: list[ast.stmt], out: list[ast.AST | Truth], resolve: Resolve) -> bool:
    """Collect the sure expressions of ``body``; False once the rest may not run."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, (ast.If, ast.While, ast.Assert)):
            out.extend(expressions(stmt.test))
            out.append((stmt.test, f"'{_TESTS[type(stmt)]}' on it"))
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            out.extend(expressions(stmt.iter))
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                out.extend(expressions(item.context_expr))
            # Another context manager may swallow what its body raises.
            if not all(_jax_context(item.context_expr, resolve) for item in stmt.items):
                return False
            if not statements(stmt.body, out, resolve):
                return False
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            return False  # a handler may catch the error JAX raises
        elif isinstance(stmt, ast.Match):
            out.extend(expressions(stmt.subject))
        else:
            out.extend(expressions(stmt))
        if isinstance(stmt, _MAY_LEAVE) and any(isinstance(n, _LEAVING) for n in own_nodes([stmt])):
            return False  # the rest of the block may not run
    return True


def _jax_context(expr: ast.expr, resolve: Resolve) -> bool:
    """A context manager of JAX's that neither makes values concrete nor swallows errors."""
    func = expr.func if isinstance(expr, ast.Call) else expr
    name = resolve(func) or ""
    return name.startswith("jax.") and name.rpartition(".")[2] not in _CONCRETE_CONTEXTS


def expressions(root: ast.AST) -> list[ast.AST | Truth]:
    """The sub-expressions of ``root`` evaluated whenever it is."""
    out: list[ast.AST | Truth] = []
    stack: list[ast.AST] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            stack.append(node.generators[0].iter)
            continue
        out.append(node)
        if isinstance(node, ast.BoolOp):
            word = "and" if isinstance(node.op, ast.And) else "or"
            out.append((node.values[0], f"'{word}' on it"))
            stack.append(node.values[0])
            continue
        if isinstance(node, ast.IfExp):
            out.append((node.test, "a conditional expression on it"))
            stack.append(node.test)
            continue
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((node.operand, "'not' on it"))
        if isinstance(node, ast.Compare) and len(node.ops) > 1:  # a < b < c is (a < b) and (b < c)
            first = ast.Compare(node.left, node.ops[:1], node.comparators[:1])
            first = ast.copy_location(first, node)
            out.append((first, "a chained comparison on it"))
        stack.extend(reversed(child_nodes(node)))
    return out


BASES = frozenset({"flax.linen.Module", "flax.linen.module.Module"})
#: ``Module.apply``'s own keywords.
_APPLY_OWN = frozenset({"rngs", "mutable", "capture_intermediates"})


def linen_class(binding: DefinedClass) -> bool:
    """Is the class a direct subclass of ``flax.linen.Module``?"""
    parent = binding.body.parent
    return parent is not None and any(qualname(b, parent) in BASES for b in binding.node.bases)
