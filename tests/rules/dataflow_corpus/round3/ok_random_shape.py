# https://github.com/jax-ml/jax/issues/5100 (jakevdp: a maximum size, with the draw deciding how many are used)
import jax
import jax.numpy as jnp

MAX_ROWS = 8


@jax.jit
def f(data, rng_key):
    n, m = data.shape
    shape_key, sub_key = jax.random.split(rng_key)
    rand_shape = jax.random.poisson(shape_key, 1, (2,))
    sub_indices = jax.random.randint(sub_key, (MAX_ROWS, 3), 0, n)
    used = jnp.arange(MAX_ROWS) < rand_shape.sum()
    return data[sub_indices, :], used


def main():
    return f(jax.numpy.arange(10 * 5).reshape((10, 5)), jax.random.PRNGKey(0))
