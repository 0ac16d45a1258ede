"""What the spec kinds that write keywords (lists, axes) share: the refusals of marked
parameters."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from jaxrewrite.engine.read.handwritten import Reason
from jaxrewrite.engine.read.literals import MISSING, literal, literal_ints, literal_strs
from jaxrewrite.engine.read.signature import Kind, Param, Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import Transform

if TYPE_CHECKING:
    from jaxrewrite.engine.analysis import Use


def by_name(
    keywords: Sequence[ast.keyword], what: str, transform: str, src: Source
) -> dict[str, ast.expr]:
    """The keywords a call writes by name. A ``**mapping`` is refused (JR109): nothing can be
    merged into keywords nobody can read."""
    for kw in keywords:
        if kw.arg is None:
            raise rules.UNPACKED.error(
                src, kw.value, what=what, transform=transform, mapping=ast.unparse(kw.value)
            )
    return {kw.arg: kw.value for kw in keywords if kw.arg is not None}


def marked(use: Use, src: Source) -> tuple[tuple[Param, ...], dict[str, ast.expr]] | None:
    """The use's marked parameters and the keywords it writes by name, once the shared refusals
    passed; None when nothing is static for it (and no per-leaf entry asks for the keywords)."""
    t, sig = use.transform, use.signature
    static = sig.marked(t.markers)
    if not static and not use.leaves:
        return None
    effective = by_name(use.written, "parameters", t.name, src)
    arrays = dict(sig.arrays)
    for p in static:
        if t.argnames is None and p.position is None:
            raise rules.KEYWORD_ONLY_POSITIONS.error(
                src, p.node, name=p.name, transform=t.name, why=t.positions_only
            )
    for p in static:
        # custom_vjp/custom_jvp hand their non-differentiable arguments to the rules as Python
        # values: an array there becomes a tracer the rules close over under jit.
        if not t.arrays_at_static and p.name in arrays:
            what = " and ".join(sorted(m.value for m in p.markers & t.markers))
            raise rules.ARRAY_NONDIFF.error(
                src,
                p.node,
                name=p.name,
                what=what,
                array=arrays[p.name],
                transform=t.name,
                keyword=t.argnums,
            )
    if t.tail_not_static is not None and not sig.var_positional:
        count, why = t.tail_not_static
        for p in static:
            if p.position is not None and p.position > 0 and p.position >= sig.n_positional - count:
                raise rules.LINEN_TAIL.error(
                    src, p.node, name=p.name, transform=t.name, why=why, count=count
                )
    clash = donation_clash(t, static, effective, src)  # a static argument cannot be donated
    if clash is not None:
        p, remedy = clash
        raise rules.DONATED.error(src, p.node, name=p.name, transform=t.name, remedy=remedy)
    return static, effective


def written(use: Use) -> dict[str, ast.expr]:
    """The keywords a use writes by name, for reading its spec back (``Refused`` at a ``**``)."""
    found: dict[str, ast.expr] = {}
    for kw in use.written:
        if kw.arg is None:
            raise Reason.UNPACKED.refused(
                "migrate", transform=use.transform.name, mapping=ast.unparse(kw.value)
            )
        found[kw.arg] = kw.value
    return found


def donation_clash(
    t: Transform, static: Sequence[Param], effective: Mapping[str, ast.expr], src: Source
) -> tuple[Param, str] | None:
    """The first of ``static`` that the use's literal donate keywords also donate, with the remedy:
    the one donation rule, JR112 here and in migrate."""
    nums_node = effective.get(t.donate_argnums) if t.donate_argnums else None
    names_node = effective.get(t.donate_argnames) if t.donate_argnames else None
    nums: set[int] = set()
    names: set[str] = set()
    if nums_node is not None and literal(nums_node) is not MISSING:
        nums = set(literal_ints(nums_node, t.donate_argnums, src))
    if names_node is not None and literal(names_node) is not MISSING:
        names = set(literal_strs(names_node, t.donate_argnames, src))
    p = next((p for p in static if p.position in nums or p.name in names), None)
    if p is None:
        return None
    drop = [f"{p.position} from {t.donate_argnums}"] if p.position in nums else []
    drop += [f"{p.name!r} from {t.donate_argnames}"] if p.name in names else []
    return p, f"drop {' and '.join(drop)}"


def vararg_name(sig: Signature) -> str:
    """The name of ``*args`` for messages (``args`` when there is none)."""
    return next((p.name for p in sig.params if p.kind is Kind.VAR_POSITIONAL), "args")
