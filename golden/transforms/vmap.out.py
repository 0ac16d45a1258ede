# jaxrewrite: enable
"""vmap: None axes at Static positions, merged with a literal in_axes."""
from functools import partial
from typing import Callable

import jax
import jax.numpy as jnp
from jaxrewrite import Static


@__import__('functools').partial(jax.vmap, in_axes=(0, None))
def apply(x, f: Static[Callable]):
    return f(x)


@partial(jax.vmap, in_axes=(1, None))
def columns(x, n: Static[int]):
    return x * len(range(n))


@partial(jax.vmap, in_axes=(0, None))
def already_none(x, n: Static[int]):
    return x * len(range(n))


def _check():
    assert apply(jnp.zeros(3), jnp.cos).tolist() == [1.0, 1.0, 1.0]
    assert columns(jnp.ones((2, 3)), 2).shape == (3, 2)
    assert already_none(jnp.ones(3), 2).tolist() == [2.0, 2.0, 2.0]


_PLAIN_FAILS = True
