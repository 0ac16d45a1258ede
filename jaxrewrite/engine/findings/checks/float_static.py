"""JR016. A Static float field is not reported: its value is set per instance (``eps``), not
passed anew at every call as a learning rate is, and no transform is seen to hash it."""

from __future__ import annotations

import ast

from jaxrewrite.engine.findings.checks.unhashable_static import static_type
from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.read.markers import inner_type
from jaxrewrite.engine.read.scopes import Scope
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import Rule
from jaxrewrite.engine.rulebook.table import Mark

RULE = Rule(
    "JR016",
    "a Static parameter annotated float, which recompiles the function for each distinct value",
    (
        "{name!r} is Static and annotated float: {transform} compiles {func!r} anew for each "
        "distinct value passed to it (a learning rate or a time step that changes every call "
        "recompiles every call); drop Static so that it is traced, unless it takes only a few "
        "values"
    ),
    "drop Static (a traced float is one compilation for every value), or keep it for a few values",
    details=(
        ": a static argument is a key of the compilation cache, so every new value is traced and "
        "compiled again; a traced scalar is compiled once"
    ),
)


def check(ctx: Context) -> list[Diagnostic]:
    hashing = {  # the first use that hashes names the transform
        id(use.target): use.transform.name
        for use in reversed(ctx.result.uses)
        if use.transform.hashes_statics
    }
    found = []
    for record in ctx.marked_defs:
        transform = hashing.get(id(record.node))
        if transform is None:
            continue  # no transform hashes its statics: JR002 or nothing to say
        scope = record.scope.annotating(record.node)
        for param in record.marked:
            if Mark.STATIC in param.markers and _is_float(param.node.annotation, scope):
                fields = {"name": param.name, "transform": transform, "func": record.node.name}
                found.append(Diagnostic.at(ctx.src, param.node, RULE, **fields))
    return found


def _is_float(annotation: ast.expr | None, scope: Scope) -> bool:
    found = static_type(inner_type(annotation, scope), scope)
    return (
        found is not None
        and found[1] == "builtins.float"
        and not isinstance(found[0], ast.Subscript)
    )
