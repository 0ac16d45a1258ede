# https://github.com/jax-ml/jax/pull/24516 (the same branch written with jnp.where)
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.remat, static_argnums=(1,))
def f(x, _):
    return jnp.where(x > 0, x, jnp.sin(x))


def main():
    return f(3.0, 1.0)
