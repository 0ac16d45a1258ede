"""JR013: a transform applied to a def imported from another module whose parameters are marked
there. The hook rewrites one module's text, so such a use gets no keywords; ``check`` reads the
other module through its import reader. Only a def found marked is reported: a name it cannot read
is most often no marked def, and the marker's own module reports what it can (JR002)."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from jaxrewrite.engine.analysis import Analysis, Use, UseKind, needs_edit
from jaxrewrite.engine.edits import render
from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.read.filters import FAST, calls_and_aliases
from jaxrewrite.engine.read.lexer import any_word
from jaxrewrite.engine.read.othermodules import (
    Exports,
    ImportReader,
    attributes,
    found_name,
    library,
    origins,
    reaches,
)
from jaxrewrite.engine.read.recognise import TransformRef, bound_keywords, classify
from jaxrewrite.engine.read.scopes import Binding, Defined, Scope, ScopeTree
from jaxrewrite.engine.read.signature import Signature, read_signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.read.wrappers import peel
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import LIMITS, Rule
from jaxrewrite.engine.rulebook.table import FAMILIES
from jaxrewrite.engine.walk import specs
from jaxrewrite.errors import RewriteError

if TYPE_CHECKING:
    from jaxrewrite.engine.build import TreePass
    from jaxrewrite.engine.walk.walker import Walked

Function = ast.FunctionDef | ast.AsyncFunctionDef

#: The last segments of the table's transforms: a module that names none as a whole word applies
#: none (``classify`` resolves only names spelled in the module).
_TABLE_NAMES = tuple(
    sorted({name.rpartition(".")[2] for rows in FAMILIES.values() for name in rows})
)


#: The modules an import statement names (a superset: strings and comments count too). It starts
#: with a character class, not ``^`` in multiline mode, which would be tried at every offset.
_IMPORT_TEXT = re.compile(
    r"[\n;:][ \t]*(?:from[ \t]+(\.+[\w.]*|[\w.]+)[ \t]+import\b"
    r"|import[ \t]+((?:[\w. \t,]|\\\r?\n)+))"
)


def may_apply_imported(text: str) -> bool:
    """Cheap pre-filter: False means JR013 finds nothing in ``text`` (no transform of the table
    named, or only libraries imported)."""
    if not any_word(text, _TABLE_NAMES):
        return False
    for match in _IMPORT_TEXT.finditer("\n" + text):
        source, listed = match.groups()
        # ``from source import``, or the modules of ``import a, b as c``
        parts = (part.replace("\\", " ").split() for part in (listed or "").split(","))
        names = [source] if source is not None else [words[0] for words in parts if words]
        if not all(map(library, names)):
            return True
    return False


def may_apply_imported_bytes(data: bytes) -> bool:
    """``may_apply_imported`` of a file's bytes (``check.may_find``'s)."""
    return may_apply_imported(data.decode("utf-8", "replace"))


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
    return [] if ctx.imports is None else _findings(ctx.src, ctx.scopes, ctx.tree, ctx.imports)


def imported_pass(reader: ImportReader) -> TreePass:
    """JR013 as a finding pass (``check`` runs it alone on a module that names no jaxrewrite)."""

    def run(result: Analysis, scopes: ScopeTree, module: ast.Module, walk: Walked) -> None:
        found = _findings(result.source, scopes, module, reader)
        if found:
            result.diagnostics.extend(found)
            result.diagnostics.sort(key=lambda d: (d.line, d.col))

    return run


def _findings(
    src: Source, scopes: ScopeTree, module: ast.Module, reader: ImportReader
) -> list[Diagnostic]:
    """JR013 at each transform call whose function is a marked def of another module."""
    bound = origins(module)
    if not bound:
        return []
    modules = Exports(reader, _marked_def)
    out: list[Diagnostic] = []
    # The calls naming an imported name or one assigned from it (``fast = jax.jit(f)``).
    for call, scope, site in calls_and_aliases(sorted(bound), scopes, src, FAST, attributes=True):
        if not call.args or isinstance(call.args[0], ast.Starred):
            continue
        ref = classify(call.func, scope)
        if ref is None:
            continue
        inner = peel(call.args[0], scope)[0]
        base, path = attributes(inner)
        said: set[str] = set()
        for reach in [] if base is None else reaches(base, scope, site, bound, {}):
            named = found_name(reach, path)
            found = None if named is None else modules.find(*named)
            finding = None if found is None else _finding(src, call, inner, ref, *found)
            if finding is not None and finding.message not in said:
                said.add(finding.message)
                out.append(finding)
    return out


def _marked_def(
    binding: Binding, scope: Scope, source: Source
) -> tuple[Function, Signature] | None:
    """A def of another module with marked parameters, and its signature (``Exports``' judge: a
    name assigned a transform of one, ``fast = jax.jit(f)``, is transformed there, no def)."""
    if not isinstance(binding, Defined):
        return None
    try:
        sig = read_signature(binding.node, scope, source, None)
    except RewriteError:
        return None  # refused there: its own module says so
    return (binding.node, sig) if sig.has_markers else None


def _finding(
    src: Source,
    call: ast.Call,
    where: ast.expr,
    ref: TransformRef,
    module: str,
    level: int,
    marked_def: tuple[Function, Signature],
) -> Diagnostic | None:
    func, sig = marked_def
    marked = [p.name for p in sig.params if p.markers]
    spelled = f"{'.' * level}{module}"
    what = (
        f"the Static/NoDiff parameters of {func.name!r} ({', '.join(map(repr, marked))}, "
        f"marked in {spelled}) are not applied by {ast.unparse(call.func)!r} here: jaxrewrite "
        f"reads one module at a time, so a transform of an imported def gets no keywords"
    )
    try:
        t = ref.transform
        written = ref.keywords + bound_keywords(call, t.positional, t.name, src)
        use = Use(UseKind.CALL, call, t, func, sig, (), written, (), None, ref.factory)
        values = specs.complete(use, src)
    except RewriteError as err:
        # What the walk would refuse for a def of this module (JR121...), which the hook cannot see
        reason = getattr(err, "message", None) or str(err)
        return Diagnostic.at(src, where, RULE, "refused", what=what, reason=reason)
    if not needs_edit(values):
        return None  # nothing it reads is marked, or the call already says it
    assert values is not None
    keywords = render.keywords(tuple((k, v) for k, v, node in values if node is None))
    return Diagnostic.at(src, where, RULE, what=what, spelled=spelled, keywords=keywords)
