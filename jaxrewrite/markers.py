"""The public markers: ``Static[T]`` and ``NoDiff[T]`` are ``Annotated[T, <marker>]``.

Type checkers see plain ``T``; jaxrewrite reads the marker from the source, and
``is_static`` reads it at run time for code that wants the seed's run-time check.
``field(static=True)``: a Static field that Equinox and flax.struct both read as static, for a
class whose base is defined in another module (docs/design.md, "jaxrewrite.field").
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import sys
from collections.abc import Callable
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Annotated, Any, Final, ForwardRef

# typing_extensions' TypeVar accepts a PEP 696 default on every supported Python.
from typing_extensions import TypeVar, get_type_hints

#: PEP 649/749's ``annotationlib`` (Python 3.14+, where typing imports it anyway), or None.
_annotationlib: ModuleType | None = (
    importlib.import_module("annotationlib") if sys.version_info >= (3, 14) else None
)


class Marker:
    """A sentinel in ``Annotated`` metadata; pickles by reference, prints its public name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"jaxrewrite.{self.name}"

    def __reduce__(self) -> str:
        return self.name


_STATIC: Final = Marker("STATIC")
_NODIFF: Final = Marker("NODIFF")

#: The default (PEP 696) makes bare ``Static`` mean ``Static[Any]`` to type checkers too,
#: strict modes included, as it does to jaxrewrite.
T = TypeVar("T", default=Any)


#: The markers by their public names, without the run-time check below: for jaxrewrite itself,
#: and for hand-written code that keeps them in its annotations as documentation only.
UNCHECKED: Final[dict[str, Any]] = {
    "Static": Annotated[T, _STATIC],
    "NoDiff": Annotated[T, _NODIFF],
    "STATIC": _STATIC,
    "NODIFF": _NODIFF,
}

if TYPE_CHECKING:
    STATIC: Final = _STATIC
    NODIFF: Final = _NODIFF
    #: ``Static[T]``: the argument is static (compile-time constant) for every transform.
    Static = Annotated[T, STATIC]
    #: ``NoDiff[T]``: the argument is not differentiated (``nondiff_argnums`` for custom_vjp/jvp).
    NoDiff = Annotated[T, NODIFF]
else:

    def __getattr__(name: str) -> Any:
        """The markers (here and ``jaxrewrite``'s), served so that fetching one tells who fetched
        it: a module that needed the rewrite and did not get it warns, once."""
        __tracebackhide__ = True  # noqa: F841
        marker = UNCHECKED.get(name)
        if marker is None:
            raise AttributeError(f"module 'jaxrewrite.markers' has no attribute {name!r}")
        from jaxrewrite import notrewritten

        notrewritten.check_importer(notrewritten.caller())
        return marker

    def __dir__() -> list[str]:
        return sorted({*globals(), *UNCHECKED})


def _metadata(func: Callable[..., Any], name: str) -> tuple[object, ...]:
    target = inspect.unwrap(func)
    # The parameter names: on 3.14+ without evaluating the annotations.
    options: dict[str, Any] = {}
    if _annotationlib is not None:
        options["annotation_format"] = _annotationlib.Format.FORWARDREF
    if name not in inspect.signature(target, **options).parameters:
        raise ValueError(f"{getattr(target, '__qualname__', target)!r} has no parameter {name!r}")
    return tuple(getattr(_hint(target, name), "__metadata__", ()))


def _hint(target: Callable[..., Any], name: str) -> object:
    """The evaluated annotation of parameter ``name``, or None. Where another parameter's names
    something that exists only under ``TYPE_CHECKING`` (postponed or PEP 649 annotations), only
    this parameter's annotation is evaluated."""
    try:
        return get_type_hints(target, include_extras=True).get(name)
    except NameError:
        pass
    if _annotationlib is not None:
        forwardref = _annotationlib.Format.FORWARDREF
        raw = _annotationlib.get_annotations(target, format=forwardref).get(name)
    else:
        raw = (getattr(target, "__annotations__", None) or {}).get(name)
    if not isinstance(raw, (str, ForwardRef)):
        return raw  # evaluated already (Annotated metadata survives an unresolved name inside)
    # PEP 695 type parameters go in as locals: get_type_hints of early 3.12 (3.12.1) ignores them.
    params = {getattr(p, "__name__", ""): p for p in getattr(target, "__type_params__", ())}
    globalns = getattr(target, "__globals__", None)
    return get_type_hints(
        SimpleNamespace(__annotations__={name: raw}), globalns, params, include_extras=True
    ).get(name)


def is_static(func: Callable[..., Any], name: str) -> bool:
    """Whether parameter ``name`` of ``func`` (through ``__wrapped__``) is annotated Static."""
    return any(item is _STATIC for item in _metadata(func, name))


def is_nodiff(func: Callable[..., Any], name: str) -> bool:
    """Whether parameter ``name`` of ``func`` (through ``__wrapped__``) is annotated NoDiff."""
    return any(item is _NODIFF for item in _metadata(func, name))


#: What each library reads to make a dataclass field static.
METADATA = {"static": True, "pytree_node": False}

#: Bases that make their subclasses dataclasses without being dataclasses themselves.
_DATACLASS_MAKERS = frozenset({"flax.struct.PyTreeNode", "flax.linen.module.Module"})


class _EitherField(dataclasses.Field):  # type: ignore[type-arg]
    """A dataclass field that undoes itself on a class that will not be a dataclass."""

    __slots__ = ()

    def __set_name__(self, owner: type, name: str) -> None:
        super().__set_name__(owner, name)
        # Dataclass machinery reads the fields of a dataclass base's subclass, or of one whose
        # base makes every subclass a dataclass as it is created.
        if any(
            dataclasses.is_dataclass(base)
            or f"{base.__module__}.{base.__qualname__}" in _DATACLASS_MAKERS
            for base in owner.__mro__[1:]
        ):
            return
        if self.default is not dataclasses.MISSING:
            setattr(owner, name, self.default)
        elif self.default_factory is not dataclasses.MISSING:
            setattr(owner, name, self.default_factory())
        else:
            delattr(owner, name)


def field(*, static: bool = False, **kwargs: Any) -> Any:
    """``dataclasses.field(**kwargs)``; with ``static=True``, static to Equinox and flax.struct
    alike, and the plain value on a class that is no dataclass."""
    if not static:
        return dataclasses.field(**kwargs)
    metadata = {**(kwargs.pop("metadata", None) or {}), **METADATA}
    made = dataclasses.field(metadata=metadata, **kwargs)
    made.__class__ = _EitherField
    return made
