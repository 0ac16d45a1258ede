"""JR006: an argument a transform traces that the body needs as a Python value, or that JAX
cannot trace at all. The dataflow that finds it is a pass of its own (``findings.tracetime``, run
under the trace-time filters by ``findings.lint_analysis``), so no check of its own runs here."""

from __future__ import annotations

from jaxrewrite.engine.rulebook.rules import Rule

RULE = Rule(
    "JR006",
    (
        "an argument a transform traces that the body needs as a Python value, or that JAX "
        "cannot trace at all"
    ),
    (
        "{name!r} is traced by {transform} (line {line}:{col}), but {how}: JAX raises {error} at "
        "the first call{passed}; {fix}"
    ),
    "make the parameter Static (check --fix does), or pass it as static to the transform",
    "arguments-that-must-be-static-jr006",
    details=" (below)",
)
