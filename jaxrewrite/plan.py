"""Planning: which transform uses need which keywords, as edits on the source text.

Pure: takes the parsed module and its scopes, returns edits. Every transform is handled by
the same code, driven by its row in ``transforms.TRANSFORMS``; recognising transforms is
``classify``, the keyword math is ``merge``, and what to look at is ``prefilter``.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from jaxrewrite import render, splice
from jaxrewrite.classes import ClassInfo, local_class, read_class
from jaxrewrite.classify import TransformRef, ambiguous, classify, classify_registration
from jaxrewrite.merge import Values, complete, registration_values
from jaxrewrite.prefilter import (
    calls_naming,
    classes_with_markers,
    lines_mentioning,
    marker_names,
    may_matter,
)
from jaxrewrite.resolve import binding_scope
from jaxrewrite.scopes import Defined, DefinedClass, Scope, ScopeTree
from jaxrewrite.signature import Kind, Param, Signature, read_signature
from jaxrewrite.source import Source
from jaxrewrite.transforms import PER_LEAF, STATIC


@dataclass(frozen=True)
class Leaf:
    """A parameter whose TypedDict/NamedTuple annotation has Static entries (per-leaf statics)."""

    param: Param
    kind: str
    keys: tuple[str, ...]

    def spec(self) -> tuple[str, int | None, str, tuple[str, ...]]:
        return (self.param.name, self.param.position, self.kind, self.keys)


class _Classes:
    """Class fields, read once per class and only when something needs them."""

    def __init__(self, src: Source, relevant: set[str]) -> None:
        self.src = src
        self.relevant = relevant
        self.cache: dict[int, ClassInfo] = {}

    def info(self, defined: DefinedClass, scope: Scope) -> ClassInfo:
        key = id(defined.node)
        if key not in self.cache:
            self.cache[key] = read_class(defined, scope, self.src, self.relevant)
        return self.cache[key]


def plan_module(tree: ScopeTree, src: Source) -> list[splice.Edit]:
    """All edits for one module: decorators of defs and classes, then call sites.

    The hot path of a cold import: everything is skipped unless an annotation could name a
    marker, so a large module pays for one pass over its statements and little else.
    """
    relevant = marker_names(tree)
    if not relevant:
        return []
    classes = _Classes(src, relevant)
    static_classes = classes_with_markers(tree, relevant)
    leaf_names = {
        defined.node.name
        for defined, scope in static_classes.values()
        if classes.info(defined, scope).kind != "class" and classes.info(defined, scope).static_fields
    }
    signatures: dict[int, tuple[Signature, tuple[Leaf, ...]]] = {}
    edits: list[splice.Edit] = []
    mentions = lines_mentioning(relevant | leaf_names, src)
    for func, scope in tree.defs:
        if not _header_mentions(func, mentions) or not may_matter(func, relevant, leaf_names):
            continue
        sig = read_signature(func, scope, src, relevant)
        leaves = _leaves(sig, scope, classes, src) if leaf_names else ()
        if not sig.has_markers and not leaves:
            continue
        signatures[id(func)] = (sig, leaves)
        for deco in func.decorator_list:
            ref = classify(deco, scope)
            if ref is not None:
                edits.extend(_plan_decorator(deco, ref, sig, leaves, scope, src))
            elif ambiguous(deco, scope):
                raise _ambiguity_error(deco, src)
    registrable = []
    for defined, scope in static_classes.values():
        if not classes.info(defined, scope).static_fields:
            continue
        registrable.append(defined.node.name)
        for deco in defined.node.decorator_list:
            registration = classify_registration(deco, scope)
            if registration is not None:
                transform, keywords = registration
                values = registration_values(transform, keywords, classes.info(defined, scope), src, deco)
                if values is not None:
                    edits.extend(_apply_values(deco, values, scope, src, param="cls"))
    marked = [func for func, _ in tree.defs if id(func) in signatures]
    names = [func.name for func in marked] + registrable
    for call, scope in calls_naming(names, tree, src):
        edits.extend(_plan_call_site(call, scope, signatures, classes, src))
    return edits


def _header_mentions(func: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[int]) -> bool:
    """Does any of the sorted ``lines`` fall in the def's signature (its annotations live there)?

    The signature ends on the body's first line at the latest (``def f(x,\n n: S): return x``).
    """
    at = bisect.bisect_left(lines, func.lineno)
    return at < len(lines) and bool(lines[at] <= func.body[0].lineno)


def _leaves(sig: Signature, scope: Scope, classes: _Classes, src: Source) -> tuple[Leaf, ...]:
    """Parameters annotated with a TypedDict/NamedTuple of this module that has Static fields."""
    found = []
    for param in sig.params:
        ann = param.node.annotation
        if param.markers or ann is None:
            continue
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value.strip(), mode="eval").body
            except SyntaxError:
                continue
        local = local_class(ann, scope) if isinstance(ann, ast.Name) else None
        if local is None:
            continue
        info = classes.info(*local)
        statics = tuple(f.name for f in info.static_fields if STATIC in f.markers)
        if info.kind == "class" or not statics:
            continue
        if param.kind in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD):
            raise src.error(
                param.node, f"per-leaf statics cannot apply to {param.kind.value} parameter {param.name!r}"
            )
        found.append(Leaf(param, info.kind, statics))
    return tuple(found)


# -- decorators ------------------------------------------------------------------------


def _plan_decorator(
    deco: ast.expr, ref: TransformRef, sig: Signature, leaves: tuple[Leaf, ...], scope: Scope, src: Source
) -> list[splice.Edit]:
    values = complete(ref, sig, src, deco, force=bool(leaves))
    if leaves:
        return _wrap_leaves(deco, ref, values, leaves, scope, src)
    if values is None or all(node is not None for _, _, node in values):
        return []  # nothing static for this transform, or the user already said it all
    if ref.factory and not isinstance(deco, ast.Call):
        raise _factory_error(deco, ref, src)
    return _apply_values(deco, values, scope, src)


def _ambiguity_error(expr: ast.expr, src: Source) -> Exception:
    return src.error(
        expr,
        f"cannot tell whether {ast.unparse(expr)!r} is a JAX transform: its name is bound more than "
        "once in this scope, once to a transform; bind it once so the Static parameters are not ignored",
    )


def _factory_error(expr: ast.expr, ref: TransformRef, src: Source) -> Exception:
    name = ref.transform.name
    return src.error(
        expr,
        f"cannot add {name} keywords to {ast.unparse(expr)!r}: it is the result of a decorator factory, "
        f"which takes only the function; define it with functools.partial({name}, ...) instead",
    )


def _apply_values(
    expr: ast.expr, values: Values, scope: Scope, src: Source, param: str = "fun"
) -> list[splice.Edit]:
    """Complete a call in place, or wrap a bare name/attribute in an explicit call."""
    if isinstance(expr, ast.Call):  # partial(jax.jit, ...) or jax.jit(...): complete it in place
        return _edit_call(expr, expr.keywords, values, src)
    before, after = render.wrapper(
        _param_name(expr, param), tuple((k, v) for k, v, _ in values), _via_default(expr, scope)
    )
    return _around(expr, before, after, src)


def _wrap_leaves(
    deco: ast.expr,
    ref: TransformRef,
    values: Values | None,
    leaves: tuple[Leaf, ...],
    scope: Scope,
    src: Source,
) -> list[splice.Edit]:
    """``jax.jit`` over a per-leaf function: the transform is handed to jaxrewrite.leaves.static_leaves."""
    t = ref.transform
    if t.name not in PER_LEAF:
        raise src.error(
            leaves[0].param.node,
            f"per-leaf statics ({leaves[0].param.name!r} has Static entries) work under jit only, not {t.name}",
        )
    if ref.factory:
        raise _factory_error(deco, ref, src)
    pairs = tuple((k, v) for k, v, _ in values or ())
    specs = tuple(leaf.spec() for leaf in leaves)
    before, after = render.leaves_wrapper(_param_name(deco, "fun"), specs, pairs, _via_default(deco, scope))
    return _around(deco, before, after, src)


def _param_name(expr: ast.expr, param: str) -> str:
    """The lambda's parameter name: ``fun``, unless the wrapped expression uses that name."""
    root = expr
    while isinstance(root, ast.Attribute):
        root = root.value
    if isinstance(root, ast.Name):
        names = {root.id}
    else:
        names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    while param in names:
        param += "_"
    return param


def _via_default(expr: ast.expr, scope: Scope) -> bool:
    """A lambda body cannot see class-body names: bind the transform as a default then."""
    root = expr
    while isinstance(root, (ast.Attribute, ast.Call, ast.Subscript)):
        root = root.func if isinstance(root, ast.Call) else root.value
    bound_in = binding_scope(root.id, scope) if isinstance(root, ast.Name) else None
    return bound_in is not None and bound_in.kind == "class"


def _around(expr: ast.expr, before: str, after: str, src: Source) -> list[splice.Edit]:
    start, end = src.start(expr), src.end(expr)
    return [splice.Edit(start, start, before), splice.Edit(end, end, after)]


def _edit_call(
    call: ast.Call, local: Sequence[ast.keyword], values: Values, src: Source
) -> list[splice.Edit]:
    """Set keywords on a call in place: replace existing values, append missing ones."""
    edits: list[splice.Edit] = []
    appended: list[tuple[str, render.Value]] = []
    by_name = {kw.arg: kw for kw in local if kw.arg is not None}
    for name, value, existing in values:
        kw = by_name.get(name)
        if kw is not None:
            if existing is kw.value:
                continue  # the user's literal already says exactly this
            edits.append(
                splice.replace(src.text, src.start(kw.value), src.end(kw.value), render.value(value))
            )
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


def _plan_call_site(
    call: ast.Call,
    scope: Scope,
    signatures: dict[int, tuple[Signature, tuple[Leaf, ...]]],
    classes: _Classes,
    src: Source,
) -> list[splice.Edit]:
    """``jax.jit(f)``, ``jax.pmap(f, in_axes=...)``, ``partial(jax.jit, ...)(f)`` for a local ``f``;
    ``jax.tree_util.register_dataclass(C)`` for a local class ``C``."""
    if not call.args or isinstance(call.args[0], ast.Starred):
        return []
    registration = classify_registration(call.func, scope)
    if registration is not None:
        local = local_class(call.args[0], scope)
        if local is None:
            return []
        transform, keywords = registration
        info = classes.info(*local)
        values = registration_values(transform, keywords + tuple(call.keywords), info, src, call)
        return [] if values is None else _edit_call(call, call.keywords, values, src)
    func = _local_function(call.args[0], scope)
    if func is None or id(func) not in signatures:
        return []
    sig, leaves = signatures[id(func)]
    if not sig.has_markers and not leaves:
        return []
    ref = classify(call.func, scope)
    if ref is None:
        if ambiguous(call.func, scope):
            raise _ambiguity_error(call.func, src)
        return []
    if leaves:
        raise src.error(
            call,
            f"per-leaf statics ({leaves[0].param.name!r} has Static entries) need the decorator form "
            f"@{ast.unparse(call.func)} on {func.name!r}",
        )
    full = TransformRef(ref.transform, ref.keywords + tuple(call.keywords), ref.factory)
    values = complete(full, sig, src, call)
    if values is None or all(node is not None for _, _, node in values):
        return []
    if ref.factory:
        raise _factory_error(call.func, ref, src)
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


# -- dataclass registration ------------------------------------------------------------------
