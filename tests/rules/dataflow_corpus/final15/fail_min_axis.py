# https://jax.readthedocs.io/en/latest/errors.html (ConcretizationTypeError: x.min(axis) with axis traced)
import jax.numpy as jnp
from jax import jit


@jit
def func(x, axis):
    return x.min(axis)


def main():
    return func(jnp.arange(4), 0)
