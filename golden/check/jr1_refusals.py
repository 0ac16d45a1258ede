# jaxrewrite: enable
"""Every refusal in a module is a finding, each with its code; the import raises the first."""
from functools import partial

import jax

from jaxrewrite import Static

NAMES = ["m"]  # a list: it may change before jit reads it


@jax.jit
def a(*rest: Static[int]):
    return rest


@partial(jax.jit, static_argnames=NAMES)
def b(x, n: Static[int], m: int):
    return x


@partial(jax.jit, donate_argnums=(1,))
def c(x, n: Static[int]):
    return x


def d(x, n: Static[int]):
    return x


mapped = jax.vmap(d, (0, None), 0, None, None, None, False, "extra")
