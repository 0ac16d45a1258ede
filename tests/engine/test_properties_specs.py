"""Property tests of issue 20's call sites and specs: transform nests three deep, and two-list
specs written by hand with a marker added.

* A nest of three levels, drawn from the table's transforms (jit, a ``partial`` of jit, vmap,
  checkpoint, grad, value_and_grad) and a pass-through wrapper of the module, applied to a def
  with ``n: Static[int]``, written as an assignment or inside a decorator's arguments: the
  rewrite is exactly the nest written by hand (each level's keywords in place), and the two run
  alike, trace for trace.
* ``@partial(jax.jit, static_argnums=..., static_argnames=...)`` with both lists written and a
  ``Static`` parameter added: JAX reads the two lists apart, so the rewrite adds the marked
  parameters to both and keeps the rest as written; run with every parameter passed by position
  or by name, each parameter is traced exactly when the hand-written jit traces it.

Separate from test_properties.py, which is long already. Examples are derandomized and few: the
file runs in well under a minute on 2 cores.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from depth import examples
from golden_cases import execute
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from jaxrewrite import rewrite_source

FILENAME = "prop_specs.py"
RUN = settings(
    max_examples=examples(25),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# -- 1. transform nests ---------------------------------------------------------------------------

#: A level: (how it is written around ``X``, how it is written by hand with its keywords).
LEVELS: dict[str, tuple[str, str]] = {
    "jit": ("jax.jit(X)", "jax.jit(X, static_argnums=(1,), static_argnames=('n',))"),
    "partial_jit": (
        "partial(jax.jit, inline=True)(X)",
        "partial(jax.jit, inline=True)(X, static_argnums=(1,), static_argnames=('n',))",
    ),
    "vmap": ("jax.vmap(X)", "jax.vmap(X, in_axes=(0, None))"),
    "checkpoint": ("jax.checkpoint(X)", "jax.checkpoint(X, static_argnums=(1,))"),
    "logged": ("logged(X)", "logged(X)"),
}
#: Innermost only: a derivative of the scalar loss (nothing to write; n stays out of argnums).
DERIVATIVES: dict[str, tuple[str, str]] = {
    "grad": ("jax.grad(X)", "jax.grad(X)"),
    "value_and_grad": ("jax.value_and_grad(X)", "jax.value_and_grad(X)"),
}

NEST_MODULE = """\
# jaxrewrite: enable
from functools import partial

import jax
from jaxrewrite import Static

TRACES = []


def logged(fn):
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)

    return inner


def loss(x, n: Static[int]):
    TRACES.append("rewritten")
    y = x
    for _ in range(n - 1):
        y = y * x
    return y.sum()


def loss_by_hand(x, n):
    TRACES.append("by hand")
    y = x
    for _ in range(n - 1):
        y = y * x
    return y.sum()


def holding(helper):
    def decorate(fn):
        fn.helper = helper
        return fn

    return decorate


{site}
hand = {hand}
"""


@dataclass(frozen=True)
class Nest:
    levels: tuple[str, ...]  # outermost first
    in_decorator: bool


def _spell(levels: tuple[str, ...], inner: str, hand: bool) -> str:
    text = inner
    for level in reversed(levels):
        written, by_hand = {**LEVELS, **DERIVATIVES}[level]
        text = (by_hand if hand else written).replace("X", text)
    return text


def _render(nest: Nest) -> tuple[str, str]:
    """(the module as written, the module the rewrite must make of it)."""

    def site(hand: bool) -> str:
        expr = _spell(nest.levels, "loss", hand)
        if nest.in_decorator:
            return (
                f"@holding({expr})\ndef step(x, n):\n    return step.helper(x, n)\n\n\nnest = step"
            )
        return f"nest = {expr}"

    hand = _spell(nest.levels, "loss_by_hand", True)
    return NEST_MODULE.format(site=site(False), hand=hand), NEST_MODULE.format(
        site=site(True), hand=hand
    )


@st.composite
def nests(draw: st.DrawFn) -> Nest:
    derivative = draw(st.sampled_from((None, *DERIVATIVES)))
    outer = draw(
        st.lists(
            st.sampled_from(tuple(LEVELS)),
            min_size=2 if derivative else 3,
            max_size=2 if derivative else 3,
        )
    )
    return Nest((*outer, derivative) if derivative else tuple(outer), draw(st.booleans()))


def _leaves(value: Any) -> list[np.ndarray]:
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(value)]


@RUN
@given(nests())
@example(Nest(("jit", "vmap", "grad"), False))  # the issue's own nest
@example(Nest(("jit", "vmap", "vmap"), True))
@example(Nest(("partial_jit", "checkpoint", "logged", "value_and_grad"), False))
def test_every_level_of_a_nest_gets_the_statics_and_runs_as_by_hand(nest: Nest) -> None:
    text, expected = _render(nest)
    out = rewrite_source(text, FILENAME)
    assert out == expected, "\n" + out
    ran = execute(out, FILENAME, "prop_specs")
    batch = sum(level == "vmap" for level in nest.levels)
    x = jnp.arange(1.0, 1.0 + 2**batch * 3).reshape((2,) * batch + (3,)) / 10
    counts = {}
    for name, who in (("nest", "rewritten"), ("hand", "by hand")):
        f = getattr(ran, name)
        results = [f(x, 3), f(x * 2, 3), f(x, 2)]
        counts[who] = ran.TRACES.count(who)
        if name == "nest":
            got = results
        else:
            for mine, theirs in zip(got, results):
                for a, b in zip(_leaves(mine), _leaves(theirs)):
                    np.testing.assert_allclose(a, b, rtol=1e-6)
    assert counts["rewritten"] == counts["by hand"], counts


# -- 2. two lists written, a marker added ----------------------------------------------------------

NAMES = ("n", "k", "m", "s", "t")


@dataclass(frozen=True)
class TwoLists:
    kinds: tuple[str, ...]  # of the parameters after ``x``: "regular" or "kwonly"
    marked: frozenset[int]  # indices into NAMES (Static parameters)
    user_nums: tuple[int, ...]
    user_names: tuple[str, ...]
    by_name: frozenset[int]  # regular parameters passed by name in the call (a suffix of them)


@st.composite
def two_lists(draw: st.DrawFn) -> TwoLists:
    size = draw(st.integers(2, len(NAMES)))
    kinds = sorted(
        draw(st.lists(st.sampled_from(("regular", "kwonly")), min_size=size, max_size=size)),
        key=lambda kind: kind == "kwonly",
    )
    indices = range(size)
    marked = frozenset(draw(st.sets(st.sampled_from(indices), min_size=1, max_size=2)))
    regular = [i for i in indices if kinds[i] == "regular"]
    user_nums = tuple(
        sorted(
            i + 1 for i in draw(st.sets(st.sampled_from(regular)) if regular else st.just(set()))
        )
    )
    user_names = tuple(NAMES[i] for i in sorted(draw(st.sets(st.sampled_from(indices)))))
    cut = draw(st.integers(0, len(regular)))  # a call passes a suffix of them by name
    by_name = frozenset(regular[cut:])
    return TwoLists(tuple(kinds), marked, user_nums, user_names, by_name)


def _params(case: TwoLists) -> list[tuple[str, str, bool]]:
    return [(NAMES[i], kind, i in case.marked) for i, kind in enumerate(case.kinds)]


def _expected(case: TwoLists) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """What JAX must be given: the user's lists as written, each marked parameter in both."""
    nums = set(case.user_nums)
    names = set(case.user_names)
    for i, (name, kind, marked) in enumerate(_params(case)):
        if marked:
            names.add(name)
            if kind == "regular":
                nums.add(i + 1)
    return tuple(sorted(nums)), tuple(name for name, _, _ in _params(case) if name in names)


def _def(name: str, case: TwoLists, marks: bool) -> str:
    parts, star = ["x"], False
    for pname, kind, marked in _params(case):
        if kind == "kwonly" and not star:
            parts.append("*")
            star = True
        parts.append(f"{pname}: Static[int]" if marked and marks else pname)
    names = [p for p, _, _ in _params(case)]
    return (
        f"def {name}({', '.join(parts)}):\n"
        f"    TRACES.append(({name!r}, "
        f"{', '.join(f'isinstance({p}, jax.core.Tracer)' for p in names)},))\n"
        f"    return x + {' + '.join(names)}\n"
    )


def _two_list_module(case: TwoLists) -> str:
    spec = (
        f"@partial(jax.jit, static_argnums={case.user_nums!r}, static_argnames={case.user_names!r})"
    )
    nums, names = _expected(case)
    return (
        "# jaxrewrite: enable\nfrom functools import partial\n\nimport jax\n"
        "from jaxrewrite import Static\n\n"
        "TRACES = []\n\n\n" + spec + "\n" + _def("f", case, True) + "\n\n"
        f"@partial(jax.jit, static_argnums={nums!r}, static_argnames={names!r})\n"
        + _def("by_hand", case, False)
    )


@RUN
@given(two_lists())
@example(
    TwoLists(("regular", "regular", "regular"), frozenset({2}), (1,), ("k",), frozenset({0, 1, 2}))
)  # the issue's, by name
@example(
    TwoLists(("regular", "regular", "regular"), frozenset({2}), (1,), ("k",), frozenset())
)  # by position
def test_two_written_lists_keep_their_meaning_when_a_marker_is_added(case: TwoLists) -> None:
    text = _two_list_module(case)
    out = rewrite_source(text, FILENAME)
    decorator = next(line for line in out.splitlines() if line.startswith("@partial"))
    call = ast.parse(decorator[1:]).body[0].value  # type: ignore[attr-defined]
    written = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    nums, names = _expected(case)
    assert (tuple(written["static_argnums"]), tuple(written["static_argnames"])) == (nums, names), (
        decorator
    )
    ran = execute(out, FILENAME, "prop_two_lists")
    args: list[Any] = [jnp.ones(2)]
    kwargs: dict[str, Any] = {}
    for i, (name, kind, _) in enumerate(_params(case)):
        keyword = kind == "kwonly" or i in case.by_name
        static = name in names if keyword else i + 1 in nums
        value = (
            (i + 2) if static else jnp.asarray(float(i + 2))
        )  # traced ones get arrays: unhashable
        (kwargs.__setitem__(name, value) if keyword else args.append(value))
    for fn in (ran.f, ran.by_hand):
        out1, out2 = fn(*args, **kwargs), fn(*args, **kwargs)
        np.testing.assert_allclose(np.asarray(out1), np.asarray(out2))
    mine = [t[1:] for t in ran.TRACES if t[0] == "f"]
    theirs = [t[1:] for t in ran.TRACES if t[0] == "by_hand"]
    assert mine == theirs and len(mine) == 1, (mine, theirs, textwrap.indent(out, "  "))
    np.testing.assert_allclose(
        np.asarray(ran.f(*args, **kwargs)), np.asarray(ran.by_hand(*args, **kwargs))
    )
