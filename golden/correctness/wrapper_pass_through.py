# jaxrewrite: enable
"""Wrappers of this module that pass *args, **kwargs straight through (or return the function,
or a transform of it) keep the def's arguments: the transform around them gets its statics."""
import functools

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []
REGISTRY = []


def logged(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)

    return inner


def register(fn):
    REGISTRY.append(fn)
    return fn


def body(x, n: Static[int]):
    TRACES.append(n)
    return x * len(range(n))


a = jax.jit(logged(body))
b = jax.jit(register(body))
c = jax.vmap(logged(register(body)))


@jax.jit
@logged
def d(x, n: Static[int]):
    TRACES.append(n)
    return x * len(range(n))


def _check():
    by_hand = jax.jit(logged(body), static_argnums=(1,), static_argnames=("n",))
    for f in (a, b, d, by_hand):
        TRACES.clear()
        assert float(f(1.0, 3)) == float(f(1.0, 3)) == 3.0
        assert TRACES == [3], TRACES
    assert c(jnp.ones(2), 2).tolist() == [2.0, 2.0]


_PLAIN_FAILS = True
