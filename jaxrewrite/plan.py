"""Planning: which transform uses need which keywords, as edits on the source text.

Pure: takes the parsed module and its scopes, returns edits. Every transform is handled by
the same code, driven by its row in ``transforms.TRANSFORMS``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Sequence

from jaxrewrite import render, splice
from jaxrewrite.resolve import alias_of, binding_scope, is_partial, qualname
from jaxrewrite.scopes import Defined, Scope, ScopeTree
from jaxrewrite.signature import Kind, Param, Signature, read_signature
from jaxrewrite.source import Source
from jaxrewrite.transforms import Transform, transform_for

_MAX_DEPTH = 32


@dataclass(frozen=True)
class TransformRef:
    """An expression that evaluates to (a partial application of) a JAX transform."""

    transform: Transform
    #: Keywords already bound to the transform, innermost first (later ones override).
    keywords: tuple[ast.keyword, ...]
    #: The expression is a call that *returns* a decorator (``jax.jit(static_argnames=...)``):
    #: what it returns takes only the function, so no keyword can be added after it.
    factory: bool = False


def classify(expr: ast.expr, scope: Scope, depth: int = 0) -> TransformRef | None:
    """Does ``expr`` denote a JAX transform, possibly through partial, factory or alias forms?"""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, (ast.Name, ast.Attribute)):
        transform = transform_for(qualname(expr, scope) or "")
        if transform is not None:
            return TransformRef(transform, ())
        alias = alias_of(expr, scope)
        if alias is not None and isinstance(alias.value, ast.Call):
            return classify(alias.value, alias.scope, depth + 1)
        return None
    if isinstance(expr, ast.Call):
        if is_partial(qualname(expr.func, scope)):
            if len(expr.args) != 1 or isinstance(expr.args[0], ast.Starred):
                return None
            inner = classify(expr.args[0], scope, depth + 1)
            if inner is None or inner.factory:
                return None
            return TransformRef(inner.transform, inner.keywords + tuple(expr.keywords))
        if not expr.args:
            inner = classify(expr.func, scope, depth + 1)
            if inner is None or inner.factory:
                return None
            return TransformRef(inner.transform, inner.keywords + tuple(expr.keywords), factory=True)
    return None


def plan_module(tree: ScopeTree, src: Source) -> list[splice.Edit]:
    """All edits for one module: decorators first, then call sites."""
    signatures: dict[int, Signature] = {}
    edits: list[splice.Edit] = []
    for func, scope in tree.defs:
        sig = read_signature(func, scope, src)
        signatures[id(func)] = sig
        if not sig.has_markers:
            continue
        for deco in func.decorator_list:
            ref = classify(deco, scope)
            if ref is not None:
                edits.extend(_plan_decorator(deco, ref, sig, scope, src))
    for call, scope in tree.calls:
        edits.extend(_plan_call_site(call, scope, signatures, src))
    return edits


# -- decorators ------------------------------------------------------------------------


def _plan_decorator(deco: ast.expr, ref: TransformRef, sig: Signature, scope: Scope, src: Source) -> list[splice.Edit]:
    local = deco.keywords if isinstance(deco, ast.Call) else []
    values = _final_values(ref, sig, src, deco)
    if values is None:
        return []
    if isinstance(deco, ast.Call):  # partial(jax.jit, ...) or jax.jit(...): complete it in place
        return _edit_call(deco, local, values, src)
    if ref.factory:
        raise src.error(
            deco,
            f"cannot add {ref.transform.name} keywords to {ast.unparse(deco)!r}: it is the result of a "
            f"decorator factory; define it as functools.partial({ref.transform.name}, ...) instead",
        )
    return _wrap(deco, values, scope, src)


def _wrap(expr: ast.expr, values: list[tuple[str, render.Value, ast.expr | None]], scope: Scope, src: Source) -> list[splice.Edit]:
    """``jax.jit`` -> ``(lambda fun: jax.jit(fun, <keywords>))``, user text kept in the middle."""
    names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    param = "fun"
    while param in names:
        param += "_"
    root = expr
    while isinstance(root, ast.Attribute):
        root = root.value
    bound_in = binding_scope(root.id, scope) if isinstance(root, ast.Name) else None
    via_default = bound_in is not None and bound_in.kind == "class"
    before, after = render.wrapper(param, tuple((k, v) for k, v, _ in values), via_default)
    start, end = src.start(expr), src.end(expr)
    return [splice.Edit(start, start, before), splice.Edit(end, end, after)]


def _edit_call(call: ast.Call, local: Sequence[ast.keyword], values: list[tuple[str, render.Value, ast.expr | None]], src: Source) -> list[splice.Edit]:
    """Set keywords on a call in place: replace existing values, append missing ones."""
    edits: list[splice.Edit] = []
    appended: list[tuple[str, render.Value]] = []
    by_name = {kw.arg: kw for kw in local if kw.arg is not None}
    for name, value, existing in values:
        kw = by_name.get(name)
        if kw is not None:
            if existing is kw.value:
                continue  # the user's literal already says exactly this
            edits.append(splice.replace(src.text, src.start(kw.value), src.end(kw.value), render.value(value)))
        elif existing is None:
            appended.append((name, value))
    if appended:
        text = render.keywords(tuple(appended))
        parts = [*call.args, *call.keywords]
        if parts:
            at = max(src.end(p) for p in parts)
            edits.append(splice.Edit(at, at, ", " + text))
        else:
            at = src.end(call) - 1  # just before the closing parenthesis
            edits.append(splice.Edit(at, at, text))
    return edits


# -- call sites --------------------------------------------------------------------------


def _plan_call_site(call: ast.Call, scope: Scope, signatures: dict[int, Signature], src: Source) -> list[splice.Edit]:
    """``jax.jit(f)``, ``jax.pmap(f, in_axes=...)``, ``partial(jax.jit, ...)(f)`` for a local ``f``."""
    if not call.args or isinstance(call.args[0], ast.Starred):
        return []
    func = _local_function(call.args[0], scope)
    if func is None:
        return []
    sig = signatures.get(id(func))
    if sig is None or not sig.has_markers:
        return []
    ref = classify(call.func, scope)
    if ref is None:
        return []
    full = TransformRef(ref.transform, ref.keywords + tuple(call.keywords), ref.factory)
    values = _final_values(full, sig, src, call)
    if values is None:
        return []
    if ref.factory:
        raise src.error(
            call,
            f"cannot add {ref.transform.name} keywords to {ast.unparse(call.func)!r}: it is the result of a "
            f"decorator factory; use functools.partial({ref.transform.name}, ...) instead",
        )
    return _edit_call(call, call.keywords, values, src)


def _local_function(arg: ast.expr, scope: Scope) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The def a call-site argument names: ``f`` or ``wrapper(f)`` (one plain argument)."""
    if isinstance(arg, ast.Call) and len(arg.args) == 1 and not arg.keywords:
        arg = arg.args[0]
    if not isinstance(arg, ast.Name):
        return None
    found = scope.lookup(arg.id)
    if found is None or len(found[0]) != 1 or not isinstance(found[0][0], Defined):
        return None
    return found[0][0].node


# -- the merge ------------------------------------------------------------------------------


class _Missing:
    pass


_MISSING = _Missing()


def _final_values(ref: TransformRef, sig: Signature, src: Source, where: ast.expr) -> list[tuple[str, render.Value, ast.expr | None]] | None:
    """The complete keyword values for one transform use, or None when nothing is static for it.

    Each entry is (keyword, value, node): ``node`` is the existing literal that already says
    exactly ``value`` (so it is left alone), else None.
    """
    t = ref.transform
    static = sig.marked(t.markers)
    if not static:
        return None
    for kw in ref.keywords:
        if kw.arg is None:
            raise src.error(kw.value, f"cannot merge Static parameters into {t.name} keywords passed as **{ast.unparse(kw.value)}")
    effective = {kw.arg: kw.value for kw in ref.keywords if kw.arg is not None}
    if t.argnames is None:
        for p in static:
            if p.position is None:
                raise src.error(
                    p.node,
                    f"{t.name} takes static arguments by position only, but {p.name!r} is keyword-only; "
                    "make it a positional parameter",
                )
    _check_donation(t, static, sig, effective, src)
    if t.in_axes is not None:
        return _in_axes(t, static, sig, effective, src, where)
    user_nums = _ints(effective.get(t.argnums) if t.argnums else None, t.argnums, src, sig)
    user_names = _strs(effective.get(t.argnames) if t.argnames else None, t.argnames, src)
    nums = set(user_nums) | {p.position for p in static if p.position is not None}
    names = set(user_names)
    if t.argnames is not None:
        names |= {p.name for p in static if p.by_keyword}
        for name in user_names:
            param = sig.named(name)
            if param is not None and param.kind is Kind.POSITIONAL_OR_KEYWORD and param.position is not None:
                nums.add(param.position)
        for num in list(nums):
            param = sig.at(num)
            if param is not None and param.kind is Kind.POSITIONAL_OR_KEYWORD:
                names.add(param.name)
    out: list[tuple[str, render.Value, ast.expr | None]] = []
    if t.argnums is not None:
        final_nums: render.Value = tuple(sorted(nums))
        out.append((t.argnums, final_nums, _same(effective.get(t.argnums), final_nums)))
    if t.argnames is not None:
        ordered = [p.name for p in sig.params if p.name in names and p.kind not in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)]
        extra = [n for n in user_names if n not in ordered]
        final_names: render.Value = tuple(ordered + extra)
        out.append((t.argnames, final_names, _same(effective.get(t.argnames), final_names)))
    if all(node is not None for _, _, node in out):
        return None  # already complete: nothing to write
    return out


def _same(node: ast.expr | None, value: render.Value) -> ast.expr | None:
    """``node`` when its literal already equals ``value`` (as JAX reads it), else None."""
    if node is None:
        return None
    literal = _literal(node)
    if isinstance(literal, (int, str)) and not isinstance(literal, bool):
        literal = (literal,)
    if literal is None and value == ():
        return node
    if isinstance(literal, (tuple, list)) and tuple(literal) == value:
        return node
    return None


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _MISSING


def _ints(node: ast.expr | None, keyword: str | None, src: Source, sig: Signature) -> tuple[int, ...]:
    if node is None:
        return ()
    value = _literal(node)
    if value is None:
        return ()
    items = (value,) if isinstance(value, int) else value
    if not isinstance(items, (tuple, list)) or not all(isinstance(i, int) and not isinstance(i, bool) for i in items):
        raise src.error(
            node,
            f"{keyword} must be a literal int or tuple of ints to merge with Static parameters, "
            f"not {ast.unparse(node)!r}",
        )
    return tuple(i + sig.n_positional if i < 0 and not sig.var_positional and i >= -sig.n_positional else i for i in items)


def _strs(node: ast.expr | None, keyword: str | None, src: Source) -> tuple[str, ...]:
    if node is None:
        return ()
    value = _literal(node)
    if value is None:
        return ()
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, (tuple, list)) or not all(isinstance(i, str) for i in items):
        raise src.error(
            node,
            f"{keyword} must be a literal str or tuple of str to merge with Static parameters, "
            f"not {ast.unparse(node)!r}",
        )
    return tuple(items)


def _check_donation(t: Transform, static: tuple[Param, ...], sig: Signature, effective: dict[str, ast.expr], src: Source) -> None:
    """A static argument cannot also be donated; JAX would reject or silently mis-handle it."""
    nums_node = effective.get(t.donate_argnums) if t.donate_argnums else None
    names_node = effective.get(t.donate_argnames) if t.donate_argnames else None
    donated_nums = set(_ints(nums_node, t.donate_argnums, src, sig)) if nums_node is not None and _literal(nums_node) is not _MISSING else set()
    donated_names = set(_strs(names_node, t.donate_argnames, src)) if names_node is not None and _literal(names_node) is not _MISSING else set()
    for p in static:
        if p.position in donated_nums or p.name in donated_names:
            raise src.error(p.node, f"{p.name!r} is Static and also donated to {t.name}; a static argument cannot be donated")


def _in_axes(t: Transform, static: tuple[Param, ...], sig: Signature, effective: dict[str, ast.expr], src: Source, where: ast.expr) -> list[tuple[str, render.Value, ast.expr | None]] | None:
    """vmap-style: ``None`` axes at static positions, merged with a literal ``in_axes``."""
    assert t.in_axes is not None
    node = effective.get(t.in_axes)
    positions = {p.position for p in static}
    if isinstance(node, (ast.Tuple, ast.List)):
        for p in static:
            assert p.position is not None
            if p.position >= len(node.elts):
                raise src.error(node, f"{t.in_axes} has {len(node.elts)} entries, but Static parameter {p.name!r} is at position {p.position}")
            entry = node.elts[p.position]
            if not (isinstance(entry, ast.Constant) and entry.value is None):
                raise src.error(entry, f"{t.in_axes} maps Static parameter {p.name!r} over axis {ast.unparse(entry)}; a static argument needs None")
        return None
    axis = 0 if node is None else _literal(node)
    if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
        raise src.error(node or where, f"{t.in_axes} must be a literal int, None or tuple to merge with Static parameters, not {ast.unparse(node) if node else '?'}")
    if sig.var_positional:
        raise src.error(where, f"cannot spell {t.in_axes} for a function with *{_vararg(sig)}: give a literal tuple with None at the Static positions")
    value: render.Value = tuple(None if i in positions else axis for i in range(sig.n_positional))
    return [(t.in_axes, value, None)]


def _vararg(sig: Signature) -> str:
    return next((p.name for p in sig.params if p.kind is Kind.VAR_POSITIONAL), "args")

