"""Migration: hand-written static specs in, ``Static``/``NoDiff`` annotations out; pure (text in,
a ``Migration`` out), over the engine's ``Analysis``: ``plan`` decides per function, ``edits``
and ``imports`` spell it, ``verify`` proves nothing changes meaning (docs/design.md).
"""

from __future__ import annotations

import ast

from jaxrewrite.engine.build import build_analysis, collector_paused, keeping_tree
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.read.filters import EXHAUSTIVE
from jaxrewrite.engine.read.handwritten import Reason
from jaxrewrite.engine.walk.specs import may_need_migration
from jaxrewrite.migrate.imports import unused_import_edits
from jaxrewrite.migrate.plan import (
    REASONS,
    Migrated,
    Migration,
    Refusal,
    UseRecord,
    plan_migration,
)
from jaxrewrite.migrate.verify import round_trip, unattached

__all__ = [
    "REASONS",
    "Migrated",
    "Migration",
    "Reason",
    "Refusal",
    "UseRecord",
    "may_need_migration",
    "migrate_source",
]

#: Each round trip can only refuse more functions; this bounds the rounds all the same.
MAX_ROUNDS = 8


def migrate_source(text: str, filename: str = "<string>") -> Migration:
    """Migrate one module's text (SyntaxError if it does not parse): plan, edit, and
    analyze the result as the hook will, refusing and planning again any function whose uses would
    change meaning."""
    if not may_need_migration(text):
        compile(text, filename, "exec", dont_inherit=True)  # only for the SyntaxError promised
        return Migration(text, text, [], [])
    with collector_paused():  # a tree is alive throughout: see collector_paused
        trees: list[ast.Module] = []
        analysis = build_analysis(
            text, filename, filters=EXHAUSTIVE, require_pragma=False, passes=(keeping_tree(trees),)
        )
        tree = trees[0]
        excluded: dict[int, Refusal] = {}
        for _ in range(MAX_ROUNDS):
            plan = plan_migration(analysis, excluded, tree)
            if not plan.planned:
                break
            migrated = splice.apply(text, plan.edits)
            cleanup = unused_import_edits(tree, analysis.source, migrated)
            if cleanup:  # part of the plan, so the round trip and the records see the final text
                plan.edits += cleanup
                migrated = splice.apply(text, plan.edits)
            problems, done = round_trip(analysis, plan, migrated)
            if not problems:
                changes = [(edit.start, edit.end, edit.text) for edit in plan.edits]
                return Migration(
                    text, migrated, done, plan.refused + unattached(analysis, tree), changes
                )
            excluded.update(problems)
        # Still planning when the rounds ran out (never seen: each refuses one more function).
        refused = [*excluded.values()] if plan.planned else plan.refused
        return Migration(text, text, [], refused + unattached(analysis, tree))
