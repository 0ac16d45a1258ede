"""What the walk found, handed on to the finding passes: a record built by the walk's functions
(``decorators``, ``registrations``, ``callsites``, run in order by ``analyze``), read by the
passes. Its fields are fixed at the start; the walk fills its collections, the passes only read.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from jaxrewrite.engine.analysis import Analysis, Leaf
from jaxrewrite.engine.read.classes import (
    ClassInfo,
    LocalClass,
    class_key,
    leaf_class,
    read_class,
)
from jaxrewrite.engine.read.filters import Filters
from jaxrewrite.engine.read.markers import may_mark
from jaxrewrite.engine.read.resolve import PAST_DEPTH, TooDeep
from jaxrewrite.engine.read.scopes import Scope, ScopeTree
from jaxrewrite.engine.read.signature import Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True, eq=False)
class Walked:
    tree: ScopeTree
    src: Source
    filters: Filters
    result: Analysis
    #: The names that may spell a marker, or None where every def is read (``EXHAUSTIVE``).
    relevant: set[str] | None = None
    #: Names of the module's TypedDict/NamedTuple classes with marked fields (per-leaf statics).
    leaf_names: set[str] = field(default_factory=set)
    #: Each class read (``info``), by the id of its node: a memo of ``read_class``.
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
    #: (JR104, JR127), with that code: the error says what to do, so lint adds no JR002/JR004
    #: beside it, and the ledger has the def's markers refused by it.
    refused_defs: dict[int, str] = field(default_factory=dict)
    #: Marked defs passed to a call that looks like a transform the table lacks.
    unknown_calls: dict[int, ast.expr] = field(default_factory=dict)
    #: Classes a ``register_dataclass(C)`` call site registers.
    registered: set[int] = field(default_factory=set)
    #: Transform call sites whose argument is made from a marked def in a way not seen
    #: through (JR007), with that def.
    unseen: list[tuple[ast.Call, Function]] = field(default_factory=list)
    #: Classes registered by a flatten of the user's (``register_pytree_node_class``...),
    #: with the registering expression: their Static fields do nothing (JR020).
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
