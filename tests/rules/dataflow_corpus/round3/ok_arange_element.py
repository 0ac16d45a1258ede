# https://github.com/jax-ml/jax/issues/19433 (the user's workaround: np.arange(-1, 1) + x[0])
import jax.numpy as np
from jax import jit


@jit
def f(x):
    return np.arange(-1, 1) + x[0]


def main():
    return f(np.zeros(1).astype(int))
