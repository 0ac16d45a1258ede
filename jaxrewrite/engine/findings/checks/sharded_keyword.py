"""JR010: a keyword-only Static parameter under ``in_shardings`` can never be passed."""

from __future__ import annotations

from collections.abc import Iterator

from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.read.signature import Kind
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import Rule

RULE = Rule(
    "JR010",
    (
        "a keyword-only Static parameter of a function jitted with 'in_shardings', which refuses "
        "every keyword argument"
    ),
    (
        "{name!r} is a keyword-only Static parameter of {func!r}, jitted with 'in_shardings': "
        "JAX refuses every keyword argument of such a function ('pjit does not support kwargs "
        "when in_shardings is specified'), so it can never be passed; make it a positional "
        "parameter (passed by position), or drop 'in_shardings'"
    ),
    "make it a positional parameter, or drop 'in_shardings'",
    details=": the function can never be called with it",
)


def check(ctx: Context) -> Iterator[Diagnostic]:
    result, src = ctx.result, ctx.src
    for use in result.uses:
        refusing = use.transform.refuses_kwargs_with
        if refusing is None or not any(k.arg == refusing for k in use.written):
            continue
        for param in use.signature.marked(use.transform.markers):
            if param.kind is Kind.KEYWORD_ONLY:
                yield Diagnostic.at(src, param.node, RULE, name=param.name, func=use.target.name)
