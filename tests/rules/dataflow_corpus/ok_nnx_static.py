# https://github.com/google/flax/issues/4146 (jax.jit with static_argnames=("cond",): the working case)
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("cond",))
def f(x, cond):
    if cond:
        return x
    else:
        return x + 1


def main():
    return f(jnp.array(1), True)
