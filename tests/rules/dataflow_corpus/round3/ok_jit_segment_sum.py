# https://github.com/jax-ml/jax/issues/6350 (num_segments static)
import jax
import numpy as np


def main():
    c = np.array([[1, 2, 3, 4], [4, 3, 2, 1], [5, 6, 7, 8]])
    b = np.array([0, 0, 1])
    jit_fn = jax.jit(jax.ops.segment_sum, static_argnames="num_segments")
    return jit_fn(c, b, num_segments=2)
