"""Planning: an Analysis in, edits on the source text out. The analysis has decided what each use
needs; here it is only spelled, by completing a call in place or wrapping a bare transform.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from jaxrewrite.engine.analysis import Analysis, Registration, Use, UseKind
from jaxrewrite.engine.edits import render, splice
from jaxrewrite.engine.read.classes import Action, FieldUse
from jaxrewrite.engine.read.literals import Value, Values
from jaxrewrite.engine.read.source import Source


def plan(analysis: Analysis) -> list[splice.Edit]:
    """Every edit the analysis calls for; nothing when it found an error (the hook raises that)."""
    src = analysis.source
    edits = [edit for use in analysis.edited() for edit in _edits(use, src)]
    for field in analysis.fields:
        edits.extend(_field_edits(field, src))
    return edits


def _field_edits(use: FieldUse, src: Source) -> list[splice.Edit]:
    """A Static field spelled the library's way, the user's value and arguments in place."""
    form, at = use.form, use.at
    if use.action is Action.ADD:
        end = src.end(at)
        return [splice.Edit(end, end, " = " + render.field(form)[0])]
    if use.action is Action.DEFAULT:
        return _around(at, *render.field(form, default=True), src)
    if use.action is Action.ENTRY:
        assert isinstance(at, ast.Dict)
        start = src.start(at) + 1  # just after the opening brace
        entry = render.metadata_entry(form)
        return [splice.Edit(start, start, entry + (", " if at.keys else ""))]
    assert isinstance(at, ast.Call)
    if use.action is Action.KEYWORD:
        return [_append(at, f"{form.keyword}={form.static}", src)]
    return [_append(at, f"metadata={{{render.metadata_entry(form)}}}", src)]


def _append(call: ast.Call, text: str, src: Source) -> splice.Edit:
    """A keyword argument after a call's last argument (or inside its empty parentheses)."""
    parts = [*call.args, *call.keywords]
    if parts:
        at = _after_parentheses(src.text, max(src.end(p) for p in parts), src.end(call) - 1)
        return splice.Edit(at, at, ", " + text)
    at = src.end(call) - 1  # just before the closing parenthesis
    return splice.Edit(at, at, text)


def _after_parentheses(text: str, at: int, close: int) -> int:
    """Past the parentheses around the last argument, which its node's end leaves out:
    ``jax.jit((f))``, ``jax.jit((g := f))`` take the keyword after ``)``, not inside it (a
    tuple with a keyword: a valid module that no longer compiles). Blanks, comments and line
    continuations are skipped; a trailing comma or anything else ends the search."""
    end = at
    i = at
    while i < close:
        char = text[i]
        if char == ")":
            i += 1
            end = i
        elif char == "#":
            newline = text.find("\n", i, close)
            i = close if newline == -1 else newline
        elif char.isspace() or (char == "\\" and text[i + 1 : i + 2] in ("\n", "\r")):
            i += 1
        else:
            break
    return end


def _edits(use: Use | Registration, src: Source) -> list[splice.Edit]:
    assert use.values is not None
    # The analysis refuses per-leaf entries under a transform without a helper.
    helper = use.transform.per_leaf if isinstance(use, Use) and use.leaves else None
    leaves = tuple(leaf.spec() for leaf in use.leaves) if isinstance(use, Use) else ()
    if use.kind is UseKind.CALL:
        assert isinstance(use.node, ast.Call)
        edits = _edit_call(use.node, use.local, use.values, src)
        if helper is not None:
            around = render.leaves_call_site(leaves, helper)
            edits = _around(use.node.func, *around, src) + edits
        return edits
    if isinstance(use.node, ast.Call) and helper is None:  # partial(jax.jit, ...): in place
        return _edit_call(use.node, use.local, use.values, src)
    pairs = tuple((k, v) for k, v, _ in use.values)
    return _around(use.node, *render.wrapper(pairs, helper, leaves), src)


def _around(expr: ast.expr, before: str, after: str, src: Source) -> list[splice.Edit]:
    start, end = src.start(expr), src.end(expr)
    return [splice.Edit(start, start, before), splice.Edit(end, end, after)]


def _edit_call(
    call: ast.Call, local: Sequence[ast.keyword], values: Values, src: Source
) -> list[splice.Edit]:
    """Set keywords on a call in place: replace existing values (a positional argument's too),
    append missing ones."""
    edits: list[splice.Edit] = []
    appended: list[tuple[str, Value]] = []
    by_name = {kw.arg: kw for kw in local if kw.arg is not None}
    for name, value, existing in values:
        kw = by_name.get(name)
        if kw is not None:
            if existing is kw.value:
                continue  # the user's literal already says exactly this
            start, end = src.start(kw.value), src.end(kw.value)
            edits.append(splice.replace(src.text, start, end, render.value(value)))
        elif existing is None:
            appended.append((name, value))
    if appended:
        edits.append(_append(call, render.keywords(tuple(appended)), src))
    return edits
