"""The ledger: every Static/NoDiff marker of a module (and each name imported into a marker
position) ends in exactly one state: **applied** (a use or registration reads it), **refused** (a
RewriteError at it or at a use of its def or class) or **reported** (a finding at it, else JR008 or
JR009 here). By identity, never by line: a finding speaks for the markers of the def header, class
or statement it was raised in (``Diagnostic.about``)."""

from __future__ import annotations

import ast
import dataclasses
import functools
from typing import TYPE_CHECKING, Any

from jaxrewrite.engine.analysis import Analysis, EntryKind, LedgerEntry, State
from jaxrewrite.engine.findings.checks import (
    imported_marker,
    missing_pragma,
    unknown_directive,
    unknown_transform,
    unseen_level,
)
from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.read.classes import functional_entries
from jaxrewrite.engine.read.fields import field_function, form_of
from jaxrewrite.engine.read.markers import index_of, is_container_call, may_mark
from jaxrewrite.engine.read.nodes import blocks, own_expressions
from jaxrewrite.engine.read.othermodules import (
    Exports,
    Memo,
    Origins,
    attributes,
    found_name,
    origins,
    positions,
    reaches,
    verdict,
)
from jaxrewrite.engine.read.recognise import classify
from jaxrewrite.engine.read.resolve import parse_string, qualname
from jaxrewrite.engine.read.scopes import Defined, DefinedClass, Scope, ScopeTree
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import Rule
from jaxrewrite.engine.rulebook.table import EITHER_FORM, Mark
from jaxrewrite.errors import RewriteError

if TYPE_CHECKING:
    from jaxrewrite.engine.walk.walker import Walked

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclasses.dataclass
class _Site:
    kind: EntryKind
    name: str
    node: ast.AST
    #: The def of a parameter, the class of a field: what errors at its uses refuse.
    owner: ast.AST | None
    #: The ids of the alias values the annotation reads through (an alias ends as its uses end).
    aliases: set[int]
    marks: frozenset[Mark]
    #: JR009's variant and fields.
    said: tuple[str, dict[str, str]] | None = None
    #: A PARAMETER whose marks the signature reader found (the aliases it read through: not
    #: asked for unless an alias entry needs them, ``build``).
    outermost: bool = False


class _Collector:
    def __init__(self, ctx: Context) -> None:
        scopes, walk = ctx.scopes, ctx.walk
        self.def_scopes = {id(func): scope for func, scope in scopes.defs}
        self.class_scopes = {id(d.node): d.body for d, _ in scopes.classes}
        self.walk = walk
        self.sites: list[_Site] = []
        #: Whether names imported from other modules are asked for (JR009; not by the import hook).
        self.imports = not ctx.at_import
        index = self.index = index_of(scopes)
        # The index, not ``self``: a cycle through the collector would keep the tree alive.
        judge = functools.partial(verdict, lambda e, s: bool(index.mentions(e, s, set())))
        self.exports = None if ctx.at_import or ctx.imports is None else Exports(ctx.imports, judge)
        self.tree = ctx.tree
        self.statements = scopes.statements

    def site(
        self,
        kind: EntryKind,
        name: str,
        node: ast.AST,
        owner: ast.AST | None,
        expr: ast.AST | None,
        scope: Scope,
    ) -> frozenset[Mark]:
        """The markers ``expr`` spells, and an entry at ``node`` where it spells one."""
        aliases: set[int] = set()
        marks = (
            self.index.mentions(expr, scope, aliases)
            if may_mark(expr, self.index.names)
            else frozenset()
        )
        if marks:
            self.sites.append(_Site(kind, name, node, owner, aliases, marks))
        return marks

    def body(
        self, stmts: list[ast.stmt], scope: Scope, in_class: ast.ClassDef | None = None
    ) -> None:
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.function(stmt, self.def_scopes.get(id(stmt), scope).annotating(stmt))
            elif isinstance(stmt, ast.ClassDef):
                self.body(stmt.body, self.class_scopes.get(id(stmt), scope), stmt)
            elif isinstance(stmt, ast.AnnAssign):
                self.annotated(stmt, scope, in_class)
            elif isinstance(stmt, ast.Assign):
                self.assigned(stmt, scope)
            elif type(stmt).__name__ == "TypeAlias":  # ``type X = ...``, from Python 3.12 on
                alias: Any = stmt
                self.site(
                    EntryKind.ALIAS, alias.name.id, stmt, None, alias.value, scope.annotating(stmt)
                )
            else:
                for block, _ in blocks(stmt):
                    self.body(block, scope, in_class)

    def function(self, func: Function, scope: Scope) -> None:
        """``scope``: where its annotations are read (a generic def's type parameters shadow outer
        names); its body is read there too, names there resolving mostly to the module's."""
        args = func.args
        every = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
        for arg in every:
            if arg is None or arg.annotation is None:
                continue
            name = f"{func.name}.{arg.arg}"
            read = self.index.read.get(id(arg.annotation))
            if read:
                site = _Site(EntryKind.PARAMETER, name, arg, func, set(), read, outermost=True)
                self.sites.append(site)
            elif not self.site(EntryKind.PARAMETER, name, arg, func, arg.annotation, scope):
                if self.imports:
                    self.imported(arg, arg.annotation, scope, name, func)
        if func.returns is not None:
            label = f"{func.name} return"
            self.site(EntryKind.VARIABLE, label, func.returns, func, func.returns, scope)
        self.body(func.body, scope)

    def annotated(self, stmt: ast.AnnAssign, scope: Scope, in_class: ast.ClassDef | None) -> None:
        target = stmt.target.id if isinstance(stmt.target, ast.Name) else ast.unparse(stmt.target)
        if qualname(stmt.annotation, scope) in ("typing.TypeAlias", "typing_extensions.TypeAlias"):
            self.site(EntryKind.ALIAS, target, stmt, None, stmt.value, scope)
        elif in_class is not None and isinstance(stmt.target, ast.Name):
            name = f"{in_class.name}.{target}"
            self.site(EntryKind.FIELD, name, stmt, in_class, stmt.annotation, scope)
        else:
            self.site(EntryKind.VARIABLE, target, stmt, None, stmt.annotation, scope)
            self.assigned(stmt, scope)

    def assigned(self, stmt: ast.Assign | ast.AnnAssign, scope: Scope) -> None:
        value, targets = stmt.value, stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        name = targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
        if isinstance(value, ast.Call) and is_container_call(value, scope):
            # ``TypedDict("C", {"n": Static[int]})``, ``NamedTuple("C", [("n", Static[int])])``
            for key, item, where in functional_entries(value):
                label = key if isinstance(key, str) else ast.unparse(key).strip(chr(39) + chr(34))
                self.site(EntryKind.FIELD, f"{name or '?'}.{label}", where, value, item, scope)
        elif name is not None and value is not None:
            self.site(EntryKind.ALIAS, name, stmt, None, value, scope)

    @functools.cached_property
    def origins(self) -> Origins:
        return origins(self.tree)

    @functools.cached_property
    def called(self) -> set[str]:
        """The names a call of a transform of the table is handed first."""
        return {
            call.args[0].id
            for _, _, stmt, scope, _ in self.statements
            for expr in own_expressions(stmt)
            for call in ast.walk(expr)
            if isinstance(call, ast.Call)
            and call.args
            and isinstance(call.args[0], ast.Name)
            and classify(call.func, scope) is not None
        }

    def transformed(self, func: Function) -> bool:
        """A transform of the table is applied to ``func`` (the walk's record, or where the walk
        stopped early, a decorator or a call naming it)."""
        if id(func) in self.walk.applied:
            return True
        found = self.def_scopes.get(id(func))
        decorated = found is not None and any(
            classify(d, found) is not None for d in func.decorator_list
        )
        return decorated or func.name in self.called

    def imported(
        self, arg: ast.arg, ann: ast.expr, scope: Scope, label: str, func: Function
    ) -> None:
        """A parameter of a transformed def annotated with a name imported from another module
        (``X``, ``al.Steps``): followed through the reader where it can be. The names first:
        whether ``func`` is transformed may cost a walk of the module."""
        names = []
        memo: Memo = {}
        for spelled, at in positions(ann, scope):
            base, path = attributes(spelled)
            if base is None:
                continue
            # One import on every path, bound to it (not a call's result): JR009 says only what
            # is certain.
            found = reaches(base, scope, None, self.origins, memo, peeled=False)
            reach = found[0] if len(found) == 1 else None
            named = found_name(reach, path)
            if reach is not None and named is not None:
                names.append((named, at, ast.unparse(spelled), reach[3]))
        if not names or not self.transformed(func):
            return
        for named, at, shown, written in names:
            there = None if self.exports is None else self.exports.find(*named)
            if there is not None and there[2] == "":
                continue  # read, and not a marker
            fields = {"name": shown, "param": arg.arg, "imported": written}
            said = ("", fields)
            if there is not None:
                module, level, what = there
                kind = "classes" if what.startswith("a class") else "aliases"
                found_at = {"verdict": what, "what": kind, "module": "." * level + module}
                said = ("read", {**fields, **found_at})
            self.sites.append(
                _Site(EntryKind.IMPORTED, f"{label} ({shown})", at, func, set(), frozenset(), said)
            )


def _region(node: ast.AST) -> set[int]:
    """The ids of the nodes whose findings speak for a site's markers: a def's header, not its
    body; any other site whole."""
    parts: list[ast.AST] = [node]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        parts = [*node.decorator_list, node.args, *getattr(node, "type_params", [])]
        parts += [node.returns] if node.returns else []
    return {id(node)} | {id(n) for part in parts for n in ast.walk(part)}


def _about(findings: list[Diagnostic], region: set[int]) -> Diagnostic | None:
    """The first of ``findings`` raised at a node of ``region``."""
    return next((d for d in findings if d.about in region), None)


def build(ctx: Context, nothing: Rule) -> None:
    """Fill ``result.ledger``, adding JR008/JR009 findings for what nothing else accounts for (at
    import, no entry for names imported from other modules: JR009 is ``check``'s). ``nothing``:
    JR008's record, handed by its rule (``checks/marker_does_nothing.py``)."""
    result, scopes, walk, src = ctx.result, ctx.scopes, ctx.walk, ctx.src
    collector = _Collector(ctx)
    collector.body(ctx.tree.body, scopes.module)
    if any(site.kind is EntryKind.ALIAS for site in collector.sites):
        for site in (site for site in collector.sites if site.outermost):
            scope = collector.def_scopes.get(id(site.owner), scopes.module)
            annotation = site.node.annotation  # type: ignore[attr-defined]
            collector.index.mentions(annotation, scope, site.aliases)
    diagnostics = list(result.diagnostics)
    pragma = next((d for d in diagnostics if d.code == missing_pragma.RULE.code), None)
    errors = [d for d in diagnostics if d.is_error]
    # The refusals, and the other findings but JR005's (about the header, no marker).
    findings = [d for d in diagnostics if not d.is_error and d.code != unknown_directive.RULE.code]
    applied, formed = _applied(result, walk, collector.def_scopes), _field_form_fields(scopes)
    refused = {**walk.refused_defs, **_refused_by_calls(walk, scopes, errors)}

    def settle(site: _Site) -> tuple[State, str | None]:
        node, owner, kind = site.node, site.owner, site.kind
        if id(node) in applied and kind in (EntryKind.PARAMETER, EntryKind.FIELD):
            return (State.APPLIED, None) if pragma is None else (State.REPORTED, pragma.code)
        region = _region(node if owner is None else owner)
        error = _about(errors, region)
        if error is not None:
            return State.REFUSED, error.code
        if id(owner) in refused:
            return State.REFUSED, refused[id(owner)]
        if pragma is not None and kind is not EntryKind.ALIAS:
            return State.REPORTED, pragma.code
        if id(node) in formed and Mark.STATIC in site.marks:
            return State.APPLIED, None
        finding = _about(findings, region)
        if finding is None and owner is not None:
            if any(func is owner for _, func in walk.unseen):
                return State.REPORTED, unseen_level.RULE.code
            if id(owner) in walk.unknown_calls and id(owner) not in walk.applied:
                return State.REPORTED, unknown_transform.RULE.code
        if finding is not None and kind is not EntryKind.IMPORTED:
            return State.REPORTED, finding.code
        if kind is EntryKind.ALIAS:
            return State.REPORTED, nothing.code  # settled by its uses, or reported, below
        rule = imported_marker.RULE if kind is EntryKind.IMPORTED else nothing
        variant, fields = site.said or _said(site, walk, result)
        result.diagnostics.append(Diagnostic.at(src, node, rule, variant, **fields))
        return State.REPORTED, rule.code

    def ledgered(site: _Site) -> LedgerEntry:
        line, col = getattr(site.node, "lineno", 1), getattr(site.node, "col_offset", 0) + 1
        return LedgerEntry(site.kind, site.name, line, col, *settle(site))

    entries = [(site, ledgered(site)) for site in collector.sites]
    # Aliases end as their uses end: applied if one use is, else refused, else reported.
    settled: list[LedgerEntry] = []
    for site, entry in entries:
        if (
            site.kind is EntryKind.ALIAS
            and entry.state is State.REPORTED
            and entry.code == nothing.code
        ):
            # An alias's node is its statement: the value its users read through is its value.
            value = id(site.node.value)  # type: ignore[attr-defined]
            users = [e for s, e in entries if value in s.aliases and s is not site]
            best = next((u for state in State for u in users if u.state is state), None)
            if best is not None:
                entry = dataclasses.replace(entry, state=best.state, code=best.code)
            else:
                found = Diagnostic.at(src, site.node, nothing, "alias", what=site.name)
                result.diagnostics.append(found)
        settled.append(entry)
    result.ledger = tuple(settled)
    result.diagnostics.sort(key=lambda d: (d.line, d.col))


def _applied(result: Analysis, walk: Walked, where: dict[int, Scope]) -> set[int]:
    """Nodes of the parameters and fields some use, registration or field edit reads."""
    applied = {id(used.stmt) for used in result.fields}
    for use in result.uses:
        read = [p for p in use.signature.params if p.markers & use.transform.markers]
        applied.update(id(p.node) for p in read)
        # The walk's own record of the fields it split, by node: however the class was named.
        applied.update(id(node) for leaf in use.leaves for node in leaf.applied())
        # A def bound twice (``if``/``else`` twins, ``@overload`` stubs) is one function to Python,
        # and so is each def the walk found the use's argument may be (``twins``).
        names = {p.name for p in read}
        scope = where.get(id(use.target))
        bound = [
            b.node
            for b in (scope.bindings.get(use.target.name, []) if scope else [])
            if isinstance(b, Defined)
        ]
        for twin in [*bound, *walk.twins.get(id(use.target), ())]:
            args = [*twin.args.posonlyargs, *twin.args.args, *twin.args.kwonlyargs]
            applied.update(id(arg) for arg in args if arg.arg in names)
    for reg in result.registrations:
        info = walk.class_info.get(id(reg.target))
        applied.update(
            id(f.node)
            for f in (info.fields if info is not None else ())
            if Mark.STATIC in f.markers
        )
    return applied


def _named(expr: ast.AST | None, scope: Scope) -> set[int]:
    """The ids of the defs and classes the bare names in ``expr`` (strings too) are bound to: what
    a refusal there speaks for."""
    found: set[int] = set()
    for node in ast.walk(expr) if expr is not None else ():
        if isinstance(node, ast.Name):
            bound = scope.lookup(node.id)
            for binding in bound[0] if bound is not None else ():
                if isinstance(binding, (Defined, DefinedClass)):
                    found.add(id(binding.node))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            parsed = parse_string(node.value)
            if parsed is not None and not isinstance(parsed, ast.Constant):
                found |= _named(parsed, scope)
    return found


def _refused_by_calls(walk: Walked, scopes: ScopeTree, errors: list[Diagnostic]) -> dict[int, str]:
    """By id, with the refusal's code: the defs and classes a refused call site names, and the
    classes annotating the parameters of such a def or of one refused at its header."""
    found: dict[int, str] = {}
    defs = {id(func): (func, scope) for func, scope in scopes.defs}

    def annotating(func: Function, scope: Scope, code: str) -> None:
        for arg in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]:
            for key in _named(arg.annotation, scope.annotating(func)):
                found.setdefault(key, code)

    for func, scope in scopes.defs if errors else ():
        error = _about(errors, _region(func))
        if error is not None:
            annotating(func, scope, error.code)
    for call, scope, code in walk.refused_calls:
        for key in _named(call, scope):
            found.setdefault(key, code)
            if key in defs:
                annotating(*defs[key], code)
    return found


def _field_form_fields(scopes: ScopeTree) -> set[int]:
    """Fields a Static marker of is applied in place: every field of an Equinox Module or
    flax.struct dataclass (anything else is refused, JR130/JR131), and a field already
    ``jaxrewrite.field(...)`` of a class whose base is in another module (guide §14)."""
    found: set[int] = set()
    for defined, scope in scopes.classes:
        try:
            form, unseen = form_of(defined, scope)
        except RewriteError:
            continue
        found.update(
            id(stmt)
            for stmt in defined.node.body
            if isinstance(stmt, ast.AnnAssign)
            and (
                form is not None
                or unseen is not None
                and isinstance(stmt.value, ast.Call)
                and field_function(stmt.value.func, defined.body) == EITHER_FORM.field
            )
        )
    return found


def _said(site: _Site, walk: Walked, result: Analysis) -> tuple[str, dict[str, str]]:
    """Why the marker does nothing: JR008's variant and its fields."""
    if site.kind is EntryKind.VARIABLE:  # a return annotation's has its def as owner
        return ("returned", {}) if site.owner else ("variable", {"what": site.name})
    fields = {
        "spelled": " and ".join(sorted(m.value for m in site.marks)) or "a marker",
        "what": site.name,
    }
    if site.kind is EntryKind.FIELD:
        return "field", fields
    if site.kind is EntryKind.PARAMETER and not site.outermost:
        return "spelling", fields
    owner = site.owner
    if owner is not None and id(owner) in walk.applied:
        under = (
            ", ".join(sorted({u.transform.name for u in result.uses if u.target is owner}))
            or "the transforms applied to it"
        )
        return "under", {**fields, "under": under}
    return "", fields
