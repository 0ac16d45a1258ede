"""Static name resolution: which names a module's own imports and assignments bind, per scope.

Python's rules, simplified to what a decorator or annotation needs: a function's own
bindings, then enclosing functions (class bodies skipped), then the module. A name bound
two different ways in one scope resolves to nothing, so ambiguity never guesses.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Union

from jaxrewrite.source import lines_containing, source_lines


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
    """``def name(...)``: call sites resolve a function argument to its def through this."""

    node: ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class DefinedClass:
    """``class Name: ...``: per-leaf statics and dataclass registration read its fields."""

    node: ast.ClassDef
    #: The class body's own scope, where its annotations are evaluated.
    body: Scope


@dataclass(frozen=True)
class Opaque:
    """Any other binding (def, class, parameter, loop target...): hides outer names."""


Binding = Union[Imported, Assigned, Defined, DefinedClass, Opaque]
_OPAQUE = Opaque()


@dataclass(eq=False)
class Scope:
    kind: str  # "module", "function" or "class"
    parent: Scope | None
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    star_imports: list[str] = field(default_factory=list)
    global_names: set[str] = field(default_factory=set)
    #: Memo for resolve.qualname of bare names looked up from this scope.
    qualnames: dict[str, str | None] = field(default_factory=dict)

    def bind(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)

    def module(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def lookup(self, name: str) -> tuple[list[Binding], Scope] | None:
        """The bindings a load of ``name`` evaluated in this scope sees, and their scope."""
        scope: Scope | None = self
        first = True
        while scope is not None:
            if name in scope.global_names:
                scope = scope.module()
                first = True
                continue
            if (first or scope.kind != "class") and name in scope.bindings:
                return scope.bindings[name], scope
            first = False
            scope = scope.parent
        return None


@dataclass
class ScopeTree:
    """The module scope plus every def and class with the scope its statement runs in."""

    module: Scope
    #: ``def`` nodes in source order, with the scope holding the def statement (where decorators run).
    defs: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, Scope]]
    #: Class definitions in source order, with the scope holding the class statement.
    classes: list[tuple[DefinedClass, Scope]]
    #: Simple statements and compound-statement headers, as (first line, last line, node, scope),
    #: sorted by line: where call sites are looked for, only on lines that name a candidate.
    statements: list[tuple[int, int, ast.AST, Scope]]
    #: Every scope, module first.
    scopes: list[Scope]
    #: Lines that may start a def, a class or a decorator (a text search, so a superset).
    structural: list[int] = field(default_factory=list)
    #: Function bodies not walked yet, as (first line, last line, def, enclosing scope): they hold
    #: no def, class or decorator, so only a call site can make them worth walking.
    deferred: list[tuple[int, int, ast.FunctionDef | ast.AsyncFunctionDef, Scope]] = field(
        default_factory=list
    )

    def release(self) -> None:
        """Break the reference cycles between scopes and their bindings (see rewrite._plan)."""
        for scope in self.scopes:
            scope.bindings.clear()
            scope.qualnames.clear()
        self.defs.clear()
        self.classes.clear()
        self.statements.clear()
        self.deferred.clear()

    def walk_deferred(self, lines: list[int]) -> None:
        """Walk the deferred function bodies that contain any of the (sorted) ``lines``."""
        keep = []
        for item in self.deferred:
            first, last, node, scope = item
            at = bisect.bisect_left(lines, first)
            if at < len(lines) and lines[at] <= last:
                _function_body(node, scope, self)
            else:
                keep.append(item)
        if len(keep) != len(self.deferred):
            self.deferred = keep
            self.statements.sort(key=lambda item: item[0])


#: A line that may begin a def, a class or a decorator.
#: Text that may begin a def, a class or a decorator. A superset (also in strings, comments
#: and ``a @ b``) only means a few more bodies are walked; substring search beats a regex here.
_STRUCTURAL = ("def", "class", "@")


def build_scopes(tree: ast.Module, text: str = "", line_starts: list[int] | None = None) -> ScopeTree:
    """One pass over the module's statements (never into expressions: that is the hot path).

    Function bodies that contain no def, class or decorator line are not walked at all
    (``deferred``): nothing in them can be rewritten except a call site, which is found
    later by a text search. Bindings made inside expressions (``:=``) are not seen.
    """
    module = Scope("module", None)
    result = ScopeTree(module, [], [], [], [module])
    if text:
        if line_starts is None:
            line_starts = list(accumulate(map(len, source_lines(text)), initial=0))
        result.structural = _structural_lines(text, line_starts)
    else:
        result.structural = list(
            range(1, 1 + max((getattr(n, "end_lineno", 0) or 0) for n in tree.body) if tree.body else 1)
        )
    _bind_body(tree.body, module, result)
    result.statements.sort(key=lambda item: item[0])
    return result


def _structural_lines(text: str, line_starts: list[int]) -> list[int]:
    """Sorted lines containing any of ``_STRUCTURAL`` (see there)."""
    return lines_containing(text, line_starts, _STRUCTURAL)


def _bind_body(body: list[ast.stmt], scope: Scope, result: ScopeTree) -> None:
    for stmt in body:
        kind = type(stmt)
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(stmt, scope, result)
            continue
        result.statements.append((stmt.lineno, stmt.end_lineno or stmt.lineno, stmt, scope))
        bodies = _COMPOUND.get(kind)
        if bodies is None:
            continue
        for name in bodies:
            _bind_body(getattr(stmt, name), scope, result)
        if kind is ast.Try or kind.__name__ == "TryStar":
            for handler_node in stmt.handlers:  # type: ignore[attr-defined]
                if handler_node.name:
                    scope.bind(handler_node.name, _OPAQUE)
                _bind_body(handler_node.body, scope, result)
        elif kind in (ast.For, ast.AsyncFor):
            _bind_targets(stmt.target, scope)  # type: ignore[attr-defined]
        elif kind in (ast.With, ast.AsyncWith):
            for item in stmt.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    _bind_targets(item.optional_vars, scope)
        elif kind is ast.Match:
            for case in stmt.cases:  # type: ignore[attr-defined]
                _bind_body(case.body, scope, result)


#: Statements holding statement lists, and the fields that hold them.
_COMPOUND: dict[type, tuple[str, ...]] = {
    ast.If: ("body", "orelse"),
    ast.For: ("body", "orelse"),
    ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.With: ("body",),
    ast.AsyncWith: ("body",),
    ast.Try: ("body", "orelse", "finalbody"),
    ast.Match: (),
}
if hasattr(ast, "TryStar"):
    _COMPOUND[ast.TryStar] = ("body", "orelse", "finalbody")


def _bind_targets(target: ast.expr, scope: Scope) -> None:
    if isinstance(target, ast.Name):
        scope.bind(target.id, _OPAQUE)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _bind_targets(element, scope)
    elif isinstance(target, ast.Starred):
        _bind_targets(target.value, scope)


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, result: ScopeTree) -> None:
    scope.bind(node.name, Defined(node))
    result.defs.append((node, scope))
    first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    body_first = node.body[0].lineno
    # The header (decorators, defaults) runs in the enclosing scope; the body in its own.
    result.statements.append(
        (first, body_first - 1 if body_first > node.lineno else node.lineno, node, scope)
    )
    last = node.end_lineno or node.lineno
    lines = result.structural
    at = bisect.bisect_left(lines, body_first)
    if at < len(lines) and lines[at] <= last:
        _function_body(node, scope, result)
    else:
        result.deferred.append((body_first, last, node, scope))


def _function_body(node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, result: ScopeTree) -> None:
    inner = Scope("function", scope)
    result.scopes.append(inner)
    args = node.args
    for group in (args.posonlyargs, args.args, args.kwonlyargs):
        for arg in group:
            inner.bind(arg.arg, _OPAQUE)
    for extra in (args.vararg, args.kwarg):
        if extra is not None:
            inner.bind(extra.arg, _OPAQUE)
    _bind_body(node.body, inner, result)


def _class(node: ast.ClassDef, scope: Scope, result: ScopeTree) -> None:
    body = Scope("class", scope)
    result.scopes.append(body)
    defined = DefinedClass(node, body)
    scope.bind(node.name, defined)
    result.classes.append((defined, scope))
    first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    result.statements.append(
        (first, node.body[0].lineno - 1 if node.body[0].lineno > node.lineno else node.lineno, node, scope)
    )
    _bind_body(node.body, body, result)


def _import(node: ast.Import, scope: Scope, result: ScopeTree) -> None:
    for alias in node.names:
        if alias.asname is not None:
            scope.bind(alias.asname, Imported(alias.name))
        else:
            root = alias.name.partition(".")[0]
            scope.bind(root, Imported(root))


def _import_from(node: ast.ImportFrom, scope: Scope, result: ScopeTree) -> None:
    module = node.module if node.level == 0 else None
    for alias in node.names:
        if alias.name == "*":
            if module is not None:
                scope.star_imports.append(module)
            continue
        scope.bind(alias.asname or alias.name, Imported(f"{module}.{alias.name}") if module else _OPAQUE)


def _assign(node: ast.Assign, scope: Scope, result: ScopeTree) -> None:
    result.statements.append((node.lineno, node.end_lineno or node.lineno, node, scope))
    if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        scope.bind(node.targets[0].id, Assigned(node.value, scope))
    else:
        for target in node.targets:
            _bind_targets(target, scope)


def _ann_assign(node: ast.AnnAssign, scope: Scope, result: ScopeTree) -> None:
    result.statements.append((node.lineno, node.end_lineno or node.lineno, node, scope))
    if isinstance(node.target, ast.Name):
        scope.bind(node.target.id, Assigned(node.value, scope) if node.value is not None else _OPAQUE)


def _aug_assign(node: ast.AugAssign, scope: Scope, result: ScopeTree) -> None:
    result.statements.append((node.lineno, node.end_lineno or node.lineno, node, scope))
    _bind_targets(node.target, scope)


def _delete(node: ast.Delete, scope: Scope, result: ScopeTree) -> None:
    for target in node.targets:
        _bind_targets(target, scope)


def _global(node: ast.Global, scope: Scope, result: ScopeTree) -> None:
    scope.global_names.update(node.names)


def _type_alias(node: ast.AST, scope: Scope, result: ScopeTree) -> None:  # Python 3.12 ``type X = ...``
    name = getattr(node, "name", None)
    value = getattr(node, "value", None)
    if isinstance(name, ast.Name) and isinstance(value, ast.expr):
        scope.bind(name.id, Assigned(value, scope, type_statement=True))


_HANDLERS: dict[type, Callable[[Any, Scope, ScopeTree], None]] = {
    ast.FunctionDef: _function,
    ast.AsyncFunctionDef: _function,
    ast.ClassDef: _class,
    ast.Import: _import,
    ast.ImportFrom: _import_from,
    ast.Assign: _assign,
    ast.AnnAssign: _ann_assign,
    ast.AugAssign: _aug_assign,
    ast.Delete: _delete,
    ast.Global: _global,
    ast.Nonlocal: lambda node, scope, result: None,
}
if hasattr(ast, "TypeAlias"):
    _HANDLERS[ast.TypeAlias] = _type_alias
