"""What a name denotes where it is read: the one model the marker and transform readers share.

Each binding a load may see is a ``Path`` (``a if c else b`` is two); the name is what every path
reads as, and where two differ ``split`` names them (JR104). A path on which the use raises is
none: ``jax = None`` has no ``jit``, so ``@jax.jit`` means what the other bindings say.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import NamedTuple, TypeVar

from jaxrewrite.engine.read.scopes import (
    Assigned,
    Binding,
    Choice,
    Defined,
    DefinedClass,
    Imported,
    MarkerBinding,
    Scope,
    ScopeKind,
)

#: The use that calls what a name denotes (a decorator, a callee): no constant survives it.
CALLED = "()"

T = TypeVar("T")


class Path(NamedTuple):
    """One way a name may be bound where it is read."""

    binding: Binding
    #: The scope that makes the binding, and the line it is made on (0: no line of this text).
    scope: Scope
    line: int
    name: str
    #: The binding as its statement makes it: ``binding`` is one branch of it (``a if c else b``).
    made: Binding


def paths(name: str, scope: Scope, use: str | None = None) -> list[Path] | None:
    """The bindings a load of ``name`` in ``scope`` may see; None where the module binds it
    nowhere. ``use``: an attribute read, or ``CALLED``; a path on which it raises is left out."""
    found = scope.lookup(name)
    if found is None:
        return None
    bindings, holder = found
    sites = holder.sites[name]
    out: list[Path] = []
    for binding, (line, _) in zip(bindings, sites):
        if type(binding) is not Assigned or type(binding.value) is not ast.IfExp:
            ones: list[Binding] = [binding]
        else:  # ``x = a if c else b`` as the two assignments it may be (nested ones too)
            ones, todo = [], [binding.value.orelse, binding.value.body]
            while todo:
                part = todo.pop()
                if isinstance(part, ast.IfExp):
                    todo += [part.orelse, part.body]
                else:
                    ones.append(Assigned(part, binding.scope, binding.type_statement))
        for one in ones:
            value = one.value if isinstance(one, Assigned) else None
            # A use of a constant raises whatever runs around it: ``jax = None`` has no ``jit``.
            if not (
                use is not None
                and isinstance(value, ast.Constant)
                and (use == CALLED or not hasattr(value.value, use))
            ):
                out.append(Path(one, holder, line, name, binding))
    return out


def split(
    readings: Sequence[tuple[T, Path]], same: Callable[[T, T], bool] | None = None
) -> tuple[Path, Path] | None:
    """Two paths whose readings differ (by ``same``, default ``==``), or None."""
    first, where = readings[0]
    for other, there in readings[1:]:
        if not (first == other if same is None else same(first, other)):
            return where, there
    return None


def same_expr(a: object, b: object) -> bool:
    """Are two expressions (or sequences of nodes) the same but for where they stand? ``ast.dump``'s
    comparison, without the reference cycle each of its calls leaves for the collector."""
    todo: list[tuple[object, object]] = [(a, b)]
    while todo:
        x, y = todo.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, ast.AST):
            todo.extend((getattr(x, name, None), getattr(y, name, None)) for name in x._fields)
        elif isinstance(x, (list, tuple)):
            if len(x) != len(y):  # type: ignore[arg-type]
                return False
            todo.extend(zip(x, y))  # type: ignore[call-overload]
        elif x != y:
            return False
    return True


def spelled(pair: tuple[Path, Path], filename: str) -> dict[str, str]:
    """JR104's fields for two disagreeing paths of a name: the name, what each binds and where."""
    fields = {"name": pair[0].name}
    for key, path in zip(("first", "second"), pair):
        fields[key] = _what(path.binding)
        if path.scope.kind is ScopeKind.ENVIRONMENT:
            fields[f"{key}_at"] = "the namespace the module runs in"
        elif path.line:
            fields[f"{key}_at"] = f"{filename}:{path.line}"
        else:
            fields[f"{key}_at"] = f"{filename}, a parameter or type parameter"
    return fields


def _what(binding: Binding) -> str:
    if isinstance(binding, Imported):
        return binding.qualname
    if isinstance(binding, Assigned):
        text = ast.unparse(binding.value)
        return text if len(text) <= 60 else text[:57] + "..."
    if isinstance(binding, (Defined, DefinedClass)):
        return f"{'class' if isinstance(binding, DefinedClass) else 'def'} {binding.node.name}"
    if isinstance(binding, MarkerBinding):
        return "a marker alias"
    return "a loop's element" if isinstance(binding, Choice) else "another value"
