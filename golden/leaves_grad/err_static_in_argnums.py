# jaxrewrite: enable
from functools import partial

import jax
from jaxrewrite import Static


@partial(jax.grad, argnums=(0, 1))
def loss(x, n: Static[int]):
    return x * n
