"""Migration planning: hand-written static specs in, ``Static``/``NoDiff`` annotations out.

Pure, like the rest of the engine: text in, a ``Migration`` (the migrated text, what was migrated,
what was refused and why) out; ``jaxrewrite migrate`` reads and writes the files.

Two readers meet here, and a function is migrated only where they agree on every one of its
transform uses. What a hand-written spec means is JAX's rule (``infer_argnums_and_argnames``: one
list given, the other inferred through positional-or-keyword parameters; both given, each taken as
it is). What the annotations will mean is the engine's own answer: ``migrate_source`` analyzes the
migrated text exactly as the import hook will and compares the keywords it would write, use by use
(the round trip). The planner's own checks only give the refusals their readable reasons; the round
trip is what guarantees nothing changes meaning.
"""

from __future__ import annotations

import ast
import bisect
import enum
import io
import re
import tokenize
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from jaxrewrite.engine import splice
from jaxrewrite.engine.analyze import Analysis, Use, UseKind, analyze, collector_paused
from jaxrewrite.engine.filters import EXHAUSTIVE
from jaxrewrite.engine.header import PRAGMA
from jaxrewrite.engine.keywords import MISSING, Values, literal
from jaxrewrite.engine.signature import Kind, Param, Signature
from jaxrewrite.engine.source import Source
from jaxrewrite.engine.table import TRANSFORMS, Mark, SpecKind, Transform

Function = ast.FunctionDef | ast.AsyncFunctionDef


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


#: One line per reason, for summaries (``jaxrewrite migrate`` prints the counts with these).
REASONS: dict[Reason, str] = {
    Reason.NON_LITERAL: "a spec that is not a literal",
    Reason.NOT_IN_SIGNATURE: "a name that is not a parameter JAX can take by keyword",
    Reason.NEGATIVE: "a negative position (JAX resolves it per call)",
    Reason.VARARGS: "a position that falls into *args",
    Reason.OUT_OF_RANGE: "a position past the parameters (JAX rejects it)",
    Reason.ONE_WAY: "static only by position, or only by keyword",
    Reason.DISAGREE: "a function given different statics by two transforms or call sites",
    Reason.NOT_LOCAL: "a call site whose function is not a def of this module",
    Reason.ALIAS: "a spec written in an alias that other uses share",
    Reason.DONATED: "a static argument that is also donated",
    Reason.HIDDEN_SIGNATURE: "a decorator between the transform and the def hides the signature JAX infers from",
    Reason.UNPACKED: "transform arguments passed as **mapping",
    Reason.POSITIONAL: "a spec passed by position",
    Reason.UNSUPPORTED: "a spec keyword the transform table does not write",
    Reason.UNREADABLE: "a use the analysis cannot read",
    Reason.MODULE: "the module header cannot take the pragma, or enabling it changes other code",
    Reason.ROUND_TRIP: "the migrated module does not rewrite to the same statics",
}

#: Spec keywords JAX reads that the transform table does not write: how each is migrated.
#: ``positions``: names converted to positions by JAX itself (custom_vjp's ``nondiff_argnames``);
#: ``refuse``: honoured only in some JAX configurations (checkpoint's ``static_argnames``).
EXTRA_KEYWORDS: dict[str, tuple[str, str]] = {
    "custom_vjp": ("nondiff_argnames", "positions"),
    "custom_jvp": ("nondiff_argnames", "positions"),
    "checkpoint": ("static_argnames", "refuse"),
    "remat": ("static_argnames", "refuse"),
}

_BY_KEYWORD = (Kind.POSITIONAL_OR_KEYWORD, Kind.KEYWORD_ONLY)
_VARIADIC = (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)


def spec_keywords(t: Transform) -> frozenset[str]:
    """The keywords that make arguments static for ``t`` (empty for vmap: ``in_axes=None`` is not static)."""
    if t.spec is not SpecKind.LISTS:
        return frozenset()
    words = {t.argnums}
    if t.argnames is not None:
        words.add(t.argnames)
    extra = EXTRA_KEYWORDS.get(t.name)
    if extra is not None:
        words.add(extra[0])
    return frozenset(words)


#: Transforms whose spec may be passed by position and is migrated so (custom_vjp's
#: ``nondiff_argnums``); jit's positional spec is refused: it is keyword-only in current JAX.
POSITIONAL_SPECS = frozenset({"custom_vjp", "custom_jvp"})

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


# -- the result -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class UseRecord:
    """One transform use of a migrated function: where it is, and what its spec meant to JAX."""

    transform: str
    kind: str  # "decorator" or "call"
    #: Where the use's expression starts and ends in the original text (AST lines and columns).
    line: int
    col: int
    end_line: int
    end_col: int
    #: The line the use starts on in the migrated text.
    new_line: int
    #: Each static keyword of the transform and the positions or names it gave, JAX's reading.
    spec: tuple[tuple[str, tuple[int | str, ...]], ...]
    #: Whether the user wrote the spec here (False: a use without one, which must stay without).
    written: bool


@dataclass(frozen=True)
class Migrated:
    """A function whose hand-written specs became annotations."""

    function: str
    line: int
    new_line: int
    #: (parameter, marker) for every annotation added.
    params: tuple[tuple[str, str], ...]
    uses: tuple[UseRecord, ...]

    def __str__(self) -> str:
        added = ", ".join(f"{name}: {marker}" for name, marker in self.params) or "nothing to add"
        n = sum(use.written for use in self.uses)
        return f"{self.line}: migrated {self.function}: {added} ({n} spec{'s' if n != 1 else ''} removed)"


@dataclass(frozen=True)
class Refusal:
    """A function left as written (``function`` None: a spec on no def of the module, or the module)."""

    reason: Reason
    message: str
    line: int
    function: str | None = None

    def __str__(self) -> str:
        what = f"refused {self.function}" if self.function is not None else "refused"
        return f"{self.line}: {what}: {self.message} [{self.reason.value}]"


@dataclass
class Migration:
    """A module's migration: the text to write, and a report."""

    original: str
    text: str
    migrated: list[Migrated] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.text != self.original

    def report(self) -> list[str]:
        """Every migration and refusal, one line each, in source order."""
        items: list[tuple[int, int, str]] = [(m.line, 0, str(m)) for m in self.migrated]
        items += [(r.line, 1, str(r)) for r in self.refused]
        return [text for _, _, text in sorted(items)]


class Refused(Exception):
    """Raised inside the planning of one function; becomes its ``Refusal``."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


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


def _literal_items(node: ast.expr | None, keyword: str, kind: type) -> tuple[object, ...] | None:
    """A literal int/str or sequence of them; None when absent or ``None`` (JAX: not given)."""
    if node is None:
        return None
    value = literal(node)
    if value is None:
        return None
    if value is MISSING:
        raise Refused(Reason.NON_LITERAL, f"{keyword}={ast.unparse(node)} is not a literal")
    items = (value,) if isinstance(value, kind) else value
    if not isinstance(items, (tuple, list)) or not all(
        isinstance(i, kind) and not isinstance(i, bool) for i in items
    ):
        what = "int or tuple of ints" if kind is int else "str or tuple of str"
        raise Refused(Reason.NON_LITERAL, f"{keyword}={ast.unparse(node)} is not a literal {what}")
    return tuple(items)


def _ints(node: ast.expr | None, keyword: str) -> tuple[int, ...] | None:
    items = _literal_items(node, keyword, int)
    return None if items is None else tuple(i for i in items if isinstance(i, int))


def _strs(node: ast.expr | None, keyword: str) -> tuple[str, ...] | None:
    items = _literal_items(node, keyword, str)
    return None if items is None else tuple(i for i in items if isinstance(i, str))


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
                raise Refused(Reason.VARARGS, f"{keyword} has {i}, which falls into *{_vararg(sig)}")
            raise Refused(
                Reason.OUT_OF_RANGE,
                f"{keyword} has {i}, but the function takes {sig.n_positional} positional parameters",
            )


def _check_names(names: Iterable[str], sig: Signature, keyword: str, positional: bool = False) -> None:
    named = {p.name: p for p in sig.params if p.kind not in _VARIADIC}
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


def read_spec(use: Use, sig: Signature) -> Reading:
    """JAX's reading of the spec a use wrote (``Refused`` where no annotation can say the same)."""
    t = use.transform
    assert isinstance(t, Transform)
    keywords = _effective(use)
    nums = _ints(keywords.get(t.argnums), t.argnums)
    names = _strs(keywords.get(t.argnames), t.argnames) if t.argnames is not None else None
    extra = EXTRA_KEYWORDS.get(t.name)
    extra_positions: tuple[int, ...] = ()
    inferred = False
    if extra is not None and extra[0] in keywords:
        word, how = extra
        extra_names = _strs(keywords[word], word)
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
        meaning[t.argnames] = frozenset(p.name for p in static if p.kind in _BY_KEYWORD)
    return meaning


def _static_params(t: Transform, meaning: Meaning, sig: Signature) -> list[Param]:
    nums = meaning.get(t.argnums, frozenset())
    names = meaning.get(t.argnames, frozenset()) if t.argnames else frozenset()
    return [
        p
        for p in sig.params
        if p.kind not in _VARIADIC and ((p.position is not None and p.position in nums) or p.name in names)
    ]


def _vararg(sig: Signature) -> str:
    return next((p.name for p in sig.params if p.kind is Kind.VAR_POSITIONAL), "args")


def _sorted(values: frozenset[int | str]) -> tuple[int | str, ...]:
    return tuple(sorted(values, key=lambda v: (isinstance(v, str), v)))


def _spell(meaning: Meaning) -> str:
    """``static_argnums=(1,), static_argnames=('n',)``, or ``nothing static``."""
    return ", ".join(f"{k}={_sorted(v)!r}" for k, v in sorted(meaning.items()) if v) or "nothing static"


# -- planning -------------------------------------------------------------------------------------


@dataclass
class PlannedFunction:
    """One function to migrate: its uses, the markers to add, and what each use meant before."""

    func: Function
    sig: Signature
    uses: list[Use]
    candidates: list[Use]
    #: Parameter name -> the marker to add.
    marks: dict[str, Mark]
    #: id(use) -> its meaning before (a JAX reading, or the engine's keywords where it already rewrote).
    before: dict[int, Meaning]
    #: id(use) of the uses whose spec is removed.
    written: set[int]


@dataclass
class Plan:
    """What ``plan_migration`` decided: the edits, and per function migrated or refused."""

    edits: list[splice.Edit]
    planned: list[PlannedFunction]
    refused: list[Refusal]
    #: The marker spelling per mark used in the edits.
    spelling: dict[Mark, str]


def _uses_by_function(analysis: Analysis) -> dict[int, list[Use]]:
    by_def: dict[int, list[Use]] = {}
    for use in analysis.uses:
        if use.signature is None or isinstance(use.target, ast.ClassDef):
            continue
        by_def.setdefault(id(use.target), []).append(use)
    return by_def


def _has_spec(use: Use) -> bool:
    """Does the use write a spec that makes something static (or may: a non-literal one)?"""
    if not isinstance(use.transform, Transform):
        return False
    words = spec_keywords(use.transform)
    for kw in use.written:
        if kw.arg in words:
            value = literal(kw.value)
            if value is MISSING or (value is not None and value != () and value != []):
                return True
    return False


class _Calls:
    """Where each keyword and positional argument written inside one use's expression sits."""

    def __init__(self, node: ast.expr) -> None:
        self.keyword: dict[int, ast.Call] = {}
        self.positional: dict[int, tuple[ast.Call, int]] = {}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                for kw in sub.keywords:
                    self.keyword[id(kw)] = sub
                for index, arg in enumerate(sub.args):
                    self.positional[id(arg)] = (sub, index)


def _removals(use: Use, src: Source) -> dict[int, tuple[ast.Call, set[int]]]:
    """The spec items to delete, per call inside the use: Refused when one is not written there."""
    t = use.transform
    assert isinstance(t, Transform)
    words = spec_keywords(t)
    calls = _Calls(use.node)
    out: dict[int, tuple[ast.Call, set[int]]] = {}
    for kw in use.written:
        if kw.arg not in words:
            continue
        call = calls.keyword.get(id(kw))
        if call is not None:
            out.setdefault(id(call), (call, set()))[1].add(id(kw))
            continue
        found = calls.positional.get(id(kw.value))
        if found is not None:
            call, index = found
            if t.name not in POSITIONAL_SPECS:
                raise Refused(
                    Reason.POSITIONAL,
                    f"{kw.arg} is passed to {t.name} by position; write it as a keyword first",
                )
            out.setdefault(id(call), (call, set()))[1].add(id(kw.value))
            continue
        raise Refused(
            Reason.ALIAS,
            f"{kw.arg} is written in an alias (line {kw.value.lineno}) that {src.segment(use.node).strip()!r} "
            "refers to; removing it there would change every use of the alias",
        )
    for call, removed in out.values():
        kept_after = False
        for arg in reversed(call.args):
            if id(arg) in removed and kept_after:
                raise Refused(
                    Reason.POSITIONAL,
                    f"a spec is passed to {t.name} by position before other positional arguments",
                )
            if id(arg) not in removed:
                kept_after = True
    return out


def _below(use: Use, func: Function, nodes: set[int]) -> list[ast.expr]:
    """Decorators applied before this one that are not transforms of the table (which keep the
    signature visible through ``functools.wraps``)."""
    if use.kind is UseKind.CALL:
        assert isinstance(use.node, ast.Call)
        first = use.node.args[0]
        while isinstance(first, ast.Call) and id(first) in nodes and first.args:
            first = first.args[0]  # ``jax.jit(jax.vmap(f), ...)``: a transform of the table in between
        return [] if isinstance(first, ast.Name) else [first]
    index = next(i for i, deco in enumerate(func.decorator_list) if deco is use.node)
    return [deco for deco in func.decorator_list[index + 1 :] if id(deco) not in nodes]


def _plan_function(func: Function, uses: list[Use], enabled: bool, src: Source) -> PlannedFunction:
    """Read every spec on one def, choose the markers, and check every use agrees (``Refused``)."""
    sig = uses[0].signature
    assert sig is not None
    candidates = [use for use in uses if _has_spec(use)]
    transform_nodes = {id(use.node) for use in uses}
    before: dict[int, Meaning] = {}
    statics: dict[str, Mark] = {}
    if any(use.leaves for use in uses):
        raise Refused(Reason.DISAGREE, f"{func.name!r} already has per-leaf statics")
    for use in candidates:
        t = use.transform
        assert isinstance(t, Transform)
        _removals(use, src)
        reading = read_spec(use, sig)
        meaning = reading.meaning
        if enabled and use.values is not None:
            meaning = meaning_of_values(t, use.values)  # what the hook compiles today
        if reading.inferred:
            hidden = _below(use, func, transform_nodes)
            if hidden:
                raise Refused(
                    Reason.HIDDEN_SIGNATURE,
                    f"{t.name} infers its static names from the signature of {ast.unparse(hidden[0])!r}, "
                    "which the source does not show",
                )
        params = _static_params(t, meaning, sig)
        for p in params:
            by_position = p.position is None or p.position in meaning.get(t.argnums, ())
            by_name = t.argnames is None or p.kind not in _BY_KEYWORD or p.name in meaning.get(t.argnames, ())
            if not (by_position and by_name):
                how = "position" if by_position else "keyword"
                missing = t.argnames if by_position else t.argnums
                raise Refused(
                    Reason.ONE_WAY,
                    f"{p.name!r} is static only when passed by {how} ({missing} leaves it out); "
                    "an annotation makes it static both ways",
                )
        _check_donation(use, t, params)
        mark = Mark.NODIFF if Mark.NODIFF in t.markers else Mark.STATIC
        for p in params:
            if statics.get(p.name) is not Mark.STATIC:
                statics[p.name] = mark
        before[id(use)] = meaning
    marks = {name: mark for name, mark in statics.items() if not _carries(_param(sig, name), mark)}
    for use in uses:
        _check_agreement(use, sig, marks, before, enabled)
    return PlannedFunction(func, sig, uses, candidates, marks, before, {id(use) for use in candidates})


def _param(sig: Signature, name: str) -> Param:
    return next(p for p in sig.params if p.name == name)


def _carries(p: Param, mark: Mark) -> bool:
    """Does the annotation already say it (Static counts for NoDiff: custom_vjp reads both)?"""
    return mark in p.markers or (mark is Mark.NODIFF and Mark.STATIC in p.markers)


def _after_markers(p: Param, marks: Mapping[str, Mark]) -> frozenset[Mark]:
    new = marks.get(p.name)
    return p.markers | ({new} if new is not None else set())


def _check_donation(use: Use, t: Transform, params: list[Param]) -> None:
    keywords = {kw.arg: kw.value for kw in use.written if kw.arg is not None}
    donated: set[int | str] = set()
    for word in (t.donate_argnums, t.donate_argnames):
        node = keywords.get(word) if word is not None else None
        value = literal(node) if node is not None else None
        if isinstance(value, (int, str)):
            donated.add(value)
        elif isinstance(value, (tuple, list)):
            donated.update(v for v in value if isinstance(v, (int, str)))
    for p in params:
        if p.name in donated or p.position in donated:
            raise Refused(Reason.DONATED, f"{p.name!r} is static and also donated to {t.name}")


def _check_agreement(
    use: Use,
    sig: Signature,
    marks: Mapping[str, Mark],
    before: dict[int, Meaning],
    enabled: bool,
) -> None:
    """Every transform use of the function must mean after the migration what it meant before."""
    t = use.transform
    assert isinstance(t, Transform)
    where = f"the {t.name} {'call' if use.kind is UseKind.CALL else 'decorator'} at line {use.node.lineno}"
    after_static = [p for p in sig.params if _after_markers(p, marks) & t.markers]
    if t.spec is SpecKind.AXES:
        was = {p.name for p in sig.params if enabled and p.markers & t.markers}
        new = [p for p in after_static if p.name not in was]
        axes = next((kw.value for kw in reversed(use.written) if kw.arg == t.argnums), None)
        for p in new:
            entry_none = (
                isinstance(axes, (ast.Tuple, ast.List))
                and p.position is not None
                and p.position < len(axes.elts)
                and isinstance(axes.elts[p.position], ast.Constant)
                and axes.elts[p.position].value is None  # type: ignore[attr-defined]
            )
            if not entry_none:
                raise Refused(
                    Reason.DISAGREE,
                    f"{where} would change: marking {p.name!r} Static makes its in_axes entry None",
                )
        return
    if t.spec is not SpecKind.LISTS:
        # A transform that writes nothing for markers (grad's argnums lists what it differentiates):
        # its meaning cannot change; a conflict with a marker is an engine error the round trip reports.
        return
    if any(kw.arg is None for kw in use.written):
        unpacked = next(kw for kw in use.written if kw.arg is None)
        raise Refused(Reason.UNPACKED, f"{where} passes **{ast.unparse(unpacked.value)}, which may hold a spec")
    if id(use) not in before:
        if enabled and use.values is not None:
            before[id(use)] = meaning_of_values(t, use.values)
        else:
            try:
                before[id(use)] = read_spec(use, sig).meaning
            except Refused as why:
                raise Refused(Reason.DISAGREE, f"{where} cannot be read: {why.message}") from None
    for p in after_static:
        if t.argnames is None and p.position is None:
            raise Refused(
                Reason.DISAGREE, f"{where} takes static arguments by position only, but {p.name!r} is keyword-only"
            )
    after = meaning_of_statics(t, after_static)
    was_meaning = {k: v for k, v in before[id(use)].items() if v}
    if was_meaning != {k: v for k, v in after.items() if v}:
        raise Refused(
            Reason.DISAGREE,
            f"{where} says {_spell(before[id(use)])}, but the annotations would give it {_spell(after)}",
        )


def plan_migration(
    analysis: Analysis, excluded: Mapping[int, Refusal] | None = None, module: ModuleText | None = None
) -> Plan:
    """Decide, per function, migrate or refuse, and spell the edits; pure.

    ``excluded`` maps ``id(def)`` to a refusal found by an earlier round trip; ``module`` is the
    parsed text, when the caller has it already.
    """
    excluded = excluded or {}
    src = analysis.source
    enabled = analysis.header.enabled
    planned: list[PlannedFunction] = []
    refused: list[Refusal] = []
    for uses in _uses_by_function(analysis).values():
        func = uses[0].target
        assert not isinstance(func, ast.ClassDef)
        if not any(_has_spec(use) for use in uses):
            continue
        if id(func) in excluded:
            refused.append(excluded[id(func)])
            continue
        try:
            planned.append(_plan_function(func, uses, enabled, src))
        except Refused as why:
            refused.append(Refusal(why.reason, why.message, func.lineno, func.name))
    if not planned:
        return Plan([], [], refused, {})
    module = ModuleText(src) if module is None else module
    try:
        module_edits, spelling = module.header_edits(
            analysis,
            {mark for p in planned for mark in p.marks.values()},
            enabled,
            {id(use) for p in planned for use in p.uses},
        )
    except Refused as why:
        refused += [Refusal(why.reason, why.message, p.func.lineno, p.func.name) for p in planned]
        return Plan([], [], refused, {})
    edits = list(module_edits)
    for p in planned:
        edits += _function_edits(p, src, spelling)
    return Plan(edits, planned, refused, spelling)


# -- spelling the edits ---------------------------------------------------------------------------


def _function_edits(p: PlannedFunction, src: Source, spelling: Mapping[Mark, str]) -> list[splice.Edit]:
    edits: list[splice.Edit] = []
    for use in p.candidates:
        edits += _use_edits(use, src)
    for param in p.sig.params:
        mark = p.marks.get(param.name)
        if mark is not None:
            edits += _annotate(param, p.func, spelling[mark], src)
    return edits


def _annotate(p: Param, func: Function, marker: str, src: Source) -> list[splice.Edit]:
    """``x`` -> ``x: Static``, ``x: int`` -> ``x: Static[int]``, ``n=3`` -> ``n: Static = 3``."""
    arg = p.node
    if arg.annotation is not None:
        start, end = src.start(arg.annotation), src.end(arg.annotation)
        return [splice.Edit(start, start, f"{marker}["), splice.Edit(end, end, "]")]
    end = src.end(arg)
    edits = [splice.Edit(end, end, f": {marker}")]
    default = _default(func.args, arg)
    if default is not None:
        at = src.start(default)
        if src.text[end:at] == "=":
            edits.append(splice.Edit(end, at, " = "))  # PEP 8 spacing once the parameter is annotated
    return edits


def _default(args: ast.arguments, arg: ast.arg) -> ast.expr | None:
    positional = [*args.posonlyargs, *args.args]
    for index, other in enumerate(positional):
        if other is arg:
            offset = index - (len(positional) - len(args.defaults))
            return args.defaults[offset] if offset >= 0 else None
    for other, value in zip(args.kwonlyargs, args.kw_defaults):
        if other is arg:
            return value
    return None


def _use_edits(use: Use, src: Source) -> list[splice.Edit]:
    """Delete the spec where it is written; a partial or factory left with only the transform
    becomes the transform itself (``@partial(jax.jit, static_argnums=1)`` -> ``@jax.jit``)."""
    removals = _removals(use, src)
    top = _collapsible(use)
    edits: list[splice.Edit] = []
    for call, removed in removals.values():
        items = _items_of(call, src)
        kept = [item for item in items if id(item) not in removed]
        if call is top and not _has_comment(src.segment(call)):
            if use.factory and not kept:
                edits.append(splice.Edit(src.start(call), src.end(call), src.segment(call.func)))
                continue
            if not use.factory and len(kept) == 1 and kept[0] is call.args[0]:
                edits.append(splice.Edit(src.start(call), src.end(call), src.segment(call.args[0])))
                continue
        edits += _delete_items(call, items, removed, src)
    return edits


def _collapsible(use: Use) -> ast.Call | None:
    """The partial (``partial(T, ...)``) or factory (``T(...)``) call that names the transform."""
    node = use.node
    if use.kind is UseKind.CALL:
        assert isinstance(node, ast.Call)
        node = node.func
    return node if isinstance(node, ast.Call) else None


def _items_of(call: ast.Call, src: Source) -> list[ast.AST]:
    return sorted([*call.args, *call.keywords], key=src.start)


def _delete_items(call: ast.Call, items: list[ast.AST], removed: set[int], src: Source) -> list[splice.Edit]:
    """Delete runs of items with one separator each; comments inside a deleted span stay.

    A run that fills whole lines (one argument a line) goes with its lines; otherwise it goes with
    the separator after it, or before it when it ends the call.
    """
    edits: list[splice.Edit] = []
    text = src.text
    index = 0
    while index < len(items):
        if id(items[index]) not in removed:
            index += 1
            continue
        first = index
        while index < len(items) and id(items[index]) in removed:
            index += 1
        last = index - 1
        lines = _whole_lines(text, src.start(items[first]), src.end(items[last]))
        if lines is not None:
            start, end = lines
            indent = text[start : src.start(items[first])]
            comments = _comments(text[start:end]) if "#" in text[start:end] else []
            newline = "\r\n" if text.endswith("\r\n", start, end) else "\n"
            edits.append(splice.Edit(start, end, "".join(indent + c + newline for c in comments)))
            continue
        if index < len(items):  # a kept item follows: take the separator after the run
            start, end = src.start(items[first]), src.start(items[index])
        elif first > 0:  # the run ends the call: take the separator before it
            start, end = src.end(items[first - 1]), src.end(items[last])
        else:  # nothing is left: empty the parentheses
            start = text.index("(", src.end(call.func)) + 1
            end = src.end(call) - 1
        edits.append(splice.Edit(start, end, _kept_comments(text, start, end)))
    return edits


_REST_OF_LINE = re.compile(r"[ \t]*,?[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n)")


def _whole_lines(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of whole lines holding ``text[start:end]``, if nothing else is on them but
    indentation, one trailing comma and a comment."""
    line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    if text[line_start:start].strip(" \t"):
        return None
    rest = _REST_OF_LINE.match(text, end)
    return None if rest is None else (line_start, rest.end())


def _has_comment(fragment: str) -> bool:
    return "#" in fragment and bool(_comments(fragment))


def _comments(fragment: str) -> list[str]:
    found: list[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO("(" + fragment + "\n)").readline):
            if tok.type == tokenize.COMMENT:
                found.append(tok.string)
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def _kept_comments(text: str, start: int, end: int) -> str:
    """What replaces a deleted span: nothing, or its comments, each on its own line."""
    fragment = text[start:end]
    if "#" not in fragment:
        return ""
    comments = _comments(fragment)
    if not comments:
        return ""
    line_start = text.rfind("\n", 0, start) + 1
    lead = "" if not text[line_start:start].strip() else "  "
    indent_at = fragment.rfind("\n")
    indent = fragment[indent_at + 1 :] if indent_at >= 0 and not fragment[indent_at + 1 :].strip() else ""
    newline = "\r\n" if "\r\n" in fragment else "\n"
    return lead + newline.join(comments) + newline + indent


# -- the module header: pragma and import ---------------------------------------------------------

_MARKER_NAMES = {Mark.STATIC: "Static", Mark.NODIFF: "NoDiff"}


class ModuleText:
    """The module's syntax tree, parsed on first use (once per module, whatever asks): where the
    pragma and the import go, and which specs apply to nothing the module defines."""

    def __init__(self, src: Source) -> None:
        self.src = src
        self._tree: ast.Module | None = None

    @property
    def tree(self) -> ast.Module:
        if self._tree is None:
            self._tree = ast.parse(self.src.text, self.src.filename)
        return self._tree

    def head(self) -> tuple[list[ast.stmt], int | None]:
        """The module's first statements, and the line where they stop (None: the whole module).

        The header and the imports come before the first ``def``, ``class`` or decorator at column
        0, so only that much is parsed. A cut that falls inside a string or brackets cannot parse
        (an unterminated string, an unclosed bracket), so a prefix that parses is exactly the
        module's first statements; one that does not falls back to the whole tree.
        """
        if self._tree is None:
            found = _FIRST_DEF.search(self.src.text)
            if found is not None:
                try:
                    prefix = ast.parse(self.src.text[: found.start()], self.src.filename)
                except SyntaxError:
                    pass
                else:
                    return prefix.body, self.src.text.count("\n", 0, found.start()) + 1
        return self.tree.body, None

    def newline(self) -> str:
        text = self.src.text
        at = text.find("\n")
        if at > 0 and text[at - 1] == "\r":
            return "\r\n"
        if at < 0 and "\r" in text:
            return "\r"
        return "\n"

    def header_edits(
        self, analysis: Analysis, needed: set[Mark], enabled: bool, planned: set[int]
    ) -> tuple[list[splice.Edit], dict[Mark, str]]:
        src = self.src
        body, cut = self.head()
        nl = self.newline()
        index = 0
        if body and _is_docstring(body[0]):
            index = 1
        while index < len(body) and isinstance(body[index], ast.ImportFrom) and body[index].module == "__future__":  # type: ignore[attr-defined]
            index += 1
        if index < len(body):
            first = body[index]
            first_line = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))])
        elif cut is not None:
            first_line = cut  # the def, class or decorator the head stops at
        else:
            raise Refused(Reason.MODULE, "the module has no statement after its header")
        if index > 0 and (body[index - 1].end_lineno or 0) >= first_line:
            raise Refused(Reason.MODULE, "the module header shares a line with code: no line for the pragma")
        if not enabled:
            self._check_enabling(analysis, planned)
        spelling, missing = self._spelling(needed, body)
        at_first = src.line_starts[first_line - 1]
        last_import = index
        while last_import < len(body) and _import_only(body[last_import]):
            last_import += 1
        lines: list[str] = []
        if missing:
            names = ", ".join(
                _MARKER_NAMES[mark] if spelling[mark] == _MARKER_NAMES[mark] else f"{_MARKER_NAMES[mark]} as {spelling[mark]}"
                for mark in sorted(missing, key=lambda m: _MARKER_NAMES[m])
            )
            lines.append(f"from jaxrewrite import {names}")
        edits: list[splice.Edit] = []
        pragma = "" if enabled else PRAGMA + nl
        if last_import == index or not lines:
            if pragma or lines:
                edits.append(splice.Edit(at_first, at_first, pragma + "".join(line + nl for line in lines)))
            return edits, spelling
        if pragma:
            edits.append(splice.Edit(at_first, at_first, pragma))
        end_line = body[last_import - 1].end_lineno or first_line
        if end_line < len(src.line_starts) - 1 or src.text.endswith(("\n", "\r")):
            at = src.line_starts[end_line] if end_line < len(src.line_starts) else len(src.text)
            edits.append(splice.Edit(at, at, "".join(line + nl for line in lines)))
        else:  # the last import ends the file without a line break
            at = len(src.text)
            edits.append(splice.Edit(at, at, "".join(nl + line for line in lines) + nl))
        return edits, spelling

    def _check_enabling(self, analysis: Analysis, planned: set[int]) -> None:
        """The pragma is module-wide: markers already written must not come alive with it."""
        for use in analysis.uses:
            if use.needs_edit and id(use) not in planned:
                name = getattr(use.target, "name", "?")
                raise Refused(
                    Reason.MODULE,
                    f"{name!r} (line {use.target.lineno}) already has jaxrewrite markers, "
                    "which the pragma would bring to life",
                )

    def _spelling(self, needed: set[Mark], head: list[ast.stmt]) -> tuple[dict[Mark, str], set[Mark]]:
        """The name each marker is spelled with: an import of it among the module's first
        statements, else the plain name when the text never uses it, else ``JrStatic``/``JrNoDiff``."""
        spelling: dict[Mark, str] = {}
        for stmt in head:
            if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module in ("jaxrewrite", "jaxrewrite.markers"):
                for alias in stmt.names:
                    for mark, name in _MARKER_NAMES.items():
                        if alias.name == name and mark not in spelling:
                            spelling[mark] = alias.asname or alias.name
        missing = {mark for mark in needed if mark not in spelling}
        for mark in missing:
            name = _MARKER_NAMES[mark]
            candidate, n = name, 1
            while self._uses_name(candidate):
                candidate = f"Jr{name}" + (str(n) if n > 1 else "")
                n += 1
            spelling[mark] = candidate
        return spelling, missing

    def _uses_name(self, name: str) -> bool:
        """Does the code bind or read ``name`` anywhere (strings and comments do not count)?"""
        if re.search(rf"\b{name}\b", self.src.text) is None:
            return False
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name):
                found = node.id == name
            elif isinstance(node, ast.arg):
                found = node.arg == name
            elif isinstance(node, ast.alias):
                found = (node.asname or node.name.partition(".")[0]) == name or node.name == name
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found = node.name == name
            elif isinstance(node, ast.Attribute):
                found = node.attr == name
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                found = name in node.names
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                found = name in node.value and _annotation_like(node.value, name)
            else:
                found = isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name == name
            if found:
                return True
        return False


def _annotation_like(text: str, name: str) -> bool:
    """A string that parses as an expression naming ``name`` (a string annotation), not prose."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(tree))


#: Where a module's header and imports have certainly ended: a def, class or decorator at column 0.
_FIRST_DEF = re.compile(r"^(?:@|def\s|async\s+def\s|class\s)", re.MULTILINE)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _import_only(stmt: ast.stmt) -> bool:
    """An import, or a ``try``/``if`` block of nothing but imports (``if TYPE_CHECKING:``)."""
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(stmt, ast.Try):
        blocks = [stmt.body, stmt.orelse, stmt.finalbody, *(h.body for h in stmt.handlers)]
    elif isinstance(stmt, ast.If):
        blocks = [stmt.body, stmt.orelse]
    else:
        return False
    return all(_import_only(s) or isinstance(s, ast.Pass) for block in blocks for s in block)


# -- the round trip -------------------------------------------------------------------------------


def _offset_map(edits: Sequence[splice.Edit]) -> list[tuple[int, int]]:
    """(old offset at or after which, shift) steps, for old-to-new offsets of unedited text."""
    steps: list[tuple[int, int]] = []
    shift = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        shift += len(edit.text) - (edit.end - edit.start)
        steps.append((edit.end, shift))
    return steps


def _new_offset(steps: list[tuple[int, int]], old: int) -> int:
    shift = 0
    for at, total in steps:
        if at > old:
            break
        shift = total
    return old + shift


def _round_trip(analysis: Analysis, plan: Plan, text: str) -> dict[int, Refusal]:
    """Analyze the migrated text as the import hook will; every planned function whose uses would
    not get exactly the statics their specs gave is returned with why."""
    src = analysis.source
    steps = _offset_map(plan.edits)
    problems: dict[int, Refusal] = {}

    def refuse(p: PlannedFunction, message: str) -> None:
        problems.setdefault(id(p.func), Refusal(Reason.ROUND_TRIP, message, p.func.lineno, p.func.name))

    def module_wide(message: str) -> dict[int, Refusal]:
        return {id(p.func): Refusal(Reason.MODULE, message, p.func.lineno, p.func.name) for p in plan.planned}

    try:
        after = analyze(text, src.filename)
    except SyntaxError as err:  # a bug in the edits: report it rather than write it
        return module_wide(f"the migrated text does not parse ({err.msg}, line {err.lineno}): a jaxrewrite bug")
    if not after.header.enabled:
        return module_wide("the pragma added to the header is not recognised")
    spans = []
    for p in plan.planned:
        first = min([p.func.lineno, *(d.lineno for d in p.func.decorator_list)])
        start = _new_offset(steps, src.line_starts[first - 1])
        spans.append((start, _new_offset(steps, src.end(p.func)), p))
        for use in p.uses:
            if use.kind is UseKind.CALL:
                spans.append((_new_offset(steps, src.start(use.node)), _new_offset(steps, src.end(use.node)), p))
    new_src = after.source
    for error in after.errors:
        at = new_src.line_starts[error.line - 1] + error.col - 1
        owners = [(end - start, p) for start, end, p in spans if start <= at <= end]
        if not owners:
            return module_wide(f"the migrated module does not rewrite: {error.code} {error.message}")
        innermost = min(owners, key=lambda owner: owner[0])[1]  # a method, not its class's other def
        refuse(innermost, f"the migrated function does not rewrite: {error.code} {error.message}")
    owner: dict[int, PlannedFunction] = {id(use): p for p in plan.planned for use in p.uses}
    before_at = {_new_offset(steps, src.start(use.node)): use for use in analysis.uses}
    seen: set[int] = set()
    for use in after.uses:
        was = before_at.get(new_src.start(use.node))
        if was is None:
            continue  # a class registration, or a use of a def no spec was written for
        seen.add(id(was))
        t = use.transform
        if not isinstance(t, Transform):
            continue
        mine = owner.get(id(was))
        if mine is None:
            if use.needs_edit and not analysis.header.enabled:
                return module_wide(f"the pragma would change the {t.name} use at line {was.node.lineno}")
            continue
        p = mine
        if t.spec is not SpecKind.LISTS:
            if use.needs_edit and not (analysis.header.enabled and was.needs_edit):
                refuse(p, f"the {t.name} use at line {was.node.lineno} would be rewritten")
            continue
        now = meaning_of_values(t, use.values) if use.values is not None else _read_or_none(use)
        expected = p.before.get(id(was))
        if now is None or expected is None:
            refuse(p, f"the {t.name} use at line {was.node.lineno} cannot be read back")
            continue
        if {k: v for k, v in now.items() if v} != {k: v for k, v in expected.items() if v}:
            refuse(
                p,
                f"the {t.name} use at line {was.node.lineno} would get {_spell(now)}, not {_spell(expected)}",
            )
    for p in plan.planned:
        for use in p.uses:
            if id(use) not in seen and isinstance(use.transform, Transform) and _has_spec(use):
                refuse(p, f"the engine does not see the {use.transform.name} use at line {use.node.lineno} as Static")
    return problems


def _read_or_none(use: Use) -> Meaning | None:
    assert use.signature is not None
    try:
        return read_spec(use, use.signature).meaning
    except Refused:
        return None


# -- specs on nothing this module defines ---------------------------------------------------------

_SPEC_WORD = re.compile(r"\b(" + "|".join(sorted({w for t in TRANSFORMS.values() for w in spec_keywords(t)})) + r")\s*=")


def _unattached(analysis: Analysis, module: ModuleText) -> list[Refusal]:
    """Transform calls that write a spec but apply to no def of the module (``jax.jit(other.f,
    static_argnums=1)``), and decorators the analysis could not read: reported, never edited.

    Only the nodes around a spec keyword that no use covers are visited (most files have none).
    """
    src = analysis.source
    covered = [(src.start(use.node), src.end(use.node)) for use in analysis.uses]
    lines = sorted(
        {
            bisect.bisect_right(src.line_starts, match.start())
            for match in _SPEC_WORD.finditer(src.text)
            if not any(start <= match.start() < end for start, end in covered)
        }
    )
    if not lines:
        return []
    words = spec_keywords_all()
    found: list[Refusal] = []
    imported: dict[str, str] = {}
    seen: set[int] = set()

    def visit(node: ast.AST, func: Function | None, decorators: set[int]) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            _imports(node, imported)
        for child in ast.iter_child_nodes(node):
            first = getattr(child, "lineno", None)
            if first is None:  # ``arguments``, ``keyword`` without positions on old Pythons...
                visit(child, func, decorators)
                continue
            decorated = getattr(child, "decorator_list", None)
            if decorated:
                first = min(first, *(d.lineno for d in decorated))
            last = getattr(child, "end_lineno", first) or first
            at = bisect.bisect_left(lines, first)
            if at == len(lines) or lines[at] > last:
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    _imports(child, imported)
                continue
            if isinstance(child, ast.Call) and id(child) not in seen:
                seen.add(id(child))
                refusal = _unattached_call(child, func if id(child) in decorators else None, analysis, imported, words)
                if refusal is not None:
                    found.append(refusal)
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child, {id(d) for d in child.decorator_list})
            else:
                visit(child, func, decorators)

    visit(module.tree, None, set())
    return found


def _imports(stmt: ast.Import | ast.ImportFrom, names: dict[str, str]) -> None:
    if isinstance(stmt, ast.ImportFrom):
        for alias in stmt.names:
            names[alias.asname or alias.name] = f"{'.' * stmt.level}{stmt.module or ''}.{alias.name}".replace("..", ".")
    else:
        for alias in stmt.names:
            names[alias.asname or alias.name.partition(".")[0]] = alias.name


def _unattached_call(
    node: ast.Call, func: Function | None, analysis: Analysis, imported: Mapping[str, str], words: frozenset[str]
) -> Refusal | None:
    if not any(kw.arg in words for kw in node.keywords):
        return None
    src = analysis.source
    start = src.start(node)
    if any(src.start(use.node) <= start < src.end(use.node) for use in analysis.uses):
        return None
    name = _transform_name(node.func)
    if func is not None:  # a decorator of a def that no use covers
        if name is None and _transform_name(node.args[0] if node.args else None) is None:
            return None
        top = min([func.lineno, *(d.lineno for d in func.decorator_list)])
        first = next((d for d in analysis.errors if top <= d.line <= func.lineno), None)
        why = f": {first.code} {first.message}" if first is not None else ""
        return Refusal(
            Reason.UNREADABLE,
            f"the analysis does not read this decorator as a transform of the def{why}",
            node.lineno,
            func.name,
        )
    if name is None or not node.args:
        return None  # a partial or factory not applied here (an alias definition): reported at its uses
    arg = node.args[0]
    if isinstance(arg, ast.Lambda):
        what = "a lambda, which cannot carry annotations"
    elif isinstance(arg, ast.Name) and arg.id in imported:
        what = f"{arg.id!r}, which lives in another module ({imported[arg.id]})"
    elif isinstance(arg, ast.Name):
        what = f"{arg.id!r}, which is not statically one def of this module"
    elif isinstance(arg, ast.Attribute):
        what = f"{ast.unparse(arg)!r}, which lives in another module or object"
    else:
        what = f"{ast.unparse(arg)!r}, which is not a def of this module"
    return Refusal(Reason.NOT_LOCAL, f"{name} is applied to {what}", node.lineno)


def spec_keywords_all() -> frozenset[str]:
    return frozenset(w for t in TRANSFORMS.values() for w in spec_keywords(t))


def _transform_name(expr: ast.expr | None) -> str | None:
    """The transform a call's function names by its last segment (a report, not a resolution)."""
    if isinstance(expr, ast.Attribute):
        name: str | None = expr.attr
    elif isinstance(expr, ast.Name):
        name = expr.id
    else:
        return None
    return name if name in TRANSFORMS and TRANSFORMS[name].spec is SpecKind.LISTS else None


# -- the whole module -----------------------------------------------------------------------------

#: Each round trip can only refuse more functions; this bounds the rounds all the same.
MAX_ROUNDS = 8


def migrate_source(text: str, filename: str = "<string>") -> Migration:
    """Migrate one module's text; Python's own SyntaxError if it does not parse.

    Plans every function, applies the edits, and analyzes the result as the import hook will: a
    function whose uses would not get exactly the statics its specs gave is refused and the module
    planned again without it. The text comes back unchanged when nothing is migrated.
    """
    if not may_need_migration(text):
        compile(text, filename, "exec", dont_inherit=True)  # only for the SyntaxError promised
        return Migration(text, text)
    with collector_paused():  # a tree is alive throughout: see collector_paused
        return _migrate(text, filename)


def _migrate(text: str, filename: str) -> Migration:
    analysis = analyze(text, filename, filters=EXHAUSTIVE, require_pragma=False)
    module = ModuleText(analysis.source)
    excluded: dict[int, Refusal] = {}
    for _ in range(MAX_ROUNDS):
        plan = plan_migration(analysis, excluded, module)
        if not plan.planned:
            break
        migrated = splice.apply(text, plan.edits)
        problems = _round_trip(analysis, plan, migrated)
        if not problems:
            records = _records(analysis, plan, migrated)
            return Migration(text, migrated, records, plan.refused + _unattached(analysis, module))
        excluded.update(problems)
    else:  # pragma: no cover - every round refuses at least one more function
        plan = Plan([], [], [*excluded.values()], {})
    return Migration(text, text, [], plan.refused + _unattached(analysis, module))


def _records(analysis: Analysis, plan: Plan, migrated: str) -> list[Migrated]:
    src = analysis.source
    steps = _offset_map(plan.edits)
    starts = Source(migrated, src.filename).line_starts

    def new_line(offset: int) -> int:
        new = _new_offset(steps, offset)
        lo, hi = 0, len(starts) - 1
        while lo < hi:  # the last line start at or before ``new``
            mid = (lo + hi + 1) // 2
            if starts[mid] <= new:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    out = []
    for p in plan.planned:
        uses = []
        for use in sorted(p.uses, key=lambda u: (u.node.lineno, u.node.col_offset)):
            t = use.transform
            assert isinstance(t, Transform)
            meaning = p.before.get(id(use), {})
            uses.append(
                UseRecord(
                    t.name,
                    use.kind.value,
                    use.node.lineno,
                    use.node.col_offset,
                    use.node.end_lineno or use.node.lineno,
                    use.node.end_col_offset or 0,
                    new_line(src.start(use.node)),
                    tuple((k, _sorted(v)) for k, v in sorted(meaning.items())),
                    id(use) in p.written,
                )
            )
        params = tuple((name, plan.spelling[mark]) for name, mark in p.marks.items())
        out.append(Migrated(p.func.name, p.func.lineno, new_line(src.start(p.func)), params, tuple(uses)))
    return out
