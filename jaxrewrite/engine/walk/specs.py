"""Each use's spec, by the row's ``spec`` kind (``KINDS``): ``complete`` (the keywords one use
needs, merged with the user's, or the refusal) and ``read`` (JAX's reading of a spec as written,
for migrate and check's trace-time pass). Lists: jit's ``static_argnums``/``static_argnames``;
axes: vmap's ``in_axes``, ``None`` at static positions; diff: grad's ``argnums``, which must leave
marked parameters out. A new kind is a ``table.SpecKind`` member and a ``KINDS`` entry."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from jaxrewrite.engine.read.handwritten import BY_KEYWORD, VARIADIC, Meaning, Reading, Reason
from jaxrewrite.engine.read.literals import (
    MISSING,
    Value,
    Values,
    literal,
    literal_ints,
    literal_strs,
    same,
)
from jaxrewrite.engine.read.signature import Kind, Param, Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import TRANSFORMS, SpecKind, Transform
from jaxrewrite.errors import RewriteError

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

    def given(keyword: str | None) -> ast.expr | None:  # a donation that is no literal: none
        node = effective.get(keyword) if keyword else None
        return None if node is None or literal(node) is MISSING else node

    nums = set(literal_ints(given(t.donate_argnums), t.donate_argnums, src))
    names = set(literal_strs(given(t.donate_argnames), t.donate_argnames, src))
    p = next((p for p in static if p.position in nums or p.name in names), None)
    if p is None:
        return None
    drop = [f"{p.position} from {t.donate_argnums}"] if p.position in nums else []
    drop += [f"{p.name!r} from {t.donate_argnames}"] if p.name in names else []
    return p, f"drop {' and '.join(drop)}"


def vararg_name(sig: Signature) -> str:
    """The name of ``*args`` for messages (``args`` when there is none)."""
    return next((p.name for p in sig.params if p.kind is Kind.VAR_POSITIONAL), "args")


def _complete_lists(use: Use, src: Source) -> Values | None:
    """Positions (and names, where the transform takes them), each list complete."""
    spec = marked(use, src)
    if spec is None:
        return None
    static, effective = spec
    t, sig = use.transform, use.signature
    user_nums = literal_ints(effective.get(t.argnums), t.argnums, src)
    user_names = literal_strs(effective.get(t.argnames), t.argnames, src) if t.argnames else ()
    nums = set(user_nums)
    names = set(user_names)
    for p in static:
        if p.position is not None:
            nums.add(p.position)
        if p.kind in BY_KEYWORD:
            names.add(p.name)
    # Complete both lists: once both are given, JAX infers neither from the other. Where the user
    # gave both (``None`` is not given), JAX read them apart (a position static only by position,
    # a name only by name), so only the marked parameters join them, each in both.
    both = all(
        k in effective and literal(effective[k]) is not None for k in (t.argnums, t.argnames)
    )
    if t.argnames is not None and not both:
        for p in sig.params:
            if p.kind is Kind.POSITIONAL_OR_KEYWORD and (p.name in names or p.position in nums):
                names.add(p.name)
                nums.add(p.position)  # type: ignore[arg-type]
    final_nums: Value = tuple(sorted(nums))
    out: Values = [(t.argnums, final_nums, same(effective.get(t.argnums), final_nums))]
    if t.argnames is not None:
        ordered = [p.name for p in sig.params if p.name in names and p.kind not in VARIADIC]
        final_names: Value = tuple(ordered + [n for n in user_names if n not in ordered])
        out.append((t.argnames, final_names, same(effective.get(t.argnames), final_names)))
    return out


def _given(
    reader: Callable[[ast.expr, str, Source], tuple[T, ...]],
    node: ast.expr | None,
    keyword: str,
    src: Source,
    what: str,
) -> tuple[T, ...] | None:
    """A literal spec read by ``reader``; None when absent or ``None`` (JAX: not given)."""
    if node is None or literal(node) is None:
        return None
    try:
        return reader(node, keyword, src)
    except RewriteError:
        kind = "" if literal(node) is MISSING else f" {what}"
        raise Reason.NON_LITERAL.refused(
            "migrate", keyword=keyword, spec=ast.unparse(node), kind=kind
        ) from None


T = TypeVar("T")
_INTS, _STRS = "int or tuple of ints", "str or tuple of str"


def _check_names(
    names: Iterable[str], sig: Signature, keyword: str, positional: bool = False
) -> None:
    named = {p.name: p for p in sig.params if p.kind not in VARIADIC}
    kwargs = next((p.name for p in sig.params if p.kind is Kind.VAR_KEYWORD), None)
    for name in names:
        p = named.get(name)
        if p is None:
            where = f" (it would be an entry of **{kwargs})" if kwargs else ""
            raise Reason.NOT_IN_SIGNATURE.refused(keyword=keyword, name=name, where=where)
        if p.kind is Kind.POSITIONAL_ONLY:
            raise Reason.NOT_IN_SIGNATURE.refused("positional", keyword=keyword, name=name)
        if positional and p.kind is not Kind.POSITIONAL_OR_KEYWORD:
            raise Reason.NOT_IN_SIGNATURE.refused("keyword", keyword=keyword, name=name)


def _read_lists(use: Use, sig: Signature, src: Source) -> Reading:
    t = use.transform
    found = written(use)
    nums = _given(literal_ints, found.get(t.argnums), t.argnums, src, _INTS)
    names = (
        _given(literal_strs, found.get(t.argnames), t.argnames, src, _STRS) if t.argnames else None
    )
    extra = t.read_also
    extra_positions: tuple[int, ...] = ()
    inferred = False
    if extra is not None and extra[0] in found:
        word, how = extra
        extra_names = _given(literal_strs, found[word], word, src, _STRS)
        if extra_names:
            if how == "refuse":
                raise Reason.UNSUPPORTED.refused(transform=t.name, word=word, keyword=t.argnums)
            _check_names(extra_names, sig, word, positional=True)
            extra_positions = tuple(
                p.position for p in sig.params if p.name in extra_names and p.position is not None
            )
            inferred = True
    for i in nums or ():
        if i < 0:
            raise Reason.NEGATIVE.refused(keyword=t.argnums, i=i)
        if i >= sig.n_positional and sig.var_positional:
            raise Reason.VARARGS.refused(keyword=t.argnums, i=i, vararg=vararg_name(sig))
        if i >= sig.n_positional:
            raise Reason.OUT_OF_RANGE.refused(keyword=t.argnums, i=i, count=sig.n_positional)
    if names is not None and t.argnames is not None:
        _check_names(names, sig, t.argnames)
    if t.argnames is None:
        return Reading({t.argnums: frozenset((*(nums or ()), *extra_positions))}, inferred)
    pok = [p for p in sig.params if p.kind is Kind.POSITIONAL_OR_KEYWORD]
    if nums is None and names is not None:
        nums = tuple(p.position for p in pok if p.name in names and p.position is not None)
        inferred = True
    elif names is None and nums is not None:
        names = tuple(p.name for p in pok if p.position in nums)
        inferred = True
    meaning: Meaning = {t.argnums: frozenset(nums or ()), t.argnames: frozenset(names or ())}
    return Reading(meaning, inferred)


def meaning_of_values(t: Transform, values: Values) -> Meaning:
    """The engine's complete keywords for one use, as a JAX reading."""
    words = {t.argnums, t.argnames} - {None}
    return {k: frozenset(i for i in v if i is not None) for k, v, _ in values if k in words}


def meaning_of_statics(t: Transform, static: Sequence[Param]) -> Meaning:
    """What the engine writes for ``t`` when exactly ``static`` carry its markers."""
    meaning: Meaning = {t.argnums: frozenset(p.position for p in static if p.position is not None)}
    if t.argnames is not None:
        meaning[t.argnames] = frozenset(p.name for p in static if p.kind in BY_KEYWORD)
    return meaning


def static_params(t: Transform, meaning: Meaning, sig: Signature) -> list[Param]:
    nums = meaning.get(t.argnums, frozenset())
    names = meaning.get(t.argnames, frozenset()) if t.argnames else frozenset()
    return [
        p
        for p in sig.params
        if p.kind not in VARIADIC
        and ((p.position is not None and p.position in nums) or p.name in names)
    ]


def _complete_axes(use: Use, src: Source) -> Values | None:
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


def _read_axes(use: Use, sig: Signature, src: Source) -> Reading:
    """The positions the written ``in_axes`` leaves unmapped."""
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


def _complete_diff(use: Use, src: Source) -> Values | None:
    """Nothing to write; JR121 where a marked parameter is differentiated. Located at a call
    site's call (the parameter may be far away), else at the parameter."""
    t, sig, written = use.transform, use.signature, use.written
    call = use.node if use.kind.name == "CALL" else None  # by name: no import of the analysis
    marked = sig.marked(t.markers)
    if not marked:
        return None
    node = {kw.arg: kw.value for kw in written}.get(t.argnums)
    unpacked = next((kw.value for kw in written if kw.arg is None), None)
    if node is None and unpacked is not None:
        raise rules.UNPACKED.error(src, unpacked, "check", transform=t.name)
    nums = literal_ints(node, t.argnums, src) if node is not None else (0,)
    n = sig.n_positional
    for p in marked:
        if p.position is None:
            continue
        for num in nums:
            if num == p.position or (num < 0 and not sig.var_positional and num + n == p.position):
                what = " and ".join(m.value for m in sorted(p.markers, key=lambda m: m.value))
                raise rules.DIFFERENTIATED.error(
                    src,
                    p.node if call is None else call,
                    name=p.name,
                    what=what,
                    transform=t.name,
                    keyword=t.argnums,
                    num=num,
                )
    return None


def _read_diff(use: Use, sig: Signature, src: Source) -> Reading:
    t = use.transform
    raise Reason.UNSUPPORTED.refused("differentiates", transform=t.name, keyword=t.argnums)


KINDS = {
    SpecKind.LISTS: (_complete_lists, _read_lists),
    SpecKind.AXES: (_complete_axes, _read_axes),
    SpecKind.DIFF: (_complete_diff, _read_diff),
}


def complete(use: Use, src: Source) -> Values | None:
    """The keywords to write for one use (its ``values`` as yet unset). With per-leaf entries the
    helper is always written, so there are always values (maybe none to add)."""
    values = KINDS[use.transform.spec][0](use, src)
    if values is None and use.leaves:
        return []
    return values


def read(use: Use, sig: Signature, src: Source) -> Reading:
    """JAX's reading of the spec a use wrote (``Refused`` where no annotation can say the same)."""
    return KINDS[use.transform.spec][1](use, sig, src)


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
    values = (literal(kw.value) for kw in use.written if kw.arg in words)
    return any(value is MISSING or value not in (None, (), []) for value in values)


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
