# jaxrewrite: enable
"""A call in a function body runs later: step may be the def or the jitted function by then."""
import jax
from jaxrewrite import Static


def step(x, n: Static[int]):
    return x * n


def mapped():
    return jax.vmap(step)


step = jax.jit(step)
