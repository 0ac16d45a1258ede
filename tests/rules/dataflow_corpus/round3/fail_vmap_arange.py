# https://github.com/jax-ml/jax/issues/5454 (vmap of a function calling jnp.arange(i) on the mapped i)
import jax.numpy as jnp
import numpy as np
from jax import vmap


def test_simple_range_in_vmap(parts):
    def inner_range(i):
        inds = jnp.arange(i)
        return jnp.sum(parts[inds], axis=0)

    bounds = jnp.array([3, 4], dtype="int32")
    return vmap(inner_range)(bounds)


def main():
    return test_simple_range_in_vmap(jnp.array(np.random.randn(40, 2)))
