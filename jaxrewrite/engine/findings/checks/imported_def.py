"""JR013: a transform applied to a def imported from another module whose parameters are marked
there: jaxrewrite rewrites one module at a time, so the use gets no keywords. The reading of the
other modules is ``findings/imported.py``'s, through ``check``'s import reader."""

from __future__ import annotations

from jaxrewrite.engine.findings import imported
from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import LIMITS, Rule

RULE = Rule(
    "JR013",
    "a transform applied to a def imported from another module whose parameters are marked there",
    (
        "{what} and traces them; apply the transform in {spelled} and import its result, or "
        "write {keywords} here"
    ),
    "apply the transform in the defining module and import its result, or write the keywords here",
    LIMITS,
    {"refused": "{what}, and this use could not take them: {reason}"},
    details=(
        ": jaxrewrite rewrites one module at a time, so the use gets no keywords; the finding "
        "names the keywords to write ([section 11](transforms.md#11-limits))"
    ),
)

#: Its verdict reads other modules' files, which the import's cache key does not cover.
AT_IMPORT = False


def check(ctx: Context) -> list[Diagnostic]:
    if ctx.imports is not None:
        imported.imported_uses(ctx.result, ctx.scopes, ctx.tree, ctx.imports, RULE)
    return []
