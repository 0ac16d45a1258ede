# https://github.com/jax-ml/jax/issues/19433 (np.arange(x[0] - 1, x[0] + 1): bounds from array values)
import jax.numpy as np
from jax import jit


@jit
def f(x):
    return np.arange(x[0] - 1, x[0] + 1)


def main():
    return f(np.zeros(1).astype(int))
