"""Reading a ``def``'s signature from source: parameter kinds, positions and markers.

A marker counts only as the outermost annotation (``Static[T]``, ``Annotated[T, STATIC]``,
an alias of either, or a string holding one); anywhere deeper it is an error, because
``Optional[Static[int]]`` would otherwise compile and silently mean "not static".
"""

from __future__ import annotations

import ast
import enum
from typing import NamedTuple

from jaxrewrite.engine.read.resolve import (
    MAX_DEPTH,
    PAST_DEPTH,
    alias_of,
    is_annotated,
    marked,
    marker_name,
    parse_string,
    qualname,
    reaches_marker,
    unquoted,
)
from jaxrewrite.engine.read.scopes import Scope
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.table import ARRAY_DTYPES, ARRAY_PACKAGE, ARRAY_TYPES, CONTAINERS, MARKER_CONSTANTS, MARKER_TYPES, Mark

Marks = frozenset[Mark]
_NONE: Marks = frozenset()
_SINGLE = {mark: frozenset({mark}) for mark in Mark}
#: The same by the marker's exported name: a str key hashes in C, an enum's through Python.
_SINGLE_BY_NAME = {name: _SINGLE[mark] for name, mark in MARKER_TYPES.items()}
#: A marker inside ``Callable[[...], R]`` describes another function's parameter, not this one.
_CALLABLE = "typing.Callable"


class Kind(enum.Enum):
    POSITIONAL_ONLY = "positional-only"
    POSITIONAL_OR_KEYWORD = "positional-or-keyword"
    VAR_POSITIONAL = "*args"
    KEYWORD_ONLY = "keyword-only"
    VAR_KEYWORD = "**kwargs"


#: Members as module constants: on Python 3.11 every ``Kind.X`` lookup goes through
#: ``EnumType.__getattr__`` (~0.45 us), and these are read once per parameter of every def.
_POSITIONAL_ONLY = Kind.POSITIONAL_ONLY
_POSITIONAL_OR_KEYWORD = Kind.POSITIONAL_OR_KEYWORD
_VAR_POSITIONAL = Kind.VAR_POSITIONAL
_KEYWORD_ONLY = Kind.KEYWORD_ONLY
_VAR_KEYWORD = Kind.VAR_KEYWORD
_NO_ARGS: list[ast.arg] = []


class Param(NamedTuple):
    name: str
    kind: Kind
    #: Index among the parameters that can be passed by position, else None.
    position: int | None
    markers: Marks
    node: ast.arg


class Signature(NamedTuple):
    params: tuple[Param, ...]
    n_positional: int
    var_positional: bool
    #: Marked parameters whose type under the marker is an array type (``ARRAY_TYPES``), with
    #: that type as written: some rows take only non-array values at their static positions.
    arrays: tuple[tuple[str, str], ...] = ()

    def marked(self, markers: Marks) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.markers & markers)

    @property
    def has_markers(self) -> bool:
        return any(p.markers for p in self.params)

    def statics(self) -> tuple[tuple[str, Kind, int | None, Marks], ...]:
        """What makes two signatures equal for every transform: names, kinds, positions, markers."""
        return tuple((p.name, p.kind, p.position, p.markers) for p in self.params)


def read_signature(
    func: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, src: Source, relevant: set[str] | None = None
) -> Signature:
    """The signature of ``func`` with each parameter's markers; RewriteError on misuse.

    ``relevant`` (names that could spell a marker) lets annotations that mention none of
    them skip the analysis.
    """
    reader = MarkerReader(scope, src, relevant)
    args = func.args
    params: list[Param] = []
    arrays: list[tuple[str, str]] = []
    position = 0
    for kind, group in _groups(args):
        if not group:
            continue
        positional = kind is _POSITIONAL_ONLY or kind is _POSITIONAL_OR_KEYWORD
        for arg in group:
            markers = _NONE if arg.annotation is None else reader.markers(arg.annotation)
            if markers:
                if kind is _VAR_POSITIONAL or kind is _VAR_KEYWORD:
                    raise src.error(
                        arg,
                        "JR101",
                        f"{_spell(markers)} cannot mark {kind.value} parameter {arg.arg!r}: JAX can only treat "
                        f"named or positional parameters as static; {_instead_of_varargs(kind, arg, markers, src)}",
                    )
                array = array_type(arg.annotation, scope)
                if array is not None:
                    arrays.append((arg.arg, array))
            if positional:
                params.append(Param(arg.arg, kind, position, markers, arg))
                position += 1
            else:
                params.append(Param(arg.arg, kind, None, markers, arg))
    return Signature(tuple(params), position, args.vararg is not None, tuple(arrays))


def inner_type(ann: ast.expr | None, scope: Scope, depth: int = 0) -> ast.expr | None:
    """``T`` in ``Static[T]``, ``Annotated[T, STATIC]``, an alias of either or a string of either."""
    if ann is None or depth > MAX_DEPTH:
        return None
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return inner_type(parse_string(ann.value), scope, depth + 1)
    if isinstance(ann, ast.Subscript):
        base = qualname(ann.value, scope)
        if marker_name(base) in MARKER_TYPES:
            inner = ann.slice
            nested = inner_type(inner, scope, depth + 1)  # Static[NoDiff[T]]
            return nested if nested is not None else inner
        if is_annotated(base) and isinstance(ann.slice, ast.Tuple) and ann.slice.elts:
            first = ann.slice.elts[0]
            nested = inner_type(first, scope, depth + 1)
            return nested if nested is not None else first
        alias = alias_of(ann.value, scope)
        if alias is not None:  # S = Static[T] used as S[list]
            return ann.slice
        return None
    alias = alias_of(ann, scope)
    if alias is not None:
        return inner_type(alias.value, alias.scope, depth + 1)
    return None


def array_type(ann: ast.expr | None, scope: Scope) -> str | None:
    """The type under a marker as written, when it is an array type (``jax.Array``,
    ``jnp.ndarray``, jaxtyping's ``Float[Array, "n"]``...); None for any other or unknown type."""
    inner = unquoted(inner_type(ann, scope))
    if inner is None:
        return None
    head = inner.value if isinstance(inner, ast.Subscript) else inner
    name = qualname(head, scope)
    if name is None:
        return None
    if name in ARRAY_TYPES:
        return ast.unparse(inner)
    family, _, last = name.rpartition(".")
    if family.split(".")[0] == ARRAY_PACKAGE and last in ARRAY_DTYPES and isinstance(inner, ast.Subscript):
        return ast.unparse(inner)
    return None


def _groups(args: ast.arguments) -> tuple[tuple[Kind, list[ast.arg]], ...]:
    return (
        (_POSITIONAL_ONLY, args.posonlyargs),
        (_POSITIONAL_OR_KEYWORD, args.args),
        (_VAR_POSITIONAL, [args.vararg] if args.vararg else _NO_ARGS),
        (_KEYWORD_ONLY, args.kwonlyargs),
        (_VAR_KEYWORD, [args.kwarg] if args.kwarg else _NO_ARGS),
    )


def _spell(markers: Marks) -> str:
    return " and ".join(sorted(m.value for m in markers))


def _instead_of_varargs(kind: Kind, arg: ast.arg, markers: Marks, src: Source) -> str:
    """JR101's remedy, spelled with the user's own marker and type: one parameter holding them all."""
    ann = arg.annotation
    if isinstance(ann, ast.Subscript) and isinstance(ann.value, (ast.Name, ast.Attribute)):
        marker, inner = src.segment(ann.value), src.segment(ann.slice)
    else:  # a bare marker, a string annotation, an alias: the marker's own name
        marker, inner = min(m.value for m in markers), ""
    if kind is _VAR_POSITIONAL:
        held = f"tuple[{inner}, ...]" if inner else "tuple"
        return f"write one parameter instead, '{arg.arg}: {marker}[{held}]', and pass the values as one tuple"
    one = f"{marker}[{inner}]" if inner else marker
    return f"write each keyword as a keyword-only parameter instead ('*, name: {one}')"


class MarkerReader:
    """Finds the markers of one annotation, resolving names in the def's enclosing scope.

    Each (node, scope, depth) is read once per annotation (``_read``): an alias that names itself
    more than once (``C = C[C]``) branches at every level, and ``MAX_DEPTH`` levels of that were
    3**32 readings, an import that never ended. The answer is a function of those three (``where``
    only places an error, and an error ends the reading), so the memo changes no answer."""

    def __init__(self, scope: Scope, src: Source, relevant: set[str] | None = None) -> None:
        self.scope = scope
        self.src = src
        self.relevant = relevant
        #: (id(node), id(scope), depth, what) -> (the node, kept alive so its id is not reused; the
        #: answer). Per annotation: a deferred body walked later may bind more names.
        self._read: dict[tuple[int, int, int, bool], tuple[ast.AST, Marks | None]] = {}

    def markers(self, ann: ast.expr) -> Marks:
        if not self._relevant(ann):
            return _NONE
        try:
            return self._top(ann, self.scope, ann, 0)
        finally:
            self._read.clear()

    def _relevant(self, expr: ast.AST) -> bool:
        return self.relevant is None or may_mark(expr, self.relevant)

    def _top(self, expr: ast.expr, scope: Scope, where: ast.expr, depth: int) -> Marks:
        key = (id(expr), id(scope), depth, True)
        known = self._read.get(key)
        if known is not None:
            return known[1]  # type: ignore[return-value]
        found = self._top_once(expr, scope, where, depth)
        self._read[key] = (expr, found)
        return found

    def _top_once(self, expr: ast.expr, scope: Scope, where: ast.expr, depth: int) -> Marks:
        """Markers of ``expr`` as an outermost annotation; ``where`` locates errors. Past
        ``MAX_DEPTH`` (aliases of aliases, annotations in annotations, or a loop of aliases) it
        cannot tell, and says so: answering "no marker" would drop one silently."""
        if depth > MAX_DEPTH:
            if not reaches_marker(expr, scope):
                return _NONE  # a loop of plain type aliases (``Tree = dict[str, "Tree"]``): no marker
            raise self.src.error(
                where,
                "JR127",
                f"cannot tell whether {self.src.segment(where)} holds a marker: {PAST_DEPTH}; spell the marker "
                "(or an alias of it) directly in the annotation",
            )
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            parsed = parse_string(expr.value)
            return frozenset() if parsed is None else self._top(parsed, scope, where, depth + 1)
        if isinstance(expr, (ast.Name, ast.Attribute)):
            return self._reference(expr, scope, where, depth)
        if isinstance(expr, ast.Subscript):
            return self._subscript(expr, scope, where, depth)
        if isinstance(expr, ast.Call) and qualname(expr.func, scope) in CONTAINERS:
            return _NONE  # a functional TypedDict/NamedTuple: its Static fields are per-leaf statics
        self._forbid_inside(expr, scope, where, depth)
        return frozenset()

    def _reference(self, expr: ast.expr, scope: Scope, where: ast.expr, depth: int) -> Marks:
        name = marker_name(qualname(expr, scope))
        if name in MARKER_TYPES:
            return _SINGLE_BY_NAME[name]  # bare ``Static`` means ``Static[Any]``
        outer = marked(expr, scope)
        if outer is not None:
            return outer.markers
        alias = alias_of(expr, scope)
        if alias is None:
            return frozenset()
        found = self._top(alias.value, alias.scope, where, depth + 1)
        if found and alias.type_statement:
            raise self.src.error(
                where,
                "JR103",
                f"{ast.unparse(expr)} is a 'type' statement alias, which hides its Annotated metadata; "
                f"write '{ast.unparse(expr)} = ...' instead",
            )
        return found

    def _subscript(self, expr: ast.Subscript, scope: Scope, where: ast.expr, depth: int) -> Marks:
        base = qualname(expr.value, scope)
        base_name = marker_name(base)
        if base_name in MARKER_TYPES:
            # Static[NoDiff[T]] flattens like nested Annotated: both markers count.
            inner = self._top(expr.slice, scope, where, depth + 1) if self._relevant(expr.slice) else _NONE
            return _SINGLE_BY_NAME[base_name] | inner
        if base == _CALLABLE:
            return _NONE  # Callable[[jax.Array, Static[int]], R]: the callee's parameters, not ours
        if is_annotated(base):
            items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
            found = set(self._top(items[0], scope, where, depth + 1) if self._relevant(items[0]) else ())
            for meta in items[1:]:
                const = marker_name(qualname(meta, scope))
                if const in MARKER_CONSTANTS:
                    found.add(MARKER_CONSTANTS[const])
            return frozenset(found)
        alias = alias_of(expr.value, scope)
        if alias is not None:
            generic = self._top(alias.value, alias.scope, where, depth + 1)
            if generic:  # ``S = Static[T]`` used as ``S[int]``
                self._forbid_inside(expr.slice, scope, where, depth)
                return generic
        self._forbid_inside(expr, scope, where, depth)
        return frozenset()

    def _forbid_inside(self, expr: ast.AST, scope: Scope, where: ast.expr, depth: int) -> None:
        """RewriteError if a marker hides anywhere strictly inside ``expr``."""
        key = (id(expr), id(scope), depth, False)
        if key in self._read:
            return  # read already, and found nothing (a marker would have ended the reading)
        self._read[key] = (expr, None)
        for child in ast.iter_child_nodes(expr):
            if not self._relevant(child):
                continue
            if not isinstance(child, ast.expr):
                self._forbid_inside(child, scope, where, depth + 1)
            elif self._top(child, scope, where, depth + 1):
                self._nested(child, where)

    def _nested(self, node: ast.AST, where: ast.expr) -> None:
        raise self.src.error(
            where,
            "JR102",
            f"a marker must be the outermost annotation, but {ast.unparse(node)} is nested inside "
            f"{self.src.segment(where)}; put the marker outside, e.g. Static[Optional[int]] rather "
            "than Optional[Static[int]]",
        )


def may_mark(node: ast.AST | None, names: set[str]) -> bool:
    """Could this expression name a marker? Cheap: called on every annotation of a module."""
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
    if node is None:
        return False
    return any(may_mark(child, names) for child in ast.iter_child_nodes(node))

