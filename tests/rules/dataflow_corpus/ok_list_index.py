# https://github.com/jax-ml/jax/pull/5853 (the fix the error message gives: jnp.asarray(obj)[idx])
import jax
import jax.numpy as jnp


def pick(i):
    return jnp.asarray([1, 2, 3])[i]


def main():
    return jax.jit(pick)(0)
