"""The round trip: the migrated text analyzed as the import hook will, each use compared with
what its hand-written spec gave; then the record of what was migrated, read off that analysis.
"""

from __future__ import annotations

import bisect
import contextlib
from collections.abc import Callable, Sequence

from jaxrewrite.engine.analysis import Analysis, UseKind
from jaxrewrite.engine.build import build_analysis
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.read.handwritten import Meaning, sorted_values, spell
from jaxrewrite.engine.rulebook.table import SpecKind
from jaxrewrite.engine.walk import specs
from jaxrewrite.engine.walk.specs import has_spec, meaning_of_values
from jaxrewrite.migrate.plan import Plan, PlannedFunction
from jaxrewrite.migrate.result import Migrated, Reason, Refusal, Refused, UseRecord


def _shifter(edits: Sequence[splice.Edit]) -> Callable[[int], int]:
    """Old-to-new offsets of unedited text (a bisection per offset: migrate stays linear)."""
    ends: list[int] = []
    shifts = [0]
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        ends.append(edit.end)
        shifts.append(shifts[-1] + len(edit.text) - (edit.end - edit.start))
    return lambda old: old + shifts[bisect.bisect_right(ends, old)]


def round_trip(
    analysis: Analysis, plan: Plan, text: str
) -> tuple[dict[int, Refusal], list[Migrated]]:
    """Analyze the migrated text as the hook will: each planned function whose uses would not get
    the statics their specs gave, with why; else the record of what was migrated."""
    src = analysis.source
    new_offset = _shifter(plan.edits)
    problems: dict[int, Refusal] = {}

    def refuse(p: PlannedFunction, variant: str = "", /, **fields: object) -> None:
        message = Reason.ROUND_TRIP.rule.text(variant, **fields)
        problems.setdefault(
            id(p.func), Refusal(Reason.ROUND_TRIP, message, p.func.lineno, p.func.name)
        )

    def module_wide(variant: str, /, **fields: object) -> tuple[dict[int, Refusal], list[Migrated]]:
        message = Reason.MODULE.rule.text(variant, **fields)
        refusal = {
            id(p.func): Refusal(Reason.MODULE, message, p.func.lineno, p.func.name)
            for p in plan.planned
        }
        return refusal, []

    try:
        after = build_analysis(text, src.filename)
    except SyntaxError as err:  # a bug in the edits: report it rather than write it
        return module_wide("unparsed", error=err.msg, line=err.lineno)
    if not after.header.enabled:
        return module_wide("pragma")
    # Where each planned function's def (decorators included) and calls lie in the new text.
    spans = []
    for p in plan.planned:
        first = min([p.func.lineno, *(d.lineno for d in p.func.decorator_list)])
        nodes = [(src.line_starts[first - 1], src.end(p.func))]
        nodes += [(src.start(u.node), src.end(u.node)) for u in p.uses if u.kind is UseKind.CALL]
        spans += [(new_offset(start), new_offset(end), p) for start, end in nodes]
    new_src = after.source
    for error in after.errors:
        at = new_src.line_starts[error.line - 1] + error.col - 1
        owners = [(end - start, p) for start, end, p in spans if start <= at <= end]
        if not owners:
            return module_wide("unrewritten", code=error.code, message=error.message)
        # The innermost: a method, not its class's other def.
        innermost = min(owners, key=lambda owner: owner[0])[1]
        refuse(innermost, "unrewritten", code=error.code, message=error.message)
    owner: dict[int, PlannedFunction] = {id(use): p for p in plan.planned for use in p.uses}
    before_at = {new_offset(src.start(use.node)): use for use in analysis.uses}
    seen: set[int] = set()
    for use in after.uses:
        was = before_at.get(new_src.start(use.node))
        if was is None:
            continue  # a class registration, or a use of a def no spec was written for
        seen.add(id(was))
        t = use.transform
        mine = owner.get(id(was))
        if mine is None:
            if use.needs_edit and not analysis.header.enabled:
                return module_wide("use", transform=t.name, line=was.node.lineno)
            continue
        if t.spec is not SpecKind.LISTS:
            if use.needs_edit and not (analysis.header.enabled and was.needs_edit):
                refuse(mine, "rewritten", transform=t.name, line=was.node.lineno)
            continue
        now: Meaning | None = None
        if use.values is not None:
            now = meaning_of_values(t, use.values)
        elif use.signature is not None:
            with contextlib.suppress(Refused):
                now = specs.read(use, use.signature, new_src).meaning
        expected = mine.before.get(id(was))
        if now is None or expected is None:
            refuse(mine, "unread", transform=t.name, line=was.node.lineno)
        elif {k: v for k, v in now.items() if v} != {k: v for k, v in expected.items() if v}:
            refuse(
                mine, transform=t.name, line=was.node.lineno, now=spell(now), was=spell(expected)
            )
    for p in plan.planned:
        for use in p.uses:
            if id(use) not in seen and has_spec(use):
                refuse(p, "unseen", transform=use.transform.name, line=use.node.lineno)
    if problems:
        return problems, []

    def new_line(offset: int) -> int:
        return bisect.bisect_right(new_src.line_starts, new_offset(offset))  # the line holding it

    done = []
    for p in plan.planned:
        uses = [
            UseRecord(
                use.transform.name,
                use.kind.value,
                use.node.lineno,
                use.node.col_offset,
                use.node.end_lineno or use.node.lineno,
                use.node.end_col_offset or 0,
                new_line(src.start(use.node)),
                tuple((k, sorted_values(v)) for k, v in sorted(p.before.get(id(use), {}).items())),
                has_spec(use),
            )
            for use in sorted(p.uses, key=lambda u: (u.node.lineno, u.node.col_offset))
        ]
        params = tuple((name, plan.spelling[mark]) for name, mark in p.marks.items())
        done.append(
            Migrated(p.func.name, p.func.lineno, new_line(src.start(p.func)), params, tuple(uses))
        )
    return {}, done
