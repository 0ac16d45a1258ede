"""The walk over defs: each def's signature and per-leaf parameters, and each transform decorating
it."""

from __future__ import annotations

import ast

from jaxrewrite.engine.analysis import Inner, Leaf, Use, UseKind, held_leaves, needs_edit
from jaxrewrite.engine.read.classes import ClassInfo, FunctionalClass, LocalClass, leaf_class
from jaxrewrite.engine.read.filters import lines_mentioning, may_matter
from jaxrewrite.engine.read.literals import resolve_keywords
from jaxrewrite.engine.read.markers import index_of, may_mark
from jaxrewrite.engine.read.recognise import ambiguous, classify
from jaxrewrite.engine.read.resolve import MAX_DEPTH, PAST_DEPTH, TooDeep, too_deep
from jaxrewrite.engine.read.scopes import DefinedClass, Scope
from jaxrewrite.engine.read.signature import Kind, Signature, read_signature
from jaxrewrite.engine.read.wrappers import keeps_signature, passes_through, wrapper_error
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import Container, Mark
from jaxrewrite.engine.walk import specs
from jaxrewrite.engine.walk.completion import (
    ambiguity_error,
    check_import_visible,
    depth_error,
    factory_error,
    header_mentions,
    per_leaf_names,
)
from jaxrewrite.engine.walk.walker import Walker
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


class Decorators(Walker):
    # -- decorators ---------------------------------------------------------------------------

    def defs(self, exhaustive: bool) -> None:
        relevant = self.relevant
        # Every def is read when exhaustive, but an annotation that names no spelling of a marker
        # holds none (``MarkIndex.names``, the hook's own filter): a module that never names
        # jaxrewrite reads no annotation.
        index = index_of(self.tree)
        spellings = index.names if relevant is None else relevant
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
                sig = read_signature(func, scope, self.src, spellings, index)
                leaves = self.leaves(sig, scope.annotating(func)) if self.leaf_names else ()
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
        self,
        deco: ast.expr,
        func: Function,
        sig: Signature,
        leaves: tuple[Leaf, ...],
        scope: Scope,
        marked: bool,
    ) -> None:
        ref = classify(deco, scope)
        if ref is None:
            pair = ambiguous(deco, scope) if marked else None
            if pair is not None:
                self.refused_defs[id(func)] = rules.TRANSFORM_BOUND_TWICE.code
                raise ambiguity_error(deco, self.src, pair)
            if marked and too_deep(deco, scope):
                self.refused_defs[id(func)] = rules.TOO_DEEP.code
                raise depth_error(deco, self.src)
            return
        self.applied.add(id(func))
        decorators = func.decorator_list
        if (
            marked and decorators[-1] is not deco
        ):  # a transform directly above the def has none below
            below = decorators[decorators.index(deco) + 1 :]
            wrapper = next(
                (d for d in below if classify(d, scope) is None and not passes_through(d, scope)),
                None,
            )
            if wrapper is not None:
                raise wrapper_error(wrapper, wrapper, func, self.src)
        local = tuple(deco.keywords) if isinstance(deco, ast.Call) else ()
        if ref.keywords:
            resolve_keywords(ref.transform, ref.keywords, scope, self.src)
            below = decorators[decorators.index(deco) + 1 :]
            self.result.keeps_signature.update(id(d) for d in below if keeps_signature(d, scope))
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
                raise rules.LEAVES_UNSPLIT.error(
                    self.src,
                    leaves[0].param.node,
                    param=leaves[0].param.name,
                    names=per_leaf_names(),
                    transform=ref.transform.name,
                )
            if ref.factory:
                raise factory_error(deco, ref, self.src)
        elif use.needs_edit and ref.factory and not isinstance(deco, ast.Call):
            raise factory_error(deco, ref, self.src)
        self.result.uses.append(use)

    def leaves(self, sig: Signature, scope: Scope) -> tuple[Leaf, ...]:
        """Parameters annotated with a TypedDict/NamedTuple of this module that has Static
        fields."""
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
                raise rules.LEAVES_RECURSE.error(
                    self.src, param.node, "many", name=param.name, most=MOST_NESTED
                ) from None
            if not marks and not inner:
                continue
            if param.kind in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD):
                raise rules.LEAVES_VARARGS.error(
                    self.src, param.node, kind=param.kind.value, name=param.name
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
            raise rules.TOO_DEEP.error(
                self.src, ann, "container", expr=self.src.segment(ann), past=PAST_DEPTH
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
                raise rules.LEAVES_RECURSE.error(
                    self.src, entry.node, name=entry.name, held=sub.name
                )
            self.nested_left -= 1
            if self.nested_left < 0:
                raise _TooMany
            marks = tuple((f.name, f.markers) for f in sub.static_fields)
            deeper = self.inner_entries(sub, (*path, key))
            if marks or deeper:
                found.append(
                    Inner(
                        entry.name,
                        sub.kind,
                        (),
                        marks,
                        deeper,
                        tuple(f.node for f in sub.static_fields),
                    )
                )
        return tuple(found)


#: The most nested containers one per-leaf parameter may hold, counted along every path: a class
#: reached twice is spelled twice in the split (``a: Mid``, ``b: Mid``), so classes that each
#: hold the one below twice are 2**levels containers (20 levels: an import that never ended).
MOST_NESTED = 4096


class _TooMany(Exception):
    """Past ``MOST_NESTED``: refused at the parameter, where the split would be spelled."""


def _key(defined: DefinedClass | FunctionalClass) -> int:
    return id(defined.call if isinstance(defined, FunctionalClass) else defined.node)
