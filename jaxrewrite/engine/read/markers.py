"""The one reading of markers (``tests/meta/test_layers.py``), indexed once per module.

``MarkerReader``: a marker as the outermost annotation (deeper is JR102: ``Optional[Static[int]]``
would otherwise mean "not static"); ``MarkIndex.mentions``: every marker an expression spells,
through aliases (what the ledger counts); ``may_mark``: the prefilter both take.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property
from typing import cast

from jaxrewrite.engine.read.denote import Path, paths, same_expr, spelled, split
from jaxrewrite.engine.read.resolve import (
    MAX_DEPTH,
    PAST_DEPTH,
    parse_string,
    qualname,
    star_export,
)
from jaxrewrite.engine.read.scopes import (
    Assigned,
    Binding,
    Imported,
    MarkerBinding,
    Scope,
    ScopeTree,
)
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import (
    CONTAINERS,
    MARKER_CONSTANTS,
    MARKER_EXPORTS,
    MARKER_TABLE,
    MARKER_TYPES,
    Mark,
    canonical,
)

Marks = frozenset[Mark]
NO_MARKS: Marks = frozenset()
#: One mark as a set, by the marker's exported name.
_SINGLE_BY_NAME: dict[str | None, Marks] = {
    name: frozenset({mark}) for name, mark in {**MARKER_TYPES, **MARKER_CONSTANTS}.items()
}
#: A marker inside ``Callable[[...], R]`` describes another function's parameter, not this one.
_CALLABLE = "typing.Callable"


@dataclass(eq=False)
class MarkIndex:
    """What one module's annotations mark, read once; and each alias's markers and the marker
    aliases it reads through, for ``mentions``. Aliases round a loop are one strongly connected
    component (Tarjan's stack and low links), all given what its first-read alias found."""

    tree: ScopeTree
    #: Each annotation's outermost marks, by node id, as ``MarkerReader`` read them.
    read: dict[int, Marks] = field(default_factory=dict)
    #: Each alias's reading, by the id of its value (``denote`` makes a binding per branch).
    memo: dict[int, tuple[Marks, frozenset[int]]] = field(default_factory=dict)
    #: The aliases on the stack (being read, or in a loop still being read), by their place.
    places: dict[int, int] = field(default_factory=dict)
    stack: list[int] = field(default_factory=list)
    #: The lowest place on the stack the alias being read reaches round a loop.
    low: int = 0

    @cached_property
    def names(self) -> set[str]:
        return marker_names(self.tree)

    def mentions(
        self, expr: ast.AST | None, scope: Scope, aliases: set[int], depth: int = 0
    ) -> Marks:
        """Every marker ``expr`` spells anywhere, through aliases and strings; not inside
        ``Callable[...]``. ``aliases`` gets the ids of the values of the marker aliases it reads
        through. ``depth`` bounds the nesting within one expression; an alias's value is read from
        depth 0, once per module, so a chain of any length is read."""
        if expr is None or depth > MAX_DEPTH:
            return NO_MARKS
        if isinstance(expr, ast.Constant):
            parsed = parse_string(expr.value) if isinstance(expr.value, str) else None
            if parsed is None or isinstance(parsed, ast.Constant):
                return NO_MARKS
            return self.mentions(parsed, scope, aliases, depth + 1)
        if isinstance(expr, ast.Subscript):
            base = qualname(expr.value, scope)
            if base == _CALLABLE:
                return NO_MARKS
            if base == MARKER_TABLE:  # ``UNCHECKED["Static"]``: the marker itself, or no marker
                return _SINGLE_BY_NAME.get(marker_name(qualname(expr, scope)), NO_MARKS)
        found = paths(expr.id, scope) if isinstance(expr, ast.Name) else None
        if found:
            # What every path of the name spells; where two disagree, all they spell if every
            # path is a spelling (an assignment, an import), else nothing (a def or class there:
            # ``isinstance(x, Static)`` reads no alias).
            read: list[Marks] = []
            through: set[int] = set()
            spelt = True
            for binding, *_, made in found:
                if isinstance(binding, MarkerBinding):
                    read.append(binding.markers)
                elif isinstance(binding, Imported):
                    name = marker_name(canonical(binding.qualname))
                    read.append(_SINGLE_BY_NAME.get(name, NO_MARKS))
                elif isinstance(binding, Assigned) and not is_container_call(
                    binding.value, binding.scope
                ):
                    inner, values = self._alias(binding)
                    through |= values
                    if inner:
                        through.add(id(made.value))  # type: ignore[union-attr]  # the statement's
                    read.append(inner)
                else:
                    read.append(NO_MARKS)
                    spelt = False
            if not spelt and any(marks != read[0] for marks in read):
                return NO_MARKS
            aliases |= through
            return frozenset().union(*read)
        if isinstance(expr, (ast.Name, ast.Attribute)):
            return _SINGLE_BY_NAME.get(marker_name(qualname(expr, scope)), NO_MARKS)
        inside: set[Mark] = set()
        for child in ast.iter_child_nodes(expr):
            inside |= self.mentions(child, scope, aliases, depth + 1)
        return frozenset(inside)

    def _alias(self, alias: Assigned) -> tuple[Marks, frozenset[int]]:
        """The markers an alias's value spells and the marker aliases it reads through (by the
        ids of their values: another scope may reuse the name)."""
        key = id(alias.value)
        if key in self.memo:
            return self.memo[key]
        if key in self.places:  # round a loop: what it holds joins the loop's first alias
            self.low = min(self.low, self.places[key])
            return NO_MARKS, frozenset()
        place = self.places[key] = len(self.stack)
        self.stack.append(key)
        outer, self.low = self.low, place
        found: set[int] = set()
        marks = self.mentions(alias.value, alias.scope, found)
        low, self.low = self.low, min(outer, self.low)
        result = marks, frozenset(found)
        if low == place:  # the first alias of its loop (or in none): the loop is closed
            members = self.stack[place:]
            del self.stack[place:]
            if len(members) > 1 and marks:  # each reads the others
                result = marks, result[1] | set(members)
            for member in members:
                del self.places[member]
                self.memo[member] = result
        return result


def index_of(tree: ScopeTree) -> MarkIndex:
    if tree.index is None:
        tree.index = MarkIndex(tree)
    return cast(MarkIndex, tree.index)


def marker_name(qual: str | None) -> str | None:
    """'Static'/'NoDiff'/'STATIC'/'NODIFF' for names exported by jaxrewrite (or its modules)."""
    if qual is None or qual.partition(".")[0] != "jaxrewrite":
        return None
    last = qual.rpartition(".")[2]
    return last if last in MARKER_EXPORTS else None


def inner_type(ann: ast.expr | None, scope: Scope, depth: int = 0) -> ast.expr | None:
    """``T`` in ``Static[T]``, ``Annotated[T, STATIC]``, an alias or a string of either."""
    if ann is None or depth > MAX_DEPTH:
        return None
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return inner_type(parse_string(ann.value), scope, depth + 1)
    if isinstance(ann, ast.Subscript):
        base = qualname(ann.value, scope)
        inner = ann.slice if marker_name(base) in MARKER_TYPES else None
        if base == "typing.Annotated" and isinstance(ann.slice, ast.Tuple) and ann.slice.elts:
            inner = ann.slice.elts[0]
        if inner is not None:
            nested = inner_type(inner, scope, depth + 1)  # Static[NoDiff[T]]
            return inner if nested is None else nested
        if _aliases(ann.value, scope):  # S = Static[T] used as S[list]
            return ann.slice
        return None
    aliases = [path.binding for path in _aliases(ann, scope)]
    under = [inner_type(a.value, a.scope, depth + 1) for a in aliases]  # type: ignore[union-attr]
    first = under[0] if under else None  # the same type under the marker on every path, or None
    if first is not None and all(i is not None and same_expr(i, first) for i in under):
        return first
    return None


def _aliases(expr: ast.expr, scope: Scope) -> list[Path]:
    """The paths of a bare name, when every one binds it by an assignment."""
    found = paths(expr.id, scope) if isinstance(expr, ast.Name) else None
    return found if found and all(isinstance(p.binding, Assigned) for p in found) else []


@dataclass(eq=False)
class MarkerReader:
    """Finds the markers of one annotation, resolving names in the def's enclosing scope. Each
    (node, scope, depth) is read once per annotation (``_read``): ``C = C[C]`` branches at every
    level, 3**32 readings at ``MAX_DEPTH``."""

    scope: Scope
    src: Source
    relevant: set[str] | None = None
    #: Keeps each answer; None for a text that is not the module's (a notebook's earlier cell).
    index: MarkIndex | None = None
    #: (id(node), id(scope), depth, top) -> (the node, kept alive so its id is not reused; answer).
    _read: dict[tuple[int, int, int, bool], tuple[ast.AST, Marks | None]] = field(
        default_factory=dict, init=False
    )

    def markers(self, ann: ast.expr) -> Marks:
        index = self.index
        if index is not None and id(ann) in index.read:
            return index.read[id(ann)]
        try:
            found = self._top(ann, self.scope, ann, 0)
        finally:
            self._read.clear()
        if index is not None:
            index.read[id(ann)] = found
        return found

    def _top(self, expr: ast.expr, scope: Scope, where: ast.expr, depth: int) -> Marks:
        """Markers of ``expr`` as an outermost annotation; ``where`` locates errors."""
        if self.relevant is not None and not may_mark(expr, self.relevant):
            return NO_MARKS
        key = (id(expr), id(scope), depth, True)
        known = self._read.get(key)
        if known is None:
            known = self._read[key] = (expr, self._top_once(expr, scope, where, depth))
        return known[1]  # type: ignore[return-value]

    def _top_once(self, expr: ast.expr, scope: Scope, where: ast.expr, depth: int) -> Marks:
        """Past ``MAX_DEPTH`` it says it cannot tell: "no marker" would drop one silently."""
        if depth > MAX_DEPTH:
            if not reaches_marker(expr, scope):
                # A loop of plain type aliases (``Tree = dict[str, "Tree"]``): no marker.
                return NO_MARKS
            raise rules.TOO_DEEP.error(
                self.src, where, "marker", expr=self.src.segment(where), past=PAST_DEPTH
            )
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            parsed = parse_string(expr.value)
            return NO_MARKS if parsed is None else self._top(parsed, scope, where, depth + 1)
        if isinstance(expr, (ast.Name, ast.Attribute)):
            name = marker_name(qualname(expr, scope))
            if name in MARKER_TYPES:
                return _SINGLE_BY_NAME[name]  # bare ``Static`` means ``Static[Any]``
            found = paths(expr.id, scope) if isinstance(expr, ast.Name) else None
            return self._agreed(found, expr, where, depth) if found else NO_MARKS
        if isinstance(expr, ast.Subscript):
            return self._subscript(expr, scope, where, depth)
        if not is_container_call(expr, scope):
            # A functional TypedDict/NamedTuple: its Static fields are per-leaf statics.
            self._forbid_inside(expr, scope, where, depth)
        return NO_MARKS

    def _agreed(self, found: list[Path], expr: ast.expr, where: ast.expr, depth: int) -> Marks:
        """What every path of a name marks; JR104 where two paths mark differently."""
        readings = [(self._path(path.binding, expr, where, depth), path) for path in found]
        pair = split(readings) if len(readings) > 1 else None
        if pair is None:
            return readings[0][0]
        fields = spelled(pair, self.src.filename)
        raise rules.TRANSFORM_BOUND_TWICE.error(self.src, where, "marker", **fields)

    def _path(self, binding: Binding, expr: ast.expr, where: ast.expr, depth: int) -> Marks:
        if isinstance(binding, MarkerBinding):
            return binding.markers
        if isinstance(binding, Imported):
            name = marker_name(canonical(binding.qualname))
            return _SINGLE_BY_NAME[name] if name in MARKER_TYPES else NO_MARKS
        if not isinstance(binding, Assigned):
            return NO_MARKS
        found = self._top(binding.value, binding.scope, where, depth + 1)
        if found and binding.type_statement:
            raise rules.TYPE_ALIAS.error(self.src, where, alias=ast.unparse(expr))
        return found

    def _subscript(self, expr: ast.Subscript, scope: Scope, where: ast.expr, depth: int) -> Marks:
        base = qualname(expr.value, scope)
        base_name = marker_name(base)
        if base_name in MARKER_TYPES:
            # Static[NoDiff[T]] flattens like nested Annotated: both markers count.
            return _SINGLE_BY_NAME[base_name] | self._top(expr.slice, scope, where, depth + 1)
        if base == _CALLABLE:
            return NO_MARKS
        if base == "typing.Annotated":
            items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
            found = self._top(items[0], scope, where, depth + 1)
            consts = [marker_name(qualname(meta, scope)) for meta in items[1:]]
            return found | {MARKER_CONSTANTS[c] for c in consts if c in MARKER_CONSTANTS}
        bound = _aliases(expr.value, scope)
        generic = self._agreed(bound, expr.value, where, depth) if bound else NO_MARKS
        if generic:  # ``S = Static[T]`` used as ``S[int]``
            self._forbid_inside(expr.slice, scope, where, depth)
            return generic
        self._forbid_inside(expr, scope, where, depth)
        return NO_MARKS

    def _forbid_inside(self, expr: ast.AST, scope: Scope, where: ast.expr, depth: int) -> None:
        """RewriteError if a marker hides anywhere strictly inside ``expr``."""
        key = (id(expr), id(scope), depth, False)
        if key in self._read:
            return  # read already, and found nothing (a marker would have ended the reading)
        self._read[key] = (expr, None)
        for child in ast.iter_child_nodes(expr):  # ``_top`` skips what names no marker
            if not isinstance(child, ast.expr):
                self._forbid_inside(child, scope, where, depth + 1)
            elif self._top(child, scope, where, depth + 1):
                raise rules.NESTED_MARKER.error(
                    self.src, where, nested=ast.unparse(child), where=self.src.segment(where)
                )


def may_mark(node: ast.AST | None, names: set[str]) -> bool:
    """Could this expression name a marker? Called on every annotation of a module."""
    kind = type(node)
    if kind is ast.Name:
        return node.id in names  # type: ignore[union-attr]
    if kind is ast.Attribute:
        return may_mark(node.value, names)  # type: ignore[union-attr]
    if kind is ast.Subscript:
        return may_mark(node.value, names) or may_mark(node.slice, names)  # type: ignore[union-attr]
    if kind is ast.Constant:
        value = node.value  # type: ignore[union-attr]
        return isinstance(value, str) and any(name in value for name in names)
    if kind is ast.Tuple or kind is ast.List:
        return any(may_mark(element, names) for element in node.elts)  # type: ignore[union-attr]
    if kind is ast.BinOp:
        return may_mark(node.left, names) or may_mark(node.right, names)  # type: ignore[union-attr]
    return node is not None and any(may_mark(c, names) for c in ast.iter_child_nodes(node))


def names_marker(binding: Binding) -> bool:
    """A jaxrewrite import, or an outer environment's marker alias."""
    imported = isinstance(binding, Imported) and binding.qualname.partition(".")[0] == "jaxrewrite"
    return imported or isinstance(binding, MarkerBinding)


def marker_names(tree: ScopeTree) -> set[str]:
    """Names that could spell a marker (jaxrewrite imports, marker aliases, aliases built from
    them), by name, not scope: an annotation naming none of them, even in a string, has none."""
    names: set[str] = set()
    assigned: list[tuple[str, list[ast.expr]]] = []
    outer = tree.module.parent
    for scope in tree.scopes if outer is None else [*tree.scopes, outer]:
        if any(module.partition(".")[0] == "jaxrewrite" for module in scope.star_imports):
            names.update(MARKER_EXPORTS)
        for name, bindings in scope.bindings.items():
            for binding in bindings:
                if names_marker(binding):
                    names.add(name)
                elif isinstance(binding, Assigned):
                    assigned.append((name, [binding.value]))
    return names_made_from(names, assigned) if names else names


def names_made_from(names: set[str], made: list[tuple[str, list[ast.expr]]]) -> set[str]:
    """``names`` (changed in place) with each name of ``made`` whose expressions name one of
    them, to any depth."""
    changed = True
    while changed:
        changed = False
        for name, values in made:
            if name not in names and any(may_mark(value, names) for value in values):
                names.add(name)
                changed = True
    return names


def reaches_marker(expr: ast.expr, scope: Scope) -> bool:
    """Could ``expr`` spell a marker through any number of aliases? No depth limit: asked past
    ``MAX_DEPTH``, so that a loop of plain type aliases stays no marker."""
    todo: list[tuple[ast.AST, Scope]] = [(expr, scope)]
    read: set[int] = set()
    while todo:
        node, where = todo.pop()
        for part in ast.walk(node):
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                parsed = parse_string(part.value)
                if parsed is not None:
                    todo.append((parsed, where))
            if not isinstance(part, ast.Name):
                continue
            found = where.lookup(part.id)
            if found is None and marker_name(star_export(part.id, where)) is not None:
                return True
            for binding in found[0] if found else ():
                if names_marker(binding):
                    return True
                if isinstance(binding, Assigned) and id(binding.value) not in read:
                    read.add(id(binding.value))
                    todo.append((binding.value, binding.scope))
    return False


def is_container_call(value: ast.expr, scope: Scope) -> bool:
    return isinstance(value, ast.Call) and qualname(value.func, scope) in CONTAINERS
