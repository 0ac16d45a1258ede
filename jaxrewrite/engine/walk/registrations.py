"""The walk over classes: ``register_dataclass`` decorators, and the Static fields of Equinox
Modules and flax.struct dataclasses (``engine.read.fields``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from jaxrewrite.engine.analysis import Registration, UseKind, needs_edit
from jaxrewrite.engine.read.classes import FunctionalClass, LocalClass
from jaxrewrite.engine.read.fields import field_uses, form_of, unseen_form
from jaxrewrite.engine.read.recognise import classify_registration
from jaxrewrite.engine.read.resolve import qualname
from jaxrewrite.engine.read.scopes import DefinedClass, Scope
from jaxrewrite.engine.rulebook.table import Container, opaque_registration
from jaxrewrite.engine.walk.specs.registration import registration_values
from jaxrewrite.engine.walk.walker import Walked, check_import_visible
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


def _written(
    static_classes: dict[int, LocalClass],
) -> Iterator[tuple[LocalClass, DefinedClass, Scope]]:
    """The classes written as class statements: a functional TypedDict or NamedTuple has no
    decorator, base or field form to read."""
    for local in static_classes.values():
        defined, scope = local
        if not isinstance(defined, FunctionalClass):
            yield local, defined, scope


def registrations(walk: Walked, static_classes: dict[int, LocalClass]) -> list[str]:
    registrable = []
    for local, defined, scope in _written(static_classes):
        try:
            info = walk.info(local)
        except RewriteError:
            continue  # already reported
        if not info.static_fields:
            continue
        registrable.append(defined.node.name)
        for deco in defined.node.decorator_list:
            if opaque_registration(qualname(deco, scope)) is not None:
                walk.opaque.append((defined.node, deco))
                continue
            registration = classify_registration(deco, scope)
            if registration is None:
                continue
            transform, keywords = registration
            try:
                values = registration_values(transform, keywords, info, walk.src, deco)
            except RewriteError as err:
                walk.refuse(err)
                continue
            local_keywords = tuple(deco.keywords) if isinstance(deco, ast.Call) else ()
            if not isinstance(deco, ast.Call) and needs_edit(values):
                try:
                    check_import_visible(deco, scope, walk.src)
                except RewriteError as err:
                    walk.refuse(err)
                    continue
            walk.result.registrations.append(
                Registration(
                    UseKind.DECORATOR,
                    deco,
                    transform,
                    defined.node,
                    keywords,
                    local_keywords,
                    values,
                )
            )
    return registrable


def field_forms(
    walk: Walked, static_classes: dict[int, LocalClass]
) -> list[tuple[ast.ClassDef, ast.expr]]:
    """Static fields of Equinox Modules and flax.struct dataclasses, completed in place; the
    classes whose Static fields nothing may consume, with the base that hides what they are."""
    unclear = []
    for local, defined, scope in _written(static_classes):
        try:
            form, unseen = form_of(defined, scope)
            if form is not None:
                walk.result.fields.extend(field_uses(defined, scope, form, walk.src, walk.relevant))
                continue
            info = walk.info(local)
        except RewriteError as err:
            walk.refuse(err)
            continue
        own = any(f.markers and f.node in defined.node.body for f in info.fields)
        registered = any(
            classify_registration(deco, scope) or opaque_registration(qualname(deco, scope))
            for deco in defined.node.decorator_list
        )
        if unseen is not None and own and info.kind is Container.CLASS and not registered:
            try:
                form = unseen_form(defined, walk.src, walk.relevant)
                if form is None:
                    unclear.append((defined.node, unseen))
                    continue
                walk.result.fields.extend(field_uses(defined, scope, form, walk.src, walk.relevant))
            except RewriteError as err:
                walk.refuse(err)
    return unclear
