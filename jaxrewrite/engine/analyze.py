"""The one analysis every front end reads: what the module opts into, every transform use with its
transform, signature and user-written spec, and every finding with its code.

Pure: text in, an ``Analysis`` value out. ``plan`` turns it into edits, the import hook raises its
first error, ``show`` prints its findings, ``check`` and ``migrate`` read its uses.
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import enum
import gc
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from jaxrewrite.engine.classes import ClassInfo, FunctionalClass, LocalClass, local_class, read_class
from jaxrewrite.engine.diagnostics import Diagnostic
from jaxrewrite.engine.fields import FieldUse, field_uses, form_of
from jaxrewrite.engine.filters import (
    FAST,
    Filters,
    calls_naming,
    classes_with_markers,
    lines_mentioning,
    marker_names,
    may_matter,
)
from jaxrewrite.engine.header import Header, scan_header
from jaxrewrite.engine.keywords import Values, complete, literal_ints, registration_values
from jaxrewrite.engine.lint import looks_like_transform, marked_defs, missing_pragma, unseen_level
from jaxrewrite.engine.recognise import TransformRef, ambiguous, bound_keywords, classify, classify_registration
from jaxrewrite.engine.resolve import MAX_DEPTH, binding_scope, parse_string, qualname
from jaxrewrite.engine.scopes import Assigned, Binding, Defined, Scope, ScopeTree, Site, build_scopes, environment
from jaxrewrite.engine.signature import Kind, Param, Signature, read_signature
from jaxrewrite.engine.source import Source
from jaxrewrite.engine.table import TRANSFORMS, ClassTransform, Container, Mark, SpecKind, Transform
from jaxrewrite.engine.wrappers import calls_and_aliases, made_from, passes_through, peel, wrapper_error
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


#: A further pass over the analysis while its tree and scopes are alive (``check``'s trace-time
#: analysis, ``engine.tracetime.PASS``): it adds to the Analysis. Front ends choose the passes, so
#: the analysis never imports them.
TreePass = Callable[["Analysis", ScopeTree, ast.Module], None]


class UseKind(enum.Enum):
    DECORATOR = "decorator"  # @jax.jit on a def, @register_dataclass on a class
    CALL = "call"  # jax.jit(f) on a def of this module, register_dataclass(C)


@dataclass(frozen=True)
class Leaf:
    """A parameter whose TypedDict/NamedTuple annotation has marked entries (per-leaf statics).

    ``keys`` are the entries one transform holds out (its markers); a def's own record keeps
    every marked field in ``marks`` and each use narrows it with ``held``.
    """

    param: Param
    kind: Container
    keys: tuple[str, ...]
    marks: tuple[tuple[str, frozenset[Mark]], ...] = ()

    def spec(self) -> tuple[str, int | None, str, tuple[str, ...]]:
        return (self.param.name, self.param.position, self.kind.value, self.keys)

    def held(self, markers: frozenset[Mark]) -> Leaf | None:
        """This parameter as ``markers`` see it: the entries carrying one of them, or None."""
        keys = tuple(name for name, marks in self.marks if marks & markers)
        return Leaf(self.param, self.kind, keys, self.marks) if keys else None


def held_leaves(leaves: tuple[Leaf, ...], transform: Transform) -> tuple[Leaf, ...]:
    """The per-leaf parameters a transform must split: those with entries it holds out."""
    found = (leaf.held(transform.markers) for leaf in leaves)
    return tuple(leaf for leaf in found if leaf is not None)


@dataclass(frozen=True)
class Use:
    """One transform applied to one function of the module, or one class registration."""

    kind: UseKind
    #: The decorator expression, or the whole call at a call site.
    node: ast.expr
    transform: Transform | ClassTransform
    #: The def (or class) it applies to.
    target: Function | ast.ClassDef
    signature: Signature | None
    leaves: tuple[Leaf, ...]
    #: What the user wrote, outermost alias and ``partial`` keywords first, positional arguments
    #: as the keywords they bind.
    written: tuple[ast.keyword, ...]
    #: The arguments written at this very node (a call site's own, a decorator call's own).
    local: tuple[ast.keyword, ...]
    #: The complete keywords to write (keyword, value, the user's node when it already says
    #: exactly that), or None when nothing is static for this use.
    values: Values | None
    #: A decorator factory's result: takes only the function, so nothing can be added to it.
    factory: bool = False

    @property
    def needs_edit(self) -> bool:
        return bool(self.leaves) or _needs_edit(self.values)


def _needs_edit(values: Values | None) -> bool:
    """Is any keyword value not already written exactly so by the user?"""
    return values is not None and any(node is None for _, _, node in values)


@dataclass
class Analysis:
    source: Source
    header: Header
    uses: list[Use] = field(default_factory=list)
    #: Static fields of Equinox Modules and flax.struct dataclasses (``engine.fields``).
    fields: list[FieldUse] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: (def, parameter name) of every JR006 finding: what ``check --fix`` makes static.
    must_be_static: list[tuple[Function, str]] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]

    def raise_first_error(self) -> None:
        errors = self.errors
        if errors:
            raise errors[0].error()

    def first_edit(self) -> Use | None:
        """The first use (by position) the rewrite would change: what un-rewritten code loses."""
        edited = [use for use in self.uses if use.needs_edit]
        return min(edited, key=lambda use: (use.node.lineno, use.node.col_offset), default=None)


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
) -> Analysis:
    """Analyze one module's text; Python's own SyntaxError if it does not parse.

    ``environment`` names what the text uses but does not bind (a notebook's earlier cells);
    ``require_pragma`` False analyzes text without a ``# jaxrewrite: enable`` header; ``lint``
    adds the findings of markers that would do nothing (``engine.lint``: JR001 to JR004, JR007);
    ``passes`` run over the live tree after the analysis (``engine.tracetime.PASS``: JR006, the
    arguments that must be static, read with ``EXHAUSTIVE``-like filters so that unmarked uses count).
    """
    header = scan_header(text) if header is None else header
    src = Source(text, filename)
    result = Analysis(src, header)
    for line, word in header.unknown:
        result.diagnostics.append(
            Diagnostic(
                "JR005",
                f"unknown jaxrewrite directive '# jaxrewrite: {word}' (only 'enable' exists)",
                filename,
                line,
                1,
            )
        )
    if require_pragma and not header.enabled:
        return result
    with collector_paused():
        _analyze_tree(text, src, environment, filters, result, lint, passes)
    result.diagnostics.sort(key=lambda d: (d.line, d.col))
    return result


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


def _analyze_tree(
    text: str,
    src: Source,
    outer: Mapping[str, Binding] | None,
    filters: Filters,
    result: Analysis,
    lint: bool,
    passes: Sequence[TreePass] = (),
) -> None:
    tree = ast.parse(text, src.filename)
    scopes = build_scopes(
        tree,
        text,
        src.line_starts,
        outer=None if outer is None else environment(outer),
        defer=filters.defer_bodies,
    )
    try:
        analyzer = _Analyzer(scopes, src, filters, result)
        analyzer.run()
        if lint:
            analyzer.lint()
        for extra in passes:
            extra(result, scopes, tree)
    finally:
        # Break the scopes' reference cycles: plain reference counting then frees the AST.
        scopes.release()
        del tree, scopes


class _Analyzer:
    def __init__(self, tree: ScopeTree, src: Source, filters: Filters, result: Analysis) -> None:
        self.tree = tree
        self.src = src
        self.filters = filters
        self.result = result
        self.relevant: set[str] | None = None
        self.class_info: dict[int, ClassInfo] = {}
        #: Defs with markers or per-leaf parameters: (signature, leaves).
        self.signatures: dict[int, tuple[Signature, tuple[Leaf, ...]]] = {}
        #: Defs whose signature is itself an error: their uses are not analyzed again.
        self.failed: set[int] = set()
        #: Defs a transform of the table is applied to (even where that use was refused).
        self.applied: set[int] = set()
        #: Marked defs passed to a call that looks like a transform the table lacks.
        self.unknown_calls: dict[int, ast.expr] = {}
        #: Classes a ``register_dataclass(C)`` call site registers.
        self.registered: set[int] = set()
        #: Transform call sites whose argument is made from a marked def in a way not seen
        #: through (JR007), with that def.
        self.unseen: list[tuple[ast.Call, Function]] = []

    def refuse(self, err: RewriteError) -> None:
        self.result.diagnostics.append(Diagnostic.from_error(err))

    def info(self, local: LocalClass) -> ClassInfo:
        defined, scope = local
        key = id(defined.call if isinstance(defined, FunctionalClass) else defined.node)
        if key not in self.class_info:
            self.class_info[key] = read_class(defined, scope, self.src, self.relevant)
        return self.class_info[key]

    def run(self) -> None:
        exhaustive = not self.filters.marker_names
        if not exhaustive:
            self.relevant = marker_names(self.tree)
            if not self.relevant:
                return
        static_classes = classes_with_markers(self.tree, self.relevant)
        leaf_names = set()
        for local in static_classes.values():
            try:
                info = self.info(local)
            except RewriteError as err:
                self.refuse(err)
                continue
            if info.kind is not Container.CLASS and info.static_fields:
                defined = local[0]
                leaf_names.add(defined.name if isinstance(defined, FunctionalClass) else defined.node.name)
        self.leaf_names = leaf_names
        self.defs(exhaustive)
        registrable = self.registrations(static_classes)
        unclear = self.field_forms(static_classes)
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
        for node, base in unclear:
            if id(node) not in self.registered:
                self.refuse(_unseen_error(node, base, self.src))

    def lint(self) -> None:
        """JR001 to JR004 and JR007 (``engine.lint``), with the scopes still alive."""
        signatures = {key: sig for key, (sig, _) in self.signatures.items()}
        found = marked_defs(self.tree.defs, signatures, self.applied, self.unknown_calls, self.src)
        first = self.result.first_edit()
        if first is not None:
            where: ast.AST = first.node
            if first.signature is not None:
                where = next((p.node for p in first.signature.params if p.markers), first.node)
            pragma = missing_pragma(self.result.header, where, self.src)
            if pragma is not None:
                found.append(pragma)
        found.extend(unseen_level(call, func, self.src) for call, func in self.unseen)
        self.result.diagnostics.extend(found)

    # -- decorators ---------------------------------------------------------------------------

    def defs(self, exhaustive: bool) -> None:
        relevant = self.relevant
        mentions = None
        if relevant is not None and self.filters.signature_lines:
            mentions = lines_mentioning(relevant | self.leaf_names, self.src)
        for func, scope in self.tree.defs:
            if relevant is not None:
                if mentions is not None and not _header_mentions(func, mentions):
                    continue
                if not may_matter(func, relevant, self.leaf_names):
                    continue
            try:
                sig = read_signature(func, scope, self.src, relevant)
                leaves = self.leaves(sig, scope) if self.leaf_names else ()
            except RewriteError as err:
                self.failed.add(id(func))
                self.refuse(err)
                continue
            marked = sig.has_markers or bool(leaves)
            if marked:
                self.signatures[id(func)] = (sig, leaves)
            elif not exhaustive:
                continue
            for deco in func.decorator_list:
                try:
                    self.decorator(deco, func, sig, leaves, scope, marked)
                except RewriteError as err:
                    self.refuse(err)

    def decorator(
        self, deco: ast.expr, func: Function, sig: Signature, leaves: tuple[Leaf, ...], scope: Scope, marked: bool
    ) -> None:
        ref = classify(deco, scope)
        if ref is None:
            if marked and ambiguous(deco, scope):
                raise _ambiguity_error(deco, self.src)
            return
        self.applied.add(id(func))
        if marked:
            below = func.decorator_list[func.decorator_list.index(deco) + 1 :]
            wrapper = next((d for d in below if classify(d, scope) is None and not passes_through(d, scope)), None)
            if wrapper is not None:
                raise wrapper_error(wrapper, wrapper, func, self.src)
        local = tuple(deco.keywords) if isinstance(deco, ast.Call) else ()
        leaves = held_leaves(leaves, ref.transform)
        values = _complete(ref, sig, self.src, deco, bool(leaves))
        wraps = bool(leaves) or (not isinstance(deco, ast.Call) and _needs_edit(values))
        if wraps:
            _check_import_visible(deco, scope, self.src)
        use = Use(
            UseKind.DECORATOR,
            deco,
            ref.transform,
            func,
            sig,
            leaves,
            ref.keywords,
            local,
            values,
            ref.factory,
        )
        if leaves:
            if ref.transform.per_leaf is None:
                raise self.src.error(
                    leaves[0].param.node,
                    "JR106",
                    f"per-leaf statics ({leaves[0].param.name!r} has Static entries) work under "
                    f"{_per_leaf_names()} only, not {ref.transform.name}",
                )
            if ref.factory:
                raise _factory_error(deco, ref, self.src)
        elif use.needs_edit and ref.factory and not isinstance(deco, ast.Call):
            raise _factory_error(deco, ref, self.src)
        self.result.uses.append(use)

    def leaves(self, sig: Signature, scope: Scope) -> tuple[Leaf, ...]:
        """Parameters annotated with a TypedDict/NamedTuple of this module that has Static fields."""
        found = []
        for param in sig.params:
            ann = param.node.annotation
            if param.markers or ann is None:
                continue
            if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
                parsed = parse_string(ann.value)
                if parsed is None:
                    continue
                ann = parsed
            local = local_class(ann, scope) if isinstance(ann, ast.Name) else None
            if local is None:
                continue
            info = self.info(local)
            marks = tuple((f.name, f.markers) for f in info.static_fields)
            if info.kind is Container.CLASS or not marks:
                continue
            if param.kind in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD):
                raise self.src.error(
                    param.node,
                    "JR108",
                    f"per-leaf statics cannot apply to {param.kind.value} parameter {param.name!r}",
                )
            statics = tuple(name for name, m in marks if Mark.STATIC in m)
            found.append(Leaf(param, info.kind, statics, marks))
        return tuple(found)

    # -- classes ------------------------------------------------------------------------------

    def registrations(self, static_classes: dict[int, LocalClass]) -> list[str]:
        registrable = []
        for local in static_classes.values():
            defined, scope = local
            if isinstance(defined, FunctionalClass):
                continue
            try:
                info = self.info(local)
            except RewriteError:
                continue  # already reported
            if not info.static_fields:
                continue
            registrable.append(defined.node.name)
            for deco in defined.node.decorator_list:
                registration = classify_registration(deco, scope)
                if registration is None:
                    continue
                transform, keywords = registration
                try:
                    values = registration_values(transform, keywords, info, self.src, deco)
                except RewriteError as err:
                    self.refuse(err)
                    continue
                local_keywords = tuple(deco.keywords) if isinstance(deco, ast.Call) else ()
                if not isinstance(deco, ast.Call) and _needs_edit(values):
                    try:
                        _check_import_visible(deco, scope, self.src)
                    except RewriteError as err:
                        self.refuse(err)
                        continue
                self.result.uses.append(
                    Use(
                        UseKind.DECORATOR,
                        deco,
                        transform,
                        defined.node,
                        None,
                        (),
                        keywords,
                        local_keywords,
                        values,
                    )
                )
        return registrable

    def field_forms(self, static_classes: dict[int, LocalClass]) -> list[tuple[ast.ClassDef, ast.expr]]:
        """Static fields of Equinox Modules and flax.struct dataclasses, completed in place; the
        classes whose Static fields nothing may consume, with the base that hides what they are."""
        unclear = []
        for local in static_classes.values():
            defined, scope = local
            if isinstance(defined, FunctionalClass):
                continue
            try:
                form, unseen = form_of(defined, scope)
                if form is not None:
                    self.result.fields.extend(field_uses(defined, scope, form, self.src, self.relevant))
                    continue
                info = self.info(local)
            except RewriteError as err:
                self.refuse(err)
                continue
            own = any(f.markers and f.node in defined.node.body for f in info.fields)
            registered = any(classify_registration(deco, scope) for deco in defined.node.decorator_list)
            if unseen is not None and own and info.kind is Container.CLASS and not registered:
                unclear.append((defined.node, unseen))
        return unclear

    # -- call sites ---------------------------------------------------------------------------

    def call_site(self, call: ast.Call, scope: Scope, site: Site) -> None:
        """``jax.jit(f)``, ``jax.pmap(f, in_axes=...)``, ``partial(jax.jit, ...)(f)`` for a local ``f``;
        ``jax.tree_util.register_dataclass(C)`` for a local class ``C``."""
        if not call.args or isinstance(call.args[0], ast.Starred):
            return
        registration = classify_registration(call.func, scope)
        if registration is not None:
            local = local_class(call.args[0], scope)
            if local is None or isinstance(local[0], FunctionalClass):
                return
            transform, keywords = registration
            self.registered.add(id(local[0].node))
            written = keywords + bound_keywords(call, transform.positional, transform.name, self.src)
            values = registration_values(transform, written, self.info(local), self.src, call)
            self.result.uses.append(
                Use(UseKind.CALL, call, transform, local[0].node, None, (), written, written[len(keywords):], values)
            )
            return
        ref = classify(call.func, scope)
        if ref is None:
            marked = self._marked_function(call.args[0], scope, site)
            if marked is not None and ambiguous(call.func, scope):
                raise _ambiguity_error(call.func, self.src)
            if marked is not None and looks_like_transform(call.func):
                self.unknown_calls.setdefault(id(marked), call.func)
            return
        func = self._function(call.args[0], scope, site)
        if func is None:
            reached = made_from(call.args[0], scope, self.signatures)
            if reached is not None:
                self.applied.add(id(reached))
                self.unseen.append((call, reached))
            return
        self.applied.add(id(func))
        local_keywords = bound_keywords(call, ref.transform.positional, ref.transform.name, self.src)
        written = ref.keywords + local_keywords
        found = self.signatures.get(id(func))
        if found is None:  # no markers: reported for migrate, nothing to write
            sig = read_signature(func, scope, self.src, self.relevant) if self.relevant is None else None
            if sig is not None:
                self.result.uses.append(
                    Use(UseKind.CALL, call, ref.transform, func, sig, (), written, local_keywords, None, ref.factory)
                )
            return
        sig, leaves = found
        leaves = held_leaves(leaves, ref.transform)
        if leaves and ref.transform.per_leaf is None:
            raise self.src.error(
                call,
                "JR106",
                f"per-leaf statics ({leaves[0].param.name!r} has Static entries) work under "
                f"{_per_leaf_names()} only, not {ref.transform.name}",
            )
        if leaves and ref.factory:
            raise self.src.error(
                call,
                "JR107",
                f"per-leaf statics ({leaves[0].param.name!r} has Static entries) cannot be split by "
                f"{ast.unparse(call.func)!r}, a decorator factory's result; use functools.partial instead",
            )
        if leaves:
            _check_import_visible(call, scope, self.src)
        full = TransformRef(ref.transform, written, ref.factory)
        values = _complete(full, sig, self.src, call, bool(leaves), at_call=True)
        use = Use(UseKind.CALL, call, ref.transform, func, sig, leaves, written, local_keywords, values, ref.factory)
        if use.needs_edit and ref.factory:
            raise _factory_error(call.func, ref, self.src)
        self.result.uses.append(use)

    def _marked_function(self, arg: ast.expr, scope: Scope, site: Site) -> Function | None:
        func = self._function(arg, scope, site)
        return func if func is not None and id(func) in self.signatures else None

    def _function(
        self, arg: ast.expr, scope: Scope, site: Site, depth: int = 0, memo: dict[int, object] | None = None
    ) -> Function | None:
        """The def a call-site argument names, as Python would see it when the call runs; a
        RewriteError when it may be defs with different Static parameters.

        Seen through (``engine.wrappers.peel``): any nest of the table's transforms and
        one-argument wrappers (``jax.jit(jax.vmap(jax.grad(f)))``), and names bound to such an
        expression (``f = jax.jit(f)``, read where that statement runs). ``memo`` holds the
        assignments followed (each read once; one still being read is left out, so that
        ``f = jax.jit(f)`` in a loop does not follow itself)."""
        if depth > MAX_DEPTH:
            return None
        memo = {} if memo is None else memo
        arg, wrapper = peel(arg, scope)
        if not isinstance(arg, ast.Name):
            return None
        found = scope.lookup(arg.id)
        if found is None:
            return None
        bindings, where = found
        seen = where.bindings_seen_at(arg.id, site) if where is scope else list(bindings)
        seen = [b for b in seen or () if not (id(b) in memo and memo[id(b)] is _READING)]
        if len(seen) > 1:
            # ``@typing.overload`` stubs are replaced by the implementation that follows them.
            real = [b for b in seen if not (isinstance(b, Defined) and _is_overload(b.node, where))]
            seen = real or seen[-1:]
        if not seen:
            return None
        resolved = [self._bound_def(b, arg.id, where, depth, memo) for b in seen]
        if any(isinstance(b, Assigned) and func is None for b, func in zip(seen, resolved)):
            # An assignment not seen through: assignments are then no defs at all, as they were
            # before they were followed (what a transform of it gets is reported: JR007).
            resolved = [b.node if isinstance(b, Defined) else None for b in seen]
        defs = [func for func in resolved if func is not None]
        if not defs:
            return None
        if any(id(func) in self.failed for func in defs):
            return None
        marked = [id(func) in self.signatures for func in defs]
        func: Function | None = None
        if len(defs) == len(seen) and (len(defs) == 1 or not any(marked)):
            func = defs[-1]
        elif len(defs) == len(seen) and all(marked):
            first = self.signatures[id(defs[0])]
            if all(_same_statics(self.signatures[id(other)], first) for other in defs[1:]):
                func = defs[-1]
        if func is None:
            if not any(marked):
                return None
            raise self.src.error(
                arg,
                "JR119",
                f"cannot tell which {arg.id!r} this is: the name is bound more than one way where it is used "
                "here, and not every binding is a def with the same Static parameters; bind it once",
            )
        if wrapper is not None and id(func) in self.signatures:
            self.applied.add(id(func))
            raise wrapper_error(wrapper, wrapper.func, func, self.src)
        return func

    def _bound_def(
        self, binding: Binding, name: str, where: Scope, depth: int, memo: dict[int, object]
    ) -> Function | None:
        """The def one binding of a name stands for: a def itself, or an assignment of what
        ``_function`` sees through to one (``f = jax.jit(f)``, ``g = f``), read at its own line."""
        if isinstance(binding, Defined):
            return binding.node
        if not isinstance(binding, Assigned) or binding.type_statement:
            return None
        if not isinstance(binding.value, (ast.Call, ast.Name)):
            return None
        if id(binding) in memo:
            done = memo[id(binding)]
            return done if isinstance(done, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        index = next(i for i, b in enumerate(where.bindings[name]) if b is binding)
        memo[id(binding)] = _READING  # met again while being read: a cycle, left out
        found = self._function(binding.value, binding.scope, where.sites[name][index], depth + 1, memo)
        memo[id(binding)] = found
        return found


#: An assignment ``_function`` is reading now.
_READING = object()


def _same_statics(a: tuple[Signature, tuple[Leaf, ...]], b: tuple[Signature, tuple[Leaf, ...]]) -> bool:
    return a[0].statics() == b[0].statics() and [(*leaf.spec(), leaf.marks) for leaf in a[1]] == [
        (*leaf.spec(), leaf.marks) for leaf in b[1]
    ]


def _per_leaf_names() -> str:
    """The transforms that split per-leaf entries, from the table (for JR106's message)."""
    return ", ".join(name for name, row in TRANSFORMS.items() if row.per_leaf is not None)


def _complete(
    ref: TransformRef, sig: Signature, src: Source, where: ast.expr, leaves: bool, at_call: bool = False
) -> Values | None:
    """The keywords to write for one use: the spec math of the row's kind. With per-leaf
    entries the helper is always written, so there are always values (maybe none to add)."""
    own = _OWN_SPECS.get(ref.transform.spec)
    if own is not None:
        values = own(ref, sig, src, where if at_call else None)
    else:
        values = complete(ref, sig, src, where, force=leaves)
    if values is None and leaves:
        return []
    return values


def _diff_argnums(ref: TransformRef, sig: Signature, src: Source, call: ast.expr | None) -> Values | None:
    """grad-style: nothing to write, but a whole-parameter Static or NoDiff argument must not
    be differentiated (JAX would try to differentiate a Python value, or a NoDiff array).

    Located at a call site's call (the parameter may be far away), else at the parameter."""
    t = ref.transform
    marked = sig.marked(t.markers)
    if not marked:
        return None
    effective = {kw.arg: kw.value for kw in ref.keywords if kw.arg is not None}
    node = effective.get(t.argnums)
    if node is None and any(kw.arg is None for kw in ref.keywords):
        raise src.error(
            next(kw.value for kw in ref.keywords if kw.arg is None),
            "JR109",
            f"cannot check Static/NoDiff parameters against {t.name} keywords passed as **mapping",
        )
    nums = literal_ints(node, t.argnums, src) if node is not None else (0,)
    n = sig.n_positional
    for p in marked:
        if p.position is None:
            continue
        for num in nums:
            if num == p.position or (num < 0 and not sig.var_positional and num + n == p.position):
                what = " and ".join(m.value for m in sorted(p.markers, key=lambda m: m.value))
                raise src.error(
                    p.node if call is None else call,
                    "JR121",
                    f"{p.name!r} is {what} but {t.name} differentiates it ({t.argnums} includes {num}); "
                    f"leave it out of {t.argnums}, or drop the {what} marker",
                )
    return None


_OWN_SPECS: dict[SpecKind, Callable[[TransformRef, Signature, Source, ast.expr | None], Values | None]] = {
    SpecKind.DIFF: _diff_argnums
}


def _is_overload(func: Function, scope: Scope) -> bool:
    """``@typing.overload`` stubs are replaced by the implementation that follows them."""
    return any(qualname(deco, scope) == "typing.overload" for deco in func.decorator_list)


def _header_mentions(func: Function, lines: list[int]) -> bool:
    """Does any of the sorted ``lines`` fall in the def's signature (its annotations live there)?

    The signature ends on the body's first line at the latest (``def f(x,\\n n: S): return x``).
    """
    at = bisect.bisect_left(lines, func.lineno)
    return at < len(lines) and bool(lines[at] <= func.body[0].lineno)


def _ambiguity_error(expr: ast.expr, src: Source) -> RewriteError:
    return src.error(
        expr,
        "JR104",
        f"cannot tell whether {ast.unparse(expr)!r} is a JAX transform: its name is bound more than "
        "once in this scope, once to a transform; bind it once so the Static parameters are not ignored",
    )


def _unseen_error(node: ast.ClassDef, base: ast.expr, src: Source) -> RewriteError:
    return src.error(
        base,
        "JR133",
        f"cannot tell what the Static fields of {node.name!r} mean: its base {ast.unparse(base)} is not "
        "defined in this module, so jaxrewrite cannot see whether it is an equinox.Module or a "
        "flax.struct.PyTreeNode; name that base too (class C(Base, eqx.Module)), or register the "
        "class with jax.tree_util.register_dataclass",
    )


def _factory_error(expr: ast.expr, ref: TransformRef, src: Source) -> RewriteError:
    name = ref.transform.name
    return src.error(
        expr,
        "JR105",
        f"cannot add {name} keywords to {ast.unparse(expr)!r}: it is the result of a decorator factory, "
        f"which takes only the function; define it with functools.partial({name}, ...) instead",
    )


def _check_import_visible(node: ast.expr, scope: Scope, src: Source) -> None:
    """The generated text calls the builtin ``__import__`` (no import statement, no new module
    name); a module that binds that name itself would make it call something else: refuse."""
    if binding_scope("__import__", scope) is not None:
        raise src.error(
            node,
            "JR122",
            "the rewritten code calls the builtin __import__, which this module binds to something "
            "else; rename that binding",
        )
