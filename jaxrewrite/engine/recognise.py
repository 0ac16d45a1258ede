"""Recognising JAX transforms in expressions: plain, ``partial``, factory and alias forms."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxrewrite.engine.resolve import MAX_DEPTH, alias_of, is_partial, qualname
from jaxrewrite.engine.scopes import Assigned, Imported, Scope
from jaxrewrite.engine.source import Source
from jaxrewrite.engine.table import (
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
            raise src.error(
                arg,
                "JR109",
                f"cannot merge Static parameters into {what} arguments passed as *{ast.unparse(arg.value)}; "
                "write the arguments out one by one",
            )
    if len(extra) > len(positional):
        raise src.error(
            extra[len(positional)],
            "JR120",
            f"{what} takes {len(positional)} positional argument{'s' if len(positional) != 1 else ''} after "
            f"the function, but {len(extra)} are given; pass the options by keyword",
        )
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
