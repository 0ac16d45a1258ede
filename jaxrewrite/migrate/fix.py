"""``check --fix`` for JR006: the parameters that must be static made so, per function.

In a module that uses jaxrewrite, the parameters are written into each use's spec and
``migrate_source`` turns that into markers (its round trip the proof); in a plain-JAX module the
spec keywords stay. Either way the result is analyzed again before it is kept.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from jaxrewrite.engine.analysis import Analysis, Function, Use, UseKind
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


@dataclass
class Fix:
    """The fixed text, what was made static ((function, parameter)), and why the rest was not."""

    text: str
    fixed: list[tuple[str, str]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    #: What was written, in words, a line per function (``check --fix`` prints them).
    said: list[str] = field(default_factory=list)


class _CannotFix(Exception):
    pass


def fix_source(text: str, filename: str = "<string>") -> Fix:
    """Fix every JR006 parameter it can, function by function (``refused``: the others,
    with what to write by hand); SyntaxError if it does not parse."""
    analysis = _traced(text, filename)
    result = Fix(text)
    if not analysis.must_be_static:
        return result
    marker = uses_jaxrewrite(ast.parse(text, filename), analysis.header.enabled)
    settled: set[tuple[str, tuple[str, ...]]] = set()
    while True:
        wanted: dict[int, tuple[Function, list[str]]] = {}  # per function, in the order found
        for func, name in analysis.must_be_static:
            names = wanted.setdefault(id(func), (func, []))[1]
            if name not in names:
                names.append(name)
        pending = [(f, ns) for f, ns in wanted.values() if (f.name, tuple(ns)) not in settled]
        if not pending:
            return result
        func, names = pending[0]
        settled.add((func.name, tuple(names)))
        try:
            new, said = _fix(result.text, filename, analysis, func, names, marker)
        except _CannotFix as why:
            result.refused.append(
                f"{func.name!r} (line {func.lineno}): {why}; write by hand: "
                f"{_advice(analysis, func, names, marker)}"
            )
            continue
        result.text = new
        result.fixed.extend((func.name, name) for name in names)
        result.said.extend(said)
        analysis = _traced(new, filename)


def _traced(text: str, filename: str, filters: Filters = TRACE) -> Analysis:
    """The analysis JR006 reads: what must be static."""
    return build_analysis(text, filename, require_pragma=False, filters=filters, passes=(PASS,))


def _advice(analysis: Analysis, func: Function, names: list[str], marker: bool) -> str:
    """What the user should write for one function's parameters (the finding's own fix)."""
    for use in analysis.uses:
        if use.target is func and isinstance(use.transform, Transform):
            params = [p for p in use.signature.params if p.name in names]
            return "; ".join(fix_text(p, use.transform, marker) for p in params)
    return f"make {', '.join(names)} static"


#: The portable spelling of a transform with keywords on a bare decorator (``@jax.jit(...)``, the
#: factory form, needs a JAX newer than the floor, 0.4.30).
_PARTIAL = "functools.partial("


def _functools_import(analysis: Analysis) -> splice.Edit:
    """``import functools`` where the module has none, first among its leading imports."""
    tree = ast.parse(analysis.source.text)
    if any(
        a.name == "functools" and a.asname is None
        for n in tree.body
        if isinstance(n, ast.Import)
        for a in n.names
    ):
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
    text: str, filename: str, analysis: Analysis, func: Function, names: list[str], marker: bool
) -> tuple[str, list[str]]:
    """The parameters written into each use's spec, then (``marker``) migrated into markers, the
    result analyzed again; (text, what was written)."""
    edits: list[splice.Edit] = []
    said: list[str] = []
    for use in (u for u in analysis.uses if u.target is func):
        params = [p for p in use.signature.params if p.name in names] if use.signature else []
        made, words = _spec_edits(use, params, analysis.source, plain=not marker)
        edits.extend(made)
        if made and made[-1].text.startswith(_PARTIAL):
            said.append(f"{func.name!r}: @{ast.unparse(use.node)} became @{made[-1].text}")
        elif words:
            said.append(f"{func.name!r}: {', '.join(words)} passed to {ast.unparse(use.node)}")
    if not marker:
        if any(edit.text.startswith(_PARTIAL) for edit in edits):
            edits.append(_functools_import(analysis))
            if edits[-1].text:
                said.append("'import functools' added (functools.partial needs it)")
        fixed_text = splice.apply(text, edits)
        left = {(f.name, n) for f, n in _traced(fixed_text, filename).must_be_static}
        still = [n for n in names if (func.name, n) in left]
        if still:
            raise _CannotFix(f"{', '.join(still)} still traced after writing the spec")
        return fixed_text, said
    key = (func.name, func.lineno)
    if {(m.function, m.line) for m in migrate_source(text, filename).migrated} - {key}:
        raise _CannotFix(
            "migrate would also change other hand-written specs here: run 'jaxrewrite migrate' "
            "first"
        )
    migrated = migrate_source(splice.apply(text, edits), filename)
    done = {(m.function, m.line): {name for name, _ in m.params} for m in migrated.migrated}
    if not set(names) <= done.get(key, set()):
        why = (
            "; ".join(r.message for r in migrated.refused if r.function == func.name)
            or "migrate refused it"
        )
        raise _CannotFix(f"{func.name!r} (line {func.lineno}): {why}")
    if set(done) - {key}:
        raise _CannotFix("the fix would migrate other functions too")
    after = _traced(migrated.text, filename, EXHAUSTIVE)
    if after.errors:
        raise _CannotFix(f"the fixed module would be refused: {after.errors[0]}")
    for f, param in after.must_be_static:
        if f.name == func.name and param in names:
            raise _CannotFix(f"{func.name!r}: {param!r} is still traced after the fix")
    for use in after.uses:
        for p in use.signature.params if use.target.name == func.name else []:
            if p.name in names and Mark.STATIC not in p.markers:
                raise _CannotFix(f"{func.name!r}: {p.name!r} is not Static after the fix")
    return migrated.text, [f"{p!r} of {func.name!r} annotated Static[...]" for p in names]


def _spec_edits(
    use: Use, params: list[Param], src: Source, plain: bool
) -> tuple[list[splice.Edit], list[str]]:
    """Write ``params`` into one use's spec as plain JAX spells it (``plain``: the text stays
    so); the edits, and the keywords written."""
    t = use.transform
    if not params:
        return [], []
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
    written_now: list[str] = []
    added: list[str] = []
    for word, items in words.items():
        if word in local:
            node = local[word].value
            value = literal(node)
            if value is MISSING:
                raise _CannotFix(f"{word}={ast.unparse(node)} is not a literal")
            old = () if value is None else (value,) if isinstance(value, (int, str)) else value
            spelled = repr(tuple(old) + items)  # type: ignore[arg-type]
            edits.append(splice.Edit(src.start(node), src.end(node), spelled))
            written_now.append(f"{word}={spelled}")
        elif word in written:
            raise _CannotFix(f"{word} is written where other uses share it (an alias or partial)")
        else:
            added.append(f"{word}={items!r}")
    if added:
        edits.append(_insert_keywords(use, ", ".join(added), src, plain))
    return edits, written_now + added


def _insert_keywords(use: Use, keywords: str, src: Source, plain: bool) -> splice.Edit:
    node = use.node
    if plain and use.kind is UseKind.DECORATOR and not isinstance(node, ast.Call):
        start, end = src.start(node), src.end(node)
        return splice.Edit(start, end, f"{_PARTIAL}{src.text[start:end]}, {keywords})")
    if isinstance(node, ast.Call):
        end = src.end(node) - 1  # the closing parenthesis
        inside = src.text[src.start(node) : end].rstrip()
        sep = "" if inside.endswith(("(", ",")) else ", "
        return splice.Edit(end, end, f"{sep}{keywords}")
    # A bare decorator (a call use's node is its call): @jax.jit -> @jax.jit(...), which migrate
    # collapses back.
    at = src.end(node)
    return splice.Edit(at, at, f"({keywords})")
