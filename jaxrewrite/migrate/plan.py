"""Planning: per function, read every spec on it, choose the markers, check that every transform
use of it means the same afterwards, or refuse it with a reason; pure. And what a migration gives
back: the text, what was migrated, and the refusals (findings with their reason's code).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field

from jaxrewrite.engine.analysis import Analysis, Function, Use, UseKind
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.read.handwritten import BY_KEYWORD, Meaning, Reason, Refused, spell
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import RULES
from jaxrewrite.engine.rulebook.table import Mark, SpecKind
from jaxrewrite.engine.walk import specs
from jaxrewrite.engine.walk.specs import (
    donation_clash,
    has_spec,
    meaning_of_statics,
    meaning_of_values,
    static_params,
)
from jaxrewrite.errors import RewriteError
from jaxrewrite.migrate.edits import annotate, removals, use_edits
from jaxrewrite.migrate.imports import header_edits

#: One line per reason, for summaries (``jaxrewrite migrate`` prints the counts with these): the
#: text of each reason's code in the one table of codes.
REASONS: dict[Reason, str] = {reason: RULES[reason.rule.code].summary for reason in Reason}


@dataclass(frozen=True)
class UseRecord:
    """One transform use of a migrated function: where it is, and what its spec meant to JAX."""

    transform: str
    kind: str  # "decorator" or "call"
    #: Where the use's expression starts and ends in the original text (AST lines and columns).
    line: int
    col: int
    end_line: int
    end_col: int
    #: The line the use starts on in the migrated text.
    new_line: int
    #: Each static keyword of the transform and the positions or names it gave, JAX's reading.
    spec: tuple[tuple[str, tuple[int | str, ...]], ...]
    #: Whether the user wrote the spec here (False: a use without one, which must stay without).
    written: bool


@dataclass(frozen=True)
class Migrated:
    """A function whose hand-written specs became annotations."""

    function: str
    line: int
    new_line: int
    #: (parameter, marker) for every annotation added.
    params: tuple[tuple[str, str], ...]
    uses: tuple[UseRecord, ...]


@dataclass(frozen=True)
class Refusal:
    """A function left as written (``function`` None: no def, or the module)."""

    reason: Reason
    message: str
    line: int
    function: str | None = None

    @property
    def text(self) -> str:
        """``refused f: why [reason]``: the finding's message."""
        what = f"refused {self.function}" if self.function is not None else "refused"
        return f"{what}: {self.message} [{self.reason.value}]"

    def diagnostic(self, filename: str) -> Diagnostic:
        """The refusal as a finding of ``filename`` (column 1: a refusal is about a whole line)."""
        return Diagnostic(self.reason.rule.code, self.text, filename, self.line, 1)


@dataclass
class Migration:
    """A module's migration: the text, what was migrated, and every refusal."""

    original: str
    text: str
    migrated: list[Migrated]
    refused: list[Refusal]
    #: (start, end, text) of each edit that made ``text`` from ``original``: what a diff compares.
    changes: list[tuple[int, int, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.text != self.original


@dataclass
class PlannedFunction:
    """One function to migrate: its uses, the markers to add, and what each use meant before."""

    func: Function
    uses: list[Use]
    #: Parameter name -> the marker to add.
    marks: dict[str, Mark]
    #: id(use) -> its meaning before (a JAX reading, or the engine's keywords where it already
    #: rewrote).
    before: dict[int, Meaning]


@dataclass
class Plan:
    """What ``plan_migration`` decided: the edits, and per function migrated or refused."""

    edits: list[splice.Edit]
    planned: list[PlannedFunction]
    refused: list[Refusal]
    #: The marker spelling per mark used in the edits.
    spelling: dict[Mark, str]


def _below(use: Use, func: Function, nodes: set[int]) -> list[ast.expr]:
    """Decorators applied before this use that may hide the def's signature (``nodes``:
    transforms and known keepers, which hand it on)."""
    if use.kind is UseKind.CALL:
        assert isinstance(use.node, ast.Call)
        first = use.node.args[0]
        while isinstance(first, ast.Call) and id(first) in nodes and first.args:
            first = first.args[0]  # ``jax.jit(jax.vmap(f), ...)``: a transform or keeper between
        return [] if isinstance(first, ast.Name) else [first]
    index = next(i for i, deco in enumerate(func.decorator_list) if deco is use.node)
    return [deco for deco in func.decorator_list[index + 1 :] if id(deco) not in nodes]


def _plan_function(
    func: Function, uses: list[Use], enabled: bool, src: Source, keeps: set[int]
) -> PlannedFunction:
    """Read every spec on one def, choose the markers, check every use agrees."""
    sig = uses[0].signature
    assert sig is not None
    candidates = [use for use in uses if has_spec(use)]
    transform_nodes = {id(use.node) for use in uses} | keeps
    before: dict[int, Meaning] = {}
    statics: dict[str, Mark] = {}
    if any(use.leaves for use in uses):
        raise Reason.DISAGREE.refused("leaves", func=func.name)
    for use in candidates:
        t = use.transform
        removals(use, src)
        reading = specs.read(use, sig, src)
        meaning = reading.meaning
        if enabled and use.values is not None:
            meaning = meaning_of_values(t, use.values)  # what the hook compiles today
        if reading.inferred:
            hidden = _below(use, func, transform_nodes)
            if hidden:
                raise Reason.HIDDEN_SIGNATURE.refused(
                    transform=t.name, hidden=ast.unparse(hidden[0]), keyword=t.argnums
                )
        params = static_params(t, meaning, sig)
        for p in params:
            by_position = p.position is None or p.position in meaning.get(t.argnums, ())
            by_name = (
                t.argnames is None
                or p.kind not in BY_KEYWORD
                or p.name in meaning.get(t.argnames, ())
            )
            if not (by_position and by_name):
                how = "position" if by_position else "keyword"
                missing = t.argnames if by_position else t.argnums
                raise Reason.ONE_WAY.refused(name=p.name, how=how, missing=missing)
        keywords = {kw.arg: kw.value for kw in use.written if kw.arg is not None}
        try:
            clash = donation_clash(t, params, keywords, src)
        except RewriteError as err:  # a donate keyword that is not a literal int/str list
            raise Refused(Reason.NON_LITERAL, err.msg) from None
        if clash is not None:
            raise Reason.DONATED.refused(
                "migrate", name=clash[0].name, transform=t.name, remedy=clash[1]
            )
        mark = Mark.NODIFF if Mark.NODIFF in t.markers else Mark.STATIC
        for p in params:
            if statics.get(p.name) is not Mark.STATIC:
                statics[p.name] = mark
        before[id(use)] = meaning
    # Only where the annotation does not say it already (Static counts for NoDiff: custom_vjp
    # reads both).
    held = {p.name: p.markers for p in sig.params}
    marks = {
        name: mark
        for name, mark in statics.items()
        if mark not in held[name] and not (mark is Mark.NODIFF and Mark.STATIC in held[name])
    }
    planned = PlannedFunction(func, uses, marks, before)
    for use in uses:
        _check_agreement(use, planned, enabled, src)
    return planned


def _check_agreement(use: Use, planned: PlannedFunction, enabled: bool, src: Source) -> None:
    """Every transform use of the function must mean after the migration what it meant before
    (filling in ``planned.before`` for a use written without a spec)."""
    sig, marks, before = planned.uses[0].signature, planned.marks, planned.before
    t = use.transform
    where = (
        f"the {t.name} {'call' if use.kind is UseKind.CALL else 'decorator'} at line "
        f"{use.node.lineno}"
    )
    after_static = [p for p in sig.params if (p.markers | {marks.get(p.name)}) & t.markers]
    if t.spec is SpecKind.AXES:
        was = {p.name for p in sig.params if enabled and p.markers & t.markers}
        new = [p for p in after_static if p.name not in was]
        axes = next((kw.value for kw in reversed(use.written) if kw.arg == t.argnums), None)
        for p in new:
            entry_none = (
                isinstance(axes, (ast.Tuple, ast.List))
                and p.position is not None
                and p.position < len(axes.elts)
                and isinstance(axes.elts[p.position], ast.Constant)
                and axes.elts[p.position].value is None  # type: ignore[attr-defined]
            )
            if not entry_none:
                raise Reason.DISAGREE.refused("axes", where=where, name=p.name)
        return
    if t.spec is not SpecKind.LISTS:
        # A transform that writes nothing for markers (grad's argnums lists what it differentiates):
        # its meaning cannot change; a conflict with a marker is an engine error the round trip
        # reports.
        return
    if any(kw.arg is None for kw in use.written):
        unpacked = next(kw for kw in use.written if kw.arg is None)
        raise Reason.UNPACKED.refused(
            "migrate_use", where=where, mapping=ast.unparse(unpacked.value)
        )
    if id(use) not in before:
        if enabled and use.values is not None:
            before[id(use)] = meaning_of_values(t, use.values)
        else:
            try:
                before[id(use)] = specs.read(use, sig, src).meaning
            except Refused as why:
                raise Reason.DISAGREE.refused("unread", where=where, why=why.message) from None
    for p in after_static:
        if t.argnames is None and p.position is None:
            raise Reason.DISAGREE.refused("keyword", where=where, name=p.name, why=t.positions_only)
    after = meaning_of_statics(t, after_static)
    was_meaning = {k: v for k, v in before[id(use)].items() if v}
    if was_meaning != {k: v for k, v in after.items() if v}:
        raise Reason.DISAGREE.refused(where=where, was=spell(before[id(use)]), now=spell(after))


def plan_migration(analysis: Analysis, excluded: Mapping[int, Refusal], tree: ast.Module) -> Plan:
    """Per function, migrate or refuse (``excluded``: refused by a round trip); pure."""
    src = analysis.source
    enabled = analysis.header.enabled
    planned: list[PlannedFunction] = []
    refused: list[Refusal] = []
    by_def: dict[int, list[Use]] = {}
    for use in analysis.uses:
        if use.signature is not None and not isinstance(use.target, ast.ClassDef):
            by_def.setdefault(id(use.target), []).append(use)
    for uses in by_def.values():
        func = uses[0].target
        assert not isinstance(func, ast.ClassDef)
        if not any(has_spec(use) for use in uses):
            continue
        if id(func) in excluded:
            refused.append(excluded[id(func)])
            continue
        try:
            planned.append(_plan_function(func, uses, enabled, src, analysis.keeps_signature))
        except Refused as why:
            refused.append(Refusal(why.reason, why.message, func.lineno, func.name))
    if not planned:
        return Plan([], [], refused, {})
    try:
        module_edits, spelling = header_edits(
            analysis,
            tree,
            {mark for p in planned for mark in p.marks.values()},
            {id(use) for p in planned for use in p.uses},
        )
    except Refused as why:
        refused += [Refusal(why.reason, why.message, p.func.lineno, p.func.name) for p in planned]
        return Plan([], [], refused, {})
    edits = module_edits  # then per function: its written specs removed, its markers added
    for p in planned:
        edits += [edit for use in p.uses if has_spec(use) for edit in use_edits(use, src)]
        for param in p.uses[0].signature.params:
            if param.name in p.marks:
                edits += annotate(param, p.func, spelling[p.marks[param.name]], src)
    return Plan(edits, planned, refused, spelling)
