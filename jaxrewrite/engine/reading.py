"""JAX's reading of a hand-written spec (``infer_argnums_and_argnames``: one list given, the
other inferred through positional-or-keyword parameters; both given, each taken as it is),
through the engine's own literal readers: what each use makes static as written.

The one reading shared by ``migrate`` (what a use made static before the migration) and
``check``'s trace-time analysis (which parameters a use traces). A spec no annotation can say
the same as is ``Refused`` with its ``Reason`` (JR2nn).
"""

from __future__ import annotations

import ast
import enum
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from jaxrewrite.engine.keywords import (
    MISSING,
    Values,
    literal,
    literal_ints,
    literal_strs,
    vararg_name,
)
from jaxrewrite.engine.signature import Kind, Param, Signature
from jaxrewrite.engine.source import Source
from jaxrewrite.engine.table import TRANSFORMS, SpecKind, Transform
from jaxrewrite.errors import RewriteError

if TYPE_CHECKING:
    from jaxrewrite.engine.analysis import Use


class Reason(enum.Enum):
    """Why a function (or a spec that names no def of the module) was left as written."""

    NON_LITERAL = "non-literal"
    NOT_IN_SIGNATURE = "not-in-signature"
    NEGATIVE = "negative"
    VARARGS = "varargs"
    OUT_OF_RANGE = "out-of-range"
    ONE_WAY = "one-way"
    DISAGREE = "disagree"
    NOT_LOCAL = "not-a-local-def"
    ALIAS = "alias"
    DONATED = "donated"
    HIDDEN_SIGNATURE = "hidden-signature"
    UNPACKED = "unpacked"
    POSITIONAL = "positional"
    UNSUPPORTED = "unsupported-keyword"
    UNREADABLE = "unreadable"
    MODULE = "module"
    ROUND_TRIP = "round-trip"

    @property
    def code(self) -> str:
        """The finding code (``CODES``): JR201 for the first reason, in declaration order."""
        return _CODE[self]


_CODE: dict[Reason, str] = {reason: f"JR2{index:02d}" for index, reason in enumerate(Reason, start=1)}

class Refused(Exception):
    """Raised inside the planning of one function; becomes its ``Refusal``."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


BY_KEYWORD = (Kind.POSITIONAL_OR_KEYWORD, Kind.KEYWORD_ONLY)
VARIADIC = (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)


def spec_keywords(t: Transform) -> frozenset[str]:
    """The keywords that make arguments static for ``t`` (empty for vmap: ``in_axes=None`` is not static)."""
    if t.spec is not SpecKind.LISTS:
        return frozenset()
    words = {t.argnums}
    if t.argnames is not None:
        words.add(t.argnames)
    if t.read_also is not None:
        words.add(t.read_also[0])
    return frozenset(words)


#: The names of the rows whose spec may be passed by position (``Transform.spec_by_position``).
POSITIONAL_SPECS = frozenset(name for name, row in TRANSFORMS.items() if row.spec_by_position)

#: Every spec keyword of the table: a file that mentions none has no keyword spec.
NEEDLES: tuple[str, ...] = tuple(sorted({word for t in TRANSFORMS.values() for word in spec_keywords(t)}))
#: A call of custom_vjp/custom_jvp by that name with a second argument: a positional spec.
_POSITIONAL_NEEDLE = re.compile(r"\b(?:" + "|".join(sorted(POSITIONAL_SPECS)) + r")\s*\([^()]*,")


def may_need_migration(text: str) -> bool:
    """Cheap pre-filter: False means ``migrate_source`` finds nothing to migrate in ``text``.

    A spec is a keyword, whose name is then in the text, or custom_vjp/custom_jvp's positional
    ``nondiff_argnums``, looked for where the call names the transform itself (an alias of it
    passing the spec by position is not looked for, and so left as written). jit's positional
    spec is refused anyway.
    """
    if any(needle in text for needle in NEEDLES):
        return True
    return any(name in text for name in POSITIONAL_SPECS) and _POSITIONAL_NEEDLE.search(text) is not None


# -- JAX's reading of a spec ----------------------------------------------------------------------

Meaning = dict[str, frozenset[int | str]]


@dataclass(frozen=True)
class Reading:
    """What a use's spec makes static, per keyword of the transform table, as JAX reads it."""

    meaning: Meaning
    #: JAX inferred one list from the signature it was handed.
    inferred: bool



def _effective(use: Use) -> dict[str, ast.expr]:
    keywords: dict[str, ast.expr] = {}
    for kw in use.written:
        if kw.arg is None:
            raise Refused(
                Reason.UNPACKED,
                f"{use.transform.name} arguments passed as **{ast.unparse(kw.value)} may hold a spec",
            )
        keywords[kw.arg] = kw.value
    return keywords


def _ints(node: ast.expr | None, keyword: str, src: Source) -> tuple[int, ...] | None:
    """The engine's reading of a literal int spec; None when absent or ``None`` (JAX: not given)."""
    return _read(literal_ints, node, keyword, src, "int or tuple of ints")


def _strs(node: ast.expr | None, keyword: str, src: Source) -> tuple[str, ...] | None:
    return _read(literal_strs, node, keyword, src, "str or tuple of str")


T = TypeVar("T")


def _read(
    reader: Callable[[ast.expr, str, Source], tuple[T, ...]], node: ast.expr | None, keyword: str, src: Source, what: str
) -> tuple[T, ...] | None:
    if node is None or literal(node) is None:
        return None
    try:
        return reader(node, keyword, src)
    except RewriteError:
        raise Refused(Reason.NON_LITERAL, _not_literal(node, keyword, what)) from None


def _not_literal(node: ast.expr, keyword: str, what: str) -> str:
    kind = "" if literal(node) is MISSING else f" {what}"
    return f"{keyword}={ast.unparse(node)} is not a literal{kind}"


def _check_positions(nums: Iterable[int], sig: Signature, keyword: str) -> None:
    for i in nums:
        if i < 0:
            raise Refused(
                Reason.NEGATIVE,
                f"{keyword} has {i}: JAX counts it from the end of each call's positional arguments, "
                "so no one parameter stands for it",
            )
        if i >= sig.n_positional:
            if sig.var_positional:
                raise Refused(Reason.VARARGS, f"{keyword} has {i}, which falls into *{vararg_name(sig)}")
            raise Refused(
                Reason.OUT_OF_RANGE,
                f"{keyword} has {i}, but the function takes {sig.n_positional} positional parameters",
            )


def _check_names(names: Iterable[str], sig: Signature, keyword: str, positional: bool = False) -> None:
    named = {p.name: p for p in sig.params if p.kind not in VARIADIC}
    kwargs = next((p.name for p in sig.params if p.kind is Kind.VAR_KEYWORD), None)
    for name in names:
        p = named.get(name)
        if p is None:
            where = f" (it would be an entry of **{kwargs})" if kwargs else ""
            raise Refused(Reason.NOT_IN_SIGNATURE, f"{keyword} names {name!r}, which is not a parameter{where}")
        if p.kind is Kind.POSITIONAL_ONLY:
            raise Refused(Reason.NOT_IN_SIGNATURE, f"{keyword} names {name!r}, which is positional-only")
        if positional and p.kind is not Kind.POSITIONAL_OR_KEYWORD:
            raise Refused(Reason.NOT_IN_SIGNATURE, f"{keyword} names {name!r}, which is keyword-only: JAX ignores it")


def read_spec(use: Use, sig: Signature, src: Source) -> Reading:
    """JAX's reading of the spec a use wrote (``Refused`` where no annotation can say the same)."""
    t = use.transform
    keywords = _effective(use)
    nums = _ints(keywords.get(t.argnums), t.argnums, src)
    names = _strs(keywords.get(t.argnames), t.argnames, src) if t.argnames is not None else None
    extra = t.read_also
    extra_positions: tuple[int, ...] = ()
    inferred = False
    if extra is not None and extra[0] in keywords:
        word, how = extra
        extra_names = _strs(keywords[word], word, src)
        if extra_names:
            if how == "refuse":
                raise Refused(
                    Reason.UNSUPPORTED,
                    f"{t.name}'s {word} is honoured by JAX only in some configurations; the engine writes "
                    f"{t.argnums} alone",
                )
            _check_names(extra_names, sig, word, positional=True)
            extra_positions = tuple(p.position for p in sig.params if p.name in extra_names and p.position is not None)
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
    """The engine's complete keywords for one use, as the same kind of value as a JAX reading."""
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
        if p.kind not in VARIADIC and ((p.position is not None and p.position in nums) or p.name in names)
    ]


def sorted_values(values: frozenset[int | str]) -> tuple[int | str, ...]:
    return tuple(sorted(values, key=lambda v: (isinstance(v, str), v)))


def spell(meaning: Meaning) -> str:
    """``static_argnums=(1,), static_argnames=('n',)``, or ``nothing static``."""
    return ", ".join(f"{k}={sorted_values(v)!r}" for k, v in sorted(meaning.items()) if v) or "nothing static"


def has_spec(use: Use) -> bool:
    """Does the use write a spec that makes something static (or may: a non-literal one)?"""
    words = spec_keywords(use.transform)
    for kw in use.written:
        if kw.arg in words:
            value = literal(kw.value)
            if value is MISSING or (value is not None and value != () and value != []):
                return True
    return False
