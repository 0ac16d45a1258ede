"""Static fields of field-form classes (Equinox Modules, flax.struct dataclasses): such a library
reads them from its own field function, so ``Static[T]`` on a field is completed to that function
with its keyword (``eqx.field(static=True)``, ``table.FIELD_FORMS``).
"""

from __future__ import annotations

import ast
import builtins
import enum
from collections.abc import Iterator
from dataclasses import dataclass

from jaxrewrite.engine.read.classes import (
    FIELD,
    NEUTRAL_BASES,
    LocalClass,
    local_class,
    own_fields,
)
from jaxrewrite.engine.read.markers import MarkerReader
from jaxrewrite.engine.read.resolve import MAX_DEPTH, qualname
from jaxrewrite.engine.read.scopes import DefinedClass, Scope
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import CONTAINERS, EITHER_FORM, FIELD_FORMS, FieldForm, Mark


class Action(enum.Enum):
    """What one Static field's value becomes; the edit goes at ``FieldUse.at``."""

    ADD = "add"  # no value (at the annotation): `` = <field>(<keyword>=<static>)`` after it
    DEFAULT = "default"  # a plain default: ``<field>(default=<value>, <keyword>=<static>)``
    KEYWORD = "keyword"  # the library's own ``field(...)``: the keyword appended
    METADATA = "metadata"  # ``dataclasses.field(...)``: ``metadata={<keyword>: <static>}``
    ENTRY = "entry"  # ``dataclasses.field(metadata={...})``: the entry added first in the dict


@dataclass(frozen=True)
class FieldUse:
    """One Static field of a field-form class, and the edit it needs."""

    form: FieldForm
    name: str
    stmt: ast.AnnAssign
    action: Action
    at: ast.expr


#: Bases whose fields are known without reading them.
_KNOWN = NEUTRAL_BASES | CONTAINERS.keys() | {base for form in FIELD_FORMS for base in form.bases}


def form_of(defined: DefinedClass, scope: Scope) -> tuple[FieldForm | None, ast.expr | None]:
    """The field-form library a class belongs to (by its decorator, or any base's, to any depth),
    and its first base this module cannot see; ``scope`` encloses the class."""
    ancestry = list(_ancestry(defined, scope))
    unseen = next(
        (base for base, name, read in ancestry if read is None and name not in _KNOWN), None
    )
    for deco in defined.node.decorator_list:
        name = qualname(deco.func if isinstance(deco, ast.Call) else deco, scope)
        for form in FIELD_FORMS:
            if name in form.decorators:
                return form, unseen
    inherited = (form for _, name, _ in ancestry for form in FIELD_FORMS if name in form.bases)
    return next(inherited, None), unseen


def _ancestry(
    defined: DefinedClass, scope: Scope, depth: int = 0
) -> Iterator[tuple[ast.expr, str | None, LocalClass | None]]:
    """Each base of the class and of its bases of this module, depth first: (the base, its dotted
    name, the class statement of this module it names, read to ``MAX_DEPTH``, or None)."""
    for base in defined.node.bases:
        target = base.value if isinstance(base, ast.Subscript) else base
        local = local_class(target, scope)
        if local is None or not isinstance(local[0], DefinedClass) or depth >= MAX_DEPTH:
            local = None
        yield base, qualname(target, scope), local
        if local is not None:
            yield from _ancestry(local[0], local[1], depth + 1)  # type: ignore[arg-type]


def unseen_form(defined: DefinedClass, src: Source, relevant: set[str] | None) -> FieldForm | None:
    """The form of a class whose base this module cannot see: the library whose field function a
    Static field calls, else ``EITHER_FORM``. None where one calls ``dataclasses.field`` (one
    metadata key speaks to one library: JR133) or two libraries' field functions meet."""
    reader = MarkerReader(defined.body, src, relevant)
    named: set[FieldForm] = set()
    for stmt in defined.node.body:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.value, ast.Call):
            continue
        if Mark.STATIC not in reader.markers(stmt.annotation):
            continue
        callee = field_function(stmt.value.func, defined.body)
        if callee == FIELD:
            return None
        named.update(form for form in FIELD_FORMS if form.field == callee)
    if len(named) > 1:
        return None
    return named.pop() if named else EITHER_FORM


def field_uses(
    defined: DefinedClass, scope: Scope, form: FieldForm, src: Source, relevant: set[str] | None
) -> list[FieldUse]:
    """Every own Static field of a field-form class with the edit it needs."""
    reader = MarkerReader(defined.body, src, relevant)
    found: list[FieldUse] = []
    for stmt, name in own_fields(defined):
        markers = reader.markers(stmt.annotation)
        if Mark.NODIFF in markers:
            raise rules.FIELD_NODIFF.error(
                src,
                stmt.annotation,
                name=name,
                library=form.library,
                cls=defined.node.name,
                why=form.nodiff,
            )
        if Mark.STATIC not in markers:
            continue
        if stmt.value is None and name in _base_values(defined, scope):
            raise rules.FIELD_UNREADABLE.error(
                src, stmt, "redeclared", name=name, cls=defined.node.name, field=form.field
            )
        use = _use(stmt, name, form, defined.body, src)
        if use is not None:
            found.append(use)
    if found and defined.body.lookup("__import__") is not None:
        raise rules.IMPORT_BOUND.error(src, found[0].stmt)
    return found


def _use(
    stmt: ast.AnnAssign, name: str, form: FieldForm, scope: Scope, src: Source
) -> FieldUse | None:
    value = stmt.value
    if value is None:
        return FieldUse(form, name, stmt, Action.ADD, stmt.annotation)
    if not isinstance(value, ast.Call):
        return FieldUse(form, name, stmt, Action.DEFAULT, value)
    callee = field_function(value.func, scope)
    # Each wording of JR131 takes the ones it names (``str.format`` leaves the others).
    said = dict(name=name, field=form.field, keyword=form.keyword, static=form.static)
    for kw in value.keywords:
        if kw.arg is None:
            raise rules.FIELD_UNREADABLE.error(
                src,
                kw.value,
                "unpacked",
                name=name,
                call=ast.unparse(value.func),
                mapping=ast.unparse(kw.value),
            )
    if callee == form.field:
        written = _keyword(value, form.keyword, form.position)
        if written is None:
            return FieldUse(form, name, stmt, Action.KEYWORD, value)
        _check_value(written, f"{form.keyword}=", name, form, src)
        return None
    if callee == FIELD:
        metadata = _keyword(value, "metadata", None)
        if metadata is None:
            return FieldUse(form, name, stmt, Action.METADATA, value)
        if not isinstance(metadata, ast.Dict) or not all(
            isinstance(key, ast.Constant) and isinstance(key.value, str) for key in metadata.keys
        ):
            raise rules.FIELD_UNREADABLE.error(src, metadata, "metadata", **said)
        for key, entry in zip(metadata.keys, metadata.values):
            if isinstance(key, ast.Constant) and key.value == form.keyword:
                _check_value(entry, f"metadata {form.keyword!r}: ", name, form, src)
                return None
        return FieldUse(form, name, stmt, Action.ENTRY, metadata)
    # A callee that never returns a dataclass field (a function of ``_VALUE_MODULES``, a builtin
    # the module does not rebind) gives a plain default.
    given = qualname(value.func, scope)
    func = value.func
    if given is None and isinstance(func, ast.Name) and scope.lookup(func.id) is None:
        given = f"builtins.{func.id}" if hasattr(builtins, func.id) else None
    if given and given.partition(".")[0] in _VALUE_MODULES and given != "builtins.__import__":
        return FieldUse(form, name, stmt, Action.DEFAULT, value)
    raise rules.FIELD_UNREADABLE.error(src, value, "call", call=ast.unparse(value.func), **said)


#: Modules none of whose functions returns a dataclass field: a call of one is a plain value
#: (``functools.partial(jax.nn.leaky_relu, negative_slope=0.1)``, ``jnp.zeros(3)``).
_VALUE_MODULES = frozenset({"functools", "jax", "jaxlib", "numpy", "math", "operator", "builtins"})


def _keyword(call: ast.Call, keyword: str, position: int | None) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if position is not None and len(call.args) > position:
        return call.args[position]
    return None


def _check_value(node: ast.expr, spelled: str, name: str, form: FieldForm, src: Source) -> None:
    """A hand-written static keyword next to Static: the same value is fine, another is refused."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        if node.value is form.static:
            return
        raise rules.FIELD_NOT_STATIC.error(
            src, node, name=name, spelled=spelled, value=node.value, library=form.library
        )
    raise rules.FIELD_UNREADABLE.error(
        src, node, name=name, spelled=spelled, value=ast.unparse(node)
    )


def field_function(expr: ast.expr, scope: Scope) -> str | None:
    """The qualified name of a field function, the rewritten ``__import__('m').field`` included
    (so that rewriting the rewritten text changes nothing)."""
    name = qualname(expr, scope)
    if name is not None:
        return name
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    match expr:
        case ast.Call(ast.Name("__import__"), [ast.Constant(str(module))], []):
            if scope.lookup("__import__") is None:
                return ".".join([module.partition(".")[0], *reversed(parts)])
    return None


def _base_values(defined: DefinedClass, scope: Scope) -> set[str]:
    """Field names that a base class of this module writes with a value."""
    return {
        stmt.target.id
        for _, _, local in _ancestry(defined, scope)
        if local is not None
        for stmt in local[0].node.body  # type: ignore[union-attr]
        if isinstance(stmt, ast.AnnAssign)
        and isinstance(stmt.target, ast.Name)
        and stmt.value is not None
    }
