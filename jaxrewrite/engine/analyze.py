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

from jaxrewrite.engine.analysis import Analysis, LintFacts, TreePass
from jaxrewrite.engine.callsites import CallSites
from jaxrewrite.engine.classes import FunctionalClass
from jaxrewrite.engine.completion import unseen_error
from jaxrewrite.engine.decorators import Decorators
from jaxrewrite.engine.depth import any_depth
from jaxrewrite.engine.diagnostics import Diagnostic, suppressed
from jaxrewrite.engine.filters import (
    FAST,
    Filters,
    classes_with_markers,
    leaf_aliases,
    marker_names,
)
from jaxrewrite.header import Header, scan_header
from jaxrewrite.engine.elsewhere import ImportReader
from jaxrewrite.engine.ledger import Facts, nothing_to_settle
from jaxrewrite.engine.ledger import build as build_ledger
from jaxrewrite.engine.imported import imported_uses
from jaxrewrite.engine.lint import lint as lint_findings
from jaxrewrite.engine.lint import opaque_classes, read_defs
from jaxrewrite.engine.peruse import per_use
from jaxrewrite.engine.registrations import Registrations
from jaxrewrite.engine.scopes import Binding, ScopeTree, build_scopes, environment
from jaxrewrite.engine.fields import form_of
from jaxrewrite.engine.recognise import classify_registration
from jaxrewrite.engine.signature import MarkerReader, may_mark
from jaxrewrite.engine.source import Source
from jaxrewrite.engine.table import EITHER_FORM, Container
from jaxrewrite.engine.wrappers import calls_and_aliases
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef

#: What the import hook says at import (``analyze(report=True)``): the markers a rewrite leaves
#: doing nothing, read from this module alone. Not JR003 (the marker acts, and JAX refuses an
#: unhashable static argument loudly at the call), nor JR009 (a name from
#: another module: its verdict depends on a file the module's cache key does not cover; ``check``
#: reads it), nor the findings at uses (JR010-JR012: ``check``'s), nor JR001 (the hook reads only
#: modules that opt in). A noqa comment on the line silences one as it does for ``check``.
REPORTED_AT_IMPORT = frozenset({"JR002", "JR004", "JR007", "JR008", "JR014", "JR020"})


def analyze(
    text: str,
    filename: str = "<string>",
    *,
    environment: Mapping[str, Binding] | None = None,
    require_pragma: bool = True,
    filters: Filters = FAST,
    header: Header | None = None,
    lint: bool = False,
    passes: Sequence[TreePass] = (),
    imports: ImportReader | None = None,
    parsed: ast.Module | None = None,
    report: bool = False,
) -> Analysis:
    """Analyze one module's text; Python's own SyntaxError if it does not parse.

    ``environment`` names what the text uses but does not bind (a notebook's earlier cells);
    ``require_pragma`` False analyzes text without a ``# jaxrewrite: enable`` header; ``lint``
    adds the findings of markers that would do nothing (``engine.lint``: JR001 to JR004, JR007);
    ``passes`` run over the live tree after the analysis (``engine.tracetime.PASS``: JR006, the
    arguments that must be static, read with ``EXHAUSTIVE``-like filters so that unmarked uses count).
    With ``lint`` the analysis also keeps the ledger (``engine.ledger``: every marker applied,
    refused or reported); ``imports`` reads the modules names are imported from, for it.
    ``parsed``: the text already parsed (``hook/fast/skeleton.py``'s tree: bodies left unparsed).
    ``report`` (the import hook's): lint's findings on marked defs and the ledger, without the
    findings at uses (JR010-JR012) or in other modules: what the hook says of markers that do
    nothing (``REPORTED_AT_IMPORT``).
    """
    header = scan_header(text) if header is None else header
    src = Source(text, filename)
    unknown = [
        Diagnostic("JR005", f"unknown jaxrewrite directive '# jaxrewrite: {word}' (only 'enable' exists)", filename, line, 1)
        for line, word in header.unknown
    ]
    if require_pragma and not header.enabled:
        result = Analysis(src, header)
    else:
        with collector_paused():
            # Parsed here, at the caller's depth, as Python parses it: only the walks may go on
            # in a deeper thread (engine/depth.py), never a parse Python itself would refuse.
            tree = ast.parse(text, src.filename) if parsed is None else parsed
            result = _analyze_tree(tree, src, header, environment, filters, lint, passes, imports, report)
            del tree, parsed
    result.diagnostics[:0] = unknown
    result.diagnostics.sort(key=lambda d: (d.line, d.col))
    return result


def keeping_tree(into: list[ast.Module]) -> TreePass:
    """A pass that keeps the analysed tree in ``into``: ``analyze`` frees it otherwise, and a
    caller that needs it afterwards (the hook's tree route, migrate) need not parse again."""

    def keep(result: Analysis, scopes: ScopeTree, tree: ast.Module) -> None:
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
    lint: bool,
    passes: Sequence[TreePass] = (),
    imports: ImportReader | None = None,
    report: bool = False,
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
        analyzer = _Analyzer(scopes, src, filters, result)
        analyzer.run()
        if lint:
            analyzer.lint()
            per_use(result, scopes, tree, {key: sig for key, (sig, _) in analyzer.signatures.items()})
            build_ledger(result, scopes, tree, analyzer.facts(), imports)
            if imports is not None:
                imported_uses(result, scopes, tree, imports)
        elif report:
            walked = {id(d) for d in result.diagnostics}
            analyzer.lint(hashing=False)
            facts = analyzer.facts()
            if not nothing_to_settle(result, tree, analyzer.relevant, facts):
                build_ledger(result, scopes, tree, facts, None, imports=False)
            lines = src.text.splitlines() if len(result.diagnostics) > len(walked) else []
            result.diagnostics[:] = [
                d
                for d in result.diagnostics
                if id(d) in walked or (d.code in REPORTED_AT_IMPORT and not suppressed(d, lines))
            ]
        for extra in passes:
            extra(result, scopes, tree)
    finally:
        # Break the scopes' reference cycles: plain reference counting then frees the AST.
        scopes.release()
        del tree, scopes
    return result


class _Analyzer(Decorators, Registrations, CallSites):
    """The whole walk: defs and their decorators, classes, then call sites (which need both)."""

    refused_calls: list[tuple[ast.Call, str]]

    def facts(self) -> Facts:
        """What the ledger needs of the walk beyond the Analysis."""
        fields = {
            key: (info.name, [(f.name, f.markers, f.node) for f in info.fields]) for key, info in self.class_info.items()
        }
        read = {id(p.node): p.markers for sig, _ in self.signatures.values() for p in sig.params}
        transforms: dict[int, set[str]] = {}
        for use in self.result.uses:
            transforms.setdefault(id(use.target), set()).add(use.transform.name)
        return Facts(
            self.applied,
            self.unseen,
            self.refused_calls,
            fields,
            read,
            self.unknown_calls,
            transforms,
            self.refused_defs,
            self.twins,
        )

    def run(self) -> None:
        self.refused_calls = []
        exhaustive = not self.filters.marker_names
        if not exhaustive:
            self.relevant = marker_names(self.tree)
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
                leaf_names.add(defined.name if isinstance(defined, FunctionalClass) else defined.node.name)
        self.leaf_names = leaf_aliases(self.tree, leaf_names)
        self.defs(exhaustive)
        registrable = self.registrations(static_classes)
        unclear = self.field_forms({k: v for k, v in static_classes.items() if k not in unreadable})
        names = None if exhaustive else [func.name for func, _ in self.tree.defs if id(func) in self.signatures]
        if names is None and self.filters.first_arguments:  # every def, but found by a text search
            names = [func.name for func, _ in self.tree.defs]
        if names is not None:
            names += registrable
        for call, scope, site in calls_and_aliases(names, self.tree, self.src, self.filters):
            try:
                self.call_site(call, scope, site)
            except RewriteError as err:
                self.refuse(err)
                self.refused_calls.append((call, getattr(err, "code", None) or "JR100"))
        for node, base in unclear:
            if id(node) not in self.registered:
                self.refuse(unseen_error(node, base, self.src))

    def lint(self, hashing: bool = True) -> None:
        """Read what lint needs while the scopes are alive; ``engine.lint.lint`` judges it.
        ``hashing`` False: no JR003 (the import's report: such a marker acts, and JAX refuses
        the call loudly)."""
        signatures = {key: sig for key, (sig, _) in self.signatures.items()}
        self.result.lint_facts = LintFacts(
            read_defs(self.tree.defs, signatures, self.applied, self.unknown_calls, self.refused_defs, hashing),
            tuple(self.unseen),
            opaque_classes(self.opaque, self.class_info),
        )
        self.result.diagnostics.extend(lint_findings(self.result))
        self.result.diagnostics.extend(self.held_in_pytrees())

    def held_in_pytrees(self) -> list[Diagnostic]:
        """JR014: a field of an Equinox Module or flax.struct dataclass (or a registered
        dataclass) annotated with a TypedDict/NamedTuple that has Static entries: the class
        flattens it like any pytree, so those entries are traced (per-leaf statics split
        parameters of transformed defs, never fields)."""
        found: list[Diagnostic] = []
        if not self.leaf_names:
            return found
        for defined, scope in self.tree.classes:
            for stmt in defined.node.body:
                if not isinstance(stmt, ast.AnnAssign) or not may_mark(stmt.annotation, self.leaf_names):
                    continue
                try:
                    if MarkerReader(defined.body, self.src, None).markers(stmt.annotation):
                        continue  # Static[Cfg]: the whole field is static
                    held = self.leaf_class(stmt.annotation, defined.body)
                    info = self.info(held[0]) if held is not None else None
                    if info is None or not info.static_fields:
                        continue
                    form, unseen = form_of(defined, scope)
                except RewriteError:
                    continue  # reported where it is read
                registered = any(classify_registration(d, scope) for d in defined.node.decorator_list)
                library = form.library if form is not None else "registered" if registered else None
                if library is None and unseen is not None:
                    library = EITHER_FORM.library
                if library is None:
                    continue
                entries = ", ".join(repr(f.name) for f in info.static_fields)
                found.append(
                    Diagnostic.from_error(
                        self.src.error(
                            stmt.annotation,
                            "JR014",
                            f"field {_target(stmt)!r} of {defined.node.name!r} ({library} class) holds "
                            f"{info.name!r}, whose Static entries ({entries}) split a parameter of a "
                            "transformed def only: a field is flattened like any pytree, so they are traced here; "
                            f"mark the field Static[...] whole, or make them Static fields of {defined.node.name!r}",
                        )
                    )
                )
        return found


def _target(stmt: ast.AnnAssign) -> str:
    return stmt.target.id if isinstance(stmt.target, ast.Name) else ast.unparse(stmt.target)
