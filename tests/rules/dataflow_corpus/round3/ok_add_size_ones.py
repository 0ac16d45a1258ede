# https://github.com/jax-ml/jax/issues/4449 (the thread's working form: arr.size + 1 stays a Python int)
import jax
import jax.numpy as jnp


@jax.jit
def custom_ones(arr):
    count = arr.size + 1
    return jnp.ones((count,))


def main():
    return custom_ones(jnp.ones((3,)))
