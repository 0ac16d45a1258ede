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

from jaxrewrite.engine.analysis import Analysis, Use, UseKind
from jaxrewrite.engine.build import build_analysis
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.findings.tracetime import PASS, TRACE, fix_text, uses_jaxrewrite
from jaxrewrite.engine.read.filters import EXHAUSTIVE, Filters
from jaxrewrite.engine.read.literals import MISSING, literal
from jaxrewrite.engine.read.signature import Kind, Param
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.table import Mark, SpecKind, Transform
from jaxrewrite.header import header_statements
from jaxrewrite.migrate import migrate_source
from jaxrewrite.migrate.imports import statement_start

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Fix:
    """The fixed text, what was made static ((function, parameter)), and why the rest was not."""

    original: str
    text: str
    fixed: list[tuple[str, str]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    #: What was written, in words, a line per function (``check --fix`` prints them).
    said: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.text != self.original


class _CannotFix(Exception):
    pass


def fix_source(text: str, filename: str = "<string>") -> Fix:
    """Fix every JR006 parameter it can, function by function; SyntaxError if it does not parse.

    In a module that uses jaxrewrite the parameters become ``Static`` markers; in any other, the
    transform's own keywords (``static_argnames``/``static_argnums``). A function that cannot be
    fixed is named in ``refused`` with why and what to write by hand; the others are still fixed."""
    analysis = _traced(text, filename)
    if not analysis.must_be_static:
        return Fix(text, text)
    marker = uses_jaxrewrite(ast.parse(text, filename), analysis.header.enabled)
    result = Fix(text, text)
    settled: set[tuple[str, tuple[str, ...]]] = set()
    while True:
        pending = [(f, ns) for f, ns in _wanted(analysis) if (f.name, tuple(ns)) not in settled]
        if not pending:
            return result
        func, names = pending[0]
        settled.add((func.name, tuple(names)))
        try:
            step = (_fix if marker else _fix_plain)(
                result.text, filename, analysis, [(func, names)]
            )
        except _CannotFix as why:
            result.refused.append(
                f"{func.name!r} (line {func.lineno}): {why}; write by hand: "
                f"{_advice(analysis, func, names, marker)}"
            )
            continue
        result.text = step.text
        result.fixed.extend(step.fixed)
        result.said.extend(step.said)
        analysis = _traced(result.text, filename)


def _traced(text: str, filename: str, filters: Filters = TRACE) -> Analysis:
    """The analysis JR006 reads: what must be static."""
    return build_analysis(text, filename, require_pragma=False, filters=filters, passes=(PASS,))


def _wanted(analysis: Analysis) -> list[tuple[Function, list[str]]]:
    wanted: dict[int, tuple[Function, list[str]]] = {}
    for func, name in analysis.must_be_static:
        names = wanted.setdefault(id(func), (func, []))[1]
        if name not in names:
            names.append(name)
    return list(wanted.values())


def _advice(analysis: Analysis, func: Function, names: list[str], marker: bool) -> str:
    """What the user should write for one function's parameters (the finding's own fix)."""
    for use in analysis.uses:
        if use.target is func and isinstance(use.transform, Transform):
            params = [p for p in use.signature.params if p.name in names]
            return "; ".join(fix_text(p, use.transform, marker) for p in params)
    return f"make {', '.join(names)} static"


def _fix_plain(
    text: str, filename: str, analysis: Analysis, wanted: list[tuple[Function, list[str]]]
) -> Fix:
    """Plain JAX: the parameters written into each use's own spec, checked by analyzing again."""
    edits: list[splice.Edit] = []
    said: list[str] = []
    for func, names in wanted:
        for use in (u for u in analysis.uses if u.target is func):
            words: list[str] = []
            made = _spec_edits(
                use, [p for p in use.signature.params if p.name in names], analysis.source, words
            )
            edits.extend(made)
            if made and made[-1].text.startswith(_PARTIAL):
                said.append(f"{func.name!r}: @{ast.unparse(use.node)} became @{made[-1].text}")
            elif words:
                said.append(f"{func.name!r}: {', '.join(words)} passed to {ast.unparse(use.node)}")
    if any(edit.text.startswith(_PARTIAL) for edit in edits):
        edits.append(_functools_import(analysis))
        if edits[-1].text:
            said.append("'import functools' added (functools.partial needs it)")
    fixed_text = splice.apply(text, edits)
    after = _traced(fixed_text, filename)
    left = {(f.name, n) for f, n in after.must_be_static}
    for func, names in wanted:
        still = [n for n in names if (func.name, n) in left]
        if still:
            raise _CannotFix(f"{', '.join(still)} still traced after writing the spec")
    return Fix(
        text, fixed_text, [(func.name, n) for func, names in wanted for n in names], said=said
    )


#: The portable spelling of a transform with keywords on a bare decorator (``@jax.jit(...)``, the
#: factory form, needs a JAX newer than the floor, 0.4.30).
_PARTIAL = "functools.partial("


def _functools_import(analysis: Analysis) -> splice.Edit:
    """``import functools`` where the module has none, first among its leading imports."""
    tree = ast.parse(analysis.source.text)
    plain = [
        a.name == "functools" and a.asname is None
        for n in tree.body
        if isinstance(n, ast.Import)
        for a in n.names
    ]
    if any(plain):
        return splice.Edit(0, 0, "")
    for node in ast.walk(tree):
        imported = isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (a.asname or a.name) == "functools" for a in node.names
        )
        if imported or (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Store)
            and node.id == "functools"
        ):
            raise _CannotFix("the name 'functools' is bound to something else here")
    src = analysis.source
    at = statement_start(tree.body, header_statements(tree.body), src)
    newline = "\r\n" if "\r\n" in src.text else "\n"
    return splice.Edit(at, at, "import functools" + newline)


def _fix(
    text: str, filename: str, analysis: Analysis, wanted: list[tuple[Function, list[str]]]
) -> Fix:
    src = analysis.source
    edits: list[splice.Edit] = []
    for func, names in wanted:
        uses = [u for u in analysis.uses if u.target is func]
        for use in uses:
            edits.extend(
                _spec_edits(
                    use,
                    [p for p in use.signature.params if p.name in names] if use.signature else [],
                    src,
                )
            )
    targets = {(func.name, func.lineno): names for func, names in wanted}
    before = {(m.function, m.line) for m in migrate_source(text, filename).migrated}
    if before - set(targets):
        raise _CannotFix(
            "migrate would also change other hand-written specs here: run 'jaxrewrite migrate' "
            "first"
        )
    migrated = migrate_source(splice.apply(text, edits), filename)
    done = {(m.function, m.line): {name for name, _ in m.params} for m in migrated.migrated}
    for key, names in targets.items():
        if not set(names) <= done.get(key, set()):
            why = (
                "; ".join(r.message for r in migrated.refused if r.function == key[0])
                or "migrate refused it"
            )
            raise _CannotFix(f"{key[0]!r} (line {key[1]}): {why}")
    if set(done) - set(targets):
        raise _CannotFix("the fix would migrate other functions too")
    _verify(migrated.text, filename, targets)
    fixed = [(name, p) for (name, _), params in targets.items() for p in params]
    said = [f"{p!r} of {name!r} annotated Static[...]" for name, p in fixed]
    return Fix(text, migrated.text, fixed, said=said)


def _verify(text: str, filename: str, targets: dict[tuple[str, int], list[str]]) -> None:
    """The fixed module rewrites without refusal, every use of a fixed def holds the parameters
    Static, and none of the findings fixed is reported again."""
    after = _traced(text, filename, EXHAUSTIVE)
    if after.errors:
        raise _CannotFix(f"the fixed module would be refused: {after.errors[0]}")
    names = {name for name, _ in targets}
    for func, param in after.must_be_static:
        if func.name in names and any(
            param in ps for (n, _), ps in targets.items() if n == func.name
        ):
            raise _CannotFix(f"{func.name!r}: {param!r} is still traced after the fix")
    for use in after.uses:
        params = next((ps for (n, _), ps in targets.items() if n == use.target.name), None)
        if params is None:
            continue
        for p in use.signature.params:
            if p.name in params and Mark.STATIC not in p.markers:
                raise _CannotFix(f"{use.target.name!r}: {p.name!r} is not Static after the fix")


def _spec_edits(
    use: Use, params: list[Param], src: Source, plain: list[str] | None = None
) -> list[splice.Edit]:
    """Write ``params`` into the spec of one use, as plain JAX would spell it. ``plain``: the
    text stays so (no migrate after it), so it must run on every JAX the project supports; the
    keywords written are added to it, as they read."""
    t = use.transform
    if not params:
        return []
    if not isinstance(t, Transform) or t.spec is not SpecKind.LISTS:
        raise _CannotFix(
            f"{getattr(use.target, 'name', '?')!r} is also used under {t.name}, whose spec is not "
            "a list"
        )
    if any(kw.arg is None for kw in use.written):
        raise _CannotFix(f"{t.name} arguments passed as **mapping")
    written = {kw.arg for kw in use.written}
    local = {kw.arg: kw for kw in use.local}
    by_name = t.argnames is not None and all(
        p.kind in (Kind.POSITIONAL_OR_KEYWORD, Kind.KEYWORD_ONLY) for p in params
    )
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
            if value is None:
                old: tuple[object, ...] = ()
            else:
                old = (value,) if isinstance(value, (int, str)) else tuple(value)  # type: ignore[arg-type]
            node = local[word].value
            edits.append(splice.Edit(src.start(node), src.end(node), repr(tuple(old) + items)))
            if plain is not None:
                plain.append(f"{word}={tuple(old) + items!r}")
        elif word in written:
            raise _CannotFix(f"{word} is written where other uses share it (an alias or partial)")
        else:
            added.append(f"{word}={items!r}")
    if added:
        edits.append(_insert_keywords(use, ", ".join(added), src, plain is not None))
        if plain is not None:
            plain.extend(added)
    return edits


def _insert_keywords(use: Use, keywords: str, src: Source, plain: bool = False) -> splice.Edit:
    node = use.node
    if plain and use.kind is UseKind.DECORATOR and not isinstance(node, ast.Call):
        start, end = src.start(node), src.end(node)
        return splice.Edit(start, end, f"{_PARTIAL}{src.text[start:end]}, {keywords})")
    if isinstance(node, ast.Call):
        end = src.end(node) - 1  # the closing parenthesis
        inside = src.text[src.start(node) : end].rstrip()
        sep = "" if inside.endswith(("(", ",")) else ", "
        return splice.Edit(end, end, f"{sep}{keywords}")
    if use.kind is UseKind.DECORATOR:  # @jax.jit -> @jax.jit(...): migrate collapses it back
        at = src.end(node)
        return splice.Edit(at, at, f"({keywords})")
    raise _CannotFix(f"cannot add keywords to {ast.unparse(node)!r}")
