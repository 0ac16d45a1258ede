"""Generated fragments, rendered by astor from AST so their spelling is canonical."""

from __future__ import annotations

import ast
import warnings

from jaxrewrite.engine.read.literals import Value
from jaxrewrite.engine.rulebook.table import FieldForm

#: Where the user's expression goes in a generated fragment.
_TRANSFORM = ast.Name("__jaxrewrite_transform__", ast.Load())

#: Keys are strings, or ``(key, kind, keys)`` for an inner container (``analysis.Leaf.spec``).
LeafSpecs = tuple[tuple[object, ...], ...]


def _source(node: ast.AST) -> str:
    """One line, always: line numbers must not move, so astor's line wrapping is off. astor is
    imported on first use (most imports render nothing); the DeprecationWarning it gives on 3.12+
    (``ast.Num``) is about its internals, not the user's code."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import astor

        return str(astor.to_source(node, pretty_source="".join)).strip()


def value(items: Value) -> str:
    """``(3,)``, ``('c_func',)``, ``(0, 0, None)``."""
    return _source(_const(items))


def keywords(pairs: tuple[tuple[str, Value], ...]) -> str:
    """``static_argnums=(3,), static_argnames=('c_func',)``."""
    return ", ".join(f"{name}={value(items)}" for name, items in pairs)


def wrapper(
    pairs: tuple[tuple[str, object], ...], helper: str | None = None, leaves: LeafSpecs = ()
) -> tuple[str, str]:
    """Text around a bare transform to call it with its keywords: ``jax.jit`` becomes
    ``__import__('functools').partial(jax.jit, static_argnums=...)``: no import statement, no new
    name, evaluated where the user wrote the decorator, and no code object as a lambda would be.
    ``helper`` (the row's ``per_leaf``) comes first with ``leaves=``, for per-leaf statics."""
    before = [] if helper is None else [_import("jaxrewrite.leaves", helper)]
    if helper is not None:
        pairs = (("leaves", leaves), *pairs)
    named = [ast.keyword(name, _const(items)) for name, items in pairs]
    return _around(ast.Call(_import("functools", "partial"), [*before, _TRANSFORM], named))


def leaves_call_site(leaves: LeafSpecs, helper: str) -> tuple[str, str]:
    """Text around a call site's transform for per-leaf statics: ``jax.jit(fun, ...)`` becomes
    ``__import__('jaxrewrite.leaves').leaves.at_call('static_leaves', jax.jit, <leaves>)(fun,
    ...)``, the call's own arguments completed in place like any call site's."""
    at_call = _import("jaxrewrite.leaves", "at_call")
    return _around(ast.Call(at_call, [ast.Constant(helper), _TRANSFORM, _const(leaves)], []))


def field(form: FieldForm, default: bool = False) -> tuple[str, str]:
    """``__import__('equinox').field(static=True)``; with ``default``, split where the user's
    plain default goes: ``__import__('equinox').field(default=`` and ``, static=True)``."""
    before = [ast.keyword("default", _TRANSFORM)] if default else []
    static = ast.keyword(form.keyword, ast.Constant(form.static))
    return _around(ast.Call(_import(form.module, "field"), [], [*before, static]))


def metadata_entry(form: FieldForm) -> str:
    """``'static': True``."""
    entry = ast.Dict([ast.Constant(form.keyword)], [ast.Constant(form.static)])
    return _source(ast.Expr(entry))[1:-1]


def _around(call: ast.Call) -> tuple[str, str]:
    """The rendered fragment split where the user's expression goes."""
    before, _, after = _source(ast.Expr(call)).partition(_TRANSFORM.id)
    return before, after


def _const(obj: object) -> ast.expr:
    if isinstance(obj, tuple):
        return ast.Tuple([_const(item) for item in obj], ast.Load())
    return ast.Constant(obj)  # type: ignore[arg-type]  # only ints, strings and None reach here


def _import(module: str, name: str) -> ast.expr:
    """``__import__('<module>').<name>`` (for ``a.b``: ``__import__('a.b').b.<name>``). The
    analysis refuses modules that rebind ``__import__``."""
    expr: ast.expr = ast.Call(ast.Name("__import__", ast.Load()), [ast.Constant(module)], [])
    for part in [*module.split(".")[1:], name]:
        expr = ast.Attribute(expr, part, ast.Load())
    return expr
