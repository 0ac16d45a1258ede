"""The keyword math: complete static lists, merged with what the user already wrote.

Pure functions over literals. Once both ``static_argnums`` and ``static_argnames`` are
given JAX infers neither from the other, so every list written here is complete; where the
user wrote both, what they say is kept as it is and only the marked parameters are added.
"""

from __future__ import annotations

import ast

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from jaxrewrite.engine import render
from jaxrewrite.engine.classes import ClassInfo
from jaxrewrite.engine.recognise import TransformRef
from jaxrewrite.engine.signature import Kind, Param, Signature
from jaxrewrite.engine.source import Source
from jaxrewrite.engine.table import ClassTransform, Mark, SpecKind, Transform


class _Missing:
    """Marks a keyword value that is not a literal."""


MISSING = _Missing()

Values = list[tuple[str, render.Value, "ast.expr | None"]]


def complete(
    ref: TransformRef, sig: Signature, src: Source, where: ast.expr, force: bool = False
) -> Values | None:
    """The complete keyword values for one transform use, or None when nothing is static for it.

    Each entry is (keyword, value, node): ``node`` is the existing literal that already says
    exactly ``value`` (so it is left alone), else None.
    """
    t = ref.transform
    static = sig.marked(t.markers)
    if not static and not force:
        return None
    for kw in ref.keywords:
        if kw.arg is None:
            raise src.error(
                kw.value,
                "JR109",
                f"cannot merge Static parameters into {t.name} keywords passed as **{ast.unparse(kw.value)}",
            )
    effective = {kw.arg: kw.value for kw in ref.keywords if kw.arg is not None}
    if t.argnames is None:
        for p in static:
            if p.position is None:
                raise src.error(
                    p.node,
                    "JR110",
                    f"{p.name!r} is keyword-only, but {t.name} cannot take it as static: {t.positions_only}; "
                    "make it a positional parameter",
                )
    if not t.arrays_at_static:
        _check_arrays(t, static, sig, src)
    if t.tail_not_static is not None and not sig.var_positional:
        _check_tail(t, t.tail_not_static, static, sig, src)
    _check_donation(t, static, sig, effective, src)
    return _SPEC_MATH[t.spec](_Spec(t, static, sig, effective, src, where))


class _Spec(NamedTuple):
    """One transform use, as the spec math of its kind (``SpecKind``) reads it."""

    t: Transform
    static: tuple[Param, ...]
    sig: Signature
    effective: dict[str, ast.expr]
    src: Source
    where: ast.expr


def _lists(spec: _Spec) -> Values | None:
    """Positions (and names, where the transform takes them), each list complete."""
    t, static, sig, effective, src, _ = spec
    user_nums = literal_ints(effective.get(t.argnums), t.argnums, src)
    user_names = literal_strs(effective.get(t.argnames), t.argnames, src) if t.argnames else ()
    nums = set(user_nums)
    names = set(user_names)
    for p in static:
        if p.position is not None:
            nums.add(p.position)
        if p.kind is Kind.POSITIONAL_OR_KEYWORD or p.kind is Kind.KEYWORD_ONLY:
            names.add(p.name)
    out: Values = []
    if t.argnames is not None and not _both_written(effective, t):
        # Complete both lists: once both are given, JAX infers neither from the other. Where
        # the user gave both, JAX read them apart (a position static only by position, a name
        # only by name), so only the marked parameters join them, each in both.
        for p in sig.params:
            if p.kind is Kind.POSITIONAL_OR_KEYWORD and (p.name in names or p.position in nums):
                names.add(p.name)
                nums.add(p.position)  # type: ignore[arg-type]
    final_nums: render.Value = tuple(sorted(nums))
    out.append((t.argnums, final_nums, _same(effective.get(t.argnums), final_nums)))
    if t.argnames is not None:
        ordered = [
            p.name
            for p in sig.params
            if p.name in names and p.kind is not Kind.VAR_POSITIONAL and p.kind is not Kind.VAR_KEYWORD
        ]
        final_names: render.Value = tuple(ordered + [n for n in user_names if n not in ordered])
        out.append((t.argnames, final_names, _same(effective.get(t.argnames), final_names)))
    return out


def _both_written(effective: dict[str, ast.expr], t: Transform) -> bool:
    """Did the user give both lists (``None`` is not given)? JAX then infers neither from the
    other (``infer_argnums_and_argnames``, unchanged from the floor 0.4.30 to 0.10.2)."""
    return all(
        t_key is not None and t_key in effective and literal(effective[t_key]) is not None
        for t_key in (t.argnums, t.argnames)
    )


def _same(node: ast.expr | None, value: render.Value) -> ast.expr | None:
    """``node`` when its literal already equals ``value`` (as JAX reads it), else None."""
    if node is None:
        return None
    value_read = literal(node)
    if isinstance(value_read, (int, str)) and not isinstance(value_read, bool):
        value_read = (value_read,)
    if value_read is None and value == ():
        return node
    if isinstance(value_read, (tuple, list)) and tuple(value_read) == value:
        return node
    return None


def literal(node: ast.expr) -> object:
    """``ast.literal_eval``, with a fast path for the constants and flat tuples specs are made of."""
    kind = type(node)
    if kind is ast.Constant:
        return node.value  # type: ignore[attr-defined]
    if isinstance(node, (ast.Tuple, ast.List)):
        items = []
        for element in node.elts:
            if type(element) is not ast.Constant:
                break
            items.append(element.value)
        else:
            return tuple(items) if kind is ast.Tuple else items
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return MISSING


def literal_ints(node: ast.expr | None, keyword: str | None, src: Source) -> tuple[int, ...]:
    if node is None:
        return ()
    value = literal(node)
    if value is None:
        return ()
    items = (value,) if isinstance(value, int) else value
    if not isinstance(items, (tuple, list)) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in items
    ):
        raise src.error(
            node,
            "JR111",
            f"{keyword} must be a literal int or tuple of ints to merge with Static parameters, "
            f"not {ast.unparse(node)!r}",
        )
    # Negative numbers stay as written: JAX resolves them against the arguments each call
    # passes, so no fixed parameter (or name) can stand for them.
    return tuple(items)


def literal_strs(node: ast.expr | None, keyword: str | None, src: Source) -> tuple[str, ...]:
    if node is None:
        return ()
    value = literal(node)
    if value is None:
        return ()
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, (tuple, list)) or not all(isinstance(i, str) for i in items):
        raise src.error(
            node,
            "JR111",
            f"{keyword} must be a literal str or tuple of str to merge with Static parameters, "
            f"not {ast.unparse(node)!r}",
        )
    return tuple(items)


def _check_arrays(t: Transform, static: tuple[Param, ...], sig: Signature, src: Source) -> None:
    """custom_vjp/custom_jvp hand their non-differentiable arguments to the rules as Python
    values: an array there becomes a tracer the rules close over under jit."""
    arrays = dict(sig.arrays)
    for p in static:
        if p.name in arrays:
            what = " and ".join(sorted(m.value for m in p.markers & t.markers))
            raise src.error(
                p.node,
                "JR123",
                f"{p.name!r} is {what} but annotated as an array ({arrays[p.name]}); {t.name}'s "
                f"{t.argnums} are for non-array values (under jax.jit an array there becomes a tracer "
                f"the rules close over: UnexpectedTracerError). Drop the marker and pass it as an "
                f"ordinary argument; its bwd rule may return None for it (a zero cotangent)",
            )


def _check_tail(t: Transform, tail: tuple[int, str], static: tuple[Param, ...], sig: Signature, src: Source) -> None:
    count, why = tail
    for p in static:
        if p.position is not None and p.position > 0 and p.position >= sig.n_positional - count:
            raise src.error(
                p.node,
                "JR124",
                f"{p.name!r} cannot be static by position under {t.name}: {why}; make it keyword-only "
                f"(after a '*', it is then static by name), or move it before the last {count} positional parameters",
            )


def _check_donation(
    t: Transform, static: tuple[Param, ...], sig: Signature, effective: dict[str, ast.expr], src: Source
) -> None:
    """A static argument cannot also be donated; JAX would reject or silently mis-handle it."""
    p = donated_static(t, static, effective, src)
    if p is not None:
        raise src.error(
            p.node,
            "JR112",
            f"{p.name!r} is Static and also donated to {t.name}; a static argument cannot be donated",
        )


def donated_static(
    t: Transform, static: Sequence[Param], effective: Mapping[str, ast.expr], src: Source
) -> Param | None:
    """The first of ``static`` that the use's literal donate keywords also donate (shared with migrate)."""
    nums_node = effective.get(t.donate_argnums) if t.donate_argnums else None
    names_node = effective.get(t.donate_argnames) if t.donate_argnames else None
    if nums_node is None and names_node is None:
        return None
    donated_nums = (
        set(literal_ints(nums_node, t.donate_argnums, src))
        if nums_node is not None and literal(nums_node) is not MISSING
        else set()
    )
    donated_names = (
        set(literal_strs(names_node, t.donate_argnames, src))
        if names_node is not None and literal(names_node) is not MISSING
        else set()
    )
    return next((p for p in static if p.position in donated_nums or p.name in donated_names), None)


def _in_axes(spec: _Spec) -> Values | None:
    """vmap-style: ``None`` axes at static positions, merged with a literal ``in_axes``."""
    t, static, sig, effective, src, where = spec
    node = effective.get(t.argnums)
    skip = t.leading_unmapped
    for p in static:
        assert p.position is not None
        if p.position < skip:
            raise src.error(
                p.node,
                "JR113",
                f"{t.name} passes {p.name!r} itself and maps it by its own rules, not by {t.argnums}; "
                f"drop the Static marker",
            )
    positions = {p.position - skip for p in static if p.position is not None}
    if isinstance(node, (ast.Tuple, ast.List)):
        for p in static:
            assert p.position is not None
            at = p.position - skip
            if at >= len(node.elts):
                raise src.error(
                    node,
                    "JR113",
                    f"{t.argnums} has {len(node.elts)} entries, but Static parameter {p.name!r} is at position {at}",
                )
            entry = node.elts[at]
            if not (isinstance(entry, ast.Constant) and entry.value is None):
                raise src.error(
                    entry,
                    "JR113",
                    f"{t.argnums} maps Static parameter {p.name!r} over axis {ast.unparse(entry)}; a static argument needs None",
                )
        return None
    if not static:
        # Per-leaf entries only (the helper is written for them): vmap_leaves keeps each
        # argument's structure with None at its static entries, so whatever ``in_axes`` the
        # user wrote (or vmap's default) still fits, and nothing is added to it.
        return []
    axis = 0 if node is None else literal(node)
    if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
        raise src.error(
            node or where,
            "JR114",
            f"{t.argnums} must be a literal int, None or tuple to merge with Static parameters, not {ast.unparse(node) if node else '?'}",
        )
    if sig.var_positional:
        raise src.error(
            where,
            "JR115",
            f"cannot spell {t.argnums} for a function with *{vararg_name(sig)}: give a literal tuple with None at the Static positions",
        )
    value: render.Value = tuple(None if i in positions else axis for i in range(sig.n_positional - skip))
    return [(t.argnums, value, None)]


_SPEC_MATH: dict[SpecKind, Callable[[_Spec], Values | None]] = {SpecKind.LISTS: _lists, SpecKind.AXES: _in_axes}


def vararg_name(sig: Signature) -> str:
    """The name of ``*args`` for messages (``args`` when there is none); shared with migrate."""
    return next((p.name for p in sig.params if p.kind is Kind.VAR_POSITIONAL), "args")


def registration_values(
    t: ClassTransform, keywords: tuple[ast.keyword, ...], info: ClassInfo, src: Source, where: ast.expr
) -> Values | None:
    """Static fields go to ``meta_fields``, every other init field to ``data_fields``."""
    static = [f for f in info.fields if Mark.STATIC in f.markers]
    if not static:
        return None
    explicit = {kw.arg for kw in keywords} >= {t.data_fields, t.meta_fields}
    for f in info.fields:
        if f.unknown_metadata is not None and not explicit:  # explicit lists: JAX reads no metadata
            raise src.error(
                f.unknown_metadata,
                "JR118",
                f"cannot tell whether field {f.name!r} of {info.name!r} is static: its metadata is not a "
                f"literal; write metadata={{'static': True}} (or False), or annotate it Static[...]",
            )
    for kw in keywords:
        if kw.arg is None:
            raise src.error(
                kw.value,
                "JR109",
                f"cannot merge Static fields into {t.name} keywords passed as **{ast.unparse(kw.value)}",
            )
    effective = {kw.arg: kw.value for kw in keywords if kw.arg is not None}
    user_data = literal_strs(effective.get(t.data_fields), t.data_fields, src)
    user_meta = literal_strs(effective.get(t.meta_fields), t.meta_fields, src)
    dropped = set(literal_strs(effective.get(t.drop_fields), t.drop_fields, src))
    for f in static:
        if f.name in user_data:
            raise src.error(f.node, "JR116", f"field {f.name!r} is Static but listed in {t.data_fields}")
    if t.data_fields in effective and t.meta_fields in effective:
        meta = tuple(user_meta) + tuple(f.name for f in static if f.name not in user_meta)
        data = tuple(user_data)
    else:
        if info.unseen_base is not None:
            raise src.error(
                info.unseen_base,
                "JR117",
                f"cannot see the fields of base class {ast.unparse(info.unseen_base)} of {info.name!r} "
                f"in this module; list {t.data_fields} and {t.meta_fields} explicitly",
            )
        fields = [f for f in info.fields if f.init and f.name not in dropped]
        meta_names = set(user_meta) | {f.name for f in static}
        meta = tuple(f.name for f in fields if f.name in meta_names)
        data = tuple(f.name for f in fields if f.name not in meta_names)
    values: Values = [
        (t.data_fields, data, _same(effective.get(t.data_fields), data)),
        (t.meta_fields, meta, _same(effective.get(t.meta_fields), meta)),
    ]
    if all(node is not None for _, _, node in values):
        return None
    return values
