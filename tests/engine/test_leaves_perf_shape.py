"""The per-call path of ``static_leaves`` and ``pmap_leaves``: generated code, checked by form.

The call path is compiled per shape of per-leaf specs, with a plain-dict fast path, unrolled
pops and plain calls for the common arities (see ``jaxrewrite/leaves.py``). These tests pin
what it hands the transform for every way of calling (by position at each arity, by keyword,
not at all, a Mapping or NamedTuple instead of a dict, a key missing): the held values first,
then the arguments as given with the dynamic part in place, the caller's container untouched.
Then what that means under the real ``jax.jit`` and ``jax.pmap``: one cache entry per held
value, precise errors, options shifted past the new leading argument. They run on the floor
JAX (0.4.30) too.
"""

from __future__ import annotations

import collections
import functools
import types
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import pytest

from jaxrewrite.leaves import MISSING, pmap_leaves, static_leaves

Record = tuple[tuple[Any, ...], dict[str, Any]]


def _recording(seen: list[dict[str, Any]]) -> Callable[..., Any]:
    """A transform like jax.jit that records its keywords and, per call, what it is handed."""

    def transform(fun: Callable[..., Any], *args: Any, **keywords: Any) -> Callable[..., Any]:
        seen.append(keywords)

        def call(*a: Any, **kw: Any) -> Record:
            return a, kw

        return call

    return transform


def _split(leaves: Any, helper: Callable[..., Any] = static_leaves) -> Any:
    """The helper over a recording transform, with the options the rewrite writes for it."""
    options = {"static_argnums": (), "static_argnames": ()} if helper is static_leaves else {}
    return helper(_recording([]), lambda *a, **k: None, leaves, **options)


ONE = (("cfg", 0, "dict", ("n", "act")),)


class Pair(NamedTuple):
    a: Any
    op: str


# --- what the transform is handed ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda f, c: f(c), (((2, abs), {"x": 1.0}), {})),
        (lambda f, c: f(c, 5), (((2, abs), {"x": 1.0}, 5), {})),
        (lambda f, c: f(c, 5, 6), (((2, abs), {"x": 1.0}, 5, 6), {})),
        (lambda f, c: f(c, 5, 6, 7), (((2, abs), {"x": 1.0}, 5, 6, 7), {})),
        (lambda f, c: f(c, k=5), (((2, abs), {"x": 1.0}), {"k": 5})),
        (lambda f, c: f(c, 5, k=6), (((2, abs), {"x": 1.0}, 5), {"k": 6})),
        (lambda f, c: f(cfg=c), (((2, abs),), {"cfg": {"x": 1.0}})),
        (lambda f, c: f(cfg=c, k=5), (((2, abs),), {"cfg": {"x": 1.0}, "k": 5})),
        (lambda f, c: f(), ((None,), {})),
        (lambda f, c: f(k=5), ((None,), {"k": 5})),
    ],
    ids=["one", "two", "three", "four", "kw", "pos-kw", "by-name", "by-name-kw", "none", "none-kw"],
)
def test_every_call_form_hands_on_the_held_values_first(
    call: Callable[..., Record], expected: Record
) -> None:
    f = _split(ONE)
    cfg = {"x": 1.0, "n": 2, "act": abs}
    assert call(f, cfg) == expected
    assert cfg == {"x": 1.0, "n": 2, "act": abs}  # the caller's dict is not modified


@pytest.mark.parametrize("position", [1, 2, 4])
def test_a_later_position_keeps_the_arguments_around_it(position: int) -> None:
    f = _split((("cfg", position, "dict", ("n",)),))
    before = tuple(range(position))
    assert f(*before, {"x": 1, "n": 2}) == (((2,), *before, {"x": 1}), {})
    assert f(*before, {"x": 1, "n": 2}, "after") == (((2,), *before, {"x": 1}, "after"), {})
    assert f(*before, {"x": 1, "n": 2}, "a", "b", k=1) == (
        ((2,), *before, {"x": 1}, "a", "b"),
        {"k": 1},
    )
    assert f(*before[:-1]) == ((None, *before[:-1]), {})


def test_a_mapping_splits_like_the_dict_it_equals() -> None:
    f = _split(ONE)
    plain = f({"x": 1.0, "n": 2, "act": abs})
    for other in (
        collections.OrderedDict(x=1.0, n=2, act=abs),
        types.MappingProxyType({"x": 1.0, "n": 2, "act": abs}),
    ):
        (held, dynamic), kwargs = f(other)
        assert (held, dynamic) == plain[0] and type(dynamic) is dict and kwargs == {}


def test_a_missing_key_is_held_as_missing() -> None:
    f = _split(ONE)
    assert f({"x": 1.0, "act": abs}) == (((MISSING, abs), {"x": 1.0}), {})
    assert f(collections.OrderedDict(x=1.0)) == (((MISSING, MISSING), {"x": 1.0}), {})
    assert repr(MISSING) == "MISSING" and MISSING == MISSING and hash(MISSING) == hash(MISSING)


def test_a_namedtuple_keeps_its_fields_as_none() -> None:
    f = _split((("pair", 1, "namedtuple", ("op",)),))
    assert f(0, Pair(1.0, "add")) == ((("add",), 0, Pair(1.0, None)), {})  # type: ignore[arg-type]
    assert f(0, pair=Pair(1.0, "mul")) == ((("mul",), 0), {"pair": Pair(1.0, None)})  # type: ignore[arg-type]


def test_several_per_leaf_parameters_each_get_an_entry() -> None:
    leaves = (
        ("a", 0, "dict", ("n",)),
        ("p", 2, "namedtuple", ("op",)),
        ("kw", None, "dict", ("m",)),
    )
    f = _split(leaves)
    a, p = {"x": 1, "n": 2}, Pair(3, "add")
    expected_args = (((2,), ("add",), (4,)), {"x": 1}, "mid", Pair(3, None))  # type: ignore[arg-type]
    assert f(a, "mid", p, kw={"m": 4, "y": 5}) == (expected_args, {"kw": {"y": 5}})
    assert f(a, "mid") == ((((2,), None, None), {"x": 1}, "mid"), {})
    assert f(a=a, p=p) == ((((2,), ("add",), None),), {"a": {"x": 1}, "p": Pair(3, None)})  # type: ignore[arg-type]
    assert a == {"x": 1, "n": 2} and p.op == "add"


def test_pmap_holds_none_at_the_static_entries_and_keeps_missing_keys_absent() -> None:
    f = _split(ONE, pmap_leaves)
    assert f({"x": 1.0, "n": 2, "act": abs}, 5) == (
        ((2, abs), {"x": 1.0, "n": None, "act": None}, 5),
        {},
    )
    assert f(collections.OrderedDict(x=1.0, n=2, act=abs)) == (
        ((2, abs), {"x": 1.0, "n": None, "act": None}),
        {},
    )
    assert f({"x": 1.0, "act": abs}) == (((MISSING, abs), {"x": 1.0, "act": None}), {})
    assert f(cfg={"x": 1.0, "n": 2}) == (((2, MISSING),), {"cfg": {"x": 1.0, "n": None}})


def test_a_wrong_container_is_refused_on_every_path() -> None:
    f = _split(ONE)
    calls: list[Callable[[], Any]] = [lambda: f([1]), lambda: f([1], 2), lambda: f(cfg=[1])]
    for call in calls:
        with pytest.raises(TypeError, match="argument 'cfg' must be a dict .*got list"):
            call()
    g = _split((("pair", 0, "namedtuple", ("op",)),))
    with pytest.raises(TypeError, match="argument 'pair' must be a NamedTuple .*got dict"):
        g({"op": "add"})


@pytest.mark.parametrize(
    "leaves",
    [
        (("d", "0)\nimport os", "dict", ("n",)),),
        (("d", -1, "dict", ("n",)),),
        (("d", 0, "list", ("n",)),),
        ((0, 0, "dict", ("n",)),),
        (("d", 0, "dict", (1,)),),
    ],
    ids=["position-text", "negative", "kind", "name", "key"],
)
def test_a_malformed_spec_is_refused_before_any_code_is_generated(leaves: Any) -> None:
    with pytest.raises((TypeError, ValueError)):
        static_leaves(jax.jit, lambda d: d, leaves, static_argnums=(), static_argnames=())


# --- the transform's options ------------------------------------------------------------------


def test_static_and_donated_positions_shift_past_the_held_argument() -> None:
    seen: list[dict[str, Any]] = []
    transform = functools.partial(_recording(seen), static_argnums=(9,), donate_argnums=(0, -1))
    static_leaves(transform, lambda *a: None, ONE, static_argnums=(2, -2), static_argnames=("k",))
    # donate_argnums alone: its names are completed against the function, as JAX completes them
    # (none here: ``*a`` has no names), so the wrapper's own signature is never asked.
    assert seen == [
        {
            "static_argnums": (0, 3, -2),
            "static_argnames": ("k",),
            "donate_argnums": (1, -1),
            "donate_argnames": (),
        }
    ]
    seen.clear()
    static_leaves(_recording(seen), lambda *a: None, ONE, static_argnums=1, static_argnames=())
    assert seen == [{"static_argnums": (0, 2), "static_argnames": ()}]


# --- under the real transforms --------------------------------------------------------------------


def _traced(body: Callable[..., Any]) -> tuple[Callable[..., Any], list[Any]]:
    traces: list[Any] = []

    def fun(cfg: Any, *rest: Any, **kwargs: Any) -> Any:
        traces.append(cfg.get("n", "absent"))
        return body(cfg, *rest, **kwargs)

    return fun, traces


SPEC = (("cfg", 0, "dict", ("n",)),)


def test_jit_one_trace_per_held_value_whatever_the_mapping_type() -> None:
    fun, traces = _traced(lambda cfg: cfg["x"] * cfg.get("n", 1))
    f = static_leaves(jax.jit, fun, SPEC, static_argnums=(), static_argnames=())
    assert float(f({"x": jnp.float32(2.0), "n": 3})) == 6.0
    assert float(f(collections.OrderedDict(x=jnp.float32(1.0), n=3))) == 3.0  # the same entry
    assert float(f({"x": jnp.float32(2.0)})) == 2.0  # a missing key: a new entry, absent inside
    assert float(f({"x": jnp.float32(5.0)})) == 5.0
    assert traces == [3, "absent"]


def test_jit_with_in_shardings_counts_dynamic_arguments_only() -> None:
    sharding = jax.sharding.SingleDeviceSharding(jax.devices()[0])

    def fun(x: Any, cfg: Any) -> Any:
        return x * cfg["scale"] * cfg["n"]

    leaves = (("cfg", 1, "dict", ("n",)),)
    f = static_leaves(
        jax.jit,
        fun,
        leaves,
        in_shardings=(sharding, sharding),
        static_argnums=(),
        static_argnames=(),
    )
    assert f(jnp.ones(2), {"scale": jnp.float32(2.0), "n": 3}).tolist() == [6.0, 6.0]


def test_a_user_keyword_cannot_collide_with_the_held_argument() -> None:
    def fun(cfg: Any, held: Any = 1.0, _jaxrewrite_held: Any = 1.0) -> Any:
        return cfg["x"] * cfg["n"] * held * _jaxrewrite_held

    f = static_leaves(jax.jit, fun, SPEC, static_argnums=(), static_argnames=())
    assert float(f({"x": jnp.float32(1.0), "n": 2}, held=3.0, _jaxrewrite_held=5.0)) == 30.0
    n = jax.local_device_count()
    g = pmap_leaves(jax.pmap, fun, SPEC)
    assert g({"x": jnp.ones(n), "n": 2}, held=jnp.full(n, 3.0)).tolist() == [6.0] * n


@pytest.mark.parametrize("how", ["call", "keyword", "lower", "pmap"])
def test_an_unhashable_static_entry_is_named(how: str) -> None:
    fun, _ = _traced(lambda cfg: cfg["x"])
    f: Any = static_leaves(jax.jit, fun, SPEC, static_argnums=(), static_argnames=())
    bad = {"x": jnp.ones(jax.local_device_count()), "n": [1, 2]}
    calls = {
        "call": lambda: f(bad),
        "keyword": lambda: f(cfg=bad),
        "lower": lambda: f.lower(bad),
        "pmap": lambda: pmap_leaves(jax.pmap, fun, SPEC)(bad),
    }
    with pytest.raises(
        ValueError, match=r"static entry 'n' of argument 'cfg' is list \[1, 2\]"
    ) as info:
        calls[how]()
    assert "Non-hashable static arguments are not supported" in str(info.value)
    assert isinstance(info.value.__cause__, ValueError)  # JAX's own error, kept as the cause


def test_an_error_raised_while_tracing_passes_through_unchanged() -> None:
    def fun(cfg: Any) -> Any:
        raise ValueError("from the user's function")

    f = static_leaves(jax.jit, fun, SPEC, static_argnums=(), static_argnames=())
    with pytest.raises(ValueError, match="^from the user's function") as info:
        f({"x": jnp.ones(2), "n": 1})
    assert "static entry" not in str(info.value)
