"""Specs on nothing this module defines (``jax.jit(other.f, static_argnums=1)``, a lambda) and
decorators the analysis could not read: reported as refusals, never edited.

What a call's function argument names is looked up through the engine's scopes (``scopes`` and
``resolve``), so a local rebinding of an imported name is seen as what it is.
"""

from __future__ import annotations

import ast
import bisect
import re

from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.read.scopes import Imported, Scope, ScopeTree, build_scopes
from jaxrewrite.engine.rulebook.table import TRANSFORMS, SpecKind
from jaxrewrite.engine.walk.specs import NEEDLES
from jaxrewrite.migrate.header import ModuleText
from jaxrewrite.migrate.result import Reason, Refusal

Function = ast.FunctionDef | ast.AsyncFunctionDef

_SPEC_WORD = re.compile(r"\b(" + "|".join(NEEDLES) + r")\s*=")
_WORDS = frozenset(NEEDLES)


def unattached(analysis: Analysis, module: ModuleText) -> list[Refusal]:
    """Transform calls that write a spec but apply to no def of the module, and decorators the
    analysis could not read. Only the nodes around a spec keyword that no use covers are visited
    (most files have none); the scopes are built only then."""
    src = analysis.source
    covered = _Covered(analysis)
    lines = sorted(
        {
            bisect.bisect_right(src.line_starts, match.start())
            for match in _SPEC_WORD.finditer(src.text)
            if not covered(match.start())
        }
    )
    if not lines:
        return []
    scopes = build_scopes(module.tree)
    try:
        return _Finder(analysis, lines, scopes, covered).run(module.tree)
    finally:
        scopes.release()


class _Finder:
    def __init__(
        self, analysis: Analysis, lines: list[int], scopes: ScopeTree, covered: _Covered
    ) -> None:
        self.analysis = analysis
        self.covered = covered
        self.lines = lines
        self.scopes = scopes
        self.found: list[Refusal] = []
        self.seen: set[int] = set()
        self.scope_of: dict[int, Scope] | None = None

    def run(self, tree: ast.Module) -> list[Refusal]:
        self.visit(tree, None, set())
        return self.found

    def visit(self, node: ast.AST, func: Function | None, decorators: set[int]) -> None:
        for child in ast.iter_child_nodes(node):
            first = getattr(child, "lineno", None)
            if first is None:  # ``arguments``, ``keyword`` without positions on old Pythons...
                self.visit(child, func, decorators)
                continue
            decorated = getattr(child, "decorator_list", None)
            if decorated:
                first = min(first, *(d.lineno for d in decorated))
            last = getattr(child, "end_lineno", first) or first
            at = bisect.bisect_left(self.lines, first)
            if at == len(self.lines) or self.lines[at] > last:
                continue
            if isinstance(child, ast.Call) and id(child) not in self.seen:
                self.seen.add(id(child))
                refusal = self.call(child, func if id(child) in decorators else None)
                if refusal is not None:
                    self.found.append(refusal)
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.visit(child, child, {id(d) for d in child.decorator_list})
            else:
                self.visit(child, func, decorators)

    def call(self, node: ast.Call, func: Function | None) -> Refusal | None:
        if not any(kw.arg in _WORDS for kw in node.keywords):
            return None
        analysis = self.analysis
        if self.covered(analysis.source.start(node)):
            return None
        name = _transform_name(node.func)
        if func is not None:  # a decorator of a def that no use covers
            if name is None and _transform_name(node.args[0] if node.args else None) is None:
                return None
            top = min([func.lineno, *(d.lineno for d in func.decorator_list)])
            first = next((d for d in analysis.errors if top <= d.line <= func.lineno), None)
            rule = Reason.UNREADABLE.rule  # the engine's finding ends in its own remedy
            why = (
                rule.text("unspelled")
                if first is None
                else rule.text(code=first.code, message=first.message)
            )
            return Refusal(Reason.UNREADABLE, why, node.lineno, func.name)
        if name is None or not node.args:
            # A partial or factory not applied here (an alias definition): reported at its uses.
            return None
        arg = node.args[0]
        origin = (
            _imported(arg.id, self.scope_at(node.lineno)) if isinstance(arg, ast.Name) else None
        )
        if isinstance(arg, ast.Lambda):
            variant = "anonymous"
        elif isinstance(arg, ast.Name):
            variant = "name" if origin is None else "imported"
        else:
            variant = "attribute" if isinstance(arg, ast.Attribute) else ""
        what = Reason.NOT_LOCAL.rule.text(variant, name=name, arg=ast.unparse(arg), origin=origin)
        return Refusal(Reason.NOT_LOCAL, what, node.lineno)

    def scope_at(self, line: int) -> Scope:
        """The scope a statement on ``line`` runs in: the innermost statement holding the line."""
        if self.scope_of is None:
            self.scope_of = _innermost(self.scopes)
        return self.scope_of.get(line, self.scopes.module)


class _Covered:
    """Is an offset inside some use's expression? The spans merged and sorted once, then one
    bisection per question: a scan of every use per spec keyword made migrate quadratic."""

    def __init__(self, analysis: Analysis) -> None:
        src = analysis.source
        self.starts: list[int] = []
        self.ends: list[int] = []
        for start, end in sorted((src.start(use.node), src.end(use.node)) for use in analysis.uses):
            if self.ends and start <= self.ends[-1]:
                self.ends[-1] = max(self.ends[-1], end)
            else:
                self.starts.append(start)
                self.ends.append(end)

    def __call__(self, offset: int) -> bool:
        at = bisect.bisect_right(self.starts, offset) - 1
        return at >= 0 and offset < self.ends[at]


def _innermost(scopes: ScopeTree) -> dict[int, Scope]:
    """Per line, the scope of the innermost statement holding it, in one sweep (a scan of every
    statement per call made migrate quadratic). The statements (simple ones and compound
    headers: a few lines each) come sorted by first line, so a later one holding a line is
    inside the earlier and overwrites it."""
    found: dict[int, Scope] = {}
    for first, last, _, scope, _ in scopes.statements:
        for line in range(first, last + 1):
            found[line] = scope
    return found


def _imported(name: str, scope: Scope) -> str | None:
    """The one dotted name ``name`` is imported as where it is read, or None (a local def, an
    assignment, a parameter, bound more than one way, or not bound at all)."""
    found = scope.lookup(name)
    if found is None:
        return None
    bindings = found[0]
    if not bindings or not all(isinstance(b, Imported) for b in bindings):
        return None
    names = {b.qualname for b in bindings if isinstance(b, Imported)}
    return names.pop() if len(names) == 1 else None


def _transform_name(expr: ast.expr | None) -> str | None:
    """The transform a call's function names by its last segment (a report, not a resolution)."""
    if isinstance(expr, ast.Attribute):
        name: str | None = expr.attr
    elif isinstance(expr, ast.Name):
        name = expr.id
    else:
        return None
    return name if name in TRANSFORMS and TRANSFORMS[name].spec is SpecKind.LISTS else None
