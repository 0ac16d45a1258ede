"""Cheap pre-filters: what in a module could possibly need a rewrite.

The hot path of a cold import. Everything here works by name or by text search so that
a large module pays for one pass over its statements and little else; the planner then
looks closely only at what survives.
"""

from __future__ import annotations

import ast
import bisect
import re

from jaxrewrite.classes import local_class
from jaxrewrite.scopes import Assigned, DefinedClass, Imported, Scope, ScopeTree
from jaxrewrite.signature import may_mark
from jaxrewrite.source import Source, lines_containing


def classes_with_markers(tree: ScopeTree, relevant: set[str]) -> dict[int, tuple[DefinedClass, Scope]]:
    """Classes whose fields (own, or inherited from a class of this module) may carry markers."""
    found = {
        id(defined.node): (defined, scope)
        for defined, scope in tree.classes
        if any(
            may_mark(stmt.annotation, relevant)
            for stmt in defined.node.body
            if isinstance(stmt, ast.AnnAssign)
        )
    }
    changed = bool(found)
    while changed:
        changed = False
        for defined, scope in tree.classes:
            if id(defined.node) in found:
                continue
            for base in defined.node.bases:
                local = local_class(base, scope)
                if local is not None and id(local[0].node) in found:
                    found[id(defined.node)] = (defined, scope)
                    changed = True
                    break
    return found


def marker_names(tree: ScopeTree) -> set[str]:
    """Names that could spell a marker: jaxrewrite imports and aliases built from them.

    A conservative pre-filter (by name, not scope): an annotation mentioning none of these
    names, directly or inside a string, cannot carry a marker.
    """
    names: set[str] = set()
    assigned: list[tuple[str, ast.expr]] = []
    for scope in tree.scopes:
        if any(module.partition(".")[0] == "jaxrewrite" for module in scope.star_imports):
            names.update(("Static", "NoDiff", "STATIC", "NODIFF"))
        for name, bindings in scope.bindings.items():
            for binding in bindings:
                if isinstance(binding, Imported) and binding.qualname.partition(".")[0] == "jaxrewrite":
                    names.add(name)
                elif isinstance(binding, Assigned):
                    assigned.append((name, binding.value))
    changed = bool(names)
    while changed:
        changed = False
        for name, value in assigned:
            if name not in names and may_mark(value, names):
                names.add(name)
                changed = True
    return names


def lines_mentioning(names: set[str], src: Source) -> list[int]:
    """Sorted lines whose text contains any of ``names`` (substring search: a superset)."""
    return lines_containing(src.text, src.line_starts, names)


def may_matter(func: ast.FunctionDef | ast.AsyncFunctionDef, names: set[str], leaf_names: set[str]) -> bool:
    args = func.args
    for group in (args.posonlyargs, args.args, args.kwonlyargs, (args.vararg,), (args.kwarg,)):
        for arg in group:
            if arg is None or arg.annotation is None:
                continue
            ann = arg.annotation
            if may_mark(ann, names):
                return True
            if leaf_names and (
                (isinstance(ann, ast.Name) and ann.id in leaf_names)
                or (
                    isinstance(ann, ast.Constant)
                    and isinstance(ann.value, str)
                    and ann.value.strip() in leaf_names
                )
            ):
                return True
    return False


def calls_naming(names: list[str], tree: ScopeTree, src: Source) -> list[tuple[ast.Call, Scope]]:
    """Calls in statements on lines where one of ``names`` is a first argument (text search first)."""
    if not names:
        return []
    wanted = set(names)
    starts = src.line_starts
    lines: set[int] = set()
    for match in _FIRST_ARGUMENT.finditer(src.text):
        word = match.group(1)
        if word in wanted:
            lines.add(bisect.bisect_right(starts, match.start(1)))
    if not lines:
        return []
    ordered = sorted(lines)
    tree.walk_deferred(ordered)
    found: list[tuple[ast.Call, Scope]] = []
    seen: set[int] = set()
    for first, last, stmt, scope in tree.statements:
        at = bisect.bisect_left(ordered, first)
        if at == len(ordered) or ordered[at] > last:
            continue
        for expr in _own_expressions(stmt):
            for node in ast.walk(expr):
                if isinstance(node, ast.Call) and id(node) not in seen:
                    seen.add(id(node))
                    found.append((node, scope))
    found.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
    return found


#: A first argument: an identifier right after "(", across line breaks and comments. Call
#: sites pass the function first (``jax.jit(f)``, ``jax.jit(wrapper(f))``), so only these
#: lines can hold one.
_FIRST_ARGUMENT = re.compile(r"\((?:\s|#[^\n]*)*([^\W\d]\w*)")


def _own_expressions(stmt: ast.AST) -> list[ast.AST]:
    """A statement's expressions, without the statements nested in its body."""
    out: list[ast.AST] = []
    for name, value in ast.iter_fields(stmt):
        if name in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.AST))
    return out
