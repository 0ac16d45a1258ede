"""JR003: a Static parameter whose type or default JAX cannot hash, or to which a call of the
module passes such a value: JAX refuses it at the call, under a transform that hashes statics."""

from __future__ import annotations

import ast

from jaxrewrite.engine.findings.call_arguments import Sites
from jaxrewrite.engine.findings.context import Context, MarkedDef
from jaxrewrite.engine.read.classes import DATACLASS, local_class
from jaxrewrite.engine.read.markers import inner_type
from jaxrewrite.engine.read.nodes import bindings
from jaxrewrite.engine.read.resolve import qualname, unquoted
from jaxrewrite.engine.read.scopes import DefinedClass, Scope
from jaxrewrite.engine.read.signature import array_type
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import Rule
from jaxrewrite.engine.rulebook.table import Mark

RULE = Rule(
    "JR003",
    "Static on a parameter whose type or default cannot be hashed",
    (
        "{name!r} is Static but annotated {kind}, which cannot be hashed: JAX rejects an "
        "unhashable static argument when the function is called; use a hashable type (a tuple, a "
        "frozenset, a scalar)"
    ),
    "use a hashable type or default: a tuple, a frozenset, a scalar",
    default=(
        "{name!r} is Static but its default is a {shown}, which cannot be hashed: the "
        "default works while it is used, but JAX rejects a value like it passed there when "
        "the function is called; make the default hashable (a tuple, a frozenset)"
    ),
    passed=(
        "{name!r} is Static but the call on line {line} passes it a {shown}, which cannot be "
        "hashed: JAX raises ValueError (Non-hashable static arguments are not supported) at "
        "that call; pass a hashable value (a tuple, a frozenset, a frozen dataclass)"
    ),
    details=(
        " (`list`, `dict`, `set`, `bytearray`, `jax.Array`, `np.ndarray`, their `typing` "
        "spellings, a non-frozen `@dataclass` of the module or a class with `__eq__` and no "
        "`__hash__`, also as the class of a `self: Static`; a list, dict or set default; a list, "
        "dict or set, a NumPy or jax.numpy array constructor's result or an instance of such a "
        "class passed to it by a call of the module): JAX rejects it at call time, under a "
        "transform that hashes ([section 8]("
        "leaves.md#8-static-parts-of-one-argument-dataclasses-typeddicts-namedtuples))"
    ),
)

_BUILTINS = ("list", "dict", "set", "bytearray")
_MUTABLE = ("MutableMapping", "MutableSequence", "MutableSet")
_TYPING = ("List", "Dict", "Set", "DefaultDict", "OrderedDict", "Counter", "Deque", *_MUTABLE)
#: Types whose values JAX cannot hash, beside the arrays (``signature.array_type``).
UNHASHABLE = frozenset(
    [f"builtins.{name}" for name in _BUILTINS]
    + [f"typing.{name}" for name in _TYPING]
    + [f"collections.abc.{name}" for name in _MUTABLE]
    + [f"collections.{name}" for name in ("defaultdict", "OrderedDict", "Counter", "deque")]
)
#: Literal forms whose values cannot be hashed.
_LITERALS: dict[type[ast.expr], str] = {
    ast.List: "list",
    ast.ListComp: "list",
    ast.Dict: "dict",
    ast.DictComp: "dict",
    ast.Set: "set",
    ast.SetComp: "set",
}
#: Array constructors of NumPy and jax.numpy: their results cannot be hashed.
_FILLED = ("zeros", "ones", "full", "empty")
_ARRAYS = frozenset(
    {"array", "asarray", "arange", "linspace", "eye", "identity", *_FILLED}
    | {f"{name}_like" for name in _FILLED}
)


def check(ctx: Context) -> list[Diagnostic]:
    """At the parameter (its type, then its default) of every marked def some transform that
    hashes statics may apply to (a def used only under transforms that hash none would cry wolf;
    one with no use at all still hears what a hashing transform would meet), then at the calls."""
    uses = ctx.result.uses
    hashed = {id(u.target) for u in uses if u.transform.hashes_statics}
    unhashed = {id(u.target) for u in uses} - hashed
    owners = {id(stmt): cls.node for cls, _ in ctx.scopes.classes for stmt in cls.node.body}
    found = []
    for record in ctx.marked_defs:
        if id(record.node) not in unhashed:
            found += _at_def(record, owners.get(id(record.node)), ctx.src)
    return found + _passed(ctx)


def _at_def(record: MarkedDef, owner: ast.ClassDef | None, src: Source) -> list[Diagnostic]:
    """Its Static parameters' types (a bare ``self: Static``: its class decides), then defaults."""
    args, scope = record.node.args, record.scope.annotating(record.node)
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[::-1]], args.defaults[::-1]))
    defaults.update((a.arg, v) for a, v in zip(args.kwonlyargs, args.kw_defaults) if v is not None)
    types, values = [], []
    for param in (p for p in record.marked if Mark.STATIC in p.markers):
        written = inner_type(param.node.annotation, scope)
        kind = _unhashable(written, scope)
        if written is None and owner is not None and param.position == 0:
            why = unhashable_class(owner, scope)
            kind = None if why is None else f"{owner.name} ({why})"
        shown = _value(defaults.get(param.name))
        if kind is not None:
            types.append(Diagnostic.at(src, param.node, RULE, name=param.name, kind=kind))
        elif shown is not None:
            said = {"name": param.name, "shown": shown}
            values.append(Diagnostic.at(src, param.node, RULE, "default", **said))
    return types + values


def _value(expr: ast.expr | None) -> str | None:
    """``[2, 2]``, ``{...}``, a comprehension of them, or ``(1, [2])``: the unhashable kind."""
    if isinstance(expr, ast.Tuple):
        inner = next((k for k in map(_value, expr.elts) if k is not None), None)
        return None if inner is None else f"tuple holding a {inner}"
    return None if expr is None else _LITERALS.get(type(expr))


def static_type(written: ast.expr | None, scope: Scope) -> tuple[ast.expr, str] | None:
    """The type under a marker, a string parsed, and the dotted name of its head (``builtins.``
    for a builtin the module does not bind; empty where it names none)."""
    inner = unquoted(written)
    if inner is None:
        return None
    head = inner.value if isinstance(inner, ast.Subscript) else inner
    name = qualname(head, scope)
    if name is None and isinstance(head, ast.Name) and scope.lookup(head.id) is None:
        name = f"builtins.{head.id}"
    return inner, name or ""


def _unhashable(written: ast.expr | None, scope: Scope) -> str | None:
    """The type as written, when values of it cannot be hashed (why, for a class of the module)."""
    found = static_type(written, scope)
    if written is None or found is None:
        return None
    inner, name = found
    if name in UNHASHABLE or array_type(inner, scope) is not None:
        return ast.unparse(written)
    local = _local(inner.value if isinstance(inner, ast.Subscript) else inner, scope)
    return None if local is None else f"{ast.unparse(written)} ({local[1]})"


def _local(expr: ast.expr, scope: Scope) -> tuple[str, str] | None:
    """The name of the class of this module ``expr`` names, and why it cannot be hashed."""
    local = local_class(expr, scope)
    if local is None or not isinstance(local[0], DefinedClass):
        return None
    why = unhashable_class(local[0].node, local[1])
    return None if why is None else (local[0].node.name, why)


def unhashable_class(node: ast.ClassDef, scope: Scope) -> str | None:
    """Why instances of a class of this module cannot be hashed (its ``__hash__`` is None), if
    they cannot; ``eq=False`` hashes by identity, as any object does."""
    own = bindings(node.body)[0]
    if "__hash__" in own:
        return None
    for deco in node.decorator_list:
        call = deco if isinstance(deco, ast.Call) else None
        if qualname(call.func if call else deco, scope) != DATACLASS:
            continue
        flags = {"eq": True, "frozen": False, "unsafe_hash": False}
        for kw in call.keywords if call else ():
            literal = isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)
            if kw.arg is None or (kw.arg in flags and not literal):
                return None  # ``**options``, or not a literal: cannot tell
            if kw.arg in flags:
                flags[kw.arg] = kw.value.value  # type: ignore[attr-defined]
        if flags["eq"] and not flags["frozen"] and not flags["unsafe_hash"]:
            return "a dataclass with eq and without frozen=True, so its __hash__ is None"
        return None
    if "__eq__" in own:
        return "it defines __eq__ without __hash__, so its __hash__ is None"
    return None


def _passed(ctx: Context) -> list[Diagnostic]:
    """JR003 at a call site of the module passing an unhashable value to a Static parameter of a
    transform that hashes its statics."""
    module, sites = ctx.scopes.module, None
    found: list[Diagnostic] = []
    seen: set[int] = set()
    for use in ctx.result.uses:
        static = {p.name for p in use.signature.params if Mark.STATIC in p.markers}
        if not use.transform.hashes_statics or not static:
            continue
        sites = sites or Sites(ctx.tree, module)
        positional = [*use.target.args.posonlyargs, *use.target.args.args]
        for call in sites._calls(use.node, use.target, use.kind.name == "DECORATOR"):
            given = [(positional[i].arg, a) for i, a in enumerate(call.args) if i < len(positional)]
            given += [(kw.arg, kw.value) for kw in call.keywords if kw.arg is not None]
            for name, expr in given:
                if name in static and id(expr) not in seen:
                    shown = _value(expr) or _made(expr, module)
                    if shown is not None:
                        seen.add(id(expr))
                        said = {"name": name, "shown": shown, "line": call.lineno}
                        found.append(Diagnostic.at(ctx.src, expr, RULE, "passed", **said))
    return found


def _made(expr: ast.expr, scope: Scope) -> str | None:
    """An array constructor's result, or an instance of an unhashable class of the module."""
    if not isinstance(expr, ast.Call):
        return None
    name = qualname(expr.func, scope) or ""
    module, _, leaf = name.rpartition(".")
    if module in ("numpy", "jax.numpy") and leaf in _ARRAYS:
        return f"{'NumPy' if module == 'numpy' else 'JAX'} array ({ast.unparse(expr.func)}(...))"
    found = _local(expr.func, scope)
    return None if found is None else f"{found[0]} instance ({found[1]})"
