"""JR013, read through ``check``'s import reader. Only a def found marked is reported: a name it
cannot read is most often no marked def, and the marker's own module reports what it can (JR002)."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from jaxrewrite.engine.analysis import Analysis, Function
from jaxrewrite.engine.findings.checks.no_transform import needed_keywords
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
from jaxrewrite.engine.read.recognise import TransformRef, classify
from jaxrewrite.engine.read.scopes import Binding, Defined, Scope, ScopeTree
from jaxrewrite.engine.read.signature import Signature, read_signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.read.wrappers import peel
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import LIMITS, Rule
from jaxrewrite.engine.rulebook.table import FAMILIES
from jaxrewrite.errors import RewriteError

if TYPE_CHECKING:
    from jaxrewrite.engine.build import TreePass
    from jaxrewrite.engine.walk.walker import Walked

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
    refused="{what}, and this use could not take them: {reason}",
    details=(
        ": jaxrewrite rewrites one module at a time, so the use gets no keywords; the finding "
        "names the keywords to write ([section 11](transforms.md#11-limits))"
    ),
)


def check(ctx: Context) -> list[Diagnostic]:
    """JR013 at each transform call whose function is a marked def of another module."""
    if ctx.imports is None or not (bound := origins(ctx.tree)):
        return []
    src, modules = ctx.src, Exports(ctx.imports, _marked_def)
    out: list[Diagnostic] = []
    # The calls naming an imported name or one assigned from it (``fast = jax.jit(f)``).
    for call, scope, site in calls_and_aliases(
        sorted(bound), ctx.scopes, src, FAST, attributes=True
    ):
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
            finding = None if found is None else _finding(src, call, inner, ref, found)
            if finding is not None and finding.message not in said:
                said.add(finding.message)
                out.append(finding)
    return out


def imported_pass(reader: ImportReader) -> TreePass:
    """JR013 as a finding pass (``check`` runs it alone on a module that names no jaxrewrite)."""

    def run(result: Analysis, scopes: ScopeTree, module: ast.Module, walk: Walked) -> None:
        result.diagnostics.extend(check(Context(result, scopes, module, walk, reader)))

    return run


#: Where an imported name is bound (its module and level) and the marked def it is there.
_Found = tuple[str, int, tuple[Function, Signature]]


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
    src: Source, call: ast.Call, where: ast.expr, ref: TransformRef, found: _Found
) -> Diagnostic | None:
    module, level, (func, sig) = found
    marked = [p.name for p in sig.params if p.markers]
    spelled = f"{'.' * level}{module}"
    what = (
        f"the Static/NoDiff parameters of {func.name!r} ({', '.join(map(repr, marked))}, "
        f"marked in {spelled}) are not applied by {ast.unparse(call.func)!r} here: jaxrewrite "
        f"reads one module at a time, so a transform of an imported def gets no keywords"
    )
    try:
        keywords = needed_keywords(call, ref, func, sig, src)
    except RewriteError as err:
        # What the walk would refuse for a def of this module (JR121...), which the hook cannot see
        reason = getattr(err, "message", None) or str(err)
        return Diagnostic.at(src, where, RULE, "refused", what=what, reason=reason)
    if keywords is None:
        return None  # nothing it reads is marked, or the call already says it
    return Diagnostic.at(src, where, RULE, what=what, spelled=spelled, keywords=keywords)
