# jaxrewrite: enable
"""Except-handler names and match captures are bindings of the function they are in."""
import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


def fn(x, n: Static[int]):
    TRACES.append(n)
    return x * len(range(n))


def scale(x, n):
    return x * n


class Boxed(Exception):
    def __call__(self, x, n):
        return x * n


def from_handler():
    try:
        raise Boxed()
    except Boxed as fn:
        return jax.jit(fn)  # the exception, not the def


def from_capture(value):
    match value:
        case fn:
            return jax.jit(fn)


def from_sequence(value):
    match value:
        case [fn]:
            return jax.jit(fn)


def from_as(value):
    match value:
        case Boxed() as fn:
            return jax.vmap(fn, in_axes=(0, 0))
        case _:
            return None


def from_rest(value):
    match value:
        case {**fn}:
            return jax.jit(fn["f"])  # not a name of a def at all
        case _:
            return jax.jit(fn)  # the name is local here too (bound by the first case)


def module_def():
    return jax.jit(fn)  # no local fn: the module's def


def _check():
    for traced in (from_handler(), from_capture(scale), from_sequence([scale]), from_rest({"f": scale})):
        assert float(traced(2.0, jnp.asarray(3.0))) == 6.0  # an array n: only a traced n accepts it
    assert from_as(Boxed())(jnp.ones(2), jnp.ones(2) * 3).tolist() == [3.0, 3.0]  # n mapped over
    assert TRACES == []
    static = module_def()
    assert float(static(1.0, 3)) == 3.0
    assert float(static(2.0, 3)) == 6.0
    assert TRACES == [3]


_PLAIN_FAILS = True
