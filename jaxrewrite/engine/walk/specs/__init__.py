"""One module per spec kind (``lists``, ``axes``, ``diff``), picked by the row's ``spec`` field:
``complete`` (the keywords one use needs, or the refusal) and ``read`` (what JAX makes of a spec
as written, for migrate and check's trace-time pass). A new kind is one file, a
``table.SpecKind`` member, a ``KINDS`` entry and its rows.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from jaxrewrite.engine.read.handwritten import Reading
from jaxrewrite.engine.read.literals import MISSING, Values, literal
from jaxrewrite.engine.read.signature import Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.table import TRANSFORMS, SpecKind, Transform
from jaxrewrite.engine.walk.specs import axes, diff, lists

if TYPE_CHECKING:
    from jaxrewrite.engine.analysis import Use


class SpecKindModule(Protocol):
    def complete(self, use: Use, src: Source) -> Values | None: ...

    def read(self, use: Use, sig: Signature, src: Source) -> Reading: ...


KINDS: dict[SpecKind, SpecKindModule] = {
    SpecKind.LISTS: lists,
    SpecKind.AXES: axes,
    SpecKind.DIFF: diff,
}


def complete(use: Use, src: Source) -> Values | None:
    """The keywords to write for one use (its ``values`` as yet unset). With per-leaf entries the
    helper is always written, so there are always values (maybe none to add)."""
    values = KINDS[use.transform.spec].complete(use, src)
    if values is None and use.leaves:
        return []
    return values


def read(use: Use, sig: Signature, src: Source) -> Reading:
    """JAX's reading of the spec a use wrote (``Refused`` where no annotation can say the same)."""
    return KINDS[use.transform.spec].read(use, sig, src)


def spec_keywords(t: Transform) -> frozenset[str]:
    """The keywords that make arguments static for ``t``: a lists row's lists, and what JAX reads
    besides (no ``in_axes`` or ``argnums`` of the other kinds makes an argument static)."""
    if t.spec is not SpecKind.LISTS:
        return frozenset()
    also = None if t.read_also is None else t.read_also[0]
    return frozenset(word for word in (t.argnums, t.argnames, also) if word is not None)


def has_spec(use: Use) -> bool:
    """Does the use write a spec that makes something static (or may: a non-literal one)?"""
    words = spec_keywords(use.transform)
    for kw in use.written:
        if kw.arg in words:
            value = literal(kw.value)
            if value is MISSING or (value is not None and value != () and value != []):
                return True
    return False


#: The names of the rows whose spec may be passed by position (``Transform.spec_by_position``).
POSITIONAL_SPECS = frozenset(name for name, row in TRANSFORMS.items() if row.spec_by_position)

#: Every spec keyword of the table: a file that mentions none has no keyword spec.
NEEDLES: tuple[str, ...] = tuple(
    sorted({word for t in TRANSFORMS.values() for word in spec_keywords(t)})
)
#: A call of custom_vjp/custom_jvp by that name with a second argument: a positional spec.
_POSITIONAL_NEEDLE = re.compile(r"\b(?:" + "|".join(sorted(POSITIONAL_SPECS)) + r")\s*\([^()]*,")


def may_need_migration(text: str) -> bool:
    """Cheap pre-filter: False means ``migrate_source`` finds nothing to migrate in ``text``: a
    spec keyword's name, or custom_vjp/custom_jvp's positional ``nondiff_argnums`` where the call
    names the transform itself (jit's positional spec is refused anyway)."""
    if any(needle in text for needle in NEEDLES):
        return True
    return (
        any(name in text for name in POSITIONAL_SPECS)
        and _POSITIONAL_NEEDLE.search(text) is not None
    )
