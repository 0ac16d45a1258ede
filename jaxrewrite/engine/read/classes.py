"""A class's fields from source: which are Static, and what kind of container it is, for
dataclass registration and per-leaf statics (TypedDict, NamedTuple, their functional forms); and
the Static fields of field-form classes (Equinox Modules, flax.struct dataclasses), which such a
library reads from its own field function: ``Static[T]`` is completed to that function with its
keyword (``eqx.field(static=True)``, ``table.FIELD_FORMS``).
"""

from __future__ import annotations

import ast
import builtins
import enum
from collections.abc import Iterator
from dataclasses import dataclass

from jaxrewrite.engine.read.literals import literal
from jaxrewrite.engine.read.markers import MarkerReader
from jaxrewrite.engine.read.recognise import classify_registration
from jaxrewrite.engine.read.resolve import (
    MAX_DEPTH,
    TooDeep,
    parse_string,
    qualname,
    single,
    unquoted,
)
from jaxrewrite.engine.read.scopes import Assigned, DefinedClass, Scope
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import (
    CONTAINERS,
    EITHER_FORM,
    FIELD_FORMS,
    OPAQUE_REGISTRATIONS,
    Container,
    FieldForm,
    Mark,
    opaque_registration,
)

#: Bases that add no fields.
NEUTRAL_BASES = {"typing.Generic", "typing.Protocol", "abc.ABC", "object"}
_NOT_FIELDS = {"typing.ClassVar", "dataclasses.InitVar", "dataclasses.KW_ONLY"}
#: The standard library's dataclass decorator and field function.
DATACLASS = "dataclasses.dataclass"
FIELD = "dataclasses.field"


@dataclass(frozen=True)
class Field:
    name: str
    markers: frozenset[Mark]
    #: False for ``field(init=False)``: JAX's register_dataclass leaves those out.
    init: bool
    node: ast.AST
    #: A ``field(metadata=...)`` (or ``field(**...)``) that is not a literal: JAX may read
    #: ``static`` from it at run time, so an explicit field list cannot be written.
    unknown_metadata: ast.expr | None = None
    #: The field's annotation and the scope it is read in: a TypedDict/NamedTuple field holding
    #: another one with marked entries (per-leaf statics to any depth).
    annotation: ast.expr | None = None
    scope: Scope | None = None


@dataclass(frozen=True)
class ClassInfo:
    name: str
    kind: Container
    fields: tuple[Field, ...]
    #: The first base class whose fields cannot be seen in this module, if any.
    unseen_base: ast.expr | None

    @property
    def static_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.markers)


@dataclass(frozen=True)
class FunctionalClass:
    """``Name = TypedDict("Name", {...})`` or ``NamedTuple("Name", [...])``: ``node`` is the call,
    so that a class of the module is known by ``id(defined.node)`` whichever it is."""

    node: ast.Call
    kind: Container
    #: The name it is assigned to.
    name: str


#: A class of the module and the scope holding its definition.
LocalClass = tuple[DefinedClass | FunctionalClass, Scope]


def read_class(
    defined: DefinedClass | FunctionalClass,
    scope: Scope,
    src: Source,
    relevant: set[str] | None = None,
    depth: int = 0,
) -> ClassInfo:
    """Fields in definition order, base classes of this module first, like dataclasses do."""
    if isinstance(defined, FunctionalClass):
        reader = MarkerReader(scope, src, relevant)
        fields = tuple(
            Field(name, reader.markers(value), True, where, None, value, scope)
            for key, value, where in functional_entries(defined.node)
            # A key no string literal: no field.
            if isinstance(name := key.value if isinstance(key, ast.Constant) else key, str)
        )
        return ClassInfo(defined.name, defined.kind, fields, None)
    node = defined.node
    kind = Container.CLASS
    inherited: dict[str, Field] = {}
    unseen: ast.expr | None = None
    for base in node.bases:
        target = base.value if isinstance(base, ast.Subscript) else base
        name = qualname(target, scope)
        if name in CONTAINERS:
            kind = CONTAINERS[name]
            continue
        if name in NEUTRAL_BASES:
            continue
        local = local_class(target, scope)
        if local is None or depth > MAX_DEPTH:
            unseen = unseen or base
            continue
        info = read_class(local[0], local[1], src, relevant, depth + 1)
        kind = info.kind if info.kind is not Container.CLASS else kind
        unseen = unseen or info.unseen_base
        inherited.update((f.name, f) for f in info.fields)
    reader = MarkerReader(defined.body, src, relevant)
    own: dict[str, Field] = {}
    for stmt, name in own_fields(defined):
        init, static, unknown = _field_call(stmt.value, defined.body)
        markers = reader.markers(stmt.annotation) | static
        own[name] = Field(name, markers, init, stmt, unknown, stmt.annotation, defined.body)
    # An overridden field keeps its base-class position, as in dataclasses (and in a dict).
    return ClassInfo(node.name, kind, tuple({**inherited, **own}.values()), unseen)


def body_annotations(node: ast.ClassDef) -> list[ast.expr]:
    """What each ``name: T`` of a class body annotates, fields or not."""
    return [stmt.annotation for stmt in node.body if isinstance(stmt, ast.AnnAssign)]


def own_fields(defined: DefinedClass) -> Iterator[tuple[ast.AnnAssign, str]]:
    """The fields a class body declares, with their names: each ``name: T`` but ClassVar,
    InitVar and KW_ONLY, written plainly or as a string (dataclasses reads both)."""
    for stmt in defined.node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            parsed = unquoted(stmt.annotation)
            head = parsed.value if isinstance(parsed, ast.Subscript) else parsed
            if head is None or (qualname(head, defined.body) or "") not in _NOT_FIELDS:
                yield stmt, stmt.target.id


def functional_entries(call: ast.Call) -> list[tuple[str | ast.expr, ast.expr, ast.AST]]:
    """The entries of ``TypedDict("C", {"n": T})`` / ``NamedTuple("C", [("n", T)])`` and its
    keywords, in order: (the key as written, or a keyword's name; the type; where it stands)."""
    spec = call.args[1] if len(call.args) > 1 else None
    pairs: list[list[ast.expr]] = []
    if isinstance(spec, ast.Dict):
        pairs = [[key, value] for key, value in zip(spec.keys, spec.values) if key is not None]
    elif isinstance(spec, (ast.List, ast.Tuple)):
        pairs = [
            item.elts
            for item in spec.elts
            if isinstance(item, (ast.Tuple, ast.List)) and len(item.elts) == 2
        ]
    found: list[tuple[str | ast.expr, ast.expr, ast.AST]] = [(k, v, k) for k, v in pairs]
    return found + [
        (kw.arg, kw.value, kw) for kw in call.keywords if kw.arg is not None and kw.arg != "total"
    ]


def local_class(expr: ast.expr, scope: Scope) -> LocalClass | None:
    """The class of this module a name refers to, with the scope holding its definition."""
    binding = single(expr, scope)
    if binding is None:
        binding = _registered_again(expr, scope)
    if isinstance(binding, DefinedClass):
        enclosing = binding.body.parent
        return (binding, enclosing) if enclosing is not None else None
    if isinstance(binding, Assigned) and isinstance(expr, ast.Name):
        functional = functional_class(binding, expr.id)
        return None if functional is None else (functional, binding.scope)
    return None


def _registered_again(expr: ast.expr, scope: Scope) -> DefinedClass | None:
    """``class C`` then ``C = register_dataclass(C, ...)``: the name is bound twice, but both
    bindings are the one class (registration returns the class it registers)."""
    found = scope.lookup(expr.id) if isinstance(expr, ast.Name) else None
    classes = [b for b in found[0] if isinstance(b, DefinedClass)] if found else []
    if found is None or len(classes) != 1:
        return None
    again = all(
        isinstance(b, Assigned)
        and isinstance(b.value, ast.Call)
        and b.value.args
        and isinstance(b.value.args[0], ast.Name)
        and b.value.args[0].id == expr.id  # type: ignore[attr-defined]
        and _returns_the_class(b.value.func, b.scope)
        for b in found[0]
        if b is not classes[0]
    )
    return classes[0] if again else None


def _returns_the_class(func: ast.expr, scope: Scope) -> bool:
    """``register_dataclass`` and the decorator registrations return the class they register
    (``register_pytree_node`` returns None: ``C = register_pytree_node(C, ...)`` is no class)."""
    if classify_registration(func, scope) is not None:
        return True
    name = opaque_registration(qualname(func, scope))
    return name is not None and OPAQUE_REGISTRATIONS[name] == "decorator"


def leaf_class(ann: ast.expr, scope: Scope, depth: int = 0) -> tuple[LocalClass, bool] | None:
    """The class of this module an annotation names (through a string, ``Optional[C]``,
    ``C | None``, ``Union[C, None]``, ``Annotated[C, ...]``, an alias, a generic ``C[T]``), with
    whether None is allowed; ``TooDeep`` past ``MAX_DEPTH``."""
    if depth > MAX_DEPTH:
        raise TooDeep
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        parsed = parse_string(ann.value)
        return None if parsed is None else leaf_class(parsed, scope, depth + 1)
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return _or_none([ann.left, ann.right], scope, depth)
    if isinstance(ann, ast.Subscript):
        base = qualname(ann.value, scope)
        items = list(ann.slice.elts) if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if base == "typing.Optional" and len(items) == 1:
            return _or_none([items[0], ast.Constant(None)], scope, depth)
        if base == "typing.Union":
            return _or_none(items, scope, depth)
        if base == "typing.Annotated":
            return leaf_class(items[0], scope, depth + 1)
        if base is not None and base.startswith("typing."):
            return None  # List[C], Dict[str, C]...: a container of them, not one
        return leaf_class(ann.value, scope, depth + 1)  # a generic class: C[jax.Array]
    if isinstance(ann, ast.Name):
        local = local_class(ann, scope)
        if local is not None:
            return local, False
        alias = single(ann, scope)
        if isinstance(alias, Assigned) and isinstance(
            alias.value, (ast.Name, ast.Subscript, ast.BinOp, ast.Constant)
        ):
            return leaf_class(alias.value, alias.scope, depth + 1)
    return None


def _or_none(items: list[ast.expr], scope: Scope, depth: int) -> tuple[LocalClass, bool] | None:
    """``C | None`` (in any order, nested ``|`` flattened): C, and None allowed."""
    flat: list[ast.expr] = []
    while items:  # in any order: only one item may be other than None
        item = items.pop()
        if isinstance(item, ast.BinOp) and isinstance(item.op, ast.BitOr):
            items = [*items, item.left, item.right]
        else:
            flat.append(item)
    rest = [item for item in flat if not (isinstance(item, ast.Constant) and item.value is None)]
    if len(rest) != 1:
        return None
    found = leaf_class(rest[0], scope, depth + 1)
    if found is None:
        return None
    return found[0], found[1] or len(rest) < len(flat)


def functional_class(binding: Assigned, name: str) -> FunctionalClass | None:
    """``TypedDict("C", {...})`` / ``NamedTuple("C", [...])`` assigned to a name, if it is one."""
    value = binding.value
    if not isinstance(value, ast.Call) or not value.args:
        return None
    kind = CONTAINERS.get(qualname(value.func, binding.scope) or "")
    return None if kind is None else FunctionalClass(value, kind, name)


def _field_call(
    value: ast.expr | None, scope: Scope
) -> tuple[bool, frozenset[Mark], ast.expr | None]:
    """What a ``dataclasses.field(...)`` value says: False for ``init=False``; the markers
    ``metadata={"static": True}`` gives; and the metadata expression when it is no literal
    (``dict(static=True)``, ``**options``), which only JAX at run time can read."""
    if not isinstance(value, ast.Call) or qualname(value.func, scope) != FIELD:
        return True, frozenset(), None
    written = _keyword(value, "init", None)
    init = not (isinstance(written, ast.Constant) and written.value is False)
    for kw in value.keywords:
        if kw.arg is None:
            return init, frozenset(), kw.value
        if kw.arg == "metadata":
            metadata = literal(kw.value)  # a call (``dict(static=True)``) is none
            static = metadata.get("static", False) if isinstance(metadata, dict) else None
            if static is True:
                return init, frozenset({Mark.STATIC}), None
            if static is not False:  # JAX tests truthiness; say so explicitly
                return init, frozenset(), kw.value
    return init, frozenset(), None


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
    heads = [d.func if isinstance(d, ast.Call) else d for d in defined.node.decorator_list]
    forms = [f for d in heads for f in FIELD_FORMS if qualname(d, scope) in f.decorators]
    forms += [f for _, name, _ in ancestry for f in FIELD_FORMS if name in f.bases]
    return (forms[0] if forms else None), unseen


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
