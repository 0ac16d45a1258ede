"""JR004: markers of a def under a decorator or call that looks like a transform jaxrewrite does
not know (``@my_jit``, ``eqx.filter_jit(f)``), which never gets their keywords."""

from __future__ import annotations

import ast

from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.read.signature import Param
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import Rule

RULE = Rule(
    "JR004",
    "Static under a decorator or call that looks like a transform but is not one jaxrewrite knows",
    (
        "{spelled} of {func!r} do{es} nothing under {under!r}: jaxrewrite does not know it as a "
        "JAX transform, so it never writes its static keywords; pass the static arguments to it "
        "yourself, or apply a transform jaxrewrite knows (see "
        "{see[6-which-transforms-which-spellings]})"
    ),
    "pass the static arguments to it yourself, or apply a transform jaxrewrite knows",
    details=(
        " (`equinox.filter_jit`, `numba.jit`, a project's own `my_jit`; as a decorator, "
        "`@nnx.scan` too)"
    ),
    at_import=True,
)


def check(ctx: Context) -> list[Diagnostic]:
    found = []
    for record in ctx.marked_defs:
        if record.refused or record.unknown is None:
            continue  # a refused use (JR104, JR127) says what to do itself
        marked = list(record.marked)
        found.append(
            Diagnostic.at(
                ctx.src,
                record.unknown,
                RULE,
                spelled=spell(marked),
                func=record.node.name,
                es="" if len(marked) > 1 else "es",
                under=ast.unparse(record.unknown),
            )
        )
    return found


def spell(params: list[Param]) -> str:
    names = ", ".join(repr(p.name) for p in params)
    return f"the marker{'s' if len(params) > 1 else ''} on {names}"
