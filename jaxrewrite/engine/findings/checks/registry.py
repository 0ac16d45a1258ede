"""The registry of the warning rules of ``check`` (JR0nn), one module each: its record ``RULE``
(which says whether the import says it too) and its ``check``, if any, handed a ``Context`` of the
analysis while the tree is alive. ``check --explain`` and the docs' table of codes read it."""

from __future__ import annotations

import ast
import importlib
from types import ModuleType
from typing import TYPE_CHECKING

from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.read.othermodules import ImportReader
from jaxrewrite.engine.read.scopes import ScopeTree
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.diagnostics import suppressed
from jaxrewrite.engine.rulebook.rules import Rule

if TYPE_CHECKING:
    from jaxrewrite.engine.build import TreePass
    from jaxrewrite.engine.walk.walker import Walked

#: Every warning rule, one module of this package each, in the order the checks run: findings at
#: one position are listed in this order, and the ledger (JR008) reads every finding before it.
RULES: tuple[ModuleType, ...] = tuple(
    importlib.import_module(f"{__package__}.{name}")
    for name in (
        "unhashable_static",  # JR003
        "float_static",  # JR016
        "unknown_transform",  # JR004
        "no_transform",  # JR002
        "missing_pragma",  # JR001
        "unseen_level",  # JR007
        "own_flatten",  # JR020
        "held_in_pytree",  # JR014
        "sharded_keyword",  # JR010
        "vmap_keyword",  # JR011
        "untransformed_callee",  # JR012
        "unbound_marker",  # JR015
        "marker_does_nothing",  # JR008, and the ledger's JR009
        "imported_marker",  # JR009
        "imported_def",  # JR013
        "unknown_directive",  # JR005: the analysis says it
        "traced_argument",  # JR006: the trace-time pass finds it
    )
)

#: Every code's record: these warnings, the analysis' errors and migrate's refusals.
RECORDS: dict[str, Rule] = dict(
    sorted({**rules.RULES, **{m.RULE.code: m.RULE for m in RULES}}.items())
)
CODES: dict[str, str] = {code: rule.summary for code, rule in RECORDS.items()}


def find(code: str) -> Rule | None:
    """The rule a code names, a retired code's successor included (``check --explain``)."""
    code = code.strip().upper()
    return RECORDS.get(rules.RETIRED.get(code, code))


def rules_pass(imports: ImportReader | None = None, at_import: bool = False) -> TreePass:
    """The rules' checks as one finding pass, in ``RULES``' order (``build_analysis`` sorts what
    every pass finds); ``at_import``: those the import also says, less what a noqa comment
    silences (the walk's own findings stay as they were)."""

    def run(result: Analysis, scopes: ScopeTree, tree: ast.Module, walk: Walked) -> None:
        ctx = Context(result, scopes, tree, walk, imports, at_import)
        walked = {id(d) for d in result.diagnostics}
        for rule in RULES:
            check = getattr(rule, "check", None)
            if check is not None and (rule.RULE.at_import or not at_import):
                result.diagnostics.extend(check(ctx))
        if at_import and len(result.diagnostics) > len(walked):
            lines = result.source.text.splitlines()
            result.diagnostics[:] = [
                d for d in result.diagnostics if id(d) in walked or not suppressed(d, lines)
            ]

    return run
