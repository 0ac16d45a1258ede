# https://github.com/jax-ml/jax/issues/5186 (the commented-out line: n from x.shape, which is static)
import jax.numpy as np
from jax import jit


def test_arange(x):
    n = x.shape[0]
    return np.arange(0, n, 1)


def main():
    test = jit(test_arange)
    return test(np.ones(5))
