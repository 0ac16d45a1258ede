"""An ``Analysis`` to edits on its text: the analysis has decided what each use needs; here it is
only spelled, by completing a call in place or wrapping a bare transform. The fragments are
rendered by astor from AST, so their spelling is canonical."""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Sequence

from jaxrewrite.engine.analysis import Analysis, Registration, Use, UseKind
from jaxrewrite.engine.edits.splice import Edit, replace
from jaxrewrite.engine.read.fields import Action, FieldUse
from jaxrewrite.engine.read.literals import Value, Values
from jaxrewrite.engine.read.source import Source

#: Where the user's expression goes in a generated fragment.
_TRANSFORM = ast.Name("__jaxrewrite_transform__", ast.Load())


def plan(analysis: Analysis) -> list[Edit]:
    """Every edit the analysis calls for."""
    src = analysis.source
    edits = [edit for use in analysis.edited() for edit in _edits(use, src)]
    for field in analysis.fields:
        edits.extend(_field_edits(field, src))
    return edits


def _field_edits(use: FieldUse, src: Source) -> list[Edit]:
    """A Static field spelled the library's way, the user's value and arguments in place."""
    form, at = use.form, use.at
    field = ast.Call(
        _import(form.module, "field"), [], [ast.keyword(form.keyword, ast.Constant(form.static))]
    )
    if use.action is Action.ADD:
        end = src.end(at)
        return [Edit(end, end, " = " + _split(field)[0])]
    if use.action is Action.DEFAULT:  # split where the user's plain default goes
        field.keywords.insert(0, ast.keyword("default", _TRANSFORM))
        return _around(at, _split(field), src)
    if use.action is Action.KEYWORD:
        assert isinstance(at, ast.Call)
        return [_append(at, f"{form.keyword}={form.static}", src)]
    entry = ast.Dict([ast.Constant(form.keyword)], [ast.Constant(form.static)])
    text = _source(ast.Expr(entry))[1:-1]  # ``'static': True``
    if use.action is Action.ENTRY:
        assert isinstance(at, ast.Dict)
        start = src.start(at) + 1  # just after the opening brace
        return [Edit(start, start, text + (", " if at.keys else ""))]
    assert isinstance(at, ast.Call)
    return [_append(at, f"metadata={{{text}}}", src)]


def _append(call: ast.Call, text: str, src: Source) -> Edit:
    """A keyword argument after a call's last argument (or inside its empty parentheses)."""
    parts = [*call.args, *call.keywords]
    if parts:
        last = max(src.end(p) for p in parts)
        at = _CLOSING.match(src.text, last, src.end(call) - 1).end()  # type: ignore[union-attr]
        return Edit(at, at, ", " + text)
    at = src.end(call) - 1  # just before the closing parenthesis
    return Edit(at, at, text)


#: Past the parentheses around the last argument, which its node's end leaves out: ``jax.jit((f))``
#: takes the keyword after ``)``, not inside it (a tuple with a keyword: a module that no longer
#: compiles). Blanks, whole comments and line continuations between them; anything else ends it.
_CLOSING = re.compile(r"(?:(?:\s|#[^\n]*(?=\n|$)|\\(?=[\n\r]))*\))*")


def _edits(use: Use | Registration, src: Source) -> list[Edit]:
    assert use.values is not None
    # The analysis refuses per-leaf entries under a transform without a helper.
    helper = use.transform.per_leaf if isinstance(use, Use) and use.leaves else None
    leaves = tuple(leaf.spec() for leaf in use.leaves) if isinstance(use, Use) else ()
    if use.kind is UseKind.CALL or (isinstance(use.node, ast.Call) and helper is None):
        # A call site, or ``partial(jax.jit, ...)``: completed in place.
        assert isinstance(use.node, ast.Call)
        edits = _edit_call(use.node, use.local, use.values, src)
        if helper is None:
            return edits
        # ``jax.jit(fun, ...)`` becomes ``...leaves.at_call('static_leaves', jax.jit, <leaves>)(fun,
        # ...)``, the call's own arguments completed in place like any call site's.
        at_call = [ast.Constant(helper), _TRANSFORM, _const(leaves)]
        around = _split(ast.Call(_import("jaxrewrite.leaves", "at_call"), at_call, []))
        return _around(use.node.func, around, src) + edits
    pairs = tuple((k, v) for k, v, _ in use.values)
    return _around(use.node, wrapper(pairs, helper, leaves), src)


def _around(expr: ast.expr, fragment: tuple[str, str], src: Source) -> list[Edit]:
    """A fragment split where ``_TRANSFORM`` was (``_split``) around ``expr``."""
    before, after = fragment
    start, end = src.start(expr), src.end(expr)
    return [Edit(start, start, before), Edit(end, end, after)]


def _split(call: ast.Call) -> tuple[str, str]:
    """The rendered fragment split where the user's expression goes."""
    before, _, after = _source(ast.Expr(call)).partition(_TRANSFORM.id)
    return before, after


def _edit_call(
    call: ast.Call, local: Sequence[ast.keyword], values: Values, src: Source
) -> list[Edit]:
    """Set keywords on a call in place: replace existing values (a positional argument's too),
    append missing ones."""
    edits: list[Edit] = []
    appended: list[tuple[str, Value]] = []
    by_name = {kw.arg: kw for kw in local if kw.arg is not None}
    for name, value_, existing in values:
        kw = by_name.get(name)
        if kw is not None:
            if existing is kw.value:
                continue  # the user's literal already says exactly this
            start, end = src.start(kw.value), src.end(kw.value)
            edits.append(replace(src.text, start, end, value(value_)))
        elif existing is None:
            appended.append((name, value_))
    if appended:
        edits.append(_append(call, keywords(tuple(appended)), src))
    return edits


def _source(node: ast.AST) -> str:
    """One line, always: line numbers must not move. astor is imported on first use (most imports
    render nothing); its DeprecationWarning on 3.12+ (``ast.Num``) is about its own internals."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import astor

        return str(astor.to_source(node, pretty_source="".join)).strip()


def value(items: Value) -> str:
    """``(3,)``, ``('c_func',)``, ``(0, 0, None)``."""
    return _source(_const(items))


def keywords(pairs: tuple[tuple[str, Value], ...]) -> str:
    """``static_argnums=(3,), static_argnames=('c_func',)``."""
    return ", ".join(f"{name}={value(items)}" for name, items in pairs)


def wrapper(
    pairs: tuple[tuple[str, object], ...], helper: str | None = None, leaves: object = ()
) -> tuple[str, str]:
    """Text around a bare transform to call it with its keywords: ``jax.jit`` becomes
    ``__import__('functools').partial(jax.jit, static_argnums=...)``: no import statement, no new
    name, evaluated where the user wrote the decorator, and no code object as a lambda would be.
    ``helper`` (the row's ``per_leaf``) comes first with ``leaves=``, for per-leaf statics."""
    before = [] if helper is None else [_import("jaxrewrite.leaves", helper)]
    if helper is not None:
        pairs = (("leaves", leaves), *pairs)
    named = [ast.keyword(name, _const(items)) for name, items in pairs]
    return _split(ast.Call(_import("functools", "partial"), [*before, _TRANSFORM], named))


def _const(obj: object) -> ast.expr:
    if isinstance(obj, tuple):
        return ast.Tuple([_const(item) for item in obj], ast.Load())
    return ast.Constant(obj)  # type: ignore[arg-type]  # only ints, strings and None reach here


def _import(module: str, name: str) -> ast.expr:
    """``__import__('<module>').<name>`` (for ``a.b``: ``__import__('a.b').b.<name>``). The
    analysis refuses modules that rebind ``__import__``."""
    expr: ast.expr = ast.Call(ast.Name("__import__", ast.Load()), [ast.Constant(module)], [])
    for part in [*module.split(".")[1:], name]:
        expr = ast.Attribute(expr, part, ast.Load())
    return expr
