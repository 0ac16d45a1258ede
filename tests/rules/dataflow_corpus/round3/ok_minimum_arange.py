# https://github.com/jax-ml/jax/issues/4798 (the omnistaging note's fix: Python's min on shapes)
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(0,))
def foo(n, x):
    n_aval = jnp.shape(x)[0]
    n_actual = min(n_aval, n)
    return jnp.arange(n_actual)


def main():
    return foo(5, jnp.arange(10))
