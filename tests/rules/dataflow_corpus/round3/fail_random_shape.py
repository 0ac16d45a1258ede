# https://github.com/jax-ml/jax/issues/5100 (randint's shape from a Poisson draw under jit)
import jax


@jax.jit
def f(data, rng_key):
    n, m = data.shape
    shape_key, sub_key = jax.random.split(rng_key)
    rand_shape = jax.random.poisson(shape_key, 1, (2,))
    sub_indices = jax.random.randint(sub_key, (rand_shape.sum(), 3), 0, n)
    return data[sub_indices, :]


def main():
    return f(jax.numpy.arange(10 * 5).reshape((10, 5)), jax.random.PRNGKey(0))
