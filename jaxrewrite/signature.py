"""Reading a ``def``'s signature from source: parameter kinds, positions and markers.

A marker counts only as the outermost annotation (``Static[T]``, ``Annotated[T, STATIC]``,
an alias of either, or a string holding one); anywhere deeper it is an error, because
``Optional[Static[int]]`` would otherwise compile and silently mean "not static".
"""

from __future__ import annotations

import ast
import enum
from typing import NamedTuple

from jaxrewrite.resolve import alias_of, is_annotated, marker_name, qualname
from jaxrewrite.scopes import Scope
from jaxrewrite.source import Source
from jaxrewrite.transforms import NODIFF, STATIC

_FACTORY = {"Static": STATIC, "NoDiff": NODIFF}
_NONE: frozenset[str] = frozenset()
_SINGLE = {STATIC: frozenset({STATIC}), NODIFF: frozenset({NODIFF})}
_CONSTANT = {"STATIC": STATIC, "NODIFF": NODIFF}
_MAX_DEPTH = 32


class Kind(enum.Enum):
    POSITIONAL_ONLY = "positional-only"
    POSITIONAL_OR_KEYWORD = "positional-or-keyword"
    VAR_POSITIONAL = "*args"
    KEYWORD_ONLY = "keyword-only"
    VAR_KEYWORD = "**kwargs"


class Param(NamedTuple):
    name: str
    kind: Kind
    #: Index among the parameters that can be passed by position, else None.
    position: int | None
    markers: frozenset[str]
    node: ast.arg

    @property
    def by_keyword(self) -> bool:
        return self.kind in (Kind.POSITIONAL_OR_KEYWORD, Kind.KEYWORD_ONLY)


class Signature(NamedTuple):
    params: tuple[Param, ...]
    n_positional: int
    var_positional: bool
    var_keyword: bool

    def marked(self, markers: frozenset[str]) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.markers & markers)

    def named(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name and p.kind not in _VARIADIC), None)

    def at(self, position: int) -> Param | None:
        return next((p for p in self.params if p.position == position), None)

    @property
    def has_markers(self) -> bool:
        return any(p.markers for p in self.params)


_VARIADIC = (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)


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
    position = 0
    for kind, group in _groups(args):
        positional = kind is Kind.POSITIONAL_ONLY or kind is Kind.POSITIONAL_OR_KEYWORD
        for arg in group:
            markers = _NONE if arg.annotation is None else reader.markers(arg.annotation)
            if markers and (kind is Kind.VAR_POSITIONAL or kind is Kind.VAR_KEYWORD):
                raise src.error(
                    arg,
                    f"{_spell(markers)} cannot mark {kind.value} parameter {arg.arg!r}: JAX can only treat "
                    "named or positional parameters as static",
                )
            if positional:
                params.append(Param(arg.arg, kind, position, markers, arg))
                position += 1
            else:
                params.append(Param(arg.arg, kind, None, markers, arg))
    return Signature(tuple(params), position, args.vararg is not None, args.kwarg is not None)


def _groups(args: ast.arguments) -> tuple[tuple[Kind, list[ast.arg]], ...]:
    return (
        (Kind.POSITIONAL_ONLY, args.posonlyargs),
        (Kind.POSITIONAL_OR_KEYWORD, args.args),
        (Kind.VAR_POSITIONAL, [args.vararg] if args.vararg else []),
        (Kind.KEYWORD_ONLY, args.kwonlyargs),
        (Kind.VAR_KEYWORD, [args.kwarg] if args.kwarg else []),
    )


def _spell(markers: frozenset[str]) -> str:
    return " and ".join(sorted("Static" if m == STATIC else "NoDiff" for m in markers))


class MarkerReader:
    """Finds the markers of one annotation, resolving names in the def's enclosing scope."""

    def __init__(self, scope: Scope, src: Source, relevant: set[str] | None = None) -> None:
        self.scope = scope
        self.src = src
        self.relevant = relevant

    def markers(self, ann: ast.expr) -> frozenset[str]:
        if not self._relevant(ann):
            return _NONE
        return self._top(ann, self.scope, ann, 0)

    def _relevant(self, expr: ast.AST) -> bool:
        return self.relevant is None or may_mark(expr, self.relevant)

    def _top(self, expr: ast.expr, scope: Scope, where: ast.expr, depth: int) -> frozenset[str]:
        """Markers of ``expr`` as an outermost annotation; ``where`` locates errors."""
        if depth > _MAX_DEPTH:
            return _NONE
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            parsed = _parse_string(expr.value)
            return frozenset() if parsed is None else self._top(parsed, scope, where, depth + 1)
        if isinstance(expr, (ast.Name, ast.Attribute)):
            return self._reference(expr, scope, where, depth)
        if isinstance(expr, ast.Subscript):
            return self._subscript(expr, scope, where, depth)
        self._forbid_inside(expr, scope, where, depth)
        return frozenset()

    def _reference(self, expr: ast.expr, scope: Scope, where: ast.expr, depth: int) -> frozenset[str]:
        name = marker_name(qualname(expr, scope))
        if name in _FACTORY:
            return _SINGLE[_FACTORY[name]]  # bare ``Static`` means ``Static[Any]``
        alias = alias_of(expr, scope)
        if alias is None:
            return frozenset()
        found = self._top(alias.value, alias.scope, where, depth + 1)
        if found and alias.type_statement:
            raise self.src.error(
                where,
                f"{ast.unparse(expr)} is a 'type' statement alias, which hides its Annotated metadata; "
                f"write '{ast.unparse(expr)} = ...' instead",
            )
        return found

    def _subscript(self, expr: ast.Subscript, scope: Scope, where: ast.expr, depth: int) -> frozenset[str]:
        base_name = marker_name(qualname(expr.value, scope))
        if base_name in _FACTORY:
            # Static[NoDiff[T]] flattens like nested Annotated: both markers count.
            inner = self._top(expr.slice, scope, where, depth + 1) if self._relevant(expr.slice) else _NONE
            return _SINGLE[_FACTORY[base_name]] | inner
        if is_annotated(qualname(expr.value, scope)):
            items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
            found = set(self._top(items[0], scope, where, depth + 1) if self._relevant(items[0]) else ())
            for meta in items[1:]:
                const = marker_name(qualname(meta, scope))
                if const in _CONSTANT:
                    found.add(_CONSTANT[const])
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


def _parse_string(text: str) -> ast.expr | None:
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
