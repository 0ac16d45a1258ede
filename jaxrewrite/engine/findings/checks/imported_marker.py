"""JR009: each such name is an entry of the ledger, settled with the other markers (refused with its
def, reported by a finding about it), so JR008's check, which runs the ledger, says it."""

from __future__ import annotations

from jaxrewrite.engine.rulebook.rules import CHECK, Rule

RULE = Rule(
    "JR009",
    (
        "a name imported from another module where a marker would act: jaxrewrite reads only the "
        "module's own aliases"
    ),
    (
        "{name!r} in the annotation of {param!r} comes from '{imported}', which jaxrewrite does "
        "not read, so whether it is a Static/NoDiff alias cannot be told; if it is one, it does "
        "nothing here: define the alias in this module (or write Static[...] here)"
    ),
    "define the alias in this module, or write Static[...] here",
    CHECK,
    read=(
        "{name!r} in the annotation of {param!r} is {verdict} in {module}, but jaxrewrite "
        "reads only this module's {what}, so its markers do nothing here: define it in this "
        "module (or write Static[...] here)"
    ),
    details=(
        "; `check` follows the import to its file and stays quiet when the name is no marker there"
    ),
)
