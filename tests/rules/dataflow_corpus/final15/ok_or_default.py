# https://github.com/jax-ml/jax/pull/16430 (the default chosen by `is None`, which reads no value)
import jax
import jax.numpy as jnp


@jax.jit
def scaled(x, scale=None):
    s = 1.0 if scale is None else scale
    return x * s


def main():
    return scaled(jnp.ones(3), 2.0)
