# https://github.com/jax-ml/jax/issues/14279 (the fix: static_argnums)
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def f(x, n):
    return x + jnp.zeros((8, n))


def main():
    return f(1.0, 4)
