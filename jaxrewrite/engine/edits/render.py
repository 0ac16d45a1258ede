"""Generated fragments, rendered by astor from AST so their spelling is canonical."""

from __future__ import annotations

import ast
import warnings
from functools import lru_cache
from types import ModuleType

from jaxrewrite.engine.read.literals import Value

_PLACEHOLDER = "__jaxrewrite_transform__"


@lru_cache(maxsize=1)
def _astor() -> ModuleType:
    """astor, imported on first use (most imports render nothing); the DeprecationWarning its
    import gives on 3.12+ (``ast.Num``) is about astor's internals, not the user's code."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import astor

    module: ModuleType = astor
    return module


def _source(node: ast.AST) -> str:
    # One line, always: line numbers must not move, so astor's line wrapping is off.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return str(_astor().to_source(node, pretty_source="".join)).strip()


@lru_cache(maxsize=4096)
def value(items: Value) -> str:
    """``(3,)``, ``('c_func',)``, ``(0, 0, None)``."""
    return _source(ast.Tuple([ast.Constant(item) for item in items], ast.Load()))


@lru_cache(maxsize=1024)
def keywords(pairs: tuple[tuple[str, Value], ...]) -> str:
    """``static_argnums=(3,), static_argnames=('c_func',)``."""
    return ", ".join(f"{name}={value(items)}" for name, items in pairs)


@lru_cache(maxsize=1024)
def wrapper(pairs: tuple[tuple[str, Value], ...]) -> tuple[str, str]:
    """Text before and after a bare transform to call it with its keywords: ``jax.jit`` becomes
    ``__import__('functools').partial(jax.jit, static_argnums=...)``, with no import statement
    and no new module name. One call evaluated where the user wrote the decorator (class-body
    names stay visible, the transform is looked up before the def runs), for every transform and
    JAX version, and, unlike a lambda, no code object to compile."""
    return _around(_partial([], pairs))


#: Where the user's transform expression goes in a generated fragment.
_TRANSFORM = ast.Name(_PLACEHOLDER, ast.Load())


def _partial(before: list[ast.expr], pairs: tuple[tuple[str, object], ...]) -> ast.Call:
    """``__import__('functools').partial(<before>, <transform>, <name>=<value>, ...)``."""
    keywords = [ast.keyword(name, _const(items)) for name, items in pairs]
    return ast.Call(_import("functools", "partial"), [*before, _TRANSFORM], keywords)


def _around(call: ast.Call) -> tuple[str, str]:
    """The rendered fragment split where the transform goes."""
    before, _, after = _source(ast.Expr(call)).partition(_PLACEHOLDER)
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


def _helper(name: str) -> ast.expr:
    return _import("jaxrewrite.leaves", name)


#: Keys are strings, or ``(key, kind, keys)`` for an inner container (``analysis.Inner.spec``).
LeafSpecs = tuple[tuple[str, int | None, str, tuple[object, ...]], ...]


@lru_cache(maxsize=256)
def leaves_wrapper(
    leaves: LeafSpecs,
    pairs: tuple[tuple[str, Value], ...],
    helper: str = "static_leaves",
) -> tuple[str, str]:
    """Text around a transform for per-leaf statics, in the same partial form as every bare
    transform: ``jax.jit`` becomes ``__import__('functools').partial(__import__(
    'jaxrewrite.leaves').leaves.static_leaves, jax.jit, leaves=<leaves>, static_argnums=...)``;
    ``helper`` is the table row's ``per_leaf``."""
    return _around(_partial([_helper(helper)], (("leaves", leaves), *pairs)))


@lru_cache(maxsize=256)
def leaves_call_site(leaves: LeafSpecs, helper: str) -> tuple[str, str]:
    """Text around a call site's transform for per-leaf statics: ``jax.jit(fun, ...)`` becomes
    ``__import__('jaxrewrite.leaves').leaves.at_call('static_leaves', jax.jit, <leaves>)(fun,
    ...)``, the call's own arguments completed in place like any call site's."""
    return _around(
        ast.Call(_helper("at_call"), [ast.Constant(helper), _TRANSFORM, _const(leaves)], [])
    )


@lru_cache(maxsize=64)
def field_call(module: str, keyword: str, static: bool) -> str:
    """``__import__('equinox').field(static=True)``."""
    return _source(ast.Expr(_field(module, [], keyword, static)))


@lru_cache(maxsize=64)
def field_default(module: str, keyword: str, static: bool) -> tuple[str, str]:
    """Text around a plain default: ``__import__('equinox').field(default=`` and ``,
    static=True)``."""
    return _around(_field(module, [ast.keyword("default", _TRANSFORM)], keyword, static))


def field_keyword(keyword: str, static: bool) -> str:
    """``static=True``, ``pytree_node=False``."""
    return f"{keyword}={_source(ast.Expr(ast.Constant(static)))}"


def metadata_keyword(key: str, static: bool) -> str:
    """``metadata={'static': True}``."""
    return f"metadata={{{metadata_entry(key, static)}}}"


def metadata_entry(key: str, static: bool) -> str:
    """``'static': True``."""
    return _source(ast.Expr(ast.Dict([ast.Constant(key)], [ast.Constant(static)])))[1:-1]


def _field(module: str, before: list[ast.keyword], keyword: str, static: bool) -> ast.Call:
    return ast.Call(
        _import(module, "field"), [], [*before, ast.keyword(keyword, ast.Constant(static))]
    )
