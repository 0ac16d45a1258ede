# https://github.com/jax-ml/jax/issues/4449 (jnp.add(arr.size, 1) stages the count, then jnp.ones of it)
import jax
import jax.numpy as jnp


@jax.jit
def custom_ones(arr):
    count = jnp.add(arr.size, 1)
    return jnp.ones((count,))


def main():
    return custom_ones(jnp.ones((3,)))
