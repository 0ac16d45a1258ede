"""The one analysis every front end reads, built: text in, an ``Analysis`` value out (parse,
scopes, the walk, then the finding passes the front end hands in)."""

from __future__ import annotations

import ast
import contextlib
import gc
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence

from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.read.depth import any_depth
from jaxrewrite.engine.read.filters import (
    FAST,
    Filters,
    calls_and_aliases,
    classes_with_markers,
)
from jaxrewrite.engine.read.markers import index_of
from jaxrewrite.engine.read.scopes import Binding, ScopeTree, build_scopes, environment
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.walk.callsites import call_site
from jaxrewrite.engine.walk.walker import Walked, classes, defs
from jaxrewrite.errors import RewriteError
from jaxrewrite.header import Header, scan_header

#: A finding pass over the analysis while its tree, scopes and walk are alive: front ends choose
#: the passes (``engine.findings``), so the analysis never imports them.
TreePass = Callable[[Analysis, ScopeTree, ast.Module, Walked], None]


def build_analysis(
    text: str,
    filename: str = "<string>",
    *,
    environment: Mapping[str, Binding] | None = None,
    require_pragma: bool = True,
    filters: Filters = FAST,
    header: Header | None = None,
    passes: Sequence[TreePass] = (),
) -> Analysis:
    """Analyze one module's text; Python's own SyntaxError if it does not parse. ``environment``
    names what the text uses but does not bind (a notebook's earlier cells); ``passes`` run over
    the live tree and walk after the analysis, in order (``engine.findings``)."""
    header = scan_header(text) if header is None else header
    src = Source(text, filename)
    if require_pragma and not header.enabled:
        result = Analysis(src, header)
    else:
        with collector_paused():
            # Parsed here, at the caller's depth, as Python parses it: only the walks may go on
            # in a deeper thread (engine/read/depth.py), never a parse Python itself would refuse.
            tree = ast.parse(text, src.filename)
            result = _analyze_tree(tree, src, header, environment, filters, passes)
            del tree
    unknown = rules.UNKNOWN_DIRECTIVE
    result.diagnostics[:0] = [
        Diagnostic(unknown.code, unknown.text(word=word), filename, line, 1)
        for line, word in header.unknown
    ]
    result.diagnostics.sort(key=lambda d: (d.line, d.col))
    return result


def keeping_tree(into: list[ast.Module]) -> TreePass:
    """A pass that keeps the analysed tree in ``into`` (``build_analysis`` frees it otherwise),
    for a caller that needs it afterwards (migrate)."""
    return lambda result, scopes, tree, walk: into.append(tree)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector, which would rescan the large AST again and again while the
    analysis allocates; the caller frees the AST before leaving. Process-wide, so only while no
    other thread runs; nested pauses leave it to the outermost."""
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
    passes: Sequence[TreePass],
) -> Analysis:
    """The walks over a parsed module, into a fresh Analysis (a deeper retry starts afresh)."""
    result = Analysis(src, header)
    scopes = build_scopes(tree, src.text, outer=None if outer is None else environment(outer))
    try:
        walked = walk_module(scopes, src, filters, result)
        for extra in passes:
            extra(result, scopes, tree, walked)
    finally:
        # Break the scopes' reference cycles: plain reference counting then frees the AST.
        scopes.release()
        del tree, scopes
    return result


def walk_module(scopes: ScopeTree, src: Source, filters: Filters, result: Analysis) -> Walked:
    """The whole walk, into ``result`` and the ``Walked`` value handed to the passes: classes
    (whose per-leaf containers defs read), defs and their decorators, then call sites."""
    relevant = index_of(scopes).names if filters.marker_names else None
    walk = Walked(scopes, src, result, relevant)
    if relevant is not None and not relevant:
        return walk
    registrable, unclear = classes(walk, classes_with_markers(scopes, relevant).values())
    defs(walk)
    names = None  # every call; with ``first_arguments``, every def but found by a text search
    if relevant is not None or filters.first_arguments:
        names = [f.name for f, _ in scopes.defs if relevant is None or id(f) in walk.signatures]
        names += registrable
    for call, scope, site in calls_and_aliases(names, scopes, src, filters):
        try:
            call_site(walk, call, scope, site)
        except RewriteError as err:
            walk.refuse(err)
            walk.refused_calls.append((call, scope, err.code or rules.SYNTAX.code))
    for node, base in unclear:
        if id(node) not in walk.registered:
            base_text = ast.unparse(base)
            walk.refuse(rules.UNSEEN_BASE_FIELD.error(src, base, cls=node.name, base=base_text))
    return walk
