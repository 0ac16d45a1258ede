"""Planning: which transform uses need which keywords, as edits on the source text.

Pure: takes the parsed module and its scopes, returns edits. Every transform is handled by
the same code, driven by its row in ``transforms.TRANSFORMS``.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass
from typing import Sequence

from jaxrewrite import render, splice
from jaxrewrite.classes import ClassInfo, local_class, read_class
from jaxrewrite.resolve import alias_of, binding_scope, is_partial, qualname
from jaxrewrite.scopes import Assigned, Defined, DefinedClass, Imported, Scope, ScopeTree
from jaxrewrite.signature import Kind, Param, Signature, may_mark as _may_mark, read_signature
from jaxrewrite.source import Source
from jaxrewrite.transforms import PER_LEAF, STATIC, ClassTransform, Transform, class_transform_for, transform_for

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
    static_classes = _classes_with_markers(tree, relevant)
    leaf_names = {
        defined.node.name
        for defined, scope in static_classes.values()
        if classes.info(defined, scope).kind != "class" and classes.info(defined, scope).static_fields
    }
    signatures: dict[int, tuple[Signature, tuple[Leaf, ...]]] = {}
    edits: list[splice.Edit] = []
    for func, scope in tree.defs:
        if not _may_matter(func, relevant, leaf_names):
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
    registrable = []
    for defined, scope in static_classes.values():
        if not classes.info(defined, scope).static_fields:
            continue
        registrable.append(defined.node.name)
        for deco in defined.node.decorator_list:
            registration = _classify_registration(deco, scope)
            if registration is not None:
                transform, keywords = registration
                values = _registration_values(transform, keywords, classes.info(defined, scope), src, deco)
                if values is not None:
                    edits.extend(_apply_values(deco, values, scope, src, param="cls"))
    marked = [func for func, _ in tree.defs if id(func) in signatures]
    names = [func.name for func in marked] + registrable
    for call, scope in _calls_naming(names, tree, src):
        edits.extend(_plan_call_site(call, scope, signatures, classes, src))
    return edits


def _classes_with_markers(tree: ScopeTree, relevant: set[str]) -> dict[int, tuple[DefinedClass, Scope]]:
    """Classes whose fields (own, or inherited from a class of this module) may carry markers."""
    found = {
        id(defined.node): (defined, scope)
        for defined, scope in tree.classes
        if any(_may_mark(stmt.annotation, relevant) for stmt in defined.node.body if isinstance(stmt, ast.AnnAssign))
    }
    changed = bool(found)
    while changed:
        changed = False
        for defined, scope in tree.classes:
            if id(defined.node) in found:
                continue
            for base in defined.node.bases:
                local = local_class(base, scope)
                if local is not None and id(local[0].node) in found:
                    found[id(defined.node)] = (defined, scope)
                    changed = True
                    break
    return found


def marker_names(tree: ScopeTree) -> set[str]:
    """Names that could spell a marker: jaxrewrite imports and aliases built from them.

    A conservative pre-filter (by name, not scope): an annotation mentioning none of these
    names, directly or inside a string, cannot carry a marker.
    """
    names: set[str] = set()
    assigned: list[tuple[str, ast.expr]] = []
    for scope in tree.scopes:
        if any(module.partition(".")[0] == "jaxrewrite" for module in scope.star_imports):
            names.update(("Static", "NoDiff", "STATIC", "NODIFF"))
        for name, bindings in scope.bindings.items():
            for binding in bindings:
                if isinstance(binding, Imported) and binding.qualname.partition(".")[0] == "jaxrewrite":
                    names.add(name)
                elif isinstance(binding, Assigned):
                    assigned.append((name, binding.value))
    changed = bool(names)
    while changed:
        changed = False
        for name, value in assigned:
            if name not in names and _may_mark(value, names):
                names.add(name)
                changed = True
    return names


def _may_matter(func: ast.FunctionDef | ast.AsyncFunctionDef, names: set[str], leaf_names: set[str]) -> bool:
    args = func.args
    for group in (args.posonlyargs, args.args, args.kwonlyargs, (args.vararg,), (args.kwarg,)):
        for arg in group:
            if arg is None or arg.annotation is None:
                continue
            ann = arg.annotation
            if _may_mark(ann, names):
                return True
            if leaf_names and (
                (isinstance(ann, ast.Name) and ann.id in leaf_names)
                or (isinstance(ann, ast.Constant) and isinstance(ann.value, str) and ann.value.strip() in leaf_names)
            ):
                return True
    return False


def _calls_naming(names: list[str], tree: ScopeTree, src: Source) -> list[tuple[ast.Call, Scope]]:
    """Calls in statements on lines where one of ``names`` is a first argument (text search first)."""
    if not names:
        return []
    wanted = set(names)
    starts = src.line_starts
    lines: set[int] = set()
    for match in _FIRST_ARGUMENT.finditer(src.text):
        word = match.group(1)
        if word in wanted:
            lines.add(bisect.bisect_right(starts, match.start(1)))
    if not lines:
        return []
    ordered = sorted(lines)
    tree.walk_deferred(ordered)
    found: list[tuple[ast.Call, Scope]] = []
    seen: set[int] = set()
    for first, last, stmt, scope in tree.statements:
        at = bisect.bisect_left(ordered, first)
        if at == len(ordered) or ordered[at] > last:
            continue
        for expr in _own_expressions(stmt):
            for node in ast.walk(expr):
                if isinstance(node, ast.Call) and id(node) not in seen:
                    seen.add(id(node))
                    found.append((node, scope))
    found.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
    return found


#: A first argument: an identifier right after "(", across line breaks and comments. Call
#: sites pass the function first (``jax.jit(f)``, ``jax.jit(wrapper(f))``), so only these
#: lines can hold one.
_FIRST_ARGUMENT = re.compile(r"\((?:\s|#[^\n]*)*([^\W\d]\w*)")


def _own_expressions(stmt: ast.AST) -> list[ast.AST]:
    """A statement's expressions, without the statements nested in its body."""
    out: list[ast.AST] = []
    for name, value in ast.iter_fields(stmt):
        if name in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.AST))
    return out


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
            raise src.error(param.node, f"per-leaf statics cannot apply to {param.kind.value} parameter {param.name!r}")
        found.append(Leaf(param, info.kind, statics))
    return tuple(found)


# -- decorators ------------------------------------------------------------------------


def _plan_decorator(
    deco: ast.expr, ref: TransformRef, sig: Signature, leaves: tuple[Leaf, ...], scope: Scope, src: Source
) -> list[splice.Edit]:
    values = _complete(ref, sig, src, deco, force=bool(leaves))
    if leaves:
        return _wrap_leaves(deco, ref, values, leaves, scope, src)
    if values is None or all(node is not None for _, _, node in values):
        return []  # nothing static for this transform, or the user already said it all
    if ref.factory and not isinstance(deco, ast.Call):
        raise _factory_error(deco, ref, src)
    return _apply_values(deco, values, scope, src)


def _factory_error(expr: ast.expr, ref: TransformRef, src: Source) -> Exception:
    name = ref.transform.name
    return src.error(
        expr,
        f"cannot add {name} keywords to {ast.unparse(expr)!r}: it is the result of a decorator factory, "
        f"which takes only the function; define it with functools.partial({name}, ...) instead",
    )


Values = list[tuple[str, render.Value, "ast.expr | None"]]


def _apply_values(expr: ast.expr, values: Values, scope: Scope, src: Source, param: str = "fun") -> list[splice.Edit]:
    """Complete a call in place, or wrap a bare name/attribute in an explicit call."""
    if isinstance(expr, ast.Call):  # partial(jax.jit, ...) or jax.jit(...): complete it in place
        return _edit_call(expr, expr.keywords, values, src)
    before, after = render.wrapper(_param_name(expr, param), tuple((k, v) for k, v, _ in values), _via_default(expr, scope))
    return _around(expr, before, after, src)


def _wrap_leaves(
    deco: ast.expr, ref: TransformRef, values: Values | None, leaves: tuple[Leaf, ...], scope: Scope, src: Source
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
    registration = _classify_registration(call.func, scope)
    if registration is not None:
        local = local_class(call.args[0], scope)
        if local is None:
            return []
        transform, keywords = registration
        info = classes.info(*local)
        values = _registration_values(transform, keywords + tuple(call.keywords), info, src, call)
        return [] if values is None else _edit_call(call, call.keywords, values, src)
    func = _local_function(call.args[0], scope)
    if func is None or id(func) not in signatures:
        return []
    sig, leaves = signatures[id(func)]
    if not sig.has_markers and not leaves:
        return []
    ref = classify(call.func, scope)
    if ref is None:
        return []
    if leaves:
        raise src.error(
            call,
            f"per-leaf statics ({leaves[0].param.name!r} has Static entries) need the decorator form "
            f"@{ast.unparse(call.func)} on {func.name!r}",
        )
    full = TransformRef(ref.transform, ref.keywords + tuple(call.keywords), ref.factory)
    values = _complete(full, sig, src, call)
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


class _Missing:
    pass


_MISSING = _Missing()


def _complete(ref: TransformRef, sig: Signature, src: Source, where: ast.expr, force: bool = False) -> Values | None:
    """The complete keyword values for one transform use, or None when nothing is static for it.

    Each entry is (keyword, value, node): ``node`` is the existing literal that already says
    exactly ``value`` (so it is left alone), else None.
    """
    t = ref.transform
    static = sig.marked(t.markers)
    if not static and not force:
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
    user_nums = _ints(effective.get(t.argnums), t.argnums, src, sig) if t.argnums else ()
    user_names = _strs(effective.get(t.argnames), t.argnames, src) if t.argnames else ()
    nums = set(user_nums)
    names = set(user_names)
    for p in static:
        if p.position is not None:
            nums.add(p.position)
        if p.kind is Kind.POSITIONAL_OR_KEYWORD or p.kind is Kind.KEYWORD_ONLY:
            names.add(p.name)
    out: Values = []
    if t.argnames is not None:
        # Complete both lists: once both are given, JAX infers neither from the other.
        for p in sig.params:
            if p.kind is Kind.POSITIONAL_OR_KEYWORD and (p.name in names or p.position in nums):
                names.add(p.name)
                nums.add(p.position)  # type: ignore[arg-type]
    if t.argnums is not None:
        final_nums: render.Value = tuple(sorted(nums))
        out.append((t.argnums, final_nums, _same(effective.get(t.argnums), final_nums)))
    if t.argnames is not None:
        ordered = [p.name for p in sig.params if p.name in names and p.kind is not Kind.VAR_POSITIONAL and p.kind is not Kind.VAR_KEYWORD]
        final_names: render.Value = tuple(ordered + [n for n in user_names if n not in ordered])
        out.append((t.argnames, final_names, _same(effective.get(t.argnames), final_names)))
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
    if nums_node is None and names_node is None:
        return
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



# -- dataclass registration ------------------------------------------------------------------


def _classify_registration(expr: ast.expr, scope: Scope) -> tuple[ClassTransform, tuple[ast.keyword, ...]] | None:
    """``jax.tree_util.register_dataclass`` itself, or ``partial(...)`` of it."""
    if isinstance(expr, (ast.Name, ast.Attribute)):
        found = class_transform_for(qualname(expr, scope) or "")
        return None if found is None else (found, ())
    if isinstance(expr, ast.Call) and is_partial(qualname(expr.func, scope)) and len(expr.args) == 1:
        inner = _classify_registration(expr.args[0], scope)
        return None if inner is None else (inner[0], inner[1] + tuple(expr.keywords))
    return None


def _registration_values(
    t: ClassTransform, keywords: tuple[ast.keyword, ...], info: ClassInfo, src: Source, where: ast.expr
) -> Values | None:
    """Static fields go to ``meta_fields``, every other init field to ``data_fields``."""
    static = [f for f in info.fields if STATIC in f.markers]
    if not static:
        return None
    for kw in keywords:
        if kw.arg is None:
            raise src.error(kw.value, f"cannot merge Static fields into {t.name} keywords passed as **{ast.unparse(kw.value)}")
    effective = {kw.arg: kw.value for kw in keywords if kw.arg is not None}
    user_data = _strs(effective.get(t.data_fields), t.data_fields, src)
    user_meta = _strs(effective.get(t.meta_fields), t.meta_fields, src)
    dropped = set(_strs(effective.get("drop_fields"), "drop_fields", src))
    for f in static:
        if f.name in user_data:
            raise src.error(f.node, f"field {f.name!r} is Static but listed in {t.data_fields}")
    if t.data_fields in effective and t.meta_fields in effective:
        meta = tuple(user_meta) + tuple(f.name for f in static if f.name not in user_meta)
        data = tuple(user_data)
    else:
        if info.unseen_base is not None:
            raise src.error(
                info.unseen_base,
                f"cannot see the fields of base class {ast.unparse(info.unseen_base)} of {info.node.name!r} "
                f"in this module; list {t.data_fields} and {t.meta_fields} explicitly",
            )
        fields = [f for f in info.fields if f.init and f.name not in dropped]
        meta_names = set(user_meta) | {f.name for f in static}
        meta = tuple(f.name for f in fields if f.name in meta_names)
        data = tuple(f.name for f in fields if f.name not in meta_names)
    values: Values = [
        (t.data_fields, data, _same(effective.get(t.data_fields), data)),
        (t.meta_fields, meta, _same(effective.get(t.meta_fields), meta)),
    ]
    if all(node is not None for _, _, node in values):
        return None
    return values
