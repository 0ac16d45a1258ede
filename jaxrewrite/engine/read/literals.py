"""The one reader of literals every spec kind, the class registration and migrate share: a
keyword's value as JAX reads it, when it is a literal (through ``range(...)``, ``tuple(...)`` and
module constants), and the keyword values the engine writes.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import TypeVar

from jaxrewrite.engine.read.scopes import Assigned, Scope, ScopeKind
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import SpecKind, Transform

#: Marks a keyword value that is not a literal.
MISSING = object()

#: A keyword value jaxrewrite writes: a tuple of positions, names and/or None axes.
Value = tuple[int | str | None, ...]
Values = list[tuple[str, Value, "ast.expr | None"]]


def literal(node: ast.expr) -> object:
    """``ast.literal_eval``, or the value ``resolve_keywords`` read for a name or call."""
    if type(node) is ast.Name or type(node) is ast.Call:
        return getattr(node, _RESOLVED, MISSING)
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return MISSING


#: Where ``resolve_keywords`` leaves the value it read on a keyword's node, for ``literal``.
_RESOLVED = "jaxrewrite_value"
#: The builtins that make a sequence of literals (by what JAX does with it, a tuple).
_SEQUENCES = {"range": range, "tuple": tuple, "list": list}
#: Longer ranges are not spelled out (``range(10**9)`` is no spec anybody writes).
_MAX_ITEMS = 1024


def resolve_keywords(
    t: Transform, keywords: Iterable[ast.keyword], scope: Scope, src: Source
) -> None:
    """Resolve each keyword value of a use of ``t`` spelled as ``range``/``tuple``/``list`` over
    literals, or as a module name bound once to one of those or an immutable literal, for
    ``literal`` to read. Not for an axes spec: vmap reads a range as no tuple."""
    if t.spec is SpecKind.AXES:
        return
    for kw in keywords:
        node = kw.value
        if type(node) in (ast.Name, ast.Call) and not hasattr(node, _RESOLVED):
            value = _value(node, scope, src, 0)
            if value is not MISSING:
                setattr(node, _RESOLVED, value)


def _value(node: ast.expr, scope: Scope, src: Source, depth: int) -> object:
    if depth > 8:  # ``A = B``, ``B = A``: a loop of names is no constant
        return MISSING
    if isinstance(node, ast.Name):
        found = scope.lookup(node.id)
        if found is None or found[1].kind is not ScopeKind.MODULE or len(found[0]) != 1:
            return MISSING
        binding, module = found[0][0], found[1]
        if not isinstance(binding, Assigned) or binding.type_statement or module.star_imports:
            return MISSING  # a star import may bind the name too
        value = _value(binding.value, module, src, depth + 1)
        if not isinstance(value, (tuple, int, str)):  # a list may be mutated
            return MISSING
        # A function's ``global`` statement may too (its scope holds that binding, not the module).
        pattern = rf"\bglobal\b[^\n]*\b{re.escape(node.id)}\b"
        return MISSING if "global" in src.text and re.search(pattern, src.text) else value
    if not isinstance(node, ast.Call):
        value = literal(node)
        return value if isinstance(value, (tuple, list, int, str)) else MISSING
    func = node.func
    if not isinstance(func, ast.Name) or func.id not in _SEQUENCES or node.keywords:
        return MISSING
    if scope.lookup(func.id) is not None or scope.module().star_imports:
        return MISSING
    args = [_value(arg, scope, src, depth + 1) for arg in node.args]
    if func.id != "range":
        if len(args) != 1 or not isinstance(args[0], (tuple, list)):
            return MISSING  # ``tuple("ab")`` and friends: no spec is written that way
        return _SEQUENCES[func.id](args[0])
    ints = [a for a in args if type(a) is int]
    if not 1 <= len(ints) == len(args) <= 3 or ints[2:] == [0]:  # a zero step: ValueError
        return MISSING
    made = range(*ints)
    if abs(made.stop - made.start) > _MAX_ITEMS * abs(made.step):  # len() overflows ssize_t
        return MISSING
    return tuple(made)


def literal_ints(node: ast.expr | None, keyword: str | None, src: Source) -> tuple[int, ...]:
    # Negative numbers stay as written: JAX resolves them against the arguments each call
    # passes, so no fixed parameter (or name) can stand for them.
    return _items(node, keyword, src, int, "int or tuple of ints")


def literal_strs(node: ast.expr | None, keyword: str | None, src: Source) -> tuple[str, ...]:
    return _items(node, keyword, src, str, "str or tuple of str")


T = TypeVar("T", int, str)


def _items(
    node: ast.expr | None, keyword: str | None, src: Source, item: type[T], what: str
) -> tuple[T, ...]:
    """A literal ``item`` or tuple (list) of them, as a tuple; ``None`` or no node is empty (JAX:
    not given); anything else is JR111. A bool is not an int here."""
    if node is None or (value := literal(node)) is None:
        return ()
    items = (value,) if isinstance(value, item) else value
    if not isinstance(items, (tuple, list)) or not all(
        isinstance(i, item) and not isinstance(i, bool) for i in items
    ):
        raise rules.NOT_LITERAL.error(src, node, keyword=keyword, what=what, spec=ast.unparse(node))
    return tuple(items)


def same(node: ast.expr | None, value: Value) -> ast.expr | None:
    """``node`` when its literal already equals ``value`` (as JAX reads it), else None."""
    read = MISSING if node is None else literal(node)
    if isinstance(read, (int, str)) and not isinstance(read, bool):
        read = (read,)
    if read is None and value == () or isinstance(read, (tuple, list)) and tuple(read) == value:
        return node
    return None
