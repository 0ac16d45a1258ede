"""JR013: a transform applied here to a def imported from another module, marked there.

The import hook rewrites ``jax.jit(f)`` from this module's text alone, so where ``f`` comes from
``from mymod import f`` its Static parameters get no keywords and are traced. ``check`` reads the
other module (its ``ImportReader``, as the ledger's JR009 does) and says so at the use, with the
keywords to write. Only a def it finds marked is reported: an imported name it cannot read is
most often no marked def at all, and the marker's own module reports what it can (JR002).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from jaxrewrite.engine.analysis import Analysis, needs_edit
from jaxrewrite.engine.edits import render
from jaxrewrite.engine.read.filters import FAST
from jaxrewrite.engine.read.lexer import any_word
from jaxrewrite.engine.read.othermodules import (
    Exports,
    ImportReader,
    Name,
    Origins,
    attributes,
    found_name,
    library,
    origins,
    reaches,
)
from jaxrewrite.engine.read.recognise import TransformRef, bound_keywords, classify
from jaxrewrite.engine.read.scopes import (
    Binding,
    Defined,
    Scope,
    ScopeTree,
    Site,
)
from jaxrewrite.engine.read.signature import Signature, read_signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.read.wrappers import calls_and_aliases, peel
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import Rule
from jaxrewrite.engine.rulebook.table import FAMILIES
from jaxrewrite.engine.walk import specs
from jaxrewrite.errors import RewriteError

if TYPE_CHECKING:
    from jaxrewrite.engine.build import TreePass
    from jaxrewrite.engine.walk.walker import Walked

Function = ast.FunctionDef | ast.AsyncFunctionDef

#: The names of the table's transforms, each a whole word (a row is found by a name's last
#: segment): a module that names none applies none (``classify`` resolves only names spelled in
#: the module). Whole words: numpy's ``gradient`` names no ``grad``.
_TABLE_NAMES = tuple(
    sorted({name.rpartition(".")[2] for rows in FAMILIES.values() for name in rows})
)


#: An import statement: the modules it names (a superset: strings and comments count too, and
#: ``:`` or ``;`` may start a statement). A line starts after a "\\n" (the text is read with one
#: before it): a pattern that starts with a character class is searched at C speed, where ``^``
#: in multiline mode is tried at every offset (twice the time over jax's source).
_IMPORTS = (
    r"[\n;:][ \t]*(?:from[ \t]+(\.+[\w.]*|[\w.]+)[ \t]+import\b"
    r"|import[ \t]+((?:[\w. \t,]|\\\r?\n)+))"
)
_IMPORT_TEXT = re.compile(_IMPORTS)


def may_apply_imported(text: str) -> bool:
    """Cheap pre-filter: False means ``imported_uses`` finds nothing in ``text``: no transform of
    the table is named, or every module imported is one that holds no markers (jax's, numpy's,
    the standard library's...)."""
    if not any_word(text, _TABLE_NAMES):
        return False
    found = _IMPORT_TEXT.finditer("\n" + text)
    return any(
        not library(name) for match in found for name in _names(match.group(1), match.group(2))
    )


def may_apply_imported_bytes(data: bytes) -> bool:
    """``may_apply_imported`` of a file's bytes (``check.may_find``'s)."""
    return may_apply_imported(data.decode("utf-8", "replace"))


def _names(source: str | None, listed: str | None) -> list[str]:
    """``from source import``, or the modules of ``import a, b as c``."""
    if source is not None:
        return [source]
    parts = (part.replace("\\", " ").split() for part in (listed or "").split(","))
    return [words[0] for words in parts if words]


def imported_pass(reader: ImportReader, rule: Rule) -> TreePass:
    """``imported_uses`` as a finding pass (``check`` runs it alone on a module that names no
    jaxrewrite); ``rule``: JR013's record (``checks/imported_def.py``), which words them."""

    def run(result: Analysis, scopes: ScopeTree, module: ast.Module, walk: Walked) -> None:
        imported_uses(result, scopes, module, reader, rule)

    return run


def imported_uses(
    result: Analysis, scopes: ScopeTree, module: ast.Module, reader: ImportReader, rule: Rule
) -> None:
    """JR013 at each transform call whose function is a marked def of another module."""
    found_origins = origins(module)
    if not found_origins:
        return
    found = list(_findings(result.source, scopes, found_origins, reader, rule))
    if found:
        result.diagnostics.extend(found)
        result.diagnostics.sort(key=lambda d: (d.line, d.col))


def _findings(
    src: Source, scopes: ScopeTree, origins: Origins, reader: ImportReader, rule: Rule
) -> Iterator[Diagnostic]:
    modules = Exports(reader, _marked_def)
    # The calls with an imported name as a first argument, found by a text search first (as the
    # walk finds those of the module's own defs): a nest's inner call names it too; and those
    # naming what is assigned from one (``step = mymod.f``, ``fast = jax.jit(f)``).
    for call, scope, site in calls_and_aliases(sorted(origins), scopes, src, FAST, attributes=True):
        if not call.args or isinstance(call.args[0], ast.Starred):
            continue
        ref = classify(call.func, scope)
        if ref is None:
            continue
        said: set[str] = set()
        for (module, level, name), where in _targets(call.args[0], scope, site, origins):
            found = modules.find(module, level, name)
            if found is None:
                continue
            finding = _finding(rule, src, call, where, ref, found[0], found[1], *found[2])
            if finding is not None and finding.message not in said:
                said.add(finding.message)
                yield finding


def _targets(
    arg: ast.expr, scope: Scope, site: Site, origins: Origins
) -> list[tuple[Name, ast.expr]]:
    """The (module, level, name) of each imported def a transform's argument may name (through
    the transforms and wrappers ``peel`` sees through, and names assigned from such imports,
    read as the rewrite reads a def's names), with the expression that names it."""
    inner, _ = peel(arg, scope)
    base, path = attributes(inner)
    found = [] if base is None else reaches(base, scope, site, origins, {})
    named = [found_name(reach, path) for reach in found]
    return [(name, inner) for name in named if name is not None]


def _marked_def(
    binding: Binding, scope: Scope, source: Source
) -> tuple[Function, Signature] | None:
    """A def of another module with marked parameters, and its signature (``Exports``' judge:
    names assigned one as it is, ``step = f``, follow it; a transform of one, ``fast =
    jax.jit(f)``, is transformed there, no def)."""
    if not isinstance(binding, Defined):
        return None
    try:
        sig = read_signature(binding.node, scope, source, None)
    except RewriteError:
        return None  # refused there: its own module says so
    return (binding.node, sig) if sig.has_markers else None


def _finding(
    rule: Rule,
    src: Source,
    call: ast.Call,
    where: ast.expr,
    ref: TransformRef,
    module: str,
    level: int,
    func: Function,
    sig: Signature,
) -> Diagnostic | None:
    marked = [p.name for p in sig.params if p.markers]
    spelled = f"{'.' * level}{module}"
    what = (
        f"the Static/NoDiff parameters of {func.name!r} ({', '.join(map(repr, marked))}, "
        f"marked in {spelled}) are not applied by {ast.unparse(call.func)!r} here: jaxrewrite "
        f"reads one module at a time, so a transform of an imported def gets no keywords"
    )
    try:
        written = ref.keywords + bound_keywords(
            call, ref.transform.positional, ref.transform.name, src
        )
        values = specs.complete(
            TransformRef(ref.transform, written, ref.factory), sig, src, call, False, at_call=True
        )
    except RewriteError as err:
        # What the walk would refuse for a def of this module (JR121: a NoDiff in argnums...):
        # the import of this module cannot see it, so it is said here.
        reason = getattr(err, "message", None) or str(err)
        return Diagnostic.at(src, where, rule, "refused", what=what, reason=reason)
    if not needs_edit(values):
        return None  # nothing it reads is marked, or the call already says it
    assert values is not None
    keywords = render.keywords(tuple((k, v) for k, v, node in values if node is None))
    return Diagnostic.at(src, where, rule, what=what, spelled=spelled, keywords=keywords)
