"""Resolving expressions to what they statically refer to: dotted import names and aliases."""

from __future__ import annotations

import ast

from jaxrewrite.engine.read.denote import paths
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


#: What a reading that reached ``MAX_DEPTH`` denotes: no name (no dotted name is empty), kept
#: apart from None so that ``recognise.classify_cut`` can tell a transform it may have missed.
CUT = ""


def qualname(expr: ast.expr, scope: Scope) -> str | None:
    """The dotted name ``expr`` denotes through imports and plain-name aliases on every path of a
    name (``denote.paths``), if known."""
    return qualname_or_cut(expr, scope) or None


_Memo = dict[tuple[str, int, int], str | None]


def qualname_or_cut(
    expr: ast.expr, scope: Scope, depth: int = 0, memo: _Memo | None = None, use: str | None = None
) -> str | None:
    """``qualname``, or ``CUT`` where a path reached the depth cut. ``use``: what is done with the
    value (``jax = None`` is no path of ``jax.jit``). ``memo``: each (name, scope, depth) read
    once (``f = f`` twice in a scope would be 2**32 readings)."""
    if depth > MAX_DEPTH:
        return CUT
    if isinstance(expr, ast.Attribute):
        base = qualname_or_cut(expr.value, scope, depth + 1, memo, expr.attr)
        return base and canonical(f"{base}.{expr.attr}")
    if isinstance(expr, ast.Subscript):
        # ``UNCHECKED["Static"]`` (a marker without the run-time check) is ``jaxrewrite.Static``;
        # any other subscript denotes no name.
        item = expr.slice.value if isinstance(expr.slice, ast.Constant) else None
        if not (isinstance(item, str) and item.isidentifier()):
            return None
        unchecked = qualname_or_cut(expr.value, scope, depth + 1, memo) == MARKER_TABLE
        return f"jaxrewrite.{item}" if unchecked else None
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


def _name_qualname(name: str, scope: Scope, depth: int, memo: _Memo, use: str | None) -> str | None:
    found = paths(name, scope, use)
    if found is None:
        return star_export(name, scope)
    names: set[str | None] = set()
    aliases: list[Assigned] = []
    for binding, *_ in found:
        if isinstance(binding, Imported):
            names.add(canonical(binding.qualname))
        elif isinstance(binding, Assigned) and isinstance(
            binding.value, (ast.Name, ast.Attribute, ast.Subscript)
        ):
            aliases.append(binding)
        else:
            return None  # whatever the aliases read: none is read, so none reaches the cut
    names.update(qualname_or_cut(a.value, a.scope, depth + 1, memo, use) for a in aliases)
    if CUT in names:
        return CUT
    return names.pop() if len(names) == 1 else None


def single(expr: ast.expr, scope: Scope) -> Binding | None:
    """The binding a bare name refers to, when it has exactly one."""
    found = scope.lookup(expr.id) if isinstance(expr, ast.Name) else None
    return found[0][0] if found is not None and len(found[0]) == 1 else None


def star_export(name: str, scope: Scope) -> str | None:
    """The dotted name ``name`` has through the one ``from m import *`` that exports it."""
    candidates = {
        f"{module}.{name}"
        for module in scope.module().star_imports
        if name in STAR_EXPORTS.get(module.partition(".")[0], ())
    }
    return canonical(candidates.pop()) if len(candidates) == 1 else None


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
