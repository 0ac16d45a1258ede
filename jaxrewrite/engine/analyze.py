"""The one analysis every front end reads: what the module opts into, every transform use with its
transform, signature and user-written spec, and every finding with its code.

Pure: text in, an ``Analysis`` value out. ``plan`` turns it into edits, the import hook raises its
first error, ``show`` prints its findings, ``check`` and ``migrate`` read its uses.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import threading
from collections.abc import Iterator, Mapping, Sequence

from jaxrewrite.engine.analysis import Analysis, TreePass
from jaxrewrite.engine.read.classes import FunctionalClass
from jaxrewrite.engine.read.depth import any_depth
from jaxrewrite.engine.read.filters import (
    FAST,
    Filters,
    classes_with_markers,
    leaf_aliases,
)
from jaxrewrite.engine.read.markindex import index_of
from jaxrewrite.engine.read.scopes import Binding, Scope, ScopeTree, build_scopes, environment
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.read.wrappers import calls_and_aliases
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import Container
from jaxrewrite.engine.walk.callsites import CallSites
from jaxrewrite.engine.walk.completion import unseen_error
from jaxrewrite.engine.walk.decorators import Decorators
from jaxrewrite.engine.walk.registrations import Registrations
from jaxrewrite.errors import RewriteError
from jaxrewrite.header import Header, scan_header

Function = ast.FunctionDef | ast.AsyncFunctionDef


def analyze(
    text: str,
    filename: str = "<string>",
    *,
    environment: Mapping[str, Binding] | None = None,
    require_pragma: bool = True,
    filters: Filters = FAST,
    header: Header | None = None,
    passes: Sequence[TreePass] = (),
    parsed: ast.Module | None = None,
) -> Analysis:
    """Analyze one module's text; Python's own SyntaxError if it does not parse.

    ``environment`` names what the text uses but does not bind (a notebook's earlier cells);
    ``require_pragma`` False analyzes text without a ``# jaxrewrite: enable`` header; ``passes``
    run over the live tree and walk after the analysis, in order: the finding passes
    (``engine.findings``: the rules' checks as one pass) and ``engine.findings.tracetime.PASS`` (JR006,
    the arguments that must be static, read with ``EXHAUSTIVE``-like filters so that unmarked
    uses count). ``parsed``: the text already parsed.
    """
    header = scan_header(text) if header is None else header
    src = Source(text, filename)
    unknown = [
        Diagnostic(
            rules.UNKNOWN_DIRECTIVE.code, rules.UNKNOWN_DIRECTIVE.text(word=word), filename, line, 1
        )
        for line, word in header.unknown
    ]
    if require_pragma and not header.enabled:
        result = Analysis(src, header)
    else:
        with collector_paused():
            # Parsed here, at the caller's depth, as Python parses it: only the walks may go on
            # in a deeper thread (engine/read/depth.py), never a parse Python itself would refuse.
            tree = ast.parse(text, src.filename) if parsed is None else parsed
            result = _analyze_tree(tree, src, header, environment, filters, passes)
            del tree, parsed
    result.diagnostics[:0] = unknown
    result.diagnostics.sort(key=lambda d: (d.line, d.col))
    return result


def keeping_tree(into: list[ast.Module]) -> TreePass:
    """A pass that keeps the analysed tree in ``into``: ``analyze`` frees it otherwise, and a
    caller that needs it afterwards (the hook's tree route, migrate) need not parse again."""

    def keep(result: Analysis, scopes: ScopeTree, tree: ast.Module, walk: Analyzer) -> None:
        into.append(tree)

    return keep


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector; the caller frees the AST (and what holds it) before leaving.

    The AST is large and planning allocates many small objects: a running collector would rescan
    the whole tree again and again, and resuming it while the tree is alive would make the next
    young collection walk every node once more. The collector is process-wide, so it is paused
    only while no other thread runs: no other thread can then see, or change, the setting in
    between. Nested pauses leave it to the outermost.
    """
    if not gc.isenabled() or threading.active_count() != 1:
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@any_depth
def _analyze_tree(
    tree: ast.Module,
    src: Source,
    header: Header,
    outer: Mapping[str, Binding] | None,
    filters: Filters,
    passes: Sequence[TreePass] = (),
) -> Analysis:
    """The walks over a parsed module, into a fresh Analysis (so a second, deeper attempt starts
    from nothing)."""
    result = Analysis(src, header)
    scopes = build_scopes(
        tree,
        src.text,
        src.line_starts,
        outer=None if outer is None else environment(outer),
        defer=filters.defer_bodies,
    )
    try:
        analyzer = Analyzer(scopes, src, filters, result)
        analyzer.run()
        for extra in passes:
            extra(result, scopes, tree, analyzer)
    finally:
        # Break the scopes' reference cycles: plain reference counting then frees the AST.
        scopes.release()
        del tree, scopes
    return result


class Analyzer(Decorators, Registrations, CallSites):
    """The whole walk: defs and their decorators, classes, then call sites (which need both)."""

    refused_calls: list[tuple[ast.Call, Scope, str]]

    def run(self) -> None:
        self.refused_calls = []
        exhaustive = not self.filters.marker_names
        if not exhaustive:
            self.relevant = index_of(self.tree).names
            if not self.relevant:
                return
        static_classes = classes_with_markers(self.tree, self.relevant)
        leaf_names = set()
        unreadable: set[int] = set()  # refused once here: field_forms does not read them again
        for key, local in static_classes.items():
            try:
                info = self.info(local)
            except RewriteError as err:
                self.refuse(err)
                unreadable.add(key)
                continue
            if info.kind is not Container.CLASS and info.static_fields:
                defined = local[0]
                leaf_names.add(
                    defined.name if isinstance(defined, FunctionalClass) else defined.node.name
                )
        self.leaf_names = leaf_aliases(self.tree, leaf_names)
        self.defs(exhaustive)
        registrable = self.registrations(static_classes)
        unclear = self.field_forms({k: v for k, v in static_classes.items() if k not in unreadable})
        names = (
            None
            if exhaustive
            else [func.name for func, _ in self.tree.defs if id(func) in self.signatures]
        )
        if names is None and self.filters.first_arguments:  # every def, but found by a text search
            names = [func.name for func, _ in self.tree.defs]
        if names is not None:
            names += registrable
        for call, scope, site in calls_and_aliases(names, self.tree, self.src, self.filters):
            try:
                self.call_site(call, scope, site)
            except RewriteError as err:
                self.refuse(err)
                self.refused_calls.append(
                    (call, scope, getattr(err, "code", None) or rules.SYNTAX.code)
                )
        for node, base in unclear:
            if id(node) not in self.registered:
                self.refuse(unseen_error(node, base, self.src))
