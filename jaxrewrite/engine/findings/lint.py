"""Findings beyond refusals: markers that would silently do nothing, for ``check`` and ``show``.

Two steps, run as a finding pass (``PASS``, listed by ``engine.findings``): ``read_defs`` and
``opaque_classes`` read what is needed while the scopes are alive (kept as
``Analysis.lint_facts``); ``lint`` judges, a pure function of the Analysis. The pass adds JR014
(Static entries of a container held in a pytree's field).

Each is a Diagnostic with a JR00n code. The import hook never computes them (they cost nothing
there); the run-time counterpart for modules that were never rewritten is NotRewrittenWarning.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Container, Iterable
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from jaxrewrite.engine.analysis import Analysis, LintFacts, MarkedDef, Use
from jaxrewrite.engine.edits import render
from jaxrewrite.engine.findings.passed import BOUND, method_kind
from jaxrewrite.engine.read.classes import DATACLASS, ClassInfo, local_class
from jaxrewrite.engine.read.fields import form_of
from jaxrewrite.engine.read.markers import MarkerReader, inner_type, may_mark
from jaxrewrite.engine.read.nodes import walk as walk_nodes
from jaxrewrite.engine.read.recognise import (
    TransformRef,
    bound_keywords,
    classify,
    classify_registration,
    looks_like_transform_decorator,
)
from jaxrewrite.engine.read.resolve import qualname
from jaxrewrite.engine.read.scopes import DefinedClass, Scope, ScopeTree
from jaxrewrite.engine.read.signature import Param, Signature, array_type
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import ARRAY_TYPES, EITHER_FORM, Mark
from jaxrewrite.engine.walk import specs
from jaxrewrite.engine.walk.completion import is_overload
from jaxrewrite.errors import RewriteError
from jaxrewrite.header import PRAGMA, Header, why_ignored

if TYPE_CHECKING:
    from jaxrewrite.engine.build import Analyzer

Function = ast.FunctionDef | ast.AsyncFunctionDef

#: Types whose values JAX cannot hash, so it rejects them as static arguments at call time: the
#: arrays (and jaxtyping's ``Float[Array, "n"]``, ``signature.array_type``) and mutable containers.
UNHASHABLE = ARRAY_TYPES | frozenset(
    {
        "builtins.list",
        "builtins.dict",
        "builtins.set",
        "builtins.bytearray",
        "typing.List",
        "typing.Dict",
        "typing.Set",
        "typing.DefaultDict",
        "typing.OrderedDict",
        "typing.Counter",
        "typing.Deque",
        "typing.MutableMapping",
        "typing.MutableSequence",
        "typing.MutableSet",
        "collections.abc.MutableMapping",
        "collections.abc.MutableSequence",
        "collections.abc.MutableSet",
        "collections.defaultdict",
        "collections.OrderedDict",
        "collections.Counter",
        "collections.deque",
    }
)
_BUILTINS = frozenset({"list", "dict", "set", "bytearray"})


def read_defs(
    defs: Iterable[tuple[Function, Scope]],
    signatures: dict[int, Signature],
    applied: set[int],
    unknown_calls: dict[int, ast.expr],
    refused: Container[int] = frozenset(),
    hashing: bool = True,
    owners: dict[int, ast.ClassDef] | None = None,
) -> tuple[MarkedDef, ...]:
    """What lint needs of every def with markers, read with the scopes alive (names resolved,
    decorators classified, annotations and defaults judged hashable or not: not with
    ``hashing`` False, where no JR003 is wanted). ``owners``: the class whose body defines each
    method, for a ``self: Static`` (the instance is hashed: its class decides)."""
    found = []
    for func, scope in defs:
        sig = signatures.get(id(func))
        if sig is None or not sig.has_markers:
            continue
        marked = tuple(p for p in sig.params if p.markers)
        unknown = next(
            (
                d
                for d in func.decorator_list
                if classify(d, scope) is None and looks_like_transform_decorator(d)
            ),
            None,
        )
        types: list[tuple[Param, str]] = []
        values: list[tuple[Param, str]] = []
        defaults = _defaults(func) if hashing else {}
        for param in marked if hashing else ():
            if Mark.STATIC not in param.markers:
                continue
            annotating = scope.annotating(func)
            kind = unhashable(param, annotating)
            owner = None if owners is None or param.position != 0 else owners.get(id(func))
            if (
                kind is None
                and owner is not None
                and inner_type(param.node.annotation, annotating) is None
            ):
                why = unhashable_class(
                    owner, annotating
                )  # a bare Static on self: its class decides
                kind = None if why is None else f"{owner.name} ({why})"
            if kind is not None:
                types.append((param, kind))
                continue
            shown = _unhashable_value(defaults.get(param.name))
            if shown is not None:
                values.append((param, shown))
        found.append(
            MarkedDef(
                func,
                marked,
                id(func) in applied,
                is_overload(func, scope),
                unknown if unknown is not None else unknown_calls.get(id(func)),
                tuple(types),
                tuple(values),
                id(func) in refused,
            )
        )
    return tuple(found)


def opaque_classes(
    opaque: Iterable[tuple[ast.ClassDef, ast.expr]], infos: dict[int, ClassInfo]
) -> tuple[tuple[ast.ClassDef, ast.expr, tuple[tuple[str, ast.AST], ...]], ...]:
    """The classes registered by a flatten of the user's, with their own Static fields."""
    found = []
    for node, registering in opaque:
        info = infos.get(id(node))
        if info is not None:
            fields = tuple(
                (f.name, f.node)
                for f in info.fields
                if Mark.STATIC in f.markers and f.node in node.body
            )
            found.append((node, registering, fields))
    return tuple(found)


def lint(analysis: Analysis) -> list[Diagnostic]:
    """JR001 to JR004, JR007 and JR020: a pure function of the Analysis (its uses, header and
    ``lint_facts``), so it runs after the tree's scopes are released."""
    facts = analysis.lint_facts
    if facts is None:
        return []
    src = analysis.source
    # JR003 would cry wolf for a def used only under transforms that hash no static value.
    used = {id(use.target) for use in analysis.uses}
    hashed = {id(use.target) for use in analysis.uses if use.transform.hashes_statics}
    found = marked_defs(facts.defs, src, used - hashed)
    first = analysis.first_edit()
    if first is not None:
        where: ast.AST = first.node
        if isinstance(first, Use):
            where = next((p.node for p in first.signature.params if p.markers), first.node)
        pragma = missing_pragma(analysis.header, where, src)
        if pragma is not None:
            found.append(pragma)
    found.extend(unseen_level(call, func, src) for call, func in facts.unseen)
    for node, registering, fields in facts.opaque:
        found.extend(opaque_fields(node, registering, fields, src))
    return found


def marked_defs(
    defs: Iterable[MarkedDef], src: Source, unhashed: AbstractSet[int] = frozenset()
) -> list[Diagnostic]:
    """JR002, JR003 and JR004 for every def with markers. ``unhashed``: the defs used only
    under transforms that hash no static value (the row's ``hashes_statics``), where JR003
    would cry wolf; a def with no use at all still hears what a hashing transform would meet."""
    found: list[Diagnostic] = []
    for record in defs:
        func, marked = record.node, list(record.marked)
        if id(func) not in unhashed:
            found.extend(_unhashable_statics(record, src))
        unknown = record.unknown
        if record.refused:
            pass  # a use of it is refused (JR104, JR127): that error says what to do
        elif unknown is not None:
            does = "" if len(marked) > 1 else "es"
            found.append(
                Diagnostic.at(
                    src,
                    unknown,
                    rules.UNKNOWN_TRANSFORM,
                    spelled=_spell(marked),
                    func=func.name,
                    es=does,
                    under=ast.unparse(unknown),
                )
            )
        elif record.bound is not None and not record.applied:
            rule, spelled = rules.NO_TRANSFORM, _spell(marked)
            found.append(
                Diagnostic.at(src, marked[0].node, rule, "bound", spelled=spelled, **record.bound)
            )
        elif not record.applied and not record.overload:
            # An ``@overload`` stub is replaced by the implementation after it: that def is the
            # one a transform applies to, and the one reported if none does.
            found.append(
                Diagnostic.at(
                    src, marked[0].node, rules.NO_TRANSFORM, spelled=_spell(marked), func=func.name
                )
            )
    return found


def opaque_fields(
    node: ast.ClassDef, registering: ast.expr, fields: tuple[tuple[str, ast.AST], ...], src: Source
) -> list[Diagnostic]:
    """JR020: the Static fields of a class registered by the user's own flatten function."""
    how = ast.unparse(registering)
    return [
        Diagnostic.at(src, where, rules.OWN_FLATTEN, name=name, cls=node.name, how=how)
        for name, where in fields
    ]


def unseen_level(call: ast.Call, func: Function, src: Source) -> Diagnostic:
    """JR007: a transform applied to something made from a marked def that is not seen through."""
    arg = call.args[0]
    return Diagnostic.at(
        src,
        arg,
        rules.UNSEEN_LEVEL,
        func=func.name,
        transform=ast.unparse(call.func),
        arg=ast.unparse(arg),
    )


def missing_pragma(header: Header, first: ast.AST | None, src: Source) -> Diagnostic | None:
    """JR001: the rewrite would act on this module, but its header does not opt in."""
    if header.enabled or first is None:
        return None
    why = ""
    if header.ignored_lines:
        line = header.ignored_lines[0]
        why = f" (the '{PRAGMA}' on line {line} does not count: {why_ignored(src.text, line)})"
    return Diagnostic.at(src, first, rules.NO_PRAGMA, pragma=PRAGMA, why=why)


def _unhashable_statics(record: MarkedDef, src: Source) -> list[Diagnostic]:
    """JR003: a Static parameter whose type, or default, JAX cannot hash."""
    found = [
        Diagnostic.at(src, p.node, rules.UNHASHABLE, name=p.name, kind=kind)
        for p, kind in record.unhashable_types
    ]
    found += [
        Diagnostic.at(src, p.node, rules.UNHASHABLE, "default", name=p.name, shown=shown)
        for p, shown in record.unhashable_defaults
    ]
    return found


def _defaults(func: Function) -> dict[str, ast.expr]:
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    found = {
        arg.arg: value
        for arg, value in zip(positional[len(positional) - len(args.defaults) :], args.defaults)
    }
    found.update(
        (arg.arg, value)
        for arg, value in zip(args.kwonlyargs, args.kw_defaults)
        if value is not None
    )
    return found


#: Literal forms whose values cannot be hashed.
_UNHASHABLE_LITERALS: dict[type[ast.expr], str] = {
    ast.List: "list",
    ast.ListComp: "list",
    ast.Dict: "dict",
    ast.DictComp: "dict",
    ast.Set: "set",
    ast.SetComp: "set",
}


def _unhashable_value(expr: ast.expr | None) -> str | None:
    """``[2, 2]``, ``{...}``, a comprehension of them, or ``(1, [2])``: the unhashable kind."""
    if expr is None:
        return None
    kind = _UNHASHABLE_LITERALS.get(type(expr))
    if kind is not None:
        return kind
    if isinstance(expr, ast.Tuple):
        inner = next((k for k in map(_unhashable_value, expr.elts) if k is not None), None)
        return None if inner is None else f"tuple holding a {inner}"
    return None


def unhashable(param: Param, scope: Scope) -> str | None:
    """The spelled type under a Static marker, when values of it cannot be hashed."""
    inner = inner_type(param.node.annotation, scope)
    if inner is None:
        return None
    head = inner.value if isinstance(inner, ast.Subscript) else inner
    name = qualname(head, scope)
    if (
        name is None
        and isinstance(head, ast.Name)
        and head.id in _BUILTINS
        and scope.lookup(head.id) is None
    ):
        name = f"builtins.{head.id}"
    if name in UNHASHABLE or array_type(param.node.annotation, scope) is not None:
        return ast.unparse(inner)
    local = local_class(head, scope)
    if local is not None and isinstance(local[0], DefinedClass):
        why = unhashable_class(local[0].node, local[1])
        if why is not None:
            return f"{ast.unparse(inner)} ({why})"
    return None


def unhashable_class(node: ast.ClassDef, scope: Scope) -> str | None:
    """Why instances of a class of this module cannot be hashed, if they cannot: a
    ``@dataclass`` with ``eq`` on and neither ``frozen`` nor ``unsafe_hash`` (it sets
    ``__hash__`` to None), or a class defining ``__eq__`` without ``__hash__``. A class that
    defines ``__hash__`` is hashable; ``eq=False`` hashes by identity (each instance its own
    cache entry, as for any object)."""
    own = {
        stmt.name for stmt in node.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    own |= {
        t.id
        for stmt in node.body
        if isinstance(stmt, ast.Assign)
        for t in stmt.targets
        if isinstance(t, ast.Name)
    }
    if "__hash__" in own:
        return None
    for deco in node.decorator_list:
        call = deco if isinstance(deco, ast.Call) else None
        if qualname(call.func if call else deco, scope) != DATACLASS:
            continue
        options = {kw.arg: kw.value for kw in call.keywords} if call else {}
        if any(kw is None for kw in options):
            return None  # ``**options``: cannot tell
        flags = {}
        for key in ("eq", "frozen", "unsafe_hash"):
            value = options.get(key)
            if value is not None and not (
                isinstance(value, ast.Constant) and isinstance(value.value, bool)
            ):
                return None  # not a literal: cannot tell
            flags[key] = value.value if isinstance(value, ast.Constant) else key == "eq"
        if flags["eq"] and not flags["frozen"] and not flags["unsafe_hash"]:
            return "a dataclass with eq and without frozen=True, so its __hash__ is None"
        return None
    if "__eq__" in own:
        return "it defines __eq__ without __hash__, so its __hash__ is None"
    return None


def bound_methods(
    module: ast.Module,
    defs: Iterable[tuple[Function, Scope]],
    signatures: dict[int, Signature],
    wanted: set[int],
    src: Source,
) -> dict[int, dict[str, str]]:
    """For marked methods no transform applies to by name, the first transform call in a method
    of their class given one through ``self``/``cls`` (``self.fast = jax.jit(self.step)``), as
    JR002's fields, with the keywords that call needs: JAX reads the bound method's signature,
    whose positions do not count ``self`` (a staticmethod's count all, a classmethod's not
    ``cls``)."""
    scopes = {id(func): scope for func, scope in defs}
    found: dict[int, dict[str, str]] = {}
    for cls in (n for n in walk_nodes(module) if isinstance(n, ast.ClassDef)):
        methods = [s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        methods = [m for m in methods if id(m) in scopes]
        marked = {m.name: m for m in methods if id(m) in wanted}
        for caller in methods if marked else ():
            kind = method_kind(caller, scopes[id(caller)])
            first = [*caller.args.posonlyargs, *caller.args.args][:1]
            if kind == "static" or not first:
                continue
            for call in (n for n in walk_nodes(caller) if isinstance(n, ast.Call) and n.args):
                arg = call.args[0]
                if not (isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name)):
                    continue
                target = marked.get(arg.attr)
                if target is None or id(target) in found or arg.value.id != first[0].arg:
                    continue
                ref = classify(call.func, scopes[id(caller)])
                if ref is None:
                    continue
                receiver = "instance" if kind == "instance" else "class"
                shift = BOUND[method_kind(target, scopes[id(target)])][receiver]
                dropped = [*target.args.posonlyargs, *target.args.args][:1]
                counted = (
                    f"positions counted without {dropped[0].arg!r}"
                    if shift
                    else "positions as in the def"
                )
                sig = _shifted(signatures[id(target)], shift)
                found[id(target)] = {
                    "func": target.name,
                    "call": ast.unparse(call),
                    "line": str(call.lineno),
                    "transform": ref.transform.name,
                    "bound": ast.unparse(arg),
                    "shift": counted,
                    "keywords": _bound_keywords(call, ref, sig, src),
                }
    return found


def _shifted(sig: Signature, bound: int) -> Signature:
    """The signature of a method with its first ``bound`` parameters bound (``self``)."""
    params = tuple(
        p if p.position is None else p._replace(position=p.position - bound)
        for p in sig.params
        if p.position is None or p.position >= bound
    )
    return sig._replace(params=params, n_positional=sig.n_positional - bound)


def _bound_keywords(call: ast.Call, ref: TransformRef, sig: Signature, src: Source) -> str:
    """The keywords ``call`` needs for ``sig``'s markers, as the walk would complete them."""
    t = ref.transform
    try:
        written = ref.keywords + bound_keywords(call, t.positional, t.name, src)
        full = TransformRef(t, written, ref.factory)
        values = specs.complete(full, sig, src, call, False, at_call=True)
    except RewriteError as err:
        return f"none can be merged there ({err.message})"
    if not values or not any(node is None for _, _, node in values):
        return f"none: {t.name} makes nothing static for its marked parameters"
    return render.keywords(tuple((k, v) for k, v, node in values if node is None))


def _spell(params: list[Param]) -> str:
    names = ", ".join(repr(p.name) for p in params)
    return f"the marker{'s' if len(params) > 1 else ''} on {names}"


def PASS(
    result: Analysis, scopes: ScopeTree, tree: ast.Module, walk: Analyzer, hashing: bool = True
) -> None:
    """Lint as a finding pass: read what it needs while the scopes are alive (kept as
    ``Analysis.lint_facts``), judge it (``lint``), and JR014. ``hashing`` False: no JR003
    (``engine.findings.report``)."""
    signatures = {key: sig for key, (sig, _) in walk.signatures.items()}
    owners = (
        {
            id(stmt): node
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)
            for stmt in node.body
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        if hashing
        else None
    )
    defs = read_defs(
        walk.tree.defs,
        signatures,
        walk.applied,
        walk.unknown_calls,
        walk.refused_defs,
        hashing,
        owners,
    )
    unapplied = {id(d.node) for d in defs if not d.applied}
    if unapplied:
        bound = bound_methods(tree, walk.tree.defs, signatures, unapplied, result.source)
        defs = tuple(dataclasses.replace(d, bound=bound.get(id(d.node))) for d in defs)
    result.lint_facts = LintFacts(
        defs,
        tuple(walk.unseen),
        opaque_classes(walk.opaque, walk.class_info),
    )
    result.diagnostics.extend(lint(result))
    result.diagnostics.extend(_held_in_pytrees(walk))
    result.diagnostics.extend(_flax_module_fields(walk))
    if hashing:
        result.diagnostics.extend(_unhashable_passed(result, tree, scopes.module))


#: Array constructors of NumPy and jax.numpy: their results cannot be hashed.
_ARRAYS = frozenset(
    {
        "array",
        "asarray",
        "zeros",
        "ones",
        "full",
        "empty",
        "arange",
        "linspace",
        "eye",
        "identity",
        "zeros_like",
        "ones_like",
        "full_like",
        "empty_like",
    }
)


def _unhashable_passed(result: Analysis, tree: ast.Module, module: Scope) -> list[Diagnostic]:
    """JR003 at a call site of the module: a list, dict or set (a literal or comprehension), an
    array made by a NumPy or jax.numpy constructor, or an instance of an unhashable class of the
    module, passed to a Static parameter of a transform that hashes its statics."""
    from jaxrewrite.engine.findings.passed import Sites

    uses = [
        u
        for u in result.uses
        if u.transform.hashes_statics and any(Mark.STATIC in p.markers for p in u.signature.params)
    ]
    if not uses:
        return []
    sites = Sites(tree, module, lambda _: False)
    found: list[Diagnostic] = []
    seen: set[int] = set()
    for use in uses:
        func = use.target
        static = {p.name for p in use.signature.params if Mark.STATIC in p.markers}
        positional = [*func.args.posonlyargs, *func.args.args]
        for call in sites._calls(use.node, func, use.kind.name == "DECORATOR"):
            given = [(positional[i].arg, a) for i, a in enumerate(call.args) if i < len(positional)]
            given += [(kw.arg, kw.value) for kw in call.keywords if kw.arg is not None]
            for name, expr in given:
                if name in static and id(expr) not in seen:
                    shown = _unhashable_value(expr) or _unhashable_call(expr, module)
                    if shown is not None:
                        seen.add(id(expr))
                        found.append(
                            Diagnostic.at(
                                result.source,
                                expr,
                                rules.UNHASHABLE,
                                "passed",
                                name=name,
                                shown=shown,
                                line=call.lineno,
                            )
                        )
    return found


def _unhashable_call(expr: ast.expr, scope: Scope) -> str | None:
    """An array constructor's result, or an instance of an unhashable class of the module."""
    if not isinstance(expr, ast.Call):
        return None
    name = qualname(expr.func, scope) or ""
    module, _, leaf = name.rpartition(".")
    if module in ("numpy", "jax.numpy") and leaf in _ARRAYS:
        return f"{'NumPy' if module == 'numpy' else 'JAX'} array ({ast.unparse(expr.func)}(...))"
    local = local_class(expr.func, scope)
    if local is not None and isinstance(local[0], DefinedClass):
        why = unhashable_class(local[0].node, local[1])
        if why is not None:
            return f"{local[0].node.name} instance ({why})"
    return None


def _held_in_pytrees(walk: Analyzer) -> list[Diagnostic]:
    """JR014: a field of an Equinox Module or flax.struct dataclass (or a registered
    dataclass) annotated with a TypedDict/NamedTuple that has Static entries: the class
    flattens it like any pytree, so those entries are traced (per-leaf statics split
    parameters of transformed defs, never fields)."""
    found: list[Diagnostic] = []
    if not walk.leaf_names:
        return found
    for defined, scope in walk.tree.classes:
        for stmt in defined.node.body:
            if not isinstance(stmt, ast.AnnAssign) or not may_mark(
                stmt.annotation, walk.leaf_names
            ):
                continue
            try:
                if MarkerReader(defined.body, walk.src, None).markers(stmt.annotation):
                    continue  # Static[Cfg]: the whole field is static
                held = walk.leaf_class(stmt.annotation, defined.body)
                info = walk.info(held[0]) if held is not None else None
                if info is None or not info.static_fields:
                    continue
                form, unseen = form_of(defined, scope)
            except RewriteError:
                continue  # reported where it is read
            registered = any(classify_registration(d, scope) for d in defined.node.decorator_list)
            library = form.library if form is not None else "registered" if registered else None
            if library is None and unseen is not None:
                library = EITHER_FORM.library
            if library is None:
                continue
            entries = ", ".join(repr(f.name) for f in info.static_fields)
            found.append(
                Diagnostic.at(
                    walk.src,
                    stmt.annotation,
                    rules.HELD_IN_PYTREE,
                    field=_target(stmt),
                    cls=defined.node.name,
                    library=library,
                    held=info.name,
                    entries=entries,
                )
            )
    return found


#: The Flax Module bases whose fields are static without a marker, with JR008's variant.
_FLAX_MODULES = {"flax.nnx.Module": "nnx", "flax.nnx.Object": "nnx", "flax.linen.Module": "linen"}


def _flax_module_fields(walk: Analyzer) -> list[Diagnostic]:
    """JR008: Static on a field of an NNX or Linen Module (its base one of ``_FLAX_MODULES``, or
    a class of this module that derives from one), where the marker does nothing."""
    found: list[Diagnostic] = []
    for defined, scope in walk.tree.classes:
        kind = _flax_kind(defined, scope, 0)
        if kind is None:
            continue
        body = defined.node.body
        own = [s for s in body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
        fields = [(s, s.target.id) for s in own]  # type: ignore[union-attr]
        for method in body if kind == "nnx" else ():
            # ``self.n: Static[int] = n`` in a method: the attribute NNX keeps in its graph.
            if not isinstance(method, Function):
                continue
            first = [*method.args.posonlyargs, *method.args.args][:1]
            for s in walk_nodes(method) if first else ():
                if not isinstance(s, ast.AnnAssign) or not isinstance(s.target, ast.Attribute):
                    continue
                if ast.unparse(s.target.value) == first[0].arg:
                    fields.append((s, s.target.attr))
        reader = MarkerReader(defined.body, walk.src, walk.relevant)
        for stmt, name in fields:
            try:
                marks = reader.markers(stmt.annotation)
            except RewriteError:
                continue  # reported where it is read
            if Mark.STATIC in marks:
                what = f"{defined.node.name}.{name}"
                rule = rules.DOES_NOTHING
                found.append(Diagnostic.at(walk.src, stmt, rule, kind, spelled="Static", what=what))
    return found


def _flax_kind(defined: DefinedClass, scope: Scope, depth: int) -> str | None:
    """``"nnx"`` or ``"linen"`` where the class derives from a Flax Module, through this module's
    own classes too; else None."""
    for base in defined.node.bases if depth < 32 else ():
        kind = _FLAX_MODULES.get(qualname(base, scope) or "")
        local = local_class(base, scope) if kind is None else None
        if local is not None and isinstance(local[0], DefinedClass):
            kind = _flax_kind(local[0], local[1], depth + 1)
        if kind is not None:
            return kind
    return None


def _target(stmt: ast.AnnAssign) -> str:
    return stmt.target.id if isinstance(stmt.target, ast.Name) else ast.unparse(stmt.target)
