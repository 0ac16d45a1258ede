# https://github.com/jax-ml/jax/issues/14279 (a traced int inside a shape tuple)
import jax
import jax.numpy as jnp


@jax.jit
def f(x, n):
    return x + jnp.zeros((8, n))


def main():
    return f(1.0, 4)
