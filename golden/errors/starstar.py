# jaxrewrite: enable
from functools import partial

import jax
from jaxrewrite import Static

OPTIONS = {"static_argnums": (1,)}


@partial(jax.jit, **OPTIONS)
def f(x, n: Static[int]):
    return x
