# jaxrewrite: enable
from functools import partial

import jax
from jaxrewrite import Static


@partial(jax.jit, donate_argnums=(0, 1))
def f(x, n: Static[int]):
    return x
