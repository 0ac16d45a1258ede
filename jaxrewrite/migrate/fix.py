"""``check --fix`` for JR006: the parameters that must be static become ``Static`` markers.

Pure: text in, a ``Fix`` out. The fix is migrate's own work, reused whole: the parameters are first
written into each use's hand-written spec, as a user of plain JAX would (``static_argnames``); then
``migrate_source`` turns that spec into markers, the import and the pragma, with its round-trip
proof. The result is analyzed once more: it must have no refusal, its uses must hold the
parameters static, and the findings fixed must be gone. Only modules that already use jaxrewrite
are fixed; in one whose other hand-written specs migrate would change, nothing is (run migrate).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from jaxrewrite.engine import splice
from jaxrewrite.engine.analysis import Analysis, Use, UseKind
from jaxrewrite.engine.analyze import analyze
from jaxrewrite.engine.filters import EXHAUSTIVE
from jaxrewrite.engine.literals import MISSING, literal
from jaxrewrite.engine.signature import Kind, Param
from jaxrewrite.engine.source import Source
from jaxrewrite.engine.table import Mark, SpecKind, Transform
from jaxrewrite.engine.tracetime import PASS, TRACE, uses_jaxrewrite
from jaxrewrite.migrate import migrate_source

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Fix:
    """The fixed text, what was made static ((function, parameter)), and why the rest was not."""

    original: str
    text: str
    fixed: list[tuple[str, str]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.text != self.original


class _CannotFix(Exception):
    pass


def fix_source(text: str, filename: str = "<string>") -> Fix:
    """Make every JR006 parameter of an opted-in module ``Static``; SyntaxError if it does not parse."""
    analysis = analyze(text, filename, require_pragma=False, filters=TRACE, passes=(PASS,))
    if not analysis.must_be_static:
        return Fix(text, text)
    tree = ast.parse(text, filename)
    if not uses_jaxrewrite(tree, analysis.header.enabled):
        return Fix(text, text, refused=["the module does not use jaxrewrite: pass the static keywords to the transform"])
    wanted: dict[int, tuple[Function, list[str]]] = {}
    for func, name in analysis.must_be_static:
        names = wanted.setdefault(id(func), (func, []))[1]
        if name not in names:
            names.append(name)
    try:
        return _fix(text, filename, analysis, list(wanted.values()))
    except _CannotFix as why:
        return Fix(text, text, refused=[str(why)])


def _fix(text: str, filename: str, analysis: Analysis, wanted: list[tuple[Function, list[str]]]) -> Fix:

    src = analysis.source
    edits: list[splice.Edit] = []
    for func, names in wanted:
        uses = [u for u in analysis.uses if u.target is func]
        for use in uses:
            edits.extend(_spec_edits(use, [p for p in use.signature.params if p.name in names] if use.signature else [], src))
    targets = {(func.name, func.lineno): names for func, names in wanted}
    before = {(m.function, m.line) for m in migrate_source(text, filename).migrated}
    if before - set(targets):
        raise _CannotFix("migrate would also change other hand-written specs here: run 'jaxrewrite migrate' first")
    migrated = migrate_source(splice.apply(text, edits), filename)
    done = {(m.function, m.line): {name for name, _ in m.params} for m in migrated.migrated}
    for key, names in targets.items():
        if not set(names) <= done.get(key, set()):
            why = "; ".join(r.message for r in migrated.refused if r.function == key[0]) or "migrate refused it"
            raise _CannotFix(f"{key[0]!r} (line {key[1]}): {why}")
    if set(done) - set(targets):
        raise _CannotFix("the fix would migrate other functions too")
    _verify(migrated.text, filename, targets)
    fixed = [(name, p) for (name, _), params in targets.items() for p in params]
    return Fix(text, migrated.text, fixed)


def _verify(text: str, filename: str, targets: dict[tuple[str, int], list[str]]) -> None:
    """The fixed module rewrites without refusal, every use of a fixed def holds the parameters
    Static, and none of the findings fixed is reported again."""
    after = analyze(text, filename, require_pragma=False, filters=EXHAUSTIVE, passes=(PASS,))
    if after.errors:
        raise _CannotFix(f"the fixed module would be refused: {after.errors[0]}")
    names = {name for name, _ in targets}
    for func, param in after.must_be_static:
        if func.name in names and any(param in ps for (n, _), ps in targets.items() if n == func.name):
            raise _CannotFix(f"{func.name!r}: {param!r} is still traced after the fix")
    for use in after.uses:
        params = next((ps for (n, _), ps in targets.items() if n == use.target.name), None)
        if params is None:
            continue
        for p in use.signature.params:
            if p.name in params and Mark.STATIC not in p.markers:
                raise _CannotFix(f"{use.target.name!r}: {p.name!r} is not Static after the fix")


def _spec_edits(use: Use, params: list[Param], src: Source) -> list[splice.Edit]:
    """Write ``params`` into the spec of one use, as plain JAX would spell it."""
    t = use.transform
    if not params:
        return []
    if not isinstance(t, Transform) or t.spec is not SpecKind.LISTS:
        raise _CannotFix(f"{getattr(use.target, 'name', '?')!r} is also used under {t.name}, whose spec is not a list")
    if any(kw.arg is None for kw in use.written):
        raise _CannotFix(f"{t.name} arguments passed as **mapping")
    written = {kw.arg for kw in use.written}
    local = {kw.arg: kw for kw in use.local}
    by_name = t.argnames is not None and all(p.kind in (Kind.POSITIONAL_OR_KEYWORD, Kind.KEYWORD_ONLY) for p in params)
    words: dict[str, tuple[object, ...]] = {}
    if t.argnums in written or not by_name:
        if any(p.position is None for p in params):
            raise _CannotFix(f"{t.name} takes keyword-only parameters by name only")
        words[t.argnums] = tuple(p.position for p in params)
    if t.argnames is not None and (t.argnames in written or (by_name and t.argnums not in written)):
        words[t.argnames] = tuple(p.name for p in params if p.kind is not Kind.POSITIONAL_ONLY)
    edits: list[splice.Edit] = []
    added: list[str] = []
    for word, items in words.items():
        if word in local:
            value = literal(local[word].value)
            if value is MISSING:
                raise _CannotFix(f"{word}={ast.unparse(local[word].value)} is not a literal")
            old = () if value is None else (value,) if isinstance(value, (int, str)) else tuple(value)  # type: ignore[arg-type]
            node = local[word].value
            edits.append(splice.Edit(src.start(node), src.end(node), repr(tuple(old) + items)))
        elif word in written:
            raise _CannotFix(f"{word} is written where other uses share it (an alias or partial)")
        else:
            added.append(f"{word}={items!r}")
    if added:
        edits.append(_insert_keywords(use, ", ".join(added), src))
    return edits


def _insert_keywords(use: Use, keywords: str, src: Source) -> splice.Edit:
    node = use.node
    if isinstance(node, ast.Call):
        end = src.end(node) - 1  # the closing parenthesis
        inside = src.text[src.start(node) : end].rstrip()
        sep = "" if inside.endswith(("(", ",")) else ", "
        return splice.Edit(end, end, f"{sep}{keywords}")
    if use.kind is UseKind.DECORATOR:  # @jax.jit -> @jax.jit(static_argnames=...): migrate collapses it back
        at = src.end(node)
        return splice.Edit(at, at, f"({keywords})")
    raise _CannotFix(f"cannot add keywords to {ast.unparse(node)!r}")
