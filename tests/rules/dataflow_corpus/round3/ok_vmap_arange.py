# https://github.com/jax-ml/jax/issues/5454 (a fixed-length range masked by the mapped bound)
import jax.numpy as jnp
import numpy as np
from jax import vmap


def test_simple_range_in_vmap(parts):
    def inner_range(i):
        mask = jnp.arange(parts.shape[0]) < i
        return jnp.sum(jnp.where(mask[:, None], parts, 0.0), axis=0)

    bounds = jnp.array([3, 4], dtype="int32")
    return vmap(inner_range)(bounds)


def main():
    return test_simple_range_in_vmap(jnp.array(np.random.randn(40, 2)))
