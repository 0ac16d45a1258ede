"""What a traced argument is, by its annotation or its class (JR006's seeds).

A scalar or an array is a tracer. A pytree class of the module (a NamedTuple, a TypedDict, an
Equinox Module, a flax.struct dataclass, a dataclass under ``register_dataclass``) is traced leaf
by leaf, unless a field is static or what makes it so cannot be read. A str, a function, an enum
member or an instance of a plain class cannot be traced at all (``untraceable``).
"""

from __future__ import annotations

import ast

from jaxrewrite.engine.findings.call_arguments import Sites, method_kind
from jaxrewrite.engine.findings.flow import ARRAY, DEFS, TREE, Function, State, Tree, named, only
from jaxrewrite.engine.read.classes import (
    FunctionalClass,
    LocalClass,
    leaf_class,
    local_class,
    read_class,
)
from jaxrewrite.engine.read.fields import field_function, form_of
from jaxrewrite.engine.read.handwritten import Refused
from jaxrewrite.engine.read.recognise import classify_registration
from jaxrewrite.engine.read.resolve import TooDeep, qualname, unquoted
from jaxrewrite.engine.read.scopes import DefinedClass, Scope
from jaxrewrite.engine.read.signature import Param
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.table import (
    ARRAY_PACKAGE,
    ARRAY_TYPES,
    Container,
    FieldForm,
    opaque_registration,
)
from jaxrewrite.errors import RewriteError

#: Annotations of values JAX traces as scalars; arrays are the table's.
SCALARS = frozenset({"builtins.int", "builtins.float", "builtins.bool", "builtins.complex"})
_ARRAY_FAMILIES = (ARRAY_PACKAGE + ".",)
#: Annotations no traced argument or leaf can have: (qualname, what to call it).
_NEVER_TRACED: dict[str, str] = {
    "typing.Callable": "a function",
    "builtins.str": "a str",
    "builtins.bytes": "bytes",
    "builtins.type": "a class",
    "typing.Type": "a class",
}
_ENUMS = frozenset({"enum.Enum", "enum.Flag", "enum.StrEnum"})  # IntEnum/IntFlag values are ints
_NAMEDTUPLE = "typing.NamedTuple"
_CALLABLES = frozenset({"typing.Callable", "collections.abc.Callable"})
#: How deep fields holding pytrees of the module are followed.
_DEPTH = 3
_DATACLASS_FIELD = "dataclasses.field"
#: Field functions of a library that make a field static whatever their arguments.
_STATIC_FIELDS = frozenset({"equinox.static_field"})


def type_name(ann: ast.expr, scope: Scope) -> str | None:
    return named(ann.value if isinstance(ann, ast.Subscript) else ann, scope)


def scalar_or_array(ann: ast.expr, scope: Scope) -> bool:
    """Is a value annotated so a scalar or an array (traced: a tracer)?"""
    name = type_name(ann, scope)
    if name is None:
        return False
    if isinstance(ann, ast.Subscript):
        return name.startswith(_ARRAY_FAMILIES)
    return name in SCALARS or name in ARRAY_TYPES or name.startswith(_ARRAY_FAMILIES)


def annotated(ann: ast.expr, scope: Scope, src: Source, depth: int = 0) -> State:
    """The state of a traced value annotated ``ann``: ARRAY, a Tree, or None if neither is sure."""
    if scalar_or_array(ann, scope):
        return ARRAY
    try:
        found = leaf_class(ann, scope)
    except TooDeep:
        return None
    if found is None or found[1]:  # not a class of the module, or it may be None
        return None
    return tree(found[0], src, depth)


def tree(local: LocalClass, src: Source, depth: int = 0) -> Tree | None:
    """The fields of a pytree class of the module and their states; None where its registration
    (or a base class, a field's metadata) cannot be read."""
    defined, scope = local
    if depth >= _DEPTH:
        return None
    try:
        info = read_class(defined, scope, src)
        if isinstance(defined, FunctionalClass):
            form, unseen = None, None
            registered: frozenset[str] | bool | None = True
        elif any(opaque_registration(qualname(d, scope)) for d in defined.node.decorator_list):
            return None  # the user's own flatten decides what is static
        else:
            form, unseen = form_of(defined, scope)
            registered = _registered(defined, scope, info.kind)
    except (RewriteError, Refused, TooDeep):
        return None
    if unseen is not None or (form is None and registered is None):
        return None
    fields: list[tuple[str, State]] = []
    for f in info.fields:
        data = not f.markers and f.unknown_metadata is None and f.init
        if form is not None:
            data = not f.markers and _library_data(f.node, form, f.scope or scope)
        elif isinstance(registered, frozenset):
            data = f.name in registered
        fields.append(
            (f.name, _field_state(f.annotation, f.scope or scope, src, depth) if data else None)
        )
    if form is not None:
        static = f"{form.field}({form.keyword}={form.static})"
    elif registered is True and info.kind is Container.CLASS:
        static = "dataclasses.field(metadata={'static': True})"
    else:  # a NamedTuple, or register_dataclass's own lists
        static = "its registration's meta_fields" if info.kind is Container.CLASS else ""
    keyed = {Container.DICT: "dict", Container.NAMEDTUPLE: "tuple"}.get(info.kind, "")
    members = () if isinstance(defined, FunctionalClass) else _members(defined, scope)
    return Tree(info.name, tuple(fields), static, keyed, members)


def _members(
    defined: DefinedClass, scope: Scope, depth: int = 0
) -> tuple[tuple[str, str, ast.FunctionDef], ...]:
    """The class's instance methods and properties (``builtins.property``), its own over those of
    its bases of this module, by name; a name bound twice in one body (a property's setter) is
    left out, with whatever a base defines under it."""
    found: dict[str, tuple[str, str, ast.FunctionDef] | None] = {}
    for base in defined.node.bases if depth < _DEPTH else ():
        local = local_class(base.value if isinstance(base, ast.Subscript) else base, scope)
        if local is not None and isinstance(local[0], DefinedClass):
            found.update((m[0], m) for m in _members(local[0], local[1], depth + 1))
    defs = [s for s in defined.node.body if isinstance(s, (*DEFS, ast.ClassDef))]
    names = [s.name for s in defs]
    for stmt in defs:
        found[stmt.name] = None
        if isinstance(stmt, ast.FunctionDef) and names.count(stmt.name) == 1 and stmt.args.args:
            decorators = [type_name(d, defined.body) for d in stmt.decorator_list]
            if not decorators:
                found[stmt.name] = (stmt.name, "method", stmt)
            elif decorators == ["builtins.property"]:
                found[stmt.name] = (stmt.name, "property", stmt)
    return tuple(m for m in found.values() if m is not None)


def _registered(
    defined: DefinedClass, scope: Scope, kind: Container
) -> frozenset[str] | bool | None:
    """How JAX flattens a class that is no Equinox/flax.struct one: True (every field not marked
    static in its metadata), the names of its data fields, or None (not a pytree, or unknown)."""
    if kind is not Container.CLASS:
        return True  # a NamedTuple or a TypedDict: every entry is a leaf
    for deco in defined.node.decorator_list:
        found = classify_registration(deco, scope)
        if found is None:
            continue
        transform, keywords = found
        given = {kw.arg: kw.value for kw in keywords}
        if None in given:
            return None
        data = given.get(transform.data_fields)
        if data is None:
            return True if not given else None
        try:
            names = ast.literal_eval(data)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        return frozenset(names) if isinstance(names, (list, tuple)) else None
    return None


def _library_data(node: ast.AST, form: FieldForm, scope: Scope) -> bool:
    """Is a field of an Equinox Module or flax.struct dataclass surely a pytree node?"""
    value = node.value if isinstance(node, ast.AnnAssign) else None
    if not isinstance(value, ast.Call):
        return True  # no value, or a plain default
    callee = field_function(value.func, scope)
    if callee in _STATIC_FIELDS:
        return False
    if callee == form.field:
        given = next((kw.value for kw in value.keywords if kw.arg == form.keyword), None)
        if given is None and form.position is not None and len(value.args) > form.position:
            given = value.args[form.position]
    elif callee == _DATACLASS_FIELD:
        metadata = next((kw.value for kw in value.keywords if kw.arg == "metadata"), None)
        if metadata is None:
            given = None
        elif not isinstance(metadata, ast.Dict) or None in metadata.keys:
            return False  # not read here: unknown
        else:
            keys = [k.value if isinstance(k, ast.Constant) else None for k in metadata.keys]
            given = metadata.values[keys.index(form.keyword)] if form.keyword in keys else None
    else:
        return callee is not None and not callee.startswith(form.module)  # a default's value
    if any(kw.arg is None for kw in value.keywords):
        return False
    if given is None:
        return True
    return isinstance(given, ast.Constant) and given.value is (not form.static)


def _field_state(ann: ast.expr | None, scope: Scope, src: Source, depth: int) -> State:
    """A data field's state: ARRAY for a scalar or an array, a Tree for a pytree of the module,
    None for a type no leaf has, TREE for anything else (its leaves are tracers)."""
    ann = unquoted(ann)
    if ann is None:
        return TREE
    found = annotated(ann, scope, src, depth + 1)
    if found is not None:
        return found
    return None if type_name(ann, scope) in _NEVER_TRACED else TREE


def param_state(func: Function, scope: Scope, src: Source, p: Param, sites: Sites) -> State:
    """ARRAY or a Tree where the parameter's annotation says which, or it is ``self`` of a method
    of a pytree class of the module; else None."""
    ann = unquoted(p.node.annotation)
    if ann is not None:
        return annotated(ann, scope, src)
    owner = _self_of(func, scope, p, sites)
    if owner is None or scope.parent is None:
        return None
    return tree((DefinedClass(owner, scope), scope.parent), src)


def untraceable(func: Function, scope: Scope, p: Param, sites: Sites) -> str | None:
    """What the annotation (or, for ``self``, the class) says the value is, when it cannot be
    traced."""
    ann = unquoted(p.node.annotation)
    if ann is None:
        owner = _self_of(func, scope, p, sites)
        if owner is None or scope.parent is None or not sites.plain(owner, scope.parent):
            return None  # else self of a method of a plain class, the most common jit mistake
        return f"an instance of {owner.name} as self, a class of this module that is not a pytree"
    name = type_name(ann, scope)
    if name in _NEVER_TRACED:
        return _NEVER_TRACED[name]
    if not isinstance(ann, ast.Name):
        return None
    binding = only(scope, ann.id)
    if not isinstance(binding, DefinedClass):
        return None
    bases = {qualname(b, scope) for b in binding.node.bases}
    if bases & _ENUMS:
        return f"a member of the enum {ann.id}"
    if _NAMEDTUPLE in bases and _holds_functions(binding):
        return f"a NamedTuple holding functions ({ann.id})"
    if sites.plain(binding.node, binding.body.parent):
        return f"an instance of {ann.id}, a class of this module that is not a pytree"
    return None


def _self_of(func: Function, scope: Scope, p: Param, sites: Sites) -> ast.ClassDef | None:
    """The class whose instance the parameter is, as ``self`` of an instance method."""
    owner = sites.owners.get(id(func))
    positional = [*func.args.posonlyargs, *func.args.args]
    if owner is None or not positional or positional[0] is not p.node:
        return None
    return owner if method_kind(func, scope) == "instance" else None


def _holds_functions(binding: DefinedClass) -> bool:
    return any(
        isinstance(stmt, ast.AnnAssign) and type_name(stmt.annotation, binding.body) in _CALLABLES
        for stmt in binding.node.body
    )
