"""JR004: markers under ``@my_jit`` or ``eqx.filter_jit(f)`` never get their keywords."""

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
        marked, under = list(record.marked), ast.unparse(record.unknown)
        said = {"spelled": spell(marked), "func": record.node.name, "under": under}
        es = "" if len(marked) > 1 else "es"
        found.append(Diagnostic.at(ctx.src, record.unknown, RULE, es=es, **said))
    return found


def spell(params: list[Param]) -> str:
    names = ", ".join(repr(p.name) for p in params)
    return f"the marker{'s' if len(params) > 1 else ''} on {names}"
