"""Recognising JAX transforms in expressions: plain, ``partial``, factory and alias forms; and
what only looks like one the table lacks (``table.TRANSFORM_LIKE``, JR004/JR007)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.read.resolve import MAX_DEPTH, alias_of, is_partial, qualname
from jaxrewrite.engine.read.scopes import Assigned, Imported, Scope
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.table import (
    DECORATOR_LIKE,
    TRANSFORM_LIKE,
    ClassTransform,
    Transform,
    canonical,
    class_transform_for,
    transform_for,
)


@dataclass(frozen=True)
class TransformRef:
    """An expression that evaluates to (a partial application of) a JAX transform."""

    transform: Transform
    #: Keywords already bound to the transform, innermost first (later ones override).
    keywords: tuple[ast.keyword, ...]
    #: The expression is a call that *returns* a decorator (``jax.jit(static_argnames=...)``):
    #: what it returns takes only the function, so no keyword can be added after it.
    factory: bool = False


def classify(expr: ast.expr, scope: Scope, depth: int = 0) -> TransformRef | None:
    """Does ``expr`` denote a JAX transform, possibly through partial, factory or alias forms?"""
    if depth > MAX_DEPTH:
        return None
    if isinstance(expr, (ast.Name, ast.Attribute)):
        transform = transform_for(qualname(expr, scope) or "")
        if transform is not None:
            return TransformRef(transform, ())
        alias = alias_of(expr, scope)
        if alias is not None and isinstance(alias.value, ast.Call):
            return classify(alias.value, alias.scope, depth + 1)
        return None
    if isinstance(expr, ast.Call):
        if is_partial(qualname(expr.func, scope)):
            if len(expr.args) != 1 or isinstance(expr.args[0], ast.Starred):
                return None
            inner = classify(expr.args[0], scope, depth + 1)
            if inner is None or inner.factory:
                return None
            return TransformRef(inner.transform, inner.keywords + tuple(expr.keywords))
        if not expr.args:
            inner = classify(expr.func, scope, depth + 1)
            if inner is None or inner.factory:
                return None
            return TransformRef(inner.transform, inner.keywords + tuple(expr.keywords), factory=True)
    return None


def bound_keywords(call: ast.Call, positional: tuple[str, ...], what: str, src: Source) -> tuple[ast.keyword, ...]:
    """The arguments after the first of ``call`` as keywords: a positional argument becomes the
    keyword it binds (``jax.vmap(f, (0, None))`` says ``in_axes=(0, None)``), so it is merged
    and completed in place, never passed twice."""
    extra = call.args[1:]
    if not extra:
        return tuple(call.keywords)
    for arg in extra:
        if isinstance(arg, ast.Starred):
            raise rules.UNPACKED.error(src, arg, "starred", transform=what, sequence=ast.unparse(arg.value))
    if len(extra) > len(positional):
        count, s = len(positional), "s" if len(positional) != 1 else ""
        raise rules.TOO_MANY_POSITIONAL.error(src, extra[count], transform=what, count=count, s=s, given=len(extra))
    named = [ast.keyword(arg=name, value=value) for name, value in zip(positional, extra)]
    for kw, node in zip(named, extra):
        ast.copy_location(kw, node)
    return (*named, *call.keywords)


def ambiguous(expr: ast.expr, scope: Scope) -> bool:
    """Is ``expr`` a transform under one of several bindings of its root name?

    ``classify`` answers None when a name is bound two different ways (say, ``jit`` from
    ``jax`` in one branch and something else in another). For a function with Static
    parameters that would silently drop the statics, so the planner reports it instead.
    """
    if isinstance(expr, ast.Call):
        expr = expr.args[0] if is_partial(qualname(expr.func, scope)) and expr.args else expr.func
    attrs: list[str] = []
    while isinstance(expr, ast.Attribute):
        attrs.insert(0, expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return False
    found = scope.lookup(expr.id)
    if found is None or len(found[0]) < 2:
        return False
    suffix = "".join("." + attr for attr in attrs)
    for binding in found[0]:
        if isinstance(binding, Imported) and transform_for(canonical(binding.qualname + suffix)) is not None:
            return True
        if isinstance(binding, Assigned) and not attrs and classify(binding.value, binding.scope) is not None:
            return True
    return False


def classify_registration(
    expr: ast.expr, scope: Scope
) -> tuple[ClassTransform, tuple[ast.keyword, ...]] | None:
    """``jax.tree_util.register_dataclass`` itself, or ``partial(...)`` of it."""
    if isinstance(expr, (ast.Name, ast.Attribute)):
        found = class_transform_for(qualname(expr, scope) or "")
        return None if found is None else (found, ())
    if isinstance(expr, ast.Call) and is_partial(qualname(expr.func, scope)) and len(expr.args) == 1:
        inner = classify_registration(expr.args[0], scope)
        return None if inner is None else (inner[0], inner[1] + tuple(expr.keywords))
    return None


#: A decorator's or callee's last name that says "transform" (``table.TRANSFORM_LIKE``), and
#: those that say it as a decorator only (``table.DECORATOR_LIKE``).
_TRANSFORM_LIKE = re.compile("|".join(TRANSFORM_LIKE), re.IGNORECASE)
_DECORATOR_LIKE = re.compile("|".join(DECORATOR_LIKE), re.IGNORECASE)


def looks_like_transform(expr: ast.expr) -> bool:
    """A decorator or callee whose own name says "transform" (``partial(f, ...)`` looks at ``f``)."""
    return bool(_TRANSFORM_LIKE.search(_own_name(expr)))


def looks_like_transform_decorator(expr: ast.expr) -> bool:
    """``looks_like_transform``, or a name that says "transform" where it decorates a def."""
    name = _own_name(expr)
    return bool(_TRANSFORM_LIKE.search(name) or _DECORATOR_LIKE.search(name))


def _own_name(expr: ast.expr) -> str:
    """The last name of what a decorator or callee applies ("" for an expression without one)."""
    while isinstance(expr, ast.Call):  # to any depth: the expression's own nesting ends it
        expr = expr.args[0] if expr.args and _is_partial_name(expr.func) else expr.func
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Name):
        return expr.id
    return ""


def _is_partial_name(expr: ast.expr) -> bool:
    return (isinstance(expr, ast.Name) and expr.id == "partial") or (
        isinstance(expr, ast.Attribute) and expr.attr == "partial"
    )
