# https://github.com/jax-ml/jax/pull/24516 (if x > 0 under jax.remat, no outer jit)
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.remat, static_argnums=(1,))
def f(x, _):
    if x > 0:
        return x
    else:
        return jnp.sin(x)


def main():
    return f(3.0, 1.0)
