# https://github.com/jax-ml/jax/pull/7952 (a tuple of traced values as an axis argument)
import jax
import jax.numpy as jnp


def h(x, y):
    return jnp.sum(x, axis=(0, y))


def main():
    return jax.jit(h)(jnp.ones((2, 3, 4)), 1)
