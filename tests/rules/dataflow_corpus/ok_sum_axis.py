# https://github.com/jax-ml/jax/pull/4412 (axis static)
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="axis")
def total(x, axis):
    return jnp.sum(x, axis)


def main():
    return total(jnp.arange(4), 0)
