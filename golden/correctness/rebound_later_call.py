# jaxrewrite: enable
"""A call in a function body runs later: step may be the def or the jitted function by then.
Either way it takes the def's arguments and its statics (f = jax.jit(f) keeps them), so both
readings write the same in_axes."""
import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


def step(x, n: Static[int]):
    TRACES.append(n)
    return x * len(range(n))


def mapped():
    return jax.vmap(step)


step = jax.jit(step)


def _check():
    by_hand = jax.vmap(step, in_axes=(0, None))
    assert mapped()(jnp.ones(2), 3).tolist() == by_hand(jnp.ones(2), 3).tolist() == [3.0, 3.0]
    assert mapped()(jnp.ones(2), 3).tolist() == [3.0, 3.0]
    assert TRACES == [3], TRACES  # one trace of the jitted step, shared with the hand-written vmap


_PLAIN_FAILS = True
