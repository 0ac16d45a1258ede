"""JR007: a transform over ``partial(f, x)`` and the like, which the walk cannot see through."""

from __future__ import annotations

import ast

from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import Rule

RULE = Rule(
    "JR007",
    "a transform over something made from a marked def that may change its arguments",
    (
        "the Static/NoDiff parameters of {func!r} are not applied by {transform!r} here: its "
        "argument {arg!r} is made from {func!r} by something other than the transforms "
        "jaxrewrite knows and one-argument wrappers, so which parameters it receives cannot be "
        "told; pass its static keywords yourself, or apply the transform to the def"
    ),
    "pass the static keywords yourself, or apply the transform to the def",
    details=(
        " (`jax.jit(partial(f, x))`, `g = partial(f, x)` then `jax.vmap(g)`): its Static "
        "parameters are not written there"
    ),
    at_import=True,
)


def check(ctx: Context) -> list[Diagnostic]:
    found = []
    for call, func in ctx.walk.unseen:
        said = {"transform": ast.unparse(call.func), "arg": ast.unparse(call.args[0])}
        found.append(Diagnostic.at(ctx.src, call.args[0], RULE, func=func.name, **said))
    return found
