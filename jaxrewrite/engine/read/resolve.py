"""Resolving expressions to what they statically refer to: dotted import names and aliases."""

from __future__ import annotations

import ast

from jaxrewrite.engine.read.denote import CALLED, paths
from jaxrewrite.engine.read.scopes import Assigned, Binding, Imported, Scope
from jaxrewrite.engine.rulebook.table import MARKER_TABLE, STAR_EXPORTS, canonical

#: Alias chains (and nested annotations, base classes) deeper than this resolve to nothing, so a
#: cycle ends; where a marker or a transform could be lost that way, the analysis refuses (JR127).
MAX_DEPTH = 32
#: How JR127 says why it cannot tell (one wording for the marker, transform and per-leaf readers).
PAST_DEPTH = (
    f"reading it takes more than {MAX_DEPTH} aliases or nested annotations, or goes round a loop "
    "of aliases"
)


class TooDeep(Exception):
    """A reader went past ``MAX_DEPTH``; raised where only the caller knows whether that could lose
    a marker (``classes.leaf_class``)."""


def qualname(
    expr: ast.expr,
    scope: Scope,
    depth: int = 0,
    memo: dict[tuple[str, int, int], str | None] | None = None,
    use: str | None = None,
) -> str | None:
    """The dotted name ``expr`` denotes through imports and plain-name aliases on every path of a
    name (``denote.paths``; ``use``: what is done with the value, so that ``jax = None`` is no
    path of ``jax.jit``), if known. ``memo``: answers by (name, scope, depth), each read once
    (``f = f`` twice in a scope would be 2**32 readings)."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Attribute):
        value = expr.value
        if depth == 0 and isinstance(value, ast.Name):
            # ``jax.jit`` is read for every decorator: kept by its dotted text.
            cache = scope.qualnames
            key = f"{value.id}.{expr.attr}"
            if key in cache:
                return cache[key]
            base = qualname(value, scope, 1, memo, expr.attr)
            found = None if base is None else canonical(f"{base}.{expr.attr}")
            cache[key] = found
            return found
        base = qualname(value, scope, depth + 1, memo, expr.attr)
        return None if base is None else canonical(f"{base}.{expr.attr}")
    if isinstance(expr, ast.Subscript):
        return _unchecked(expr, scope, depth, memo)
    if not isinstance(expr, ast.Name):
        return None
    cache = scope.qualnames
    key = expr.id if use is None else f"{expr.id} {use}"  # no name holds a space
    if key in cache:
        return cache[key]
    if memo is None:
        memo = {}
    at = (key, id(scope), depth)
    if at in memo:
        return memo[at]
    result = memo[at] = _name_qualname(expr.id, scope, depth, memo, use)
    if depth == 0:
        cache[key] = result  # only complete answers: a depth-limited one may be truncated
    return result


def _name_qualname(
    name: str,
    scope: Scope,
    depth: int,
    memo: dict[tuple[str, int, int], str | None],
    use: str | None,
) -> str | None:
    found = paths(name, scope, use)
    if found is None:
        return star_export(name, scope)
    names: set[str | None] = set()
    for binding, *_ in found:
        if isinstance(binding, Imported):
            names.add(canonical(binding.qualname))
        elif isinstance(binding, Assigned) and isinstance(
            binding.value, (ast.Name, ast.Attribute, ast.Subscript)
        ):
            names.add(qualname(binding.value, binding.scope, depth + 1, memo, use))
        else:
            return None
    return names.pop() if len(names) == 1 else None


def _unchecked(
    expr: ast.Subscript,
    scope: Scope,
    depth: int,
    memo: dict[tuple[str, int, int], str | None] | None,
) -> str | None:
    """What ``UNCHECKED["Static"]`` (the markers without the run-time check) holds:
    ``jaxrewrite.Static``. Any other subscript denotes no name."""
    key = expr.slice
    if not (
        isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier()
    ):
        return None
    return (
        f"jaxrewrite.{key.value}"
        if qualname(expr.value, scope, depth + 1, memo) == MARKER_TABLE
        else None
    )


def binding_scope(name: str, scope: Scope) -> Scope | None:
    """The scope whose binding a load of ``name`` in ``scope`` sees."""
    found = scope.lookup(name)
    return None if found is None else found[1]


def single(expr: ast.expr, scope: Scope) -> Binding | None:
    """The binding a bare name refers to, when it has exactly one."""
    if not isinstance(expr, ast.Name):
        return None
    found = scope.lookup(expr.id)
    if found is None or len(found[0]) != 1:
        return None
    return found[0][0]


def alias_of(expr: ast.expr, scope: Scope) -> Assigned | None:
    """The single assignment a bare name refers to, when that is its only binding."""
    binding = single(expr, scope)
    return binding if isinstance(binding, Assigned) else None


def too_deep(expr: ast.expr, scope: Scope) -> bool:
    """Is ``recognise.classify``'s None for ``expr`` its depth cut's (a longer chain, or a loop),
    where it would leave a marked def untransformed? Follows exactly the links ``classify`` and
    ``qualname`` follow, each (node, depth) once."""
    return _classify_cut(expr, scope, 0, set())


def _classify_cut(
    expr: ast.expr, scope: Scope, depth: int, seen: set[tuple[int, int]], hops: int = 0
) -> bool:
    """``recognise._classify``'s two budgets: ``depth`` for calls, ``hops`` for names since."""
    if depth > MAX_DEPTH or hops > MAX_DEPTH:
        return True
    key = (id(expr), -1 - depth - (MAX_DEPTH + 1) * hops)
    if key in seen:
        return False  # answered False already: a True ends the search
    seen.add(key)
    if isinstance(expr, (ast.Name, ast.Attribute)):
        if _qualname_cut(expr, scope, hops, seen, CALLED):
            return True
        found = paths(expr.id, scope, CALLED) if isinstance(expr, ast.Name) else None
        for binding, *_ in found or ():
            if not isinstance(binding, Assigned):
                continue
            if isinstance(binding.value, (ast.Name, ast.Attribute)):
                cut = _classify_cut(binding.value, binding.scope, depth, seen, hops + 1)
            else:
                cut = _classify_cut(binding.value, binding.scope, depth + 1, seen)
            if cut:
                return True
        return False
    if isinstance(expr, ast.Call):
        if _qualname_cut(expr.func, scope, 0, seen):
            return True
        if is_partial(qualname(expr.func, scope)):
            return len(expr.args) == 1 and _classify_cut(expr.args[0], scope, depth + 1, seen)
        return not expr.args and _classify_cut(expr.func, scope, depth + 1, seen)
    return False


def _qualname_cut(
    expr: ast.expr, scope: Scope, depth: int, seen: set[tuple[int, int]], use: str | None = None
) -> bool:
    if depth > MAX_DEPTH:
        return True
    if (id(expr), depth) in seen:
        return False  # answered False already: a True ends the search
    seen.add((id(expr), depth))
    if isinstance(expr, ast.Attribute):
        return _qualname_cut(expr.value, scope, depth + 1, seen, expr.attr)
    if not isinstance(expr, ast.Name):
        return False
    found = paths(expr.id, scope, use)
    if found is None:
        return False
    aliases = []
    for binding, *_ in found:
        if isinstance(binding, Assigned) and isinstance(binding.value, (ast.Name, ast.Attribute)):
            aliases.append(binding)
        elif not isinstance(binding, Imported):
            return False  # qualname answers None here whatever the depth
    return any(_qualname_cut(b.value, b.scope, depth + 1, seen, use) for b in aliases)


def star_export(name: str, scope: Scope) -> str | None:
    """The dotted name ``name`` has through the module's ``from m import *``, when one such module
    exports it."""
    candidates = {
        f"{module}.{name}"
        for module in scope.module().star_imports
        if name in STAR_EXPORTS.get(module.partition(".")[0], ())
    }
    return canonical(candidates.pop()) if len(candidates) == 1 else None


def is_partial(qual: str | None) -> bool:
    return qual == "functools.partial"


def is_annotated(qual: str | None) -> bool:
    return qual == "typing.Annotated"


def parse_string(text: str) -> ast.expr | None:
    """A string annotation as an expression (PEP 563 text, forward references), or None."""
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None


def unquoted(ann: ast.expr | None) -> ast.expr | None:
    """An annotation as the type it names: a string one parsed (None where it does not parse)."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return parse_string(ann.value)
    return ann
