"""JR014: per-leaf statics split the parameters of transformed defs, never fields."""

from __future__ import annotations

import ast

from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.read.classes import form_of
from jaxrewrite.engine.read.markers import MarkerReader, may_mark
from jaxrewrite.engine.read.recognise import classify_registration
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import LEAVES, Rule
from jaxrewrite.engine.rulebook.table import EITHER_FORM
from jaxrewrite.errors import RewriteError

RULE = Rule(
    "JR014",
    (
        "a TypedDict or NamedTuple with Static entries held in a field of a pytree class, which "
        "flattens it: the entries are traced"
    ),
    (
        "field {field!r} of {cls!r} ({library} class) holds {held!r}, whose Static entries "
        "({entries}) split a parameter of a transformed def only: a field is flattened like any "
        "pytree, so they are traced here; mark the field Static[...] whole, or make them Static "
        "fields of {cls!r}"
    ),
    "mark the field Static whole, or make the entries Static fields of the class",
    LEAVES,
    details=(
        "; mark the field Static whole, or make them Static fields of the class ([section 8]("
        "leaves.md#8-static-parts-of-one-argument-dataclasses-typeddicts-namedtuples)). A pytree "
        "class: an Equinox Module, a flax.struct or a registered dataclass"
    ),
    at_import=True,
)


def check(ctx: Context) -> list[Diagnostic]:
    walk, found = ctx.walk, []
    for defined, scope in walk.tree.classes if walk.leaf_names else ():
        for stmt in defined.node.body:
            if not isinstance(stmt, ast.AnnAssign) or not may_mark(
                stmt.annotation, walk.leaf_names
            ):
                continue
            try:
                if MarkerReader(defined.body, walk.src, None).markers(stmt.annotation):
                    continue  # Static[Cfg]: the whole field is static
                held = walk.leaf_class(stmt.annotation, defined.body)
                info = walk.info(held[0]) if held is not None else None
                if info is None or not info.static_fields:
                    continue
                form, unseen = form_of(defined, scope)
            except RewriteError:
                continue  # reported where it is read
            registered = any(classify_registration(d, scope) for d in defined.node.decorator_list)
            if form is None and not registered and unseen is None:
                continue  # no pytree class: its fields are no leaves
            library = form.library if form else "registered" if registered else EITHER_FORM.library
            said = dict(field=ast.unparse(stmt.target), cls=defined.node.name, held=info.name)
            said["entries"] = ", ".join(repr(f.name) for f in info.static_fields)
            found.append(Diagnostic.at(walk.src, stmt.annotation, RULE, library=library, **said))
    return found
