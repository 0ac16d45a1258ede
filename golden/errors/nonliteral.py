# jaxrewrite: enable
from functools import partial

import jax
from jaxrewrite import Static

NAMES = ["m"]  # a list: it may change before jit reads it


@partial(jax.jit, static_argnames=NAMES)
def f(x, m, n: Static[int]):
    return x
