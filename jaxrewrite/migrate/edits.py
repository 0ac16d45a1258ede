"""A plan spelled as offset-keyed edits: spec items deleted where written (their comments kept),
annotations added, every other character as written.
"""

from __future__ import annotations

import ast
import re

from jaxrewrite.engine.analysis import Function, Use, UseKind
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.read.handwritten import Reason
from jaxrewrite.engine.read.signature import Param
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.walk.specs import spec_keywords


def removals(use: Use, src: Source) -> dict[int, tuple[ast.Call, set[int]]]:
    """The spec items to delete, per call inside the use: Refused when one is not written there."""
    t = use.transform
    words = spec_keywords(t)
    where: dict[int, ast.Call] = {}  # the call each item written inside the use sits in
    for sub in ast.walk(use.node):
        if isinstance(sub, ast.Call):
            where.update((id(item), sub) for item in [*sub.keywords, *sub.args])
    out: dict[int, tuple[ast.Call, set[int]]] = {}
    for kw in use.written:
        if kw.arg not in words:
            continue
        item = kw if id(kw) in where else kw.value  # a keyword, else an argument by position
        call = where.get(id(item))
        if call is None:
            raise Reason.ALIAS.refused(
                keyword=kw.arg, line=kw.value.lineno, use=src.segment(use.node).strip()
            )
        if item is not kw and not t.spec_by_position:
            raise Reason.POSITIONAL.refused(keyword=kw.arg, transform=t.name)
        out.setdefault(id(call), (call, set()))[1].add(id(item))
    for call, removed in out.values():
        gone = [id(arg) in removed for arg in call.args]
        if gone != sorted(gone):  # a positional item kept after one removed would move
            raise Reason.POSITIONAL.refused("before", transform=t.name)
    return out


def annotate(p: Param, func: Function, marker: str, src: Source) -> list[splice.Edit]:
    """``x`` -> ``x: Static``, ``x: int`` -> ``x: Static[int]``, ``n=3`` -> ``n: Static = 3``."""
    arg = p.node
    if arg.annotation is not None:
        start, end = src.start(arg.annotation), src.end(arg.annotation)
        return [splice.Edit(start, start, f"{marker}["), splice.Edit(end, end, "]")]
    end = src.end(arg)
    edits = [splice.Edit(end, end, f": {marker}")]
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    defaults: dict[int, ast.expr | None] = dict(
        zip(map(id, positional[len(positional) - len(args.defaults) :]), args.defaults)
    )
    defaults.update(zip(map(id, args.kwonlyargs), args.kw_defaults))
    default = defaults.get(id(arg))
    if default is not None:
        at = src.start(default)
        if src.text[end:at] == "=":  # PEP 8 spacing once the parameter is annotated
            edits.append(splice.Edit(end, at, " = "))
    return edits


def use_edits(use: Use, src: Source) -> list[splice.Edit]:
    """Delete the spec where written; a partial or factory left holding only the transform
    becomes the transform (``@partial(jax.jit, static_argnums=1)`` -> ``@jax.jit``)."""
    # The partial (``partial(T, ...)``) or factory (``T(...)``) call that names the transform.
    top = use.node.func if use.kind is UseKind.CALL else use.node  # type: ignore[attr-defined]
    edits: list[splice.Edit] = []
    for call, removed in removals(use, src).values():
        items = sorted([*call.args, *call.keywords], key=src.start)
        kept = [item for item in items if id(item) not in removed]
        if call is top and not splice.comments(src.segment(call)):
            if use.factory and not kept:
                edits.append(splice.Edit(src.start(call), src.end(call), src.segment(call.func)))
                continue
            if not use.factory and len(kept) == 1 and kept[0] is call.args[0]:
                edits.append(splice.Edit(src.start(call), src.end(call), src.segment(call.args[0])))
                continue
        edits += _delete_items(call, items, removed, src)
    return edits


def _delete_items(
    call: ast.Call, items: list[ast.AST], removed: set[int], src: Source
) -> list[splice.Edit]:
    """Delete runs of items with one separator each (whole lines where they fill them),
    keeping comments."""
    edits: list[splice.Edit] = []
    text = src.text
    index = 0
    while index < len(items):
        if id(items[index]) not in removed:
            index += 1
            continue
        first = index
        while index < len(items) and id(items[index]) in removed:
            index += 1
        last = index - 1
        lines = _whole_lines(text, src.start(items[first]), src.end(items[last]))
        if lines is not None:
            start, end = lines
            indent = text[start : src.start(items[first])]
            comments = splice.comments(text[start:end])
            newline = "\r\n" if text.endswith("\r\n", start, end) else "\n"
            edits.append(splice.Edit(start, end, "".join(indent + c + newline for c in comments)))
            continue
        if index < len(items):  # a kept item follows: take the separator after the run
            start, end = src.start(items[first]), src.start(items[index])
        elif first > 0:  # the run ends the call: take the separator before it
            start, end = src.end(items[first - 1]), src.end(items[last])
        else:  # nothing is left: empty the parentheses
            start = text.index("(", src.end(call.func)) + 1
            end = src.end(call) - 1
        edits.append(splice.Edit(start, end, _kept_comments(text, start, end)))
    return edits


_REST_OF_LINE = re.compile(r"[ \t]*,?[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n)")


def _whole_lines(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The whole lines holding the span, if nothing else is on them but a comma and a comment."""
    line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    if text[line_start:start].strip(" \t"):
        return None
    rest = _REST_OF_LINE.match(text, end)
    return None if rest is None else (line_start, rest.end())


def _kept_comments(text: str, start: int, end: int) -> str:
    """What replaces a deleted span: nothing, or its comments, each on its own line."""
    fragment = text[start:end]
    comments = splice.comments(fragment)
    if not comments:
        return ""
    line_start = text.rfind("\n", 0, start) + 1
    lead = "" if not text[line_start:start].strip() else "  "
    indent_at = fragment.rfind("\n")
    indent = (
        fragment[indent_at + 1 :]
        if indent_at >= 0 and not fragment[indent_at + 1 :].strip()
        else ""
    )
    newline = "\r\n" if "\r\n" in fragment else "\n"
    return lead + newline.join(comments) + newline + indent
