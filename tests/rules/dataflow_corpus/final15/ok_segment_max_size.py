# https://github.com/ott-jax/ott/pull/114 (max_measure_size passed as a static argument)
from functools import partial

import jax
import jax.numpy as jnp


def segment_point_cloud(x, num_per_segment, max_measure_size):
    return jnp.zeros((num_per_segment.shape[0], max_measure_size, x.shape[1]))


@partial(jax.jit, static_argnums=2)
def test(x, num_per_segment, max_measure_size):
    return segment_point_cloud(x, num_per_segment, max_measure_size)


def main():
    return test(jnp.ones((20, 3)), jnp.array([10, 10]), 10)
