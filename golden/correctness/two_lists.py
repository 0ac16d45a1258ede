# jaxrewrite: enable
"""Both static lists written by hand: JAX reads them apart (n static only by position, k only
by name), so the marked parameter joins both and the rest stays as the user wrote it."""
from functools import partial

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


@partial(jax.jit, static_argnums=(1,), static_argnames=("k",))
def f(x, n, k=1, m: Static[int] = 2):
    TRACES.append("f")
    return x * len(range(m)) + n + k


@partial(jax.jit, static_argnums=(1,), static_argnames=("k",))
def by_hand(x, n, k=1, m=2):
    TRACES.append("by_hand")
    return x * len(range(m)) + n + k


def _count(g, name, *args, **kwargs):
    before = TRACES.count(name)
    out = g(*args, **kwargs)
    g(*args, **kwargs)
    return out, TRACES.count(name) - before


def _check():
    hand = jax.jit(by_hand.__wrapped__, static_argnums=(1, 3), static_argnames=("k", "m"))
    calls = [
        ((1.0, 3), {}),
        ((1.0, 3), {"k": 2, "m": 3}),
        ((1.0,), {"n": jnp.asarray(3), "k": 2}),  # n by name: traced, as the user wrote it
        ((1.0, 3, jnp.asarray(2)), {"m": 4}),  # k by position: traced too
        ((1.0, 3, 2, 5), {}),  # m by position: static
    ]
    for args, kwargs in calls:
        TRACES.clear()
        got, count = _count(f, "f", *args, **kwargs)
        want, hand_count = _count(hand, "by_hand", *args, **kwargs)
        assert float(got) == float(want) and count == hand_count == 1, (args, kwargs, count, hand_count)


_PLAIN_FAILS = True
