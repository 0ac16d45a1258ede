"""The ledger: every Static/NoDiff marker of a module, and what became of it.

Never silent, by construction. Every marker occurrence the source holds (a parameter's
annotation, a class field, a type alias, a variable annotation, a name imported from a module
the engine cannot follow) is one entry, and after the analysis each entry is in exactly one
state: **applied** (a use or registration of the analysis reads it), **refused** (a RewriteError
at it, or at a use of its def or class), or **reported** (a finding at it). An entry that is
neither applied nor refused nor covered by an existing finding gets one here (JR008, JR009), so
a marker can do nothing only with a word at its line. Pure: it reads the Analysis, the live
scopes and the walker's facts, and adds findings.
"""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jaxrewrite.engine.analysis import Analysis, EntryKind, LedgerEntry, State, TreePass
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.read.elided import ELIDED, body_line
from jaxrewrite.engine.read.elsewhere import Elsewhere, ImportReader
from jaxrewrite.engine.read.fields import field_function, form_of
from jaxrewrite.engine.read.filters import marker_names
from jaxrewrite.engine.read.recognise import classify
from jaxrewrite.engine.read.resolve import (
    MAX_DEPTH,
    alias_of,
    marked,
    marker_name,
    parse_string,
    qualname,
)
from jaxrewrite.engine.read.scopes import (
    Assigned,
    Scope,
    ScopeTree,
    own_expressions,
)
from jaxrewrite.engine.read.signature import may_mark
from jaxrewrite.engine.read.source import Source, lines_containing
from jaxrewrite.engine.rulebook.table import CONTAINERS, EITHER_FORM, Mark
from jaxrewrite.errors import RewriteError

if TYPE_CHECKING:
    from jaxrewrite.engine.analyze import Analyzer

Function = ast.FunctionDef | ast.AsyncFunctionDef



@dataclass
class Facts:
    """What the walk knows beyond the Analysis value (``walker.Walker``'s state)."""

    #: Defs a transform of the table is applied to.
    applied_defs: set[int]
    #: (call, def) of every JR007 finding.
    unseen: list[tuple[ast.Call, Function]]
    #: Call sites whose analysis raised a RewriteError, with its code.
    refused_calls: list[tuple[ast.Call, str]]
    #: (id of a class or functional-class call) -> (its name, its fields as (name, markers, node)).
    class_fields: dict[int, tuple[str, list[tuple[str, frozenset[Mark], ast.AST]]]] = field(default_factory=dict)
    #: (id of a parameter's node) -> the markers the signature reader found on it.
    read_marks: dict[int, frozenset[Mark]] = field(default_factory=dict)
    #: Marked defs passed to a call that looks like a transform the table lacks (JR004 there).
    unknown_calls: dict[int, ast.expr] = field(default_factory=dict)
    #: (id of a def) -> the names of the transforms its uses apply.
    transforms: dict[int, set[str]] = field(default_factory=dict)
    #: (id of a marked def) -> the code of a refused use of it that cannot tell what is applied,
    #: or to what (JR104, JR127 at a call site whose argument is read past the depth).
    refused_defs: dict[int, str] = field(default_factory=dict)
    #: (id of a use's def) -> the other defs that use may apply to (``walker.Walker.twins``).
    twins: dict[int, list[Function]] = field(default_factory=dict)


@dataclass
class _Site:
    kind: EntryKind
    name: str
    node: ast.AST
    #: The def of a parameter, the class of a field: what errors at its uses refuse.
    owner: ast.AST | None
    #: Alias names the annotation reaches (so an alias ends as its uses end).
    aliases: set[str]
    #: The markers the annotation spells, as written (``Static[T]``, ``STATIC`` in metadata...).
    marks: frozenset[Mark]
    reason: str = ""
    #: For an IMPORTED entry, the reason it is one (the imported name as written).
    imported_from: str = ""


# -- finding the markers of one expression --------------------------------------------------------


class Reading:
    """What ``_mentions`` keeps for one module: each alias's markers and the marker aliases it
    reads through, each alias read once. Aliases that read each other round a loop are one
    strongly connected component (Tarjan's stack and low links), and all of them get what its
    first-read alias found, once the loop is closed: linear in the aliases, loops included."""

    def __init__(self) -> None:
        self.memo: dict[int, tuple[frozenset[Mark], frozenset[str]]] = {}
        #: The aliases on the stack, by their place on it: being read, or read but in a loop
        #: whose first alias is still being read.
        self.index: dict[int, int] = {}
        self.stack: list[tuple[int, str]] = []
        #: The lowest place on the stack the alias being read reaches round a loop.
        self.low = 0


def _mentions(
    expr: ast.AST | None, scope: Scope, aliases: set[str], depth: int = 0, reading: Reading | None = None
) -> frozenset[Mark]:
    """Every marker ``expr`` spells anywhere inside it, through module aliases and strings; not
    inside ``Callable[...]``, whose markers describe another function's parameters.

    ``depth`` bounds the nesting read within one expression; an alias's value is an expression
    of its own, read from depth 0 and once per module (``reading``), so a chain of aliases of
    any length is read (a marker the rewriter refuses past its own depth, JR127, is in the
    ledger as refused) and a loop of them ends.
    """
    if expr is None or depth > MAX_DEPTH:
        return frozenset()
    reading = Reading() if reading is None else reading
    if isinstance(expr, ast.Constant):
        if isinstance(expr.value, str) and depth < 8:
            parsed = parse_string(expr.value)
            if parsed is not None and not isinstance(parsed, ast.Constant):
                return _mentions(parsed, scope, aliases, depth + 1, reading)
        return frozenset()
    if isinstance(expr, ast.Subscript) and qualname(expr.value, scope) in _CALLABLE:
        return frozenset()
    if isinstance(expr, (ast.Name, ast.Attribute)):
        name = marker_name(qualname(expr, scope))
        if name is not None:
            return frozenset({Mark.NODIFF if name in ("NoDiff", "NODIFF") else Mark.STATIC})
        if isinstance(expr, ast.Name):
            outer = marked(expr, scope)
            if outer is not None:
                return outer.markers
            alias = alias_of(expr, scope)
            if alias is None or alias.value is None or _is_container_call(alias.value, alias.scope):
                return frozenset()
            inner, names = _alias(alias, expr.id, reading)
            aliases |= names
            if inner:
                aliases.add(expr.id)
            return inner
    marks: set[Mark] = set()
    for child in ast.iter_child_nodes(expr):
        marks |= _mentions(child, scope, aliases, depth + 1, reading)
    return frozenset(marks)


def _alias(alias: Assigned, name: str, reading: Reading) -> tuple[frozenset[Mark], frozenset[str]]:
    """The markers an alias's value spells and the marker aliases it reads through."""
    key = id(alias)
    if key in reading.memo:
        return reading.memo[key]
    if key in reading.index:  # round a loop: what it holds joins the loop's first alias
        reading.low = min(reading.low, reading.index[key])
        return frozenset(), frozenset()
    place = len(reading.stack)
    reading.index[key] = place
    reading.stack.append((key, name))
    outer, reading.low = reading.low, place
    found: set[str] = set()
    marks = _mentions(alias.value, alias.scope, found, 0, reading)
    low, reading.low = reading.low, min(outer, reading.low)
    result = marks, frozenset(found)
    if low == place:  # the first alias of its loop (or in none): the loop is closed
        members = reading.stack[place:]
        del reading.stack[place:]
        if len(members) > 1 and marks:  # each reads the others by name
            result = marks, result[1] | {member for _, member in members}
        for member, _ in members:
            del reading.index[member]
            reading.memo[member] = result
    return result


_CALLABLE = frozenset({"typing.Callable", "collections.abc.Callable"})


def _is_container_call(value: ast.expr, scope: Scope) -> bool:
    return isinstance(value, ast.Call) and qualname(value.func, scope) in CONTAINERS


# -- collecting the sites -----------------------------------------------------------------------


class _Collector:
    def __init__(
        self, scopes: ScopeTree, facts: Facts, reader: ImportReader | None, src: Source, imports: bool = True
    ) -> None:
        self.def_scopes = {id(func): scope for func, scope in scopes.defs}
        self.class_scopes = {id(d.node): d.body for d, _ in scopes.classes}
        self.facts = facts
        self.src = src
        self.sites: list[_Site] = []
        #: Whether names imported from other modules are asked for (JR009; not by the import hook).
        self.imports = imports
        self.elsewhere = Elsewhere(reader, lambda expr, scope: bool(_mentions(expr, scope, set())))
        self.statements = scopes.statements
        self._called: set[str] | None = None
        self.reading = Reading()
        #: The prefilter's names (filters.marker_names): an expression naming none of them
        #: spells no marker, so the ledger reads only those that do (the hook's cold path runs it).
        self.names = marker_names(scopes)
        #: The lines that hold one of them (a text search: a superset).
        self.lines = lines_containing(src.text, src.line_starts, self.names)

    def may(self, first: int, last: int) -> bool:
        """Whether any of lines ``first`` to ``last`` holds a name that may spell a marker."""
        at = bisect.bisect_left(self.lines, first)
        return at < len(self.lines) and self.lines[at] <= last

    def mentions(self, expr: ast.AST | None, scope: Scope, aliases: set[str]) -> frozenset[Mark]:
        first = getattr(expr, "lineno", None)
        if first is not None and not self.may(first, getattr(expr, "end_lineno", None) or first):
            return frozenset()
        if not may_mark(expr, self.names):
            return frozenset()
        return _mentions(expr, scope, aliases, reading=self.reading)

    def body(self, stmts: list[ast.stmt], scope: Scope, in_class: ast.ClassDef | None = None) -> None:
        for stmt in stmts:
            self.statement(stmt, scope, in_class)

    def statement(self, stmt: ast.stmt, scope: Scope, in_class: ast.ClassDef | None) -> None:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self.elsewhere.note(stmt)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(stmt, self.def_scopes.get(id(stmt), scope))
        elif isinstance(stmt, ast.ClassDef):
            body = self.class_scopes.get(id(stmt), scope)
            self.body(stmt.body, body, stmt)
        elif isinstance(stmt, ast.AnnAssign):
            self.annotated(stmt, scope, in_class)
        elif isinstance(stmt, ast.Assign):
            self.assigned(stmt, stmt.value, scope)
        elif type(stmt).__name__ == "TypeAlias":  # Python 3.12 ``type X = ...``
            type_alias: Any = stmt  # ast.TypeAlias exists from Python 3.12 on only
            self.alias(stmt, type_alias.name, type_alias.value, scope)
        else:
            for name in ("body", "orelse", "finalbody"):
                block = getattr(stmt, name, None)
                if isinstance(block, list):
                    self.body([s for s in block if isinstance(s, ast.stmt)], scope, in_class)
            for handler in getattr(stmt, "handlers", []):
                self.body(handler.body, scope, in_class)
            for case in getattr(stmt, "cases", []):
                self.body(case.body, scope, in_class)

    def function(self, func: Function, scope: Scope) -> None:
        args = func.args
        every = [*args.posonlyargs, *args.args, *([args.vararg] if args.vararg else []), *args.kwonlyargs]
        every += [args.kwarg] if args.kwarg else []
        if not self.imports and not self.may(func.lineno, body_line(func) - 1):
            every = []  # no marker in the signature, and imported names are not asked for (JR009)
        for arg in every:
            if arg.annotation is None:
                continue
            aliases: set[str] = set()
            # What the signature reader found, read once; the aliases it went through are read
            # again only if the module has an alias entry for them to settle (``build``).
            marks = self.facts.read_marks.get(id(arg)) or self.mentions(arg.annotation, scope, aliases)
            name = f"{func.name}.{arg.arg}"
            if marks:
                self.sites.append(_Site(EntryKind.PARAMETER, name, arg, func, aliases, marks))
            elif self.imports:
                self.imported(arg, arg.annotation, scope, name, func)
        if func.returns is not None:
            aliases = set()
            if self.mentions(func.returns, scope, aliases):
                self.sites.append(
                    _Site(EntryKind.VARIABLE, f"{func.name} return", func.returns, func, aliases, frozenset(),
                          "a marker on a return annotation does nothing: only parameters and pytree class "
                          "fields are read")
                )
        # The body runs in the def's own scope; names there resolve mostly to the module's. An
        # elided body (engine/read/elided.py: no def, class or decorator in it) that names no marker
        # holds nothing the ledger counts: it is left unparsed.
        if isinstance(func, ELIDED) and not self.may(func.__dict__["first"], func.__dict__["last"]):
            return
        self.body(func.body, scope)

    def annotated(self, stmt: ast.AnnAssign, scope: Scope, in_class: ast.ClassDef | None) -> None:
        target = stmt.target.id if isinstance(stmt.target, ast.Name) else ast.unparse(stmt.target)
        aliases: set[str] = set()
        if qualname(stmt.annotation, scope) in ("typing.TypeAlias", "typing_extensions.TypeAlias"):
            self.alias(stmt, target, stmt.value, scope)
            return
        marks = self.mentions(stmt.annotation, scope, aliases)
        if in_class is not None and isinstance(stmt.target, ast.Name):
            if marks:
                self.sites.append(_Site(EntryKind.FIELD, f"{in_class.name}.{target}", stmt, in_class, aliases, marks))
            return
        if marks:
            self.sites.append(
                _Site(EntryKind.VARIABLE, target, stmt, None, aliases, marks,
                      f"a marker on the annotation of variable {target!r} does nothing: only parameters and "
                      "fields of classes are read")
            )
        if stmt.value is not None:
            self.assigned(stmt, stmt.value, scope)

    def assigned(self, stmt: ast.Assign | ast.AnnAssign, value: ast.expr | None, scope: Scope) -> None:
        if value is None:
            return
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        name = targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
        if isinstance(value, ast.Call) and _is_container_call(value, scope):
            self.functional(value, name or "?", scope)
            return
        if name is not None:
            self.alias(stmt, name, value, scope)

    def alias(self, stmt: ast.AST, name: str | ast.expr, value: ast.expr | None, scope: Scope) -> None:
        label = name.id if isinstance(name, ast.Name) else str(name)
        aliases: set[str] = set()
        marks = self.mentions(value, scope, aliases)
        if marks:
            self.sites.append(_Site(EntryKind.ALIAS, label, stmt, None, aliases, marks))

    def functional(self, call: ast.Call, name: str, scope: Scope) -> None:
        """``TypedDict("C", {"n": Static[int]})`` and ``NamedTuple("C", [("n", Static[int])])``."""
        pairs: list[tuple[str, ast.expr, ast.AST]] = []
        spec = call.args[1] if len(call.args) > 1 else None
        if isinstance(spec, ast.Dict):
            pairs += [(ast.unparse(k), v, k) for k, v in zip(spec.keys, spec.values) if k is not None]
        elif isinstance(spec, (ast.List, ast.Tuple)):
            for item in spec.elts:
                if isinstance(item, (ast.Tuple, ast.List)) and len(item.elts) == 2:
                    pairs.append((ast.unparse(item.elts[0]), item.elts[1], item.elts[0]))
        pairs += [(kw.arg, kw.value, kw) for kw in call.keywords if kw.arg is not None and kw.arg != "total"]
        for key, value, where in pairs:
            aliases: set[str] = set()
            marks = self.mentions(value, scope, aliases)
            if marks:
                self.sites.append(_Site(EntryKind.FIELD, f"{name}.{key.strip(chr(39) + chr(34))}", where, call,
                                        aliases, marks))

    # -- imported names -----------------------------------------------------------------------

    def transformed(self, func: Function) -> bool:
        """A transform of the table is applied to ``func`` (the walk's record, or, where the walk
        stopped early for want of markers, a decorator or a call naming it)."""
        if id(func) in self.facts.applied_defs:
            return True
        if self._called is None:
            self._called = set()
            for _, _, stmt, scope, _ in self.statements:
                for expr in own_expressions(stmt):
                    for call in ast.walk(expr):
                        if (
                            isinstance(call, ast.Call)
                            and call.args
                            and isinstance(call.args[0], ast.Name)
                            and classify(call.func, scope) is not None
                        ):
                            self._called.add(call.args[0].id)
        found = self.def_scopes.get(id(func))
        decorated = found is not None and any(classify(d, found) is not None for d in func.decorator_list)
        return decorated or func.name in self._called

    def imported(self, arg: ast.arg, ann: ast.expr, scope: Scope, label: str, func: Function) -> None:
        """A parameter of a transformed def annotated with a name from a module the engine does
        not read (``X`` from ``from m import X``, or ``al.Steps`` of ``from . import aliases as
        al``): followed through the reader where it can be, a finding where it cannot. The names
        first: whether ``func`` is transformed costs a walk of the module, asked only where needed."""
        names = list(self.elsewhere.names(ann, scope))
        if not names or not self.transformed(func):
            return
        for name, at, module, level in names:
            spelled = f"{'.' * level}{module}"
            verdict = self.elsewhere.follow(module, level, name)
            if verdict == "":
                continue  # read, and not a marker
            if verdict is None:
                reason = (
                    f"{name!r} in the annotation of {arg.arg!r} comes from 'from {spelled} import {name}', which "
                    "jaxrewrite does not read, so whether it is a Static/NoDiff alias cannot be told; if it is "
                    "one, it does nothing here: define the alias in this module (or write Static[...] here)"
                )
            else:
                what = "classes" if verdict.startswith("a class") else "aliases"
                reason = (
                    f"{name!r} in the annotation of {arg.arg!r} is {verdict} in {spelled}, but jaxrewrite reads "
                    f"only this module's {what}, so its markers do nothing here: define it in this module "
                    "(or write Static[...] here)"
                )
            self.sites.append(_Site(EntryKind.IMPORTED, f"{label} ({name})", at, func, set(), frozenset(), reason, name))

# -- the states -------------------------------------------------------------------------------


def _span(node: ast.AST) -> tuple[int, int]:
    """The lines whose findings speak for a def's or class's markers: its decorators to the
    line before its body."""
    first = min([getattr(node, "lineno", 1), *(d.lineno for d in getattr(node, "decorator_list", []))])
    if isinstance(node, ast.ClassDef):
        return first, node.end_lineno or node.lineno
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return first, max(node.lineno, body_line(node) - 1)  # an elided body stays unparsed
    body = getattr(node, "body", None)
    if isinstance(body, list) and body:
        return first, max(node.lineno, body[0].lineno - 1)  # type: ignore[attr-defined]
    return first, getattr(node, "end_lineno", None) or first


def ledger_pass(reader: ImportReader | None = None) -> TreePass:
    """The ledger as a finding pass (``engine.findings``), after the passes whose findings it
    counts; ``reader`` follows the names imported from other modules (JR009)."""

    def run(result: Analysis, scopes: ScopeTree, module: ast.Module, walk: Analyzer) -> None:
        build(result, scopes, module, facts_of(walk), reader)

    return run


def facts_of(walk: Analyzer) -> Facts:
    """What the ledger needs of the walk beyond the Analysis."""
    fields = {
        key: (info.name, [(f.name, f.markers, f.node) for f in info.fields]) for key, info in walk.class_info.items()
    }
    read = {id(p.node): p.markers for sig, _ in walk.signatures.values() for p in sig.params}
    transforms: dict[int, set[str]] = {}
    for use in walk.result.uses:
        transforms.setdefault(id(use.target), set()).add(use.transform.name)
    return Facts(
        walk.applied,
        walk.unseen,
        walk.refused_calls,
        fields,
        read,
        walk.unknown_calls,
        transforms,
        walk.refused_defs,
        walk.twins,
    )


def build(
    result: Analysis,
    scopes: ScopeTree,
    module: ast.Module,
    facts: Facts,
    reader: ImportReader | None = None,
    imports: bool = True,
) -> None:
    """Fill ``result.ledger``, adding JR008/JR009 findings for what nothing else accounts for
    (``imports`` False: no entry for names imported from other modules, JR009: the hook's)."""
    src = result.source
    collector = _Collector(scopes, facts, reader, src, imports)
    collector.body(module.body, scopes.module)
    if any(site.kind is EntryKind.ALIAS for site in collector.sites):
        for site in collector.sites:
            if site.kind is EntryKind.PARAMETER and id(site.node) in facts.read_marks:
                scope = collector.def_scopes.get(id(site.owner), scopes.module)
                _mentions(getattr(site.node, "annotation", None), scope, site.aliases, reading=collector.reading)
    applied = _applied(result, facts, scopes)
    diagnostics = list(result.diagnostics)
    pragma = next((d for d in diagnostics if d.code == "JR001"), None)
    refused_by_call = _refused_by_calls(facts, scopes, [d for d in diagnostics if d.is_error])
    formed = _field_form_fields(scopes)
    entries: list[tuple[_Site, LedgerEntry]] = []
    for site in collector.sites:
        entries.append((site, _settle(site, applied, formed, diagnostics, refused_by_call, facts, pragma, result)))
    # Aliases end as their uses end: applied if one use is, else refused, else reported.
    settled: list[LedgerEntry] = []
    for site, entry in entries:
        if site.kind is EntryKind.ALIAS and entry.state is State.REPORTED and entry.code == "JR008":
            users = [e for s, e in entries if site.name in s.aliases and s is not site]
            best = _best(users)
            if best is not None:
                entry = LedgerEntry(entry.kind, entry.name, entry.line, entry.col, best.state, best.code)
            else:
                found = _at(src, site.node, "JR008", _alias_reason(site.name))
                result.diagnostics.append(found)
        settled.append(entry)
    result.ledger = tuple(settled)
    result.diagnostics.sort(key=lambda d: (d.line, d.col))


def _alias_reason(name: str) -> str:
    return (
        f"marker alias {name!r} is used by no annotation of this module that jaxrewrite applies, and an alias "
        "imported into another module does nothing there (jaxrewrite reads each module's own aliases only): "
        "define the alias in the module that uses it"
    )


def _best(users: list[LedgerEntry]) -> LedgerEntry | None:
    for state in State:
        found = next((u for u in users if u.state is state), None)
        if found is not None:
            return found
    return None


def _applied(result: Analysis, facts: Facts, scopes: ScopeTree) -> set[int]:
    """Nodes of the parameters and fields some use, registration or field edit reads."""
    applied: set[int] = set()
    for use in result.uses:
        for param in use.signature.params:
            if param.markers & use.transform.markers:
                applied.add(id(param.node))
        for leaf in use.leaves:
            # The walk's own record of the fields it split, by node: however the class was named.
            applied.update(id(node) for node in leaf.applied())
    # A def bound twice (``if``/``else`` twins, ``@overload`` stubs) is one function to Python:
    # what a use of one binding applies, it applies to the same parameter of the others.
    where = {id(func): id(scope) for func, scope in scopes.defs}
    keys = {
        (where.get(id(use.target)), use.target.name, p.name)
        for use in result.uses
        for p in use.signature.params
        if p.markers & use.transform.markers
    }
    for func, scope in scopes.defs:
        for arg in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]:
            if (id(scope), func.name, arg.arg) in keys:
                applied.add(id(arg))
    # The walk's own record of the other defs a use's argument may be (twins by any name).
    for use in result.uses:
        names = {p.name for p in use.signature.params if p.markers & use.transform.markers}
        for twin in facts.twins.get(id(use.target), ()):
            args = [*twin.args.posonlyargs, *twin.args.args, *twin.args.kwonlyargs]
            applied.update(id(arg) for arg in args if arg.arg in names)
    for reg in result.registrations:
        for name, marks, node in facts.class_fields.get(id(reg.target), ("", []))[1]:
            if Mark.STATIC in marks:
                applied.add(id(node))
    for used in result.fields:
        applied.add(id(used.stmt))
    return applied


def _names(ann: ast.AST | None) -> set[str]:
    found: set[str] = set()
    if ann is None:
        return found
    for node in ast.walk(ann):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            parsed = parse_string(node.value)
            if parsed is not None and not isinstance(parsed, ast.Constant):
                found |= _names(parsed)
    return found


def _refused_by_calls(facts: Facts, scopes: ScopeTree, errors: list[Diagnostic]) -> dict[str, str]:
    """Names a refused call site names (a def or a class, and the classes annotating that def's
    parameters: their per-leaf fields), and the classes annotating a def refused at its
    decorators or signature, with the refusal's code."""
    found: dict[str, str] = {}
    defs = {func.name: func for func, _ in scopes.defs}
    for func, _ in scopes.defs:
        first, last = _span(func)
        error = next((d for d in errors if first <= d.line <= last), None)
        if error is not None:
            for arg in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]:
                for name in _names(arg.annotation):
                    found.setdefault(name, error.code)
    for call, code in facts.refused_calls:
        for node in ast.walk(call):
            if isinstance(node, ast.Name):
                found.setdefault(node.id, code)
                named = defs.get(node.id)
                for arg in [] if named is None else [*named.args.posonlyargs, *named.args.args, *named.args.kwonlyargs]:
                    for name in _names(arg.annotation):
                        found.setdefault(name, code)
    return found


def _field_form_fields(scopes: ScopeTree) -> set[int]:
    """Fields of Equinox Modules and flax.struct dataclasses: a Static one is completed in place
    or already says so (anything else is a refusal, JR130/JR131), so it is applied. So is a
    field of a class whose base is in another module that already is ``jaxrewrite.field(...)``
    (the rewrite's own text, or a library's spelling that needs no hook: guide §14); the
    others of such a class are applied where the rewrite edits them (``result.fields``)."""
    found: set[int] = set()
    for defined, scope in scopes.classes:
        try:
            form, unseen = form_of(defined, scope)
        except RewriteError:
            continue
        if form is not None:
            found.update(id(stmt) for stmt in defined.node.body if isinstance(stmt, ast.AnnAssign))
        elif unseen is not None:
            found.update(
                id(stmt)
                for stmt in defined.node.body
                if isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.value, ast.Call)
                and field_function(stmt.value.func, defined.body) == EITHER_FORM.field
            )
    return found


def _settle(
    site: _Site,
    applied: set[int],
    formed: set[int],
    diagnostics: list[Diagnostic],
    refused_by_call: dict[str, str],
    facts: Facts,
    pragma: Diagnostic | None,
    result: Analysis,
) -> LedgerEntry:
    node = site.node
    line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1
    first, last = _span(site.owner) if site.owner is not None else (line, getattr(node, "end_lineno", line) or line)
    first, last = min(first, line), max(last, line)

    def entry(state: State, code: str | None = None) -> LedgerEntry:
        return LedgerEntry(site.kind, site.name, line, col, state, code)

    if id(node) in applied and site.kind in (EntryKind.PARAMETER, EntryKind.FIELD):
        return entry(State.APPLIED) if pragma is None else entry(State.REPORTED, "JR001")
    error = next((d for d in diagnostics if d.is_error and first <= d.line <= last), None)
    if error is not None:
        return entry(State.REFUSED, error.code)
    owner_name = getattr(site.owner, "name", None)
    if owner_name is not None and owner_name in refused_by_call:
        return entry(State.REFUSED, refused_by_call[owner_name])
    if site.owner is not None and id(site.owner) in facts.refused_defs:
        return entry(State.REFUSED, facts.refused_defs[id(site.owner)])
    if pragma is not None and site.kind is not EntryKind.ALIAS:
        return entry(State.REPORTED, "JR001")
    if id(node) in formed and Mark.STATIC in site.marks:
        return entry(State.APPLIED)
    finding = next((d for d in diagnostics if not d.is_error and first <= d.line <= last and d.code != "JR005"), None)
    if finding is None and site.owner is not None:
        seen = next((call for call, func in facts.unseen if func is site.owner), None)
        if seen is not None:
            return entry(State.REPORTED, "JR007")
        if id(site.owner) in facts.unknown_calls and id(site.owner) not in facts.applied_defs:
            return entry(State.REPORTED, "JR004")
    if finding is not None and site.kind is not EntryKind.IMPORTED:
        return entry(State.REPORTED, finding.code)
    if site.kind is EntryKind.ALIAS:
        return entry(State.REPORTED, "JR008")  # settled by its uses, or reported, in ``build``
    code = "JR009" if site.kind is EntryKind.IMPORTED else "JR008"
    result.diagnostics.append(_at(result.source, node, code, site.reason or _reason(site, facts)))
    return entry(State.REPORTED, code)


def _reason(site: _Site, facts: Facts) -> str:
    spelled = " and ".join(sorted(m.value for m in site.marks)) or "a marker"
    what = site.name
    if site.kind is EntryKind.FIELD:
        return (
            f"{spelled} on field {what!r} does nothing: no registration of this module (register_dataclass, "
            "an Equinox Module, a flax.struct dataclass) and no transform that splits a parameter annotated "
            "with its class reads it; register the class, or annotate a parameter of a transformed def with it "
            "(see the guide, section 8)"
        )
    owner = site.owner
    read = facts.read_marks.get(id(site.node), frozenset())
    if site.kind is EntryKind.PARAMETER and not read:
        return (
            f"{spelled} on {what!r} does nothing: jaxrewrite reads a marker only as the outermost annotation "
            "(Static[T], NoDiff[T], Annotated[T, STATIC] or a module alias of one), not in this spelling; "
            "write it so (see the guide, section 5)"
        )
    if owner is not None and id(owner) in facts.applied_defs:
        under = ", ".join(sorted(facts.transforms.get(id(owner), ()))) or "the transforms applied to it"
        return (
            f"{spelled} on {what!r} does nothing under {under}: NoDiff is read by grad-like transforms and "
            "custom_vjp/custom_jvp, Static by the others; apply a transform that reads it, or drop the marker "
            "(see the guide, section 6)"
        )
    return (
        f"{spelled} on {what!r} does nothing: no transform of this module applies to its function; mark "
        "the parameters of the function a transform is applied to (see the guide, section 5)"
    )


def _at(src: Source, node: ast.AST, code: str, message: str) -> Diagnostic:
    return Diagnostic.from_error(src.error(node, code, message))


def unaccounted(ledger: tuple[LedgerEntry, ...]) -> list[LedgerEntry]:
    """Entries in no state or with a state but no code to say why (none, by construction)."""
    return [e for e in ledger if e.state is not State.APPLIED and e.code is None]

