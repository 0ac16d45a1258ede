"""``jaxrewrite.field(static=True)``: a Static field that Equinox and flax.struct both read as
static (one ``dataclasses.Field`` with both libraries' metadata keys), for a class whose base is
defined in another module. On a class no dataclass machinery reads, the Field puts back the
plain value (docs/design.md, "jaxrewrite.field").
"""

from __future__ import annotations

import dataclasses
from typing import Any

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
