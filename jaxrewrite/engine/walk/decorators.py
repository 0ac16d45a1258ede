"""The walk over defs: each def's signature and per-leaf parameters, and each transform
decorating it, into the ``Walked`` record."""

from __future__ import annotations

import ast
import dataclasses

from jaxrewrite.engine.analysis import Leaf, UseKind
from jaxrewrite.engine.read.classes import ClassInfo, class_key
from jaxrewrite.engine.read.filters import may_matter
from jaxrewrite.engine.read.literals import resolve_keywords
from jaxrewrite.engine.read.markers import index_of
from jaxrewrite.engine.read.recognise import classify, classify_cut
from jaxrewrite.engine.read.resolve import MAX_DEPTH
from jaxrewrite.engine.read.scopes import Scope
from jaxrewrite.engine.read.signature import Kind, Param, Signature, read_signature
from jaxrewrite.engine.read.wrappers import keeps_signature, passes_through, wrapper_error
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import Container, Mark
from jaxrewrite.engine.walk.walker import Walked, complete_use, untold
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
                ref, cut = classify_cut(deco, scope)
                error = untold(deco, scope, cut, walk.src) if ref is None and marked else None
                if error is not None:
                    walk.refused_defs[id(func)] = error.code
                    raise error
                if ref is None:
                    continue
                walk.applied.add(id(func))
                below = func.decorator_list[func.decorator_list.index(deco) + 1 :]
                for d in below if marked else ():  # below it: transforms and pass-throughs only
                    if classify(d, scope) is None and not passes_through(d, scope):
                        raise wrapper_error(d, d, func, walk.src)
                if ref.keywords:
                    resolve_keywords(ref.transform, ref.keywords, scope, walk.src)
                    keeps = (id(d) for d in below if keeps_signature(d, scope))
                    walk.result.keeps_signature.update(keeps)
                local = tuple(deco.keywords) if isinstance(deco, ast.Call) else ()
                complete_use(walk, UseKind.DECORATOR, deco, ref, func, sig, leaves, local, scope)
            except RewriteError as err:
                walk.refuse(err)


def per_leaf_params(walk: Walked, sig: Signature, scope: Scope) -> tuple[Leaf, ...]:
    """Parameters annotated with a TypedDict/NamedTuple of this module that has Static fields."""
    found = []
    for param in sig.params:
        ann = param.node.annotation
        container = None if param.markers or ann is None else _container(walk, ann, scope)
        if container is None:
            continue
        info, key = container
        try:
            leaf = _entries(walk, info, param, (key,), [MOST_NESTED])
        except _TooMany:
            raise rules.LEAVES_RECURSE.error(
                walk.src, param.node, "many", name=param.name, most=MOST_NESTED
            ) from None
        if leaf is None:
            continue
        if param.kind in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD):
            raise rules.LEAVES_VARARGS.error(
                walk.src, param.node, kind=param.kind.value, name=param.name
            )
        statics = tuple(name for name, marks in leaf.marks if Mark.STATIC in marks)
        found.append(dataclasses.replace(leaf, keys=statics))
    return tuple(found)


def _container(walk: Walked, ann: ast.expr, scope: Scope) -> tuple[ClassInfo, int] | None:
    """The TypedDict/NamedTuple of this module ``ann`` names, and its key; a registered
    dataclass is none (its Static fields are its own meta_fields)."""
    local = walk.leaf_class(ann, scope)
    info = None if local is None else walk.info(local[0])
    if local is None or info is None or info.kind is Container.CLASS:
        return None
    return info, class_key(local[0][0])


def _entries(
    walk: Walked, info: ClassInfo, key: Param | str, path: tuple[int, ...], left: list[int]
) -> Leaf | None:
    """A container's marked entries and, to any depth, its unmarked entries that are containers
    with marked entries themselves, all held (``Leaf.held`` narrows); None without any. ``left``
    holds how many more nested containers the per-leaf parameter being read may hold."""
    inner = []
    for entry in info.fields:
        if entry.markers or entry.annotation is None or entry.scope is None:
            continue
        container = _container(walk, entry.annotation, entry.scope)
        if container is None:
            continue
        sub, sub_key = container
        if sub_key in path or len(path) > MAX_DEPTH:
            raise rules.LEAVES_RECURSE.error(walk.src, entry.node, name=entry.name, held=sub.name)
        left[0] -= 1
        if left[0] < 0:
            raise _TooMany
        found = _entries(walk, sub, entry.name, (*path, sub_key), left)
        if found is not None:
            inner.append(found)
    marks = tuple((f.name, f.markers) for f in info.static_fields)
    if not (marks or inner):
        return None
    nodes = tuple(f.node for f in info.static_fields)
    return Leaf(key, info.kind, (), marks, tuple(inner), nodes)


#: The most nested containers one per-leaf parameter may hold, counted along every path: a class
#: reached twice is spelled twice in the split (``a: Mid``, ``b: Mid``), so classes that each
#: hold the one below twice are 2**levels containers (20 levels: an import that never ended).
MOST_NESTED = 4096


class _TooMany(Exception):
    """Past ``MOST_NESTED``: refused at the parameter, where the split would be spelled."""
