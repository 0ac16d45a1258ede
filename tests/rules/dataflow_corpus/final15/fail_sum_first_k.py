# https://github.com/jax-ml/jax/issues/1007 (lax.dynamic_slice with a traced size k under jit)
import jax
import jax.numpy as np


@jax.jit
def sum_first_k(a, k):
    return np.sum(jax.lax.dynamic_slice(a, (0,), (k,)))


def main():
    return sum_first_k(np.arange(3.0), 2)
