"""The round trip: the migrated text analyzed as the import hook will, each use compared with
what its hand-written spec gave; then the record of what was migrated, read off that analysis.
And the specs on nothing this module defines (``jax.jit(other.f, static_argnums=1)``, a lambda)
and decorators the analysis could not read: refusals, never edits.
"""

from __future__ import annotations

import ast
import bisect
import contextlib
from collections.abc import Callable, Sequence

from jaxrewrite.engine.analysis import Analysis, Function, UseKind
from jaxrewrite.engine.build import build_analysis
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.read.handwritten import Meaning, Reason, Refused, sorted_values, spell
from jaxrewrite.engine.read.scopes import Imported, Scope, build_scopes
from jaxrewrite.engine.rulebook.table import TRANSFORMS, SpecKind
from jaxrewrite.engine.walk import specs
from jaxrewrite.engine.walk.specs import NEEDLES, has_spec, meaning_of_values
from jaxrewrite.migrate.plan import Migrated, Plan, PlannedFunction, Refusal, UseRecord


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


def unattached(analysis: Analysis, tree: ast.Module) -> list[Refusal]:
    """Spec-writing calls on no def of the module, and unreadable decorators."""
    covered = {id(node) for use in analysis.uses for node in ast.walk(use.node)}
    decorated: dict[int, Function] = {
        id(deco): node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for deco in node.decorator_list
    }
    found: list[tuple[ast.Call, Function | None]] = []
    # In source order (depth first); a stack, not recursion, so that a module nested deeper
    # than the interpreter's stack is read too.
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if (
            isinstance(node, ast.Call)
            and id(node) not in covered
            and any(kw.arg in NEEDLES for kw in node.keywords)
        ):
            found.append((node, decorated.get(id(node))))
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    if not found:
        return []
    scopes = build_scopes(tree)
    # Per line, the scope of the innermost statement holding it: they come sorted by first line,
    # so an inner one overwrites.
    scope_of = {
        line: scope
        for first, last, _, scope, _ in scopes.statements
        for line in range(first, last + 1)
    }
    try:
        refusals = [
            _refusal(analysis, call, deco, scope_of.get(call.lineno, scopes.module))
            for call, deco in found
        ]
        return [refusal for refusal in refusals if refusal is not None]
    finally:
        scopes.release()


def _refusal(
    analysis: Analysis, node: ast.Call, func: Function | None, scope: Scope
) -> Refusal | None:
    """Why a spec written on ``node`` migrates nothing (``func``: the def it decorates)."""
    name = _transform_name(node.func)
    if func is not None:  # a decorator of a def that no use covers
        if name is None and _transform_name(node.args[0] if node.args else None) is None:
            return None
        top = min([func.lineno, *(d.lineno for d in func.decorator_list)])
        first = next((d for d in analysis.errors if top <= d.line <= func.lineno), None)
        rule = Reason.UNREADABLE.rule  # the engine's finding ends in its own remedy
        why = (
            rule.text("unspelled")
            if first is None
            else rule.text(code=first.code, message=first.message)
        )
        return Refusal(Reason.UNREADABLE, why, node.lineno, func.name)
    if name is None or not node.args:
        # A partial or factory not applied here (an alias definition): reported at its uses.
        return None
    arg = node.args[0]
    origin = _imported(arg.id, scope) if isinstance(arg, ast.Name) else None
    if isinstance(arg, ast.Lambda):
        variant = "anonymous"
    elif isinstance(arg, ast.Name):
        variant = "name" if origin is None else "imported"
    else:
        variant = "attribute" if isinstance(arg, ast.Attribute) else ""
    what = Reason.NOT_LOCAL.rule.text(variant, name=name, arg=ast.unparse(arg), origin=origin)
    return Refusal(Reason.NOT_LOCAL, what, node.lineno)


def _imported(name: str, scope: Scope) -> str | None:
    """The one dotted name ``name`` is imported as where read, or None."""
    found = scope.lookup(name)
    if found is None:
        return None
    bindings = found[0]
    if not bindings or not all(isinstance(b, Imported) for b in bindings):
        return None
    names = {b.qualname for b in bindings if isinstance(b, Imported)}
    return names.pop() if len(names) == 1 else None


def _transform_name(expr: ast.expr | None) -> str | None:
    """The transform a call's function names by its last segment (a report, not a resolution)."""
    if isinstance(expr, ast.Attribute):
        name: str | None = expr.attr
    elif isinstance(expr, ast.Name):
        name = expr.id
    else:
        return None
    return name if name in TRANSFORMS and TRANSFORMS[name].spec is SpecKind.LISTS else None
