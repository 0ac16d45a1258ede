# https://github.com/jax-ml/jax/issues/6350 (jax.jit(jax.ops.segment_sum): num_segments traced)
import jax
import numpy as np


def main():
    c = np.array([[1, 2, 3, 4], [4, 3, 2, 1], [5, 6, 7, 8]])
    b = np.array([0, 0, 1])
    jit_fn = jax.jit(jax.ops.segment_sum)
    return jit_fn(c, b, num_segments=2)
