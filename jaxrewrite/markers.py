"""The public markers: ``Static[T]`` and ``NoDiff[T]`` are ``Annotated[T, <marker>]``.

Type checkers see plain ``T``; jaxrewrite reads the marker from the source, and
``is_static`` reads it at run time for code that wants the seed's run-time check.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, Final

# typing_extensions' TypeVar accepts a PEP 696 default on every supported Python.
from typing_extensions import TypeVar, get_type_hints


class Marker:
    """A sentinel placed in ``Annotated`` metadata; pickles by reference, prints its public name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"jaxrewrite.{self.name}"

    def __reduce__(self) -> str:
        return self.name


STATIC: Final = Marker("STATIC")
NODIFF: Final = Marker("NODIFF")

#: The default (PEP 696) makes bare ``Static`` mean ``Static[Any]`` to type checkers too,
#: strict modes included, as it does to jaxrewrite.
T = TypeVar("T", default=Any)

#: ``Static[T]``: the argument is static (compile-time constant) for every transform.
Static = Annotated[T, STATIC]
#: ``NoDiff[T]``: the argument is not differentiated (``nondiff_argnums`` for custom_vjp/jvp).
NoDiff = Annotated[T, NODIFF]


def _metadata(func: Callable[..., Any], name: str) -> tuple[object, ...]:
    target = inspect.unwrap(func)
    if name not in inspect.signature(target).parameters:
        raise ValueError(f"{getattr(target, '__qualname__', target)!r} has no parameter {name!r}")
    hint = get_type_hints(target, include_extras=True).get(name)
    return tuple(getattr(hint, "__metadata__", ()))


def is_static(func: Callable[..., Any], name: str) -> bool:
    """True when parameter ``name`` of ``func`` (unwrapped via ``__wrapped__``) is annotated Static."""
    return any(item is STATIC for item in _metadata(func, name))


def is_nodiff(func: Callable[..., Any], name: str) -> bool:
    """True when parameter ``name`` of ``func`` (unwrapped via ``__wrapped__``) is annotated NoDiff."""
    return any(item is NODIFF for item in _metadata(func, name))
