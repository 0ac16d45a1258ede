# https://github.com/patrick-kidger/equinox/issues/236 (patrick-kidger's diagnosis: zeros of a traced shape)
import jax
import jax.numpy as jnp


@jax.jit
def f(shape):
    return jax.numpy.zeros(shape)


def main():
    return f((2, 3))
