"""The literal readers every spec kind shares: a keyword's value as JAX reads it, when it is a
literal, and the keyword values the engine writes.

The lowest module of the spec math (it imports only ``render`` and ``source``), so that the
spec modules, the class registration and migrate read literals one way.
"""

from __future__ import annotations

import ast

from jaxrewrite.engine import render
from jaxrewrite.engine.source import Source


class _Missing:
    """Marks a keyword value that is not a literal."""


MISSING = _Missing()

Values = list[tuple[str, render.Value, "ast.expr | None"]]


def literal(node: ast.expr) -> object:
    """``ast.literal_eval``, with a fast path for the constants and flat tuples specs are made of."""
    kind = type(node)
    if kind is ast.Constant:
        return node.value  # type: ignore[attr-defined]
    if isinstance(node, (ast.Tuple, ast.List)):
        items = []
        for element in node.elts:
            if type(element) is not ast.Constant:
                break
            items.append(element.value)
        else:
            return tuple(items) if kind is ast.Tuple else items
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return MISSING


def literal_ints(node: ast.expr | None, keyword: str | None, src: Source) -> tuple[int, ...]:
    if node is None:
        return ()
    value = literal(node)
    if value is None:
        return ()
    items = (value,) if isinstance(value, int) else value
    if not isinstance(items, (tuple, list)) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in items
    ):
        raise src.error(
            node,
            "JR111",
            f"{keyword} must be a literal int or tuple of ints to merge with Static parameters, "
            f"not {ast.unparse(node)!r}",
        )
    # Negative numbers stay as written: JAX resolves them against the arguments each call
    # passes, so no fixed parameter (or name) can stand for them.
    return tuple(items)


def literal_strs(node: ast.expr | None, keyword: str | None, src: Source) -> tuple[str, ...]:
    if node is None:
        return ()
    value = literal(node)
    if value is None:
        return ()
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, (tuple, list)) or not all(isinstance(i, str) for i in items):
        raise src.error(
            node,
            "JR111",
            f"{keyword} must be a literal str or tuple of str to merge with Static parameters, "
            f"not {ast.unparse(node)!r}",
        )
    return tuple(items)


def same(node: ast.expr | None, value: render.Value) -> ast.expr | None:
    """``node`` when its literal already equals ``value`` (as JAX reads it), else None."""
    if node is None:
        return None
    value_read = literal(node)
    if isinstance(value_read, (int, str)) and not isinstance(value_read, bool):
        value_read = (value_read,)
    if value_read is None and value == ():
        return node
    if isinstance(value_read, (tuple, list)) and tuple(value_read) == value:
        return node
    return None
