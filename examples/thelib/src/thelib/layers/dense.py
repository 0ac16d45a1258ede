# jaxrewrite: enable
"""A stack of dense layers whose depth and activation are static."""

from typing import Callable

import jax
import jax.numpy as jnp

from jaxrewrite import Static


@jax.jit
def dense_stack(x: jax.Array, weights: jax.Array, depth: Static[int], act: Static[Callable] = jnp.tanh) -> jax.Array:
    for _ in range(depth):
        x = act(x @ weights)
    return x
