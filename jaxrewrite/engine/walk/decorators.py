"""The walk over defs: each def's signature and per-leaf parameters, and each transform
decorating it, into the ``Walked`` record."""

from __future__ import annotations

import ast

from jaxrewrite.engine.analysis import Inner, Leaf, UseKind
from jaxrewrite.engine.read.classes import ClassInfo, class_key
from jaxrewrite.engine.read.filters import may_matter
from jaxrewrite.engine.read.literals import resolve_keywords
from jaxrewrite.engine.read.markers import index_of
from jaxrewrite.engine.read.recognise import ambiguous, classify, classify_cut
from jaxrewrite.engine.read.resolve import MAX_DEPTH
from jaxrewrite.engine.read.scopes import Scope
from jaxrewrite.engine.read.signature import Kind, Signature, read_signature
from jaxrewrite.engine.read.wrappers import keeps_signature, passes_through, wrapper_error
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import Container, Mark
from jaxrewrite.engine.walk.walker import (
    Walked,
    ambiguity_error,
    complete_use,
    depth_error,
)
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


def defs(walk: Walked, exhaustive: bool) -> None:
    relevant = walk.relevant
    # Every def is read when exhaustive, but an annotation that names no spelling of a marker
    # holds none (``MarkIndex.names``, the hook's own filter): a module that never names
    # jaxrewrite reads no annotation.
    index = index_of(walk.tree)
    spellings = index.names if relevant is None else relevant
    for func, scope in walk.tree.defs:
        if relevant is not None and not may_matter(func, relevant, walk.leaf_names):
            continue
        try:
            sig = read_signature(func, scope, walk.src, spellings, index)
            leaves = per_leaf_params(walk, sig, scope.annotating(func)) if walk.leaf_names else ()
        except RewriteError as err:
            walk.failed.add(id(func))
            walk.refuse(err)
            continue
        marked = sig.has_markers or bool(leaves)
        if marked:
            walk.signatures[id(func)] = (sig, leaves)
        elif not exhaustive:
            continue
        for deco in func.decorator_list:
            try:
                decorator(walk, deco, func, sig, leaves, scope, marked)
            except RewriteError as err:
                walk.refuse(err)


def decorator(
    walk: Walked,
    deco: ast.expr,
    func: Function,
    sig: Signature,
    leaves: tuple[Leaf, ...],
    scope: Scope,
    marked: bool,
) -> None:
    ref, cut = classify_cut(deco, scope)
    if ref is None:
        pair = ambiguous(deco, scope) if marked else None
        if pair is not None:
            walk.refused_defs[id(func)] = rules.TRANSFORM_BOUND_TWICE.code
            raise ambiguity_error(deco, walk.src, pair)
        if marked and cut:
            walk.refused_defs[id(func)] = rules.TOO_DEEP.code
            raise depth_error(deco, walk.src)
        return
    walk.applied.add(id(func))
    decorators = func.decorator_list
    if marked and decorators[-1] is not deco:  # a transform directly above the def has none below
        below = decorators[decorators.index(deco) + 1 :]
        wrapper = next(
            (d for d in below if classify(d, scope) is None and not passes_through(d, scope)),
            None,
        )
        if wrapper is not None:
            raise wrapper_error(wrapper, wrapper, func, walk.src)
    local = tuple(deco.keywords) if isinstance(deco, ast.Call) else ()
    if ref.keywords:
        resolve_keywords(ref.transform, ref.keywords, scope, walk.src)
        below = decorators[decorators.index(deco) + 1 :]
        walk.result.keeps_signature.update(id(d) for d in below if keeps_signature(d, scope))
    use = complete_use(UseKind.DECORATOR, deco, ref, func, sig, leaves, local, scope, walk.src)
    walk.result.uses.append(use)


def per_leaf_params(walk: Walked, sig: Signature, scope: Scope) -> tuple[Leaf, ...]:
    """Parameters annotated with a TypedDict/NamedTuple of this module that has Static fields."""
    found = []
    for param in sig.params:
        ann = param.node.annotation
        if param.markers or ann is None:
            continue
        found_class = walk.leaf_class(ann, scope)
        if found_class is None:
            continue
        info = walk.info(found_class[0])
        if info.kind is Container.CLASS:
            continue
        marks = tuple((f.name, f.markers) for f in info.static_fields)
        try:
            inner = inner_entries(walk, info, (class_key(found_class[0][0]),), [MOST_NESTED])
        except _TooMany:
            raise rules.LEAVES_RECURSE.error(
                walk.src, param.node, "many", name=param.name, most=MOST_NESTED
            ) from None
        if not marks and not inner:
            continue
        if param.kind in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD):
            raise rules.LEAVES_VARARGS.error(
                walk.src, param.node, kind=param.kind.value, name=param.name
            )
        statics = tuple(name for name, m in marks if Mark.STATIC in m)
        nodes = tuple(f.node for f in info.static_fields)
        found.append(Leaf(param, info.kind, statics, marks, inner, nodes))
    return tuple(found)


def inner_entries(
    walk: Walked, info: ClassInfo, path: tuple[int, ...], left: list[int]
) -> tuple[Inner, ...]:
    """The unmarked entries of a container that are containers with marked entries
    themselves (to any depth), each with every marked entry (``Inner.held`` narrows); ``left``
    holds how many more nested containers the per-leaf parameter being read may hold."""
    found = []
    for entry in info.fields:
        if entry.markers or entry.annotation is None or entry.scope is None:
            continue
        local = walk.leaf_class(entry.annotation, entry.scope)
        if local is None:
            continue
        sub = walk.info(local[0])
        if sub.kind is Container.CLASS:
            continue  # a registered dataclass: its Static fields are its own meta_fields
        key = class_key(local[0][0])
        if key in path or len(path) > MAX_DEPTH:
            raise rules.LEAVES_RECURSE.error(walk.src, entry.node, name=entry.name, held=sub.name)
        left[0] -= 1
        if left[0] < 0:
            raise _TooMany
        marks = tuple((f.name, f.markers) for f in sub.static_fields)
        deeper = inner_entries(walk, sub, (*path, key), left)
        if marks or deeper:
            nodes = tuple(f.node for f in sub.static_fields)
            found.append(Inner(entry.name, sub.kind, (), marks, deeper, nodes))
    return tuple(found)


#: The most nested containers one per-leaf parameter may hold, counted along every path: a class
#: reached twice is spelled twice in the split (``a: Mid``, ``b: Mid``), so classes that each
#: hold the one below twice are 2**levels containers (20 levels: an import that never ended).
MOST_NESTED = 4096


class _TooMany(Exception):
    """Past ``MOST_NESTED``: refused at the parameter, where the split would be spelled."""
