"""The walk over defs: each def's signature and per-leaf parameters, and each transform decorating it.
"""

from __future__ import annotations

import ast

from jaxrewrite.engine.walk import specs
from jaxrewrite.engine.analysis import Inner, Leaf, Use, UseKind, held_leaves, needs_edit
from jaxrewrite.engine.read.classes import ClassInfo, FunctionalClass, LocalClass, leaf_class
from jaxrewrite.engine.walk.completion import (
    ambiguity_error,
    check_import_visible,
    depth_error,
    factory_error,
    header_mentions,
    per_leaf_names,
)
from jaxrewrite.engine.read.filters import lines_mentioning, marker_names, may_matter
from jaxrewrite.engine.read.recognise import ambiguous, classify
from jaxrewrite.engine.read.resolve import MAX_DEPTH, PAST_DEPTH, TooDeep, too_deep
from jaxrewrite.engine.read.scopes import DefinedClass, Scope
from jaxrewrite.engine.read.signature import Kind, Signature, may_mark, read_signature
from jaxrewrite.engine.rulebook.table import Container, Mark
from jaxrewrite.engine.walk.walker import Walker
from jaxrewrite.engine.read.wrappers import passes_through, wrapper_error
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


class Decorators(Walker):
    # -- decorators ---------------------------------------------------------------------------

    def defs(self, exhaustive: bool) -> None:
        relevant = self.relevant
        # Every def is read when exhaustive, but an annotation that names no spelling of a marker
        # holds none (``marker_names``, the hook's own filter): a module that never names
        # jaxrewrite reads no annotation (a tenth of ``check``'s time over jax).
        spellings = marker_names(self.tree) if relevant is None else relevant
        mentions = None
        if relevant is not None and self.filters.signature_lines:
            mentions = lines_mentioning(relevant | self.leaf_names, self.src)
        for func, scope in self.tree.defs:
            if relevant is not None:
                if mentions is not None and not header_mentions(func, mentions):
                    continue
                if not may_matter(func, relevant, self.leaf_names):
                    continue
            try:
                sig = read_signature(func, scope, self.src, spellings)
                leaves = self.leaves(sig, scope) if self.leaf_names else ()
            except RewriteError as err:
                self.failed.add(id(func))
                self.refuse(err)
                continue
            marked = sig.has_markers or bool(leaves)
            if marked:
                self.signatures[id(func)] = (sig, leaves)
            elif not exhaustive:
                continue
            for deco in func.decorator_list:
                try:
                    self.decorator(deco, func, sig, leaves, scope, marked)
                except RewriteError as err:
                    self.refuse(err)

    def decorator(
        self, deco: ast.expr, func: Function, sig: Signature, leaves: tuple[Leaf, ...], scope: Scope, marked: bool
    ) -> None:
        ref = classify(deco, scope)
        if ref is None:
            if marked and ambiguous(deco, scope):
                self.refused_defs[id(func)] = "JR104"
                raise ambiguity_error(deco, self.src)
            if marked and too_deep(deco, scope):
                self.refused_defs[id(func)] = "JR127"
                raise depth_error(deco, self.src)
            return
        self.applied.add(id(func))
        decorators = func.decorator_list
        if marked and decorators[-1] is not deco:  # a transform directly above the def has none below
            below = decorators[decorators.index(deco) + 1 :]
            wrapper = next((d for d in below if classify(d, scope) is None and not passes_through(d, scope)), None)
            if wrapper is not None:
                raise wrapper_error(wrapper, wrapper, func, self.src)
        local = tuple(deco.keywords) if isinstance(deco, ast.Call) else ()
        leaves = held_leaves(leaves, ref.transform)
        values = specs.complete(ref, sig, self.src, deco, bool(leaves))
        wraps = bool(leaves) or (not isinstance(deco, ast.Call) and needs_edit(values))
        if wraps:
            check_import_visible(deco, scope, self.src)
        use = Use(
            UseKind.DECORATOR,
            deco,
            ref.transform,
            func,
            sig,
            leaves,
            ref.keywords,
            local,
            values,
            ref.factory,
        )
        if leaves:
            if ref.transform.per_leaf is None:
                raise self.src.error(
                    leaves[0].param.node,
                    "JR106",
                    f"per-leaf statics ({leaves[0].param.name!r} has Static entries) work under "
                    f"{per_leaf_names()} only, not {ref.transform.name}; mark {leaves[0].param.name!r} Static whole, "
                    "or pass its static entries as parameters of their own",
                )
            if ref.factory:
                raise factory_error(deco, ref, self.src)
        elif use.needs_edit and ref.factory and not isinstance(deco, ast.Call):
            raise factory_error(deco, ref, self.src)
        self.result.uses.append(use)

    def leaves(self, sig: Signature, scope: Scope) -> tuple[Leaf, ...]:
        """Parameters annotated with a TypedDict/NamedTuple of this module that has Static fields."""
        found = []
        for param in sig.params:
            ann = param.node.annotation
            if param.markers or ann is None:
                continue
            found_class = self.leaf_class(ann, scope)
            if found_class is None:
                continue
            info = self.info(found_class[0])
            if info.kind is Container.CLASS:
                continue
            marks = tuple((f.name, f.markers) for f in info.static_fields)
            self.nested_left = MOST_NESTED
            try:
                inner = self.inner_entries(info, (_key(found_class[0][0]),))
            except _TooMany:
                raise self.src.error(
                    param.node,
                    "JR126",
                    f"per-leaf statics cannot follow {param.name!r}: its containers nest into more than "
                    f"{MOST_NESTED} containers (the same classes reached along many paths), and the split "
                    "spells each one; pass the nested parts as arguments of their own, or mark it Static whole",
                ) from None
            if not marks and not inner:
                continue
            if param.kind in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD):
                raise self.src.error(
                    param.node,
                    "JR108",
                    f"per-leaf statics cannot apply to {param.kind.value} parameter {param.name!r}; "
                    "give the container a named parameter of its own",
                )
            statics = tuple(name for name, m in marks if Mark.STATIC in m)
            nodes = tuple(f.node for f in info.static_fields)
            found.append(Leaf(param, info.kind, statics, marks, inner, nodes))
        return tuple(found)

    def leaf_class(self, ann: ast.expr, scope: Scope) -> tuple[LocalClass, bool] | None:
        """``classes.leaf_class``, or JR127 where it cannot tell and a container with marked
        entries is in reach (``leaf_names`` is the closure of the names made from one)."""
        try:
            return leaf_class(ann, scope)
        except TooDeep:
            if not may_mark(ann, self.leaf_names):
                return None  # a loop of aliases that reaches no container with marked entries
            raise self.src.error(
                ann,
                "JR127",
                f"cannot tell whether {self.src.segment(ann)} is a TypedDict or NamedTuple with Static entries: "
                f"{PAST_DEPTH}; name the class directly (or through a shorter alias)",
            ) from None

    def inner_entries(self, info: ClassInfo, path: tuple[int, ...]) -> tuple[Inner, ...]:
        """The unmarked entries of a container that are containers with marked entries
        themselves (to any depth), each with every marked entry (``Inner.held`` narrows)."""
        found = []
        for entry in info.fields:
            if entry.markers or entry.annotation is None or entry.scope is None:
                continue
            local = self.leaf_class(entry.annotation, entry.scope)
            if local is None:
                continue
            sub = self.info(local[0])
            if sub.kind is Container.CLASS:
                continue  # a registered dataclass: its Static fields are its own meta_fields
            key = _key(local[0][0])
            if key in path or len(path) > MAX_DEPTH:
                raise self.src.error(
                    entry.node,
                    "JR126",
                    f"per-leaf statics cannot follow {entry.name!r}: it holds {sub.name!r} again, and the "
                    "split is fixed when the function is wrapped, so it cannot follow a recursion of any "
                    "depth; pass the recursive part as its own argument, or mark it Static whole",
                )
            self.nested_left -= 1
            if self.nested_left < 0:
                raise _TooMany
            marks = tuple((f.name, f.markers) for f in sub.static_fields)
            deeper = self.inner_entries(sub, (*path, key))
            if marks or deeper:
                found.append(Inner(entry.name, sub.kind, (), marks, deeper, tuple(f.node for f in sub.static_fields)))
        return tuple(found)



#: The most nested containers one per-leaf parameter may hold, counted along every path: a class
#: reached twice is spelled twice in the split (``a: Mid``, ``b: Mid``), so classes that each
#: hold the one below twice are 2**levels containers (20 levels: an import that never ended).
MOST_NESTED = 4096


class _TooMany(Exception):
    """Past ``MOST_NESTED``: refused at the parameter, where the split would be spelled."""


def _key(defined: DefinedClass | FunctionalClass) -> int:
    return id(defined.call if isinstance(defined, FunctionalClass) else defined.node)
