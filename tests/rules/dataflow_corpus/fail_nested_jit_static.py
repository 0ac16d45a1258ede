# https://github.com/jax-ml/jax/issues/35090 (the output of an inner jit is traced, though k is static everywhere)
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(0,))
def add1(i):
    return i + 1


@functools.partial(jax.jit, static_argnums=(0,))
def my_arange(k):
    return jnp.arange(add1(k))


def main():
    return my_arange(5)
