"""A ``def``'s signature from source: parameter kinds and positions, each with its markers."""

from __future__ import annotations

import ast
import enum
from typing import NamedTuple

from jaxrewrite.engine.read.markers import NO_MARKS, MarkerReader, MarkIndex, Marks, inner_type
from jaxrewrite.engine.read.resolve import qualname, unquoted
from jaxrewrite.engine.read.scopes import Scope
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import ARRAY_DTYPES, ARRAY_PACKAGE, ARRAY_TYPES


class Kind(enum.Enum):
    """In the order a signature lists them."""

    POSITIONAL_ONLY = "positional-only"
    POSITIONAL_OR_KEYWORD = "positional-or-keyword"
    VAR_POSITIONAL = "*args"
    KEYWORD_ONLY = "keyword-only"
    VAR_KEYWORD = "**kwargs"


class Param(NamedTuple):
    #: The first four fields are what makes two signatures equal for every transform.
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


def read_signature(
    func: ast.FunctionDef | ast.AsyncFunctionDef,
    scope: Scope,
    src: Source,
    relevant: set[str] | None = None,
    index: MarkIndex | None = None,
) -> Signature:
    """The signature of ``func`` with each parameter's markers; RewriteError on misuse.
    ``relevant``: the names that could spell a marker (``MarkerReader``)."""
    scope = scope.annotating(func)  # a generic def's type parameters shadow outer names (PEP 695)
    reader = MarkerReader(scope, src, relevant, index)
    args = func.args
    params: list[Param] = []
    arrays: list[tuple[str, str]] = []
    position = 0
    vararg, kwarg = [args.vararg] if args.vararg else [], [args.kwarg] if args.kwarg else []
    for kind, group in zip(Kind, (args.posonlyargs, args.args, vararg, args.kwonlyargs, kwarg)):
        positional = kind in (Kind.POSITIONAL_ONLY, Kind.POSITIONAL_OR_KEYWORD)
        for arg in group:
            markers = NO_MARKS if arg.annotation is None else reader.markers(arg.annotation)
            if markers and kind in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD):
                raise rules.MARKED_VARARGS.error(
                    src,
                    arg,
                    spelled=" and ".join(sorted(m.value for m in markers)),
                    kind=kind.value,
                    name=arg.arg,
                    instead=_instead_of_varargs(kind, arg, markers, src),
                )
            array = array_type(inner_type(arg.annotation, scope), scope) if markers else None
            if array is not None:
                arrays.append((arg.arg, array))
            params.append(Param(arg.arg, kind, position if positional else None, markers, arg))
            position += positional
    return Signature(tuple(params), position, args.vararg is not None, tuple(arrays))


def array_type(under: ast.expr | None, scope: Scope) -> str | None:
    """The type under a marker as written, when it is an array type (``jax.Array``,
    ``jnp.ndarray``, jaxtyping's ``Float[Array, "n"]``...)."""
    inner = unquoted(under)
    head = inner.value if isinstance(inner, ast.Subscript) else inner
    name = None if head is None else qualname(head, scope)
    if inner is None or name is None:
        return None
    family, _, last = name.rpartition(".")
    jaxtyping = family.split(".")[0] == ARRAY_PACKAGE and last in ARRAY_DTYPES
    if name in ARRAY_TYPES or jaxtyping and isinstance(inner, ast.Subscript):
        return ast.unparse(inner)
    return None


def _instead_of_varargs(kind: Kind, arg: ast.arg, markers: Marks, src: Source) -> str:
    """JR101's remedy, spelled with the user's own marker and type: one parameter holding them
    all."""
    ann = arg.annotation
    if isinstance(ann, ast.Subscript) and isinstance(ann.value, (ast.Name, ast.Attribute)):
        marker, inner = src.segment(ann.value), src.segment(ann.slice)
    else:  # a bare marker, a string annotation, an alias: the marker's own name
        marker, inner = min(m.value for m in markers), ""
    if kind is Kind.VAR_POSITIONAL:
        held = f"tuple[{inner}, ...]" if inner else "tuple"
        return (
            f"write one parameter instead, '{arg.arg}: {marker}[{held}]', and pass the values as "
            "one tuple"
        )
    one = f"{marker}[{inner}]" if inner else marker
    return f"write each keyword as a keyword-only parameter instead ('*, name: {one}')"
