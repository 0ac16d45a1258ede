"""Resolving expressions to what they statically refer to: dotted import names and aliases."""

from __future__ import annotations

import ast

from jaxrewrite.scopes import Assigned, Imported, Scope
from jaxrewrite.transforms import TRANSFORMS

#: Names a star import may supply that jaxrewrite cares about (all others stay unknown).
_STAR_NAMES = {
    "jax": set(TRANSFORMS),
    "functools": {"partial"},
    "typing": {"Annotated"},
    "typing_extensions": {"Annotated"},
    "jaxrewrite": {"Static", "NoDiff", "STATIC", "NODIFF"},
}

_MAX_DEPTH = 32  # alias chains longer than this (or cyclic) resolve to nothing


def qualname(expr: ast.expr, scope: Scope, depth: int = 0) -> str | None:
    """The dotted name ``expr`` denotes through imports and plain-name aliases, if known."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, ast.Attribute):
        base = qualname(expr.value, scope, depth + 1)
        return None if base is None else f"{base}.{expr.attr}"
    if not isinstance(expr, ast.Name):
        return None
    cache = scope.qualnames
    if expr.id in cache:
        return cache[expr.id]
    result = _name_qualname(expr.id, scope, depth)
    if depth == 0:
        cache[expr.id] = result  # only complete answers: a depth-limited one may be truncated
    return result


def _name_qualname(name: str, scope: Scope, depth: int) -> str | None:
    found = scope.lookup(name)
    if found is None:
        return _star(name, scope)
    names: set[str | None] = set()
    for binding in found[0]:
        if isinstance(binding, Imported):
            names.add(binding.qualname)
        elif isinstance(binding, Assigned) and isinstance(binding.value, (ast.Name, ast.Attribute)):
            names.add(qualname(binding.value, binding.scope, depth + 1))
        else:
            return None
    return names.pop() if len(names) == 1 else None


def binding_scope(name: str, scope: Scope) -> Scope | None:
    """The scope whose binding a load of ``name`` in ``scope`` sees."""
    found = scope.lookup(name)
    return None if found is None else found[1]


def alias_of(expr: ast.expr, scope: Scope) -> Assigned | None:
    """The single assignment a bare name refers to, when that is its only binding."""
    if not isinstance(expr, ast.Name):
        return None
    found = scope.lookup(expr.id)
    if found is None or len(found[0]) != 1:
        return None
    binding = found[0][0]
    return binding if isinstance(binding, Assigned) else None


def _star(name: str, scope: Scope) -> str | None:
    candidates = {
        f"{module}.{name}"
        for module in scope.module().star_imports
        if name in _STAR_NAMES.get(module.partition(".")[0], ())
    }
    return candidates.pop() if len(candidates) == 1 else None


def is_partial(qual: str | None) -> bool:
    return qual == "functools.partial"


def marker_name(qual: str | None) -> str | None:
    """'Static'/'NoDiff'/'STATIC'/'NODIFF' for names exported by jaxrewrite (or its modules)."""
    if qual is None or qual.partition(".")[0] != "jaxrewrite":
        return None
    last = qual.rpartition(".")[2]
    return last if last in ("Static", "NoDiff", "STATIC", "NODIFF") else None


def is_annotated(qual: str | None) -> bool:
    return qual in ("typing.Annotated", "typing_extensions.Annotated")
