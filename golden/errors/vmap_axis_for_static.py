# jaxrewrite: enable
from functools import partial

import jax
from jaxrewrite import Static


@partial(jax.vmap, in_axes=(0, 0))
def f(x, n: Static[int]):
    return x
