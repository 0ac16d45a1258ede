# https://github.com/data-apis/array-api/pull/690 (rgommers: jnp.repeat(x, x[2]) under jax.jit)
import jax
import jax.numpy as jnp


def func(x):
    return jnp.repeat(x, x[2])


def main():
    return jax.jit(func)(jnp.arange(3))
