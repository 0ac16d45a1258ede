"""Static name resolution: which names a module's own imports and assignments bind, per scope.

Python's rules, simplified to what a decorator, an annotation or a call site needs: a function's
own bindings, then enclosing functions (class bodies skipped), then the module, then an optional
outer environment (a notebook's namespace); PEP 695 type parameters open an annotation scope.
"""

from __future__ import annotations

import ast
import bisect
import enum
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from jaxrewrite.engine.read.nodes import (
    BLOCK_FIELDS,
    blocks,
    name_assigned,
    own_expressions,
    parameter_names,
    pattern_captures,
    target_names,
    walrus_targets,
)
from jaxrewrite.engine.read.source import source_lines
from jaxrewrite.engine.rulebook.table import Mark


class ScopeKind(enum.Enum):
    MODULE = "module"
    #: Functions, lambdas and comprehensions: their own names, then enclosing functions.
    FUNCTION = "function"
    #: A class body: seen only by code running directly in it.
    CLASS = "class"
    #: Names the module does not bind but its runner provides (a notebook's namespace).
    ENVIRONMENT = "environment"
    #: PEP 695 type parameters: they see the class body they are directly in, as Python's do.
    ANNOTATION = "annotation"


@dataclass(frozen=True)
class Imported:
    """``import a.b as x`` / ``from a import b``: the dotted name the binding refers to."""

    qualname: str


@dataclass(frozen=True)
class Assigned:
    """``x = <expr>`` (also ``x: T = <expr>`` and ``type x = <expr>``), resolved lazily."""

    value: ast.expr
    scope: Scope
    type_statement: bool = False


@dataclass(frozen=True)
class Defined:
    node: ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class DefinedClass:
    node: ast.ClassDef
    #: The class body's own scope, where its annotations are evaluated.
    body: Scope


@dataclass(frozen=True)
class MarkerBinding:
    """An outer-environment value that is a marker alias (``S = Static[int]`` run earlier)."""

    markers: frozenset[Mark]


@dataclass(frozen=True)
class Opaque:
    """Any other binding (def, class, parameter, loop target...): hides outer names."""


@dataclass(frozen=True, eq=False)
class Choice(Opaque):
    """A loop or comprehension target: over a literal (``for fn in (f, g):``) one of ``parts``
    each time; else no parts, and ``source``, the iterable. Opaque but to call-site readers."""

    parts: tuple[Assigned, ...]
    source: ast.expr | None = None
    scope: Scope | None = None


Binding = Imported | Assigned | Defined | DefinedClass | MarkerBinding | Opaque
OPAQUE = Opaque()


def choice_parts(bindings: Iterable[Binding]) -> Iterator[Binding]:
    """Bindings with each loop target over a literal (``Choice``) as its elements."""
    for binding in bindings:
        yield from binding.parts if isinstance(binding, Choice) and binding.parts else (binding,)


def loop_choice(target: ast.expr, iterable: ast.expr, scope: Scope) -> Choice:
    if isinstance(target, ast.Name) and isinstance(iterable, (ast.Tuple, ast.List, ast.Set)):
        elements = iterable.elts
        if elements and not any(isinstance(e, ast.Starred) for e in elements):
            return Choice(tuple(Assigned(element, scope) for element in elements))
    return Choice((), iterable, scope)


#: Where a binding is made: (statement line, flow), flow being 0 for a statement directly in the
#: scope's body and otherwise the line of the outermost compound statement around it.
Site = tuple[int, int]


@dataclass(eq=False)
class Scope:
    kind: ScopeKind
    parent: Scope | None
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    #: ``sites[name][i]`` is where ``bindings[name][i]`` is made.
    sites: dict[str, list[Site]] = field(default_factory=dict)
    #: Blocks whose head binds a name for the whole block (``except E as name:``, ``for name in``,
    #: ``with ... as name:``, a ``case`` capture): (first line, last line, index into bindings).
    regions: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    star_imports: list[str] = field(default_factory=list)
    global_names: set[str] = field(default_factory=set)
    #: Memo for resolve.qualname of bare names looked up from this scope.
    qualnames: dict[str, str | None] = field(default_factory=dict)
    #: The annotation scope of each generic def, class or type statement made here, by node id.
    annotations: dict[int, Scope] = field(default_factory=dict)

    def bind(self, name: str, binding: Binding, site: Site = (0, 0)) -> None:
        self.bindings.setdefault(name, []).append(binding)
        self.sites.setdefault(name, []).append(site)

    def bind_for_block(
        self, name: str, site: Site, block: list[ast.stmt], binding: Binding = OPAQUE
    ) -> None:
        """A block head's binding, which code in ``block`` sees unless it rebinds."""
        self.bind(name, binding, site)
        last = block[-1].end_lineno or block[-1].lineno
        self.regions.setdefault(name, []).append((block[0].lineno, last, len(self.sites[name]) - 1))

    def annotating(self, node: ast.AST) -> Scope:
        """Where the annotations of ``node`` (a def or class made in this scope) are read."""
        return self.annotations.get(id(node), self)

    def module(self) -> Scope:
        scope = self
        while scope.kind is not ScopeKind.MODULE and scope.parent is not None:
            scope = scope.parent
        return scope

    def lookup(self, name: str) -> tuple[list[Binding], Scope] | None:
        """The bindings a load of ``name`` in this scope sees, and their scope."""
        scope: Scope | None = self
        first = True
        while scope is not None:
            if name in scope.global_names:
                scope = scope.module()
                first = True
                continue
            if (first or scope.kind is not ScopeKind.CLASS) and name in scope.bindings:
                return scope.bindings[name], scope
            first = first and scope.kind is ScopeKind.ANNOTATION
            scope = scope.parent
        return None

    def bindings_seen_at(self, name: str, site: Site) -> list[Binding] | None:
        """The bindings of ``name`` a load at ``site`` in this very scope can see, in order; None:
        not bound here. Straight-line code sees the last binding made directly in the body before
        it, and any made after that in compound statements; a block whose head binds the name sees
        that binding unless it rebinds; any other compound statement binding it sees them all.
        """
        bindings = self.bindings.get(name)
        if bindings is None:
            return None
        sites = self.sites[name]
        line, flow = site
        block = max((r for r in self.regions.get(name, ()) if r[0] <= line <= r[1]), default=None)
        if block is not None:
            start, end, index = block
            if not any(i != index and start <= at <= end for i, (at, _) in enumerate(sites)):
                return [bindings[index]]  # inside the block that binds it, and not rebound there
        before = [i for i, (at, _) in enumerate(sites) if at < line]
        if not before or flow and any(f == flow for _, f in sites):
            return list(bindings)  # bound after it (it runs later, or fails), or in its statement
        # The last binding made directly in the body, and any made after it in a block.
        floor = max((sites[i][0] for i in before if sites[i][1] == 0), default=0)
        return [bindings[i] for i in before if sites[i][0] >= floor]


def environment(names: Mapping[str, Binding]) -> Scope:
    scope = Scope(ScopeKind.ENVIRONMENT, None)
    for name, binding in names.items():
        scope.bind(name, binding)
    return scope


@dataclass
class ScopeTree:
    """The module scope plus every def and class with the scope its statement runs in."""

    module: Scope
    #: ``def`` nodes in source order, with the scope holding the def statement.
    defs: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, Scope]]
    #: Class definitions in source order, with the scope holding the class statement.
    classes: list[tuple[DefinedClass, Scope]]
    #: Simple statements and compound-statement headers, as (first line, last line, node, scope,
    #: flow), sorted by line: where call sites are looked for, only on lines that name a candidate.
    statements: list[tuple[int, int, ast.AST, Scope, int]]
    #: Every scope, module first (the outer environment, if any, is not among them).
    scopes: list[Scope]
    #: The lines holding ``:=`` (a text search): only a statement spanning one is searched for
    #: the names it binds.
    walrus_lines: list[int] = field(default_factory=list)
    #: The module's one index of markers (``markers.index_of``: made on first ask).
    index: object | None = None

    def release(self) -> None:
        """Break the reference cycles between scopes and their bindings (see rewrite.analyze)."""
        for scope in self.scopes:
            scope.bindings.clear()  # (``qualnames`` holds only strings: no cycle, no tree)
            scope.annotations.clear()
        self.defs.clear()
        self.classes.clear()
        self.statements.clear()
        self.index = None


def build_scopes(tree: ast.Module, text: str = "", outer: Scope | None = None) -> ScopeTree:
    """One pass over the module's statements, never into expressions (the hot path); ``outer``:
    what the module body sees beyond itself."""
    module = Scope(ScopeKind.MODULE, outer)
    result = ScopeTree(module, [], [], [], [module])
    if ":=" in text:
        result.walrus_lines = [n for n, line in enumerate(source_lines(text), 1) if ":=" in line]
    _bind_body(tree.body, module, result, 0)
    result.statements.sort(key=lambda item: item[0])
    return result


def _bind_body(body: list[ast.stmt], scope: Scope, result: ScopeTree, flow: int) -> None:
    """Bind what each statement of ``body`` binds; ``flow``: the line of the outermost compound
    statement around ``body`` in its scope, 0 directly in the scope's body (see ``Site``)."""
    walrus = result.walrus_lines
    for stmt in body:
        last = stmt.end_lineno or stmt.lineno
        if walrus and bisect.bisect_right(walrus, last) > bisect.bisect_left(walrus, stmt.lineno):
            _bind_walrus(stmt, scope, flow)  # a ``:=`` on one of its lines
        site = (stmt.lineno, flow)
        if type(stmt) not in _BINDERS:  # most statements: none of their own names to bind
            result.statements.append((stmt.lineno, last, stmt, scope, flow))
            if type(stmt) in BLOCK_FIELDS:
                _bind_blocks(stmt, scope, result, flow or stmt.lineno)
        elif isinstance(stmt, _DEFINITIONS):
            _definition(stmt, scope, result, flow)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                root = alias.asname or alias.name.partition(".")[0]
                scope.bind(root, Imported(alias.name if alias.asname else root), site)
        elif isinstance(stmt, ast.ImportFrom):
            module = stmt.module if stmt.level == 0 else None
            for alias in stmt.names:
                if alias.name != "*":
                    made = Imported(f"{module}.{alias.name}") if module else OPAQUE
                    scope.bind(alias.asname or alias.name, made, site)
                elif module is not None:
                    scope.star_imports.append(module)
        elif isinstance(stmt, _ASSIGNMENTS):
            # ``name = value`` (annotated or not) binds its value; a bare ``name: T``, an
            # augmented assignment, a ``del`` and any other target bind what is not known.
            if not isinstance(stmt, ast.Delete):
                result.statements.append((stmt.lineno, last, stmt, scope, flow))
            pair = name_assigned(stmt)
            if pair is not None:
                scope.bind(pair[0], Assigned(pair[1], scope), site)
            else:
                targets = [stmt.target] if isinstance(stmt, _ONE_TARGET) else stmt.targets
                for target in targets:
                    for name in target_names(target):
                        scope.bind(name, OPAQUE, site)
        elif isinstance(stmt, ast.Global):
            scope.global_names.update(stmt.names)
        elif type(stmt) is _TYPE_ALIAS:  # Python 3.12 ``type X = ...``
            named: ast.Name = stmt.name  # type: ignore[attr-defined]
            inner = _type_parameters(stmt, scope, result)
            value = Assigned(stmt.value, inner, type_statement=True)  # type: ignore[attr-defined]
            scope.bind(named.id, value, (named.lineno, flow))


_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_ASSIGNMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete)
_ONE_TARGET = (ast.AnnAssign, ast.AugAssign)
_TYPE_ALIAS = getattr(ast, "TypeAlias", None)
#: The statements that bind names of their own (``ast.Nonlocal`` binds none, and is no statement
#: a call site is looked for in).
_BINDERS: set[object] = {*_DEFINITIONS, *_ASSIGNMENTS, ast.Import, ast.ImportFrom, ast.Global}
_BINDERS |= {ast.Nonlocal, _TYPE_ALIAS}


def _bind_blocks(stmt: ast.stmt, scope: Scope, result: ScopeTree, flow: int) -> None:
    """A compound statement's blocks, and the names its head binds for one of them: an ``except
    ... as``, a ``case`` pattern, a ``for`` target, a ``with ... as``."""
    for block, clause in blocks(stmt):
        if isinstance(clause, ast.ExceptHandler) and clause.name:
            scope.bind_for_block(clause.name, (clause.lineno, flow), block)
        elif isinstance(clause, ast.match_case):
            for name in pattern_captures(clause.pattern):
                scope.bind_for_block(name, (clause.pattern.lineno, flow), block)
        _bind_body(block, scope, result, flow)
    site = (stmt.lineno, flow)
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        choice = loop_choice(stmt.target, stmt.iter, scope)
        for name in target_names(stmt.target):
            scope.bind_for_block(name, site, stmt.body, choice)
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            for name in target_names(item.optional_vars) if item.optional_vars else ():
                scope.bind_for_block(name, site, stmt.body)


def _bind_walrus(stmt: ast.stmt, scope: Scope, flow: int) -> None:
    """``(name := value)`` in a statement's own expressions binds as ``name = value`` does
    (opaque where ``value`` reads a comprehension's name); one that may not run when its
    statement does (after ``and``, in a branch, a guard, an ``assert``...) as inside an ``if``."""
    found: list[tuple[str, bool, ast.expr | None]] = []
    for expr in own_expressions(stmt):
        walrus_targets(expr, type(stmt) is not ast.Assert, found)
    guards = [case.guard for case in getattr(stmt, "cases", ())]
    for expr in guards + [handler.type for handler in getattr(stmt, "handlers", ())]:
        if expr is not None:
            walrus_targets(expr, False, found)
    for name, sure, value in found:
        binding = OPAQUE if value is None else Assigned(value, scope)
        scope.bind(name, binding, (stmt.lineno, flow if sure else flow or stmt.lineno))


def _definition(node: _Definition, scope: Scope, result: ScopeTree, flow: int) -> None:
    """A def or class: its header (decorators, defaults, bases) a statement of the scope where it
    runs, its name bound there, its body a scope of its own."""
    kind = ScopeKind.CLASS if isinstance(node, ast.ClassDef) else ScopeKind.FUNCTION
    inner = Scope(kind, _type_parameters(node, scope, result))
    result.scopes.append(inner)
    defined: Binding
    if isinstance(node, ast.ClassDef):
        defined = DefinedClass(node, inner)
        result.classes.append((defined, scope))
    else:
        defined = Defined(node)
        result.defs.append((node, scope))
        for name in parameter_names(node.args):
            inner.bind(name, OPAQUE)
    first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    body_first = node.body[0].lineno
    last = body_first - 1 if body_first > node.lineno else node.lineno
    result.statements.append((first, last, node, scope, flow))
    scope.bind(node.name, defined, (first, flow))
    _bind_body(node.body, inner, result, 0)


def _type_parameters(node: ast.AST, scope: Scope, result: ScopeTree) -> Scope:
    """The annotation scope of a generic def, class or type statement (PEP 695), its type
    parameters bound there; ``scope`` itself for any other."""
    params = getattr(node, "type_params", None)
    if not params:
        return scope
    inner = scope.annotations[id(node)] = Scope(ScopeKind.ANNOTATION, scope)
    result.scopes.append(inner)
    for param in params:
        inner.bind(param.name, OPAQUE)
    return inner
