"""The walk's state, one ``Walked`` value built by ``build.walk_module``'s steps and then handed
to the finding passes, which only read it; and what the steps share, ``complete_use`` first."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

from jaxrewrite.engine.analysis import (
    Analysis,
    Leaf,
    Use,
    UseKind,
    needs_edit,
)
from jaxrewrite.engine.read.classes import (
    ClassInfo,
    LocalClass,
    class_key,
    leaf_class,
    read_class,
)
from jaxrewrite.engine.read.denote import spelled
from jaxrewrite.engine.read.markers import may_mark
from jaxrewrite.engine.read.recognise import TransformRef, ambiguous
from jaxrewrite.engine.read.resolve import PAST_DEPTH, TooDeep, qualname
from jaxrewrite.engine.read.scopes import Scope, ScopeTree
from jaxrewrite.engine.read.signature import Param, Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import TRANSFORMS
from jaxrewrite.engine.walk import specs
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True, eq=False)
class Walked:
    tree: ScopeTree
    src: Source
    result: Analysis
    #: The names that may spell a marker, or None where every def is read (``EXHAUSTIVE``).
    relevant: set[str] | None = None
    #: Names of the module's TypedDict/NamedTuple classes with marked fields (per-leaf statics).
    leaf_names: set[str] = field(default_factory=set)
    #: Each class read (``info``), by the id of its node.
    class_info: dict[int, ClassInfo] = field(default_factory=dict)
    #: Defs with markers or per-leaf parameters: (signature, leaves).
    signatures: dict[int, tuple[Signature, tuple[Leaf, ...]]] = field(default_factory=dict)
    #: Defs whose signature is itself an error: their uses are not analyzed again.
    failed: set[int] = field(default_factory=set)
    #: Defs a transform of the table is applied to (even where that use was refused).
    applied: set[int] = field(default_factory=set)
    #: (id of a use's def) -> the other defs with the same Static parameters its argument may
    #: be when it runs (``if``/``else`` twins, ``for fn in (f, g):``): the use applies to them.
    twins: dict[int, list[Function]] = field(default_factory=dict)
    #: Marked defs with a use refused because what is applied, or to what, cannot be told
    #: (JR104, JR127), with that code: lint adds no JR002/JR004 beside the error.
    refused_defs: dict[int, str] = field(default_factory=dict)
    #: Marked defs passed to a call that looks like a transform the table lacks.
    unknown_calls: dict[int, ast.expr] = field(default_factory=dict)
    #: Classes a ``register_dataclass(C)`` call site registers.
    registered: set[int] = field(default_factory=set)
    #: Transform calls of a marked def not seen through (JR007), with that def.
    unseen: list[tuple[ast.Call, Function]] = field(default_factory=list)
    #: Classes registered by a flatten of the user's, with the registering expression (JR020).
    opaque: list[tuple[ast.ClassDef, ast.expr]] = field(default_factory=list)
    #: Transform calls refused, with their scope and the refusal's code.
    refused_calls: list[tuple[ast.Call, Scope, str]] = field(default_factory=list)

    def refuse(self, err: RewriteError) -> None:
        self.result.diagnostics.append(Diagnostic.from_error(err))

    def info(self, local: LocalClass) -> ClassInfo:
        defined, scope = local
        key = class_key(defined)
        if key not in self.class_info:
            self.class_info[key] = read_class(defined, scope, self.src, self.relevant)
        return self.class_info[key]

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


def complete_use(
    walk: Walked,
    kind: UseKind,
    node: ast.expr,
    ref: TransformRef,
    func: Function,
    sig: Signature,
    leaves: tuple[Leaf, ...],
    local: tuple[ast.keyword, ...],
    scope: Scope,
) -> None:
    """One use of a transform (a decorator, or a call site ``node``) into the analysis, for
    decorators and call sites alike: ``ref.keywords`` is all the use writes, ``local`` what is
    written at ``node`` itself. The per-leaf refusals first (nothing can be written), then the
    spec math, then what the written text needs."""
    src, t = walk.src, ref.transform
    leaves = tuple(filter(None, (leaf.held(t.markers) for leaf in leaves)))
    call = node if kind is UseKind.CALL and isinstance(node, ast.Call) else None
    factory = rules.FACTORY_KEYWORDS
    first = leaves[0].param if leaves else None
    if isinstance(first, Param) and t.per_leaf is None:
        split = ", ".join(name for name, row in TRANSFORMS.items() if row.per_leaf is not None)
        at = first.node if call is None else call
        raise rules.LEAVES_UNSPLIT.error(src, at, param=first.name, names=split, transform=t.name)
    if isinstance(first, Param) and ref.factory:
        if call is None:
            raise factory.error(src, node, name=t.name, expr=ast.unparse(node))
        made = ast.unparse(call.func)
        raise rules.LEAVES_FACTORY.error(src, call, param=first.name, factory=made)
    use = Use(kind, node, t, func, sig, leaves, ref.keywords, local, None, ref.factory)
    use = replace(use, values=specs.complete(use, src))
    bare = not isinstance(node, ast.Call)  # a decorator that is no call: written as one
    if leaves or (bare and needs_edit(use.values)):
        check_import_visible(node, scope, src)
    if use.needs_edit and ref.factory and (call is not None or bare):
        written = node if call is None else call.func
        raise factory.error(src, written, name=t.name, expr=ast.unparse(written))
    walk.result.uses.append(use)


def untold(expr: ast.expr, scope: Scope, cut: bool, src: Source) -> RewriteError | None:
    """Why what ``expr`` applies cannot be told: JR104 where its bindings disagree on the
    transform, JR127 where the chain of bindings was cut past the depth read."""
    pair = ambiguous(expr, scope)
    if pair is not None:
        fields = spelled(pair, src.filename)
        return rules.TRANSFORM_BOUND_TWICE.error(src, expr, expr=ast.unparse(expr), **fields)
    if cut:
        return rules.TOO_DEEP.error(src, expr, expr=ast.unparse(expr), past=PAST_DEPTH)
    return None


def is_overload(func: Function, scope: Scope) -> bool:
    """``@typing.overload`` stubs are replaced by the implementation that follows them."""
    return any(qualname(deco, scope) == "typing.overload" for deco in func.decorator_list)


def check_import_visible(node: ast.expr, scope: Scope, src: Source) -> None:
    """The generated text calls the builtin ``__import__`` (no import statement, no new module
    name); a module that binds that name itself would make it call something else: refuse."""
    if scope.lookup("__import__") is not None:
        raise rules.IMPORT_BOUND.error(src, node)
