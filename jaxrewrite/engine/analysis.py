"""The value every front end reads: an ``Analysis`` of one module, its transform uses and findings.
Data only; ``engine.build`` makes it."""

from __future__ import annotations

import ast
import dataclasses
import enum
from dataclasses import dataclass, field

from jaxrewrite.engine.read.fields import FieldUse
from jaxrewrite.engine.read.literals import Values
from jaxrewrite.engine.read.signature import Param, Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import Container, Mark, Transform
from jaxrewrite.header import Header

Function = ast.FunctionDef | ast.AsyncFunctionDef


class UseKind(enum.Enum):
    DECORATOR = "decorator"  # @jax.jit on a def, @register_dataclass on a class
    CALL = "call"  # jax.jit(f) on a def of this module, register_dataclass(C)


@dataclass(frozen=True)
class Leaf:
    """A parameter whose TypedDict/NamedTuple annotation has marked entries (per-leaf statics), or
    an entry of one that is such a container itself (``class Outer(TypedDict): inner: Inner``),
    split inside it. ``marks`` holds every marked entry, ``keys`` and ``inner`` the ones a
    transform holds out (``held`` narrows them)."""

    #: The parameter, or the entry's key for an inner container.
    param: Param | str
    kind: Container
    keys: tuple[str, ...]
    marks: tuple[tuple[str, frozenset[Mark]], ...] = ()
    inner: tuple[Leaf, ...] = ()
    #: The field statement of each entry of ``marks``, in its order: what the ledger counts as
    #: applied (by node, however the class was named: ``Alias = Layer``).
    nodes: tuple[ast.AST, ...] = field(default=(), compare=False)

    def held(self, markers: frozenset[Mark]) -> Leaf | None:
        """These entries as ``markers`` see it: those carrying one of them, or None."""
        keys = tuple(name for name, marks in self.marks if marks & markers)
        found = (entry.held(markers) for entry in self.inner)
        inner = tuple(entry for entry in found if entry is not None)
        if not (keys or inner):
            return None
        return dataclasses.replace(self, keys=keys, inner=inner)

    def applied(self) -> list[ast.AST]:
        """The field statements of the held keys, here and in every inner container."""
        held = set(self.keys)
        found = [node for (name, _), node in zip(self.marks, self.nodes) if name in held]
        for entry in self.inner:
            found.extend(entry.applied())
        return found

    def spec(self) -> tuple[object, ...]:
        """What the run-time helper is given (``jaxrewrite.leaves``): the held keys, then one
        ``(key, kind, keys)`` per inner container."""
        keys = (*self.keys, *(entry.spec() for entry in self.inner))
        if isinstance(self.param, str):
            return (self.param, self.kind.value, keys)
        return (self.param.name, self.param.position, self.kind.value, keys)


@dataclass(frozen=True)
class Use:
    """One transform applied to one function of the module."""

    kind: UseKind
    #: The decorator expression, or the whole call at a call site.
    node: ast.expr
    transform: Transform
    target: Function
    signature: Signature
    leaves: tuple[Leaf, ...]
    #: What the user wrote, outermost alias and ``partial`` keywords first, positional arguments
    #: as the keywords they bind.
    written: tuple[ast.keyword, ...]
    #: The arguments written at this very node (a call site's own, a decorator call's own).
    local: tuple[ast.keyword, ...]
    #: The complete keywords to write (keyword, value, the user's node when it already says
    #: exactly that), or None when nothing is static for this use.
    values: Values | None
    #: A decorator factory's result: takes only the function, so nothing can be added to it.
    factory: bool = False

    @property
    def needs_edit(self) -> bool:
        return bool(self.leaves) or needs_edit(self.values)


@dataclass(frozen=True)
class Registration:
    """One class registered as a pytree (``register_dataclass``), its fields as in ``Use``:
    ``values`` are the complete ``data_fields``/``meta_fields``, or None when they need no edit."""

    kind: UseKind
    node: ast.expr
    target: ast.ClassDef
    local: tuple[ast.keyword, ...]
    values: Values | None

    @property
    def needs_edit(self) -> bool:
        return self.values is not None


def needs_edit(values: Values | None) -> bool:
    """Is any keyword value not already written exactly so by the user?"""
    return values is not None and any(node is None for _, _, node in values)


class EntryKind(enum.Enum):
    PARAMETER = "parameter"
    FIELD = "field"
    ALIAS = "alias"
    #: A variable's or a return value's annotation: Python keeps it, nothing reads it.
    VARIABLE = "variable"
    #: A name imported from a module the engine does not follow, in a marker position.
    IMPORTED = "imported"


class State(enum.Enum):
    APPLIED = "applied"
    REFUSED = "refused"
    REPORTED = "reported"


@dataclass(frozen=True)
class LedgerEntry:
    kind: EntryKind
    #: The parameter (``f.n``), field (``Cfg.n``), alias or imported name.
    name: str
    line: int
    col: int
    state: State
    #: The code of the refusal or finding that accounts for it; None when applied.
    code: str | None = None


@dataclass
class Analysis:
    source: Source
    header: Header
    uses: list[Use] = field(default_factory=list)
    registrations: list[Registration] = field(default_factory=list)
    #: Static fields of Equinox Modules and flax.struct dataclasses (``engine.read.fields``).
    fields: list[FieldUse] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: (def, parameter name) of every JR006 finding: what ``check --fix`` makes static.
    must_be_static: list[tuple[Function, str]] = field(default_factory=list)
    #: Every marker of the module and what became of it (``engine.findings.ledger``): filled by the
    #: lint analysis (``check``, ``show``), empty for the import hook's.
    ledger: tuple[LedgerEntry, ...] = ()
    #: ids of the wrappers between a transform with a written spec and its def that are known
    #: to hand on the def's signature (``wrappers.keeps_signature``): migrate reads through them.
    keeps_signature: set[int] = field(default_factory=set)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]

    def edited(self) -> list[Use | Registration]:
        """The uses, then the registrations, that the rewrite changes."""
        changes: list[Use | Registration] = [*self.uses, *self.registrations]
        return [use for use in changes if use.needs_edit]

    def first_edit(self) -> Use | Registration | None:
        """The first use (by position) the rewrite would change: what un-rewritten code loses."""
        edited = self.edited()
        return min(edited, key=lambda use: (use.node.lineno, use.node.col_offset), default=None)
