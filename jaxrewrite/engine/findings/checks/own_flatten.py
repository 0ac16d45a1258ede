"""JR020: the user's own flatten decides what is static (its aux data), not the marker."""

from __future__ import annotations

import ast

from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import LEAVES, Rule
from jaxrewrite.engine.rulebook.table import Mark

RULE = Rule(
    "JR020",
    "a Static field of a class registered by its own flatten function",
    (
        "Static on field {name!r} of {cls!r} does nothing: the class is registered by {how!r}, "
        "so its own flatten decides what is static (the aux data), and jaxrewrite cannot see it; "
        "put the field in the aux data yourself and drop the marker, or register the class with "
        "jax.tree_util.register_dataclass (or make it an eqx.Module or a flax.struct dataclass) "
        "so that the marker makes it a static field"
    ),
    "put the field in the aux data yourself, or register the class with register_dataclass",
    LEAVES,
    details=(
        " (`register_pytree_node_class` and kin, [section 8]("
        "leaves.md#8-static-parts-of-one-argument-dataclasses-typeddicts-namedtuples)): it does "
        "nothing"
    ),
    at_import=True,
)


def check(ctx: Context) -> list[Diagnostic]:
    found = []
    for node, registering in ctx.walk.opaque:
        info = ctx.walk.class_info.get(id(node))
        if info is None:
            continue
        how = ast.unparse(registering)
        found += [
            Diagnostic.at(ctx.src, f.node, RULE, name=f.name, cls=node.name, how=how)
            for f in info.fields
            if Mark.STATIC in f.markers and f.node in node.body
        ]
    return found
