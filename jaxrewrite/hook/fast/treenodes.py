"""The nodes of what the plan writes, built directly: no parse of the new text.

Why: parsing the new text of each edited decorator costs about 60 us on 3.11, most of what the
tree route saves on a module with many of them. The plan says what each edit spells
(``plan.Made``): a tuple of constants, keywords, the partial wrapper around a bare transform.
Here those become nodes at the columns the printed text gives them, and every piece of text they
stand for is checked against the edit's own text first, so a renderer that spells something
differently sends the expression to the parse (treecode.py) instead of building the
wrong nodes. tests/test_treecode.py proves the code byte for byte the code of the text.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from functools import lru_cache
from typing import TypeVar, Union

from jaxrewrite.engine.edits import render
from jaxrewrite.engine.read.literals import Value
from jaxrewrite.engine.edits.plan import KEYWORDS, VALUE, WRAP_CLOSE, WRAP_OPEN
from jaxrewrite.engine.edits.splice import Edit

_LOAD = ast.Load()
#: The wrapper's opening text, whose nodes are built below (``render.wrapper``'s spelling).
_OPEN = "__import__('functools').partial("


N = TypeVar("N", bound=ast.AST)


def _node(cls: type[N], fields: dict[str, object]) -> N:
    """A node with ``fields`` (every field and position given): ``__new__`` and the instance dict,
    where the node's own ``__init__`` would cost four times as much (about 1.3 us on 3.11)."""
    node = cls.__new__(cls)
    node.__dict__.update(fields)
    return node


def _at(node: N, line: int, col: int, end: int) -> N:
    node.__dict__.update(lineno=line, end_lineno=line, col_offset=col, end_col_offset=end)
    return node


def _size(text: str) -> int:
    """Columns are UTF-8 byte offsets."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


@lru_cache(maxsize=1024)
def _layout(items: Value) -> tuple[tuple[tuple[object, int, int], ...], int] | None:
    """Each item of ``render.value(items)`` with its columns from the opening parenthesis, and
    the whole width; None for what this does not spell (a negative number, which parses as a
    unary minus; a nested tuple), or when the renderer spells it otherwise."""
    placed = []
    spelled = []
    pos = 1
    for item in items:
        if not (item is None or type(item) is str or (type(item) is int and item >= 0)):
            return None
        text = repr(item)
        size = _size(text)
        placed.append((item, pos, pos + size))
        spelled.append(text)
        pos += size + 2
    text = "(" + ", ".join(spelled) + ("," if len(items) == 1 else "") + ")"
    if text != render.value(items):
        return None
    return tuple(placed), _size(text)


def _tuple(items: Value, line: int, col: int) -> ast.Tuple | None:
    """``(1, 'n')`` at ``col`` (see ``_layout``)."""
    layout = _layout(items)
    if layout is None:
        return None
    placed, width = layout
    constant = ast.Constant
    elts = [
        _node(
            constant,
            {"value": item, "kind": None, "lineno": line, "col_offset": col + start, "end_lineno": line, "end_col_offset": col + end},
        )
        for item, start, end in placed
    ]
    return _node(
        ast.Tuple,
        {"elts": elts, "ctx": _LOAD, "lineno": line, "col_offset": col, "end_lineno": line, "end_col_offset": col + width},
    )


def _keywords(pairs: Sequence[tuple[str, Value]], line: int, col: int) -> list[ast.keyword] | None:
    """``name=(...), ...`` starting at ``col`` (``render.keywords``' spelling)."""
    out = []
    pos = col
    for name, items in pairs:
        value = _tuple(items, line, pos + _size(name) + 1)
        if value is None:
            return None
        end = _end(value)
        out.append(
            _node(
                ast.keyword,
                {"arg": name, "value": value, "lineno": line, "col_offset": pos, "end_lineno": line, "end_col_offset": end},
            )
        )
        pos = end + 2
    return out


def _end(node: ast.expr | ast.keyword) -> int:
    end = node.end_col_offset
    assert end is not None  # set by _at, or by the parser
    return end


def _shift(root: ast.AST, line: int, at: int, by: int, starts_from: int | None = None) -> None:
    """Move what follows column ``at`` on ``line`` by ``by`` bytes, in ``root``'s subtree: ends
    at or past ``at``, and starts at or past ``starts_from`` (``at`` unless given)."""
    first = at if starts_from is None else starts_from
    todo = [root]
    while todo:
        node = todo.pop()
        if getattr(node, "lineno", None) is not None:  # not the `arguments` of a lambda, say
            if node.lineno == line and node.col_offset >= first:  # type: ignore[attr-defined]
                node.col_offset += by  # type: ignore[attr-defined]
            if node.end_lineno == line and node.end_col_offset >= at:  # type: ignore[attr-defined]
                node.end_col_offset += by  # type: ignore[attr-defined]
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                todo.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append(value)


def _move(node: ast.expr, line: int, col: int, by: int) -> None:
    """``_shift`` of a whole one-line expression; a dotted name (``jax.jit``) without the walk."""
    while type(node) is ast.Attribute:
        node.col_offset += by
        node.end_col_offset += by  # type: ignore[operator]
        node = node.value
    if type(node) is ast.Name:
        node.col_offset += by
        node.end_col_offset += by  # type: ignore[operator]
    else:
        _shift(node, line, col, by)


def _shift_call(call: ast.Call, line: int, at: int, by: int) -> None:
    """``_shift`` over a call, walking only the arguments that reach past ``at``; those that end
    before it (the transform, say) are left unread."""
    parts: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    for part in parts:
        end_line = part.end_lineno or 0
        if end_line > line or (end_line == line and _end(part) >= at):
            _shift(part, line, at, by)
    if call.end_lineno == line and _end(call) >= at:
        call.end_col_offset = _end(call) + by


def wrapped(node: ast.expr, edits: Sequence[Edit]) -> ast.Call | None:
    """``__import__('functools').partial(<node>, <keywords>)`` for a bare transform on one line,
    ``node`` moved inside it; None (``node`` untouched) when the edits are not exactly that."""
    if len(edits) != 2 or node.lineno != node.end_lineno:
        return None
    opening, closing = edits if edits[0].start <= edits[1].start else (edits[1], edits[0])
    made_open, made_close = opening.made, closing.made
    if not (isinstance(made_open, tuple) and isinstance(made_close, tuple)):
        return None
    if made_open[0] != WRAP_OPEN or made_close[0] != WRAP_CLOSE or opening.text != _OPEN:
        return None
    pairs = made_close[1]
    line, col = node.lineno, node.col_offset
    width = len(_OPEN)
    end = _end(node) + width
    keywords = _keywords(pairs, line, end + 2)
    if keywords is None or closing.text != ", " + render.keywords(pairs) + ")":
        return None
    last = _end(keywords[-1]) if keywords else end
    _move(node, line, col, width)
    at = {"lineno": line, "end_lineno": line, "col_offset": col}
    name = _node(ast.Name, {"id": "__import__", "ctx": _LOAD, **at, "end_col_offset": col + 10})
    module = _at(_node(ast.Constant, {"value": "functools", "kind": None}), line, col + 11, col + 22)
    imported = _node(ast.Call, {"func": name, "args": [module], "keywords": [], **at, "end_col_offset": col + 23})
    partial = _node(ast.Attribute, {"value": imported, "attr": "partial", "ctx": _LOAD, **at, "end_col_offset": col + 31})
    return _node(ast.Call, {"func": partial, "args": [node], "keywords": keywords, **at, "end_col_offset": last + 1})


Holder = Union[tuple[list[ast.expr], int], tuple[ast.keyword, None]]


def completed(call: ast.Call, edits: Sequence[Edit]) -> int | None:
    """Apply keyword edits to ``call`` in place (values replaced, keywords appended), moving what
    follows each on its line; the growth of the call's last line in bytes, or None (``call``
    untouched) when some edit is not one this spells."""
    values: list[tuple[int, ast.expr, Holder, ast.Tuple]] = []
    appended: list[tuple[int, tuple[int, int], list[ast.keyword]]] = []
    for edit in edits:
        made = edit.made
        if not isinstance(made, tuple) or "\n" in edit.text:
            return None
        if made[0] == VALUE:
            old, items = made[1], made[2]
            holder = _holder(call, old)
            if holder is None or edit.text != render.value(items):
                return None
            new = _tuple(items, old.lineno, old.col_offset)
            if new is None:
                return None
            values.append((edit.start, old, holder, new))
        elif made[0] == KEYWORDS:
            pairs, comma = made[1], made[2]
            where = _insertion(call, comma)
            if where is None or edit.text != (", " if comma else "") + render.keywords(pairs):
                return None
            new_keywords = _keywords(pairs, where[0], where[1] + (2 if comma else 0))
            if not new_keywords:
                return None
            appended.append((edit.start, where, new_keywords))
        else:
            return None
    if len(appended) > 1:
        return None
    end_line, old_end = call.end_lineno, _end(call)
    # Right to left: each step moves only what lies right of it, so those left keep their columns.
    steps: list[tuple[int, int]] = [(start, i) for i, (start, *_) in enumerate(values)]
    steps += [(start, -1) for start, *_ in appended]
    for _, index in sorted(steps, reverse=True):
        if index >= 0:
            _, old, holder, new = values[index]
            # What follows the old value moves (its keyword's end too; the old value itself, read
            # here too, is dropped next), then the new value takes its place at its own columns.
            _shift_call(call, old.lineno, _end(old), _end(new) - _end(old))
            if holder[1] is None:
                holder[0].value = new
            else:
                holder[0][holder[1]] = new
        else:
            _, (line, col), new_keywords = appended[0]
            grown = _end(new_keywords[-1]) - col
            # Nothing but the closing parenthesis follows the last argument.
            if call.end_lineno == line:
                call.end_col_offset = _end(call) + grown
            call.keywords.extend(new_keywords)
    assert call.end_lineno == end_line  # edits on one line each never move a line break
    return _end(call) - old_end


def _holder(call: ast.Call, node: ast.expr) -> Holder | None:
    """Where ``node`` sits in ``call``: (args list, index), or (keyword, None)."""
    for index, arg in enumerate(call.args):
        if arg is node:
            return call.args, index
    for kw in call.keywords:
        if kw.value is node:
            return kw, None
    return None


def _insertion(call: ast.Call, comma: bool) -> tuple[int, int] | None:
    """The (line, column) where plan appends keywords: after the last argument, or inside empty
    parentheses."""
    parts: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    if comma:
        if not parts:
            return None
        last = max(parts, key=lambda p: (p.end_lineno or 0, _end(p)))
        assert last.end_lineno is not None
        return last.end_lineno, _end(last)
    if parts or call.end_lineno is None:
        return None
    return call.end_lineno, _end(call) - 1
