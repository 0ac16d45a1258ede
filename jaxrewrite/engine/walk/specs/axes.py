"""The axes kind (``SpecKind.AXES``): vmap's ``in_axes``, ``None`` at the static positions.

``read``: the positions a hand-written ``in_axes`` leaves unmapped, which reach the function as
they are passed. No ``in_axes`` makes an argument static to jit, so ``keywords`` is empty.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxrewrite.engine.read.handwritten import Meaning, Reading, Reason
from jaxrewrite.engine.read.literals import MISSING, Value, Values, literal
from jaxrewrite.engine.read.signature import Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.walk.specs.base import marked, vararg_name, written

if TYPE_CHECKING:
    from jaxrewrite.engine.analysis import Use


def complete(use: Use, src: Source) -> Values | None:
    spec = marked(use, src)
    if spec is None:
        return None
    static, effective = spec
    t, sig, where = use.transform, use.signature, use.node
    node = effective.get(t.argnums)
    skip = t.leading_unmapped
    for p in static:
        assert p.position is not None
        if p.position < skip:
            raise rules.MAPPED_STATIC.error(
                src, p.node, "lifted", transform=t.name, name=p.name, keyword=t.argnums
            )
    positions = {p.position - skip for p in static if p.position is not None}
    if isinstance(node, (ast.Tuple, ast.List)):
        for p in static:
            assert p.position is not None
            at = p.position - skip
            if at >= len(node.elts):
                raise rules.MAPPED_STATIC.error(
                    src, node, "short", keyword=t.argnums, count=len(node.elts), name=p.name, at=at
                )
            entry = node.elts[at]
            if not (isinstance(entry, ast.Constant) and entry.value is None):
                raise rules.MAPPED_STATIC.error(
                    src, entry, keyword=t.argnums, name=p.name, axis=ast.unparse(entry)
                )
        return None
    if not static:
        # Per-leaf entries only (the helper is written for them): vmap_leaves keeps each
        # argument's structure with None at its static entries, so whatever ``in_axes`` the
        # user wrote (or vmap's default) still fits, and nothing is added to it.
        return []
    axis = 0 if node is None else literal(node)
    if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
        written = ast.unparse(node) if node else "?"
        raise rules.AXES_NOT_LITERAL.error(src, node or where, keyword=t.argnums, spec=written)
    if sig.var_positional:
        raise rules.AXES_VARARGS.error(src, where, keyword=t.argnums, vararg=vararg_name(sig))
    value: Value = tuple(None if i in positions else axis for i in range(sig.n_positional - skip))
    return [(t.argnums, value, None)]


def read(use: Use, sig: Signature, src: Source) -> Reading:
    """The positions the written ``in_axes`` leaves unmapped (``Refused`` where it cannot be
    read)."""
    t = use.transform
    node = written(use).get(t.argnums)
    axes = 0 if node is None else literal(node)
    if axes is MISSING:
        raise Reason.NON_LITERAL.refused(
            "migrate", keyword=t.argnums, spec=ast.unparse(node) if node else "?", kind=""
        )
    if _axis(axes):
        return Reading({t.argnums: frozenset()}, False)
    if not isinstance(axes, (tuple, list)) or sig.var_positional or len(axes) != sig.n_positional:
        raise Reason.UNREADABLE.refused("axes", keyword=t.argnums)
    meaning: Meaning = {t.argnums: frozenset(i for i, axis in enumerate(axes) if not _axis(axis))}
    return Reading(meaning, False)


def _axis(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
