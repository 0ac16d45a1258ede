"""The literal readers every spec kind shares: a keyword's value as JAX reads it, when it is a
literal, and the keyword values the engine writes.

The lowest module of the spec math (it imports only ``source``), so that the spec modules, the
class registration and migrate read literals one way; ``render`` spells the values it types.
"""

from __future__ import annotations

import ast
from typing import TypeVar

from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.read.source import Source


class _Missing:
    """Marks a keyword value that is not a literal."""


MISSING = _Missing()

#: A keyword value jaxrewrite writes: a tuple of positions, names and/or None axes.
Value = tuple[int | str | None, ...]
Values = list[tuple[str, Value, "ast.expr | None"]]


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
    # Negative numbers stay as written: JAX resolves them against the arguments each call
    # passes, so no fixed parameter (or name) can stand for them.
    return _items(node, keyword, src, int, "int or tuple of ints")


def literal_strs(node: ast.expr | None, keyword: str | None, src: Source) -> tuple[str, ...]:
    return _items(node, keyword, src, str, "str or tuple of str")


T = TypeVar("T", int, str)


def _items(node: ast.expr | None, keyword: str | None, src: Source, item: type[T], what: str) -> tuple[T, ...]:
    """A literal ``item`` or tuple (list) of them, as a tuple; ``None`` or no node is empty (JAX:
    not given); anything else is JR111. A bool is not an int here."""
    if node is None:
        return ()
    value = literal(node)
    if value is None:
        return ()
    items = (value,) if isinstance(value, item) else value
    if not isinstance(items, (tuple, list)) or not all(
        isinstance(i, item) and not isinstance(i, bool) for i in items
    ):
        raise rules.NOT_LITERAL.error(src, node, keyword=keyword, what=what, spec=ast.unparse(node))
    return tuple(items)


def same(node: ast.expr | None, value: Value) -> ast.expr | None:
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
