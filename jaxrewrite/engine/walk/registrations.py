"""The walk over classes: ``register_dataclass`` (decorators here, call sites from ``callsites``)
with its ``data_fields``/``meta_fields`` completed, and the Static fields of Equinox Modules and
flax.struct dataclasses (``engine.read.fields``).
"""

from __future__ import annotations

import ast

from jaxrewrite.engine.analysis import Registration, UseKind, needs_edit
from jaxrewrite.engine.read.classes import ClassInfo, FunctionalClass, LocalClass
from jaxrewrite.engine.read.fields import field_uses, form_of, unseen_form
from jaxrewrite.engine.read.literals import Values, literal_strs, same
from jaxrewrite.engine.read.recognise import classify_registration
from jaxrewrite.engine.read.resolve import qualname
from jaxrewrite.engine.read.scopes import Scope
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import ClassTransform, Container, Mark, opaque_registration
from jaxrewrite.engine.walk.specs import by_name
from jaxrewrite.engine.walk.walker import Walked, check_import_visible
from jaxrewrite.errors import RewriteError


def classes(
    walk: Walked, readable: list[tuple[LocalClass, ClassInfo]]
) -> tuple[list[str], list[tuple[ast.ClassDef, ast.expr]]]:
    """The classes with marked fields, read: the names of those a call site may register, and
    those whose Static fields nothing may consume, with the base that hides what they are."""
    registrable, unclear = [], []
    for (defined, scope), info in readable:
        if isinstance(defined, FunctionalClass):
            continue  # a functional TypedDict or NamedTuple: no decorator, base or field form
        node = defined.node
        if info.static_fields:
            registrable.append(node.name)
            for deco in node.decorator_list:
                if opaque_registration(qualname(deco, scope)) is not None:
                    walk.opaque.append((node, deco))
                    continue
                found = classify_registration(deco, scope)
                if found is None:
                    continue
                own = tuple(deco.keywords) if isinstance(deco, ast.Call) else ()
                try:
                    register(walk, UseKind.DECORATOR, deco, found, node, own, info, scope)
                except RewriteError as err:
                    walk.refuse(err)
        try:
            form, unseen = form_of(defined, scope)
            if form is None and unseen is not None and info.kind is Container.CLASS:
                own_marks = any(f.markers and f.node in node.body for f in info.fields)
                registered = any(
                    classify_registration(deco, scope) or opaque_registration(qualname(deco, scope))
                    for deco in node.decorator_list
                )
                if own_marks and not registered:
                    form = unseen_form(defined, walk.src, walk.relevant)
                    if form is None:
                        unclear.append((node, unseen))
            if form is not None:
                walk.result.fields.extend(field_uses(defined, scope, form, walk.src, walk.relevant))
        except RewriteError as err:
            walk.refuse(err)
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
        explicit = {kw.arg for kw in written} >= {t.data_fields, t.meta_fields}
        for f in info.fields:
            if f.unknown_metadata is not None and not explicit:  # else JAX reads no metadata
                raise rules.METADATA_NOT_LITERAL.error(
                    src, f.unknown_metadata, name=f.name, cls=info.name
                )
        effective = by_name(written, "fields", t.name, src)
        user_data = literal_strs(effective.get(t.data_fields), t.data_fields, src)
        user_meta = literal_strs(effective.get(t.meta_fields), t.meta_fields, src)
        dropped = set(literal_strs(effective.get(t.drop_fields), t.drop_fields, src))
        for f in static:
            if f.name in user_data:
                raise rules.STATIC_DATA_FIELD.error(src, f.node, name=f.name, keyword=t.data_fields)
        if t.data_fields in effective and t.meta_fields in effective:
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
    if values is not None and not needs_edit(values):
        values = None
    if not isinstance(node, ast.Call) and needs_edit(values):
        check_import_visible(node, scope, walk.src)
    registration = Registration(kind, node, t, target, written, own, values)
    walk.result.registrations.append(registration)
