"""Reading a class's fields from source: which are Static, and what kind of container it is.

Used for dataclass registration (Static fields become ``meta_fields``) and for per-leaf
statics (a TypedDict or NamedTuple whose Static entries are split out per call).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxrewrite.resolve import qualname
from jaxrewrite.scopes import DefinedClass, Scope
from jaxrewrite.signature import MarkerReader
from jaxrewrite.source import Source
from jaxrewrite.transforms import STATIC

_KINDS = {
    "typing.TypedDict": "dict",
    "typing_extensions.TypedDict": "dict",
    "typing.NamedTuple": "namedtuple",
    "typing_extensions.NamedTuple": "namedtuple",
}
#: Bases that add no fields.
_NEUTRAL = {"typing.Generic", "typing.Protocol", "typing_extensions.Protocol", "abc.ABC", "object"}
_NOT_FIELDS = {"typing.ClassVar", "typing_extensions.ClassVar", "dataclasses.InitVar", "dataclasses.KW_ONLY"}
_MAX_DEPTH = 16


@dataclass(frozen=True)
class Field:
    name: str
    markers: frozenset[str]
    #: False for ``field(init=False)``: JAX's register_dataclass leaves those out.
    init: bool
    node: ast.AnnAssign


@dataclass(frozen=True)
class ClassInfo:
    node: ast.ClassDef
    #: "dict" (TypedDict), "namedtuple" (NamedTuple) or "class" (anything else).
    kind: str
    fields: tuple[Field, ...]
    #: The first base class whose fields cannot be seen in this module, if any.
    unseen_base: ast.expr | None

    @property
    def static_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.markers)


def read_class(
    defined: DefinedClass, scope: Scope, src: Source, relevant: set[str] | None = None, depth: int = 0
) -> ClassInfo:
    """Fields in definition order, base classes of this module first, like dataclasses do."""
    node = defined.node
    kind = "class"
    inherited: dict[str, Field] = {}
    unseen: ast.expr | None = None
    for base in node.bases:
        target = base.value if isinstance(base, ast.Subscript) else base
        name = qualname(target, scope)
        if name in _KINDS:
            kind = _KINDS[name]
            continue
        if name in _NEUTRAL:
            continue
        local = local_class(target, scope)
        if local is None or depth > _MAX_DEPTH:
            unseen = unseen or base
            continue
        info = read_class(local[0], local[1], src, relevant, depth + 1)
        kind = info.kind if info.kind != "class" else kind
        unseen = unseen or info.unseen_base
        for inherited_field in info.fields:
            inherited[inherited_field.name] = inherited_field
    reader = MarkerReader(defined.body, src, relevant)
    own: dict[str, Field] = {}
    for stmt in node.body:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        ann = stmt.annotation
        head = ann.value if isinstance(ann, ast.Subscript) else ann
        if qualname(head, defined.body) in _NOT_FIELDS:
            continue
        markers = reader.markers(ann) | _metadata_static(stmt.value, defined.body)
        own[stmt.target.id] = Field(stmt.target.id, markers, _init(stmt.value, defined.body), stmt)
    merged = {**inherited, **own}
    # An overridden field keeps its base-class position, as in dataclasses.
    order = [*inherited, *(name for name in own if name not in inherited)]
    return ClassInfo(node, kind, tuple(merged[name] for name in order), unseen)


def local_class(expr: ast.expr, scope: Scope) -> tuple[DefinedClass, Scope] | None:
    """The class of this module a name refers to, with the scope holding its definition."""
    if not isinstance(expr, ast.Name):
        return None
    found = scope.lookup(expr.id)
    if found is None or len(found[0]) != 1 or not isinstance(found[0][0], DefinedClass):
        return None
    defined = found[0][0]
    enclosing = defined.body.parent
    return (defined, enclosing) if enclosing is not None else None


def _init(value: ast.expr | None, scope: Scope) -> bool:
    if not isinstance(value, ast.Call):
        return True
    if qualname(value.func, scope) != "dataclasses.field":
        return True
    for kw in value.keywords:
        if kw.arg == "init" and isinstance(kw.value, ast.Constant) and kw.value.value is False:
            return False
    return True


def _metadata_static(value: ast.expr | None, scope: Scope) -> frozenset[str]:
    """``field(metadata={"static": True})``: JAX's own spelling of a static dataclass field."""
    if not isinstance(value, ast.Call) or qualname(value.func, scope) != "dataclasses.field":
        return frozenset()
    for kw in value.keywords:
        if kw.arg == "metadata":
            try:
                metadata = ast.literal_eval(kw.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return frozenset()
            if isinstance(metadata, dict) and metadata.get("static") is True:
                return frozenset({STATIC})
    return frozenset()
