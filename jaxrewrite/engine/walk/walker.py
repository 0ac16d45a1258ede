"""The walk over the module's definitions into one ``Walked`` value, which the finding passes
only read: each def's signature, per-leaf parameters and transform decorators, each class's
registrations and Static fields; and the completion of one use or registration, for decorators and
call sites (``callsites``) alike."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from jaxrewrite.engine.analysis import Analysis, Leaf, Registration, Use, UseKind, needs_edit
from jaxrewrite.engine.read.classes import (
    ClassInfo,
    FunctionalClass,
    LocalClass,
    class_key,
    leaf_class,
    read_class,
)
from jaxrewrite.engine.read.denote import spelled
from jaxrewrite.engine.read.fields import field_uses, form_of, unseen_form
from jaxrewrite.engine.read.filters import leaf_aliases, may_matter
from jaxrewrite.engine.read.literals import Values, literal_strs, resolve_keywords, same
from jaxrewrite.engine.read.markers import index_of, may_mark
from jaxrewrite.engine.read.recognise import (
    TransformRef,
    ambiguous,
    classify,
    classify_cut,
    classify_registration,
)
from jaxrewrite.engine.read.resolve import MAX_DEPTH, PAST_DEPTH, TooDeep, qualname
from jaxrewrite.engine.read.scopes import Scope, ScopeTree
from jaxrewrite.engine.read.signature import Kind, Param, Signature, read_signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.read.wrappers import keeps_signature, passes_through, wrapper_error
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import (
    TRANSFORMS,
    ClassTransform,
    Container,
    Mark,
    opaque_registration,
)
from jaxrewrite.engine.walk import specs
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True, eq=False)
class Walked:
    tree: ScopeTree
    src: Source
    result: Analysis
    #: The names that may spell a marker, or None where every def is read (``EXHAUSTIVE``).
    relevant: set[str] | None = None
    #: Names of the module's TypedDict/NamedTuple classes with marked fields (per-leaf statics).
    leaf_names: set[str] = field(default_factory=set)
    #: Each class read (``info``), by the id of its node.
    class_info: dict[int, ClassInfo] = field(default_factory=dict)
    #: Defs with markers or per-leaf parameters: (signature, leaves).
    signatures: dict[int, tuple[Signature, tuple[Leaf, ...]]] = field(default_factory=dict)
    #: Defs whose signature is itself an error: their uses are not analyzed again.
    failed: set[int] = field(default_factory=set)
    #: Defs a transform of the table is applied to (even where that use was refused).
    applied: set[int] = field(default_factory=set)
    #: A use's def -> its twins, other defs with the same Static parameters that its argument may
    #: be when it runs (``if``/``else``, ``for fn in (f, g):``): the use applies to them too.
    twins: dict[int, list[Function]] = field(default_factory=dict)
    #: Marked defs with a use refused where what is applied, or to what, cannot be told (JR104,
    #: JR127), with that code: no JR002/JR004 beside the error.
    refused_defs: dict[int, str] = field(default_factory=dict)
    #: Marked defs passed to a call that looks like a transform the table lacks.
    unknown_calls: dict[int, ast.expr] = field(default_factory=dict)
    #: Classes a ``register_dataclass(C)`` call site registers.
    registered: set[int] = field(default_factory=set)
    #: Transform calls of a marked def not seen through (JR007), with that def.
    unseen: list[tuple[ast.Call, Function]] = field(default_factory=list)
    #: Classes registered by a flatten of the user's, with the registering expression (JR020).
    opaque: list[tuple[ast.ClassDef, ast.expr]] = field(default_factory=list)
    #: Transform calls refused, with their scope and the refusal's code.
    refused_calls: list[tuple[ast.Call, Scope, str]] = field(default_factory=list)

    def refuse(self, err: RewriteError) -> None:
        self.result.diagnostics.append(Diagnostic.from_error(err))

    def info(self, local: LocalClass) -> ClassInfo:
        defined, scope = local
        key = class_key(defined)
        if key not in self.class_info:
            self.class_info[key] = read_class(defined, scope, self.src, self.relevant)
        return self.class_info[key]

    def leaf_class(self, ann: ast.expr, scope: Scope) -> tuple[LocalClass, bool] | None:
        """``classes.leaf_class``, or JR127 where it cannot tell and a container with marked
        entries is in reach (``leaf_names`` is the closure of the names made from one)."""
        try:
            return leaf_class(ann, scope)
        except TooDeep:
            if not may_mark(ann, self.leaf_names):
                return None  # a loop of aliases that reaches no container with marked entries
            raise rules.TOO_DEEP.error(
                self.src, ann, "container", expr=self.src.segment(ann), past=PAST_DEPTH
            ) from None


def complete_use(
    walk: Walked,
    kind: UseKind,
    node: ast.expr,
    ref: TransformRef,
    func: Function,
    sig: Signature,
    leaves: tuple[Leaf, ...],
    local: tuple[ast.keyword, ...],
    scope: Scope,
) -> None:
    """One use of a transform (a decorator, or a call site ``node``) into the analysis:
    ``ref.keywords`` is all the use writes, ``local`` what is written at ``node`` itself. The
    per-leaf refusals first (nothing can be written), then the spec math, then the text's needs."""
    src, t = walk.src, ref.transform
    leaves = tuple(filter(None, (leaf.held(t.markers) for leaf in leaves)))
    call = node if kind is UseKind.CALL and isinstance(node, ast.Call) else None
    factory = rules.FACTORY_KEYWORDS
    first = leaves[0].param if leaves else None
    if isinstance(first, Param) and t.per_leaf is None:
        split = ", ".join(name for name, row in TRANSFORMS.items() if row.per_leaf is not None)
        at = first.node if call is None else call
        raise rules.LEAVES_UNSPLIT.error(src, at, param=first.name, names=split, transform=t.name)
    if isinstance(first, Param) and ref.factory:
        if call is None:
            raise factory.error(src, node, name=t.name, expr=ast.unparse(node))
        made = ast.unparse(call.func)
        raise rules.LEAVES_FACTORY.error(src, call, param=first.name, factory=made)
    use = Use(kind, node, t, func, sig, leaves, ref.keywords, local, None, ref.factory)
    use = replace(use, values=specs.complete(use, src))
    bare = not isinstance(node, ast.Call)  # a decorator that is no call: written as one
    if leaves or (bare and needs_edit(use.values)):
        check_import_visible(node, scope, src)
    if use.needs_edit and ref.factory and (call is not None or bare):
        written = node if call is None else call.func
        raise factory.error(src, written, name=t.name, expr=ast.unparse(written))
    walk.result.uses.append(use)


def untold(expr: ast.expr, scope: Scope, cut: bool, src: Source) -> RewriteError | None:
    """Why what ``expr`` applies cannot be told: JR104 where its bindings disagree on the
    transform, JR127 where the chain of bindings was cut past the depth read."""
    pair = ambiguous(expr, scope)
    if pair is not None:
        fields = spelled(pair, src.filename)
        return rules.TRANSFORM_BOUND_TWICE.error(src, expr, expr=ast.unparse(expr), **fields)
    if cut:
        return rules.TOO_DEEP.error(src, expr, expr=ast.unparse(expr), past=PAST_DEPTH)
    return None


def is_overload(func: Function, scope: Scope) -> bool:
    """``@typing.overload`` stubs are replaced by the implementation that follows them."""
    return any(qualname(deco, scope) == "typing.overload" for deco in func.decorator_list)


def check_import_visible(node: ast.expr, scope: Scope, src: Source) -> None:
    """The generated text calls the builtin ``__import__`` (no import statement, no new module
    name); a module that binds that name itself would make it call something else: refuse."""
    if scope.lookup("__import__") is not None:
        raise rules.IMPORT_BOUND.error(src, node)


def defs(walk: Walked) -> None:
    relevant = walk.relevant
    # An annotation that names no spelling of a marker holds none (``MarkIndex.names``): a
    # module that never names jaxrewrite reads no annotation, even when exhaustive.
    index = index_of(walk.tree)
    for func, scope in walk.tree.defs:
        if relevant is not None and not may_matter(func, relevant, walk.leaf_names):
            continue
        try:
            sig = read_signature(func, scope, walk.src, index.names, index)
            leaves = per_leaf_params(walk, sig, scope.annotating(func)) if walk.leaf_names else ()
        except RewriteError as err:
            walk.failed.add(id(func))
            walk.refuse(err)
            continue
        marked = sig.has_markers or bool(leaves)
        if marked:
            walk.signatures[id(func)] = (sig, leaves)
        elif relevant is not None:
            continue
        for deco in func.decorator_list:
            try:
                ref, cut = classify_cut(deco, scope)
                error = untold(deco, scope, cut, walk.src) if ref is None and marked else None
                if error is not None:
                    walk.refused_defs[id(func)] = error.code
                    raise error
                if ref is None:
                    continue
                walk.applied.add(id(func))
                below = func.decorator_list[func.decorator_list.index(deco) + 1 :]
                for d in below if marked else ():  # below it: transforms and pass-throughs only
                    if classify(d, scope) is None and not passes_through(d, scope):
                        raise wrapper_error(d, d, func, walk.src)
                if ref.keywords:
                    resolve_keywords(ref.transform, ref.keywords, scope, walk.src)
                    keeps = (id(d) for d in below if keeps_signature(d, scope))
                    walk.result.keeps_signature.update(keeps)
                local = tuple(deco.keywords) if isinstance(deco, ast.Call) else ()
                complete_use(walk, UseKind.DECORATOR, deco, ref, func, sig, leaves, local, scope)
            except RewriteError as err:
                walk.refuse(err)


def per_leaf_params(walk: Walked, sig: Signature, scope: Scope) -> tuple[Leaf, ...]:
    """Parameters annotated with a TypedDict/NamedTuple of this module that has Static fields."""
    found = []
    for param in sig.params:
        ann = param.node.annotation
        container = None if param.markers or ann is None else _container(walk, ann, scope)
        if container is None:
            continue
        info, key = container
        leaf = _entries(walk, info, param, (key,), param, [MOST_NESTED])
        if leaf is None:
            continue
        if param.kind in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD):
            raise rules.LEAVES_VARARGS.error(
                walk.src, param.node, kind=param.kind.value, name=param.name
            )
        found.append(leaf)  # its keys: what each use holds out (``Leaf.held``)
    return tuple(found)


def _container(walk: Walked, ann: ast.expr, scope: Scope) -> tuple[ClassInfo, int] | None:
    """The TypedDict/NamedTuple of this module ``ann`` names, and its key; a registered
    dataclass is none (its Static fields are its own meta_fields)."""
    local = walk.leaf_class(ann, scope)
    info = None if local is None else walk.info(local[0])
    if local is None or info is None or info.kind is Container.CLASS:
        return None
    return info, class_key(local[0][0])


def _entries(
    walk: Walked,
    info: ClassInfo,
    key: Param | str,
    path: tuple[int, ...],
    top: Param,
    left: list[int],
) -> Leaf | None:
    """A container's marked entries and, to any depth, its unmarked entries that are containers
    with marked entries themselves, all held (``Leaf.held`` narrows); None without any. ``left``
    holds how many more nested containers the per-leaf parameter ``top`` may hold: past it, JR126
    at ``top``, where the split would be spelled."""
    inner = []
    for entry in info.fields:
        if entry.markers or entry.annotation is None or entry.scope is None:
            continue
        container = _container(walk, entry.annotation, entry.scope)
        if container is None:
            continue
        sub, sub_key = container
        if sub_key in path or len(path) > MAX_DEPTH:
            raise rules.LEAVES_RECURSE.error(walk.src, entry.node, name=entry.name, held=sub.name)
        left[0] -= 1
        if left[0] < 0:
            raise rules.LEAVES_RECURSE.error(
                walk.src, top.node, "many", name=top.name, most=MOST_NESTED
            )
        found = _entries(walk, sub, entry.name, (*path, sub_key), top, left)
        if found is not None:
            inner.append(found)
    marks = tuple((f.name, f.markers) for f in info.static_fields)
    if not (marks or inner):
        return None
    nodes = tuple(f.node for f in info.static_fields)
    return Leaf(key, info.kind, (), marks, tuple(inner), nodes)


#: The most nested containers one per-leaf parameter may hold, counted along every path: a class
#: reached twice is spelled twice in the split (``a: Mid``, ``b: Mid``), so classes that each
#: hold the one below twice are 2**levels containers (20 levels: an import that never ended).
MOST_NESTED = 4096


def classes(
    walk: Walked, candidates: Iterable[LocalClass]
) -> tuple[list[str], list[tuple[ast.ClassDef, ast.expr]]]:
    """The classes with marked fields, each read once: the names of those a call site may
    register, and those whose Static fields nothing may consume, with the base that hides what
    they are; ``leaf_names`` filled for the defs' per-leaf parameters."""
    registrable, unclear = [], []
    leaf_names: set[str] = set()
    for local in candidates:
        try:
            info = walk.info(local)
        except RewriteError as err:
            walk.refuse(err)  # once: the class is not read again
            continue
        defined, scope = local
        if info.kind is not Container.CLASS and info.static_fields:
            leaf_names.add(info.name)
        if isinstance(defined, FunctionalClass):
            continue  # a functional TypedDict or NamedTuple: no decorator, base or field form
        node = defined.node
        registered = False  # by a decorator (read where the class has marked fields)
        if info.static_fields:
            registrable.append(node.name)
        for deco in node.decorator_list if info.static_fields else ():
            found = classify_registration(deco, scope)
            opaque = opaque_registration(qualname(deco, scope))
            registered = registered or found is not None or opaque is not None
            if opaque is not None:
                walk.opaque.append((node, deco))
            elif found is not None:
                own = tuple(deco.keywords) if isinstance(deco, ast.Call) else ()
                try:
                    register(walk, UseKind.DECORATOR, deco, found, node, own, info, scope)
                except RewriteError as err:
                    walk.refuse(err)
        try:
            form, unseen = form_of(defined, scope)
            if form is None and unseen is not None and info.kind is Container.CLASS:
                if not registered and any(f.markers and f.node in node.body for f in info.fields):
                    form = unseen_form(defined, walk.src, walk.relevant)
                    if form is None:
                        unclear.append((node, unseen))
            if form is not None:
                walk.result.fields.extend(field_uses(defined, scope, form, walk.src, walk.relevant))
        except RewriteError as err:
            walk.refuse(err)
    walk.leaf_names.update(leaf_aliases(walk.tree, leaf_names))
    return registrable, unclear


def register(
    walk: Walked,
    kind: UseKind,
    node: ast.expr,
    found: tuple[ClassTransform, tuple[ast.keyword, ...]],
    target: ast.ClassDef,
    own: tuple[ast.keyword, ...],
    info: ClassInfo,
    scope: Scope,
) -> None:
    """One registration of ``target`` into the analysis (``found``: the transform and all the use
    writes; ``own``: what is written at ``node``), with the lists to write, if any: Static fields
    in ``meta_fields``, every other init field in ``data_fields``, merged with the user's."""
    t, written = found
    src = walk.src
    static = [f for f in info.fields if Mark.STATIC in f.markers]
    values: Values | None = None
    if static:
        # Both lists given: JAX reads no field's metadata; only the Static fields join the lists.
        explicit = {kw.arg for kw in written} >= {t.data_fields, t.meta_fields}
        for f in info.fields:
            if f.unknown_metadata is not None and not explicit:
                raise rules.METADATA_NOT_LITERAL.error(
                    src, f.unknown_metadata, name=f.name, cls=info.name
                )
        effective = specs.by_name(written, "fields", t.name, src)
        user_data = literal_strs(effective.get(t.data_fields), t.data_fields, src)
        user_meta = literal_strs(effective.get(t.meta_fields), t.meta_fields, src)
        dropped = set(literal_strs(effective.get(t.drop_fields), t.drop_fields, src))
        for f in static:
            if f.name in user_data:
                raise rules.STATIC_DATA_FIELD.error(src, f.node, name=f.name, keyword=t.data_fields)
        if explicit:
            meta = tuple(user_meta) + tuple(f.name for f in static if f.name not in user_meta)
            data = tuple(user_data)
        else:
            if info.unseen_base is not None:
                raise rules.UNSEEN_BASE.error(
                    src,
                    info.unseen_base,
                    base=ast.unparse(info.unseen_base),
                    cls=info.name,
                    data=t.data_fields,
                    meta=t.meta_fields,
                )
            fields = [f for f in info.fields if f.init and f.name not in dropped]
            meta_names = set(user_meta) | {f.name for f in static}
            meta = tuple(f.name for f in fields if f.name in meta_names)
            data = tuple(f.name for f in fields if f.name not in meta_names)
        values = [
            (t.data_fields, data, same(effective.get(t.data_fields), data)),
            (t.meta_fields, meta, same(effective.get(t.meta_fields), meta)),
        ]
    if not needs_edit(values):
        values = None
    elif not isinstance(node, ast.Call):
        check_import_visible(node, scope, walk.src)
    walk.result.registrations.append(Registration(kind, node, target, own, values))
