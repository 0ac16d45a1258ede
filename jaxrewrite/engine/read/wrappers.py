"""What lies between a transform and its def: other transforms of the table and one-argument
wrappers (``jax.jit(logged(f))``), assumed to pass ``*args, **kwargs`` through unless their
definition in view shows otherwise (JR125); what is made from a marked def some other way is
JR007's (``made_from``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container
from dataclasses import dataclass, field

from jaxrewrite.engine.read.nodes import parameter_names, statements
from jaxrewrite.engine.read.recognise import classify
from jaxrewrite.engine.read.resolve import qualname, single
from jaxrewrite.engine.read.scopes import (
    Assigned,
    Choice,
    Defined,
    DefinedClass,
    Scope,
    choice_parts,
)
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(eq=False)
class _Reading:
    """Each wrapper's answer by (def or lambda, scope), where no loop of wrappers was cut under
    it: without it ``return w0(w0(fn))`` doubles the work per level."""

    known: dict[tuple[int, int], bool] = field(default_factory=dict)
    #: A loop was cut (a wrapper made from itself) under the answer being found.
    cut: bool = False


def peel(
    expr: ast.expr,
    scope: Scope,
    active: frozenset[int] = frozenset(),
    reading: _Reading | None = None,
) -> tuple[ast.expr, ast.Call | None]:
    """``expr`` without the transforms of the table and one-argument wrappers around it: (what
    is left, the first wrapper in view that does not pass its arguments through, or None)."""
    offender: ast.Call | None = None
    expr = _value(expr)
    # To any depth (the expression's own nesting ends it): a cut would leave the def unseen.
    while isinstance(expr, ast.Call) and expr.args and not isinstance(expr.args[0], ast.Starred):
        alone = len(expr.args) == 1 and not expr.keywords
        ref = classify(expr.func, scope)
        if ref is not None and not ref.transform.keeps_arguments:
            break  # make_jaxpr returns a jaxpr maker: what is around it does not call the def
        if ref is not None and (not ref.factory or alone):
            expr = _value(expr.args[0])  # a transform (or a factory's result) keeps the arguments
            continue
        if not alone:
            break
        if offender is None and not passes_through(expr.func, scope, active, reading):
            offender = expr
        expr = _value(expr.args[0])
    return expr, offender


def _value(expr: ast.expr) -> ast.expr:
    """``(g := f)`` is ``f`` where it stands."""
    while isinstance(expr, ast.NamedExpr):
        expr = expr.value
    return expr


def passes_through(
    wrapper: ast.expr,
    scope: Scope,
    active: frozenset[int] = frozenset(),
    reading: _Reading | None = None,
) -> bool:
    """False only when ``wrapper`` names a def or lambda of this module that returns something
    other than its function, a transform of the table of it, or a function of exactly
    ``(*args, **kwargs)`` that calls it so. Not in view: True (assumed)."""
    found = scope.lookup(wrapper.id) if isinstance(wrapper, ast.Name) else None
    reading = _Reading() if reading is None else reading
    for binding in found[0] if found is not None else ():
        node = binding.node if isinstance(binding, Defined) else getattr(binding, "value", None)
        if not isinstance(node, (*_DEFS, ast.Lambda)):  # a def, or a name assigned a lambda
            continue
        if id(node) in active:  # a wrapper made from itself: cannot tell
            reading.cut = True
            return False
        key = (id(node), id(scope))
        known = reading.known.get(key)
        if known is None:
            outer, reading.cut = reading.cut, False
            known = _forwards(node, scope, active | {id(node)}, reading)
            if not reading.cut:
                reading.known[key] = known
            reading.cut = reading.cut or outer
        if not known:
            return False
    return True


def _forwards(
    node: Function | ast.Lambda, scope: Scope, active: frozenset[int], reading: _Reading
) -> bool:
    def forwards(value: ast.expr | None, named: Function | None, func: str) -> bool:
        if isinstance(value, ast.Call):
            peeled, offender = peel(value, scope, active, reading)
            if offender is None and isinstance(peeled, ast.Name) and peeled.id == func:
                return True  # ``return jax.jit(fn)``: transforms of the table keep the arguments
        target = named if isinstance(value, ast.Name) else value
        return isinstance(target, (*_DEFS, ast.Lambda)) and _star_call(target, func)

    return _each_return(node, forwards)


def _each_return(
    node: Function | ast.Lambda, test: Callable[[ast.expr | None, Function | None, str], bool]
) -> bool:
    """Does each ``return`` of a wrapper give the function it takes (a registering decorator's
    ``return fn``), or what ``test`` accepts (given the value, the inner def it names, the
    function's parameter)?"""
    positional = [*node.args.posonlyargs, *node.args.args]
    returned = [(node.body, None)] if isinstance(node, ast.Lambda) else _returns(node)
    if not positional or not returned:
        return False
    fn = positional[0].arg
    return all(
        isinstance(value, ast.Name) and value.id == fn or test(value, inner, fn)
        for value, inner in returned
    )


def _star_call(node: Function | ast.Lambda, func: str) -> bool:
    """Does ``node`` take exactly ``(*args, **kwargs)`` and call ``func(*args, **kwargs)``?"""
    args = node.args
    if args.vararg is None or args.kwarg is None or len(parameter_names(args)) > 2:
        return False
    forward = f"{func}(*{args.vararg.arg}, **{args.kwarg.arg})"
    body: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else list(node.body)
    return any(
        isinstance(call, ast.Call) and ast.unparse(call) == forward
        for part in body
        for call in ast.walk(part)
    )


#: jax's own decorators (called: ``@jax.named_scope("s")``) that wrap through a
#: ``ContextDecorator``, whose ``functools.wraps`` hands on the def's signature.
_KEEPS_SIGNATURE = frozenset({"jax.default_matmul_precision", "jax.named_scope"})
#: One applied bare, or through ``partial(jax.named_call, name=...)``.
_NAMED_CALL = "jax.named_call"
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def keeps_signature(deco: ast.expr, scope: Scope) -> bool:
    """Is ``deco``, between a transform and a def, known to hand on the def's signature (through
    ``__wrapped__``, which JAX infers a static list from)? jax's own, and this module's
    ``functools.wraps`` wrappers (or factories), context managers and ``ContextDecorator``s."""
    if not isinstance(deco, ast.Call):
        if qualname(deco, scope) == _NAMED_CALL:
            return True
        binding = single(deco, scope)
        return isinstance(binding, Defined) and _wraps_decorator(binding.node, scope)
    qual = qualname(deco.func, scope)
    if qual in _KEEPS_SIGNATURE:
        return True
    if qual == "functools.partial":
        return len(deco.args) == 1 and qualname(deco.args[0], scope) == _NAMED_CALL
    binding = single(deco.func, scope)
    if isinstance(binding, DefinedClass):  # its own __call__ would be what the transform gets
        bases = {qualname(base, scope) for base in binding.node.bases}
        called = any(isinstance(s, _DEFS) and s.name == "__call__" for s in binding.node.body)
        return "contextlib.ContextDecorator" in bases and not called
    if not isinstance(binding, Defined):
        return False
    func = binding.node
    if any(qualname(d, scope) == "contextlib.contextmanager" for d in func.decorator_list):
        return True
    made = [inner for _, inner in _returns(func)]  # a factory: ``@tagged("t")``
    return bool(made) and all(i is not None and _wraps_decorator(i, scope) for i in made)


def _wraps_decorator(func: Function, scope: Scope) -> bool:
    """Does ``func(fn)`` return ``fn`` itself or an inner def decorated ``@functools.wraps(fn)``?"""
    return _each_return(
        func,
        lambda _, inner, fn: (
            inner is not None
            and any(
                isinstance(d, ast.Call)
                and qualname(d.func, scope) == "functools.wraps"
                and len(d.args) == 1
                and isinstance(d.args[0], ast.Name)
                and d.args[0].id == fn
                for d in inner.decorator_list
            )
        ),
    )


def _returns(func: Function) -> list[tuple[ast.expr | None, Function | None]]:
    """What each ``return`` of ``func`` gives, with the inner def it names, if any."""
    inner = {stmt.name: stmt for stmt in func.body if isinstance(stmt, _DEFS)}
    values = [
        stmt.value
        for stmt in statements(func.body, into_defs=False)
        if isinstance(stmt, ast.Return)
    ]
    return [(v, inner.get(v.id) if isinstance(v, ast.Name) else None) for v in values]


def wrapper_error(where: ast.expr, wrapper: ast.expr, func: Function, src: Source) -> RewriteError:
    """JR125: a wrapper in view between a transform and a marked def may shift its positions."""
    return rules.WRAPPER.error(src, where, wrapper=ast.unparse(wrapper), func=func.name)


def made_from(
    arg: ast.expr, scope: Scope, marked: Container[int], seen: set[int] | None = None
) -> Function | None:
    """A marked def (its id in ``marked``) that ``arg`` is made from through calls' first
    arguments and names, whatever the calls (JR007: ``jax.jit(partial(f, x))``)."""
    seen = set() if seen is None else seen
    arg = _value(arg)
    while isinstance(arg, ast.Call) and arg.args and not isinstance(arg.args[0], ast.Starred):
        arg = _value(arg.args[0])
    if not isinstance(arg, ast.Name):
        return None
    found = scope.lookup(arg.id)
    for binding in choice_parts(found[0] if found is not None else ()):
        if isinstance(binding, Defined) and id(binding.node) in marked:
            return binding.node
        more: list[tuple[ast.expr, Scope]] = []
        if isinstance(binding, Choice) and binding.source is not None and binding.scope is not None:
            # A loop target over what is not a literal: any marked def the iterable names.
            more = [(n, binding.scope) for n in ast.walk(binding.source) if isinstance(n, ast.Name)]
        elif (
            isinstance(binding, Assigned)
            and id(binding) not in seen
            and isinstance(binding.value, (ast.Call, ast.Name))
        ):
            seen.add(id(binding))
            more = [(binding.value, binding.scope)]
        for expr, where in more:
            if (reached := made_from(expr, where, marked, seen)) is not None:
                return reached
    return None
