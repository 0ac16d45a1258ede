"""What the analysis' walkers share: the module's scopes and text, the results so far, one class
reader.

The walk is split by what it reads (``decorators``, ``registrations``, ``callsites``); each is a
mixin over this state, and ``analyze.Analyzer`` combines them in the order ``run`` needs.
"""

from __future__ import annotations

import ast

from jaxrewrite.engine.analysis import Analysis, Leaf
from jaxrewrite.engine.read.classes import ClassInfo, FunctionalClass, LocalClass, read_class
from jaxrewrite.engine.read.filters import Filters
from jaxrewrite.engine.read.scopes import ScopeTree
from jaxrewrite.engine.read.signature import Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


class Walker:
    def __init__(self, tree: ScopeTree, src: Source, filters: Filters, result: Analysis) -> None:
        self.tree = tree
        self.src = src
        self.filters = filters
        self.result = result
        self.relevant: set[str] | None = None
        #: Names of the module's TypedDict/NamedTuple classes with marked fields (per-leaf statics).
        self.leaf_names: set[str] = set()
        #: How many more nested containers the per-leaf parameter being read may hold.
        self.nested_left = 0
        self.class_info: dict[int, ClassInfo] = {}
        #: Defs with markers or per-leaf parameters: (signature, leaves).
        self.signatures: dict[int, tuple[Signature, tuple[Leaf, ...]]] = {}
        #: Defs whose signature is itself an error: their uses are not analyzed again.
        self.failed: set[int] = set()
        #: Defs a transform of the table is applied to (even where that use was refused).
        self.applied: set[int] = set()
        #: (id of a use's def) -> the other defs with the same Static parameters its argument may
        #: be when it runs (``if``/``else`` twins, ``for fn in (f, g):``): the use applies to them.
        self.twins: dict[int, list[Function]] = {}
        #: Marked defs with a use refused because what is applied, or to what, cannot be told
        #: (JR104, JR127), with that code: the error says what to do, so lint adds no JR002/JR004
        #: beside it, and the ledger has the def's markers refused by it.
        self.refused_defs: dict[int, str] = {}
        #: Marked defs passed to a call that looks like a transform the table lacks.
        self.unknown_calls: dict[int, ast.expr] = {}
        #: Classes a ``register_dataclass(C)`` call site registers.
        self.registered: set[int] = set()
        #: Transform call sites whose argument is made from a marked def in a way not seen
        #: through (JR007), with that def.
        self.unseen: list[tuple[ast.Call, Function]] = []
        #: Classes registered by a flatten of the user's (``register_pytree_node_class``...),
        #: with the registering expression: their Static fields do nothing (JR020).
        self.opaque: list[tuple[ast.ClassDef, ast.expr]] = []

    def refuse(self, err: RewriteError) -> None:
        self.result.diagnostics.append(Diagnostic.from_error(err))

    def info(self, local: LocalClass) -> ClassInfo:
        defined, scope = local
        key = id(defined.call if isinstance(defined, FunctionalClass) else defined.node)
        if key not in self.class_info:
            self.class_info[key] = read_class(defined, scope, self.src, self.relevant)
        return self.class_info[key]
