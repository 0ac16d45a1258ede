"""JR008: Static on a field of an NNX or Linen Module (static already), and what the ledger
(``findings/ledger.py``) finds."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxrewrite.engine.findings import ledger
from jaxrewrite.engine.findings.context import Context, Function
from jaxrewrite.engine.read.classes import local_class
from jaxrewrite.engine.read.markers import MarkerReader
from jaxrewrite.engine.read.nodes import walk as walk_nodes
from jaxrewrite.engine.read.resolve import qualname
from jaxrewrite.engine.read.scopes import DefinedClass, Scope
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import Rule
from jaxrewrite.engine.rulebook.table import Mark
from jaxrewrite.errors import RewriteError

if TYPE_CHECKING:
    from jaxrewrite.engine.walk.walker import Walked

RULE = Rule(
    "JR008",
    "a Static/NoDiff marker that does nothing here and that no other finding reports",
    (
        "{spelled} on {what!r} does nothing: no transform of this module applies to its "
        "function; mark the parameters of the function a transform is applied to (see "
        "{see[5-what-counts-as-static]})"
    ),
    "write the marker where a transform or registration reads it, or drop it",
    "never-silent-every-marker-applied-refused-or-reported",
    field=(
        "{spelled} on field {what!r} does nothing: no registration of this module "
        "(register_dataclass, an Equinox Module, a flax.struct dataclass) and no transform "
        "that splits a parameter annotated with its class reads it; register the class, or "
        "annotate a parameter of a transformed def with it (see "
        "{see[8-static-parts-of-one-argument-dataclasses-typeddicts-namedtuples]})"
    ),
    spelling=(
        "{spelled} on {what!r} does nothing: jaxrewrite reads a marker only as the outermost "
        "annotation (Static[T], NoDiff[T], Annotated[T, STATIC] or a module alias of one), "
        "not in this spelling; write it so (see {see[5-what-counts-as-static]})"
    ),
    under=(
        "{spelled} on {what!r} does nothing under {under}: NoDiff is read by grad-like "
        "transforms and custom_vjp/custom_jvp, Static by the others; apply a transform that "
        "reads it, or drop the marker (see {see[6-which-transforms-which-spellings]})"
    ),
    returned=(
        "a marker on a return annotation does nothing: only parameters and pytree class "
        "fields are read"
    ),
    variable=(
        "a marker on the annotation of variable {what!r} does nothing: only parameters and "
        "fields of classes are read"
    ),
    nnx="{spelled} on attribute {what!r} of an NNX Module does nothing: NNX treats "
    "the attributes that are not arrays or nnx.Variable as static already (they are part of "
    "the graph definition nnx.split and nnx.jit key on, never traced); drop the marker",
    linen="{spelled} on field {what!r} of a Linen Module does nothing: a Linen Module's "
    "fields are dataclass attributes, not pytree leaves, so a transform of its apply traces "
    "only the variables and the arguments passed, and the fields are static already; drop "
    "the marker",
    alias=(
        "marker alias {what!r} is used by no annotation of this module that jaxrewrite "
        "applies, and an alias imported into another module does nothing there (jaxrewrite "
        "reads each module's own aliases only): define the alias in the module that uses it"
    ),
    details=(
        " (the ledger): the marker type as `Annotated` metadata beside other metadata, NoDiff "
        "under a transform that never differentiates, a variable's or a return value's "
        "annotation, a field no registration or transform reads, an alias nothing uses"
    ),
    at_import=True,
)


def check(ctx: Context) -> list[Diagnostic]:
    """The Flax Module fields, then the ledger, which reads every finding before it and adds its
    own to the analysis."""
    ctx.result.diagnostics.extend(_flax_module_fields(ctx.walk))
    ledger.build(ctx, RULE)
    return []


#: The Flax Module bases whose fields are static without a marker, with JR008's variant.
_FLAX_MODULES = {"flax.nnx.Module": "nnx", "flax.nnx.Object": "nnx", "flax.linen.Module": "linen"}


def _flax_module_fields(walk: Walked) -> list[Diagnostic]:
    """Static on a field of a class deriving from one of ``_FLAX_MODULES``."""
    found: list[Diagnostic] = []
    for defined, scope in walk.tree.classes:
        kind = _flax_kind(defined, scope, 0)
        if kind is None:
            continue
        body = defined.node.body
        own = [s for s in body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
        fields = [(s, s.target.id) for s in own]  # type: ignore[union-attr]
        for method in body if kind == "nnx" else ():
            # ``self.n: Static[int] = n`` in a method: the attribute NNX keeps in its graph.
            args = method.args if isinstance(method, Function) else None
            first = [*args.posonlyargs, *args.args][:1] if args else []
            for s in walk_nodes(method) if first else ():
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Attribute):
                    if ast.unparse(s.target.value) == first[0].arg:
                        fields.append((s, s.target.attr))
        reader = MarkerReader(defined.body, walk.src, walk.relevant)
        for stmt, name in fields:
            try:
                marks = reader.markers(stmt.annotation)
            except RewriteError:
                continue  # reported where it is read
            if Mark.STATIC in marks:
                what = f"{defined.node.name}.{name}"
                found.append(Diagnostic.at(walk.src, stmt, RULE, kind, spelled="Static", what=what))
    return found


def _flax_kind(defined: DefinedClass, scope: Scope, depth: int) -> str | None:
    """``"nnx"`` or ``"linen"``: the class derives from that Flax Module (through local classes)."""
    for base in defined.node.bases if depth < 32 else ():
        kind = _FLAX_MODULES.get(qualname(base, scope) or "")
        local = local_class(base, scope) if kind is None else None
        if local is not None and isinstance(local[0], DefinedClass):
            kind = _flax_kind(local[0], local[1], depth + 1)
        if kind is not None:
            return kind
    return None
