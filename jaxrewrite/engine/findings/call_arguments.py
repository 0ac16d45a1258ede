"""What a traced argument is (JR006's seeds): by its annotation or its class, and by what the
module's visible call sites pass.

A scalar or an array is a tracer. A pytree class of the module (a NamedTuple, a TypedDict, an
Equinox Module, a flax.struct dataclass, a dataclass under ``register_dataclass``) is traced leaf
by leaf, unless a field is static or what makes it so cannot be read. A str, a function, an enum
member, an instance of a plain class or a ``jax.Device`` cannot be traced at all; a visible call
that passes a number or an array shows the parameter traced (a default no longer hides it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cached_property
from itertools import takewhile

from jaxrewrite.engine.findings.flow import ARRAY, DEFS, TREE, Function, State, Tree, named
from jaxrewrite.engine.findings.traced_body import linen_class
from jaxrewrite.engine.read.classes import (
    DATACLASS,
    FunctionalClass,
    LocalClass,
    leaf_class,
    local_class,
    read_class,
)
from jaxrewrite.engine.read.fields import field_function, form_of
from jaxrewrite.engine.read.handwritten import Refused
from jaxrewrite.engine.read.nodes import bindings, child_nodes, family, name_assigned, walk
from jaxrewrite.engine.read.recognise import classify_registration
from jaxrewrite.engine.read.resolve import TooDeep, qualname, single, unquoted
from jaxrewrite.engine.read.scopes import Defined, DefinedClass, Scope
from jaxrewrite.engine.read.signature import Param
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.table import (
    ARRAY_PACKAGE,
    ARRAY_TYPES,
    PASSES_THROUGH,
    Container,
    FieldForm,
    opaque_registration,
)
from jaxrewrite.errors import RewriteError

#: The nodes whose enclosing def or lambda the walk records.
_RECORDED = (ast.Call, ast.Assign, ast.AnnAssign, ast.Lambda, *DEFS)

#: Calls whose result is a value a transform cannot trace, and what to call it.
_OPAQUE_RESULTS = {
    "equinox.nn.Lambda": "an Equinox module holding a function (eqx.nn.Lambda)",
    "equinox.nn.MLP": "an Equinox module holding functions (eqx.nn.MLP's activations)",
    "jax.devices": "a list of jax.Device",
    "jax.local_devices": "a list of jax.Device",
}
_DEVICE_LISTS = ("jax.devices", "jax.local_devices")
#: Containers of layers that hold a function when one of the layers listed in the call does.
_SEQUENCES = frozenset({"equinox.nn.Sequential"})
#: How many leading parameters Python binds itself, by the method's kind and the receiver.
BOUND = {
    "instance": {"instance": 1, "class": 0},
    "class": {"instance": 1, "class": 1},
    "static": {"instance": 0, "class": 0},
}
_METHOD_KINDS = {"builtins.staticmethod": "static", "builtins.classmethod": "class"}


def method_kind(func: Function, scope: Scope) -> str:
    """``"static"``, ``"class"`` or ``"instance"``: how Python binds a method's first parameter
    (``scope``: the class body)."""
    kinds = (_METHOD_KINDS.get(named(deco, scope) or "") for deco in func.decorator_list)
    return next((kind for kind in kinds if kind), "instance")


#: One argument a call site passes: its expression, and why no transform can trace it (None: a
#: number or an array, which it traces).
Passed = tuple[ast.expr, str | None]


class Sites:
    """The call sites of the module's transformed functions, found once per module."""

    def __init__(self, module: ast.Module, module_scope: Scope) -> None:
        self.module = module
        self.scope = module_scope
        #: In one walk: the parent of each call, the def or lambda around each node of
        #: ``_RECORDED``, the class around each method, and the calls by name.
        self.parents: dict[int, ast.AST] = {}
        self.around: dict[int, ast.AST] = {}
        self.owners: dict[int, ast.ClassDef] = {}
        self.calls: dict[str, list[ast.Call]] = {}
        self.attribute_calls: dict[str, list[ast.Call]] = {}
        for child, node, inner in family(module):
            if not isinstance(child, _RECORDED):
                continue
            self.around[id(child)] = inner
            if isinstance(child, ast.Call):
                self.parents[id(child)] = node
                if isinstance(child.func, ast.Name):
                    self.calls.setdefault(child.func.id, []).append(child)
                elif isinstance(child.func, ast.Attribute):
                    self.attribute_calls.setdefault(child.func.attr, []).append(child)
            elif isinstance(child, DEFS) and isinstance(node, ast.ClassDef):
                self.owners[id(child)] = node
        self._locals: dict[int, tuple[set[str], dict[str, list[ast.expr]]]] = {}

    def plain(self, node: ast.ClassDef, scope: Scope | None) -> bool:
        """Are the class's instances (``scope``: where it is defined) surely neither pytrees nor
        arrays: no base but ``object``, no decorator but ``@dataclass``, no ``__jax_array__``, and
        never used where a registration or a subclass could make them one?"""
        return (
            scope is not None
            and not node.keywords
            and all(isinstance(b, ast.Name) and b.id == "object" for b in node.bases)
            and all(
                qualname(d.func if isinstance(d, ast.Call) else d, scope) == DATACLASS
                for d in node.decorator_list
            )
            and not any(isinstance(s, DEFS) and s.name == "__jax_array__" for s in node.body)
            and node.name not in self._other_uses
        )

    @cached_property
    def _other_uses(self) -> set[str]:
        """Names used other than as a constructor, an annotation or isinstance's class: such a
        class may be registered as a pytree or subclassed."""
        allowed: set[int] = set()
        for node in walk(self.module):
            if isinstance(node, ast.Call):
                allowed.add(id(node.func))
                if getattr(node.func, "id", None) == "isinstance" and len(node.args) == 2:
                    allowed.add(id(node.args[1]))
            # A parameter's or a variable's annotation, a def's return annotation.
            annotation = getattr(node, "annotation", None) or getattr(node, "returns", None)
            if annotation is not None:
                allowed.update(id(n) for n in walk(annotation))
        return {n.id for n in walk(self.module) if isinstance(n, ast.Name) and id(n) not in allowed}

    def local(self, where: ast.AST) -> tuple[set[str], dict[str, list[ast.expr]]]:
        """The names a def (or the module) binds, and the values of its plain assignments."""
        if id(where) not in self._locals:
            self._locals[id(where)] = bindings(child_nodes(where), declared=False)
        return self._locals[id(where)]

    def enclosing(self, node: ast.AST) -> ast.AST:
        return self.around.get(id(node), self.module)

    def passed(
        self, use_node: ast.expr, func: Function, decorated: bool, scope: Scope
    ) -> dict[str, list[Passed]]:
        """Parameter name -> what the visible calls pass to it (``scope``: where the def is)."""
        out: dict[str, list[Passed]] = {}
        if decorated and id(func) in self.owners:
            calls = self._method_calls(func, self.owners[id(func)], method_kind(func, scope))
        else:
            calls = ((call, 0) for call in self._calls(use_node, func, decorated))
        for call, bound in calls:
            # ``bound``: the leading parameters Python fills before the call's own arguments.
            params = [*func.args.posonlyargs, *func.args.args][bound:]
            names = {a.arg for a in (*params, *func.args.kwonlyargs)}
            args = takewhile(lambda a: not isinstance(a, ast.Starred), call.args)
            given = [(p.arg, a) for p, a in zip(params, args)]
            given += [(kw.arg, kw.value) for kw in call.keywords if kw.arg in names]
            for name, expr in given:
                found = self._what(expr, self.enclosing(call))
                if found is not None:
                    out.setdefault(name, []).append(found)
        return out

    def _method_calls(
        self, func: Function, owner: ast.ClassDef, kind: str
    ) -> Iterator[tuple[ast.Call, int]]:
        """The calls of a method in view, each with how many leading parameters Python binds
        itself: through an instance (``A().m``, ``a.m`` after ``a = A()``, ``self.m``) a bound
        method's self and a classmethod's cls; through the class (``A.m``, ``cls.m``) a
        classmethod's cls only; a staticmethod none."""
        # ``self.m`` may run a subclass's ``m``: a subclass of the module that defines one.
        overridden = any(
            isinstance(node, ast.ClassDef)
            and any(isinstance(b, ast.Name) and b.id == owner.name for b in node.bases)
            and any(isinstance(s, DEFS) and s.name == func.name for s in node.body)
            for node in ast.walk(self.module)
        )
        for call in self.attribute_calls.get(func.name, ()):
            value = call.func.value  # type: ignore[attr-defined]
            receiver = self._receiver(value, self.enclosing(call), owner, overridden)
            if receiver is not None:
                yield call, BOUND[kind][receiver]

    def _receiver(
        self, expr: ast.expr, where: ast.AST, owner: ast.ClassDef, overridden: bool
    ) -> str | None:
        """``"instance"`` or ``"class"`` where ``expr`` surely is one of ``owner`` (or, for
        ``self``/``cls``, of a subclass that does not override the method), else None."""
        if isinstance(expr, ast.Call):
            return "instance" if self._is_class(expr.func, where, owner) else None
        if not isinstance(expr, ast.Name):
            return None
        if self._is_class(expr, where, owner):
            return "class"
        values = self.local(where)[1]  # a name the def does not bind is none of these
        if isinstance(where, DEFS) and self.owners.get(id(where)) is owner:
            first = [*where.args.posonlyargs, *where.args.args][:1]
            if first and first[0].arg == expr.id and not values.get(expr.id) and not overridden:
                kind = method_kind(where, self.scope)
                return None if kind == "static" else kind
        own = values.get(expr.id, [])
        made = own[0] if len(own) == 1 else None
        if isinstance(made, ast.Call) and self._is_class(made.func, where, owner):
            return "instance"
        return None

    def _is_class(self, expr: ast.expr, where: ast.AST, owner: ast.ClassDef) -> bool:
        """Is ``expr`` the module's one binding of ``owner``'s name, not hidden by a def around?"""
        if (
            not isinstance(expr, ast.Name)
            or expr.id != owner.name
            or self._shadowed(where, expr.id)
        ):
            return False
        if where is not self.module and expr.id in self.local(where)[0]:
            return False
        binding = single(expr, self.scope)
        return isinstance(binding, DefinedClass) and binding.node is owner

    def _calls(self, use_node: ast.expr, func: Function, decorated: bool) -> Iterator[ast.Call]:
        if decorated:
            binding = single(ast.Name(func.name), self.scope)
            if not isinstance(binding, Defined) or binding.node is not func:
                return
            yield from (
                c for c in self.calls.get(func.name, ()) if not self._shadowed(c, func.name)
            )
            return
        node: ast.AST = use_node
        parent = self.parents.get(id(node))
        while isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
            if (qualname(parent.func, self.scope) or "") not in PASSES_THROUGH:
                break
            node, parent = parent, self.parents.get(id(parent))
        if isinstance(parent, ast.Call) and parent.func is node:
            yield parent
        elif parent is not None and (pair := name_assigned(parent)) is not None:
            where, name = self.enclosing(parent), pair[0]
            if len(self.local(where)[1].get(name, [])) == 1:
                yield from (c for c in self.calls.get(name, ()) if self.enclosing(c) is where)

    def _shadowed(self, node: ast.AST, name: str) -> bool:
        """Is ``name`` bound by a def around ``node`` (not ``node`` itself, nor the module)?"""
        where = self.enclosing(node)
        while where is not self.module:
            if name in self.local(where)[0]:
                return True
            where = self.enclosing(where)
        return False

    def _what(self, expr: ast.expr, where: ast.AST) -> Passed | None:
        """What an argument is, when it is visible; None when it is not."""
        if isinstance(expr, ast.Name):
            if self._shadowed(where, expr.id):
                return None
            names, values = self.local(where)
            if expr.id not in names:
                binding = single(expr, self.scope)
                return (expr, "a function") if isinstance(binding, Defined) else None
            if len(values.get(expr.id, [])) != 1:
                return None
            expr = values[expr.id][0]
        if isinstance(expr, ast.Constant):
            if isinstance(expr.value, (str, bytes)):
                return (expr, f"a {type(expr.value).__name__}")
            return (expr, None) if type(expr.value) in (int, float, complex, bool) else None
        if isinstance(expr, ast.Lambda):
            return (expr, "a function")
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Call):
            listed = qualname(expr.value.func, self.scope) in _DEVICE_LISTS
            return (expr, "a jax.Device") if listed else None
        if not isinstance(expr, ast.Call):
            return None
        callee = qualname(expr.func, self.scope)
        if callee in _OPAQUE_RESULTS:
            return (expr, _OPAQUE_RESULTS[callee])
        if callee in _SEQUENCES and expr.args and isinstance(expr.args[0], (ast.List, ast.Tuple)):
            for layer in expr.args[0].elts:
                inner = self._what(layer, where) if isinstance(layer, ast.Call) else None
                if inner is not None and inner[1] is not None:
                    return expr, f"an Equinox Sequential holding {inner[1]}"
            return None
        if callee is not None and callee.startswith("jax.numpy."):
            return (expr, None)
        binding = single(expr.func, self.scope)
        if not isinstance(binding, DefinedClass):
            return None
        if self.plain(binding.node, binding.body.parent):
            return (expr, f"an instance of {binding.node.name}, {_PLAIN}")
        if linen_class(binding):
            what = f"an instance of {binding.node.name}, a flax Linen Module (not a pytree)"
            return (expr, what)
        return None


_PLAIN = "a class of this module that is not a pytree"
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


def scalar_or_array(ann: ast.expr | None, scope: Scope) -> bool:
    """Is a value annotated so a scalar or an array (traced: a tracer)?"""
    name = None if ann is None else type_name(ann, scope)
    if ann is None or name is None:
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
    """The class's instance methods and properties, its own over those of its bases of this
    module, by name; a name bound twice in one body (a property's setter) is left out."""
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
    static), the names of its data fields, or None (not a pytree, or unknown)."""
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


def param_reading(
    func: Function, scope: Scope, src: Source, p: Param, sites: Sites
) -> tuple[str | None, State]:
    """What the parameter's annotation (or, for ``self`` of an instance method, its class) says:
    what the value is where it cannot be traced, else its state where sure (ARRAY or a Tree)."""
    ann = unquoted(p.node.annotation)
    if ann is None:
        owner = sites.owners.get(id(func))
        positional = [*func.args.posonlyargs, *func.args.args]
        if owner is None or scope.parent is None or not positional or positional[0] is not p.node:
            return None, None
        if method_kind(func, scope) != "instance":
            return None, None
        if sites.plain(owner, scope.parent):  # the most common jit mistake
            return f"an instance of {owner.name} as self, {_PLAIN}", None
        return None, tree((DefinedClass(owner, scope), scope.parent), src)
    name = type_name(ann, scope)
    if name in _NEVER_TRACED:
        return _NEVER_TRACED[name], None
    binding = single(ann, scope)  # a class of the module, by its name
    if isinstance(binding, DefinedClass):
        bases, shown = {qualname(b, scope) for b in binding.node.bases}, binding.node.name
        if bases & _ENUMS:
            return f"a member of the enum {shown}", None
        if _NAMEDTUPLE in bases and any(
            isinstance(stmt, ast.AnnAssign)
            and type_name(stmt.annotation, binding.body) in _CALLABLES
            for stmt in binding.node.body
        ):
            return f"a NamedTuple holding functions ({shown})", None
        if sites.plain(binding.node, binding.body.parent):
            return f"an instance of {shown}, {_PLAIN}", None
    return None, annotated(ann, scope, src)
