# jaxrewrite: enable
"""Numerical helpers whose static arguments are declared where the parameters are."""

from functools import partial

import jax
import jax.numpy as jnp

from jaxrewrite import Static

#: One entry per trace: a static argument is traced once per value, never once per call.
TRACES: list[tuple[str, object]] = []


@jax.jit
def power_sum(x: jax.Array, n: Static[int]) -> jax.Array:
    """x + x**2 + ... + x**n; ``n`` drives a Python loop, so it must be static."""
    TRACES.append(("power_sum", n))
    total = jnp.zeros_like(x)
    for k in range(1, n + 1):
        total = total + x**k
    return total


@partial(jax.jit, static_argnames=("shape",))
def tile(x: jax.Array, shape: Static[tuple[int, ...]]) -> jax.Array:
    """``x`` broadcast to ``shape``; a shape must be static (the keyword written by hand is kept)."""
    TRACES.append(("tile", shape))
    return jnp.broadcast_to(x, shape)
