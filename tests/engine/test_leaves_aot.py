"""Ahead-of-time use of a per-leaf wrapper (``lower``, ``trace``, ``eval_shape``), and what else a
jitted function answers (``_cache_size``, ``clear_cache``).

``static_leaves`` returns a wrapper around ``jax.jit(inner, ...)``; these tests check that the
wrapper offers what ``jax.jit``'s result offers, with the static entries split out exactly as a
call splits them (so a static entry still drives Python control flow: the output shape below
depends on ``steps``). The compiled executable takes what the wrapper takes (issue 20, item 7):
the whole container, whose static entries must be those it was lowered for; as with
``jax.jit``'s own static arguments, a whole static argument is left out of its call.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxrewrite.leaves import pmap_leaves, static_leaves

DICT_LEAVES = (("cfg", 1, "dict", ("steps",)),)
TUPLE_LEAVES = (("cfg", 1, "namedtuple", ("steps",)),)


class Cfg(NamedTuple):
    scale: Any
    steps: int | None  # None in the dynamic part the split leaves


def _counted() -> tuple[Callable[..., Any], list[int]]:
    """A function whose output shape depends on the static entry, and its trace counter."""
    traces = [0]

    def fun(x: Any, cfg: Any) -> Any:
        traces[0] += 1
        steps = cfg["steps"] if isinstance(cfg, dict) else cfg.steps
        scale = cfg["scale"] if isinstance(cfg, dict) else cfg.scale
        assert isinstance(steps, int)  # static: a Python int inside the trace, not a tracer
        return jnp.stack([x * scale] * steps)

    return fun, traces


def _dict_fn() -> tuple[Any, list[int]]:
    fun, traces = _counted()
    return static_leaves(jax.jit, fun, DICT_LEAVES, static_argnums=(), static_argnames=()), traces


def _tuple_fn() -> tuple[Any, list[int]]:
    fun, traces = _counted()
    return static_leaves(jax.jit, fun, TUPLE_LEAVES, static_argnums=(), static_argnames=()), traces


X = jnp.arange(3.0, dtype=jnp.float32)
SCALE = jnp.float32(2.0)


def _expected(steps: int, scale: float = 2.0) -> np.ndarray:
    return np.stack([np.arange(3.0, dtype=np.float32) * scale] * steps)


# --- lower ------------------------------------------------------------------------------


@pytest.mark.parametrize("by_keyword", [False, True])
def test_lower_dict_compiles_and_runs_like_a_call(by_keyword: bool) -> None:
    f, _ = _dict_fn()
    cfg = {"steps": 4, "scale": SCALE}
    lowered = f.lower(X, cfg=cfg) if by_keyword else f.lower(X, cfg)
    text = lowered.as_text()
    assert isinstance(text, str) and "4x3xf32" in text
    compiled = lowered.compile()
    # The executable takes what f takes: the whole dict, static entry included.
    out = compiled(X, cfg=cfg) if by_keyword else compiled(X, cfg)
    np.testing.assert_allclose(out, f(X, cfg))
    np.testing.assert_allclose(out, _expected(4))
    # New dynamic values, same executable.
    cfg = {"steps": 4, "scale": jnp.float32(3.0)}
    out = compiled(X, cfg=cfg) if by_keyword else compiled(X, cfg)
    np.testing.assert_allclose(out, _expected(4, 3.0))


def test_lower_namedtuple_compiles_and_runs_like_a_call() -> None:
    f, _ = _tuple_fn()
    cfg = Cfg(scale=SCALE, steps=5)
    lowered = f.lower(X, cfg)
    assert "5x3xf32" in lowered.as_text()
    compiled = lowered.compile()
    out = compiled(X, cfg)
    np.testing.assert_allclose(out, f(X, cfg))
    np.testing.assert_allclose(out, _expected(5))
    assert "5x3xf32" in f.lower(X, cfg=cfg).as_text()


def test_lower_static_entry_picks_the_program() -> None:
    f, _ = _dict_fn()
    two = f.lower(X, {"steps": 2, "scale": SCALE}).as_text()
    six = f.lower(X, {"steps": 6, "scale": SCALE}).as_text()
    assert "2x3xf32" in two and "6x3xf32" not in two
    assert "6x3xf32" in six


def test_lower_leaves_the_callers_container_alone() -> None:
    f, _ = _dict_fn()
    cfg = {"steps": 3, "scale": SCALE}
    f.lower(X, cfg)
    f.eval_shape(X, cfg=cfg)
    f.trace(X, cfg)
    assert cfg == {"steps": 3, "scale": SCALE}


def test_lower_rejects_what_a_call_rejects() -> None:
    f, _ = _dict_fn()
    with pytest.raises(TypeError, match="must be a dict"):
        f(X, [1, 2])
    with pytest.raises(TypeError, match="must be a dict"):
        f.lower(X, [1, 2])
    g, _ = _tuple_fn()
    with pytest.raises(TypeError, match="must be a NamedTuple"):
        g.eval_shape(X, {"steps": 1})


# --- eval_shape ---------------------------------------------------------------------------


@pytest.mark.parametrize("make", [_dict_fn, _tuple_fn], ids=["dict", "namedtuple"])
@pytest.mark.parametrize("by_keyword", [False, True])
def test_eval_shape_follows_the_static_entry(make: Callable[[], Any], by_keyword: bool) -> None:
    f, _ = make()
    for steps in (1, 4):
        cfg: Any = {"steps": steps, "scale": SCALE} if make is _dict_fn else Cfg(SCALE, steps)
        shape = f.eval_shape(X, cfg=cfg) if by_keyword else f.eval_shape(X, cfg)
        assert isinstance(shape, jax.ShapeDtypeStruct)
        assert shape.shape == (steps, 3)
        assert shape.dtype == jnp.float32


def test_eval_shape_accepts_shape_structs_for_dynamic_entries() -> None:
    f, _ = _dict_fn()
    spec = jax.ShapeDtypeStruct((7,), jnp.int32)
    shape = f.eval_shape(spec, {"steps": 2, "scale": jax.ShapeDtypeStruct((), jnp.int32)})
    assert (shape.shape, shape.dtype) == ((2, 7), jnp.int32)


# --- trace --------------------------------------------------------------------------------


@pytest.mark.parametrize("by_keyword", [False, True])
def test_trace_gives_a_jaxpr_and_lowers(by_keyword: bool) -> None:
    f, _ = _dict_fn()
    cfg = {"steps": 3, "scale": SCALE}
    traced = f.trace(X, cfg=cfg) if by_keyword else f.trace(X, cfg)
    jaxpr = traced.jaxpr
    # Only the dynamic leaves (x, scale) are inputs; the output has the static-driven shape.
    assert len(jaxpr.in_avals) == 2
    assert [aval.shape for aval in jaxpr.out_avals] == [(3, 3)]
    lowered = traced.lower()
    assert "3x3xf32" in lowered.as_text()
    compiled = lowered.compile()
    np.testing.assert_allclose(
        compiled(X, cfg=cfg) if by_keyword else compiled(X, cfg), _expected(3)
    )


def test_trace_namedtuple() -> None:
    f, _ = _tuple_fn()
    traced = f.trace(X, Cfg(SCALE, 2))
    assert [aval.shape for aval in traced.jaxpr.out_avals] == [(2, 3)]


# --- several per-leaf parameters, defaults ------------------------------------------------


def test_two_per_leaf_parameters_and_a_default() -> None:
    traces = [0]
    default = {"n": 1, "bias": jnp.float32(0.0)}

    def fun(x: Any, a: Any, b: Any = default) -> Any:
        traces[0] += 1
        return jnp.stack([x + b["bias"]] * (a["n"] * b["n"]))

    leaves = (("a", 1, "dict", ("n",)), ("b", 2, "dict", ("n",)))
    f: Any = static_leaves(jax.jit, fun, leaves, static_argnums=(), static_argnames=())
    b = {"n": 3, "bias": jnp.float32(1.0)}
    assert f.eval_shape(X, {"n": 2}, b).shape == (6, 3)
    assert f.eval_shape(X, {"n": 2}, b=b).shape == (6, 3)
    assert f.eval_shape(X, a={"n": 5}).shape == (5, 3)  # b's default, used untraced
    compiled = f.lower(X, {"n": 2}, b).compile()
    np.testing.assert_allclose(compiled(X, {"n": 2}, b), f(X, {"n": 2}, b))
    with pytest.raises(
        TypeError, match=r"argument 'b': .* lowered for the static entries \{'n': 3\}"
    ):
        compiled(X, {"n": 2}, {"n": 4, "bias": jnp.float32(1.0)})
    assert [aval.shape for aval in f.trace(X, {"n": 1}).jaxpr.out_avals] == [(1, 3)]


# --- tracing is shared with calls -----------------------------------------------------------


def test_dynamic_entries_are_not_in_the_cache_key() -> None:
    f, traces = _dict_fn()
    f.lower(X, {"steps": 2, "scale": SCALE})
    assert traces == [1]
    # The same static entry with another dynamic value: JAX's trace cache, as for a call.
    f.lower(X, {"steps": 2, "scale": jnp.float32(5.0)})
    f.eval_shape(X, {"steps": 2, "scale": jnp.float32(6.0)})
    np.testing.assert_allclose(f(X, {"steps": 2, "scale": jnp.float32(1.0)}), _expected(2, 1.0))
    assert traces == [1]
    f.eval_shape(X, {"steps": 3, "scale": SCALE})  # a new static entry: a new trace
    assert traces == [2]
    # As with jax.jit, passing the argument by keyword is another cache entry.
    f.eval_shape(X, cfg={"steps": 3, "scale": SCALE})
    f.lower(X, cfg={"steps": 3, "scale": jnp.float32(7.0)})
    assert traces == [3]


def test_clear_cache_is_forwarded() -> None:
    f, traces = _dict_fn()
    cfg = {"steps": 2, "scale": SCALE}
    f(X, cfg)
    f(X, cfg)
    assert traces == [1]
    f.clear_cache()
    f(X, cfg)
    assert traces == [2]


# --- what the wrapper carries -----------------------------------------------------------------


#: What jax.jit's result answers from its C type's slots, for the type's own protocols (pickle's
#: state, the vectorcall offset); a function has its own. Nothing else may be missing.
TYPE_SLOTS = {"__getstate__", "__setstate__", "__vectorcalloffset__"}


def _hand_twin() -> tuple[Any, list[int]]:
    """The same function by hand in plain JAX: the static entry as a static argument."""
    traces = [0]

    def hand(x: Any, scale: Any, steps: int) -> Any:
        traces[0] += 1
        return jnp.stack([x * scale] * steps)

    return jax.jit(hand, static_argnames="steps"), traces


def test_the_wrapper_answers_everything_a_jitted_function_answers() -> None:
    """On this JAX (the floor's CI leg runs it on the oldest one): every attribute of
    jax.jit's result, delegated."""
    fun, _ = _counted()
    jitted = jax.jit(fun)
    f: Any = static_leaves(jax.jit, fun, DICT_LEAVES, static_argnums=(), static_argnames=())
    missing = set(dir(jitted)) - set(dir(f))
    assert missing <= TYPE_SLOTS, missing - TYPE_SLOTS
    assert all(name in type(jitted).__dict__ for name in missing)
    assert f._fun is fun is jitted._fun
    assert inspect.signature(f) == inspect.signature(jitted) == inspect.signature(fun)
    if hasattr(jitted, "__signature__"):
        assert f.__signature__ == jitted.__signature__


def test_cache_size_counts_compiles_as_for_jax_jit_by_hand() -> None:
    f, traces = _dict_fn()
    hand, hand_traces = _hand_twin()
    calls = [
        (X, 2, SCALE),
        (X, 2, jnp.float32(5.0)),  # another dynamic value: the same executable
        (X, 3, SCALE),  # another static entry: a compile
        (jnp.arange(4.0, dtype=jnp.float32), 3, SCALE),  # another shape: a compile
        (X, 2, SCALE),
    ]
    for x, steps, scale in calls:
        expected = hand(x, scale, steps=steps)
        np.testing.assert_allclose(f(x, {"steps": steps, "scale": scale}), expected)
        assert f._cache_size() == hand._cache_size()
        assert traces == hand_traces
    assert f._cache_size() == 3
    f.clear_cache()
    hand.clear_cache()
    assert f._cache_size() == hand._cache_size() == 0
    f(X, {"steps": 2, "scale": SCALE})
    assert f._cache_size() == 1 and traces == [4]
    f._clear_cache()
    assert f._cache_size() == 0


def test_cache_miss_takes_the_call_arguments() -> None:
    """``_cache_miss`` (what JAX's C++ path calls on a miss) takes the user's arguments, split."""
    f, traces = _dict_fn()
    out = f._cache_miss(X, {"steps": 4, "scale": SCALE})[0]
    np.testing.assert_allclose(out, _expected(4))
    assert traces == [1]
    assert f._cache_miss.__qualname__.endswith(".fun._cache_miss")


def test_pmap_wrapper_answers_everything_jax_pmap_answers() -> None:
    fun, _ = _counted()
    mapped = jax.pmap(fun, in_axes=(0, None))
    f: Any = pmap_leaves(jax.pmap, fun, DICT_LEAVES, in_axes=(0, None))
    missing = set(dir(mapped)) - set(dir(f))
    assert missing <= TYPE_SLOTS, missing - TYPE_SLOTS


def test_wrapper_metadata() -> None:
    fun, _ = _counted()
    f: Any = static_leaves(jax.jit, fun, DICT_LEAVES, static_argnums=(), static_argnames=())
    assert f.__wrapped__ is fun
    assert f.__name__ == "fun" and f.__qualname__ == fun.__qualname__
    assert f.__module__ == fun.__module__
    assert callable(f.jitted) and hasattr(f.jitted, "lower")
    assert f.lower.__name__ == "lower" and f.lower.__qualname__ == f"{fun.__qualname__}.lower"
    assert f.eval_shape.__name__ == "eval_shape" and f.trace.__name__ == "trace"


def _plain_jit(**methods: bool) -> Callable[..., Any]:
    """A transform like jax.jit whose result has only the named AOT methods (an older JAX)."""

    def transform(fun: Callable[..., Any], **keywords: Any) -> Callable[..., Any]:
        jitted = jax.jit(fun, **keywords)

        def call(*args: Any, **kwargs: Any) -> Any:
            return jitted(*args, **kwargs)

        for name, present in methods.items():
            if present:
                setattr(call, name, getattr(jitted, name))
        return call

    return transform


def test_a_method_the_transform_lacks_stays_absent() -> None:
    fun, _ = _counted()
    older = _plain_jit(lower=True, eval_shape=True)
    f: Any = static_leaves(older, fun, DICT_LEAVES, static_argnums=(), static_argnames=())
    cfg = {"steps": 2, "scale": SCALE}
    np.testing.assert_allclose(f(X, cfg), _expected(2))
    assert "2x3xf32" in f.lower(X, cfg).as_text()
    assert f.eval_shape(X, cfg).shape == (2, 3)
    for missing in ("trace", "clear_cache"):
        assert not hasattr(f, missing)
        with pytest.raises(AttributeError):
            getattr(f, missing)

    bare = static_leaves(_plain_jit(), fun, DICT_LEAVES, static_argnums=(), static_argnames=())
    for missing in ("lower", "trace", "eval_shape", "clear_cache"):
        assert not hasattr(bare, missing)


def test_the_methods_reach_the_jitted_function_with_the_held_entries_first() -> None:
    """What ``lower`` hands on: the held values as a new leading static argument, then the
    arguments as given with the dynamic rest in place of the per-leaf one."""
    seen: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def transform(fun: Callable[..., Any], **keywords: Any) -> Callable[..., Any]:
        assert keywords["static_argnums"] == (0,) and keywords["static_argnames"] == ()
        jitted = jax.jit(fun, **keywords)

        def call(*args: Any, **kwargs: Any) -> Any:
            return jitted(*args, **kwargs)

        def lower(*args: Any, **kwargs: Any) -> Any:
            seen.append((args, dict(kwargs)))
            return jitted.lower(*args, **kwargs)

        call.lower = lower  # type: ignore[attr-defined]
        return call

    fun, _ = _counted()
    f: Any = static_leaves(transform, fun, DICT_LEAVES, static_argnums=(), static_argnames=())
    f.lower(X, {"steps": 2, "scale": SCALE})
    f.lower(X, cfg={"steps": 3, "scale": SCALE})
    (args0, kwargs0), (args1, kwargs1) = seen
    assert args0[0] == (2,) and args0[2] == {"scale": SCALE} and kwargs0 == {}
    assert args1[0] == (3,) and kwargs1 == {"cfg": {"scale": SCALE}}


# --- the executable takes what the wrapper takes (issue 20, item 7) ----------------------------


def test_compiled_takes_what_the_wrapper_takes_and_matches_jax_jit_by_hand() -> None:
    f, traces = _dict_fn()
    cfg = {"steps": 3, "scale": SCALE}
    compiled = f.lower(X, cfg).compile()
    hand = jax.jit(lambda x, scale, steps: jnp.stack([x * scale] * steps), static_argnums=2)
    expected = hand.lower(X, SCALE, 3).compile()(X, SCALE)  # JAX's executable: statics left out
    np.testing.assert_allclose(compiled(X, cfg), expected)
    np.testing.assert_allclose(
        compiled(X, {"scale": jnp.float32(4.0), "steps": 3}), _expected(3, 4.0)
    )
    assert traces == [1]  # calling the executable neither traces nor lowers again
    assert isinstance(compiled.as_text(), str)  # its other attributes are JAX's own


@pytest.mark.parametrize("bad", [{"steps": 4, "scale": SCALE}, {"scale": SCALE}])
def test_compiled_refuses_other_static_entries(bad: dict[str, Any]) -> None:
    """Another static entry (or none) would need another program: refused, never run with the
    one lowered for 3 (JAX's own executable refuses arguments it was not lowered for)."""
    f, _ = _dict_fn()
    compiled = f.lower(X, {"steps": 3, "scale": SCALE}).compile()
    with pytest.raises(
        TypeError,
        match=r"argument 'cfg': this executable was lowered for the static entries \{'steps': 3\}",
    ):
        compiled(X, bad)


def test_compiled_leaves_out_whole_static_arguments_as_jax_does() -> None:
    """A whole static argument before the per-leaf one is not passed to the executable (as
    with jax.jit's), so the per-leaf argument moves left; by keyword it is simply absent."""

    def fun(k: int, x: Any, cfg: Any) -> Any:
        return jnp.stack([x * cfg["scale"] * k] * cfg["steps"])

    leaves = (("cfg", 2, "dict", ("steps",)),)
    f: Any = static_leaves(jax.jit, fun, leaves, static_argnums=(0,), static_argnames=("k",))
    cfg = {"steps": 2, "scale": SCALE}
    np.testing.assert_allclose(f.lower(3, X, cfg).compile()(X, cfg), f(3, X, cfg))
    np.testing.assert_allclose(f.lower(k=3, x=X, cfg=cfg).compile()(x=X, cfg=cfg), _expected(2) * 3)
    g: Any = static_leaves(jax.jit, fun, leaves, static_argnums=(-3,), static_argnames=())
    np.testing.assert_allclose(g.lower(3, X, cfg).compile()(X, cfg), f(3, X, cfg))


def test_trace_then_lower_then_compile_takes_what_the_wrapper_takes() -> None:
    f, _ = _tuple_fn()
    cfg = Cfg(SCALE, 2)
    compiled = f.trace(X, cfg).lower().compile()
    np.testing.assert_allclose(compiled(X, cfg), _expected(2))
    with pytest.raises(TypeError, match="lowered for the static entries"):
        compiled(X, cfg._replace(steps=None))
    assert "per-leaf" in repr(compiled) and "per-leaf" in repr(f.trace(X, cfg))


# --- pmap's result has lower, as jax.pmap's has (issue 20, item 8) ------------------------------


def test_pmap_result_lowers_compiles_and_runs_like_jax_pmap() -> None:
    from jaxrewrite.leaves import pmap_leaves

    def fun(x: Any, cfg: Any) -> Any:
        return jnp.stack([x * cfg["scale"]] * cfg["steps"])

    p: Any = pmap_leaves(jax.pmap, fun, DICT_LEAVES)
    plain = jax.pmap(
        lambda x, scale, steps: jnp.stack([x * scale] * steps), static_broadcasted_argnums=2
    )
    assert hasattr(jax.pmap(fun), "lower") and hasattr(p, "lower")
    assert [m for m in ("lower", "trace", "eval_shape") if hasattr(p, m)] == [
        m for m in ("lower", "trace", "eval_shape") if hasattr(plain, m)
    ]
    xs, scale = X[None], jnp.ones(1)
    cfg = {"steps": 2, "scale": scale}
    lowered = p.lower(xs, cfg)
    assert isinstance(lowered.as_text(), str)
    out = lowered.compile()(xs, cfg)
    np.testing.assert_allclose(out, plain.lower(xs, scale, 2).compile()(xs, scale))
    np.testing.assert_allclose(out, p(xs, cfg))


# --- the wrappers' type hints are the user's (issue 20, item 9) ---------------------------------


def test_every_helper_result_has_the_users_type_hints() -> None:
    import typing

    from jaxrewrite.leaves import grad_leaves, pmap_leaves, vmap_leaves

    def fun(x: jax.Array, cfg: Cfg) -> jax.Array:
        return x

    hints = typing.get_type_hints(fun)
    assert hints == typing.get_type_hints(jax.jit(fun)) == typing.get_type_hints(jax.vmap(fun))
    for helper, transform in [
        (static_leaves, jax.jit),
        (grad_leaves, jax.grad),
        (vmap_leaves, jax.vmap),
        (pmap_leaves, jax.pmap),
    ]:
        wrapped = helper(transform, fun, TUPLE_LEAVES)
        assert typing.get_type_hints(wrapped) == hints, helper.__name__
