# https://github.com/jax-ml/jax/issues/5186 (np.arange(0, n, 1) under jit)
import jax.numpy as np
from jax import jit


def test_arange(n):
    return np.arange(0, n, 1)


def main():
    test = jit(test_arange)
    return test(5)
