"""Static name resolution: which names a module's own imports and assignments bind, per scope.

Python's rules, simplified to what a decorator or annotation needs: a function's own
bindings, then enclosing functions (class bodies skipped), then the module. A name bound
two different ways in one scope resolves to nothing, so ambiguity never guesses.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator, Union


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


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class ScopeTree:
    """The module scope plus, for every def and call, the scope it is evaluated in."""

    module: Scope
    #: ``def`` nodes (id) -> the scope holding the def statement (where decorators run).
    def_scopes: dict[int, Scope]
    #: ``def`` nodes in source order, with that scope.
    defs: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, Scope]]
    #: Call nodes in source order, with the scope they are evaluated in.
    calls: list[tuple[ast.Call, Scope]]
    #: Class definitions in source order, with the scope holding the class statement.
    classes: list[tuple[DefinedClass, Scope]]


def build_scopes(tree: ast.Module) -> ScopeTree:
    """One pass over the module: bindings for every scope, and where each def/call lives."""
    module = Scope("module", None)
    result = ScopeTree(module, {}, [], [], [])
    _Binder(module, result).visit_body(tree.body)
    return result


class _Binder(ast.NodeVisitor):
    """Collects the bindings of one scope; nested scopes get their own binder."""

    def __init__(self, scope: Scope, result: ScopeTree) -> None:
        self.scope = scope
        self.result = result

    def visit_body(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.visit(stmt)

    # -- nested scopes -------------------------------------------------------------
    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.scope.bind(node.name, Defined(node))
        self.result.def_scopes[id(node)] = self.scope
        self.result.defs.append((node, self.scope))
        for deco in node.decorator_list:
            self.visit(deco)
        args = node.args
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.visit(default)
        inner = Scope("function", self.scope)
        for arg in _all_args(args):
            inner.bind(arg.arg, _OPAQUE)
        _Binder(inner, self.result).visit_body(node.body)

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        body = Scope("class", self.scope)
        defined = DefinedClass(node, body)
        self.scope.bind(node.name, defined)
        self.result.classes.append((defined, self.scope))
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        _Binder(body, self.result).visit_body(node.body)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]:
            self.visit(default)
        inner = Scope("function", self.scope)
        for arg in _all_args(node.args):
            inner.bind(arg.arg, _OPAQUE)
        _Binder(inner, self.result).visit(node.body)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        inner = Scope("function", self.scope)
        binder = _Binder(inner, self.result)
        for i, gen in enumerate(node.generators):
            # The first iterable is evaluated in the enclosing scope.
            (self if i == 0 else binder).visit(gen.iter)
            binder._bind_target(gen.target)
            for cond in gen.ifs:
                binder.visit(cond)
        for child in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
            binder.visit(child)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    # -- bindings --------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname is not None:
                self.scope.bind(alias.asname, Imported(alias.name))
            else:
                root = alias.name.partition(".")[0]
                self.scope.bind(root, Imported(root))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module if node.level == 0 else None
        for alias in node.names:
            if alias.name == "*":
                if module is not None:
                    self.scope.star_imports.append(module)
                continue
            name = alias.asname or alias.name
            self.scope.bind(name, Imported(f"{module}.{alias.name}") if module else _OPAQUE)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self.scope.bind(node.targets[0].id, Assigned(node.value, self.scope))
        else:
            for target in node.targets:
                self._bind_target(target)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.visit(node.annotation)
        if node.value is not None:
            self.visit(node.value)
        if isinstance(node.target, ast.Name):
            if node.value is not None:
                self.scope.bind(node.target.id, Assigned(node.value, self.scope))
        else:
            self.visit(node.target)

    def visit_TypeAlias(self, node: ast.AST) -> None:  # Python 3.12 ``type X = ...``
        name = getattr(node, "name", None)
        value = getattr(node, "value", None)
        if isinstance(name, ast.Name) and isinstance(value, ast.expr):
            self.scope.bind(name.id, Assigned(value, self.scope, type_statement=True))

    def visit_Global(self, node: ast.Global) -> None:
        self.scope.global_names.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        pass  # the name is bound in an enclosing function; lookups find it there

    def visit_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            self.scope.bind(node.id, _OPAQUE)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.scope.bind(node.target.id, _OPAQUE)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.scope.bind(node.name, _OPAQUE)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self.scope.bind(node.name, _OPAQUE)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.scope.bind(node.name, _OPAQUE)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.scope.bind(node.rest, _OPAQUE)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.result.calls.append((node, self.scope))
        self.generic_visit(node)

    def _bind_target(self, target: ast.expr) -> None:
        self.visit(target)


def _all_args(args: ast.arguments) -> Iterator[ast.arg]:
    yield from args.posonlyargs
    yield from args.args
    if args.vararg is not None:
        yield args.vararg
    yield from args.kwonlyargs
    if args.kwarg is not None:
        yield args.kwarg
