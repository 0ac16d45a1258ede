"""The lists kind (``SpecKind.LISTS``): positions, and names where the row takes them, as in
jit's ``static_argnums``/``static_argnames``.

Once both lists are given JAX infers neither from the other, so ``complete`` writes both lists
complete; ``read`` is JAX's own reading of a hand-written spec (``infer_argnums_and_argnames``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from jaxrewrite.engine.read.handwritten import (
    BY_KEYWORD,
    VARIADIC,
    Meaning,
    Reading,
    Reason,
)
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
from jaxrewrite.engine.rulebook.table import Transform
from jaxrewrite.engine.walk.specs.base import marked, vararg_name, written
from jaxrewrite.errors import RewriteError

if TYPE_CHECKING:
    from jaxrewrite.engine.analysis import Use


def complete(use: Use, src: Source) -> Values | None:
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
        if p.kind is Kind.POSITIONAL_OR_KEYWORD or p.kind is Kind.KEYWORD_ONLY:
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
        ordered = [
            p.name
            for p in sig.params
            if p.name in names
            and p.kind is not Kind.VAR_POSITIONAL
            and p.kind is not Kind.VAR_KEYWORD
        ]
        final_names: Value = tuple(ordered + [n for n in user_names if n not in ordered])
        out.append((t.argnames, final_names, same(effective.get(t.argnames), final_names)))
    return out


def _read(
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


def _check_positions(nums: Iterable[int], sig: Signature, keyword: str) -> None:
    for i in nums:
        if i < 0:
            raise Reason.NEGATIVE.refused(keyword=keyword, i=i)
        if i >= sig.n_positional:
            if sig.var_positional:
                raise Reason.VARARGS.refused(keyword=keyword, i=i, vararg=vararg_name(sig))
            raise Reason.OUT_OF_RANGE.refused(keyword=keyword, i=i, count=sig.n_positional)


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


def read(use: Use, sig: Signature, src: Source) -> Reading:
    """JAX's reading of the spec a use wrote (``Refused`` where no annotation can say the same)."""
    t = use.transform
    found = written(use)
    nums = _read(literal_ints, found.get(t.argnums), t.argnums, src, _INTS)
    names = (
        _read(literal_strs, found.get(t.argnames), t.argnames, src, _STRS) if t.argnames else None
    )
    extra = t.read_also
    extra_positions: tuple[int, ...] = ()
    inferred = False
    if extra is not None and extra[0] in found:
        word, how = extra
        extra_names = _read(literal_strs, found[word], word, src, _STRS)
        if extra_names:
            if how == "refuse":
                raise Reason.UNSUPPORTED.refused(transform=t.name, word=word, keyword=t.argnums)
            _check_names(extra_names, sig, word, positional=True)
            extra_positions = tuple(
                p.position for p in sig.params if p.name in extra_names and p.position is not None
            )
            inferred = True
    if nums is not None:
        _check_positions(nums, sig, t.argnums)
    if names is not None and t.argnames is not None:
        _check_names(names, sig, t.argnames)
    meaning: Meaning = {}
    if t.argnames is None:
        meaning[t.argnums] = frozenset((*(nums or ()), *extra_positions))
        return Reading(meaning, inferred)
    pok = [p for p in sig.params if p.kind is Kind.POSITIONAL_OR_KEYWORD]
    if nums is None and names is not None:
        nums = tuple(p.position for p in pok if p.name in names and p.position is not None)
        inferred = True
    elif names is None and nums is not None:
        names = tuple(p.name for p in pok if p.position in nums)
        inferred = True
    meaning[t.argnums] = frozenset(nums or ())
    meaning[t.argnames] = frozenset(names or ())
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
