# https://github.com/ott-jax/ott/pull/114 (segment sizes read as a Python int from traced num_per_segment under jit)
import jax
import jax.numpy as jnp


def segment_point_cloud(x, num_per_segment):
    max_measure_size = int(jnp.max(num_per_segment))
    return jnp.zeros((num_per_segment.shape[0], max_measure_size, x.shape[1]))


@jax.jit
def test(x, num_per_segment):
    return segment_point_cloud(x, num_per_segment)


def main():
    return test(jnp.ones((20, 3)), jnp.array([10, 10]))
