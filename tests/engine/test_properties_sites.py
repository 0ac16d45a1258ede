"""Property tests of call sites, over test_properties.py's model of signatures and spellings.

Call sites (``jax.jit(fn)`` on a def of the module): a name rebound by a comprehension, a lambda or
a block head (``except ... as fn``, ``for fn``) is left byte-identical while an unshadowed call site
is completed, and what it jits runs with every parameter traced; a spec passed by position
(``jax.vmap(f, 0)``, ``jax.pmap(f, "i")``, ``jax.custom_vjp(f, (k,))``) is completed in place, never
passed twice; a def bound twice (``@overload`` stubs, ``if``/``else`` defs, ``f = jax.jit(f)``) gets
the statics of the def Python runs, or JR119 at the call site when the bindings disagree.

Examples are derandomized and capped as test_properties.py's (tests/depth.py: all of them
under JAXREWRITE_FULL=1, as .ci/run sets).
"""

from __future__ import annotations

import ast
import inspect
import math
from dataclasses import dataclass, replace
from typing import Any

import jax
import numpy as np
import pytest
from depth import examples
from golden_cases import execute
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from properties_support import (
    FILENAME,
    HEAD,
    KWONLY,
    MARKERS,
    PLAIN,
    WRAPPERS,
    Case,
    K,
    M,
    N,
    Param,
    X,
    _as_tuple,
    _body,
    _case,
    _exercise,
    _keywords_of,
    _literal,
    _signature,
    _subset,
    cases,
    signatures,
)

from jaxrewrite import RewriteError, rewrite_source

# -- call sites: shadowed names, positional transform arguments, double bindings -------------
#
# A transform called on a name (``jax.jit(fn)``) is rewritten only where that name is, as Python
# resolves it, a marked def of the module. These properties draw modules around one marked def
# and check the call sites the resolution must skip, the transforms whose spec can be passed by
# position, and defs bound more than once.

SITES = settings(
    max_examples=examples(80),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SITES_RUN = settings(
    max_examples=examples(8),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

#: What the call-site modules add to ``HEAD``: an exception that is also a callable, so that
#: ``except _Boom as fn`` binds something ``jax.jit`` accepts.
SITE_HEAD = """\
import contextlib
import typing
from typing import overload

FLAG = {flag}
_OTHER = []


class _Boom(Exception):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def __call__(self, *args, **kwargs):
        return self.func(*args, **kwargs)

"""


def _site_lines(flag: bool = True) -> list[str]:
    return ("# jaxrewrite: enable\n" + HEAD + SITE_HEAD.format(flag=flag)).splitlines()


@st.composite
def call_cases(draw: st.DrawFn) -> Case:
    """A signature with at least one Static parameter, called as the model says, its transform
    applied by a call site (so no decorator, wrapper or user list of its own)."""
    case = draw(cases(pragma="header").filter(lambda c: c.has_static))
    return replace(case, wrappers=(), spelling="jit", user_names=None, user_nums=None)


def _unmarked(case: Case) -> Case:
    """The same parameters, kinds and defaults' positions with no marker: ``other``."""
    return replace(case, params=tuple(replace(p, static=False, annotation="") for p in case.params))


def _jit_calls(text: str) -> list[ast.Call]:
    """Every ``jax.jit(...)`` call of a module, in source order."""
    calls = [
        n
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.Call) and ast.unparse(n.func) == "jax.jit"
    ]
    return sorted(calls, key=lambda n: (n.lineno, n.col_offset))


def _assert_line_preserving_fixed_point(text: str, out: str, may_change: set[int]) -> None:
    """Idempotent, same lines, and only the 0-based lines in ``may_change`` differ."""
    assert rewrite_source(out, FILENAME) == out, "rewriting is not idempotent"
    before, after = text.splitlines(), out.splitlines()
    assert len(before) == len(after) and text.count("\n") == out.count("\n"), "line numbers moved"
    changed = [i for i, (b, a) in enumerate(zip(before, after)) if b != a]
    assert all(i in may_change for i in changed), "\n".join(
        f"{before[i]!r} -> {after[i]!r}" for i in changed
    )
    compile(out, FILENAME, "exec", dont_inherit=True)


def _assert_declared_statics(call: ast.Call, case: Case, out: str) -> None:
    nums, names = case.ideal_lists()
    kws = _keywords_of(call, ("static_argnums", "static_argnames"))
    assert set(kws) == {"static_argnums", "static_argnames"}, f"{ast.unparse(call)}\n{out}"
    assert sorted(kws["static_argnums"]) == sorted(nums), ast.unparse(call)
    assert sorted(kws["static_argnames"]) == sorted(names), ast.unparse(call)


def _other_lines(case: Case) -> list[str]:
    """``other``: ``fn``'s arity with no marker; it records what it saw and sums its arguments."""
    plain = _unmarked(case)
    record = ", ".join(f"{p.name!r}: _seen({p.name})" for p in plain.params)
    total = " + ".join(["0.0", *(p.name for p in plain.params)])
    if plain.varargs:
        total += " + sum(args)"
    if plain.varkw:
        total += " + sum(kwargs.values())"
    return [
        f"def other({_signature(plain)}):",
        f"    _OTHER.append({{{record}}})",
        f"    return {total}",
    ]


# 1. Names rebound by a comprehension, a lambda, or a block head (``except ... as``, ``for``,
# ``with ... as``, a ``case`` capture). Each shape evaluates ``jax.jit`` of ``other`` through a
# local ``fn``; the flags say whether each ``jax.jit`` call in it (in source order) sees the
# module's marked ``fn`` (True) or a local one.

#: Expressions, used as ``_r<i> = <expr>`` or as ``return <expr>`` in a function body.
SHADOWS: dict[str, tuple[str, tuple[bool, ...]]] = {
    "list": ("[jax.jit(fn) for fn in (other,)][0]", (False,)),
    "set": ("{jax.jit(fn) for fn in (other,)}.pop()", (False,)),
    "dict": ("{k: jax.jit(fn) for k, fn in [('k', other)]}['k']", (False,)),
    "dict_key": ("{fn: jax.jit(fn) for fn in (other,)}[other]", (False,)),
    "generator": ("next(jax.jit(fn) for fn in (other,))", (False,)),
    "lambda": ("(lambda fn: jax.jit(fn))(other)", (False,)),
    "lambda_default": ("(lambda *rest, fn=other: jax.jit(fn))()", (False,)),
    "nested_for": ("[jax.jit(fn) for row in ((other,),) for fn in row][0]", (False,)),
    "nested_comprehension": (
        "[[jax.jit(fn) for fn in row] for row in ((other,),)][0][0]",
        (False,),
    ),
    "inner_uses_outer": ("[[jax.jit(fn) for _ in (0,)][0] for fn in (other,)][0]", (False,)),
    "lambda_in_comprehension": ("[(lambda fn: jax.jit(fn))(g) for g in (other,)][0]", (False,)),
    "comprehension_in_lambda": ("(lambda fn: [jax.jit(fn) for _ in (0,)][0])(other)", (False,)),
    # The first iterable runs in the enclosing scope: there ``fn`` is the marked def.
    "first_iterable": ("[(jax.jit(fn), g) for fn, g in ((other, jax.jit(fn)),)][0]", (False, True)),
}
#: Blocks whose head binds ``fn``; ``{result}`` is ``return `` in a function body, ``_r<i> = ``
#: at module level. There the binding outlives the block (``except`` even deletes ``fn``), so
#: module-level blocks come last in the module, after every call that means the marked def.
BLOCK_SHADOWS: dict[str, list[str]] = {
    "except": ["try:", "    raise _Boom(other)", "except _Boom as fn:", "    {result}jax.jit(fn)"],
    "for": ["for k, fn in [('k', other)]:", "    {result}jax.jit(fn)"],
    "with": ["with contextlib.nullcontext(other) as fn:", "    {result}jax.jit(fn)"],
    "match": ["match other:", "    case fn:", "        {result}jax.jit(fn)"],
}
ALL_SHAPES = sorted(SHADOWS) + sorted(BLOCK_SHADOWS)


@dataclass(frozen=True)
class ShadowModule:
    case: Case
    #: (shape, inside a def body) for each shadowing statement, in order.
    shadows: tuple[tuple[str, bool], ...]
    ok_at: int  # where, among the shadowing statements, the plain ``_ok = jax.jit(fn)`` goes


@dataclass(frozen=True)
class RenderedSites:
    text: str
    #: Whether each ``jax.jit`` call, in source order, sees the marked ``fn``.
    sees_fn: tuple[bool, ...]
    #: 0-based lines holding a call that sees the marked ``fn``: the only lines that may change.
    fn_lines: set[int]
    #: ``_r<i>`` names (jit of ``other``) and ``_u<i>``/``_ok`` names (jit of ``fn``) the module
    #: binds.
    others: tuple[str, ...]
    fns: tuple[str, ...]


@st.composite
def shadow_modules(draw: st.DrawFn) -> ShadowModule:
    case = draw(call_cases())
    kinds = draw(st.lists(st.sampled_from(ALL_SHAPES), min_size=1, max_size=4))
    shapes = tuple((kind, draw(st.booleans())) for kind in kinds)
    return ShadowModule(case, _unambiguous(shapes), draw(st.integers(0, len(shapes))))


def _unambiguous(shapes: tuple[tuple[str, bool], ...]) -> tuple[tuple[str, bool], ...]:
    """A module-level block rebinds ``fn`` for the rest of the module, so a function body that
    means the marked def (``first_iterable``) could see either: keep that one at module level."""
    if not any(kind in BLOCK_SHADOWS and not in_body for kind, in_body in shapes):
        return shapes
    return tuple(
        (kind, in_body and not any(SHADOWS.get(kind, ("", ()))[1])) for kind, in_body in shapes
    )


def render_shadows(module: ShadowModule) -> RenderedSites:
    case = module.case
    lines = _site_lines()
    lines += [f"def fn({_signature(case)}):", *_body(case), "", *_other_lines(case), ""]
    sees_fn: list[bool] = []
    fn_lines: set[int] = set()
    others, fns = [], []

    def statement(i: int, kind: str, in_body: bool) -> None:
        if kind in BLOCK_SHADOWS:
            body, flags = BLOCK_SHADOWS[kind], (False,)
        else:
            body, flags = ["{result}" + SHADOWS[kind][0]], SHADOWS[kind][1]
        targets = f"_r{i}, _u{i}" if any(flags) else f"_r{i}"
        others.append(f"_r{i}")
        fns.extend([f"_u{i}"] if any(flags) else [])
        if in_body:
            lines.append(f"def _build{i}():")
            lines.extend("    " + line.replace("{result}", "return ") for line in body)
            lines.append(f"{targets} = _build{i}()")
            at = len(lines) - 2
        elif kind in BLOCK_SHADOWS:
            lines.extend(line.replace("{result}", f"{targets} = ") for line in body)
            at = len(lines) - 1
        else:
            at = len(lines)
            lines.append(body[0].replace("{result}", f"{targets} = "))
        if any(flags):
            fn_lines.add(at)
        sees_fn.extend(flags)

    numbered = [(i, kind, in_body) for i, (kind, in_body) in enumerate(module.shadows)]
    early = [item for item in numbered if item[2] or item[1] in SHADOWS]
    late = [item for item in numbered if not (item[2] or item[1] in SHADOWS)]  # module-level blocks
    ok_at = min(module.ok_at, len(early))
    for item in early[:ok_at]:
        statement(*item)
    fn_lines.add(len(lines))
    lines.append("_ok = jax.jit(fn)")
    sees_fn.append(True)
    fns.append("_ok")
    for item in early[ok_at:] + late:
        statement(*item)
    return RenderedSites(
        "\n".join(lines) + "\n", tuple(sees_fn), fn_lines, tuple(others), tuple(fns)
    )


LIST_ONLY = ShadowModule(_case((X, N), {"x": "pos", "n": "pos"}), (("list", False),), 1)
EVERY_SHAPE = ShadowModule(
    _case((X, N, K), {"x": "pos", "n": "pos", "k": "kw"}),
    _unambiguous(tuple((kind, in_body) for kind in ALL_SHAPES for in_body in (False, True))),
    3,
)
#: Every shape in a function body, the marked def's call sites in bodies too.
EVERY_SHAPE_IN_BODIES = replace(EVERY_SHAPE, shadows=tuple((kind, True) for kind in ALL_SHAPES))


@SITES
@given(shadow_modules())
@example(LIST_ONLY)
@example(EVERY_SHAPE)
@example(EVERY_SHAPE_IN_BODIES)
def test_shadowed_call_sites_are_left_alone_and_the_others_rewritten(module: ShadowModule) -> None:
    src = render_shadows(module)
    out = rewrite_source(src.text, FILENAME)
    # Only lines with a call that sees the marked def may change: every shadowed one is
    # byte-identical.
    _assert_line_preserving_fixed_point(src.text, out, src.fn_lines)
    before, after = _jit_calls(src.text), _jit_calls(out)
    assert len(before) == len(after) == len(src.sees_fn)
    for old, new, sees_fn in zip(before, after, src.sees_fn):
        assert [ast.unparse(a) for a in new.args] == [ast.unparse(a) for a in old.args], (
            ast.unparse(new)
        )
        if sees_fn:
            _assert_declared_statics(new, module.case, out)
        else:
            assert ast.unparse(new) == ast.unparse(old) == "jax.jit(fn)", ast.unparse(new)


@SITES_RUN
@given(shadow_modules())
@example(EVERY_SHAPE)
def test_shadowed_call_sites_trace_other_with_every_parameter_dynamic(module: ShadowModule) -> None:
    src = render_shadows(module)
    out = rewrite_source(src.text, FILENAME)
    ran = execute(out, FILENAME, "prop_module")
    plain = _unmarked(module.case)
    traced = ran._OTHER
    for name in src.others:
        jitted = getattr(ran, name)
        count = len(traced)
        for call in range(3):  # three distinct dynamic inputs
            values = [0.5 + i + 100.0 * call for i in range(len(plain.params))]
            args = [v for p, v in zip(plain.params, values) if p.kind != KWONLY]
            kwargs = {p.name: v for p, v in zip(plain.params, values) if p.kind == KWONLY}
            result = jitted(*args, **kwargs)
            assert math.isclose(float(result), sum(values), rel_tol=1e-5), (
                name,
                result,
                values,
                out,
            )
        # Not static: one trace for all three inputs, every parameter a tracer (none at all when
        # an earlier jit of the same function traced it: they share JAX's trace cache).
        assert traced[count:] in ([], [{p.name: "T" for p in plain.params}]), (
            name,
            traced[count:],
            out,
        )
    # At least ``other`` once and each ``_Boom`` instance (a function of its own) once.
    boom = sum(kind == "except" for kind, _ in module.shadows)
    assert boom + int(len(src.others) > boom) <= len(traced) <= len(src.others), (traced, out)
    for name in src.fns:  # the call sites that see the marked def: declared statics, run the model
        jax.clear_caches()  # a second jit of ``fn`` would otherwise reuse the first one's trace
        _exercise(module.case, getattr(ran, name), ran._TRACES, out)


# 2. Transform arguments passed by position: ``jax.vmap(f, 0)``, ``jax.pmap(f, "i")``,
# ``jax.custom_vjp(f, (k,))``. The spec merged into a positional argument is written there, in
# place: the rewritten call must still bind (JAX's own signature), each argument once.

#: Transforms called with a positional argument after the function.
POSITIONAL_TRANSFORMS = ("vmap", "pmap", "custom_vjp", "custom_jvp")


@dataclass(frozen=True)
class PositionalCall:
    case: Case
    transform: str
    #: vmap: an int axis, or a tuple with None at the Static positions; custom_vjp/jvp: the
    #: user's nondiff_argnums; pmap: the user's static_broadcasted_argnums keyword, if any.
    spec: int | tuple[int | None, ...] | None
    style: str  # "tuple" | "list" | "scalar": how a user's position list is spelled
    #: Also pass the next argument by position: vmap's out_axes ``0``, custom_vjp/jvp's
    #: nondiff_argnames ``()``.
    third: bool
    jit_around: bool  # vmap: jax.jit(jax.vmap(f, ...))
    multiline: bool


def _positional_statics(
    sig: tuple[tuple[Param, ...], bool, bool],
) -> tuple[tuple[Param, ...], bool, bool]:
    """These transforms take static positions only: keyword-only parameters stay unmarked."""
    params, varargs, varkw = sig
    return (
        tuple(replace(p, static=False, annotation="") if p.kind == KWONLY else p for p in params),
        varargs,
        varkw,
    )


def _mixed(sig: tuple[tuple[Param, ...], bool, bool]) -> bool:
    """At least one Static and one traced positional parameter (vmap needs a mapped argument)."""
    statics = [p.static for p in sig[0] if p.position is not None]
    return any(statics) and not all(statics)


@st.composite
def positional_calls(
    draw: st.DrawFn, transforms: tuple[str, ...] = POSITIONAL_TRANSFORMS, jit_around: bool = True
) -> PositionalCall:
    # No *args: vmap cannot spell an int axis for it (JR115).
    params, _, varkw = draw(signatures().map(_positional_statics).filter(_mixed))
    case = _case(
        params, {p.name: "pos" if p.position is not None else "kw" for p in params}, varkw=varkw
    )
    positional = [p for p in params if p.position is not None]
    transform = draw(st.sampled_from(transforms))
    spec: int | tuple[int | None, ...] | None
    if transform == "vmap":
        if draw(st.booleans()):
            spec = draw(st.sampled_from([0, 1, -1]))
        else:
            axes = [None if p.static else draw(st.sampled_from([0, 1, None])) for p in positional]
            if all(a is None for a in axes):  # vmap needs one mapped argument
                axes[next(i for i, p in enumerate(positional) if not p.static)] = 0
            spec = tuple(axes)
    elif transform == "pmap":
        spec = _subset(draw, [p.position for p in positional]) if draw(st.booleans()) else None
    else:
        spec = _subset(draw, [p.position for p in positional])
    return PositionalCall(
        case,
        transform,
        spec,
        draw(st.sampled_from(["tuple", "list", "scalar"])),
        third=transform != "pmap" and draw(st.booleans()),
        jit_around=transform == "vmap" and jit_around and draw(st.booleans()),
        multiline=draw(st.booleans()),
    )


def _positional_expected(call: PositionalCall) -> tuple[Any, ...]:
    """The spec the rewritten call must pass: in_axes (vmap), nondiff_argnums (custom_vjp/jvp),
    static_broadcasted_argnums (pmap, by keyword)."""
    positional = [p for p in call.case.params if p.position is not None]
    if call.transform == "vmap":
        if isinstance(call.spec, tuple):
            return call.spec  # already None at every Static position: kept as written
        return tuple(None if p.static else call.spec for p in positional)
    statics = {p.position for p in positional if p.static}
    return tuple(sorted(statics | set(call.spec or ())))  # type: ignore[arg-type]


def render_positional(call: PositionalCall) -> tuple[str, range]:
    """The module, and the 0-based lines of the transform's call statement."""
    case = call.case
    lines = _site_lines()
    lines += [f"def f({_signature(case)}):", "    _acc = 0.0"]
    for i, p in enumerate(case.params):
        if p.static:
            lines += [f"    for _ in range({p.name}):", "        _acc = _acc + 1.0"]
        else:
            lines.append(f"    _acc = _acc + {p.name} * {i + 1}.0")
    lines += ["    return _acc", ""]
    args = ["f"]
    if call.transform == "vmap":
        assert call.spec is not None
        args.append(
            repr(call.spec) if isinstance(call.spec, int) else _literal(call.spec, "tuple", "'")
        )
        if call.third:
            args.append("0")
    elif call.transform == "pmap":
        args.append("'i'")
        if call.spec is not None:
            args.append("static_broadcasted_argnums=" + _literal(call.spec, call.style, "'"))
    else:
        assert call.spec is not None
        args.append(_literal(call.spec, call.style, "'"))
        if call.third:
            args.append("()")
    start = len(lines)
    head, tail = (
        (f"jax.jit(jax.{call.transform}(", "))")
        if call.jit_around
        else (f"jax.{call.transform}(", ")")
    )
    if call.multiline:
        lines += [f"g = {head}", *(f"    {a},  # {i}" for i, a in enumerate(args)), tail]
    else:
        lines.append(f"g = {head}{', '.join(args)}{tail}")
    return "\n".join(lines) + "\n", range(start, len(lines))


def _transform_calls(text: str) -> list[ast.Call]:
    """Every ``jax.<transform>(...)`` call of a module, outermost first."""
    return [
        n
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and ast.unparse(n.func.value) == "jax"
        and n.func.attr in (*POSITIONAL_TRANSFORMS, "jit")
    ]


def _assert_each_argument_once(call: ast.Call) -> None:
    """Keyword names are unique and none names a slot a positional argument fills: the call binds
    against the installed JAX's own signature."""
    names = [kw.arg for kw in call.keywords]
    assert None not in names and len(set(names)) == len(names), ast.unparse(call)
    assert isinstance(call.func, ast.Attribute)
    signature = inspect.signature(getattr(jax, call.func.attr))
    slots = [
        p.name
        for p in signature.parameters.values()
        if p.kind is not inspect.Parameter.KEYWORD_ONLY
    ]
    assert not set(names) & set(slots[: len(call.args)]), ast.unparse(call)
    signature.bind(*call.args, **dict.fromkeys(names))  # TypeError when an argument is passed twice


def _positional(transform: str, spec: Any, *params: Param, **kw: Any) -> PositionalCall:
    fields = {"style": "tuple", "third": False, "jit_around": False, "multiline": False, **kw}
    case = _case(params, {p.name: "pos" for p in params})
    return PositionalCall(case, transform, spec, **fields)


@SITES
@given(positional_calls())
@example(_positional("vmap", 0, X, N))
@example(_positional("vmap", 1, X, N, M, third=True, multiline=True))
@example(_positional("pmap", None, X, N, M))
@example(_positional("custom_vjp", (0,), X, N))
@example(_positional("custom_jvp", (1,), X, N, style="scalar"))
@example(_positional("custom_vjp", (), X, N, third=True))
def test_positional_transform_arguments_are_completed_in_place(call: PositionalCall) -> None:
    text, site = render_positional(call)
    out = rewrite_source(text, FILENAME)
    _assert_line_preserving_fixed_point(text, out, set(site))
    calls = _transform_calls(out)
    assert len(calls) == (2 if call.jit_around else 1)
    for node in calls:
        _assert_each_argument_once(node)
    inner = calls[-1]
    assert isinstance(inner.func, ast.Attribute) and inner.func.attr == call.transform
    assert ast.unparse(inner.args[0]) == "f"
    expected = _positional_expected(call)
    if call.transform == "pmap":
        assert [ast.literal_eval(a) for a in inner.args[1:]] == ["i"], ast.unparse(inner)
        assert _keywords_of(inner, ("static_broadcasted_argnums",)) == {
            "static_broadcasted_argnums": expected
        }
    else:  # the spec stays where it was passed, completed
        assert len(inner.args) == (3 if call.third else 2) and not inner.keywords, ast.unparse(
            inner
        )
        assert _as_tuple(ast.literal_eval(inner.args[1])) == expected, ast.unparse(inner)


def _vmap_arguments(case: Case) -> tuple[list[Any], dict[str, Any]]:
    """Statics as ints, the rest 2x2 arrays (any axis maps 2 entries), none of them symmetric."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for i, p in enumerate(case.params):
        value = i + 1 if p.static else np.array([[0.0, 10.0], [1.0, 2.0]], np.float32) * (i + 1) + i
        (args.append(value) if p.position is not None else kwargs.__setitem__(p.name, value))
    return args, kwargs


@SITES_RUN
@given(positional_calls(transforms=("vmap",), jit_around=False))
@example(_positional("vmap", 1, X, N, third=True))
def test_vmap_with_positional_axes_matches_the_hand_written_in_axes(call: PositionalCall) -> None:
    text, _ = render_positional(call)
    out = rewrite_source(text, FILENAME)
    ran = execute(out, FILENAME, "prop_module")
    args, kwargs = _vmap_arguments(call.case)
    expected = jax.vmap(ran.f, in_axes=_positional_expected(call))(*args, **kwargs)
    np.testing.assert_allclose(np.asarray(ran.g(*args, **kwargs)), np.asarray(expected), rtol=1e-6)


@settings(SITES, max_examples=examples(10))
@given(positional_calls(transforms=("vmap",)).map(lambda c: replace(c, jit_around=True)))
@example(_positional("vmap", 0, X, N, jit_around=True))
def test_jit_around_vmap_with_arguments_gets_the_declared_statics(call: PositionalCall) -> None:
    text, _ = render_positional(call)
    out = rewrite_source(text, FILENAME)
    _assert_declared_statics(_transform_calls(out)[0], call.case, out)


# 3. A def bound more than once: ``@overload`` stubs then the implementation, a def in each branch
# of ``if FLAG: ... else: ...``, or ``f = jax.jit(f)`` rebinding the def's own name. The call
# site gets the statics of the def Python runs, and defs that disagree are refused (JR119).

DOUBLE_SHAPES = ("overload", "if_else", "rebind", "overload_rebind")


@dataclass(frozen=True)
class DoubleBinding:
    case: Case
    shape: str
    #: if_else: the ``else`` branch's parameters; overload: each stub's parameters.
    twins: tuple[tuple[Param, ...], ...]
    overload: str  # "typing.overload" | "overload"
    flag: bool
    in_body: bool  # the call site is in a function body: ``def _build(): return jax.jit(f)``
    wrapper: str | None  # ``jax.jit(<wrapper>(f))``


def _remarked(draw: st.DrawFn, params: tuple[Param, ...], static: list[bool]) -> tuple[Param, ...]:
    """The same parameters, each Static as ``static`` says, with freshly drawn annotations."""
    return tuple(
        replace(p, static=s, annotation=draw(st.sampled_from(MARKERS if s else PLAIN)))
        for p, s in zip(params, static)
    )


@st.composite
def double_bindings(
    draw: st.DrawFn, shapes: tuple[str, ...] = DOUBLE_SHAPES, same: bool = True
) -> DoubleBinding:
    """``same``: the if/else defs agree on every Static parameter (spelled differently);
    otherwise one parameter (or every one) is Static in one branch only."""
    case = draw(call_cases())
    shape = draw(st.sampled_from(shapes))
    statics = [p.static for p in case.params]
    if shape == "if_else":
        if not same:
            if draw(st.booleans()):
                flip = draw(st.integers(0, len(statics) - 1))
                statics[flip] = not statics[flip]
            else:
                statics = [False] * len(statics)
        twins = (_remarked(draw, case.params, statics),)
    elif shape.startswith("overload"):  # stubs say anything: Python runs the implementation
        count = draw(st.integers(1, 2))
        twins = tuple(
            _remarked(draw, case.params, [draw(st.booleans()) for _ in statics])
            for _ in range(count)
        )
    else:
        twins = ()
    return DoubleBinding(
        case,
        shape,
        twins,
        draw(st.sampled_from(["typing.overload", "overload"])),
        draw(st.booleans()),
        shape in ("if_else", "overload") and draw(st.booleans()),
        draw(st.one_of(st.none(), st.sampled_from(WRAPPERS))),
    )


def render_double(binding: DoubleBinding) -> tuple[str, int]:
    """The module and the 0-based line of the ``jax.jit`` call site."""
    case = binding.case
    lines = _site_lines(binding.flag)
    if binding.shape == "if_else":
        other = replace(case, params=binding.twins[0])
        lines.append("if FLAG:")
        lines += [f"    {line}" for line in [f"def f({_signature(case)}):", *_body(case)]]
        lines.append("else:")
        lines += [f"    {line}" for line in [f"def f({_signature(other)}):", *_body(case)]]
    else:
        for twin in binding.twins:
            lines += [
                f"@{binding.overload}",
                f"def f({_signature(replace(case, params=twin))}): ...",
            ]
        lines += [f"def f({_signature(case)}):", *_body(case)]
    argument = f"{binding.wrapper}(f)" if binding.wrapper else "f"
    target = "f" if binding.shape.endswith("rebind") else "g"
    if binding.in_body:
        lines += ["def _build():", f"    return jax.jit({argument})", f"{target} = _build()"]
        return "\n".join(lines) + "\n", len(lines) - 2
    lines.append(f"{target} = jax.jit({argument})")
    return "\n".join(lines) + "\n", len(lines) - 1


def _double(shape: str, **kw: Any) -> DoubleBinding:
    fields = {
        "twins": (),
        "overload": "typing.overload",
        "flag": True,
        "in_body": False,
        "wrapper": None,
        **kw,
    }
    return DoubleBinding(_case((X, N), {"x": "pos", "n": "pos"}), shape, **fields)


#: The issue's own shape: ``def f(x, n: Static[int])`` then ``f = jax.jit(f)``; ``f(x, 3)`` twice.
REBIND = _double("rebind")
OVERLOADED = _double("overload", twins=((replace(X, annotation="int"), N),), overload="overload")
BRANCHES = _double(
    "if_else", twins=((X, replace(N, annotation='"Static"')),), flag=False, in_body=True
)


@SITES
@given(double_bindings())
@example(REBIND)
@example(OVERLOADED)
@example(BRANCHES)
@example(replace(OVERLOADED, in_body=True))
def test_def_bound_twice_with_the_same_statics_is_rewritten(binding: DoubleBinding) -> None:
    text, site = render_double(binding)
    out = rewrite_source(text, FILENAME)
    _assert_line_preserving_fixed_point(text, out, {site})
    (call,) = _jit_calls(out)
    assert call.lineno == site + 1
    _assert_declared_statics(call, binding.case, out)


@SITES_RUN
@given(double_bindings())
@example(REBIND)
@example(BRANCHES)
def test_def_bound_twice_runs_with_exactly_the_declared_statics(binding: DoubleBinding) -> None:
    text, _ = render_double(binding)
    out = rewrite_source(text, FILENAME)
    ran = execute(out, FILENAME, "prop_module")
    _exercise(binding.case, ran.f if binding.shape.endswith("rebind") else ran.g, ran._TRACES, out)


#: ``x`` is Static in the ``else`` branch, ``n`` in the ``if`` branch.
SWAPPED = _double(
    "if_else",
    twins=(
        (replace(X, static=True, annotation="Static"), replace(N, static=False, annotation="")),
    ),
)


@SITES
@given(double_bindings(shapes=("if_else",), same=False))
@example(SWAPPED)
def test_branches_with_different_statics_are_refused_at_the_call_site(
    binding: DoubleBinding,
) -> None:
    text, site = render_double(binding)
    with pytest.raises(RewriteError) as caught:
        rewrite_source(text, FILENAME)
    assert caught.value.code == "JR119", caught.value
    assert caught.value.lineno == site + 1, (caught.value, text.splitlines()[site])
